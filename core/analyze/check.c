/*
 * The check of one key (contract in core/analyze/check.h): two reads of
 * the key's summaries (the current runs, then the baseline branch newest
 * first, which gives the window and the history series in one pass), from
 * the key's history in memory when the caller has it, else from the
 * store; then core/analyze/verdict.h per metric and
 * core/analyze/changepoint.h per series.
 */
#include "core/analyze/check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyze/baseline.h"
#include "core/analyze/diffsum.h"
#include "core/model/profile.h"
#include "core/store/keyhist.h"
#include "core/store/profstore.h"
#include "core/base/buf.h"
#include "core/base/escape.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

#define HISTORY_DEFAULT 1000
#define CURRENT_SCAN_MAX 10000 /* rows looked at to find this build's runs */
/* runs before the window that tell whether a value is in a mode of the key
 * (tk_verdict_judge_history): the window and these make 30 by default */
#define OLDER_RUNS 20
/*
 * The fewest runs of a level a window may start at (tk_check_recent), and
 * how far beyond the runs before them, in their robust sigmas, the newest
 * runs must all be to be a level of their own when they are too few for
 * a change point (tk_changepoint_newest_level).
 */
#define RECENT_MIN_SEGMENT 3
#define RECENT_SIGMAS 4
/* ... and the fewest runs before it that tell the level it left: a
 * history of 6 runs is too short to say one has moved */
#define RECENT_MIN_BEFORE 5
/* the baseline runs of a check's diffs */
#define DIFF_BASELINES 5

void tk_check_opts_init(struct tk_check_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->vopts = tk_verdict_opts_default();
	o->frames = TK_CHECK_FRAMES_UNSET;
}

static char *dup_or_null(const char *s)
{
	return s ? tk_xstrdup(s) : NULL;
}

static void run_set(struct tk_check_run *r, const struct tk_run_summary *s)
{
	memset(r, 0, sizeof(*r));
	if (s->run_id)
		memcpy(r->id, s->run_id, strnlen(s->run_id, TK_RUN_ID_LEN));
	r->branch = dup_or_null(s->branch);
	r->build = dup_or_null(s->build_number);
	r->commit = dup_or_null(s->commit);
	r->machine_class = dup_or_null(s->machine_class);
	r->pipeline = dup_or_null(s->pipeline);
	r->started_at_us = s->started_at_us;
	r->status = s->status;
	r->exit_code = s->exit_code;
	r->term_signal = s->term_signal;
}

static void run_copy(struct tk_check_run *dst, const struct tk_check_run *src)
{
	*dst = *src;
	dst->branch = dup_or_null(src->branch);
	dst->build = dup_or_null(src->build);
	dst->commit = dup_or_null(src->commit);
	dst->machine_class = dup_or_null(src->machine_class);
	dst->pipeline = dup_or_null(src->pipeline);
}

static void run_release(struct tk_check_run *r)
{
	free(r->branch);
	free(r->build);
	free(r->commit);
	free(r->machine_class);
	free(r->pipeline);
	memset(r, 0, sizeof(*r));
}

/* A run with its figures, kept while the check reads the store. */
struct point {
	struct tk_check_run run;
	int ok; /* succeeded, complete */
	int running; /* status started: the job had not ended when read */
	int maxrss_bound; /* its maxrss is only an upper bound: not judged */
	double value[TK_METRIC_COUNT]; /* -1: none */
};

struct points {
	struct point *items;
	size_t nr, alloc;
};

static void points_add(struct points *p, const struct tk_run_summary *s)
{
	struct point *pt;
	int m;

	TK_ALLOC_GROW(p->items, p->nr + 1, p->alloc);
	pt = &p->items[p->nr++];
	run_set(&pt->run, s);
	pt->ok = s->status == TK_RUN_OK && !s->partial;
	pt->running = s->status == TK_RUN_STARTED;
	for (m = 0; m < TK_METRIC_COUNT; m++)
		if (tk_metric_value(s, (enum tk_metric)m, &pt->value[m]))
			pt->value[m] = -1;
	/* a job that ended before the sampler saw it may report tracker's
	 * own RSS, inherited at fork (docs/measurements.md): a bound, not a
	 * measurement, which would pass for a change in either direction */
	pt->maxrss_bound = s->maxrss_source && !strcmp(s->maxrss_source, "upper-bound");
	if (pt->maxrss_bound)
		pt->value[TK_METRIC_MAXRSS] = -1;
}

static void points_release(struct points *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		run_release(&p->items[i].run);
	free(p->items);
	memset(p, 0, sizeof(*p));
}

/* ---- the current runs ---- */

struct find_current {
	const char *build;
	const char *pipeline; /* this build's pipeline; NULL: any */
	struct points *pts;
	size_t seen;
};

/* A machine class or pipeline unknown on either side matches. */
static int same_or_unknown(const char *want, const char *have)
{
	return !want || !have || !strcmp(want, have);
}

static int take_current(const struct tk_run_summary *s, void *data)
{
	struct find_current *fc = data;

	fc->seen++;
	if (!same_or_unknown(fc->pipeline, s->pipeline))
		return 0;
	if (!fc->build) {
		points_add(fc->pts, s);
		return 1;
	}
	if (s->build_number && !strcmp(s->build_number, fc->build)) {
		points_add(fc->pts, s);
		return 0;
	}
	/* this build's runs are together near the top: stop after them */
	if (fc->pts->nr || fc->seen >= CURRENT_SCAN_MAX)
		return 1;
	return 0;
}

/*
 * Keeps the runs of machine class cls (or of no known class) in p: a
 * matrix build runs one key on several kinds of machine, and each kind
 * has its own baseline. With out, the classes set aside are listed in
 * out->other_classes, once each.
 */
static void keep_class(struct points *p, const char *cls, struct tk_check_result *out)
{
	size_t i, k, kept = 0, alloc = 0;

	for (i = 0; i < p->nr; i++) {
		const char *have = p->items[i].run.machine_class;

		if (same_or_unknown(cls, have)) {
			p->items[kept++] = p->items[i];
			continue;
		}
		for (k = 0; out && k < out->nr_other_classes; k++)
			if (!strcmp(out->other_classes[k], have))
				break;
		if (out && k == out->nr_other_classes) {
			TK_ALLOC_GROW(out->other_classes, out->nr_other_classes + 1, alloc);
			out->other_classes[out->nr_other_classes++] = tk_xstrdup(have);
		}
		run_release(&p->items[i].run);
	}
	p->nr = kept;
}

/* ---- the baseline branch ---- */

struct find_base {
	const struct tk_check_result *res;
	const char *pipeline; /* the current run's; NULL: any */
	const char *current_branch;
	int64_t before_us; /* same branch: only runs that started before; 0: any */
	size_t window, limit;
	struct points *window_pts, *series; /* series newest first here */
	struct points *older; /* up to OLDER_RUNS runs before the window */
	size_t other_class; /* successful runs of other machine classes */
};

static int is_current(const struct tk_check_result *res, const char *id)
{
	size_t i;

	for (i = 0; i < res->nr_current; i++)
		if (!strcmp(res->current[i].id, id))
			return 1;
	return 0;
}

/* Whether s may be a baseline run of res (successful, complete, of its
 * pipeline and machine class, not current, started before before_us
 * when that is set); *other_class counts those of another class. */
static int accepts_base(const struct tk_check_result *res, const char *pipeline,
			int64_t before_us, const struct tk_run_summary *s, size_t *other_class)
{
	if (s->status != TK_RUN_OK || s->partial || !s->run_id)
		return 0;
	if (!same_or_unknown(pipeline, s->pipeline))
		return 0;
	if (!same_or_unknown(res->machine_class, s->machine_class)) {
		(*other_class)++;
		return 0;
	}
	if (is_current(res, s->run_id))
		return 0;
	return !before_us || s->started_at_us < before_us;
}

