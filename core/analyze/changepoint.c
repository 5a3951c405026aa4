/*
 * Change points by seeded binary segmentation on a Laplace cost (contract in
 * core/analyze/changepoint.h).
 *
 * The cost of a segment is sum min(|y - median|, CAP) (in units of the
 * noise). The costs of every prefix of a segment come from one pass that
 * inserts the values into Fenwick trees of counts and sums indexed by the
 * values' ranks: the median is a k-th element search, and the sums of
 * |y - m| below and above m, and the counts beyond m -/+ CAP, are prefix
 * sums at three ranks. So the best split of a segment costs O(L log n),
 * where the exact median of every candidate pair would cost O(L^2 log L).
 */
#include "core/analyze/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

struct tk_changepoint_opts tk_changepoint_opts_default(void)
{
	struct tk_changepoint_opts o;

	memset(&o, 0, sizeof(o));
	o.min_segment = 4;
	o.penalty = 3.0;
	o.min_effect = 0.02;
	return o;
}

/*
 * Ranks of the values (sorted once) index two Fenwick trees, of counts and
 * of sums, holding the values of the part of a segment read so far.
 */
struct fenwick {
	size_t n;
	struct fw_node {
		double cnt, sum; /* side by side: a query reads both */
	} *node;
};

static void fw_add(struct fenwick *f, size_t r, double v)
{
	for (r++; r <= f->n; r += r & -r) {
		f->node[r - 1].cnt += 1;
		f->node[r - 1].sum += v;
	}
}

/* zeroes the nodes that fw_add(r) touched: a pass over part of a long
 * series leaves the trees empty again at the cost of its own length */
static void fw_clear(struct fenwick *f, size_t r)
{
	for (r++; r <= f->n; r += r & -r) {
		f->node[r - 1].cnt = 0;
		f->node[r - 1].sum = 0;
	}
}

/* count and sum of the values of rank < r */
static void fw_prefix(const struct fenwick *f, size_t r, double *cnt, double *sum)
{
	*cnt = 0;
	*sum = 0;
	for (; r > 0; r -= r & -r) {
		*cnt += f->node[r - 1].cnt;
		*sum += f->node[r - 1].sum;
	}
}

/* the rank of the k-th smallest value held (k from 1) */
static size_t fw_kth(const struct fenwick *f, double k)
{
	size_t pos = 0, step = 1;

	while (step * 2 <= f->n)
		step *= 2;
	for (; step; step /= 2)
		if (pos + step <= f->n && f->node[pos + step - 1].cnt < k) {
			pos += step;
			k -= f->node[pos - 1].cnt;
		}
	return pos;
}

/* the number of sorted values < v, or <= v when inclusive */
static size_t bound(const double *sv, size_t n, double v, int inclusive)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (sv[mid] < v || (inclusive && sv[mid] == v))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct work {
	const double *y;    /* in units of sigma */
	const double *sv;   /* y sorted */
	const size_t *rank; /* of y[i] in sv */
	/* for a median sv[r]: the ranks that bound the values below
	 * sv[r] - CAP, up to sv[r], and up to sv[r] + CAP, found once */
	size_t *below_lo, *upto_m, *upto_hi;
	size_t n, min_seg;
	double *pre, *suf;
	struct fenwick fw;
};

/*
 * The cost of a run at distance r from its segment's median is |r|,
 * capped at CAP sigmas: a slow run, or a machine that is sometimes 1.3x
 * slower, costs the same in every segment, so it cannot pay for a split.
 */
#define CAP 2.5
/* var(min(|z|, CAP)) for standard normal z; a spread this much above it
 * raises the penalty */
#define NULL_SPREAD 0.347
#define SPREAD_SLACK 1.5

/*
 * cost[k] = cost of the first k values of [a, b) read in direction step
 * (+1 from a, -1 from b - 1), for k = 0..b-a.
 */
