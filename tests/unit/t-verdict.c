/*
 * core/analyze/verdict: known answers of each method on small baselines, the
 * notes, the Student t quantiles, and a small run of the calibration
 * harness (bench/verdictsim.h, fixed seeds): with 10 baseline runs the
 * default method keeps false alarms at or under 1% at every noise level
 * and finds at least 95% of 12% steps at 2% noise, where a median/MAD
 * z-score at 3 alarms several times as often as it should.
 */
#include <math.h>
#include <string.h>

#include "bench/verdictsim.h"
#include "core/analyze/verdict.h"
#include "tests/unit/tap.h"

static const double base[10] = { 100, 101, 99, 102, 100, 98, 101, 100, 99, 103 };

static enum tk_verdict judge1(const double *b, size_t n, double cur,
			      const struct tk_verdict_opts *o, struct tk_verdict_result *r)
{
	struct tk_err err = TK_ERR_INIT;

	if (tk_verdict_judge(b, n, &cur, 1, o, r, &err))
		return (enum tk_verdict)-1;
	return r->verdict;
}

/* Rate (%) of regression verdicts over trials synthetic keys. */
static double rate(const struct sim_scenario *sc, const struct tk_verdict_opts *o,
		   double step, int trials, uint64_t seed)
{
	struct sim_rng rng = { seed };
	struct tk_verdict_result r;
	double b[10], c[1];
	int i, hits = 0;

	for (i = 0; i < trials; i++) {
		sim_history(&rng, sc, 10, b, 1, c, step);
		tk_verdict_judge(b, 10, c, 1, o, &r, NULL);
		hits += r.verdict == TK_VERDICT_REGRESSION;
	}
	return 100.0 * hits / trials;
}

/*
 * The key's older runs tell a mode from a rare slow run and from a level
 * the newest runs just moved to (tk_verdict_judge_history).
 */
static void older_runs(const double *window)
{
	struct tk_verdict_opts o = tk_verdict_opts_default();
	struct tk_verdict_result r;
	double w[10], old[20], cur = 150;
	size_t i;

	for (i = 0; i < 20; i++)
		old[i] = window[i % 10];
	memcpy(w, window, sizeof(w));
	w[5] = 150; /* one hiccup among the window's runs */
	tk_verdict_judge(w, 10, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_NO_CHANGE, "window only: a +50%% run is like the one "
	       "slow baseline run");
	tk_verdict_judge_history(w, 10, old, 20, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_REGRESSION, "with 20 older runs: one slow run in 30 is "
	       "no mode, +50%% is a regression");
	old[3] = 149;
	old[11] = 152;
	tk_verdict_judge_history(w, 10, old, 20, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_NO_CHANGE, "three slow runs in 30 are a mode: no change");
	is_str(r.note, "like a slow baseline run", "and says why");

	/* the newest three runs moved to +20%; the current run is there too */
	for (i = 0; i < 20; i++)
		old[i] = window[i % 10];
	memcpy(w, window, sizeof(w));
	w[0] = 120;
	w[1] = 121;
	w[2] = 119;
	cur = 120;
	tk_verdict_judge(w, 10, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_NO_CHANGE, "window only: like the three newest runs");
	tk_verdict_judge_history(w, 10, old, 20, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_REGRESSION, "with older runs: a level the newest runs "
	       "just moved to is a change");
	/* the same three slow runs spread among older ones: a mode */
	memcpy(w, window, sizeof(w));
	w[2] = 120;
	old[4] = 121;
	old[15] = 119;
	tk_verdict_judge_history(w, 10, old, 20, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_NO_CHANGE, "the same runs spread out are a mode");

	/* a regression that was reverted after three builds, long ago, and
	 * an old level the key left: runs in a row, no mode */
	for (i = 0; i < 20; i++)
		old[i] = window[i % 10] * (i >= 8 && i < 11 ? 1.3 : 1);
	memcpy(w, window, sizeof(w));
	w[9] = 131;
	cur = 130;
	tk_verdict_judge_history(w, 10, old, 20, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_REGRESSION, "a past regression, reverted, is no mode: "
	       "re-landed, it is a regression");
	for (i = 0; i < 20; i++)
		old[i] = window[i % 10] * 1.3;
	tk_verdict_judge_history(w, 10, old, 20, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_REGRESSION, "an old level is no mode either");
	/* one slow run in 19: under one in ten */
	for (i = 0; i < 20; i++)
		old[i] = window[i % 10];
	memcpy(w, window, sizeof(w));
	w[5] = 130;
	tk_verdict_judge_history(w, 10, old, 9, &cur, 1, &o, &r, NULL);
	is_int(r.verdict, TK_VERDICT_REGRESSION, "one slow run in 19 is no mode");
}

