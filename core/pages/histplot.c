/*
 * History plots: gathering and layout (core/pages/histplot.h). The charts
 * are drawn by core/pages/chart.c and its painters, written by
 * core/pages/plotwrite.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/analyze/baseline.h"
#include "core/analyze/check.h"
#include "core/store/keyhist.h"
#include "core/store/profstore.h"
#include "core/base/buf.h"
#include "core/base/fsutil.h"
#include "core/model/context.h"
#include "core/draw/canvas.h"
#include "core/analyze/changepoint.h"
#include "core/pages/histplot.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define MAX_TICKS 32
/* a rolling band needs this many runs: fewer say nothing of the spread
 * (and drew a triangle fanning out from the first run) */
#define BAND_MIN_RUNS 5
/* an axis not from zero spans at least this share of the median */
#define MIN_SPAN_OF_MEDIAN 0.5
/* y tick labels at least this far apart, pixels */
#define YTICK_MIN_GAP 18
/* the runs before the window a verdict also reads, as tracker check
 * reads them (its OLDER_RUNS, core/analyze/check.c) */
#define JUDGE_OLDER_RUNS 20
/* how a baseline series of runs with no machine class recorded is named,
 * beside others that have one */
#define NO_CLASS "no class"
/* a run of another pipeline than tk_plot_data.pipeline */
#define FOREIGN_PIPELINE 0x80u

void tk_plot_data_init(struct tk_plot_data *d)
{
	memset(d, 0, sizeof(*d));
}

static const char *dup_str(struct tk_plot_data *d, const char *s)
{
	return s ? tk_arena_strndup(&d->arena, s, strlen(s)) : NULL;
}

static struct tk_plot_key *key_of(struct tk_plot_data *d, const struct tk_run_summary *s)
{
	const char *key = s->key ? s->key : "";
	struct tk_plot_key *k;
	size_t i;

	if (d->nr && !strcmp(d->keys[d->last].key, key))
		return &d->keys[d->last];
	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->keys[i].key, key)) {
			d->last = i;
			return &d->keys[i];
		}
	TK_ALLOC_GROW(d->keys, d->nr + 1, d->alloc);
	k = &d->keys[d->nr];
	memset(k, 0, sizeof(*k));
	k->key = tk_xstrdup(key);
	d->last = d->nr++;
	return k;
}

/* A build number that is a whole number, else NaN. */
static double build_value(const char *b)
{
	double v = 0;

	if (!b || !*b || strlen(b) > 15)
		return NAN;
	for (; *b; b++) {
		if (*b < '0' || *b > '9')
			return NAN;
		v = v * 10 + (*b - '0');
	}
	return v;
}

/* A run's machine class, interned: a key's runs have a few classes,
 * often taking turns. NULL for none. */
static const char *class_of(struct tk_plot_data *d, const char *c)
{
	size_t i;

	if (!c || !*c)
		return NULL;
	for (i = 0; i < d->nclasses; i++)
		if (!strcmp(d->classes[i], c))
			return d->classes[i];
	if (d->nclasses < sizeof(d->classes) / sizeof(d->classes[0]))
		return d->classes[d->nclasses++] = dup_str(d, c);
	return dup_str(d, c);
}

int tk_plot_data_add(const struct tk_run_summary *s, void *data)
{
	struct tk_plot_data *d = data;
	struct tk_plot_key *k = key_of(d, s);
	struct tk_plot_run *r;
	int m, foreign = d->pipeline && s->pipeline && strcmp(d->pipeline, s->pipeline);

	if (d->pipeline && s->pipeline && !foreign && !k->own_pipeline) {
		k->own_pipeline = 1;
		free(k->pipeline);
		k->pipeline = NULL;
	}
	if (!k->pipeline && s->pipeline && (!foreign || !k->own_pipeline))
		k->pipeline = tk_xstrdup(s->pipeline);
	TK_ALLOC_GROW(k->runs, k->nr + 1, k->alloc);
	r = &k->runs[k->nr++];
	memset(r, 0, sizeof(*r));
	r->started_at_us = s->started_at_us;
	r->build = build_value(s->build_number);
	r->run_id = dup_str(d, s->run_id);
	/* runs of one branch come in long stretches: keep one copy */
	if (s->branch && d->last_branch && !strcmp(s->branch, d->last_branch))
		r->branch = d->last_branch;
	else
		r->branch = d->last_branch = dup_str(d, s->branch);
	r->machine_class = class_of(d, s->machine_class);
	r->commit = dup_str(d, s->commit);
	r->build_number = dup_str(d, s->build_number);
	r->build_url = dup_str(d, s->build_url);
	for (m = 0; m < TK_METRIC_COUNT; m++)
		if (tk_metric_value(s, (enum tk_metric)m, &r->v[m]))
			r->v[m] = NAN;
	if (s->status != TK_RUN_OK)
		r->flags |= TK_PLOT_FAILED;
	if (s->partial)
		r->flags |= TK_PLOT_PARTIAL;
	if (foreign)
		r->flags |= FOREIGN_PIPELINE;
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct tk_plot_key *)a)->key, ((const struct tk_plot_key *)b)->key);
}

static int cmp_run(const void *a, const void *b)
{
	const struct tk_plot_run *x = a, *y = b;

	if (x->started_at_us != y->started_at_us)
		return x->started_at_us < y->started_at_us ? -1 : 1;
	return strcmp(x->run_id ? x->run_id : "", y->run_id ? y->run_id : "");
}

void tk_plot_data_finish(struct tk_plot_data *d)
{
	size_t i, j, kept;

	for (i = 0; i < d->nr; i++) {
		struct tk_plot_key *k = &d->keys[i];
		int sorted = 1;

		/* a key the build's pipeline ran: that pipeline's runs only */
		for (j = kept = 0; j < k->nr; j++)
			if (!k->own_pipeline || !(k->runs[j].flags & FOREIGN_PIPELINE))
				k->runs[kept++] = k->runs[j];
		k->nr = kept;
		/* the store gives newest first: reversed, that is oldest first */
		for (j = 0; j < k->nr / 2; j++) {
			struct tk_plot_run t = k->runs[j];

			k->runs[j] = k->runs[k->nr - 1 - j];
			k->runs[k->nr - 1 - j] = t;
		}
		for (j = 1; j < k->nr && sorted; j++)
			sorted = cmp_run(&k->runs[j - 1], &k->runs[j]) <= 0;
		if (!sorted)
			qsort(k->runs, k->nr, sizeof(*k->runs), cmp_run);
	}
	if (d->nr) /* qsort's pointer must not be NULL, even for 0 elements */
		qsort(d->keys, d->nr, sizeof(*d->keys), cmp_key);
	d->last = 0;
}

int tk_plot_data_load(struct tk_plot_data *d, struct tk_store *s, const struct tk_run_query *q,
		      struct tk_err *err)
{
	struct tk_run_query cq = *q;
	int ret;

	cq.chart_only = 1;
	ret = tk_store_query_summaries(s, &cq, tk_plot_data_add, d, err);