static void prefix_costs(struct work *w, size_t a, size_t b, int step, double *cost)
{
	const struct fenwick *f = &w->fw;
	size_t k, len = b - a, i;
	double cl, sl, cm, sm, ch, sh, tot_c = 0, m;
	size_t r;

	cost[0] = 0;
	for (k = 0; k < len; k++) {
		i = step > 0 ? a + k : b - 1 - k;
		fw_add(&w->fw, w->rank[i], w->y[i]);
		tot_c += 1;
		r = fw_kth(f, (double)((k + 2) / 2));
		m = w->sv[r];
		/* held values below m - CAP, up to m, up to m + CAP */
		fw_prefix(f, w->below_lo[r], &cl, &sl);
		fw_prefix(f, w->upto_m[r], &cm, &sm);
		fw_prefix(f, w->upto_hi[r], &ch, &sh);
		cost[k + 1] = CAP * (cl + tot_c - ch) + (m * (cm - cl) - (sm - sl)) +
			      ((sh - sm) - m * (ch - cm));
	}
	for (k = 0; k < len; k++)
		fw_clear(&w->fw, w->rank[a + k]);
}

/* The best split of [a, b): its index (0 when none fits) and its gain. */
/*
 * The best split of a segment of len values, given pre[k] (the cost of
 * its first k values) and suf[k] (of its last k), for k = 0..len: its
 * offset in the segment (0 when none fits) and its gain.
 */
static size_t split_of(const double *pre, const double *suf, size_t len, size_t min_seg,
		       double *gain)
{
	size_t k, best = 0;
	double c, best_c = HUGE_VAL;

	*gain = 0;
	for (k = min_seg; k + min_seg <= len; k++) {
		c = pre[k] + suf[len - k];
		if (c < best_c) {
			best_c = c;
			best = k;
		}
	}
	if (best)
		*gain = pre[len] - best_c;
	return best;
}

/* The best split of [a, b): its index (0 when none fits) and its gain. */
static size_t best_split(struct work *w, size_t a, size_t b, double *gain)
{
	size_t k;

	*gain = 0;
	if (b - a < 2 * w->min_seg)
		return 0;
	prefix_costs(w, a, b, 1, w->pre);
	prefix_costs(w, a, b, -1, w->suf);
	k = split_of(w->pre, w->suf, b - a, w->min_seg, gain);
	return k ? a + k : 0;
}

