/*
 * How often each verdict method is right on synthetic histories
 * (bench/verdictsim.h): detection rate of injected steps and false-alarm
 * rate on unchanged keys, with 10 baseline runs and one current run, per
 * noise shape; then change-point location accuracy, and keys whose level
 * moved a few builds before the current one or drifts.
 *
 *   bench/verdicts [TRIALS]   (default 20000; deterministic seed)
 *   bench/verdicts --families N   (N series of each change-point family,
 *                                  for bench/otava.sh)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/verdictsim.h"
#include "core/analyze/changepoint.h"
#include "core/analyze/check.h"
#include "core/analyze/verdict.h"

#define NBASE 10

static const struct sim_scenario scenarios[] = {
	{ "noise 1%", 0.01, 0, 0, 0, 0 },
	{ "noise 2%", 0.02, 0, 0, 0, 0 },
	{ "noise 5%", 0.05, 0, 0, 0, 0 },
	{ "noise 8%", 0.08, 0, 0, 0, 0 },
	{ "t3 tails 2%", 0.02, 1, 0, 0, 0 },
	{ "2% + 5% 1.5x outliers", 0.02, 0, 0.05, 0, 0 },
	{ "2% bimodal 1/3 x1.3", 0.02, 0, 0, 1.0 / 3, 0 },
	{ "2% bimodal 1/2 x1.3", 0.02, 0, 0, 0.5, 0 },
	{ "2% drift 0.2%/run", 0.02, 0, 0, 0, 0.002 },
};

static const double steps[] = { 0.05, 0.10, 0.12, 0.20 };

struct method {
	const char *name;
	struct tk_verdict_opts o;
};

static double rate(struct sim_rng *rng, const struct sim_scenario *sc,
		   const struct tk_verdict_opts *o, double step, int trials)
{
	double base[NBASE], cur[1];
	struct tk_verdict_result r;
	int i, hits = 0;

	for (i = 0; i < trials; i++) {
		sim_history(rng, sc, NBASE, base, 1, cur, step);
		if (tk_verdict_judge(base, NBASE, cur, 1, o, &r, NULL))
			return -1;
		hits += r.verdict == TK_VERDICT_REGRESSION;
	}
	return 100.0 * hits / trials;
}

static void verdict_table(int trials)
{
	struct method methods[3];
	size_t s, m, k;

	methods[0].name = "default (interval)";
	methods[0].o = tk_verdict_opts_default();
	methods[1].name = "percent 10%";
	methods[1].o = tk_verdict_opts_default();
	methods[1].o.method = TK_VERDICT_PERCENT;
	methods[2].name = "median/MAD z > 3";
	methods[2].o = tk_verdict_opts_default();
	methods[2].o.method = TK_VERDICT_ZSCORE;

	printf("verdicts: %d baseline runs, 1 current run, %d trials per cell (seed 1)\n",
	       NBASE, trials);
	printf("  %-22s %-19s %8s", "history", "method", "false%");
	for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
		printf("  det@%2.0f%%", steps[k] * 100);
	printf("\n");
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		for (m = 0; m < 3; m++) {
			struct sim_rng rng = { 1 + s * 1000 };

			printf("  %-22s %-19s %7.2f%%", m ? "" : scenarios[s].name, methods[m].name,
			       rate(&rng, &scenarios[s], &methods[m].o, 0, trials));
			for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
				printf("  %6.1f%%", rate(&rng, &scenarios[s], &methods[m].o,
							  steps[k], trials));
			printf("\n");
		}
	printf("  (bimodal: when none of the %d baseline runs happened to be slow, a slow\n"
	       "  current run is a false alarm for every method: p(1-p)^%d = %.2f%% at p = 1/3,\n"
	       "  %.2f%% at p = 1/2)\n", NBASE, NBASE, 100 * pow(2.0 / 3, NBASE) / 3,
	       100 * pow(0.5, NBASE + 1));
}

#define SERIES 60
#define STEP_AT 30

static const struct sim_scenario cp_scenarios[] = {
	{ "noise 1%", 0.01, 0, 0, 0, 0 },
	{ "noise 2%", 0.02, 0, 0, 0, 0 },
	{ "noise 5%", 0.05, 0, 0, 0, 0 },
	{ "noise 8%", 0.08, 0, 0, 0, 0 },
	{ "t3 tails 2%", 0.02, 1, 0, 0, 0 },
	{ "2% + 5% 1.5x outliers", 0.02, 0, 0.05, 0, 0 },
	{ "2% bimodal 1/3 x1.3", 0.02, 0, 0, 1.0 / 3, 0 },
};

/*
 * The default method given the key's older runs as well: 30 runs of
 * history, the newest 10 the window; and as tracker check judges
 * (tk_check_judge: the 30 runs cut at their last change point, when
 * there is one). Older runs only tell whether the
 * current value is in a mode of the key (core/analyze/verdict.h), so a step as
 * large as the key's rare slow runs is no longer explained by one of
 * them. A 50% step is the size of the 1.5x outliers.
 */
