/*
 * How often each verdict method is right on synthetic histories
 * (bench/verdictsim.h): detection rate of injected steps and false-alarm
 * rate on unchanged keys, with 10 baseline runs and one current run, per
 * noise shape; then change-point location accuracy.
 *
 *   bench/verdicts [TRIALS]   (default 20000; deterministic seed)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/verdictsim.h"
#include "core/analyze/changepoint.h"
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
 * history, the newest 10 the window. Older runs only tell whether the
 * current value is in a mode of the key (core/analyze/verdict.h), so a step as
 * large as the key's rare slow runs is no longer explained by one of
 * them. A 50% step is the size of the 1.5x outliers.
 */
#define NHIST 30

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
		if (tk_verdict_judge_history(newest, NBASE, newest + NBASE,
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
		for (older = 0; older < 2; older++) {
			struct sim_rng rng = { 5 + s * 1000 };

			printf("  %-22s %-19s %7.2f%%", older ? "" : scenarios[s].name,
			       older ? "window + 20 older" : "window only",
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

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 20000;

	if (trials < 1)
		trials = 20000;
	verdict_table(trials);
	history_table(trials);
	changepoint_table(trials / 10 > 100 ? trials / 10 : 100);
	return 0;
}