static void known_answers(void)
{
	struct tk_verdict_opts o = tk_verdict_opts_default();
	struct tk_verdict_result r;
	struct tk_err err = TK_ERR_INIT;
	double b[10], cur[3] = { 120, 122, 119 };
	size_t i;

	is_int(judge1(base, 10, 121, NULL, &r), TK_VERDICT_REGRESSION, "+21%%: regression");
	is_str(r.method, "interval", "by the interval");
	ok(r.statistic > r.threshold && r.threshold > 2.5 && r.threshold < 4,
	   "t %g over a t quantile %g", r.statistic, r.threshold);
	ok(fabs(r.base_median - 100) < 1e-9 && fabs(r.delta_pct - 21) < 1e-9,
	   "median 100, +21%%");
	ok(r.base_spread > 0.005 && r.base_spread < 0.03, "spread about 1.5%% (%g)", r.base_spread);
	is_int(judge1(base, 10, 85, NULL, &r), TK_VERDICT_IMPROVEMENT, "-15%%: improvement");
	is_int(judge1(base, 10, 102, NULL, &r), TK_VERDICT_NO_CHANGE, "+2%%: noise");
	is_int(judge1(base, 4, 150, NULL, &r), TK_VERDICT_INSUFFICIENT, "4 runs: insufficient");
	is_str(r.note, "too few baseline runs", "with a note");

	/* a quiet key: 0.1% noise, +0.8% is significant but under the floor */
	for (i = 0; i < 10; i++)
		b[i] = 1000 + (double)(i % 3);
	is_int(judge1(b, 10, 1009, NULL, &r), TK_VERDICT_NO_CHANGE, "quiet key, +0.8%%: no change");
	is_str(r.note, "within the effect floor", "because of the floor");
	is_int(judge1(b, 10, 1030, NULL, &r), TK_VERDICT_REGRESSION, "quiet key, +3%%: regression");

	/* a baseline with one 1.5x outlier still finds +15% */
	memcpy(b, base, sizeof(b));
	b[4] = 150;
	is_int(judge1(b, 10, 115, NULL, &r), TK_VERDICT_REGRESSION, "an outlier in the baseline: "
	       "+15%% still a regression");
	/* a bimodal machine: three runs 1.3x slower; a slow current run is like them */
	b[4] = 130;
	b[6] = 131;
	b[8] = 129;
	is_int(judge1(b, 10, 131, NULL, &r), TK_VERDICT_NO_CHANGE, "bimodal: a slow run is no "
	       "regression");
	is_str(r.note, "like a slow baseline run", "and says why");
	is_int(judge1(b, 10, 115, NULL, &r), TK_VERDICT_REGRESSION, "bimodal: +15%% between the "
	       "modes is");
	older_runs(base);

	o.method = TK_VERDICT_PERCENT;
	is_int(judge1(base, 10, 109, &o, &r), TK_VERDICT_NO_CHANGE, "percent: +9%% <= 10%%");
	is_int(judge1(base, 10, 111, &o, &r), TK_VERDICT_REGRESSION, "percent: +11%% > 10%%");
	ok(r.threshold == 10 && fabs(r.statistic - 11) < 1e-9, "statistic is the change in %%");
	o.threshold = 15;
	is_int(judge1(base, 10, 111, &o, &r), TK_VERDICT_NO_CHANGE, "percent 15: +11%% is not");

	o = tk_verdict_opts_default();
	o.method = TK_VERDICT_ZSCORE;
	is_int(judge1(base, 10, 105, &o, &r), TK_VERDICT_REGRESSION, "zscore: +5%% is z > 3");
	is_int(judge1(base, 10, 103.5, &o, &r), TK_VERDICT_NO_CHANGE, "zscore: +3.5%% is not");
	ok(r.threshold == 3, "threshold 3");

	o = tk_verdict_opts_default();
	is_int(tk_verdict_judge(base, 10, cur, 3, &o, &r, &err), 0, "three current runs");
	ok(r.verdict == TK_VERDICT_REGRESSION && !strcmp(r.method, "two-sample") &&
	   r.current == 120, "a two-sample regression, current is their median");
	o.method = TK_VERDICT_MANNWHITNEY;
	tk_verdict_judge(base, 10, cur, 3, &o, &r, &err);
	ok(r.verdict == TK_VERDICT_REGRESSION && !strcmp(r.method, "mannwhitney") &&
	   fabs(r.statistic - 1.0 / 286) < 1e-12, "mannwhitney: p = 1/C(13,3) (%g)", r.statistic);
	cur[0] = 100;
	cur[1] = 101;
	cur[2] = 99;
	tk_verdict_judge(base, 10, cur, 3, &o, &r, &err);
	is_int(r.verdict, TK_VERDICT_NO_CHANGE, "mannwhitney: the same runs, no change");
	tk_verdict_judge(base, 10, cur, 1, &o, &r, &err);
	is_str(r.method, "interval", "mannwhitney with one current run: the interval");

	{
		double zero[10] = { 0 };

		o = tk_verdict_opts_default();
		o.method = TK_VERDICT_PERCENT;
		is_int(judge1(zero, 10, 1, &o, &r), TK_VERDICT_REGRESSION,
		       "percent: from a baseline of 0 to 1 is a regression");
		ok(isinf(r.delta_pct) && r.delta_pct > 0, "an unbounded change (%g)", r.delta_pct);
		is_int(judge1(zero, 10, 0, &o, &r), TK_VERDICT_NO_CHANGE, "0 to 0 is none");
		ok(r.delta_pct == 0, "of 0%%");
	}
	cur[0] = INFINITY;
	is_int(tk_verdict_judge(base, 10, cur, 1, NULL, &r, &err), TK_EDATA, "inf is bad data");
	is_str(err.msg, "current value 1 is not a finite number", "naming it");
	ok(fabs(tk_student_t_quantile(0.025, 10) - 2.228139) < 1e-5, "t(0.975, 10) = 2.228");
	ok(fabs(tk_student_t_quantile(0.005, 3) - 5.840909) < 1e-5, "t(0.995, 3) = 5.841");
	ok(fabs(tk_student_t_quantile(0.05, 1) - 6.313752) < 1e-5, "t(0.95, 1) = 6.314");
}