#define NHIST 30

/* use_older: 0 the window only, 1 and the older runs, 2 as check judges */
static double rate_history(struct sim_rng *rng, const struct sim_scenario *sc, int use_older,
			   double step, int trials)
{
	double h[NHIST], newest[NHIST], cur[1];
	struct tk_verdict_result r;
	const struct tk_verdict_opts o = tk_verdict_opts_default();
	int i, k, hits = 0;

	for (i = 0; i < trials; i++) {
		sim_history(rng, sc, NHIST, h, 1, cur, step);
		for (k = 0; k < NHIST; k++)
			newest[k] = h[NHIST - 1 - k];
		if (use_older == 2 ? tk_check_judge(newest, NBASE, NHIST, cur, 1, &o, &r, NULL, NULL)
		    : tk_verdict_judge_history(newest, NBASE, newest + NBASE,
					       use_older ? NHIST - NBASE : 0, cur, 1, &o, &r, NULL))
			return -1;
		hits += r.verdict == TK_VERDICT_REGRESSION;
	}
	return 100.0 * hits / trials;
}

static void history_table(int trials)
{
	static const double hsteps[] = { 0.05, 0.10, 0.12, 0.20, 0.50 };
	size_t s, k;
	int older;

	printf("\nverdicts with older runs: %d runs of history, the newest %d the window, "
	       "1 current run, %d trials per cell\n", NHIST, NBASE, trials);
	printf("  %-22s %-19s %8s", "history", "default, given", "false%");
	for (k = 0; k < sizeof(hsteps) / sizeof(hsteps[0]); k++)
		printf("  det@%2.0f%%", hsteps[k] * 100);
	printf("\n");
	for (s = 0; s < sizeof(scenarios) / sizeof(scenarios[0]); s++)
		for (older = 0; older < 3; older++) {
			struct sim_rng rng = { 5 + s * 1000 };

			printf("  %-22s %-19s %7.2f%%", older ? "" : scenarios[s].name,
			       older == 2 ? "check (cut)" : older ? "window + 20 older" : "window only",
			       rate_history(&rng, &scenarios[s], older, 0, trials));
			for (k = 0; k < sizeof(hsteps) / sizeof(hsteps[0]); k++)
				printf("  %6.1f%%", rate_history(&rng, &scenarios[s], older,
								  hsteps[k], trials));
			printf("\n");
		}
}

