/*
 * Verdicts on one metric (contract in core/analyze/verdict.h).
 *
 * Why not a plain z-score: with 10 baseline runs the MAD is itself a noisy
 * estimate (about 37% efficient), so (y - median) / MAD has far heavier
 * tails than a normal variable and "z > 3" alarms several times more
 * often than the 0.13% it suggests. The interval method keeps the MAD only
 * to set outliers aside, then uses the standard deviation of the rest with
 * the Student t quantile of its degrees of freedom, which is what a
 * prediction interval for one new value from k old ones is.
 */
#include "core/analyze/verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

#define MAX_VALUES 100000

const char *tk_verdict_name(enum tk_verdict v)
{
	switch (v) {
	case TK_VERDICT_NO_CHANGE:
		return "no change";
	case TK_VERDICT_IMPROVEMENT:
		return "improvement";
	case TK_VERDICT_REGRESSION:
		return "regression";
	default:
		return "insufficient data";
	}
}


struct tk_verdict_opts tk_verdict_opts_default(void)
{
	struct tk_verdict_opts o;

	memset(&o, 0, sizeof(o));
	o.method = TK_VERDICT_INTERVAL;
	o.alpha = 0.005;
	o.min_effect = 0.02;
	o.reject = 5;
	o.min_baseline = 5;
	return o;
}

/* ---- Student's t ---- */

/* Continued fraction of the incomplete beta function (Lentz). */
static double beta_cf(double a, double b, double x)
{
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, del, aa;
	int m;

	if (fabs(d) < 1e-300)
		d = 1e-300;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + aa * d;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = 1 + aa / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		if (fabs(d) < 1e-300)
			d = 1e-300;
		c = 1 + aa / c;
		if (fabs(c) < 1e-300)
			c = 1e-300;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-14)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
	double bt;
	int sign; /* lgamma_r: lgamma sets the global signgam, a race between threads */

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma_r(a + b, &sign) - lgamma_r(a, &sign) - lgamma_r(b, &sign) +
		 a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * beta_cf(a, b, x) / a;
	return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

/* P(T > t) for t >= 0. */
static double t_upper(double t, double df)
{
	return 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
}