	if (ret < 0)
		return ret;
	tk_plot_data_finish(d);
	return 0;
}

int tk_plot_data_load_history(struct tk_plot_data *d, const struct tk_key_history *h,
			      const struct tk_run_query *q, struct tk_err *err)
{
	int ret = tk_key_history_query(h, q, tk_plot_data_add, d, NULL, err);

	if (ret < 0)
		return ret;
	tk_plot_data_finish(d);
	return 0;
}

/* The totals of metric m's profiles for key k's runs into their values:
 * h's alloc totals when it read them, the store's otherwise. */
static int fill_metric(struct tk_plot_key *k, const struct tk_key_history *h,
		       struct tk_store *s, enum tk_metric m, struct tk_err *err)
{
	const char **ids, **units;
	double *tot;
	size_t j;
	int ret = 0;

	if (m == TK_METRIC_ALLOC && h && h->alloc && !strcmp(h->key, k->key)) {
		for (j = 0; j < k->nr; j++) {
			double t = tk_key_history_alloc(h, tk_key_history_find(h, k->runs[j].run_id));

			k->runs[j].v[m] = t >= 0 ? t : NAN;
		}
		return 0;
	}
	if (!k->nr)
		return 0;
	ids = tk_xcalloc(k->nr, sizeof(*ids));
	units = tk_xcalloc(k->nr, sizeof(*units));
	tot = tk_xcalloc(k->nr, sizeof(*tot));
	for (j = 0; j < k->nr; j++)
		ids[j] = k->runs[j].run_id ? k->runs[j].run_id : "";
	ret = tk_profstore_totals(s, ids, k->nr, tk_metric_profile_kind(m), tot, units, err);
	for (j = 0; !ret && j < k->nr; j++) {
		enum tk_metric_unit u;
		double v = tot[j] >= 0 && units[j]
			   ? tk_metric_profile_value(m, tot[j], units[j], &u) : -1;

		/* a chart's axis is in the metric's unit: a cpu profile in
		 * samples has no point on a chart in seconds */
		k->runs[j].v[m] = v >= 0 && u == tk_metric_unit(m) ? v : NAN;
	}
	free(ids);
	free(units);
	free(tot);
	return ret;
}

int tk_plot_fill_profiles(struct tk_plot_data *d, const struct tk_key_history *h,
			  struct tk_store *s, const struct tk_plot_opts *o, struct tk_err *err)
{
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < o->nr_metrics; i++) {
		if (!tk_metric_profile_kind(o->metrics[i]))
			continue;
		for (j = 0; !ret && j < d->nr; j++)
			ret = fill_metric(&d->keys[j], h, s, o->metrics[i], err);
	}
	return ret;
}

void tk_plot_data_release(struct tk_plot_data *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++) {
		free(d->keys[i].key);
		free(d->keys[i].pipeline);
		free(d->keys[i].runs);
	}
	free(d->keys);
	tk_arena_release(&d->arena);
	memset(d, 0, sizeof(*d));
}

/* ---- units and ticks ---- */

const char *tk_plot_unit(enum tk_metric m, double max, double *div)
{
	if (tk_metric_unit(m) == TK_METRIC_SECONDS) {
		if (max >= 2 * 3600) {
			*div = 3600;
			return "h";
		}
		if (max >= 120) {
			*div = 60;
			return "min";
		}
		if (max >= 1 || max <= 0) {
			*div = 1;
			return "s";
		}
		/* below a second in ms, as the tables print it; below a
		 * millisecond in µs */
		if (max >= 0.001) {
			*div = 0.001;
			return "ms";
		}
		*div = 0.000001;
		return "\xc2\xb5s";
	}
	if (tk_metric_unit(m) == TK_METRIC_COUNT_UNIT) {
		static const char *const units[] = { "", "k", "M", "G", "T" };
		size_t i = 0;

		*div = 1;
		while (max >= 1000 * *div && i < 4) {
			*div *= 1000;
			i++;
		}
		return units[i];
	}
	if (max >= 1024.0 * 1024 * 1024) {
		*div = 1024.0 * 1024 * 1024;
		return "GiB";
	}
	if (max >= 1024.0 * 1024) {
		*div = 1024.0 * 1024;
		return "MiB";
	}
	if (max >= 1024) {
		*div = 1024;
		return "KiB";
	}
	*div = 1;
	return "B";
}

void tk_plot_format_value(struct tk_buf *b, enum tk_metric m, double v)
{
	if (!isfinite(v)) {
		tk_buf_adds(b, "-");
		return;
	}
	tk_metric_format(b, m, v);
}

static const char *const month_names[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* with_time 2: "00:02:15", the time of day to the second (ticks less
 * than a minute apart: the title and tooltips name the day) */
static char *date_label(double t, int with_time, int month_only, int year_only)
{
	struct tk_buf b = TK_BUF_INIT;
	time_t tt = (time_t)floor(t);
	struct tm tm;

	gmtime_r(&tt, &tm);
	if (with_time == 2)
		tk_buf_addf(&b, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
	else if (year_only)
		tk_buf_addf(&b, "%d", tm.tm_year + 1900);
	else if (month_only)
		tk_buf_addf(&b, "%s %d", month_names[tm.tm_mon], tm.tm_year + 1900);
	else if (with_time)
		tk_buf_addf(&b, "%s %d %02d:%02d", month_names[tm.tm_mon], tm.tm_mday, tm.tm_hour,
			    tm.tm_min);
	else
		tk_buf_addf(&b, "%s %d", month_names[tm.tm_mon], tm.tm_mday);
	return tk_buf_detach(&b, NULL);
}

/* The start of month `months` counted from January 1970, UTC. */
static double month_start(long months)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = (int)(70 + months / 12);
	tm.tm_mon = (int)(months % 12);
	tm.tm_mday = 1;
	return (double)timegm(&tm);
}

size_t tk_plot_date_ticks(double lo, double hi, size_t max, double *t, char **labels)
{
	/* the steps of the page's dateTicks (core/pages/plothtml.c), so that a
	 * zoomed page and the drawn chart agree */
	static const double fixed[] = { 1, 2, 5, 10, 15, 30, 60, 300, 900, 1800, 3600,
					3 * 3600, 6 * 3600, 12 * 3600, 86400, 2 * 86400,
					7 * 86400, 14 * 86400 };
	static const int months[] = { 1, 2, 3, 6, 12, 24, 60, 120 };
	const double monday = 4 * 86400; /* 1970-01-05 */
	size_t n = 0, i;

	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	if (max < 2)
		max = 2;
	if (max > MAX_TICKS)
		max = MAX_TICKS;
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		double step = fixed[i], off = step >= 7 * 86400 ? monday : 0, v;

		if ((hi - lo) / step + 1 > (double)max)
			continue;
		for (v = ceil((lo - off) / step) * step + off; v <= hi && n < max; v += step) {
			t[n] = v;
			labels[n++] = date_label(v, step < 60 ? 2 : step < 86400, 0, 0);
		}
		if (!n) {
			/* all within one second: name it once, in the middle */
			t[n] = (lo + hi) / 2;
			labels[n++] = date_label(t[0], 1, 0, 0);
		}
		return n;
	}
	for (i = 0; i < sizeof(months) / sizeof(months[0]); i++) {
		time_t tt = (time_t)floor(lo);
		struct tm tm;
		long m, k = months[i];

		if ((hi - lo) / (k * 30.44 * 86400) + 1 > (double)max)
			continue;
		gmtime_r(&tt, &tm);
		m = (long)(tm.tm_year - 70) * 12 + tm.tm_mon;
		m = (m + k - 1) / k * k;
		for (; n < max; m += k) {
			double v = month_start(m);

			if (v < lo)
				continue;
			if (v > hi)
				break;
			t[n] = v;
			labels[n++] = date_label(v, 0, k < 12, k >= 12);
		}
		return n;
	}
	return 0;
}

