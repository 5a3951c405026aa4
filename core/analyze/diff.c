/*
 * Differential profiles: the union tree and its per-node weights.
 *
 * Building is one linear pass per input, no per-node allocation: the
 * union and the per-node arrays are sized once for the largest union
 * possible (the sum of the inputs' nodes; untouched pages cost nothing)
 * and the part that will be written is faulted in with one madvise.
 * Names are normalized and interned once per distinct name of each
 * input, not once per node; with no normalization flags they are
 * interned as they are, and new (the first input) is copied into the
 * empty union verbatim.
 *
 * A baseline is matched parent by parent (map_input): its parents are
 * visited in id order, so a parent is mapped before its children, and
 * the children on both sides are matched by name through a scratch array
 * indexed by union name id. An input node may share its union node with
 * a sibling that normalizes to the same name: their weights add up.
 * Totals are sums over the union's subtrees, computed by one reverse
 * walk (a union node is created after its parent).
 *
 * N > 1 baselines: each baseline's per-node values are folded into a
 * running mean and sum of squared deviations (Welford's update, one pass
 * over the union per baseline, nodes a baseline lacks counting as 0), so
 * the sample standard deviation needs neither N copies of the arrays nor
 * the cancellation-prone sum-of-squares formula.
 */
#include "core/analyze/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

void tk_diff_opts_init(struct tk_diff_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->norm = TK_DIFF_NORM_NONE;
	o->normalize_flags = 0;
	o->min_delta = 0;
	o->spread_k = 3;
	o->match_roots = 0;
	o->saturation = 1;
}

void tk_diff_release(struct tk_diff *d)
{
	if (d->tree.nodes)
		tk_profile_release(&d->tree);
	free(d->base_self);
	free(d->base_total);
	free(d->spread_self);
	free(d->spread_total);
	memset(d, 0, sizeof(*d));
}

/*
 * Maps every node of in to a union node: map[i]. Parents are visited in
 * id order, so a parent is mapped before its children are matched. To
 * match the children of input node P against those of U = map[P], U's
 * children are scattered into slot[] indexed by union name id, and each
 * child of P looks its name up there: no hashing, and the work is the
 * number of children on both sides. New union nodes go into slot[] too,
 * so siblings that normalize to the same name share one node.
 */
static int map_input(struct tk_profile *u, const struct tk_profile *in, unsigned flags,
		     uint32_t alias_node, uint32_t alias_name, uint32_t *map, const char *what,
		     struct tk_err *err)
{
	uint32_t *names = tk_realloc_array(NULL, in->nr_names ? in->nr_names : 1,
					   sizeof(*names));
	uint32_t *slot = NULL;
	struct tk_buf norm = TK_BUF_INIT;
	uint32_t i;
	int ret = 0;

	names[0] = 0;
	for (i = 1; i < in->nr_names; i++) {
		if (!flags) {
			names[i] = tk_profile_intern(u, in->names[i], in->name_lens[i]);
			tk_profile_copy_category(u, names[i], in, i);
			continue;
		}
		tk_buf_reset(&norm);
		if (tk_normalize_name(in->names[i], in->name_lens[i], flags, &norm)) {
			ret = tk_err_set(err, TK_EDATA, "cannot normalize a frame name of the %s",
					 what);
			goto out;
		}
		names[i] = tk_profile_intern(u, norm.buf, norm.len);
		tk_profile_copy_category(u, names[i], in, i);
	}
	slot = tk_xcalloc(u->nr_names, sizeof(*slot));

	map[0] = TK_PROFILE_ROOT;
	for (i = 0; i < in->nr_nodes; i++) {
		uint32_t c, uc, at = map[i];

		if (!in->nodes[i].first_child)
			continue;
		for (uc = u->nodes[at].first_child; uc; uc = u->nodes[uc].next_sibling)
			slot[u->nodes[uc].name] = uc;
		for (c = in->nodes[i].first_child; c; c = in->nodes[c].next_sibling) {
			uint32_t name = c == alias_node ? alias_name : names[in->nodes[c].name];

			if (c <= i) {
				ret = tk_err_set(err, TK_EINTERNAL,
						 "%s: node %u comes before its parent", what, c);
				break;
			}
			if (!slot[name]) {
				slot[name] = tk_profile_new_child(u, at, name);
				if (!slot[name]) {
					ret = tk_err_set(err, TK_EDATA,
							 "the diff has more than %u nodes",
							 TK_PROFILE_MAX_NODES);
					break;
				}
			}
			map[c] = slot[name];
		}
		for (uc = u->nodes[at].first_child; uc; uc = u->nodes[uc].next_sibling)
			slot[u->nodes[uc].name] = 0;
		if (ret)
			break;
	}
out:
	tk_buf_release(&norm);
	free(names);
	free(slot);
	return ret;
}