static int by_value(const void *a, const void *b, void *data)
{
	const double *y = data;
	double x = y[*(const size_t *)a], z = y[*(const size_t *)b];

	return x < z ? -1 : x > z ? 1 : 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* tk_changepoint_newest_level: the fewest points before a new level that
 * tell the old one (its median and MAD) */
#define NEWEST_LEVEL_BEFORE 5
/* ... and the most points it looks for: longer levels pay for a split */
#define NEWEST_LEVEL_MAX 16

static double median_of(const double *x, size_t n, double *tmp)
{
	memcpy(tmp, x, n * sizeof(*x));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* Robust noise level from successive differences (see the header). */
static double noise_sigma(const double *y, size_t n, double *tmp)
{
	size_t i, m = 0;
	double s, smallest = HUGE_VAL;

	for (i = 1; i < n; i++) {
		tmp[m] = fabs(y[i] - y[i - 1]);
		if (tmp[m] > 0 && tmp[m] < smallest)
			smallest = tmp[m];
		m++;
	}
	if (!m)
		return 0;
	qsort(tmp, m, sizeof(*tmp), cmp_double);
	s = (m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2) * 1.4826 / sqrt(2.0);
	if (s <= 0 && smallest < HUGE_VAL)
		s = smallest;
	return s;
}

/* A split found in one seeded interval [a, b): at k, lowering its cost
 * by gain. */
struct cand {
	size_t a, b, k;
	double gain;
};

static int by_gain(const void *x, const void *y)
{
	const struct cand *p = x, *q = y;

	if (p->gain != q->gain)
		return p->gain > q->gain ? -1 : 1;
	/* ties: the narrower interval, then the older split (a fixed order) */
	if (p->b - p->a != q->b - q->a)
		return p->b - p->a < q->b - q->a ? -1 : 1;
	return p->k < q->k ? -1 : p->k > q->k;
}

/* The cost of [a, b) as one segment (about its lower median, as
 * prefix_costs takes it), using w->pre as room. */
static double whole_cost(struct work *w, size_t a, size_t b)
{
	double m, c = 0, d;
	size_t i;

	memcpy(w->pre, w->y + a, (b - a) * sizeof(double));
	qsort(w->pre, b - a, sizeof(double), cmp_double);
	m = w->pre[(b - a - 1) / 2];

	for (i = a; i < b; i++) {
		d = fabs(w->y[i] - m);
		c += d < CAP ? d : CAP;
	}
	return c;
}

/*
 * The seeded intervals of [0, n) (Kovacs, Li, Buhlmann, Haubner and Munk,
 * "Seeded binary segmentation", Biometrika 2023): layer j has 2^j - 1
 * intervals of length n / 2^(j-1), each starting half a length after the
 * one before, down to intervals of 2 x min_seg points. A level that
 * lasts L builds has a whole interval of about 2L around each of its
 * edges in which the other edge is not, so the split that tells it from
 * the levels either side is seen even when a split of the whole series
 * is not: a regression reverted 25 builds later moves the median of
 * neither half of an 80-build series. The best split of each interval
 * that pays for the penalty is a candidate; there are fewer than 4n
 * intervals, of total length under 2n per layer.
 */
static size_t seeded_candidates(struct work *w, double pen, struct cand **out)
{
	struct cand *c = NULL, *iv = NULL;
	size_t nc = 0, alloc = 0, niv = 0, alloc_iv = 0, parts, i, a, b, k, n = w->n;
	size_t *need_f, *need_b, *at_f, *at_b, pool_len = 0;
	double *pool, gain;

	/* the intervals worth a pass: layer `parts` starts interval i at
	 * i n / 2 parts and ends it at (i + 2) n / 2 parts, rounded out, so
	 * every start and end of a layer is one of the next layer's too */
	for (parts = 1; parts <= n && n >= 2 * w->min_seg * parts; parts *= 2)
		for (i = 0; i < 2 * parts - 1; i++) {
			a = i * n / (2 * parts);
			b = ((i + 2) * n + 2 * parts - 1) / (2 * parts);
			if (b > n)
				b = n;
			/* no split gains more than the whole costs: worth a
			 * look on intervals short enough to cost under the
			 * penalty */
			if (b - a < 2 * w->min_seg ||
			    ((double)(b - a) < 2 * pen && whole_cost(w, a, b) <= pen))
				continue;
			TK_ALLOC_GROW(iv, niv + 1, alloc_iv);
			iv[niv].a = a;
			iv[niv].b = b;
			niv++;
		}

	/* The costs of the prefixes of [a, b) read forward from a are the
	 * first b - a of the longest pass from a, and those read backward
	 * from b the first of the longest pass from b: one pass per start
	 * and one per end, not two per interval, halve the work. */
	need_f = tk_xcalloc(4 * (n + 1), sizeof(size_t));
	need_b = need_f + (n + 1);
	at_f = need_b + (n + 1);
	at_b = at_f + (n + 1);
	for (i = 0; i < niv; i++) {
		if (iv[i].b - iv[i].a > need_f[iv[i].a])
			need_f[iv[i].a] = iv[i].b - iv[i].a;
		if (iv[i].b - iv[i].a > need_b[iv[i].b])
			need_b[iv[i].b] = iv[i].b - iv[i].a;
	}
	for (i = 0; i <= n; i++) {
		at_f[i] = pool_len;
		pool_len += need_f[i] ? need_f[i] + 1 : 0;
		at_b[i] = pool_len;
		pool_len += need_b[i] ? need_b[i] + 1 : 0;
	}
	pool = tk_xmalloc((pool_len + 1) * sizeof(double));
	for (i = 0; i <= n; i++) {
		if (need_f[i])
			prefix_costs(w, i, i + need_f[i], 1, pool + at_f[i]);
		if (need_b[i])
			prefix_costs(w, i - need_b[i], i, -1, pool + at_b[i]);
	}

	for (i = 0; i < niv; i++) {
		k = split_of(pool + at_f[iv[i].a], pool + at_b[iv[i].b], iv[i].b - iv[i].a,
			     w->min_seg, &gain);
		if (!k || gain <= pen)
			continue;
		TK_ALLOC_GROW(c, nc + 1, alloc);
		c[nc].a = iv[i].a;
		c[nc].b = iv[i].b;
		c[nc].k = iv[i].a + k;
		c[nc].gain = gain;
		nc++;
	}
	free(pool);
	free(need_f);
	free(iv);
	*out = c;
	return nc;
}

/* How many splits taken lie before index r (Fenwick prefix count). */
static size_t taken_before(const size_t *taken, size_t r)
{
	size_t count = 0;

	for (; r > 0; r -= r & -r)
		count += taken[r - 1];
	return count;
}

/* The gain of the best split between the neighbours of cps[i]. */
static double neighbour_gain(struct work *w, const size_t *cps, size_t ncp, size_t i)
{
	size_t lo = i ? cps[i - 1] : 0, hi = i + 1 < ncp ? cps[i + 1] : w->n;
	double gain;

	return best_split(w, lo, hi, &gain) ? gain : -HUGE_VAL;
}

/*
 * Segmentation of [0, n) with penalty pen: the splits, sorted, into *cps
 * (grown as needed). Returns how many.
 *
 * The candidates of the seeded intervals are taken greedily, largest
 * gain first, each dropping the intervals with it inside (so no two
 * splits are closer than min_seg). Many intervals see more chances in
 * noise than a few halvings do, so every split must then pay for the
 * penalty again between its neighbours, as binary segmentation's splits
 * do in the segment they cut: the weakest that does not is dropped and
 * its neighbours looked at again, and each survivor is moved to its best
 * place between its neighbours. More than max_changes (when not 0) drops
 * the weakest too.
 */
static size_t segment(struct work *w, double pen, size_t max_changes, size_t **cps,
		      size_t *alloc_cp)
{
	struct cand *c = NULL;
	size_t nc, ncp = 0, i, j, lo, hi, weakest, *taken;
	double *gain = NULL;

	nc = seeded_candidates(w, pen, &c);
	if (!nc)
		return 0;
	qsort(c, nc, sizeof(*c), by_gain);
	/* taken: a Fenwick tree of the splits taken so far, by index, to
	 * tell in log n whether one lies inside a candidate's interval */
	taken = tk_xcalloc(w->n + 1, sizeof(*taken));
	for (i = 0; i < nc; i++) {
		if (taken_before(taken, c[i].b) > taken_before(taken, c[i].a + 1))
			continue;
		TK_ALLOC_GROW(*cps, ncp + 1, *alloc_cp);
		(*cps)[ncp++] = c[i].k;
		for (j = c[i].k + 1; j <= w->n; j += j & -j)
			taken[j - 1]++;
	}
	free(taken);
	free(c);
	qsort(*cps, ncp, sizeof(**cps), cmp_size);

	/* each split pays between its neighbours, or the weakest goes; a
	 * removal changes only its neighbours' gains */
	gain = tk_xcalloc(ncp, sizeof(*gain));
	for (i = 0; i < ncp; i++)
		gain[i] = neighbour_gain(w, *cps, ncp, i);
	while (ncp) {
		weakest = 0;
		for (i = 1; i < ncp; i++)
			if (gain[i] < gain[weakest])
				weakest = i;
		if (gain[weakest] > pen && (!max_changes || ncp <= max_changes))
			break;
		memmove(*cps + weakest, *cps + weakest + 1, (ncp - weakest - 1) * sizeof(**cps));
		memmove(gain + weakest, gain + weakest + 1, (ncp - weakest - 1) * sizeof(*gain));
		ncp--;
		if (weakest)
			gain[weakest - 1] = neighbour_gain(w, *cps, ncp, weakest - 1);
		if (weakest < ncp)
			gain[weakest] = neighbour_gain(w, *cps, ncp, weakest);
	}
	/* each to its best place between its neighbours */
	for (i = 0; i < ncp; i++) {
		lo = i ? (*cps)[i - 1] : 0;
		hi = i + 1 < ncp ? (*cps)[i + 1] : w->n;
		j = best_split(w, lo, hi, &gain[0]);
		if (j)
			(*cps)[i] = j;
	}
	free(gain);
	return ncp;
}

/*
 * The variance of the run costs (min(|y - segment median|, CAP)) over the
 * segments cps[0..ncp) cut. Normal noise gives NULL_SPREAD.
 */
static double cost_spread(const struct work *w, const size_t *cps, size_t ncp, double *tmp)
{
	size_t s, i, lo, hi;
	double sum = 0, sum2 = 0, m, c;

	for (s = 0; s <= ncp; s++) {
		lo = s ? cps[s - 1] : 0;
		hi = s < ncp ? cps[s] : w->n;
		m = median_of(w->y + lo, hi - lo, tmp);
		for (i = lo; i < hi; i++) {
			c = fabs(w->y[i] - m);
			if (c > CAP)
				c = CAP;
			sum += c;
			sum2 += c * c;
		}
	}
	m = sum / (double)w->n;
	return sum2 / (double)w->n - m * m;
}

int tk_changepoints(const double *x, size_t n, const struct tk_changepoint_opts *o,
		    struct tk_changepoint **out, size_t *nout, struct tk_err *err)
{
	struct tk_changepoint_opts d = tk_changepoint_opts_default();
	struct work w;
	double *y = NULL, *tmp = NULL, *sv = NULL, sigma, pen, spread;
	size_t *order = NULL, *rank = NULL;
	size_t *cps = NULL, ncp = 0, alloc_cp = 0;
	size_t i, lo, hi;
	int use_log = 1, ret = 0;

	*out = NULL;
	*nout = 0;
	if (o) {
		if (o->min_segment)
			d.min_segment = o->min_segment;
		if (o->penalty > 0)
			d.penalty = o->penalty;
		if (o->min_effect)
			d.min_effect = o->min_effect;
		d.max_changes = o->max_changes;
	}
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return tk_err_set(err, TK_EDATA, "value %zu of the series is not a "
					  "finite number", i + 1);
		if (x[i] <= 0)
			use_log = 0;
	}
	if (n < 2 * d.min_segment || n < 2)
		return 0;

	y = tk_xmalloc(n * sizeof(*y));
	tmp = tk_xmalloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++)
		y[i] = use_log ? log(x[i]) : x[i];
	sigma = noise_sigma(y, n, tmp);
	if (!(sigma > 0))
		goto done;
	for (i = 0; i < n; i++)
		y[i] /= sigma;
	pen = d.penalty * log((double)n);

	w.y = y;
	w.n = n;
	w.min_seg = d.min_segment;
	w.pre = tk_xmalloc((n + 1) * sizeof(double));
	w.suf = tk_xmalloc((n + 1) * sizeof(double));
	w.fw.n = n;
	w.fw.node = tk_xcalloc(n, sizeof(*w.fw.node));
	order = tk_xmalloc(n * sizeof(*order));
	rank = tk_xmalloc(n * sizeof(*rank));
	sv = tk_xmalloc(n * sizeof(*sv));
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_value, y);
	for (i = 0; i < n; i++) {
		rank[order[i]] = i;
		sv[i] = y[order[i]];
	}
	w.sv = sv;
	w.rank = rank;
	w.below_lo = tk_xmalloc(3 * n * sizeof(size_t));
	w.upto_m = w.below_lo + n;
	w.upto_hi = w.upto_m + n;
	for (i = 0; i < n; i++) {
		w.below_lo[i] = bound(sv, n, sv[i] - CAP, 0);
		w.upto_m[i] = bound(sv, n, sv[i], 1);
		w.upto_hi[i] = bound(sv, n, sv[i] + CAP, 1);
	}

	ncp = segment(&w, pen, d.max_changes, &cps, &alloc_cp);
	/* A key whose runs scatter more than a bell curve around their
	 * segments' medians (a machine sometimes 1.3x slower) swings the gain
	 * of every split by more: its penalty grows with the spread of the
	 * run costs, and the series is split again. */
	spread = cost_spread(&w, cps, ncp, tmp);
	if (spread > NULL_SPREAD * SPREAD_SLACK)
		ncp = segment(&w, pen * sqrt(spread / NULL_SPREAD), d.max_changes, &cps, &alloc_cp);

	/* medians either side, in the series' own units; drop tiny shifts */
	if (ncp)
		*out = tk_xcalloc(ncp, sizeof(**out));
	for (i = 0; i < ncp; i++) {
		double before, after;

		lo = i ? cps[i - 1] : 0;
		hi = i + 1 < ncp ? cps[i + 1] : n;
		before = median_of(x + lo, cps[i] - lo, tmp);
		after = median_of(x + cps[i], hi - cps[i], tmp);
		if (d.min_effect > 0 && before != 0 &&
		    fabs(after / before - 1) < d.min_effect)
			continue;
		(*out)[*nout].index = cps[i];
		(*out)[*nout].before = before;
		(*out)[*nout].after = after;
		(*nout)++;
	}
	if (!*nout) {
		free(*out);
		*out = NULL;
	}
	free(w.pre);
	free(w.suf);
	free(w.fw.node);
	free(order);
	free(rank);
	free(sv);
	free(w.below_lo);