/* "1.5 min": a tick value with the decimals its step needs. */
static char *value_label(double v, double step, const char *unit)
{
	struct tk_buf b = TK_BUF_INIT;
	int dec = step > 0 && step < 1 ? (int)ceil(-log10(step) - 1e-9) : 0;

	if (dec > 6)
		dec = 6;
	tk_buf_addf(&b, "%.*f %s", dec, v, unit);
	return tk_buf_detach(&b, NULL);
}

/* ---- layout ---- */

#define TITLE_H 24
#define LEGEND_H 20
#define LEGEND_ROW2_H 16
#define MARGIN_L 84
#define MARGIN_R 24
#define AXIS_H 40

const char *tk_plot_metric_title(enum tk_metric m)
{
	switch (m) {
	case TK_METRIC_WALLTIME: return "walltime";
	case TK_METRIC_CPU: return "CPU time (user + sys)";
	case TK_METRIC_MAXRSS: return "max RSS (largest process)";
	case TK_METRIC_TREE_RSS: return "peak RSS of the process tree";
	case TK_METRIC_SLURM_MAXRSS: return "SLURM MaxRSS (largest step)";
	case TK_METRIC_ALLOC: return "bytes allocated";
	case TK_METRIC_ALLOC_COUNT: return "allocations";
	case TK_METRIC_HEAP_PEAK: return "peak live heap";
	case TK_METRIC_CPU_PROFILE: return "CPU time profiled";
	}
	return "?";
}

/* The branch with most runs of k (the first such, oldest first). */
static const char *busiest_branch(const struct tk_plot_key *k)
{
	const char **names = NULL;
	size_t *counts = NULL, n = 0, alloc = 0, alloc2 = 0, i, j, best = 0;

	for (i = 0; i < k->nr; i++) {
		const char *b = k->runs[i].branch;

		if (!b)
			continue;
		for (j = 0; j < n && strcmp(names[j], b); j++)
			;
		if (j == n) {
			TK_ALLOC_GROW(names, n + 1, alloc);
			TK_ALLOC_GROW(counts, n + 1, alloc2);
			names[n] = b;
			counts[n++] = 0;
		}
		counts[j]++;
	}
	for (j = 1; j < n; j++)
		if (counts[j] > counts[best])
			best = j;
	{
		const char *b = n ? names[best] : NULL;

		free(names);
		free(counts);
		return b;
	}
}

static int in_current_build(const struct tk_plot_run *r, const char *build)
{
	return r->build_number && !strcmp(r->build_number, build);
}

/* The index of k's current run (the newest of the build when the build
 * ran the key), as classify finds it. */
static size_t current_run(const struct tk_plot_key *k, const char *build)
{
	size_t i;

	for (i = k->nr; build && i > 0; i--)
		if (in_current_build(&k->runs[i - 1], build))
			return i - 1;
	return k->nr - 1;
}

int tk_plot_data_baselines(struct tk_plot_data *d, struct tk_store *s,
			   const struct tk_plot_opts *o, const struct tk_ci_context *ci,
			   const struct tk_config *cfg, struct tk_err *err)
{
	size_t i;
	int ret;

	for (i = 0; i < d->nr; i++) {
		struct tk_plot_key *k = &d->keys[i];
		char *b = NULL;

		if (!k->nr)
			continue;
		ret = tk_baseline_branch_for_run(s, o->baseline_branch, ci, cfg, k->key,
						 k->runs[current_run(k, o->current_build)].run_id,
						 &b, err);
		if (ret < 0)
			return ret;
		k->baseline = dup_str(d, b);
		free(b);
	}
	return 0;
}

/* Sets the class of each of k's runs. The current runs are those of
 * o->current_build, else (no build, or a build that did not run the key:
 * a scheduled step) the key's newest run, as tracker check judges it.
 * Returns 1 when the key's newest run is current for want of a run in
 * o->current_build. */
static int classify(struct tk_plot_key *k, const struct tk_plot_opts *o, const char *base)
{
	const char *build = o->current_build;
	int fell_back = 0;
	size_t i;

	if (build) {
		for (i = 0; i < k->nr && !in_current_build(&k->runs[i], build); i++)
			;
		if (i == k->nr) {
			build = NULL;
			fell_back = 1;
		}
	}
	for (i = 0; i < k->nr; i++) {
		struct tk_plot_run *r = &k->runs[i];

		if (build ? in_current_build(r, build) : i == k->nr - 1)
			r->cls = TK_PLOT_CURRENT;
		else if (base && r->branch && !strcmp(r->branch, base))
			r->cls = TK_PLOT_BASELINE;
		else
			r->cls = TK_PLOT_OTHER;
	}
	return fell_back;
}

/* The machine classes of a key's baseline runs, as series. */
struct key_series {
	const char **cls;
	size_t *count;
	size_t n;
};

static int cmp_class_name(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Finds k's baseline series (most runs first, then by class name; at
 * least one) and sets each baseline run's series. */
static void find_series(struct tk_plot_key *k, struct key_series *ks)
{
	size_t i, j, alloc = 0, alloc2 = 0;

	memset(ks, 0, sizeof(*ks));
	for (i = 0; i < k->nr; i++) {
		const char *c = k->runs[i].machine_class;

		if (k->runs[i].cls != TK_PLOT_BASELINE)
			continue;
		for (j = 0; j < ks->n && ks->cls[j] != c && cmp_class_name(ks->cls[j], c); j++)
			;
		if (j == ks->n) {
			TK_ALLOC_GROW(ks->cls, ks->n + 1, alloc);
			TK_ALLOC_GROW(ks->count, ks->n + 1, alloc2);
			ks->cls[j] = c;
			ks->count[ks->n++] = 0;
		}
		ks->count[j]++;
	}
	if (!ks->n) {
		ks->cls = tk_xcalloc(1, sizeof(*ks->cls));
		ks->count = tk_xcalloc(1, sizeof(*ks->count));
		ks->n = 1;
	}
	/* a few classes: insertion sort */
	for (i = 1; i < ks->n; i++) {
		const char *c = ks->cls[i];
		size_t n = ks->count[i];

		for (j = i; j && (ks->count[j - 1] < n ||
				  (ks->count[j - 1] == n && cmp_class_name(ks->cls[j - 1], c) > 0)); j--) {
			ks->cls[j] = ks->cls[j - 1];
			ks->count[j] = ks->count[j - 1];
		}
		ks->cls[j] = c;
		ks->count[j] = n;
	}
	for (i = 0; i < k->nr; i++) {
		struct tk_plot_run *r = &k->runs[i];

		r->series = 0;
		if (r->cls != TK_PLOT_BASELINE || ks->n == 1)
			continue;
		for (j = 0; j < ks->n && ks->cls[j] != r->machine_class &&
			    cmp_class_name(ks->cls[j], r->machine_class); j++)
			;
		r->series = (unsigned short)(j < 65535 ? j : 65535);
	}
}