static int take_base(const struct tk_run_summary *s, void *data)
{
	struct find_base *fb = data;

	if (!accepts_base(fb->res, fb->pipeline, fb->before_us, s, &fb->other_class))
		return 0;
	if (fb->window_pts->nr < fb->window)
		points_add(fb->window_pts, s);
	else if (fb->older->nr < OLDER_RUNS)
		points_add(fb->older, s);
	if (fb->series && fb->series->nr < fb->limit)
		points_add(fb->series, s);
	if (fb->older->nr >= OLDER_RUNS && (!fb->series || fb->series->nr >= fb->limit))
		return 1;
	return 0;
}

static void reset_current(void *data)
{
	struct find_current *fc = data;

	points_release(fc->pts);
	fc->seen = 0;
}

static void reset_base(void *data)
{
	struct find_base *fb = data;

	points_release(fb->window_pts);
	points_release(fb->older);
	if (fb->series)
		points_release(fb->series);
	fb->other_class = 0;
}

/*
 * One of the check's reads: from the key's history when the caller has
 * one that holds what q selects, else from the store (reset empties what
 * fn kept of a replay that could not finish).
 */
static int read_runs(struct tk_store *s, const struct tk_check_opts *o,
		     const struct tk_run_query *q, tk_summary_fn fn, void *data,
		     void (*reset)(void *), struct tk_err *err)
{
	int complete = 0, ret;

	if (o->history_runs) {
		ret = tk_key_history_query(o->history_runs, q, fn, data, &complete, err);
		if (ret || complete)
			return ret;
		reset(data);
	}
	return tk_store_query_summaries(s, q, fn, data, err);
}

/* ---- profiles' totals, which summaries do not carry ---- */

/*
 * Each run of p's total of profile metric m (core/model/metric.h): from
 * the key's history when it read them for every run (alloc), else the
 * store's; a run whose profile is in another unit than `unit` (a cpu
 * profile in samples beside ones in nanoseconds) has none. *unit is the
 * first unit found when it comes in as -1.
 */
static int fill_totals(struct tk_store *s, const struct tk_key_history *h, struct points *p,
		       enum tk_metric m, int *unit, struct tk_err *err)
{
	const char *kind = tk_metric_profile_kind(m);
	const char **ids, **units;
	double *tot;
	size_t i, at;
	int ret = 0;

	if (!p->nr || !kind)
		return 0;
	for (i = 0; m == TK_METRIC_ALLOC && h && h->alloc && i < p->nr; i++) {
		at = tk_key_history_find(h, p->items[i].run.id);
		if (at == (size_t)-1)
			break;
		p->items[i].value[m] = tk_key_history_alloc(h, at);
	}
	if (m == TK_METRIC_ALLOC && h && h->alloc && i == p->nr) {
		if (*unit < 0)
			*unit = TK_METRIC_BYTES;
		return 0;
	}
	ids = tk_xcalloc(p->nr, sizeof(*ids));
	units = tk_xcalloc(p->nr, sizeof(*units));
	tot = tk_xcalloc(p->nr, sizeof(*tot));
	for (i = 0; i < p->nr; i++)
		ids[i] = p->items[i].run.id;
	ret = tk_profstore_totals(s, ids, p->nr, kind, tot, units, err);
	for (i = 0; !ret && i < p->nr; i++) {
		enum tk_metric_unit u;
		double v = tk_metric_profile_value(m, tot[i], units[i], &u);

		if (v >= 0 && *unit < 0)
			*unit = (int)u;
		p->items[i].value[m] = v >= 0 && (int)u == *unit ? v : -1;
	}
	free(ids);
	free(units);
	free(tot);
	return ret;
}

/* ---- which metrics ---- */

/* The order metrics are shown in: the run's own figures, then profiles'. */
static const enum tk_metric metric_order[] = {
	TK_METRIC_WALLTIME, TK_METRIC_MAXRSS, TK_METRIC_CPU, TK_METRIC_TREE_RSS,
	TK_METRIC_SLURM_MAXRSS, TK_METRIC_ALLOC, TK_METRIC_ALLOC_COUNT, TK_METRIC_HEAP_PEAK,
	TK_METRIC_CPU_PROFILE,
};

#define BIT(m) (1u << (m))
#define PROFILE_METRICS (BIT(TK_METRIC_ALLOC) | BIT(TK_METRIC_ALLOC_COUNT) | \
			 BIT(TK_METRIC_HEAP_PEAK) | BIT(TK_METRIC_CPU_PROFILE))

/*
 * The metrics a check of key judges (see the top of check.h), in
 * metric_order; have: the profile metrics the current runs have.
 */
static size_t choose_metrics(const struct tk_check_opts *o, const struct tk_config *cfg,
			     unsigned have, enum tk_metric *out)
{
	const struct tk_check_keyset *ks = tk_config_check_set(cfg, o->key);
	const struct tk_check_keyset *all = tk_config_check_set(cfg, NULL);
	unsigned mask;
	size_t i, n = 0;

	if (o->metrics) {
		for (i = 0; i < o->nr_metrics && i < TK_METRIC_COUNT; i++)
			out[n++] = o->metrics[i];
		return n;
	}
	if (ks && ks->metrics)
		mask = ks->metrics;
	else if (all && all->metrics)
		mask = all->metrics;
	else
		mask = BIT(TK_METRIC_WALLTIME) | BIT(TK_METRIC_MAXRSS) | BIT(TK_METRIC_CPU) |
		       (have & PROFILE_METRICS);
	/* a rule names a metric to judge it */
	for (i = 0; cfg && i < cfg->check.nr_rules; i++)
		if (!cfg->check.rules[i].key || !strcmp(cfg->check.rules[i].key, o->key))
			mask |= BIT(cfg->check.rules[i].metric);
	for (i = 0; i < sizeof(metric_order) / sizeof(metric_order[0]); i++)
		if (mask & BIT(metric_order[i]))
			out[n++] = metric_order[i];
	return n;
}

/* The profile metrics the runs of p that succeeded have (a bit each). */
/* Whether run id has a stored profile of kind (q->found); a store
 * without stored totals loads it. */
static int has_profile(struct tk_store *s, const char *id, const char *kind,
		       struct tk_store_profile_total *q, struct tk_err *err)
{
	double total;
	int ret;

	memset(q, 0, sizeof(*q));
	q->run_id = id;
	q->kind = kind;
	ret = s->ops->ctrl ? s->ops->ctrl(s, TK_STORE_CTRL_PROFILE_TOTAL, q, err) : TK_EUSAGE;
	if (ret != TK_EUSAGE)
		return ret;
	tk_err_clear(err);
	ret = tk_profstore_totals(s, &id, 1, kind, &total, NULL, err);
	q->found = !ret && total >= 0;
	return ret;
}

static int have_profiles(struct tk_store *s, const struct points *p, unsigned *have,
			 struct tk_err *err)
{
	struct tk_store_profile_total q;
	size_t i, k;
	int ret;

	*have = 0;
	for (k = 0; k < sizeof(metric_order) / sizeof(metric_order[0]); k++) {
		enum tk_metric m = metric_order[k];

		for (i = 0; tk_metric_profile_kind(m) && i < p->nr && !(*have & BIT(m)); i++) {
			if (!p->items[i].ok)
				continue;
			ret = has_profile(s, p->items[i].run.id, tk_metric_profile_kind(m), &q, err);
			if (ret)
				return ret;
			if (q.found)
				*have |= BIT(m);
		}
	}
	return 0;
}

/* ---- per metric ---- */

static const struct tk_check_rule *find_rule(const struct tk_config *cfg, const char *key,
					     enum tk_metric m)
{
	size_t i;
	const struct tk_check_rule *any = NULL;

	if (!cfg)
		return NULL;
	for (i = 0; i < cfg->check.nr_rules; i++) {
		const struct tk_check_rule *r = &cfg->check.rules[i];

		if (r->metric != (int)m)
			continue;
		if (r->key && !strcmp(r->key, key))
			return r;
		if (!r->key && !any)
			any = r;
	}
	return any;
}