double tk_student_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid;
	int i;

	if (!(p > 0 && p < 0.5) || !(df > 0))
		return 0;
	while (t_upper(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		mid = (lo + hi) / 2;
		if (t_upper(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ---- helpers ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of x[0..n-1]; sorts x. */
static double median_sort(double *x, size_t n)
{
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

static double robust_sigma(const double *y, size_t n, double med, double *tmp)
{
	size_t i;

	for (i = 0; i < n; i++)
		tmp[i] = fabs(y[i] - med);
	return 1.4826 * median_sort(tmp, n);
}

/*
 * Exact P(U >= u) for the Mann-Whitney U of samples of m and n (no ties
 * in the distribution): the number of arrangements by U, counted with the
 * recurrence f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u).
 */
static double mw_upper(size_t m, size_t n, double u)
{
	size_t max = m * n, i, j, k;
	double *f, *g, total = 0, tail = 0;

	/* f[j][k]: arrangements of i values of one side among j of the other */
	f = tk_xcalloc((n + 1) * (max + 1), sizeof(double));
	g = tk_xcalloc((n + 1) * (max + 1), sizeof(double));
	for (j = 0; j <= n; j++)
		f[j * (max + 1)] = 1; /* i = 0 */
	for (i = 1; i <= m; i++) {
		memset(g, 0, (n + 1) * (max + 1) * sizeof(double));
		g[0] = 1; /* j = 0 */
		for (j = 1; j <= n; j++)
			for (k = 0; k <= i * j; k++) {
				double v = g[(j - 1) * (max + 1) + k];

				if (k >= j)
					v += f[j * (max + 1) + k - j];
				g[j * (max + 1) + k] = v;
			}
		memcpy(f, g, (n + 1) * (max + 1) * sizeof(double));
	}
	for (k = 0; k <= max; k++) {
		total += f[n * (max + 1) + k];
		if ((double)k >= u - 1e-9)
			tail += f[n * (max + 1) + k];
	}
	free(f);
	free(g);
	return total > 0 ? tail / total : 1;
}

struct judge {
	const struct tk_verdict_opts *o;
	double *yb, *yc, *tmp; /* yb: the window, newest first */
	double *yo;            /* older runs, newest first */
	size_t n, nc, no;
	double med, mad;
};

static void decide(struct tk_verdict_result *r, double effect, double min_effect, int up,
		   int down)
{
	r->verdict = TK_VERDICT_NO_CHANGE;
	if ((up && effect < min_effect) || (down && -effect < min_effect)) {
		r->note = "within the effect floor";
		return;
	}
	if (up)
		r->verdict = TK_VERDICT_REGRESSION;
	else if (down)
		r->verdict = TK_VERDICT_IMPROVEMENT;
}

/*
 * Whether cur belongs to a mode of the key: runs the outlier rule sets
 * aside on cur's side (a machine that is sometimes 1.3x slower), within
 * width of cur, that keep coming back: apart from each other (runs of
 * them in a row count once: a past regression that was reverted is no
 * mode) in at least one in ten of the recent runs (the window and the
 * older ones), not counting the newest runs in a row when older runs are
 * known (a level the newest runs just moved to is a change).
 */
static int in_a_mode(const struct judge *j, double cur, double width, int up)
{
	size_t total = j->n + j->no, need = (total + 9) / 10, spells = 0, i;
	int head = j->no > 0, prev = 0;

	if (j->mad <= 0)
		return 0;
	for (i = 0; i < total; i++) {
		double y = i < j->n ? j->yb[i] : j->yo[i - j->n], dev = y - j->med;
		int is = fabs(dev) > j->o->reject * j->mad && (up ? dev > 0 : dev < 0) &&
			 fabs(cur - y) <= width;

		if (!is)
			head = 0;
		else if (!head && !prev)
			spells++;
		prev = is;
	}
	return spells >= need;
}

static void judge_interval(struct judge *j, struct tk_verdict_result *r)
{
	const struct tk_verdict_opts *o = j->o;
	double sum = 0, ss = 0, mean, sd, cur = 0, scale, t, thr, effect;
	size_t i, k = 0;
	int up, down, explained = 0;

	for (i = 0; i < j->n; i++)
		if (j->mad <= 0 || fabs(j->yb[i] - j->med) <= o->reject * j->mad) {
			sum += j->yb[i];
			k++;
		}
	mean = sum / (double)k;
	for (i = 0; i < j->n; i++)
		if (j->mad <= 0 || fabs(j->yb[i] - j->med) <= o->reject * j->mad)
			ss += (j->yb[i] - mean) * (j->yb[i] - mean);
	if (k < 3) {
		/* most of the baseline is "outliers": keep them all */
		mean = j->med;
		sd = j->mad;
		k = j->n;
	} else {
		sd = sqrt(ss / (double)(k - 1));
	}
	for (i = 0; i < j->nc; i++)
		cur += j->yc[i];
	cur /= (double)j->nc;
	scale = sd * sqrt(1.0 / (double)j->nc + 1.0 / (double)k);
	thr = tk_student_t_quantile(o->alpha, (double)(k - 1));
	effect = exp(cur - mean) - 1;
	if (scale > 0)
		t = (cur - mean) / scale;
	else
		t = cur > mean ? HUGE_VAL : cur < mean ? -HUGE_VAL : 0;
	up = t > thr;
	down = t < -thr;
	if (up || down)
		explained = in_a_mode(j, cur, thr * sd * sqrt(2.0), up);
	r->method = j->nc > 1 ? "two-sample" : "interval";
	r->statistic = t;
	r->threshold = thr;
	if (explained) {
		r->verdict = TK_VERDICT_NO_CHANGE;
		r->note = up ? "like a slow baseline run" : "like a fast baseline run";
		return;
	}
	decide(r, effect, o->min_effect, up, down);
}

static void judge_mannwhitney(struct judge *j, struct tk_verdict_result *r)
{
	double u = 0, p_up, p_down, effect;
	size_t i, k;

	for (i = 0; i < j->nc; i++)
		for (k = 0; k < j->n; k++)
			u += j->yc[i] > j->yb[k] ? 1 : j->yc[i] == j->yb[k] ? 0.5 : 0;
	p_up = mw_upper(j->nc, j->n, u);
	p_down = mw_upper(j->nc, j->n, (double)(j->nc * j->n) - u);
	memcpy(j->tmp, j->yc, j->nc * sizeof(double));
	effect = exp(median_sort(j->tmp, j->nc) - j->med) - 1;
	r->method = "mannwhitney";
	r->statistic = p_up < p_down ? p_up : p_down;
	r->threshold = j->o->alpha;
	decide(r, effect, j->o->min_effect, p_up <= j->o->alpha, p_down <= j->o->alpha);
}

int tk_verdict_judge(const double *baseline, size_t n, const double *current,
		     size_t ncurrent, const struct tk_verdict_opts *o,
		     struct tk_verdict_result *r, struct tk_err *err)
{
	return tk_verdict_judge_history(baseline, n, NULL, 0, current, ncurrent, o, r, err);
}

int tk_verdict_judge_history(const double *baseline, size_t n, const double *older,
			     size_t nolder, const double *current, size_t ncurrent,
			     const struct tk_verdict_opts *o, struct tk_verdict_result *r,
			     struct tk_err *err)
{
	struct tk_verdict_opts d = tk_verdict_opts_default();
	struct judge j;
	double cur_med;
	size_t i;
	int use_log = 1;

	memset(r, 0, sizeof(*r));
	r->verdict = TK_VERDICT_INSUFFICIENT;
	if (o) {
		d.method = o->method;
		d.threshold = o->threshold;
		if (o->alpha > 0)
			d.alpha = o->alpha;
		if (o->min_effect > 0)
			d.min_effect = o->min_effect;
		else if (o->min_effect < 0)
			d.min_effect = 0;
		if (o->reject > 0)
			d.reject = o->reject;
		if (o->min_baseline)
			d.min_baseline = o->min_baseline;
	}
	if (d.alpha >= 0.5)
		return tk_err_set(err, TK_EUSAGE, "a test level must be below 0.5, not %g",
				  d.alpha);
	r->method = tk_verdict_method_name(d.method);
	r->n = n;
	if (n > MAX_VALUES || ncurrent > MAX_VALUES)
		return tk_err_set(err, TK_EUSAGE, "at most %d values on each side", MAX_VALUES);
	for (i = 0; i < n + ncurrent; i++) {
		double v = i < n ? baseline[i] : current[i - n];

		if (!isfinite(v))
			return tk_err_set(err, TK_EDATA, "%s value %zu is not a finite number",
					  i < n ? "baseline" : "current", (i < n ? i : i - n) + 1);
		if (v <= 0)
			use_log = 0;
	}
	memset(&j, 0, sizeof(j));
	j.o = &d;
	j.n = n;
	j.nc = ncurrent;
	j.tmp = tk_xmalloc((n + ncurrent + 1) * sizeof(double));
	if (ncurrent) {
		memcpy(j.tmp, current, ncurrent * sizeof(double));
		r->current = cur_med = median_sort(j.tmp, ncurrent);
	}
	if (n) {
		memcpy(j.tmp, baseline, n * sizeof(double));
		r->base_median = median_sort(j.tmp, n);
	}
	if (n && ncurrent && r->base_median != 0)
		r->delta_pct = (r->current / r->base_median - 1) * 100;
	else if (n && ncurrent)
		/* from nothing to something is no percentage: an unbounded one */
		r->delta_pct = r->current > 0 ? INFINITY : r->current < 0 ? -INFINITY : 0;
	if (!ncurrent) {
		r->note = "no current value";
		goto out;
	}
	if (n < d.min_baseline) {
		r->note = "too few baseline runs";
		goto out;
	}
	j.yb = tk_xmalloc(n * sizeof(double));
	j.yc = tk_xmalloc(ncurrent * sizeof(double));
	j.yo = tk_xmalloc((nolder + 1) * sizeof(double));
	for (i = 0; i < n; i++)
		j.yb[i] = use_log ? log(baseline[i]) : baseline[i];
	for (i = 0; i < nolder; i++)
		if (isfinite(older[i]) && (!use_log || older[i] > 0))
			j.yo[j.no++] = use_log ? log(older[i]) : older[i];
	for (i = 0; i < ncurrent; i++)
		j.yc[i] = use_log ? log(current[i]) : current[i];
	memcpy(j.tmp, j.yb, n * sizeof(double));
	j.med = median_sort(j.tmp, n);
	j.mad = robust_sigma(j.yb, n, j.med, j.tmp);
	r->base_spread = use_log ? j.mad : (r->base_median ? j.mad / fabs(r->base_median) : 0);
	if (!use_log) {
		/* raw values: shift so that "relative" means against the median */
		double m = r->base_median ? fabs(r->base_median) : 1;

		for (i = 0; i < n; i++)
			j.yb[i] = j.yb[i] / m;
		for (i = 0; i < j.no; i++)
			j.yo[i] = j.yo[i] / m;
		for (i = 0; i < ncurrent; i++)
			j.yc[i] = j.yc[i] / m;
		j.med /= m;
		j.mad /= m;
	}

	switch (d.method) {
	case TK_VERDICT_PERCENT: {
		double thr = d.threshold > 0 ? d.threshold : 10;

		r->statistic = r->delta_pct;
		r->threshold = thr;
		r->verdict = r->delta_pct > thr    ? TK_VERDICT_REGRESSION
			     : r->delta_pct < -thr ? TK_VERDICT_IMPROVEMENT
						   : TK_VERDICT_NO_CHANGE;
		break;
	}
	case TK_VERDICT_ZSCORE: {
		double thr = d.threshold > 0 ? d.threshold : 3, z;

		memcpy(j.tmp, j.yc, ncurrent * sizeof(double));
		cur_med = median_sort(j.tmp, ncurrent);
		z = j.mad > 0 ? (cur_med - j.med) / j.mad
			      : cur_med > j.med ? HUGE_VAL : cur_med < j.med ? -HUGE_VAL : 0;
		r->statistic = z;
		r->threshold = thr;
		r->verdict = z > thr ? TK_VERDICT_REGRESSION
			     : z < -thr ? TK_VERDICT_IMPROVEMENT : TK_VERDICT_NO_CHANGE;
		break;
	}
	case TK_VERDICT_MANNWHITNEY:
		/* one current value has no rank test: interval */
		if (ncurrent >= 2 && n * ncurrent <= 10000)
			judge_mannwhitney(&j, r);
		else
			judge_interval(&j, r);
		break;
	default:
		judge_interval(&j, r);
		break;
	}
	free(j.yb);
	free(j.yc);
	free(j.yo);
out:
	free(j.tmp);
	return 0;
}