static void changepoint_table(int trials)
{
	double x[SERIES + 1];
	size_t si, k, i;

	printf("\nchange points (default options): %d builds, a step at build %d, "
	       "%d series per cell\n", SERIES, STEP_AT, trials);
	printf("  %-22s %9s  %-s\n", "history", "spurious", "step found within +-1 build");
	for (si = 0; si < sizeof(cp_scenarios) / sizeof(cp_scenarios[0]); si++) {
		const struct sim_scenario *sc = &cp_scenarios[si];
		struct sim_rng rng = { 77 + si };
		int spurious = 0, t;

		for (t = 0; t < trials; t++) {
			struct tk_changepoint *cp;
			size_t n;

			sim_history(&rng, sc, SERIES, x, 0, NULL, 0);
			if (tk_changepoints(x, SERIES, NULL, &cp, &n, NULL))
				return;
			spurious += n > 0;
			free(cp);
		}
		printf("  %-22s %8.2f%% ", sc->name, 100.0 * spurious / trials);
		for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
			int found = 0;

			for (t = 0; t < trials; t++) {
				struct tk_changepoint *cp;
				size_t n, c;

				sim_history(&rng, sc, SERIES, x, 0, NULL, 0);
				for (i = STEP_AT; i < SERIES; i++)
					x[i] *= 1 + steps[k];
				if (tk_changepoints(x, SERIES, NULL, &cp, &n, NULL))
					return;
				for (c = 0; c < n; c++)
					if (cp[c].index + 1 >= STEP_AT && cp[c].index <= STEP_AT + 1) {
						found++;
						break;
					}
				free(cp);
			}
			printf("  %2.0f%%: %5.1f%%", steps[k] * 100, 100.0 * found / trials);
		}
		printf("\n");
	}
}

/*
 * Change points on 80-build histories, the families Apache Otava is
 * measured on beside tracker (bench/otava.sh): flat histories (every
 * change point is false), single steps at build 40, regressions that go
 * back to the old level (reverted or fixed), and two steps. A change
 * point within one build of an edge finds it; any other is false. A
 * series is found when every edge of it is.
 */
#define FAM_N 80
#define FAM_EDGES 2

struct family_def {
	const char *name;
	struct sim_scenario noise;
	size_t nedges, at[FAM_EDGES];
	double level[FAM_EDGES]; /* the level from at[e] on, x the first */
};

#define NOISE2 { "", 0.02, 0, 0, 0, 0 }
static const struct family_def families[] = {
	{ "flat, noise 1%", { "", 0.01, 0, 0, 0, 0 }, 0, { 0 }, { 0 } },
	{ "flat, noise 2%", NOISE2, 0, { 0 }, { 0 } },
	{ "flat, noise 5%", { "", 0.05, 0, 0, 0, 0 }, 0, { 0 }, { 0 } },
	{ "flat, t3 tails 2%", { "", 0.02, 1, 0, 0, 0 }, 0, { 0 }, { 0 } },
	{ "flat, 2% + 5% 1.5x outliers", { "", 0.02, 0, 0.05, 0, 0 }, 0, { 0 }, { 0 } },
	{ "flat, 2% bimodal 1/3 x1.3", { "", 0.02, 0, 0, 1.0 / 3, 0 }, 0, { 0 }, { 0 } },
	{ "+5% at 40", NOISE2, 1, { 40 }, { 1.05 } },
	{ "+15% at 40", NOISE2, 1, { 40 }, { 1.15 } },
	{ "+10% at 30-54, reverted", NOISE2, 2, { 30, 55 }, { 1.10, 1 } },
	{ "+20% at 30-54, reverted", NOISE2, 2, { 30, 55 }, { 1.20, 1 } },
	{ "+10% at 30-39 only", NOISE2, 2, { 30, 40 }, { 1.10, 1 } },
	{ "+10% at 30, +10% more at 55", NOISE2, 2, { 30, 55 }, { 1.10, 1.21 } },
	{ "+20% at 30, down to +8% at 55", NOISE2, 2, { 30, 55 }, { 1.20, 1.08 } },
};

static void family_series(struct sim_rng *rng, const struct family_def *f, double *x)
{
	size_t i, e;

	sim_history(rng, &f->noise, FAM_N, x, 0, NULL, 0);
	for (e = 0; e < f->nedges; e++)
		for (i = f->at[e]; i < FAM_N; i++)
			x[i] *= e ? f->level[e] / f->level[e - 1] : f->level[e];
}

/* How many of idx[0..n) are false (within one build of no edge), and
 * whether every edge has one within a build. */
static size_t family_score(const struct family_def *f, const size_t *idx, size_t n, int *found)
{
	size_t i, e, falses = 0;
	int hit[FAM_EDGES] = { 0 };

	for (i = 0; i < n; i++) {
		int near = 0;

		for (e = 0; e < f->nedges; e++)
			if (idx[i] + 1 >= f->at[e] && idx[i] <= f->at[e] + 1)
				near = hit[e] = 1;
		falses += !near;
	}
	*found = 1;
	for (e = 0; e < f->nedges; e++)
		*found &= hit[e];
	return falses;
}

