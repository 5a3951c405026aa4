#ifndef TK_VERDICT_H
#define TK_VERDICT_H
/*
 * Is the current value of a metric worse than its baseline? Lower is
 * better for every metric. All methods work on log values, so a change is
 * relative ("12% slower") and the noise of a 1 s key and of a 1 h key are
 * compared alike; a series holding a value <= 0 is judged on raw values.
 *
 * Methods (o->method):
 *
 *   interval (default)  A prediction interval for the current value,
 *       robust to baseline outliers: the baseline's median and 1.4826 x
 *       MAD (on logs) find the outliers (more than o->reject robust sigmas
 *       from the median); the mean m and standard deviation s of the
 *       other k values give t = (y - m) / (s sqrt(1 + 1/k)), compared with
 *       the Student t quantile of 1 - o->alpha at k - 1 degrees of
 *       freedom: the small-sample correction a plain z-score lacks. With
 *       several current values (repeats of the build, ranks), y is their
 *       mean and the scale s sqrt(1/c + 1/k): a two-sample t test on logs
 *       ("two-sample"). A regression also needs a change of at least
 *       o->min_effect (2%), so a quiet key's 0.5% is no regression, and
 *       must not belong to a mode of the key: a machine whose runs are
 *       sometimes 1.3x slower forms a second mode, and a current run in
 *       it is not a regression. A mode is runs the outlier rule sets
 *       aside on the current value's side, within the threshold of it,
 *       apart from each other (runs of them in a row count once: a past
 *       regression that was reverted is no mode) in at least one in ten
 *       of the recent runs (the window and the older runs given, rounded
 *       up); with older runs given, the newest runs in a row do not count
 *       (a level they just moved to is a change, not a mode).
 *       Improvements mirror regressions.
 *   percent  The current median against the baseline median: a change of
 *       more than o->threshold percent (default 10) is a verdict.
 *   zscore  (y - median) / (1.4826 MAD) on logs against o->threshold
 *       (default 3). Kept for comparison: at 10 baseline runs its false
 *       alarm rate is several times what the threshold promises (see
 *       bench/verdicts.c).
 *   mannwhitney  With 2 or more current values, the exact one-sided
 *       Mann-Whitney U test at level o->alpha plus the o->min_effect
 *       floor; with one current value, interval.
 *
 * Fewer than o->min_baseline (5) baseline values, or no current value,
 * is TK_VERDICT_INSUFFICIENT. Nothing here allocates beyond the call or
 * prints. Errors: TK_EDATA for non-finite values, TK_EUSAGE for
 * bad options.
 */
#include <stddef.h>

#include "core/base/err.h"
#include "core/model/metric.h"

enum tk_verdict {
	TK_VERDICT_INSUFFICIENT,
	TK_VERDICT_NO_CHANGE,
	TK_VERDICT_IMPROVEMENT,
	TK_VERDICT_REGRESSION,
};

/* "insufficient data", "no change", "improvement", "regression" */
const char *tk_verdict_name(enum tk_verdict v);

struct tk_verdict_opts {
	enum tk_verdict_method method;
	double threshold;    /* percent: %, zscore: z; <= 0: the method's default */
	double alpha;        /* interval, mannwhitney: one-sided level; default 0.005 */
	double min_effect;   /* smallest relative change flagged; default 0.02 */
	double reject;       /* interval: outliers beyond this many robust sigmas; 5 */
	size_t min_baseline; /* fewer baseline values: insufficient; default 5 */
};

struct tk_verdict_opts tk_verdict_opts_default(void);

struct tk_verdict_result {
	enum tk_verdict verdict;
	size_t n;            /* baseline values used */
	double base_median;  /* of the baseline, in its units */
	double base_spread;  /* relative noise of the baseline: 1.4826 MAD of the
				logs (0.02: about 2%) */
	double current;      /* the current value (median of several) */
	double delta_pct;    /* current against base_median, % */
	double statistic;    /* what the method compares ... */
	double threshold;    /* ... with this (both 0 when insufficient) */
	const char *method;  /* "interval", "two-sample", "percent", ... (static) */
	const char *note;    /* why a verdict is what it is, or NULL (static):
				"within the effect floor", "like a slow baseline run",
				"fewer than N baseline runs" */
};

/*
 * baseline[0..n) is the window, newest first; current[0..ncurrent) the
 * runs judged. tk_verdict_judge_history also takes the key's older runs
 * (older[0..nolder), newest first, before the window), which only tell
 * whether the current value belongs to a mode (above).
 */
int tk_verdict_judge_history(const double *baseline, size_t n, const double *older,
			     size_t nolder, const double *current, size_t ncurrent,
			     const struct tk_verdict_opts *o, struct tk_verdict_result *r,
			     struct tk_err *err);
int tk_verdict_judge(const double *baseline, size_t n, const double *current,
		     size_t ncurrent, const struct tk_verdict_opts *o,
		     struct tk_verdict_result *r, struct tk_err *err);

/* The one-sided upper quantile of Student's t with df degrees of freedom:
 * P(T > q) = p. */
double tk_student_t_quantile(double p, double df);

#endif