done:
	free(y);
	free(tmp);
	free(cps);
	return ret;
}

size_t tk_changepoint_newest_level(const double *x, size_t n, size_t min_points,
				   double sigmas, double min_effect)
{
	double *y, *dev, *tmp;
	size_t k, i, found = 0;
	int use_log = 1, side = 0;

	if (!min_points)
		min_points = 1;
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			return 0;
		if (x[i] <= 0)
			use_log = 0;
	}
	if (n < min_points + NEWEST_LEVEL_BEFORE)
		return 0;
	y = tk_xmalloc(n * sizeof(*y));
	dev = tk_xmalloc(n * sizeof(*dev));
	tmp = tk_xmalloc(n * sizeof(*tmp));
	for (i = 0; i < n; i++)
		y[i] = use_log ? log(x[i]) : x[i];
	for (k = min_points; k <= NEWEST_LEVEL_MAX && k + NEWEST_LEVEL_BEFORE <= n; k++) {
		size_t before = n - k;
		double med = median_of(y, before, tmp), limit, floor, lo = y[0], hi = y[0];
		int ok = 1;

		for (i = 0; i < before; i++) {
			dev[i] = fabs(y[i] - med);
			lo = y[i] < lo ? y[i] : lo;
			hi = y[i] > hi ? y[i] : hi;
		}
		limit = sigmas * 1.4826 * median_of(dev, before, tmp);
		floor = use_log ? log1p(min_effect) : min_effect * fabs(med);
		if (limit < floor)
			limit = floor;
		/* every one of the newest k beyond it, all on one side */
		for (i = before; i < n && ok; i++) {
			int s = y[i] > med + limit && y[i] > hi ? 1
				: y[i] < med - limit && y[i] < lo ? -1 : 0;

			ok = s && (!side || s == side);
			side = s;
		}
		/* not a break: a level of k + 1 points fails at k, the
		 * k + 1-th being among the points before */
		if (ok)
			found = k;
		side = 0;
	}
	free(y);
	free(dev);
	free(tmp);
	return found;
}