static struct tk_verdict_opts metric_opts(const struct tk_check_opts *o,
					  const struct tk_config *cfg, enum tk_metric m)
{
	struct tk_verdict_opts v = tk_verdict_opts_default();
	const struct tk_check_rule *rule;

	if (cfg && cfg->check.method_set)
		v.method = (enum tk_verdict_method)cfg->check.method;
	if (cfg && cfg->check.threshold > 0)
		v.threshold = cfg->check.threshold;
	rule = find_rule(cfg, o->key, m);
	if (rule) {
		if (rule->method_set)
			v.method = (enum tk_verdict_method)rule->method;
		if (rule->threshold > 0)
			v.threshold = rule->threshold;
		if (rule->min_effect > 0)
			v.min_effect = rule->min_effect;
	}
	if (o->method_set)
		v = o->vopts;
	/* for the tests, a threshold is their level (as --threshold) */
	if ((v.method == TK_VERDICT_INTERVAL || v.method == TK_VERDICT_MANNWHITNEY) &&
	    v.threshold > 0) {
		if (v.threshold < 0.5)
			v.alpha = v.threshold;
		v.threshold = 0;
	}
	return v;
}

/* Why no current run is judged when none succeeded: one still running
 * has not ended yet; NULL when one succeeded. */
static const char *current_note(const struct points *cur)
{
	size_t i;
	int running = 0;

	for (i = 0; i < cur->nr; i++) {
		if (cur->items[i].ok)
			return NULL;
		running |= cur->items[i].running;
	}
	return running ? "the current run is still running (status started)"
		       : "the current run did not succeed";
}

size_t tk_check_recent(const double *newest_first, size_t n)
{
	struct tk_changepoint_opts co = tk_changepoint_opts_default();
	struct tk_changepoint *cps = NULL;
	double *x;
	size_t i, ncp = 0, keep = n, level;

	if (n < RECENT_MIN_SEGMENT + RECENT_MIN_BEFORE)
		return n;
	x = tk_xcalloc(n, sizeof(*x));
	for (i = 0; i < n; i++)
		x[i] = newest_first[n - 1 - i];
	co.min_segment = RECENT_MIN_SEGMENT;
	if (!tk_changepoints(x, n, &co, &cps, &ncp, NULL) && ncp &&
	    cps[ncp - 1].index >= RECENT_MIN_BEFORE)
		keep = n - cps[ncp - 1].index;
	/* a level of the last few runs, too short to pay for a split */
	level = tk_changepoint_newest_level(x, n, RECENT_MIN_SEGMENT, RECENT_SIGMAS,
					    co.min_effect);
	if (level && level < keep)
		keep = level;
	free(cps);
	free(x);
	return keep;
}

int tk_check_judge_kept(const double *b, size_t nw, size_t k, size_t nb, const double *c,
			size_t nc, const struct tk_verdict_opts *o, struct tk_verdict_result *r,
			struct tk_err *err)
{
	struct tk_verdict_opts ko = *o;

	if (nw > k)
		nw = k;
	/* a level a few builds old: judged on those few, whose wide
	 * interval (t at k - 1 degrees of freedom) says what they can */
	if (k < nb && ko.min_baseline > k)
		ko.min_baseline = k;
	return tk_verdict_judge_history(b, nw, b + nw, k - nw, c, nc, &ko, r, err);
}

int tk_check_judge(const double *b, size_t nw, size_t nb, const double *c, size_t nc,
		   const struct tk_verdict_opts *o, struct tk_verdict_result *r, size_t *keep,
		   struct tk_err *err)
{
	size_t k = tk_check_recent(b, nb);

	if (keep)
		*keep = k;
	return tk_check_judge_kept(b, nw, k, nb, c, nc, o, r, err);
}

static int judge_metric(const struct points *cur, const struct points *base,
			const struct points *older, struct tk_check_metric *cm, struct tk_err *err)
{
	size_t all = base->nr + older->nr;
	double *b = tk_xcalloc(all + 1, sizeof(double));
	double *c = tk_xcalloc(cur->nr + 1, sizeof(double));
	size_t *at = tk_xcalloc(all + 1, sizeof(size_t));
	size_t nb = 0, nw = 0, nc = 0, keep = 0, i;
	int ret;

	/* the baseline's values, newest first: the window's, then older */
	for (i = 0; i < all; i++) {
		const struct point *p = i < base->nr ? &base->items[i] : &older->items[i - base->nr];

		if (p->value[cm->metric] < 0)
			continue;
		nw += i < base->nr;
		at[nb] = i;
		b[nb++] = p->value[cm->metric];
	}
	for (i = 0; i < cur->nr; i++)
		if (cur->items[i].ok && cur->items[i].value[cm->metric] >= 0)
			c[nc++] = cur->items[i].value[cm->metric];
	ret = tk_check_judge(b, nw, nb, c, nc, &cm->vopts, &cm->result, &keep, err);
	/* a level the key moved to: the baseline starts there */
	if (!ret && keep < nb) {
		size_t i0 = at[keep - 1];
		const struct point *p = i0 < base->nr ? &base->items[i0]
				       : &older->items[i0 - base->nr];

		cm->since = tk_xcalloc(1, sizeof(*cm->since));
		run_copy(cm->since, &p->run);
	}
	for (i = 0; i < cur->nr && !cur->items[i].ok; i++)
		;
	cm->nr_values = nc;
	if (!ret && !nc && cur->nr)
		cm->note = i == cur->nr ? current_note(cur)
			   : cm->metric == TK_METRIC_MAXRSS && cur->items[i].maxrss_bound
			   ? "the current run's maxrss is only an upper bound (it ended "
			     "before tracker sampled it)"
			   : "the current run has no such figure";
	free(b);
	free(c);
	free(at);
	return ret;
}

/* The functions that moved across change i of cps (indexes into x, whose
 * runs are series' at[]): the runs nearest it on each side, within the
 * segments either side. */
static int change_hints(struct tk_store *s, const char *key, const struct points *series,
			const size_t *at, size_t n, const struct tk_changepoint *cps, size_t ncp,
			size_t i, struct tk_check_change *ch, struct tk_err *err)
{
	const char *before[TK_CHECK_HINT_RUNS], *after[TK_CHECK_HINT_RUNS];
	size_t idx = cps[i].index, lo = i ? cps[i - 1].index : 0;
	size_t hi = i + 1 < ncp ? cps[i + 1].index : n, nb = 0, na = 0, j;
	int ret;

	for (j = idx; j > lo && nb < TK_CHECK_HINT_RUNS; j--)
		before[nb++] = series->items[at[j - 1]].run.id;
	for (j = idx; j < hi && na < TK_CHECK_HINT_RUNS; j++)
		after[na++] = series->items[at[j]].run.id;
	ret = tk_frametot_movers(s, key, ch->frames_kind, before, nb, after, na,
				 TK_CHECK_FRAMES_MAX, &ch->frames, &ch->nr_frames,
				 &ch->frames_compared, err);
	/* a store that keeps no frame totals has no hints to give */
	if (ret == TK_EUSAGE) {
		tk_err_clear(err);
		ret = 0;
	}
	return ret;
}

/* series: newest first, as read; s NULL: no functions at the change
 * points (the key has no frame totals) */
static int metric_history(struct tk_store *s, const char *key, const struct points *series,
			  struct tk_check_metric *cm, struct tk_err *err)
{
	double *x = tk_xcalloc(series->nr + 1, sizeof(double));
	size_t *at = tk_xcalloc(series->nr + 1, sizeof(size_t));
	struct tk_changepoint *cps = NULL;
	size_t n = 0, ncp = 0, i;
	int ret;

	/* oldest first, only the runs with the figure */
	for (i = series->nr; i-- > 0;)
		if (series->items[i].value[cm->metric] >= 0) {
			x[n] = series->items[i].value[cm->metric];
			at[n++] = i;
		}
	cm->series_n = n;
	ret = tk_changepoints(x, n, NULL, &cps, &ncp, err);
	if (!ret && ncp) {
		cm->changes = tk_xcalloc(ncp, sizeof(*cm->changes));
		for (i = 0; i < ncp; i++) {
			struct tk_check_change *ch = &cm->changes[i];

			ch->cp = cps[i];
			run_copy(&ch->first, &series->items[at[cps[i].index]].run);
			run_copy(&ch->last_before, &series->items[at[cps[i].index - 1]].run);
			ch->frames_kind = tk_frametot_kind_for(cm->metric);
		}
		cm->nr_changes = ncp;
		for (i = 0; s && !ret && i < ncp; i++)
			ret = change_hints(s, key, series, at, n, cps, ncp, i, &cm->changes[i], err);
	}
	free(cps);
	free(x);
	free(at);
	return ret;
}

