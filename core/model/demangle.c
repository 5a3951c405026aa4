#include "core/model/demangle.h"

#include <stdlib.h>
#include <string.h>

/* Debian's libiberty-dev puts its headers under libiberty/ */
#include <libiberty/demangle.h>

#include "core/base/banned.h"


static int symbol_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '$';
}

static int version_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* stackcollapse-perf's "_[k]", "_[i]"... after a symbol */
static int annotation_at(const char *s, size_t i, size_t len)
{
	return i + 1 < len && s[i] == '_' && s[i + 1] == '[';
}

/*
 * The length of the ELF version node at s (what follows "@" or "@@"), 0
 * when s does not read as one: it must end the symbol, and have an
 * upper-case start and a '_' ("GLIBC_2.34"), which spares "@plt" and the
 * '@' of other languages' names.
 */
static size_t version_len(const char *s, size_t len)
{
	size_t i = 0;
	int under = 0;

	if (!len || s[0] < 'A' || s[0] > 'Z')
		return 0;
	while (i < len && version_char((unsigned char)s[i]) && !annotation_at(s, i, len)) {
		if (s[i] == '_')
			under = 1;
		i++;
	}
	if (i < len && symbol_char((unsigned char)s[i]) && !annotation_at(s, i, len))
		return 0;
	return under ? i : 0;
}

static int looks_mangled(const char *s, size_t len)
{
	return len >= 3 && s[0] == '_' && (s[1] == 'Z' || s[1] == 'R');
}

/* DTrace's "module`symbol": the symbol starts after the tick. */
static size_t module_prefix(const char *s, size_t len)
{
	const char *tick = memchr(s, '`', len);

	if (!tick || memchr(s, ' ', (size_t)(tick - s)))
		return 0;
	return (size_t)(tick - s) + 1;
}

static int rewrite(const char *s, size_t len, size_t pre, unsigned flags, struct tk_buf *out)
{
	size_t sym = 0, rest, dlen = 0;
	char *dm = NULL;

	s += pre;
	len -= pre;
	while (sym < len && symbol_char((unsigned char)s[sym]) && !annotation_at(s, sym, len))
		sym++;
	rest = sym;
	if (sym && sym < len && s[sym] == '@') {
		size_t at = sym + 1 + (sym + 1 < len && s[sym + 1] == '@');
		size_t v = version_len(s + at, len - at);

		if (v)
			rest = at + v;
	}
	if (looks_mangled(s, sym) && sym <= TK_DEMANGLE_MAX_SYMBOL) {
		char small[256], *tmp = sym < sizeof(small) ? small : tk_xmalloc(sym + 1);

		memcpy(tmp, s, sym);
		tmp[sym] = '\0';
		dm = cplus_demangle(tmp, DMGL_ANSI | DMGL_AUTO |
				    (flags & TK_DEMANGLE_NO_PARAMS ? 0 : DMGL_PARAMS));
		if (tmp != small)
			free(tmp);
		if (dm) {
			dlen = strlen(dm);
			if (pre + dlen + (len - rest) > TK_PROFILE_MAX_NAME) {
				free(dm);
				dm = NULL;
			}
		}
	}
	if (!dm && rest == sym)
		return 0;
	tk_buf_reset(out);
	tk_buf_add(out, s - pre, pre);
	if (dm)
		tk_buf_add(out, dm, dlen);
	else
		tk_buf_add(out, s, sym);
	tk_buf_add(out, s + rest, len - rest);
	free(dm);
	return 1;
}

int tk_demangle_name(const char *s, size_t len, unsigned flags, struct tk_buf *out)
{
	return rewrite(s, len, module_prefix(s, len), flags, out);
}

/* Whether tk_demangle_name could change s: most names are spared the
 * call (and the copies it makes) by a few byte tests and memchr. */
static int may_change(const char *s, size_t len)
{
	size_t pre;

	if (looks_mangled(s, len) || memchr(s, '@', len))
		return 1;
	pre = module_prefix(s, len);
	return pre && looks_mangled(s + pre, len - pre);
}