/* Tracker's change points of x, as indexes; how many. */
static size_t family_points(const double *x, size_t *idx)
{
	struct tk_changepoint *cp;
	size_t n, i;

	if (tk_changepoints(x, FAM_N, NULL, &cp, &n, NULL))
		exit(1);
	for (i = 0; i < n && i < FAM_N; i++)
		idx[i] = cp[i].index;
	free(cp);
	return n;
}

static void family_table(int trials)
{
	double x[FAM_N];
	size_t idx[FAM_N], f;

	printf("\nchange points (default options) on %d-build histories, %d series per family:\n"
	       "  found: every edge within +-1 build; false: change points near no edge\n",
	       FAM_N, trials);
	printf("  %-32s %7s %14s %14s\n", "history", "found", "false/series", "series w/false");
	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		struct sim_rng rng = { 2100 + f };
		size_t falses = 0, with_false = 0, n, bad;
		int found = 0, t, all;

		for (t = 0; t < trials; t++) {
			family_series(&rng, &families[f], x);
			n = family_points(x, idx);
			bad = family_score(&families[f], idx, n, &all);
			falses += bad;
			with_false += bad > 0;
			found += all;
		}
		if (families[f].nedges)
			printf("  %-32s %6.1f%%", families[f].name, 100.0 * found / trials);
		else
			printf("  %-32s %7s", families[f].name, "-");
		printf(" %14.3f %13.1f%%\n", (double)falses / trials, 100.0 * with_false / trials);
	}
}

/*
 * bench/verdicts --families N: the series of each family (the same
 * draws as the table), one a line, for a peer to be run on:
 *   family<TAB>edges<TAB>values<TAB>tracker's change points
 * edges and change points as comma-separated indexes (0 the oldest build);
 * then "# tracker: T ms per series", the CPU time tracker took.
 */
static void family_dump(int trials)
{
	double x[FAM_N], secs = 0;
	size_t idx[FAM_N], f, i, e, n;
	struct timespec t0, t1;
	int t;

	for (f = 0; f < sizeof(families) / sizeof(families[0]); f++) {
		struct sim_rng rng = { 2100 + f };

		for (t = 0; t < trials; t++) {
			family_series(&rng, &families[f], x);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
			n = family_points(x, idx);
			clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
			secs += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
			printf("%s\t", families[f].name);
			for (e = 0; e < families[f].nedges; e++)
				printf("%s%zu", e ? "," : "", families[f].at[e]);
			printf("\t");
			for (i = 0; i < FAM_N; i++)
				printf("%s%.17g", i ? "," : "", x[i]);
			printf("\t");
			for (i = 0; i < n; i++)
				printf("%s%zu", i ? "," : "", idx[i]);
			printf("\n");
		}
	}
	printf("# tracker: %.4f ms per series\n",
	       1000 * secs / (double)trials / (double)(sizeof(families) / sizeof(families[0])));
}

/*
 * Keys whose level moved on the baseline branch before the current build,
 * judged as tracker check judges them (tk_check_judge: the baseline cut
 * at its last change point) and as a window of the newest 10 runs with 20
 * older ones would be (the check before it cut). The current build is
 * identical to the newest baseline runs (false%), or 10% slower (det).
 *
 *   level shift   noise 2%, the level up by STEP (5%, 10%, 20%) at 3 to
 *                 8 builds before the current one (as many trials each)
 *   random walk   noise 1%, and the level a random walk of 0.5% a build
 *                 (a shared agent drifting)
 */
#define NSHIFT 30

enum family { LEVEL_SHIFT, RANDOM_WALK };

struct shift_rates {
	double false_pct, insufficient_pct, det_pct;
};