/* ---- the whole check ---- */


/* ---- the functions that moved ---- */

int tk_check_frames_policy(const struct tk_check_opts *o, const struct tk_config *cfg)
{
	const struct tk_check_keyset *ks = tk_config_check_set(cfg, o->key);
	const struct tk_check_keyset *all = tk_config_check_set(cfg, NULL);

	if (o->frames != TK_CHECK_FRAMES_UNSET)
		return o->frames;
	if (ks && ks->frames != TK_CHECK_FRAMES_UNSET)
		return ks->frames;
	if (all && all->frames != TK_CHECK_FRAMES_UNSET)
		return all->frames;
	return TK_CHECK_FRAMES_REPORT;
}

static void ref_of(struct tk_run_ref *ref, const char *key, const struct point *p)
{
	memset(ref, 0, sizeof(*ref));
	memcpy(ref->id, p->run.id, sizeof(ref->id));
	ref->key = dup_or_null(key);
	ref->branch = dup_or_null(p->run.branch);
	ref->build = dup_or_null(p->run.build);
	ref->commit = p->run.commit ? tk_xstrndup(p->run.commit, 10) : NULL;
	ref->walltime_s = p->value[TK_METRIC_WALLTIME];
	ref->started_at_us = p->run.started_at_us;
}

/* Whether node a is node n or above it. */
static int is_ancestor(const struct tk_profile *t, uint32_t a, uint32_t n)
{
	while (n != TK_PROFILE_ROOT && n != a)
		n = t->nodes[n].parent;
	return n == a;
}

/* The frames of d that moved beyond the noise, largest change first: the
 * self changes, then the totals that the frames listed below them do not
 * explain (an ancestor's total carries its children's changes), each
 * replacing a listed total above it that it explains. */
static void take_frames(const struct tk_stored_diff *d, struct tk_check_kind *k)
{
	struct tk_diff_opts dopts;
	struct tk_diff_summary sum;
	const struct tk_profile *t = &d->diff.tree;
	size_t mode, i, j;

	tk_diff_opts_init(&dopts);
	tk_diff_summarize(&d->diff, &dopts, TK_CHECK_FRAMES_MAX * 4, &sum);
	k->frames = tk_xcalloc(TK_CHECK_FRAMES_MAX, sizeof(*k->frames));
	for (mode = 0; mode < 2; mode++) {
		const struct tk_diff_list *lists[2] = { &sum.up[mode], &sum.down[mode] };
		size_t li[2] = { 0, 0 };

		/* up and down merged by the size of their change */
		while (k->nr_frames < TK_CHECK_FRAMES_MAX) {
			const struct tk_diff_change *ch = NULL, *c2;
			size_t which = 0, w;
			double explained;
			struct tk_buf path = TK_BUF_INIT;
			struct tk_check_frame *f;

			for (w = 0; w < 2; w++) {
				if (li[w] >= lists[w]->nr)
					continue;
				c2 = &lists[w]->rows[li[w]];
				if (!ch || fabs(c2->now - c2->base) > fabs(ch->now - ch->base)) {
					ch = c2;
					which = w;
				}
			}
			if (!ch)
				break;
			li[which]++;
			if (ch->node == TK_PROFILE_ROOT)
				continue;
			/* a total that the listed frames below it explain (most
			 * of its change, the same way) */
			explained = 0;
			for (j = 0; mode && j < k->nr_frames; j++)
				if (k->frames[j].up == (which == 0) &&
				    is_ancestor(t, ch->node, k->frames[j].node))
					explained += fabs(k->frames[j].now - k->frames[j].base);
			if (mode && explained >= 0.8 * fabs(ch->now - ch->base))
				continue;
			/* a listed total above it that it explains (most of its
			 * change, the same way): the deeper frame says where */
			for (j = 0; mode && j < k->nr_frames; j++) {
				struct tk_check_frame *a = &k->frames[j];

				if (!a->cumulative || a->up != (which == 0) ||
				    !is_ancestor(t, a->node, ch->node) ||
				    fabs(ch->now - ch->base) < 0.8 * fabs(a->now - a->base))
					continue;
				free(a->path);
				memmove(a, a + 1, (k->nr_frames - j - 1) * sizeof(*a));
				k->nr_frames--;
				j--;
			}
			for (i = 0; i < k->nr_frames && k->frames[i].node != ch->node; i++)
				;
			if (i < k->nr_frames)
				continue;
			f = &k->frames[k->nr_frames++];
			f->node = ch->node;
			tk_diff_add_path(&path, t, ch->node, 2);
			f->path = tk_buf_detach(&path, NULL);
			f->cumulative = (int)mode;
			f->up = which == 0;
			f->is_new = ch->cls == TK_DIFF_NEW;
			f->base = ch->base;
			f->now = ch->now;
			k->frames_up |= f->up;
		}
	}
	tk_diff_summary_release(&sum);
}

/*
 * A diff that cannot be made is said, not the check's end: a stored
 * profile that cannot be read (TK_EDATA) skips its kind, noted in
 * out->frames_error (the first), and the check goes on. An unavailable
 * store is the check's error.
 */
static int skip_kind(struct tk_check_result *out, const char *kind, int ret,
		     struct tk_err *err)
{
	struct tk_buf b = TK_BUF_INIT;

	if (!ret || ret == TK_EUNAVAIL)
		return ret;
	if (!out->frames_error) {
		tk_buf_addf(&b, "no %s diff: %s", kind, err->msg);
		out->frames_error = tk_buf_detach(&b, NULL);
	}
	tk_err_clear(err);
	return 0;
}

/*
 * The check's diffs: for each kind of profile the newest current run that
 * succeeded has, against up to DIFF_BASELINES baseline runs with one (the
 * window, then older runs), the functions that moved.
 */
static int check_frames(struct tk_store *s, const struct tk_check_opts *o,
			const struct points *cur, const struct points *win,
			const struct points *older, struct tk_check_result *out,
			struct tk_err *err)
{
	static const char *const kinds[] = { "cpu", "alloc", "alloc_count", "heap_peak" };
	struct tk_store_profile_total q;
	size_t ki, i;
	int ret = 0;

	for (ki = 0; !ret && ki < sizeof(kinds) / sizeof(kinds[0]); ki++) {
		struct tk_baseline runs;
		struct tk_stored_diff sd;
		struct tk_diff_opts dopts;
		const struct point *nw = NULL;
		struct tk_check_kind *k;
		struct tk_buf headline = TK_BUF_INIT;

		memset(&runs, 0, sizeof(runs));
		for (i = 0; !ret && !nw && i < cur->nr; i++) {
			if (!cur->items[i].ok)
				continue;
			ret = has_profile(s, cur->items[i].run.id, kinds[ki], &q, err);
			if (!ret && q.found)
				nw = &cur->items[i];
		}
		for (i = 0; !ret && nw && i < win->nr + older->nr &&
			    runs.nr_base < DIFF_BASELINES; i++) {
			const struct point *p = i < win->nr ? &win->items[i]
					       : &older->items[i - win->nr];

			ret = has_profile(s, p->run.id, kinds[ki], &q, err);
			if (!ret && q.found)
				ref_of(&runs.base[runs.nr_base++], o->key, p);
		}
		if (ret || !nw || !runs.nr_base) {
			tk_baseline_release(&runs);
			ret = skip_kind(out, kinds[ki], ret, err);
			continue;
		}
		ref_of(&runs.new_run, o->key, nw);
		runs.branch = dup_or_null(out->baseline_branch);
		tk_diff_opts_init(&dopts);
		ret = tk_diff_stored_runs(s, &runs, kinds[ki], 0, &dopts, &sd, err);
		ret = skip_kind(out, kinds[ki], ret, err);
		if (!ret && sd.built) {
			TK_ALLOC_GROW(out->kinds, out->nr_kinds + 1, out->alloc_kinds);
			k = &out->kinds[out->nr_kinds++];
			memset(k, 0, sizeof(*k));
			k->kind = tk_xstrdup(kinds[ki]);
			k->unit = tk_xstrdup(tk_unit_name(sd.new.unit));
			k->quantity = tk_xstrdup(tk_diff_quantity(kinds[ki], sd.new.unit));
			run_copy(&k->new_run, &nw->run);
			k->nr_base = runs.nr_base;
			k->base_total = sd.diff.base_sum;
			k->new_total = sd.diff.new_sum;
			take_frames(&sd, k);
			tk_diff_add_totals(&headline, &sd.diff, &dopts, k->quantity);
			k->headline = tk_buf_detach(&headline, NULL);
			if (o->on_diff)
				ret = o->on_diff(o->on_diff_data, out, k, &sd, &dopts, err);
		}
		tk_stored_diff_release(&sd);
		tk_baseline_release(&runs);
	}
	return ret;
}

