/*
 * Flame graph layout with flamegraph.pl's geometry.
 *
 * flamegraph.pl sorts the folded lines as strings and merges neighbours,
 * so under one parent a frame's own weight ("main;a 5" sorts before
 * "main;a;b 3": the space before the count is below ';') comes first and
 * the children follow in the order of their names compared as if each
 * were followed by ';'. We rank every distinct name once in that order,
 * then sort each kept node's children by rank: integer compares instead
 * of string compares in the hot loop.
 *
 * Pruning is flamegraph.pl's: a frame is dropped when its width in weight
 * units is below minwidth / ((image_width - 2 * xpad) / total). A child is
 * never wider than its parent, so a dropped frame's subtree is dropped
 * with it and never visited: the work is proportional to what is drawn.
 *
 * The walk uses an explicit stack (stacks may be 65536 frames deep).
 */
#include "core/draw/flame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

void tk_flame_opts_init(struct tk_flame_opts *o)
{
	o->image_width = 1200;
	o->minwidth = 0.1;
}

void tk_flame_release(struct tk_flame *f)
{
	free(f->frames);
	memset(f, 0, sizeof(*f));
}

/* Compares a";" with b";" bytewise (unsigned). */
static int name_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	size_t n = la < lb ? la : lb, i;
	int c = memcmp(a, b, n);

	if (c || la == lb)
		return c;
	for (i = n;; i++) {
		int ca = i < la ? (unsigned char)a[i] : i == la ? ';' : -1;
		int cb = i < lb ? (unsigned char)b[i] : i == lb ? ';' : -1;

		if (ca != cb)
			return ca - cb;
	}
}

static int cmp_name_ids(const void *x, const void *y, void *arg)
{
	const struct tk_profile *p = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return name_cmp(p->names[a], p->name_lens[a], p->names[b], p->name_lens[b]);
}

/* rank[name id] = position of the name in sorted order. */
static uint32_t *rank_names(const struct tk_profile *p)
{
	uint32_t *ids = tk_realloc_array(NULL, p->nr_names ? p->nr_names : 1, sizeof(*ids));
	uint32_t *rank = tk_realloc_array(NULL, p->nr_names ? p->nr_names : 1, sizeof(*rank));
	uint32_t i;

	for (i = 0; i < p->nr_names; i++)
		ids[i] = i;
	qsort_r(ids, p->nr_names, sizeof(*ids), cmp_name_ids, (void *)p);
	for (i = 0; i < p->nr_names; i++)
		rank[ids[i]] = i;
	free(ids);
	return rank;
}

struct kid {
	uint32_t rank;
	uint32_t node;
};

