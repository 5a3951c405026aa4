/*
 * Stack transforms (contract in core/model/stacktx.h).
 *
 * Children are numbered after their parents in every tree the readers
 * build (core/model/profmerge.c relies on the same), so one pass in node
 * order decides each node from its parent's state: whether its stack went
 * through a focus or ignore match, and which node of the output its
 * samples land on. A second pass, backwards, first marks the nodes that
 * carry kept weight, so the output has no empty frames.
 */
#include "core/model/stacktx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/banned.h"

static const char *const option_names[TK_STACKTX_NR_REGEX] = {
	"--focus", "--ignore", "--hide", "--prune-from",
};

void tk_stacktx_init(struct tk_stacktx *t)
{
	memset(t, 0, sizeof(*t));
}

int tk_stacktx_compile(struct tk_stacktx *t, struct tk_err *err)
{
	int i, rc;

	for (i = 0; i < TK_STACKTX_NR_REGEX; i++) {
		char msg[128];

		if (!t->regex[i] || (t->compiled & (1u << i)))
			continue;
		if (strlen(t->regex[i]) > TK_STACKTX_MAX_REGEX)
			return tk_err_set(err, TK_EUSAGE, "%s: the regular expression is longer "
					  "than %d bytes", option_names[i], TK_STACKTX_MAX_REGEX);
		rc = regcomp(&t->re[i], t->regex[i], REG_EXTENDED | REG_NOSUB);
		if (rc) {
			regerror(rc, &t->re[i], msg, sizeof(msg));
			regfree(&t->re[i]);
			return tk_err_set(err, TK_EUSAGE, "%s: invalid regular expression: %s",
					  option_names[i], msg);
		}
		t->compiled |= 1u << i;
	}
	return 0;
}

void tk_stacktx_release(struct tk_stacktx *t)
{
	int i;

	for (i = 0; i < TK_STACKTX_NR_REGEX; i++)
		if (t->compiled & (1u << i))
			regfree(&t->re[i]);
	t->compiled = 0;
}

int tk_stacktx_active(const struct tk_stacktx *t)
{
	return t && (t->compiled || t->collapse_recursion);
}

void tk_stacktx_describe(const struct tk_stacktx *t, struct tk_buf *out)
{
	const char *sep = "";
	int i;

	if (!tk_stacktx_active(t))
		return;
	for (i = 0; i < TK_STACKTX_NR_REGEX; i++) {
		if (!(t->compiled & (1u << i)))
			continue;
		tk_buf_addf(out, "%s%s '%s'", sep, option_names[i] + 2, t->regex[i]);
		sep = ", ";
	}
	if (t->collapse_recursion)
		tk_buf_addf(out, "%srecursion collapsed", sep);
}

/* Which regexes name n matches, bit i for regex i; computed on first use
 * (bit 7 set when known). */
static unsigned matches(const struct tk_stacktx *t, const struct tk_profile *in,
			uint8_t *cache, uint32_t name)
{
	unsigned m = 0;
	int i;

	if (cache[name] & 0x80)
		return cache[name] & 0x7f;
	for (i = 0; i < TK_STACKTX_NR_REGEX; i++)
		if ((t->compiled & (1u << i)) && !regexec(&t->re[i], in->names[name], 0, NULL, 0))
			m |= 1u << i;
	cache[name] = (uint8_t)(0x80 | m);
	return m;
}

/* Node flags of the first pass. */
#define FOCUSED 1u  /* a frame of the stack matched focus */
#define IGNORED 2u  /* a frame of the stack matched ignore */
#define PRUNED 4u   /* the output node is a prune match: nothing grows below */
#define KEPT 8u     /* the node's self weight is kept */
#define NEEDED 16u  /* the node or a descendant has kept weight */

int tk_stacktx_apply(const struct tk_stacktx *t, const struct tk_profile *in,
		     struct tk_profile *out, struct tk_err *err)
{
	uint8_t *cache = NULL, *flags = NULL;
	uint32_t *map = NULL, *names = NULL, i;
	int focus = t->compiled & (1u << TK_STACKTX_FOCUS);
	int ret = 0;