/* ---- the whole check ---- */

int tk_check_key(struct tk_store *s, const struct tk_check_opts *o,
		 const struct tk_ci_context *ci, const struct tk_config *cfg,
		 struct tk_check_result *out, struct tk_err *err)
{
	const char *keys[2] = { o->key, NULL };
	const char *branch = o->branch, *build = o->build, *bb;
	enum tk_metric metrics[TK_METRIC_COUNT];
	size_t nr_metrics, i;
	int hints;
	struct points cur = { NULL, 0, 0 }, win = { NULL, 0, 0 }, series = { NULL, 0, 0 };
	struct points older = { NULL, 0, 0 };
	struct find_current fc;
	struct find_base fb;
	struct tk_run_query q;
	unsigned have = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!o->key)
		return tk_err_set(err, TK_EUSAGE, "a check needs a key");
	/* this CI build's runs, unless another branch was named */
	if (!build && ci && !o->run_id && (!branch || (ci->branch && !strcmp(branch, ci->branch))))
		build = ci->build_number;
	if (!branch && ci)
		branch = ci->branch;
	if (!branch)
		build = NULL; /* a build number means little without its branch */
	out->key = tk_xstrdup(o->key);
	out->frames = tk_check_frames_policy(o, cfg);

	/* the current runs */
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.run_id = o->run_id;
	q.branch = o->run_id ? NULL : branch;
	memset(&fc, 0, sizeof(fc));
	fc.build = o->run_id ? NULL : build;
	fc.pipeline = !o->run_id && ci ? ci->pipeline : NULL;
	fc.pts = &cur;
	ret = read_runs(s, o, &q, take_current, &fc, reset_current, err);
	if (ret < 0)
		goto fail;
	if (cur.nr && !o->machine_class)
		keep_class(&cur, o->current_class ? o->current_class
						  : cur.items[0].run.machine_class,
			   o->current_class ? NULL : out);

	/* what is judged: the figures the current runs have */
	if (!o->metrics) {
		ret = have_profiles(s, &cur, &have, err);
		if (ret)
			goto fail;
	}
	nr_metrics = choose_metrics(o, cfg, have, metrics);
	out->metrics = tk_xcalloc(nr_metrics + 1, sizeof(*out->metrics));
	out->nr_metrics = nr_metrics;
	for (i = 0; i < nr_metrics; i++) {
		out->metrics[i].metric = metrics[i];
		out->metrics[i].unit = tk_metric_unit(metrics[i]);
		out->metrics[i].vopts = metric_opts(o, cfg, metrics[i]);
		out->metrics[i].result.verdict = TK_VERDICT_INSUFFICIENT;
		out->metrics[i].result.method =
			tk_verdict_method_name(out->metrics[i].vopts.method);
	}
	if (!cur.nr) {
		out->note = o->run_id ? "no such run" : build ? "no run of the key in this build"
						     : "no run of the key on this branch";
		goto done;
	}
	out->current = tk_xcalloc(cur.nr, sizeof(*out->current));
	for (i = 0; i < cur.nr; i++)
		run_copy(&out->current[out->nr_current++], &cur.items[i].run);
	out->branch = dup_or_null(cur.items[0].run.branch);
	out->machine_class = dup_or_null(o->machine_class ? o->machine_class
				       : o->current_class ? o->current_class
				       : cur.items[0].run.machine_class);

	/* the baseline window and the history series */
	ret = tk_baseline_branch_for_run(s, o->baseline_branch, ci, cfg, o->key,
					 out->current[0].id, &out->baseline_branch, err);
	if (ret < 0)
		goto fail;
	bb = out->baseline_branch;
	if (!bb) {
		/* a current run that did not succeed is the first thing to say */
		out->note = current_note(&cur) ? current_note(&cur)
			    : "no baseline branch (name one with --baseline-branch or "
			      "baseline_branch in .tracker.yml)";
		goto done;
	}
	memset(&fb, 0, sizeof(fb));
	fb.res = out;
	fb.pipeline = out->current[0].pipeline;
	fb.window = o->window ? o->window
		    : cfg && cfg->check.window ? cfg->check.window : TK_CHECK_WINDOW_DEFAULT;
	if (fb.window > TK_CHECK_WINDOW_MAX) {
		ret = tk_err_set(err, TK_EUSAGE, "a baseline window of at most %d runs",
				 TK_CHECK_WINDOW_MAX);
		goto fail;
	}
	fb.limit = o->history_limit ? o->history_limit : HISTORY_DEFAULT;
	fb.window_pts = &win;
	fb.older = &older;
	fb.series = o->history ? &series : NULL;
	if (out->branch && !strcmp(out->branch, bb))
		for (i = 0; i < cur.nr; i++)
			if (!fb.before_us || cur.items[i].run.started_at_us < fb.before_us)
				fb.before_us = cur.items[i].run.started_at_us;
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.branch = bb;
	ret = read_runs(s, o, &q, take_base, &fb, reset_base, err);
	if (ret < 0)
		goto fail;
	out->base = win.nr ? tk_xcalloc(win.nr, sizeof(*out->base)) : NULL;
	for (i = 0; i < win.nr; i++)
		run_copy(&out->base[out->nr_base++], &win.items[i].run);

	for (i = 0; i < nr_metrics; i++) {
		struct tk_check_metric *cm = &out->metrics[i];
		int unit = -1;

		if (!tk_metric_profile_kind(cm->metric))
			continue;
		ret = fill_totals(s, o->history_runs, &cur, cm->metric, &unit, err);
		if (!ret)
			ret = fill_totals(s, o->history_runs, &win, cm->metric, &unit, err);
		if (!ret)
			ret = fill_totals(s, o->history_runs, &older, cm->metric, &unit, err);
		if (!ret)
			ret = fill_totals(s, o->history_runs, &series, cm->metric, &unit, err);
		if (ret)
			goto fail;
		if (unit >= 0)
			cm->unit = (enum tk_metric_unit)unit;
	}
	/* the functions at the change points, when the key has frame totals */
	hints = o->history ? tk_frametot_key_has(s, o->key, err) : 0;
	if (hints < 0) {
		ret = hints;
		goto fail;
	}
	for (i = 0; i < nr_metrics; i++) {
		ret = judge_metric(&cur, &win, &older, &out->metrics[i], err);
		if (!ret && o->history)
			ret = metric_history(hints ? s : NULL, o->key, &series, &out->metrics[i], err);
		if (ret)
			goto fail;
	}
	if (out->frames != TK_CHECK_FRAMES_OFF) {
		ret = check_frames(s, o, &cur, &win, &older, out, err);
		if (ret)
			goto fail;
	}
	/* a current run that did not succeed is the first thing to say */
	if (!win.nr && current_note(&cur))
		out->note = current_note(&cur);
	else if (!win.nr && fb.other_class)
		out->note = "no successful run of the key on the baseline branch on this "
			    "machine class (there are runs of others: --machine-class names one)";
	else if (!win.nr)
		out->note = "no successful run of the key on the baseline branch";
done:
	points_release(&cur);
	points_release(&win);
	points_release(&older);
	points_release(&series);
	return 0;
