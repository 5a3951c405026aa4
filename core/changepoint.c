/*
 * Change points by binary segmentation on a Laplace cost (contract in
 * core/changepoint.h).
 *
 * The cost of a segment is sum |y - median|. The costs of every prefix of a
 * segment come from one pass with two heaps (the lower half as a max-heap,
 * the upper half as a min-heap, with their sums): after each insertion,
 * sum |y - m| = (sum_upper - m n_upper) + (m n_lower - sum_lower) for m the
 * top of the lower half. So the best split of a segment costs O(L log L),
 * where the exact median of every candidate pair would cost O(L^2 log L).
 */
#include "core/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/banned.h"

struct tk_changepoint_opts tk_changepoint_opts_default(void)
{
	struct tk_changepoint_opts o;

	memset(&o, 0, sizeof(o));
	o.min_segment = 4;
	o.penalty = 3.5;
	o.min_effect = 0.02;
	return o;
}

struct heap {
	double *v;
	size_t n;
	int max; /* 1: max-heap */
	double sum;
};

static int above(const struct heap *h, double a, double b)
{
	return h->max ? a > b : a < b;
}

static void heap_push(struct heap *h, double x)
{
	size_t i = h->n++;

	h->sum += x;
	while (i > 0 && above(h, x, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static double heap_pop(struct heap *h)
{
	double top = h->v[0], x = h->v[--h->n];
	size_t i = 0, c;

	h->sum -= top;
	for (;;) {
		c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && above(h, h->v[c + 1], h->v[c]))
			c++;
		if (!above(h, h->v[c], x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
	return top;
}

/*
 * cost[k] = cost of y[0..k-1] for k = 1..n, stepping by `step` (+1 or -1)
 * from y (so a step of -1 gives suffix costs read backwards). lo and hi
 * have room for n values each.
 */
static void prefix_costs(const double *y, size_t n, int step, double *cost,
			 double *lo_v, double *hi_v)
{
	struct heap lo = { lo_v, 0, 1, 0 }, hi = { hi_v, 0, 0, 0 };
	size_t k;
	double x, m;

	cost[0] = 0;
	for (k = 0; k < n; k++) {
		x = step > 0 ? y[k] : y[-(ptrdiff_t)k];
		if (!lo.n || x <= lo.v[0])
			heap_push(&lo, x);
		else
			heap_push(&hi, x);
		if (lo.n > hi.n + 1)
			heap_push(&hi, heap_pop(&lo));
		else if (hi.n > lo.n)
			heap_push(&lo, heap_pop(&hi));
		m = lo.v[0];
		cost[k + 1] = (hi.sum - m * (double)hi.n) + (m * (double)lo.n - lo.sum);
	}
}

struct work {
	const double *y;
	size_t n, min_seg;
	double *pre, *suf, *lo, *hi;
};

/* The best split of [a, b): its index (0 when none fits) and its gain. */
static size_t best_split(struct work *w, size_t a, size_t b, double *gain)
{
	size_t len = b - a, k, best = 0;
	double whole, c, best_c = HUGE_VAL;

	*gain = 0;
	if (len < 2 * w->min_seg)
		return 0;
	prefix_costs(w->y + a, len, 1, w->pre, w->lo, w->hi);
	prefix_costs(w->y + b - 1, len, -1, w->suf, w->lo, w->hi);
	whole = w->pre[len];
	for (k = w->min_seg; k + w->min_seg <= len; k++) {
		/* pre[k]: y[a..a+k-1]; suf[len-k]: y[a+k..b-1] */
		c = w->pre[k] + w->suf[len - k];
		if (c < best_c) {
			best_c = c;
			best = a + k;
		}
	}
	*gain = whole - best_c;
	return best;
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

int tk_changepoints(const double *x, size_t n, const struct tk_changepoint_opts *o,
		    struct tk_changepoint **out, size_t *nout, struct tk_err *err)
{
	struct tk_changepoint_opts d = tk_changepoint_opts_default();
	struct work w;
	double *y = NULL, *tmp = NULL, sigma, pen, gain;
	size_t *cps = NULL, ncp = 0, alloc_cp = 0, *stack = NULL, nstack = 0, alloc_stack = 0;
	size_t i, a, b, k, lo, hi;
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
	w.lo = tk_xmalloc(n * sizeof(double));
	w.hi = tk_xmalloc(n * sizeof(double));

	/* split [a, b) while a split pays for its penalty */
	TK_ALLOC_GROW(stack, 2, alloc_stack);
	stack[nstack++] = 0;
	stack[nstack++] = n;
	while (nstack) {
		b = stack[--nstack];
		a = stack[--nstack];
		k = best_split(&w, a, b, &gain);
		if (!k || gain <= pen)
			continue;
		if (d.max_changes && ncp >= d.max_changes)
			break;
		TK_ALLOC_GROW(cps, ncp + 1, alloc_cp);
		cps[ncp++] = k;
		TK_ALLOC_GROW(stack, nstack + 4, alloc_stack);
		stack[nstack++] = a;
		stack[nstack++] = k;
		stack[nstack++] = k;
		stack[nstack++] = b;
	}
	qsort(cps, ncp, sizeof(*cps), cmp_size);

	/* each split to its best place between its neighbours */
	for (i = 0; i < ncp; i++) {
		lo = i ? cps[i - 1] : 0;
		hi = i + 1 < ncp ? cps[i + 1] : n;
		k = best_split(&w, lo, hi, &gain);
		if (k)
			cps[i] = k;
	}

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
	free(w.lo);
	free(w.hi);
done:
	free(y);
	free(tmp);
	free(cps);
	free(stack);
	return ret;
}