/*
 * Rebuilds p into q with names[] mapped through map: nodes in id order,
 * so parents come before their children and siblings keep their order
 * (a node is put first in its parent's list); a child whose (parent,
 * name) is taken already is merged into that one.
 */
static void rebuild(struct tk_profile *p, struct tk_profile *q, const uint32_t *map)
{
	uint32_t *nmap = tk_realloc_array(NULL, p->nr_nodes, sizeof(*nmap)), i;

	tk_profile_reserve(q, p->nr_nodes);
	nmap[0] = TK_PROFILE_ROOT;
	q->nodes[0].self = p->nodes[0].self;
	q->sum = p->sum;
	for (i = 1; i < p->nr_nodes; i++) {
		const struct tk_profile_node *n = &p->nodes[i];

		/* q never has more nodes than p: no node limit to meet */
		nmap[i] = tk_profile_child(q, nmap[n->parent], map[n->name]);
		q->nodes[nmap[i]].self += n->self;
	}
	free(nmap);
}

/*
 * When no two names became one, no siblings can collide: the tree stays
 * as it is and only its name ids change, with q's names swapped in. The
 * child index hashes (parent, name) pairs, so it is emptied: it is
 * rebuilt lazily, for the parents searched again.
 */
static void rename_in_place(struct tk_profile *p, struct tk_profile *q, const uint32_t *map)
{
	struct tk_profile tmp;
	uint32_t i;

	for (i = 1; i < p->nr_nodes; i++)
		p->nodes[i].name = map[p->nodes[i].name];
	tmp = *p;
	p->name_cats = q->name_cats;
	p->nr_cats = q->nr_cats;
	q->name_cats = tmp.name_cats;
	q->nr_cats = tmp.nr_cats;
	p->arena = q->arena;
	p->names = q->names;
	p->name_lens = q->name_lens;
	p->nr_names = q->nr_names;
	p->alloc_names = q->alloc_names;
	p->name_slots = q->name_slots;
	p->name_mask = q->name_mask;
	q->arena = tmp.arena;
	q->names = tmp.names;
	q->name_lens = tmp.name_lens;
	q->nr_names = tmp.nr_names;
	q->alloc_names = tmp.alloc_names;
	q->name_slots = tmp.name_slots;
	q->name_mask = tmp.name_mask;
	memset(p->child_slots, 0, (p->child_mask + 1) * sizeof(*p->child_slots));
	memset(p->child_indexed, 0, p->alloc_nodes);
	p->nr_indexed = 0;
}

size_t tk_profile_demangle(struct tk_profile *p, unsigned flags)
{
	struct tk_buf nb = TK_BUF_INIT;
	struct tk_profile q;
	uint32_t *map = NULL, i;
	size_t changed = 0;
	int finished = p->finished;

	for (i = 1; i < p->nr_names; i++) {
		const char *s = p->names[i];
		size_t len = p->name_lens[i];

		if (!may_change(s, len) || !tk_demangle_name(s, len, flags, &nb)) {
			if (map)
				map[i] = tk_profile_intern(&q, s, len);
			continue;
		}
		if (!map) {
			uint32_t j;

			/* the first change: names so far keep their ids */
			tk_profile_init(&q, p->unit);
			map = tk_realloc_array(NULL, p->nr_names, sizeof(*map));
			for (j = 0; j < i; j++)
				map[j] = tk_profile_intern(&q, p->names[j], p->name_lens[j]);
		}
		map[i] = tk_profile_intern(&q, nb.buf, nb.len);
		changed++;
	}
	tk_buf_release(&nb);
	if (!map)
		return 0;
	for (i = 1; i < p->nr_names; i++)
		tk_profile_copy_category(&q, map[i], p, i);
	if (q.nr_names == p->nr_names) {
		/* every old name has a new one of its own: nothing merges */
		rename_in_place(p, &q, map);
		tk_profile_release(&q);
		free(map);
		return changed;
	}
	rebuild(p, &q, map);
	free(map);
	memcpy(q.warning, p->warning, sizeof(q.warning));
	q.dispersion = p->dispersion;
	tk_profile_release(p);
	*p = q;
	if (finished)
		tk_profile_finish(p);
	return changed;
}