fail:
	points_release(&cur);
	points_release(&win);
	points_release(&older);
	points_release(&series);
	tk_check_result_release(out);
	return ret;
}

void tk_check_result_release(struct tk_check_result *r)
{
	size_t i, j, k;

	free(r->key);
	free(r->branch);
	free(r->baseline_branch);
	free(r->machine_class);
	for (i = 0; i < r->nr_current; i++)
		run_release(&r->current[i]);
	free(r->current);
	for (i = 0; i < r->nr_base; i++)
		run_release(&r->base[i]);
	free(r->base);
	for (i = 0; i < r->nr_metrics; i++) {
		for (k = 0; k < r->metrics[i].nr_changes; k++) {
			run_release(&r->metrics[i].changes[k].first);
			run_release(&r->metrics[i].changes[k].last_before);
			tk_frame_moves_free(r->metrics[i].changes[k].frames,
					    r->metrics[i].changes[k].nr_frames);
		}
		free(r->metrics[i].changes);
		if (r->metrics[i].since)
			run_release(r->metrics[i].since);
		free(r->metrics[i].since);
	}
	free(r->metrics);
	for (i = 0; i < r->nr_other_classes; i++)
		free(r->other_classes[i]);
	free(r->other_classes);
	for (i = 0; i < r->nr_kinds; i++) {
		struct tk_check_kind *kd = &r->kinds[i];

		free(kd->kind);
		free(kd->unit);
		free(kd->quantity);
		free(kd->headline);
		run_release(&kd->new_run);
		for (j = 0; j < kd->nr_frames; j++)
			free(kd->frames[j].path);
		free(kd->frames);
	}
	free(r->kinds);
	free(r->frames_error);
	free(r->command.current);
	free(r->command.other);
	memset(r, 0, sizeof(*r));
}

static char **copy_strings(char *const *src, size_t n)
{
	char **dst = n ? tk_xcalloc(n, sizeof(*dst)) : NULL;
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = tk_xstrdup(src[i]);
	return dst;
}

static struct tk_check_run *copy_runs(const struct tk_check_run *src, size_t n)
{
	struct tk_check_run *dst = n ? tk_xcalloc(n, sizeof(*dst)) : NULL;
	size_t i;

	for (i = 0; i < n; i++)
		run_copy(&dst[i], &src[i]);
	return dst;
}

void tk_check_result_copy(struct tk_check_result *dst, const struct tk_check_result *src)
{
	size_t i, k;

	*dst = *src;
	dst->key = dup_or_null(src->key);
	dst->branch = dup_or_null(src->branch);
	dst->baseline_branch = dup_or_null(src->baseline_branch);
	dst->machine_class = dup_or_null(src->machine_class);
	dst->current = copy_runs(src->current, src->nr_current);
	dst->base = copy_runs(src->base, src->nr_base);
	dst->metrics = src->nr_metrics ? tk_xcalloc(src->nr_metrics, sizeof(*dst->metrics))
				       : NULL;
	for (i = 0; i < src->nr_metrics; i++) {
		const struct tk_check_metric *m = &src->metrics[i];
		struct tk_check_metric *d = &dst->metrics[i];

		*d = *m;
		if (m->since) {
			d->since = tk_xcalloc(1, sizeof(*d->since));
			run_copy(d->since, m->since);
		}
		d->changes = m->nr_changes ? tk_xcalloc(m->nr_changes, sizeof(*d->changes)) : NULL;
		for (k = 0; k < m->nr_changes; k++) {
			const struct tk_check_change *sc = &m->changes[k];
			struct tk_check_change *dc = &d->changes[k];
			size_t f;

			*dc = *sc;
			run_copy(&dc->first, &sc->first);
			run_copy(&dc->last_before, &sc->last_before);
			dc->frames = sc->nr_frames ? tk_xcalloc(sc->nr_frames, sizeof(*dc->frames))
				     : NULL;
			for (f = 0; f < sc->nr_frames; f++) {
				dc->frames[f] = sc->frames[f];
				dc->frames[f].name = tk_xstrdup(sc->frames[f].name);
			}
		}
	}
	dst->other_classes = copy_strings(src->other_classes, src->nr_other_classes);
	dst->kinds = src->nr_kinds ? tk_xcalloc(src->nr_kinds, sizeof(*dst->kinds)) : NULL;
	dst->alloc_kinds = src->nr_kinds;
	for (i = 0; i < src->nr_kinds; i++) {
		const struct tk_check_kind *sk = &src->kinds[i];
		struct tk_check_kind *dk = &dst->kinds[i];

		*dk = *sk;
		dk->kind = dup_or_null(sk->kind);
		dk->unit = dup_or_null(sk->unit);
		dk->quantity = dup_or_null(sk->quantity);
		dk->headline = dup_or_null(sk->headline);
		run_copy(&dk->new_run, &sk->new_run);
		dk->frames = tk_xcalloc(TK_CHECK_FRAMES_MAX, sizeof(*dk->frames));
		for (k = 0; k < sk->nr_frames; k++) {
			dk->frames[k] = sk->frames[k];
			dk->frames[k].path = dup_or_null(sk->frames[k].path);
		}
	}
	dst->frames_error = dup_or_null(src->frames_error);
	dst->command.current = dup_or_null(src->command.current);
	dst->command.other = dup_or_null(src->command.other);
}

/* ---- the commands compared ---- */

#define COMMAND_SHOWN 60 /* bytes of a command a message shows */

static int take_command(const struct tk_run *run, void *data)
{
	char **out = data;
	struct tk_buf b = TK_BUF_INIT;
	size_t i;

	/* quoted words joined by blanks: equal texts are equal argvs */
	for (i = 0; run->argv && run->argv[i]; i++) {
		if (i)
			tk_buf_addch(&b, ' ');
		tk_sh_quote(&b, run->argv[i], strlen(run->argv[i]));
	}
	*out = i ? tk_buf_detach(&b, NULL) : NULL;
	tk_buf_release(&b);
	return 1;
}

/* The command of key's run id in *out (NULL: none recorded). */
static int command_of(struct tk_store *s, const char *key, const char *id, char **out,
		      struct tk_err *err)
{
	const char *keys[2] = { key, NULL };
	struct tk_run_query q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.run_id = id;
	*out = NULL;
	ret = tk_store_query_runs(s, &q, take_command, out, err);
	return ret < 0 ? ret : 0;
}

int tk_check_command(struct tk_store *s, struct tk_check_result *r, struct tk_err *err)
{
	struct tk_check_command *c = &r->command;
	char *cur = NULL, *other;
	size_t i;
	int ret = 0;

	free(c->current);
	free(c->other);
	memset(c, 0, sizeof(*c));
	if (r->nr_current && r->nr_base)
		ret = command_of(s, r->key, r->current[0].id, &cur, err);
	for (i = 0; !ret && cur && i < r->nr_base; i++) {
		ret = command_of(s, r->key, r->base[i].id, &other, err);
		if (other) {
			c->known++;
			if (strcmp(cur, other) && !c->differ++) {
				c->other = other; /* the newest: the base is newest first */
				other = NULL;
			}
		}
		free(other);
	}
	if (!ret && c->differ) {
		c->current = cur;
		cur = NULL;
	}
	if (ret) {
		free(c->other);
		memset(c, 0, sizeof(*c));
	}
	free(cur);
	return ret;
}

/* A command from byte `from` (a word's start; "... " before it when not
 * the first), at most COMMAND_SHOWN bytes of it, never half a character. */
static void add_command(struct tk_buf *out, const char *s, size_t from)
{
	size_t len = strlen(s), end = from, n;

	while (end < len && end - from < COMMAND_SHOWN) {
		n = tk_utf8_seqlen((const unsigned char *)s + end, len - end);
		end += n ? n : 1;
	}
	tk_buf_addf(out, "'%s", from ? "... " : "");
	tk_buf_add(out, s + from, end - from);
	tk_buf_adds(out, end < len ? " ...'" : "'");
}