static void calibration(void)
{
	static const double noise[] = { 0.01, 0.02, 0.05, 0.08 };
	struct tk_verdict_opts def = tk_verdict_opts_default(), z = def;
	struct sim_scenario sc = { "", 0, 0, 0, 0, 0 };
	double fa, det, zfa;
	size_t i;
	int trials = 6000;

	z.method = TK_VERDICT_ZSCORE;
	for (i = 0; i < sizeof(noise) / sizeof(noise[0]); i++) {
		sc.sigma = noise[i];
		fa = rate(&sc, &def, 0, trials, 10 + i);
		ok(fa <= 1.0, "default at %.0f%% noise: %.2f%% false alarms (<= 1%%)",
		   noise[i] * 100, fa);
		zfa = rate(&sc, &z, 0, trials, 10 + i);
		ok(zfa >= 2 * fa && zfa > 1.5, "median/MAD z > 3 at %.0f%% noise: %.2f%% false "
		   "alarms, not calibrated", noise[i] * 100, zfa);
	}
	sc.sigma = 0.02;
	det = rate(&sc, &def, 0.12, trials, 20);
	ok(det >= 95, "default at 2%% noise: %.1f%% of 12%% steps found (>= 95%%)", det);
	sc.p_slow = 0.5;
	fa = rate(&sc, &def, 0, trials, 21);
	ok(fa <= 1.0, "bimodal machine (half the runs 1.3x): %.2f%% false alarms (<= 1%%)", fa);
	sc.p_slow = 1.0 / 3;
	fa = rate(&sc, &def, 0, 16 * trials, 22);
	/* p(1-p)^10 = 0.58% of them: a baseline with no slow run cannot know */
	ok(fa <= 1.0, "bimodal machine (a third 1.3x): %.2f%% false alarms (<= 1%%)", fa);
}

int main(void)
{
	known_answers();
	calibration();
	return done_testing();
}