/*
 * Asks the kernel to map the pages of a big fresh array in one call
 * (Linux 5.14+; a hint, errors ignored): the diff of two large profiles
 * writes a few hundred megabytes once, and taking a page fault per 4 KiB
 * was a fifth of its time.
 */
static void prefault(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
	uintptr_t e = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;

	if (bytes >= (1u << 20) && e > a)
		(void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)bytes;
#endif
}

/*
 * The union starts as a copy of new when names are not normalized: the
 * names interned in order get new's ids, so its nodes are copied as they
 * are (totals included). 0 when that does not hold (then nothing was
 * copied and the caller maps new like any input).
 */
static int clone_profile(struct tk_profile *u, const struct tk_profile *in)
{
	uint32_t i;

	if (u->nr_names != 1 || u->nr_nodes != 1 || u->alloc_nodes < in->nr_nodes)
		return 0;
	for (i = 1; i < in->nr_names; i++) {
		if (tk_profile_intern(u, in->names[i], in->name_lens[i]) != i)
			return 0;
		tk_profile_copy_category(u, i, in, i);
	}
	memcpy(u->nodes, in->nodes, in->nr_nodes * sizeof(*u->nodes));
	u->nr_nodes = in->nr_nodes;
	return 1;
}

#define ROOTS_COMPARED 4096

/* Whether a's root has a child named like node n of b (raw names). */
static int has_root_child(const struct tk_profile *a, const struct tk_profile *b, uint32_t n)
{
	const char *name = b->names[b->nodes[n].name];
	uint32_t len = b->name_lens[b->nodes[n].name], c;

	for (c = a->nodes[TK_PROFILE_ROOT].first_child; c; c = a->nodes[c].next_sibling)
		if (a->name_lens[a->nodes[c].name] == len &&
		    !memcmp(a->names[a->nodes[c].name], name, len))
			return 1;
	return 0;
}

/*
 * The top-level frame of a that b lacks, when it is the only one and b
 * has exactly one that a lacks too: the same program under two names
 * (a binary renamed between builds: climate-staging, climate-feature).
 * The built-in profiler's top-level frames are processes, so such a
 * pair plays one role in the job, and is matched as one frame. 0 when
 * there is no such pair (or too many top-level frames to look).
 */
static uint32_t lone_root(const struct tk_profile *a, const struct tk_profile *b)
{
	uint32_t c, found = 0, others = 0, n = 0;

	if (a->nr_nodes < 2 || b->nr_nodes < 2)
		return 0;
	for (c = a->nodes[TK_PROFILE_ROOT].first_child; c; c = a->nodes[c].next_sibling) {
		if (++n > ROOTS_COMPARED)
			return 0;
		if (!has_root_child(b, a, c)) {
			if (found)
				return 0;
			found = c;
		}
	}
	if (!found)
		return 0;
	n = 0;
	for (c = b->nodes[TK_PROFILE_ROOT].first_child; c; c = b->nodes[c].next_sibling) {
		if (++n > ROOTS_COMPARED)
			return 0;
		if (!has_root_child(a, b, c))
			others++;
	}
	return others == 1 ? found : 0;
}

/* The union's name id for node n of in (0: none), after normalization. */
static uint32_t union_name_of(struct tk_profile *u, const struct tk_profile *in, uint32_t n,
			      unsigned flags)
{
	struct tk_buf norm = TK_BUF_INIT;
	uint32_t id;

	if (!n)
		return 0;
	if (!flags) {
		id = tk_profile_intern(u, in->names[in->nodes[n].name],
				       in->name_lens[in->nodes[n].name]);
		tk_profile_copy_category(u, id, in, in->nodes[n].name);
		return id;
	}
	if (tk_normalize_name(in->names[in->nodes[n].name], in->name_lens[in->nodes[n].name],
			      flags, &norm)) {
		tk_buf_release(&norm);
		return 0;
	}
	id = tk_profile_intern(u, norm.buf, norm.len);
	tk_profile_copy_category(u, id, in, in->nodes[n].name);
	tk_buf_release(&norm);
	return id;
}