void tk_check_command_say(const struct tk_check_result *r, struct tk_buf *out)
{
	const struct tk_check_command *c = &r->command;
	const char *a = c->current, *b = c->other;
	size_t from = 0, i;

	if (!c->differ || !a || !b)
		return;
	/* long commands from the word where they part */
	if (strlen(a) > COMMAND_SHOWN || strlen(b) > COMMAND_SHOWN) {
		for (i = 0; a[i] && a[i] == b[i]; i++)
			if (a[i] == ' ')
				from = i + 1;
	}
	tk_buf_addf(out, "the current run's command differs from %zu of its %zu baseline run%s",
		    c->differ, c->known, c->known == 1 ? "" : "s");
	if (c->known < r->nr_base)
		tk_buf_adds(out, " with a recorded command");
	tk_buf_adds(out, " (");
	add_command(out, a, from);
	tk_buf_adds(out, " vs ");
	add_command(out, b, from);
	tk_buf_adds(out, ")");
}


/* ---- the runs of tracker diff ---- */

struct diff_pick {
	const struct tk_check_result *res;
	const char *pipeline;
	int64_t before_us;
	size_t other_class, want;
	const char *key;
	struct tk_baseline *out;
};

static void ref_from_summary(struct tk_run_ref *ref, const char *key,
			     const struct tk_run_summary *s)
{
	memset(ref, 0, sizeof(*ref));
	memcpy(ref->id, s->run_id, strnlen(s->run_id, TK_RUN_ID_LEN));
	ref->key = dup_or_null(key);
	ref->branch = dup_or_null(s->branch);
	ref->build = dup_or_null(s->build_number);
	ref->commit = s->commit ? tk_xstrndup(s->commit, 10) : NULL;
	ref->walltime_s = s->walltime_s;
	ref->started_at_us = s->started_at_us;
}

static int pick_new(const struct tk_run_summary *s, void *data)
{
	struct diff_pick *dp = data;

	if (!is_current(dp->res, s->run_id))
		return 0;
	ref_from_summary(&dp->out->new_run, dp->key, s);
	return 1;
}

static int pick_base(const struct tk_run_summary *s, void *data)
{
	struct diff_pick *dp = data;

	if (!accepts_base(dp->res, dp->pipeline, dp->before_us, s, &dp->other_class))
		return 0;
	ref_from_summary(&dp->out->base[dp->out->nr_base++], dp->key, s);
	return dp->out->nr_base >= dp->want;
}

static int pick_named(const struct tk_run_summary *s, void *data)
{
	struct diff_pick *dp = data;

	if (s->status != TK_RUN_OK)
		return 0;
	ref_from_summary(&dp->out->base[dp->out->nr_base++], dp->key, s);
	return 1;
}

int tk_check_diff_runs(struct tk_store *s, const struct tk_check_opts *o,
		       const struct tk_ci_context *ci, const struct tk_config *cfg,
		       const char *kind, size_t n, const char *baseline_run,
		       struct tk_baseline *out, struct tk_err *err)
{
	static const enum tk_metric none[] = { TK_METRIC_WALLTIME };
	const char *keys[2] = { o->key, NULL };
	struct tk_check_opts co = *o;
	struct tk_check_result r;
	struct tk_run_query q;
	struct diff_pick dp;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	if (n > TK_BASELINE_MAX)
		return tk_err_set(err, TK_EUSAGE, "at most %d baseline runs", TK_BASELINE_MAX);
	co.metrics = none;
	co.nr_metrics = 1;
	co.frames = TK_CHECK_FRAMES_OFF;
	co.history = 0;
	co.on_diff = NULL;
	ret = tk_check_key(s, &co, ci, cfg, &r, err);
	if (ret)
		return ret;
	memset(&dp, 0, sizeof(dp));
	dp.res = &r;
	dp.key = o->key;
	dp.out = out;
	dp.want = n ? n : 1;
	dp.pipeline = r.nr_current ? r.current[0].pipeline : NULL;
	if (r.branch && r.baseline_branch && !strcmp(r.branch, r.baseline_branch))
		for (i = 0; i < r.nr_current; i++)
			if (!dp.before_us || r.current[i].started_at_us < dp.before_us)
				dp.before_us = r.current[i].started_at_us;
	/* NEW: the newest current run with such a profile */
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.run_id = r.nr_current == 1 ? r.current[0].id : NULL;
	q.branch = q.run_id ? NULL : r.branch;
	q.profile_kind = kind;
	ret = r.nr_current ? tk_store_query_summaries(s, &q, pick_new, &dp, err) : 0;
	if (ret < 0)
		goto out;
	if (!out->new_run.id[0]) {
		const char *b = o->run_id ? NULL : r.branch ? r.branch : o->branch;

		ret = tk_err_set(err, TK_EDATA, "no run of key '%s'%s%s%s%s%s to compare", o->key,
				 b ? " on branch '" : "", b ? b : "", b ? "'" : "",
				 kind ? " with a profile of kind " : "", kind ? kind : "");
		goto out;
	}
	/* the baseline: the check's, with such a profile */
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.profile_kind = kind;
	if (baseline_run) {
		q.run_id = baseline_run;
		dp.want = 1;
		ret = tk_store_query_summaries(s, &q, pick_named, &dp, err);
	} else if (!r.baseline_branch) {
		ret = tk_err_set(err, TK_EUSAGE, "no baseline branch: name one with "
				 "--baseline-branch, baseline_branch in .tracker.yml, or run in "
				 "a CI that names a PR base or default branch");
		goto out;
	} else {
		out->branch = tk_xstrdup(r.baseline_branch);
		q.branch = r.baseline_branch;
		ret = tk_store_query_summaries(s, &q, pick_base, &dp, err);
	}
	if (ret < 0)
		goto out;
	ret = 0;
	if (!out->nr_base)
		ret = tk_err_set(err, TK_EDATA, "no successful run of key '%s' %s%s%s%s%s to use "
				 "as the baseline", o->key,
				 baseline_run ? "with id " : "on branch '",
				 baseline_run ? baseline_run : r.baseline_branch,
				 baseline_run ? "" : "'", kind ? " with a profile of kind " : "",
				 kind ? kind : "");
out:
	if (ret)
		tk_baseline_release(out);
	tk_check_result_release(&r);
	return ret < 0 ? ret : 0;
}

int tk_check_diff(struct tk_store *s, const struct tk_check_opts *o,
		  const struct tk_ci_context *ci, const struct tk_config *cfg, const char *kind,
		  size_t n, const char *baseline_run, int no_demangle,
		  struct tk_diff_opts *dopts, struct tk_stored_diff *out, struct tk_err *err)
{
	struct tk_baseline runs;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = tk_check_diff_runs(s, o, ci, cfg, kind, n, baseline_run, &runs, err);
	if (ret)
		return ret;
	ret = tk_diff_stored_runs(s, &runs, kind, no_demangle, dopts, out, err);
	tk_baseline_release(&runs);
	return ret;
}

/* ---- checks made once ---- */

struct tk_check_memo_entry {
	char *opts; /* what decides the result, as text */
	struct tk_check_result result;
};

static void add_opt(struct tk_buf *b, const char *s)
{
	/* each string with its length, so that no value, whatever bytes it
	 * holds (a machine class is not checked as a key is), reads as
	 * another field or as NULL */
	if (s)
		tk_buf_addf(b, "%zu:%s,", strlen(s), s);
	else
		tk_buf_adds(b, "-,");
}

static void memo_key(const struct tk_check_opts *o, struct tk_buf *b)
{
	size_t i, n = o->metrics ? o->nr_metrics : 0;

	add_opt(b, o->key);
	add_opt(b, o->run_id);
	add_opt(b, o->branch);
	add_opt(b, o->build);
	add_opt(b, o->baseline_branch);
	add_opt(b, o->machine_class);
	add_opt(b, o->current_class);
	tk_buf_addf(b, "%zu,%d,%zu,%zu:", o->window, o->history, o->history_limit, n);
	for (i = 0; i < n; i++)
		tk_buf_addf(b, "%d,", (int)o->metrics[i]);
	/* the frames policy is matched on the result (memo_matches) */
	tk_buf_addf(b, "%d", o->method_set);
	if (o->method_set)
		tk_buf_addf(b, ",%d,%.17g,%.17g,%.17g,%.17g,%zu", (int)o->vopts.method,
			    o->vopts.threshold, o->vopts.alpha, o->vopts.min_effect,
			    o->vopts.reject, o->vopts.min_baseline);
}