static int cmp_kids(const void *x, const void *y)
{
	const struct kid *a = x, *b = y;

	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static void sort_kids(struct kid *k, size_t n)
{
	size_t i, j;

	if (n > 16) {
		qsort(k, n, sizeof(*k), cmp_kids);
		return;
	}
	for (i = 1; i < n; i++) {
		struct kid t = k[i];

		for (j = i; j > 0 && k[j - 1].rank > t.rank; j--)
			k[j] = k[j - 1];
		k[j] = t;
	}
}

struct pending {
	uint32_t node;
	uint32_t depth;
	double start;
};

static void reverse_pending(struct pending *s, size_t n)
{
	size_t i;

	for (i = 0; i < n / 2; i++) {
		struct pending t = s[i];

		s[i] = s[n - 1 - i];
		s[n - 1 - i] = t;
	}
}

/*
 * The walk behind both layouts. weights NULL: the profile's own totals and
 * self weights (tk_flame_layout); otherwise weights[node] is the node's
 * width, its own weight is that minus its children's, and nodes weighing
 * nothing are left out. Always inlined, so each caller gets its own copy
 * with the test folded away.
 */
static inline __attribute__((always_inline)) int
layout(const struct tk_profile *p, const double *weights, const struct tk_flame_opts *o,
       struct tk_flame *out, struct tk_err *err)
{
	struct tk_flame_opts defaults;
	struct pending *stack = NULL;
	struct kid *kids = NULL;
	size_t nr_stack = 0, alloc_stack = 0, alloc_kids = 0;
	uint32_t *rank;
	double min_time = 0, widthpertime;

	if (!o) {
		tk_flame_opts_init(&defaults);
		o = &defaults;
	}
	memset(out, 0, sizeof(*out));
	if (!p->finished)
		return tk_err_set(err, TK_EINTERNAL, "flame layout of an unfinished profile");
	if (!(o->image_width > 2 * TK_FLAME_XPAD))
		return tk_err_set(err, TK_EUSAGE, "image width must be more than %d pixels",
				  2 * TK_FLAME_XPAD);
	if (!(o->minwidth >= 0))
		return tk_err_set(err, TK_EUSAGE, "minimum frame width must not be negative");
	out->total = weights ? weights[TK_PROFILE_ROOT] : tk_profile_total(p);
	/* Same operations as flamegraph.pl, so frames at the boundary are
	 * pruned the same way. */
	if (out->total > 0) {
		widthpertime = (o->image_width - 2 * TK_FLAME_XPAD) / out->total;
		min_time = o->minwidth / widthpertime;
	}

	rank = rank_names(p);
	TK_ALLOC_GROW(stack, 1, alloc_stack);
	stack[nr_stack].node = TK_PROFILE_ROOT;
	stack[nr_stack].depth = 0;
	stack[nr_stack].start = 0;
	nr_stack++;
	while (nr_stack) {
		struct pending e = stack[--nr_stack];
		const struct tk_profile_node *n = &p->nodes[e.node];
		struct tk_flame_frame *f;
		size_t nk = 0, i, kept;
		uint32_t c;
		double pos, kids_total = 0;

		TK_ALLOC_GROW(out->frames, out->nr + 1, out->alloc);
		f = &out->frames[out->nr++];
		f->node = e.node;
		f->depth = e.depth;
		f->start = e.start;
		f->width = weights ? weights[e.node] : n->total;
		if (e.depth > out->max_depth)
			out->max_depth = e.depth;

		for (c = n->first_child; c; c = p->nodes[c].next_sibling) {
			if (weights) {
				if (!(weights[c] > 0))
					continue;
				kids_total += weights[c];
			}
			TK_ALLOC_GROW(kids, nk + 1, alloc_kids);
			kids[nk].rank = rank[p->nodes[c].name];
			kids[nk].node = c;
			nk++;
		}
		if (!nk)
			continue;
		sort_kids(kids, nk);
		/* Positions count the pruned children too; the kept ones go
		 * on the stack right to left so the leftmost is drawn first. */
		pos = e.start + (weights ? weights[e.node] - kids_total : n->self);
		kept = 0;
		TK_ALLOC_GROW(stack, nr_stack + nk, alloc_stack);
		for (i = 0; i < nk; i++) {
			double w = weights ? weights[kids[i].node] : p->nodes[kids[i].node].total;

			if (!(w < min_time)) {
				stack[nr_stack + kept].node = kids[i].node;
				stack[nr_stack + kept].depth = e.depth + 1;
				stack[nr_stack + kept].start = pos;
				kept++;
			}
			pos += w;
		}
		reverse_pending(stack + nr_stack, kept);
		nr_stack += kept;
	}
	free(stack);
	free(kids);
	free(rank);
	return 0;
}

int tk_flame_layout(const struct tk_profile *p, const struct tk_flame_opts *o,
		    struct tk_flame *out, struct tk_err *err)
{
	return layout(p, NULL, o, out, err);
}

int tk_flame_layout_weights(const struct tk_profile *p, const double *total,
			    const struct tk_flame_opts *o, struct tk_flame *out,
			    struct tk_err *err)
{
	if (!total) {
		memset(out, 0, sizeof(*out));
		return tk_err_set(err, TK_EINTERNAL, "flame layout without weights");
	}
	return layout(p, total, o, out, err);
}

/*
 * flamegraph.pl --reverse reverses every folded line before merging: a
 * stack is replayed leaf first with its node's self weight. Each name is
 * interned into out once (map), and a node with no self weight and no
 * children (a "stack 0" line) is kept as a zero-weight stack.
 */
int tk_profile_reverse(const struct tk_profile *in, struct tk_profile *out,
		       struct tk_err *err)
{
	uint32_t *map, *names = NULL, i;
	size_t alloc_names = 0;
	int ret = 0;

	tk_profile_init(out, in->unit);
	map = tk_xcalloc(in->nr_names ? in->nr_names : 1, sizeof(*map));
	for (i = 1; i < in->nr_nodes && !ret; i++) {
		const struct tk_profile_node *n = &in->nodes[i];
		uint32_t at, depth = 0;

		if (n->self == 0 && n->first_child)
			continue;
		for (at = i; at != TK_PROFILE_ROOT; at = in->nodes[at].parent) {
			uint32_t name = in->nodes[at].name;

			if (!map[name] && name) {
				map[name] = tk_profile_intern(out, in->names[name],
							      in->name_lens[name]);
				tk_profile_copy_category(out, map[name], in, name);
			}
			TK_ALLOC_GROW(names, depth + 1, alloc_names);
			names[depth++] = map[name];
		}
		ret = tk_profile_add_stack(out, names, depth, n->self);
	}
	if (!ret)
		tk_profile_add_self(out, TK_PROFILE_ROOT, in->nodes[0].self);
	free(map);
	free(names);
	if (ret)
		return tk_err_set(err, TK_EDATA, "reversed profile has more than %u nodes",
				  TK_PROFILE_MAX_NODES);
	memcpy(out->warning, in->warning, sizeof(out->warning));
	out->dispersion = in->dispersion;
	tk_profile_finish(out);
	return 0;
}

int tk_flame_parse_size(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !(v >= 0) || v > 1e9)
		return -1;
	*out = v;
	return 0;
}

int tk_flame_parse_minwidth(const char *arg, double *px, double *pct)
{
	size_t len = strlen(arg);
	char num[64];
	double v;

	if (!len || len >= sizeof(num))
		return -1;
	memcpy(num, arg, len + 1);
	if (num[len - 1] == '%') {
		num[len - 1] = 0;
		if (tk_flame_parse_size(num, &v) || v > 100)
			return -1;
		*pct = v;
		return 0;
	}
	if (tk_flame_parse_size(num, &v))
		return -1;
	*px = v;
	*pct = -1;
	return 0;
}