/* total[i] = self[i] plus the totals of i's children, for the union u. */
static void sum_totals(const struct tk_profile *u, const double *self, double *total)
{
	uint32_t i;

	memcpy(total, self, u->nr_nodes * sizeof(double));
	for (i = u->nr_nodes - 1; i > 0; i--)
		total[u->nodes[i].parent] += total[i];
}

/* The factor a baseline of total bt is scaled by, as num / den (nt: new's). */
static void scale_of(double bt, double nt, const struct tk_diff_opts *o, double *num,
		     double *den)
{
	*num = *den = 1;
	switch (o->norm) {
	case TK_DIFF_NORM_TOTAL:
		/* Nothing to scale when either side weighs nothing. */
		if (bt > 0 && nt > 0 && isfinite(bt) && isfinite(nt)) {
			*num = nt;
			*den = bt;
		}
		break;
	case TK_DIFF_NORM_WALLTIME:
		*num = o->new_walltime_s;
		*den = o->base_walltime_s;
		break;
	case TK_DIFF_NORM_NONE:
		break;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The median over frames with base self weight of spread^2 / base: the
 * variance per unit of weight that Poisson-like sampling noise gives
 * (core/analyze/diff.h). The median, not a pooled sum, so that a few large
 * frames with noise of their own (a CPU frequency change) do not widen
 * every small frame's band. With few frames it is a poor estimate (three
 * frames of five runs each: under half the true value one time in six),
 * so the inputs' known dispersion is its floor.
 */
static double pooled_dispersion(const struct tk_diff *d)
{
	uint32_t i, nr = d->tree.nr_nodes;
	double *r = tk_realloc_array(NULL, nr ? nr : 1, sizeof(*r)), m = 0;
	size_t n = 0;

	for (i = 1; i < nr; i++)
		if (d->base_self[i] > 0 && isfinite(d->spread_self[i]))
			r[n++] = d->spread_self[i] * d->spread_self[i] / d->base_self[i];
	if (n) {
		qsort(r, n, sizeof(*r), cmp_double);
		m = n % 2 ? r[n / 2] : (r[n / 2 - 1] + r[n / 2]) / 2;
	}
	free(r);
	return isfinite(m) && m > 0 ? m : 0;
}

double tk_diff_noise_band(const struct tk_diff *d, double base, double spread,
			  const struct tk_diff_opts *o)
{
	double var = spread * spread, pooled = d->dispersion * (base > 0 ? base : 0);
	double k = o && o->spread_k >= 0 ? o->spread_k : 3;

	if (d->nr_base < 2)
		return 0;
	if (pooled > var)
		var = pooled;
	return k * sqrt(var * (1 + 1 / (double)d->nr_base));
}

/* Welford's update with the k-th sample x: mean and m2 (squared deviations). */
static inline void welford(double *mean, double *m2, double x, double k)
{
	double d = x - *mean;

	*mean += d / k;
	*m2 += d * (x - *mean);
}

/*
 * The union starts as new itself when new is given up and names are not
 * normalized: the tree is moved, not copied, with the same node and name
 * ids clone_profile would give it. The union's own bookkeeping is not
 * new's: no importer warning, no known dispersion (as a copy has none).
 */
static void adopt_profile(struct tk_profile *u, struct tk_profile *in)
{
	enum tk_unit unit = in->unit;

	*u = *in;
	u->warning[0] = '\0';
	u->dispersion = 0;
	tk_profile_init(in, unit);
}

/* What a baseline contributes once matched: its weights into acc[map[i]]. */
static void add_weights(const struct tk_profile *b, const uint32_t *map, double num,
			double den, double *acc)
{
	uint32_t i;

	/* w * num / den rather than w * (num / den): an exact integer
	 * result stays exact. */
	if (num == den) {
		for (i = 0; i < b->nr_nodes; i++)
			acc[map[i]] += b->nodes[i].self;
	} else {
		for (i = 0; i < b->nr_nodes; i++)
			acc[map[i]] += b->nodes[i].self * num / den;
	}
}

/* The same into the total fields of the union u's nodes. */
static void add_weights_to_totals(const struct tk_profile *b, const uint32_t *map, double num,
				  double den, struct tk_profile *u)
{
	uint32_t i;

	if (num == den) {
		for (i = 0; i < b->nr_nodes; i++)
			u->nodes[map[i]].total += b->nodes[i].self;
	} else {
		for (i = 0; i < b->nr_nodes; i++)
			u->nodes[map[i]].total += b->nodes[i].self * num / den;
	}
}

/*
 * tk_diff_build and tk_diff_build_owned. give_bases and give_new are
 * NULL when the inputs are borrowed; otherwise they are the same
 * profiles as bases and new, released as soon as they are matched.
 *
 * With one baseline (the common case, and the large one: two files),
 * its weights are added up in the union's own total fields, free until
 * the union's totals are computed at the end, and moved to base_self
 * once the baseline is gone: the peak holds the union, the baseline's
 * tree and the map, and no per-node array. Recomputing the totals gives
 * the same bits as the copied ones: the nodes the baselines added weigh
 * 0, and x + 0 is x.
 */
static int build(const struct tk_profile *const *bases, struct tk_profile *const *give_bases,
		 size_t nr_bases, const struct tk_profile *new, struct tk_profile *give_new,
		 const struct tk_diff_opts *o, struct tk_diff *out, struct tk_err *err)
{
	struct tk_diff_opts defaults;
	uint32_t *map = NULL, *alias = NULL, *alias_name = NULL, max_nodes, i;
	double *cur_self = NULL, *cur_total = NULL, scale_sum = 0, raw_sum = 0;
	double known = new->dispersion, nt;
	enum tk_unit unit = new->unit;
	size_t k, used = 0, have = 0, step = 0, cap;
	int ret = 0, single, cloned;

	if (!o) {
		tk_diff_opts_init(&defaults);
		o = &defaults;
	}
	memset(out, 0, sizeof(*out));
	if (!nr_bases)
		return tk_err_set(err, TK_EUSAGE, "a diff needs at least one baseline");
	if (!new->finished)
		return tk_err_set(err, TK_EINTERNAL, "diff of an unfinished profile");
	max_nodes = new->nr_nodes;
	for (k = 0; k < nr_bases; k++) {
		if (!bases[k]->finished)
			return tk_err_set(err, TK_EINTERNAL, "diff of an unfinished baseline");
		if (bases[k]->nr_nodes > max_nodes)
			max_nodes = bases[k]->nr_nodes;
		/* An empty baseline says nothing about the others' mean. */
		if (tk_profile_total(bases[k]) != 0)
			used++;
	}
	for (k = 0; k < nr_bases && o->norm == TK_DIFF_NORM_NONE; k++)
		if (bases[k]->unit != new->unit && tk_profile_total(bases[k]) != 0)
			return tk_err_set(err, TK_EDATA, "cannot subtract a profile in %s from "
					  "one in %s; --normalize total compares their shapes",
					  tk_unit_name(bases[k]->unit), tk_unit_name(new->unit));
	if (o->norm == TK_DIFF_NORM_WALLTIME &&
	    !(o->base_walltime_s > 0 && o->new_walltime_s > 0 &&
	      isfinite(o->base_walltime_s) && isfinite(o->new_walltime_s)))
		return tk_err_set(err, TK_EUSAGE,
				  "walltime normalization needs both walltimes, above 0");
	/* One baseline with weight (or none at all): its values are the mean. */
	single = used <= 1;
	nt = tk_profile_total(new);

	/* Room for the largest union there can be, zeroed lazily by the
	 * system: no growing, no copying, no clearing. */
	cap = new->nr_nodes;
	for (k = 0; k < nr_bases; k++)
		cap += bases[k]->nr_nodes;
	if (cap > TK_PROFILE_MAX_NODES)
		cap = TK_PROFILE_MAX_NODES;
	cloned = !o->normalize_flags;
	if (cloned && give_new) {
		adopt_profile(&out->tree, give_new);
		new = &out->tree;
	} else {
		tk_profile_init(&out->tree, unit);
	}
	tk_profile_reserve(&out->tree, cap);
	if (!single) {
		out->base_self = tk_xcalloc(cap, sizeof(double));
		out->base_total = tk_xcalloc(cap, sizeof(double));
		out->spread_self = tk_xcalloc(cap, sizeof(double));
		out->spread_total = tk_xcalloc(cap, sizeof(double));
		cur_self = tk_xcalloc(cap, sizeof(double));
		cur_total = tk_xcalloc(cap, sizeof(double));
	}
	map = tk_realloc_array(NULL, max_nodes, sizeof(*map));
	/* Most of this will be written: fault it in at once. */
	if (new != &out->tree)
		prefault(out->tree.nodes, (size_t)max_nodes * sizeof(*out->tree.nodes));
	prefault(map, (size_t)max_nodes * sizeof(*map));

	/* new first, into the empty union (or as it); its self weights are
	 * the union's */
	if (new != &out->tree)
		cloned = cloned && clone_profile(&out->tree, new);
	if (!cloned) {
		ret = map_input(&out->tree, new, o->normalize_flags, 0, 0, map, "new profile", err);
		if (ret)
			goto fail;
		for (i = 0; i < new->nr_nodes; i++)
			out->tree.nodes[map[i]].self += new->nodes[i].self;
	}

	/* The renamed program of each baseline (match_roots), found against
	 * new as it came: new's names are all in the union by now, so naming
	 * it interns nothing. */
	alias = tk_xcalloc(nr_bases, sizeof(*alias));
	alias_name = tk_xcalloc(nr_bases, sizeof(*alias_name));
	for (k = 0; o->match_roots && k < nr_bases; k++) {
		alias[k] = lone_root(bases[k], new);
		alias_name[k] = alias[k] ? union_name_of(&out->tree, new,
							 lone_root(new, bases[k]),
							 o->normalize_flags) : 0;
	}
	if (give_new && new != &out->tree) {
		tk_profile_release(give_new);
		tk_profile_init(give_new, unit);
	}
	new = NULL;
	/* the union's totals are scratch until the end (see above) */
	for (i = 0; single && i < out->tree.nr_nodes; i++)
		out->tree.nodes[i].total = 0;

	for (k = 0; k < nr_bases; k++) {
		const struct tk_profile *b = bases[k];
		double num, den, b_total = tk_profile_total(b);

		ret = map_input(&out->tree, b, o->normalize_flags, alias_name[k] ? alias[k] : 0,
				alias_name[k], map, "baseline", err);
		if (ret)
			goto fail;
		if (used && b_total == 0)
			goto next; /* structure only */
		scale_of(b_total, nt, o, &num, &den);
		scale_sum += num / den;
		/* Weights scaled by c have c times the variance per unit. */
		if (b->dispersion * num / den > known)
			known = b->dispersion * num / den;
		raw_sum += b_total;
		if (single) {
			add_weights_to_totals(b, map, num, den, &out->tree);
			goto next;
		}
		add_weights(b, map, num, den, cur_self);
		step++;
		have = out->tree.nr_nodes;
		sum_totals(&out->tree, cur_self, cur_total);
		for (i = 0; i < have; i++) {
			welford(&out->base_self[i], &out->spread_self[i], cur_self[i],
				(double)step);
			welford(&out->base_total[i], &out->spread_total[i], cur_total[i],
				(double)step);
		}
		memset(cur_self, 0, have * sizeof(double));
next:
		if (give_bases) {
			enum tk_unit bu = give_bases[k]->unit;

			tk_profile_release(give_bases[k]);
			tk_profile_init(give_bases[k], bu);
		}
	}
	free(map);
	map = NULL;

	have = out->tree.nr_nodes;
	if (single) {
		out->base_self = tk_realloc_array(NULL, have, sizeof(double));
		out->base_total = tk_realloc_array(NULL, have, sizeof(double));
		out->spread_self = tk_xcalloc(have, sizeof(double));
		out->spread_total = tk_xcalloc(have, sizeof(double));
		prefault(out->base_self, have * sizeof(double));
		prefault(out->base_total, have * sizeof(double));
		for (i = 0; i < have; i++)
			out->base_self[i] = out->tree.nodes[i].total;
		sum_totals(&out->tree, out->base_self, out->base_total);
		cloned = 0; /* the totals are to be made again */
	} else {
		for (i = 0; i < have; i++) {
			out->spread_self[i] = sqrt(out->spread_self[i] / (double)(step - 1));
			out->spread_total[i] = sqrt(out->spread_total[i] / (double)(step - 1));
		}
	}
	if (cloned) {
		/* The nodes the baselines added weigh nothing in new: the
		 * totals copied from new still hold. */
		out->tree.finished = 1;
	} else {
		out->tree.finished = 0;
		tk_profile_finish(&out->tree);
	}
	out->nr_base = used ? used : nr_bases;
	out->base_scale = used ? scale_sum / (double)used : 1;
	out->base_sum = out->base_total[TK_PROFILE_ROOT];
	out->new_sum = out->tree.nodes[TK_PROFILE_ROOT].total;
	out->base_raw_sum = used ? raw_sum / (double)used : 0;
	if (!single) {
		out->dispersion = pooled_dispersion(out);
		if (isfinite(known) && known > out->dispersion)
			out->dispersion = known;
	}
	free(alias);
	free(alias_name);
	free(cur_self);
	free(cur_total);
	return 0;
fail:
	free(map);
	free(alias);
	free(alias_name);
	free(cur_self);
	free(cur_total);
	tk_diff_release(out);
	return ret;
}

int tk_diff_build(const struct tk_profile *const *bases, size_t nr_bases,
		  const struct tk_profile *new, const struct tk_diff_opts *o,
		  struct tk_diff *out, struct tk_err *err)
{
	return build(bases, NULL, nr_bases, new, NULL, o, out, err);
}

int tk_diff_build_owned(struct tk_profile *bases, size_t nr_bases, struct tk_profile *new,
			const struct tk_diff_opts *o, struct tk_diff *out, struct tk_err *err)
{
	const struct tk_profile **in = tk_xcalloc(nr_bases ? nr_bases : 1, sizeof(*in));
	struct tk_profile **give = tk_xcalloc(nr_bases ? nr_bases : 1, sizeof(*give));
	enum tk_unit unit = new->unit;
	size_t k;
	int ret;

	for (k = 0; k < nr_bases; k++) {
		in[k] = &bases[k];
		give[k] = &bases[k];
	}
	ret = build(in, give, nr_bases, new, new, o, out, err);
	/* given up whatever happened (most are empty by now) */
	for (k = 0; k < nr_bases; k++) {
		enum tk_unit bu = bases[k].unit;

		tk_profile_release(&bases[k]);
		tk_profile_init(&bases[k], bu);
	}
	tk_profile_release(new);
	tk_profile_init(new, unit);
	free(in);
	free(give);
	return ret;
}

enum tk_diff_class tk_diff_classify(const struct tk_diff *d, uint32_t n,
				    enum tk_diff_mode mode, const struct tk_diff_opts *o,
				    double *intensity)
{
	struct tk_diff_opts defaults;
	double base, now, spread, delta, mag, sat, x;

	if (!o) {
		tk_diff_opts_init(&defaults);
		o = &defaults;
	}
	if (intensity)
		*intensity = 0;
	if (!(d->base_total[n] > 0) && tk_diff_new_total(d, n) > 0) {
		/* as big as the noise a frame of that weight has: caught by chance */
		if (tk_diff_new_total(d, n) <= tk_diff_noise_band(d, tk_diff_new_total(d, n), 0, o))
			return TK_DIFF_NOISE;
		if (intensity)
			*intensity = 1;
		return TK_DIFF_NEW;
	}
	if (!(tk_diff_new_total(d, n) > 0) && d->base_total[n] > 0) {
		if (d->base_total[n] <= tk_diff_noise_band(d, d->base_total[n],
							   d->spread_total[n], o))
			return TK_DIFF_NOISE;
		if (intensity)
			*intensity = 1;
		return TK_DIFF_VANISHED;
	}
	if (mode == TK_DIFF_CUMULATIVE) {
		base = d->base_total[n];
		now = tk_diff_new_total(d, n);
		spread = d->spread_total[n];
	} else {
		base = d->base_self[n];
		now = tk_diff_new_self(d, n);
		spread = d->spread_self[n];
	}
	delta = now - base;
	mag = fabs(delta);
	/* Written so that NaN lands on the safe side (noise). */
	/* Sampling noise grows with the weight on either side: a frame at 0
	 * in the baseline and at one sample in new moved by one sample. */
	if (!(mag >= o->min_delta) ||
	    !(mag > tk_diff_noise_band(d, now > base ? now : base, spread, o)) || mag == 0)
		return TK_DIFF_NOISE;
	sat = o->saturation > 0 ? o->saturation : 1;
	/* Change relative to the frame's own baseline; from nothing is full. */
	x = base > 0 ? mag / (base * sat) : 1;
	if (intensity)
		*intensity = x < 1 ? x : 1;
	return delta > 0 ? TK_DIFF_UP : TK_DIFF_DOWN;
}
