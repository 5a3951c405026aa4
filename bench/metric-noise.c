/*
 * metric-noise: how often tracker check calls a change on the real noise
 * of each metric, profile totals included.
 *
 *   metric-noise DB KEY [TRIALS]   (default 20000; deterministic seed)
 *
 * Reads every successful run of KEY (the same program run again and
 * again: nothing changed) and each metric's value in it, the totals of
 * its stored profiles too (tk_profstore_totals, as the check reads them).
 * Each trial draws 31 of the runs at random, without replacement: 30 are
 * the baseline branch's history, newest first (the window of 10 and 20
 * older runs), one is the current run; the check's own judgement
 * (tk_check_judge, core/analyze/check.h) says regression, improvement or
 * no change. Every regression is a false alarm, every improvement a false
 * claim. Prints, per metric, the runs that have it, their noise (1.4826
 * MAD of the logs) and both rates.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/verdictsim.h"
#include "core/analyze/check.h"
#include "core/model/metric.h"
#include "core/store/profstore.h"
#include "core/store/store.h"

#define HIST 30
#define WINDOW 10

struct runs {
	char **ids;
	double *v[TK_METRIC_COUNT];
	size_t nr, alloc;
};

static int keep_run(const struct tk_run_summary *s, void *data)
{
	struct runs *r = data;
	int m;

	if (s->status != TK_RUN_OK || s->partial || !s->run_id)
		return 0;
	if (r->nr == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 64;
		r->ids = realloc(r->ids, r->alloc * sizeof(*r->ids));
		for (m = 0; m < TK_METRIC_COUNT; m++)
			r->v[m] = realloc(r->v[m], r->alloc * sizeof(double));
		if (!r->ids)
			abort();
	}
	r->ids[r->nr] = strdup(s->run_id);
	for (m = 0; m < TK_METRIC_COUNT; m++)
		if (tk_metric_value(s, (enum tk_metric)m, &r->v[m][r->nr]))
			r->v[m][r->nr] = -1;
	r->nr++;
	return 0;
}

/* The profile totals of metric m for every run, in its own unit. */
static int fill_profile(struct tk_store *s, struct runs *r, enum tk_metric m,
			struct tk_err *err)
{
	const char **units = calloc(r->nr, sizeof(*units));
	size_t i;
	int ret = tk_profstore_totals(s, (const char *const *)r->ids, r->nr,
				      tk_metric_profile_kind(m), r->v[m], units, err);

	for (i = 0; !ret && i < r->nr; i++) {
		enum tk_metric_unit u = tk_metric_unit(m);
		double v = units[i] ? tk_metric_profile_value(m, r->v[m][i], units[i], &u) : -1;

		/* one unit per series: a cpu profile in samples is no time */
		r->v[m][i] = u == tk_metric_unit(m) ? v : -1;
	}
	free(units);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* 1.4826 MAD of the logs: the relative noise. */
static double spread(const double *x, size_t n)
{
	double *l = malloc(n * sizeof(*l)), med, s;
	size_t i;

	for (i = 0; i < n; i++)
		l[i] = log(x[i]);
	qsort(l, n, sizeof(*l), cmp_double);
	med = n % 2 ? l[n / 2] : (l[n / 2 - 1] + l[n / 2]) / 2;
	for (i = 0; i < n; i++)
		l[i] = fabs(l[i] - med);
	qsort(l, n, sizeof(*l), cmp_double);
	s = 1.4826 * (n % 2 ? l[n / 2] : (l[n / 2 - 1] + l[n / 2]) / 2);
	free(l);
	return s;
}

static void rates(const double *all, size_t n, int trials, const char *name)
{
	const struct tk_verdict_opts o = tk_verdict_opts_default();
	struct sim_rng rng = { 7 };
	double *x = malloc(n * sizeof(*x)), h[HIST], cur;
	struct tk_verdict_result r;
	struct tk_err err = TK_ERR_INIT;
	int t, reg = 0, imp = 0;
	size_t i;

	memcpy(x, all, n * sizeof(*x));
	for (t = 0; t < trials; t++) {
		/* a partial Fisher-Yates shuffle: the first HIST + 1 */
		for (i = 0; i <= HIST; i++) {
			size_t j = i + (size_t)(sim_uniform(&rng) * (double)(n - i));
			double tmp = x[i];

			x[i] = x[j < n ? j : n - 1];
			x[j < n ? j : n - 1] = tmp;
		}
		memcpy(h, x, sizeof(h));
		cur = x[HIST];
		if (tk_check_judge(h, WINDOW, HIST, &cur, 1, &o, &r, NULL, &err)) {
			fprintf(stderr, "metric-noise: %s: %s\n", name, err.msg);
			exit(1);
		}
		reg += r.verdict == TK_VERDICT_REGRESSION;
		imp += r.verdict == TK_VERDICT_IMPROVEMENT;
	}
	printf("  %-12s %5zu %7.2f%% %8.2f%% %8.2f%%\n", name, n, 100 * spread(all, n),
	       100.0 * reg / trials, 100.0 * imp / trials);
	free(x);
}

int main(int argc, char **argv)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	struct tk_run_query q;
	struct runs r;
	const char *keys[2];
	int trials = argc > 3 ? atoi(argv[3]) : 20000, m;

	if (argc < 3 || trials < 1) {
		fprintf(stderr, "usage: metric-noise DB KEY [TRIALS]\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	memset(&q, 0, sizeof(q));
	keys[0] = argv[2];
	keys[1] = NULL;
	q.keys = keys;
	if (tk_store_open_flags(argv[1], TK_STORE_NO_CREATE, &s, &err) ||
	    tk_store_query_summaries(s, &q, keep_run, &r, &err) < 0) {
		fprintf(stderr, "metric-noise: %s\n", err.msg);
		return 1;
	}
	for (m = 0; m < TK_METRIC_COUNT; m++)
		if (tk_metric_profile_kind((enum tk_metric)m) &&
		    fill_profile(s, &r, (enum tk_metric)m, &err)) {
			fprintf(stderr, "metric-noise: %s\n", err.msg);
			return 1;
		}
	printf("false alarms on real noise: %zu runs of %s, each trial 30 of them the history "
	       "(window 10) and one the current run, %d trials\n", r.nr, argv[2], trials);
	printf("  %-12s %5s %8s %9s %9s\n", "metric", "runs", "noise", "false%", "improv%");
	for (m = 0; m < TK_METRIC_COUNT; m++) {
		double *have = malloc((r.nr + 1) * sizeof(*have));
		size_t i, n = 0;

		for (i = 0; i < r.nr; i++)
			if (r.v[m][i] > 0)
				have[n++] = r.v[m][i];
		if (n > HIST)
			rates(have, n, trials, tk_metric_name((enum tk_metric)m));
		free(have);
	}
	tk_store_close(s);
	return 0;
}