/*
 * Whether a result kept answers o's frames policy. A result knows the
 * policy it was made with (r->frames, the config's when its check left it
 * unset, as o's unset one is under the same config); whether functions
 * that moved fail the check is all that changes a verdict. A result made
 * with its diffs answers a request for none (frames off), never the
 * reverse: a caller asking for the functions gets them.
 */
static int memo_matches(const struct tk_check_opts *o, const struct tk_check_result *r)
{
	if (o->frames == TK_CHECK_FRAMES_UNSET || o->frames == r->frames)
		return 1;
	return o->frames == TK_CHECK_FRAMES_OFF && r->frames == TK_CHECK_FRAMES_REPORT;
}

const struct tk_check_result *tk_check_memo_find(const struct tk_check_memo *m,
						 const struct tk_check_opts *o)
{
	struct tk_buf k = TK_BUF_INIT;
	const struct tk_check_result *found = NULL;
	size_t i;

	memo_key(o, &k);
	for (i = 0; m && i < m->nr && !found; i++)
		if (!strcmp(m->e[i].opts, k.buf) && memo_matches(o, &m->e[i].result))
			found = &m->e[i].result;
	tk_buf_release(&k);
	return found;
}

int tk_check_key_memo(struct tk_check_memo *m, struct tk_store *s,
		      const struct tk_check_opts *o, const struct tk_ci_context *ci,
		      const struct tk_config *cfg, struct tk_check_result *out,
		      struct tk_err *err)
{
	const struct tk_check_result *known = tk_check_memo_find(m, o);
	struct tk_buf k = TK_BUF_INIT;
	int ret;

	if (known) {
		tk_check_result_copy(out, known);
		return 0;
	}
	ret = tk_check_key(s, o, ci, cfg, out, err);
	if (ret || !m)
		return ret;
	memo_key(o, &k);
	TK_ALLOC_GROW(m->e, m->nr + 1, m->alloc);
	m->e[m->nr].opts = tk_buf_detach(&k, NULL);
	tk_check_result_copy(&m->e[m->nr].result, out);
	m->nr++;
	return 0;
}

void tk_check_memo_release(struct tk_check_memo *m)
{
	size_t i;

	for (i = 0; i < m->nr; i++) {
		free(m->e[i].opts);
		tk_check_result_release(&m->e[i].result);
	}
	free(m->e);
	memset(m, 0, sizeof(*m));
}

const struct tk_check_metric *tk_check_kind_metric(const struct tk_check_result *r,
						    const struct tk_check_kind *k)
{
	size_t i;

	for (i = 0; i < r->nr_metrics; i++) {
		const char *kind = tk_metric_profile_kind(r->metrics[i].metric);

		if (kind && !strcmp(kind, k->kind))
			return &r->metrics[i];
	}
	return NULL;
}

int tk_check_kind_changed(const struct tk_check_result *r, const struct tk_check_kind *k)
{
	const struct tk_check_metric *m = tk_check_kind_metric(r, k);

	return k->nr_frames || (m && (m->result.verdict == TK_VERDICT_REGRESSION ||
				      m->result.verdict == TK_VERDICT_IMPROVEMENT));
}

void tk_check_add_outcome(struct tk_buf *b, const struct tk_check_run *run)
{
	switch (run->status) {
	case TK_RUN_OK:
		break;
	case TK_RUN_FAILED:
		tk_buf_addf(b, "failed (exit %d)", run->exit_code);
		break;
	case TK_RUN_SIGNALED:
		tk_buf_addf(b, "killed by signal %d", run->term_signal);
		break;
	case TK_RUN_CANCELLED:
		tk_buf_adds(b, "cancelled");
		break;
	case TK_RUN_TIMEOUT:
		tk_buf_adds(b, "timed out");
		break;
	case TK_RUN_OOM:
		tk_buf_adds(b, "killed for memory");
		break;
	case TK_RUN_ERROR:
		tk_buf_adds(b, "could not start");
		break;
	case TK_RUN_STARTED:
		tk_buf_adds(b, "still running");
		break;
	}
}

int tk_check_verdict_rank(enum tk_verdict v)
{
	switch (v) {
	case TK_VERDICT_REGRESSION:
		return 3;
	case TK_VERDICT_IMPROVEMENT:
		return 2;
	case TK_VERDICT_NO_CHANGE:
		return 1;
	default:
		return 0;
	}
}

enum tk_verdict tk_check_worst(const struct tk_check_result *r)
{
	enum tk_verdict w = TK_VERDICT_INSUFFICIENT;
	size_t i;

	for (i = 0; i < r->nr_metrics; i++)
		if (tk_check_verdict_rank(r->metrics[i].result.verdict) > tk_check_verdict_rank(w))
			w = r->metrics[i].result.verdict;
	for (i = 0; r->frames == TK_CHECK_FRAMES_FAIL && i < r->nr_kinds; i++)
		if (r->kinds[i].frames_up)
			w = TK_VERDICT_REGRESSION;
	return w;
}

/* ---- which keys ---- */

struct key_list {
	char **keys;
	size_t nr, alloc;
	const char *build;
	const char *pipeline; /* this build's; NULL: any */
	int64_t newest, since;
	size_t seen;
};

static int take_key(const struct tk_run_summary *s, void *data)
{
	struct key_list *kl = data;
	size_t i;

	kl->seen++;
	if (kl->build) {
		if (!s->build_number || strcmp(s->build_number, kl->build) ||
		    !same_or_unknown(kl->pipeline, s->pipeline))
			return kl->seen >= CURRENT_SCAN_MAX && kl->nr ? 1 : 0;
	} else {
		if (!kl->newest) {
			kl->newest = s->started_at_us;
			kl->since = kl->newest - (int64_t)24 * 3600 * 1000000;
		}
		if (s->started_at_us < kl->since)
			return 1;
	}
	for (i = 0; i < kl->nr; i++)
		if (!strcmp(kl->keys[i], s->key))
			return 0;
	TK_ALLOC_GROW(kl->keys, kl->nr + 1, kl->alloc);
	kl->keys[kl->nr++] = tk_xstrdup(s->key);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tk_check_default_keys(struct tk_store *s, const struct tk_ci_context *ci,
			  const char *branch, char ***keys, size_t *nr_keys,
			  struct tk_err *err)
{
	struct key_list kl;
	struct tk_run_query q;
	int ret;

	memset(&kl, 0, sizeof(kl));
	if (!branch && ci)
		branch = ci->branch;
	if (branch && ci && ci->build_number) {
		kl.build = ci->build_number;
		kl.pipeline = ci->pipeline;
	}
	memset(&q, 0, sizeof(q));
	q.branch = branch;
	ret = tk_store_query_summaries(s, &q, take_key, &kl, err);
	if (ret < 0) {
		size_t i;

		for (i = 0; i < kl.nr; i++)
			free(kl.keys[i]);
		free(kl.keys);
		return ret;
	}
	if (kl.nr)
		qsort(kl.keys, kl.nr, sizeof(*kl.keys), cmp_str);
	*keys = kl.keys;
	*nr_keys = kl.nr;
	return 0;
}

int tk_check_key_classes(struct tk_store *s, const struct tk_check_opts *o,
			 const struct tk_ci_context *ci, const struct tk_config *cfg,
			 struct tk_check_results *out, struct tk_err *err)
{
	struct tk_check_opts co = *o;
	size_t first = out->nr, k;
	int ret;

	co.current_class = NULL;
	for (k = 0; !k || k <= out->v[first].nr_other_classes; k++) {
		if (k)
			co.current_class = out->v[first].other_classes[k - 1];
		TK_ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		ret = tk_check_key(s, &co, ci, cfg, &out->v[out->nr], err);
		if (ret)
			return ret;
		out->nr++;
	}
	return 0;
}

void tk_check_results_release(struct tk_check_results *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		tk_check_result_release(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