static void key_series_release(struct key_series *ks)
{
	free(ks->cls);
	free(ks->count);
}

static double run_x(const struct tk_plot_run *r, enum tk_plot_x x)
{
	return x == TK_PLOT_X_BUILD ? r->build : (double)r->started_at_us / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	size_t i, j;

	if (n <= 32) {
		/* the rolling window: a few values, sorted in place */
		for (i = 1; i < n; i++) {
			double x = v[i];

			for (j = i; j && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
	} else {
		qsort(v, n, sizeof(*v), cmp_double);
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The rolling median and spread over the successful baseline runs of
 * series `series`; also the values the change points are found in.
 * vals/runs: out, n of them. */
static void baseline_series(const struct tk_plot_key *k, enum tk_metric m, enum tk_plot_x x,
			    unsigned series, double **vals, uint32_t **runs, size_t *n)
{
	size_t i, alloc = 0, alloc2 = 0;

	*vals = NULL;
	*runs = NULL;
	*n = 0;
	for (i = 0; i < k->nr; i++) {
		const struct tk_plot_run *r = &k->runs[i];

		if (r->cls != TK_PLOT_BASELINE || r->series != series || r->flags ||
		    !isfinite(r->v[m]) || !isfinite(run_x(r, x)))
			continue;
		TK_ALLOC_GROW(*vals, *n + 1, alloc);
		TK_ALLOC_GROW(*runs, *n + 1, alloc2);
		(*vals)[*n] = r->v[m];
		(*runs)[(*n)++] = (uint32_t)i;
	}
}

struct scale {
	double x0, x1, y0, y1, xlo, xhi, ylo, yhi;
};

static double sx(const struct scale *s, double v)
{
	return s->xhi > s->xlo ? s->x0 + (v - s->xlo) / (s->xhi - s->xlo) * (s->x1 - s->x0)
			       : (s->x0 + s->x1) / 2;
}

static double sy(const struct scale *s, double v)
{
	return s->yhi > s->ylo ? s->y1 - (v - s->ylo) / (s->yhi - s->ylo) * (s->y1 - s->y0)
			       : (s->y0 + s->y1) / 2;
}

static int cmp_point(const void *a, const void *b)
{
	const struct tk_plot_point *p = a, *q = b;

	if (p->px != q->px)
		return p->px < q->px ? -1 : 1;
	return p->run < q->run ? -1 : p->run > q->run;
}

/*
 * Change points of a long series cost O(n log n) per level of splitting:
 * a year of hourly runs is found on bucket medians (at most CP_BUCKETS of
 * them), and each change then placed exactly by a search for one change
 * among the runs of the buckets around it.
 */
#define CP_DIRECT_MAX 2000
#define CP_BUCKETS 1000

static int find_changes(const double *v, size_t n, struct tk_changepoint **out, size_t *nout,
			struct tk_err *err)
{
	struct tk_changepoint_opts co = tk_changepoint_opts_default();
	struct tk_changepoint *cp = NULL;
	size_t b, m, i, ncp = 0;
	double *med, *tmp;
	int ret;

	if (n <= CP_DIRECT_MAX)
		return tk_changepoints(v, n, &co, out, nout, err);
	b = (n + CP_BUCKETS - 1) / CP_BUCKETS;
	m = n / b;
	med = tk_xmalloc(m * sizeof(*med));
	tmp = tk_xmalloc(b * sizeof(*tmp));
	for (i = 0; i < m; i++) {
		memcpy(tmp, v + i * b, b * sizeof(*tmp));
		med[i] = median_of(tmp, b);
	}
	free(tmp);
	ret = tk_changepoints(med, m, &co, &cp, &ncp, err);
	free(med);
	for (i = 0; !ret && i < ncp; i++) {
		struct tk_changepoint_opts one = co;
		struct tk_changepoint *fine = NULL;
		size_t k = cp[i].index, lo = k >= 2 ? (k - 2) * b : 0;
		size_t hi = (k + 2) * b < n ? (k + 2) * b : n, nfine = 0;

		one.max_changes = 1;
		one.min_effect = -1;
		cp[i].index = k * b;
		ret = tk_changepoints(v + lo, hi - lo, &one, &fine, &nfine, err);
		if (!ret && nfine)
			cp[i].index = lo + fine[0].index;
		free(fine);
	}
	if (ret) {
		free(cp);
		return ret;
	}
	*out = cp;
	*nout = ncp;
	return 0;
}

static char *change_label(const struct tk_plot_run *r, double before, double after,
			  const struct tk_plot_chart *c)
{
	struct tk_buf b = TK_BUF_INIT;

	if (r->build_number)
		tk_buf_addf(&b, "#%s", r->build_number);
	else
		tk_buf_adds(&b, "run");
	if (r->commit)
		tk_buf_addf(&b, " %.8s", r->commit);
	if (before > 0)
		tk_buf_addf(&b, " %+.0f%%", (after / before - 1) * 100);
	if (c->nseries > 1)
		tk_buf_addf(&b, " on %s", r->machine_class ? r->machine_class : NO_CLASS);
	return tk_buf_detach(&b, NULL);
}

/* Rows for the change points' labels ("change at " + label, about 7 px
 * a character, right of the line in the left half, left of it in the
 * right half): the first row where it overlaps no other label; none when
 * all three are taken there. */
static void place_labels(struct tk_plot_chart *c)
{
	double used[3][2 * 64];
	size_t nused[3] = { 0, 0, 0 }, i, r, j;

	for (i = 0; i < c->nchanges; i++) {
		struct tk_plot_change *ch = &c->changes[i];
		double w = 7 * (double)(strlen(ch->label) + 10) + 8, a, b;
		int right = ch->px > (c->x0 + c->x1) / 2;

		a = right ? ch->px - w : ch->px;
		b = right ? ch->px : ch->px + w;
		ch->row = -1;
		for (r = 0; r < 3 && ch->row < 0; r++) {
			int free_row = nused[r] < 64;

			for (j = 0; j < nused[r] && free_row; j++)
				if (a < used[r][2 * j + 1] && b > used[r][2 * j])
					free_row = 0;
			if (free_row) {
				used[r][2 * nused[r]] = a;
				used[r][2 * nused[r]++ + 1] = b;
				ch->row = (int)r;
			}
		}
	}
}

/* Where the verdict's label goes: beside the current point (left of it
 * in the right half), above it or under it, when that stays in the plot
 * area and overlaps no change point's label; else the first row of
 * those labels it overlaps none in; else under the axis, at its right
 * end. */
static void place_verdict(struct tk_plot_chart *c)
{
	double w = 7 * (double)strlen(c->verdict_label), a, b, y;
	int right = c->vx > (c->x0 + c->x1) / 2, r, tries;
	size_t i;

	c->vend = right;
	c->vtx = c->vx + (right ? -8 : 8);
	a = right ? c->vtx - w : c->vtx;
	b = right ? c->vtx : c->vtx + w;
	for (tries = 0; tries < 2 + 3; tries++) {
		int ok = 1;

		if (tries < 2) {
			/* a short plot area has no room beside the point */
			if (c->y1 - c->y0 < 120)
				continue;
			y = tries == 0 ? c->vy - 12 : c->vy + 22;
			if (y - 12 < c->y0 || y + 4 > c->y1)
				continue;
		} else {
			/* the rows of the change labels: at the line's x, whole */
			r = tries - 2;
			y = c->y0 + 16 + 14 * (double)r;
			if (y + 4 > c->y1)
				break;
		}
		for (i = 0; i < c->nchanges && ok; i++) {
			const struct tk_plot_change *ch = &c->changes[i];
			double cw = 7 * (double)(strlen(ch->label) + 10) + 8, ca, cb, cy;
			int cright = ch->px > (c->x0 + c->x1) / 2;

			if (ch->row < 0)
				continue;
			ca = cright ? ch->px - cw : ch->px;
			cb = cright ? ch->px : ch->px + cw;
			cy = c->y0 + 16 + 14 * (double)ch->row;
			if (a < cb && b > ca && fabs(y - cy) < 14)
				ok = 0;
		}
		if (ok) {
			c->vty = y;
			return;
		}
	}
	c->vend = 1;
	c->vtx = c->x1;
	c->vty = c->y1 + 34;
}

static int is_change(const struct tk_plot_chart *c, uint32_t run)
{
	size_t i;

	for (i = 0; i < c->nchanges; i++)
		if (c->changes[i].run == run)
			return 1;
	return 0;
}

/* Orders a pixel column's points by series, then y. */
static int cmp_series_py(const void *a, const void *b, void *pts)
{
	const struct tk_plot_point *p = pts, *x = &p[*(const size_t *)a], *y = &p[*(const size_t *)b];

	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	return x->py < y->py ? -1 : x->py > y->py;
}

/* Thins c's successful baseline points to the lowest, median and highest
 * of each series in each pixel column, and each series' band to the
 * first and last of each column (see max_points). c's points are in
 * pixels, sorted by x; its band by series, then x. */
static void thin_chart(struct tk_plot_chart *c)
{
	unsigned char *keep = tk_xcalloc(c->npts ? c->npts : 1, 1);
	size_t *col = tk_xmalloc((c->npts ? c->npts : 1) * sizeof(*col));
	size_t i, j, n, g, s;

	for (i = 0; i < c->npts;) {
		double px = floor(c->pts[i].px);

		for (n = 0, j = i; j < c->npts && floor(c->pts[j].px) == px; j++) {
			const struct tk_plot_point *p = &c->pts[j];

			if (p->cls != TK_PLOT_BASELINE || p->flags || is_change(c, p->run))
				keep[j] = 1;
			else
				col[n++] = j;
		}
		if (n)
			qsort_r(col, n, sizeof(*col), cmp_series_py, c->pts);
		for (g = 0; g < n; g = s) {
			for (s = g; s < n && c->pts[col[s]].series == c->pts[col[g]].series; s++)
				;
			keep[col[g]] = keep[col[g + (s - g) / 2]] = keep[col[s - 1]] = 1;
		}
		i = j;
	}
	for (i = n = 0; i < c->npts; i++)
		if (keep[i])
			c->pts[n++] = c->pts[i];
	c->npts = n;
	for (n = s = 0; s < c->nseries; s++) {
		struct tk_plot_series *se = &c->series[s];
		size_t lo = se->band0, hi = se->band0 + se->nband;

		se->band0 = n;
		for (i = lo; i < hi; i++) {
			double px = floor(c->band[i].px);

			if (i == lo || i + 1 == hi || floor(c->band[i - 1].px) != px ||
			    floor(c->band[i + 1].px) != px)
				c->band[n++] = c->band[i];
		}
		se->nband = n - se->band0;
	}
	c->nband = n;
	free(col);
	free(keep);
}

/* The rolling median and band of series `series` of c, appended to
 * c->band (in data units), and its change points, appended to
 * c->changes; vmin/vmax widened to the band. */
static int lay_out_series(struct tk_plot_chart *c, const struct tk_plot_key *k, enum tk_metric m,
			  const struct tk_plot_opts *o, unsigned series, double *vmin, double *vmax,
			  struct tk_err *err)
{
	size_t window = o->window ? o->window : 10, i, nb, first;
	double *vals, *tmp;
	uint32_t *bruns;
	int ret = 0;

	baseline_series(k, m, o->x, series, &vals, &bruns, &nb);
	first = nb >= BAND_MIN_RUNS ? BAND_MIN_RUNS - 1 : nb;
	c->series[series].band0 = c->nband;
	c->series[series].nband = nb - first;
	tmp = tk_xmalloc((window + 1) * sizeof(*tmp));
	if (nb > first)
		c->band = tk_realloc_array(c->band, c->nband + nb - first, sizeof(*c->band));
	for (i = first; i < nb; i++) {
		size_t lo = i + 1 > window ? i + 1 - window : 0, n = i + 1 - lo, j;
		struct tk_plot_band *bd = &c->band[c->nband + i - first];
		double med, mad;

		memcpy(tmp, vals + lo, n * sizeof(*tmp));
		med = median_of(tmp, n);
		for (j = 0; j < n; j++)
			tmp[j] = fabs(vals[lo + j] - med);
		mad = 1.4826 * median_of(tmp, n);
		bd->px = run_x(&k->runs[bruns[i]], o->x);
		bd->mid = med;
		bd->lo = med - mad > 0 ? med - mad : 0;
		bd->hi = med + mad;
		bd->run = bruns[i];
		if (bd->hi > *vmax)
			*vmax = bd->hi;
		if (bd->lo < *vmin)
			*vmin = bd->lo;
	}
	c->nband += nb - first;
	free(tmp);

	if (nb) {
		struct tk_changepoint *cp = NULL;
		size_t ncp = 0;

		ret = find_changes(vals, nb, &cp, &ncp, err);
		if (!ret && ncp) {
			c->changes = tk_realloc_array(c->changes, c->nchanges + ncp, sizeof(*c->changes));
			for (i = 0; i < ncp; i++) {
				struct tk_plot_change *ch = &c->changes[c->nchanges + i];
				uint32_t run = bruns[cp[i].index];

				memset(ch, 0, sizeof(*ch));
				ch->run = run;
				ch->px = run_x(&k->runs[run], o->x);
				ch->before = cp[i].before;
				ch->after = cp[i].after;
				ch->label = change_label(&k->runs[run], cp[i].before, cp[i].after, c);
				ch->series = (unsigned short)series;
			}
			c->nchanges += ncp;
		}
		free(cp);
	}
	free(vals);
	free(bruns);
	return ret;
}

/*
 * The edge of the verdict's threshold on one side of the baseline median
 * med: the value nearest med that tk_check_judge flags as want (a
 * regression above, an improvement below), found by bisection on the
 * log scale, so the band says exactly what the verdict does; NaN when
 * nothing up to 4x (down to a quarter) of med is flagged: a baseline
 * that noisy has no threshold worth drawing.
 */
static double threshold_edge(const double *b, size_t nw, size_t keep, size_t nb, double med,
			     const struct tk_verdict_opts *vo, enum tk_verdict want)
{
	double near = med, far = want == TK_VERDICT_REGRESSION ? med * 4 : med / 4, mid;
	struct tk_verdict_result r;
	struct tk_err err = TK_ERR_INIT;
	int i;

	if (tk_check_judge_kept(b, nw, keep, nb, &far, 1, vo, &r, &err) || r.verdict != want)
		return NAN;
	for (i = 0; i < 40; i++) {
		mid = sqrt(near * far);
		if (!tk_check_judge_kept(b, nw, keep, nb, &mid, 1, vo, &r, &err) &&
		    r.verdict == want)
			far = mid;
		else
			near = mid;
	}
	return far;
}

/*
 * The verdict on the chart's current run (the newest run of the current
 * class with a value) against the successful baseline runs of its series
 * (its machine class's, else the first) that ran before it, as tracker
 * check judges with its default options. Fills the chart's verdict
 * fields in base units (x: run_x, y: the metric's); thr_x1 <= thr_x0
 * when there is no band.
 */
static void judge_current(struct tk_plot_chart *c, const struct tk_plot_key *k, enum tk_metric m,
			  enum tk_plot_x x, int checked)
{
	struct tk_verdict_opts vo = tk_verdict_opts_default();
	struct tk_verdict_result r;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;
	const struct tk_plot_run *cur = NULL;
	double *vals, *newest;
	uint32_t *runs;
	size_t i, n, nb = 0, keep = 0, se = 0, nw;
	double base_median = 0;

	c->delta_pct = NAN;
	c->thr_x0 = c->thr_x1 = 0;
	for (i = k->nr; i-- > 0;)
		if (k->runs[i].cls == TK_PLOT_CURRENT && isfinite(k->runs[i].v[m]) &&
		    isfinite(run_x(&k->runs[i], x))) {
			cur = &k->runs[i];
			break;
		}
	if (!cur || !c->nseries)
		return;
	for (se = 0; se < c->nseries; se++)
		if (cur->machine_class && c->series[se].machine_class &&
		    !strcmp(cur->machine_class, c->series[se].machine_class))
			break;
	if (se == c->nseries)
		se = 0;
	baseline_series(k, m, x, (unsigned)se, &vals, &runs, &n);
	/* before the current run, newest first */
	newest = tk_xmalloc((n ? n : 1) * sizeof(*newest));
	for (i = n; i-- > 0 && nb < TK_CHECK_WINDOW_DEFAULT + JUDGE_OLDER_RUNS;)
		if (runs[i] < (uint32_t)(cur - k->runs))
			newest[nb++] = vals[i];
	nw = nb < TK_CHECK_WINDOW_DEFAULT ? nb : TK_CHECK_WINDOW_DEFAULT;
	c->vx = run_x(cur, x);
	c->vy = cur->v[m];
	c->verdict = TK_VERDICT_INSUFFICIENT;
	if (checked && !tk_check_judge(newest, nw, nb, &cur->v[m], 1, &vo, &r, &keep, &err)) {
		c->verdict = (int)r.verdict;
		if (r.verdict != TK_VERDICT_INSUFFICIENT && r.base_median > 0) {
			size_t oldest = 0, seen = 0;

			c->delta_pct = r.delta_pct;
			base_median = r.base_median;
			c->thr_lo = threshold_edge(newest, nw, keep, nb, r.base_median, &vo,
						   TK_VERDICT_IMPROVEMENT);
			c->thr_hi = threshold_edge(newest, nw, keep, nb, r.base_median, &vo,
						   TK_VERDICT_REGRESSION);
			/* the oldest run judged against: the window (r.n values),
			 * counted back from the newest before the current run */
			for (i = n; i-- > 0 && seen < r.n && isfinite(c->thr_lo) &&
				    isfinite(c->thr_hi);)
				if (runs[i] < (uint32_t)(cur - k->runs)) {
					oldest = i;
					seen++;
				}
			if (seen) {
				c->thr_x0 = run_x(&k->runs[runs[oldest]], x);
				c->thr_x1 = c->vx;
			}
		}
	}
	if (!checked)
		tk_buf_adds(&b, "no verdict: no baseline branch (--baseline-branch)");
	else if (c->verdict == TK_VERDICT_INSUFFICIENT)
		tk_buf_addf(&b, "no verdict: fewer than %zu baseline runs", vo.min_baseline);
	else if (c->thr_x1 > c->thr_x0)
		tk_buf_addf(&b, "%+.1f%% %s (threshold %+.1f%% / %+.1f%%)", c->delta_pct,
			    tk_verdict_name((enum tk_verdict)c->verdict),
			    (c->thr_hi / base_median - 1) * 100, (c->thr_lo / base_median - 1) * 100);
	else
		tk_buf_addf(&b, "%+.1f%% %s", c->delta_pct,
			    tk_verdict_name((enum tk_verdict)c->verdict));
	c->verdict_label = tk_buf_detach(&b, NULL);
	free(newest);
	free(vals);
	free(runs);
}

static int lay_out_chart(struct tk_plot_chart *c, const struct tk_plot_key *k, enum tk_metric m,
			 const struct tk_plot_opts *o, const char *base, const struct key_series *ks,
			 double width, double h, double top, struct tk_err *err)
{
	size_t i, nxt, nyt, alloc = 0;
	double ticks[MAX_TICKS], vmin = INFINITY, vmax = -INFINITY;
	double xmin = INFINITY, xmax = -INFINITY, span, step, median = 0;
	char *labels[MAX_TICKS];
	struct scale s;
	struct tk_buf b = TK_BUF_INIT;
	int ret = 0;

	memset(c, 0, sizeof(*c));
	c->key = k;
	c->metric = m;
	c->top = top;
	tk_buf_addf(&b, "%s — %s", k->key, tk_plot_metric_title(m));
	if (k->pipeline)
		tk_buf_addf(&b, " (pipeline %s)", k->pipeline);
	c->title = tk_buf_detach(&b, NULL);
	c->baseline = tk_xstrdup(base ? base : "");
	c->nseries = ks->n;
	c->series = tk_xcalloc(ks->n, sizeof(*c->series));
	for (i = 0; i < ks->n; i++) {
		c->series[i].machine_class = ks->cls[i];
		if (ks->n == 1) {
			c->series[i].label = tk_xstrdup(c->baseline);
		} else {
			tk_buf_addf(&b, "%s \xc2\xb7 %s", c->baseline, ks->cls[i] ? ks->cls[i] : NO_CLASS);
			c->series[i].label = tk_buf_detach(&b, NULL);
		}
	}
	c->x0 = s.x0 = MARGIN_L;
	c->x1 = s.x1 = width - MARGIN_R;
	c->y0 = s.y0 = top + TITLE_H + LEGEND_H + 8;
	if (ks->n > 1)
		c->y0 = s.y0 += LEGEND_ROW2_H; /* the legend's row of series */
	c->y1 = s.y1 = top + h - AXIS_H;

	for (i = 0; i < k->nr; i++) {
		const struct tk_plot_run *r = &k->runs[i];
		double xv = run_x(r, o->x);

		if (!isfinite(r->v[m]) || !isfinite(xv))
			continue;
		TK_ALLOC_GROW(c->pts, c->npts + 1, alloc);
		c->pts[c->npts].v = r->v[m];
		c->pts[c->npts].px = xv;
		c->pts[c->npts].run = (uint32_t)i;
		c->pts[c->npts].cls = r->cls;
		c->pts[c->npts].series = r->series;
		c->pts[c->npts++].flags = r->flags;
		c->count[r->cls]++;
		if (r->cls == TK_PLOT_BASELINE)
			c->series[r->series].count++;
		c->nfailed += !!(r->flags & TK_PLOT_FAILED);
		c->npartial += !!(r->flags & TK_PLOT_PARTIAL);
		if (r->v[m] < vmin)
			vmin = r->v[m];
		if (r->v[m] > vmax)
			vmax = r->v[m];
		if (xv < xmin)
			xmin = xv;
		if (xv > xmax)
			xmax = xv;
	}

	/* each series' rolling median and spread of the last `window`
	 * successful runs, and its change points */
	for (i = 0; i < c->nseries && !ret; i++)
		ret = lay_out_series(c, k, m, o, (unsigned)i, &vmin, &vmax, err);
	if (ret)
		return ret;
	/* judged only against the baseline tracker check would use: the
	 * busiest branch is the chart's guess, not a verdict's */
	judge_current(c, k, m, o->x, o->baseline_branch || k->baseline);
	if (c->thr_x1 > c->thr_x0) {
		if (c->thr_lo < vmin)
			vmin = c->thr_lo;
		if (c->thr_hi > vmax)
			vmax = c->thr_hi;
	}
	/* Noise must not look like a step: an axis that does not start at
	 * zero spans at least MIN_SPAN_OF_MEDIAN of the values' median. */
	if (c->npts) {
		/* of at most 1024 evenly spaced points: enough for an axis, and
		 * a year of runs is not sorted for it */
		size_t ns = c->npts < 1024 ? c->npts : 1024;
		double *v = tk_xmalloc(ns * sizeof(*v)), med;

		for (i = 0; i < ns; i++)
			v[i] = c->pts[i * c->npts / ns].v;
		med = median_of(v, ns);
		free(v);
		if (med > 0 && vmax - vmin < MIN_SPAN_OF_MEDIAN * med) {
			double mid = (vmax + vmin) / 2;

			vmin = mid - MIN_SPAN_OF_MEDIAN * med / 2;
			vmax = mid + MIN_SPAN_OF_MEDIAN * med / 2;
			if (vmin < 0) {
				vmax -= vmin;
				vmin = 0;
			}
		}
		median = med;
	}

	/* scales */
	if (!c->npts) {
		xmin = xmax = 0;
		vmin = 0;
		vmax = 1;
	}
	span = xmax - xmin;
	if (span <= 0)
		span = o->x == TK_PLOT_X_BUILD ? 2 : 86400;
	s.xlo = xmin - span * 0.02;
	s.xhi = xmax + span * 0.02;
	if (xmax == xmin) {
		s.xlo = xmin - span / 2;
		s.xhi = xmax + span / 2;
	}
	span = vmax - vmin;
	if (span <= 0)
		span = vmax > 0 ? vmax * 0.2 : 1;
	s.ylo = vmin - span * 0.08;
	s.yhi = vmax + span * 0.08;
	if (s.ylo < 0 || s.ylo < s.yhi * 0.15)
		s.ylo = 0;
	c->unit = tk_xstrdup(tk_plot_unit(m, s.yhi, &c->ydiv));
	c->xlo = s.xlo;
	c->xhi = s.xhi;
	c->ylo = s.ylo;
	c->yhi = s.yhi;
	if (s.ylo > 0 && median > 0) {
		tk_buf_reset(&b);
		tk_buf_adds(&b, "axis from ");
		tk_plot_format_value(&b, m, s.ylo);
		tk_buf_addf(&b, ": spans %.0f%% of the median",
			    (s.yhi - s.ylo) / median * 100);
		c->axis_note = tk_buf_detach(&b, NULL);
	}

	/* as many y ticks as fit with room between their labels */
	{
		size_t max = (size_t)((s.y1 - s.y0) / YTICK_MIN_GAP) + 1;

		max = max < 2 ? 2 : max > 8 ? 8 : max;
		nyt = tk_canvas_ticks(s.ylo / c->ydiv, s.yhi / c->ydiv, max, ticks);
		/* a nice step can leave one tick in a short axis: a finer one */
		if (nyt < 2)
			nyt = tk_canvas_ticks(s.ylo / c->ydiv, s.yhi / c->ydiv, max + 2, ticks);
	}
	/* the labels' decimals follow the step (one tick: its own) */
	step = nyt > 1 ? ticks[1] - ticks[0] : nyt && ticks[0] != floor(ticks[0]) ? 0.1 : 1;
	c->yt = tk_xcalloc(nyt ? nyt : 1, sizeof(*c->yt));
	for (i = 0; i < nyt; i++) {
		c->yt[i].pos = sy(&s, ticks[i] * c->ydiv);
		c->yt[i].label = value_label(ticks[i], step, c->unit);
	}
	c->nyt = nyt;
	{
		/* at least three: a label that would touch another is not drawn */
		size_t max = (size_t)((s.x1 - s.x0) / 100) < 3 ? 3 : (size_t)((s.x1 - s.x0) / 100);

		if (o->x == TK_PLOT_X_BUILD) {
			nxt = tk_canvas_ticks(s.xlo, s.xhi, max, ticks);
			for (i = 0; i < nxt; i++) {
				struct tk_buf l = TK_BUF_INIT;

				tk_buf_addf(&l, "#%.0f", ticks[i]);
				labels[i] = tk_buf_detach(&l, NULL);
			}
		} else {
			nxt = tk_plot_date_ticks(s.xlo, s.xhi, max, ticks, labels);
		}
	}
	c->xt = tk_xcalloc(nxt ? nxt : 1, sizeof(*c->xt));
	for (i = 0; i < nxt; i++) {
		c->xt[i].pos = sx(&s, ticks[i]);
		c->xt[i].label = labels[i];
	}
	c->nxt = nxt;

	/* to pixels */
	for (i = 0; i < c->npts; i++) {
		c->pts[i].px = sx(&s, c->pts[i].px);
		c->pts[i].py = sy(&s, c->pts[i].v);
	}
	/* runs come oldest first: on a time axis the points are mostly in
	 * order already */
	for (i = 1; i < c->npts && cmp_point(&c->pts[i - 1], &c->pts[i]) <= 0; i++)
		;
	if (i < c->npts)
		qsort(c->pts, c->npts, sizeof(*c->pts), cmp_point);
	for (i = 0; i < c->nband; i++) {
		c->band[i].px = sx(&s, c->band[i].px);
		c->band[i].mid = sy(&s, c->band[i].mid);
		c->band[i].lo = sy(&s, c->band[i].lo);
		c->band[i].hi = sy(&s, c->band[i].hi);
	}
	for (i = 0; i < c->nchanges; i++)
		c->changes[i].px = sx(&s, c->changes[i].px);
	if (c->verdict_label) {
		c->vx = sx(&s, c->vx);
		c->vy = sy(&s, c->vy);
	}
	if (c->thr_x1 > c->thr_x0) {
		c->thr_x0 = sx(&s, c->thr_x0);
		c->thr_x1 = sx(&s, c->thr_x1);
		c->thr_lo = sy(&s, c->thr_lo);
		c->thr_hi = sy(&s, c->thr_hi);
	}
	c->nall = c->npts;
	if (o->max_points && c->npts > o->max_points)
		thin_chart(c);
	place_labels(c);
	if (c->verdict_label)
		place_verdict(c);
	return 0;
}

static void chart_release(struct tk_plot_chart *c);

/* The line naming the charts left out: "no values: heap peak for amip,
 * ocean; alloc for amip". */
static char *omitted_line(struct tk_buf *per_metric, const enum tk_metric *metrics, size_t nm)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t j;

	for (j = 0; j < nm; j++) {
		if (!per_metric[j].len)
			continue;
		tk_buf_adds(&b, b.len ? "; " : "no values: ");
		tk_buf_addf(&b, "%s for %s", tk_plot_metric_title(metrics[j]), per_metric[j].buf);
	}
	return b.len ? tk_buf_detach(&b, NULL) : (tk_buf_release(&b), NULL);
}

int tk_plot_layout(struct tk_plot_data *d, const struct tk_plot_opts *o,
		   struct tk_plot_layout *out, struct tk_err *err)
{
	struct tk_buf empty[TK_PLOT_MAX_METRICS];
	static const enum tk_metric defaults[] = { TK_METRIC_WALLTIME, TK_METRIC_MAXRSS };
	const enum tk_metric *metrics = o->nr_metrics ? o->metrics : defaults;
	size_t nm = o->nr_metrics ? o->nr_metrics : 2, i, j, runs = 0, nfallback = 0;
	struct key_series ks;
	double width = o->width > 0 ? o->width : 1000;
	double h = o->chart_height > 0 ? o->chart_height : 340;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < d->nr; i++)
		runs += d->keys[i].nr;
	if (!runs)
		return tk_err_set(err, TK_EDATA, "no runs to plot");
	if (width < 300)
		width = 300;
	if (h < 160)
		h = 160;
	out->width = width;
	out->x = o->x;
	out->data = d;
	out->charts = tk_xcalloc(d->nr * nm, sizeof(*out->charts));
	for (j = 0; j < nm; j++)
		tk_buf_init(&empty[j], 0);
	for (i = 0; i < d->nr; i++) {
		struct tk_plot_key *k = &d->keys[i];
		const char *base = o->baseline_branch ? o->baseline_branch
				   : k->baseline ? k->baseline : busiest_branch(k);

		nfallback += classify(k, o, base);
		if (o->x == TK_PLOT_X_BUILD)
			for (j = 0; j < k->nr; j++)
				out->skipped += !isfinite(k->runs[j].build);
		find_series(k, &ks);
		for (j = 0; j < nm; j++) {
			if (k->metric_mask && !(k->metric_mask & 1u << metrics[j]))
				continue;
			ret = lay_out_chart(&out->charts[out->nr], k, metrics[j], o, base, &ks, width, h,
					    out->nr * h, err);
			if (!ret && !out->charts[out->nr].npts) {
				/* an empty frame with an epoch date axis says nothing:
				 * one line names what has no values */
				chart_release(&out->charts[out->nr]);
				tk_buf_adds(&empty[j], empty[j].len ? ", " : "");
				tk_buf_adds(&empty[j], k->key);
				continue;
			}
			out->nr++;
			if (!ret && out->charts[out->nr - 1].npts < out->charts[out->nr - 1].nall)
				out->thinned = 1;
			if (!ret)
				out->drawn += out->charts[out->nr - 1].nall;
			if (ret) {
				key_series_release(&ks);
				tk_plot_layout_release(out);
				for (j = 0; j < nm; j++)
					tk_buf_release(&empty[j]);
				return ret;
			}
		}
		key_series_release(&ks);
	}
	out->omitted = omitted_line(empty, metrics, nm);
	for (j = 0; j < nm; j++)
		tk_buf_release(&empty[j]);
	out->height = out->nr * h + (out->omitted ? TK_PLOT_NOTE_H : 0);
	{
		int64_t newest = 0;
		struct tk_buf b = TK_BUF_INIT;

		for (i = 0; i < d->nr; i++)
			if (d->keys[i].nr && d->keys[i].runs[d->keys[i].nr - 1].started_at_us > newest)
				newest = d->keys[i].runs[d->keys[i].nr - 1].started_at_us;
		tk_format_iso(&b, newest);
		out->date = tk_buf_detach(&b, NULL);
	}
	if (o->current_build && nfallback < d->nr) {
		struct tk_buf b = TK_BUF_INIT;

		tk_buf_addf(&b, "build #%s", o->current_build);
		if (nfallback)
			tk_buf_adds(&b, ", else newest run");
		out->current = tk_buf_detach(&b, NULL);
	} else {
		out->current = tk_xstrdup("newest run");
	}
	return 0;
}

static void chart_release(struct tk_plot_chart *c)
{
	size_t j;

	free(c->title);
	free(c->unit);
	free(c->baseline);
	for (j = 0; j < c->nxt; j++)
		free(c->xt[j].label);
	for (j = 0; j < c->nyt; j++)
		free(c->yt[j].label);
	for (j = 0; j < c->nchanges; j++)
		free(c->changes[j].label);
	free(c->xt);
	free(c->yt);
	free(c->pts);
	free(c->band);
	free(c->changes);
	for (j = 0; j < c->nseries; j++)
		free(c->series[j].label);
	free(c->series);
	free(c->verdict_label);
	free(c->axis_note);
	memset(c, 0, sizeof(*c));
}

void tk_plot_layout_release(struct tk_plot_layout *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		chart_release(&l->charts[i]);
	free(l->charts);
	free(l->current);
	free(l->date);
	free(l->omitted);
	memset(l, 0, sizeof(*l));
}