	tk_profile_init(out, in->unit);
	out->dispersion = in->dispersion;
	memcpy(out->warning, in->warning, sizeof(out->warning));
	if (in->nr_nodes == 0)
		goto done;
	cache = tk_xcalloc(in->nr_names ? in->nr_names : 1, 1);
	names = tk_xcalloc(in->nr_names ? in->nr_names : 1, sizeof(*names));
	flags = tk_xcalloc(in->nr_nodes, 1);
	map = tk_xcalloc(in->nr_nodes, sizeof(*map));
	for (i = 1; i < in->nr_nodes; i++) {
		const struct tk_profile_node *n = &in->nodes[i];
		unsigned m;

		if (n->parent >= i) {
			ret = tk_err_set(err, TK_EINTERNAL, "cannot transform the profile: node "
					 "%u comes before its parent", i);
			goto done;
		}
		m = matches(t, in, cache, n->name);
		flags[i] = flags[n->parent] & (FOCUSED | IGNORED);
		if (m & (1u << TK_STACKTX_FOCUS))
			flags[i] |= FOCUSED;
		if (m & (1u << TK_STACKTX_IGNORE))
			flags[i] |= IGNORED;
		if (n->self > 0 && !(flags[i] & IGNORED) && (!focus || (flags[i] & FOCUSED)))
			flags[i] |= KEPT | NEEDED;
	}
	if (!focus && in->nodes[TK_PROFILE_ROOT].self > 0)
		flags[TK_PROFILE_ROOT] |= KEPT;
	for (i = in->nr_nodes - 1; i > 0; i--)
		if (flags[i] & NEEDED)
			flags[in->nodes[i].parent] |= NEEDED;

	map[TK_PROFILE_ROOT] = TK_PROFILE_ROOT;
	for (i = 1; i < in->nr_nodes; i++) {
		const struct tk_profile_node *n = &in->nodes[i];
		uint32_t up = map[n->parent];
		unsigned m;

		if (!(flags[i] & NEEDED))
			continue;
		m = cache[n->name] & 0x7f;
		if (flags[n->parent] & PRUNED) {
			map[i] = up;
			flags[i] |= PRUNED;
			continue;
		}
		if (m & (1u << TK_STACKTX_HIDE)) {
			map[i] = up;
			continue;
		}
		if (!names[n->name]) {
			names[n->name] = tk_profile_intern(out, in->names[n->name],
							   in->name_lens[n->name]);
			tk_profile_copy_category(out, names[n->name], in, n->name);
		}
		if (t->collapse_recursion && up != TK_PROFILE_ROOT &&
		    out->nodes[up].name == names[n->name]) {
			map[i] = up;
		} else {
			map[i] = tk_profile_child(out, up, names[n->name]);
			if (!map[i]) {
				ret = tk_err_set(err, TK_EDATA, "the transformed profile has more "
						 "than %u nodes", TK_PROFILE_MAX_NODES);
				goto done;
			}
		}
		if (m & (1u << TK_STACKTX_PRUNE_FROM))
			flags[i] |= PRUNED;
	}
	/* in's weights passed its own checks, and a subset of them adds up to
	 * no more than they did: no add below can be refused */
	for (i = 0; i < in->nr_nodes; i++)
		if (flags[i] & KEPT)
			tk_profile_add_self(out, map[i], in->nodes[i].self);
done:
	free(cache);
	free(names);
	free(flags);
	free(map);
	if (ret)
		tk_profile_release(out);
	else
		tk_profile_finish(out);
	return ret;
}

int tk_stacktx_apply_in_place(const struct tk_stacktx *t, struct tk_profile *p,
			      struct tk_err *err)
{
	struct tk_profile out;
	int ret;

	if (!tk_stacktx_active(t))
		return 0;
	tk_profile_finish(p);
	ret = tk_stacktx_apply(t, p, &out, err);
	if (ret)
		return ret;
	tk_profile_release(p);
	*p = out;
	return 0;
}