/* A history of NSHIFT runs, newest first, and the current value. */
static void shifted(struct sim_rng *rng, enum family f, double step, size_t at,
		    double *newest, double *cur, double change)
{
	const struct sim_scenario noise = { "", f == LEVEL_SHIFT ? 0.02 : 0.01, 0, 0, 0, 0 };
	double level = 0;
	size_t i;

	/* oldest first into newest[NSHIFT - 1 - i], the current one last */
	for (i = 0; i <= NSHIFT; i++) {
		double v;

		if (f == RANDOM_WALK)
			level += 0.005 * sim_normal(rng);
		else if (i == NSHIFT - at)
			level = log(1 + step);
		v = exp(level + sim_noise(rng, &noise));
		if (i < NSHIFT)
			newest[NSHIFT - 1 - i] = v;
		else
			*cur = v * (1 + change);
	}
}

static struct shift_rates shift_rates(enum family f, double step, int cut, int trials,
				      unsigned seed)
{
	const struct tk_verdict_opts o = tk_verdict_opts_default();
	struct shift_rates sr = { 0, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct sim_rng rng = { seed };
	double h[NSHIFT], cur;
	struct tk_verdict_result r;
	int t, falses = 0, insufficient = 0, hits = 0, pass;

	for (pass = 0; pass < 2; pass++)
		for (t = 0; t < trials; t++) {
			size_t at = 3 + (size_t)t % 6;
			int ret;

			shifted(&rng, f, step, at, h, &cur, pass ? 0.10 : 0);
			if (cut)
				ret = tk_check_judge(h, NBASE, NSHIFT, &cur, 1, &o, &r, NULL, &err);
			else
				ret = tk_verdict_judge_history(h, NBASE, h + NBASE, NSHIFT - NBASE,
							       &cur, 1, &o, &r, &err);
			if (ret) {
				fprintf(stderr, "verdicts: %s\n", err.msg);
				exit(1);
			}
			if (pass)
				hits += r.verdict == TK_VERDICT_REGRESSION;
			else {
				falses += r.verdict == TK_VERDICT_REGRESSION;
				insufficient += r.verdict == TK_VERDICT_INSUFFICIENT;
			}
		}
	sr.false_pct = 100.0 * falses / trials;
	sr.insufficient_pct = 100.0 * insufficient / trials;
	sr.det_pct = 100.0 * hits / trials;
	return sr;
}

static void shift_table(int trials)
{
	static const double shifts[] = { 0.05, 0.10, 0.20 };
	size_t k;
	int cut;

	printf("\nkeys that moved before the current build: %d runs of history, the newest %d "
	       "the window, %d trials per cell\n", NSHIFT, NBASE, trials);
	printf("  %-26s %-30s %8s %8s %8s\n", "history", "baseline", "false%", "insuff%",
	       "det@10%");
	for (k = 0; k < sizeof(shifts) / sizeof(shifts[0]) + 1; k++)
		for (cut = 1; cut >= 0; cut--) {
			enum family f = k < 3 ? LEVEL_SHIFT : RANDOM_WALK;
			struct shift_rates sr = shift_rates(f, k < 3 ? shifts[k] : 0, cut, trials,
							    (unsigned)(11 + k * 1000));
			char name[64];

			if (f == LEVEL_SHIFT)
				snprintf(name, sizeof(name), "2%%, +%.0f%% 3-8 builds before",
					 shifts[k] * 100);
			else
				snprintf(name, sizeof(name), "1%%, random walk 0.5%%/build");
			printf("  %-26s %-30s %7.2f%% %7.2f%% %7.1f%%\n", cut ? name : "",
			       cut ? "since the last change (check)" : "newest 10, 20 older",
			       sr.false_pct, sr.insufficient_pct, sr.det_pct);
		}
}

int main(int argc, char **argv)
{
	int trials;

	if (argc > 2 && !strcmp(argv[1], "--families")) {
		trials = atoi(argv[2]);
		family_dump(trials > 0 ? trials : 200);
		return fflush(stdout) ? 1 : 0;
	}
	trials = argc > 1 ? atoi(argv[1]) : 20000;

	if (trials < 1)
		trials = 20000;
	verdict_table(trials);
	history_table(trials);
	changepoint_table(trials / 10 > 100 ? trials / 10 : 100);
	family_table(trials / 10 > 100 ? trials / 10 : 100);
	shift_table(trials / 4 > 600 ? trials / 4 : 600);
	return 0;
}
