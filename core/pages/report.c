/*
 * The report of one build: the keys, their verdicts (core/analyze/check), charts
 * (core/pages/histplot) and diffs (core/analyze/baseline + core/analyze/diff), and the files
 * they are written to. The markdown and metrics texts are in reportmd.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analyze/baseline.h"
#include "core/analyze/check.h"
#include "core/pages/dashboard.h"
#include "core/model/demangle.h"
#include "core/analyze/diff.h"
#include "core/analyze/diffstore.h"
#include "core/draw/diffrender.h"
#include "core/analyze/diffsum.h"
#include "core/base/fsutil.h"
#include "core/pages/histplot.h"
#include "core/pages/plotwrite.h"
#include "core/model/profile.h"
#include "core/store/profstore.h"
#include "core/pages/report.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define DIFF_BASELINES 5
#define DASHBOARD_DAYS 365
/* The most runs the report keeps read for its dashboard, over all keys
 * (about 400 bytes each); a key past it is read again by the dashboard.
 * tk_report_opts.keep_runs sets another. */
#define KEEP_RUNS 200000
#define CHART_WIDTH 640
#define CHART_HEIGHT 160

void tk_report_init(struct tk_report *r)
{
	memset(r, 0, sizeof(*r));
}

/* What only the dashboard needed: the keys' runs and the checks kept. */
static void drop_work(struct tk_report *r)
{
	size_t i;

	for (i = 0; i < r->nr_histories; i++)
		tk_key_history_release(&r->histories[i]);
	free(r->histories);
	r->histories = NULL;
	r->nr_histories = r->alloc_histories = 0;
	tk_check_memo_release(&r->memo);
}

void tk_report_release(struct tk_report *r)
{
	size_t i;

	drop_work(r);
	for (i = 0; i < r->nr; i++) {
		struct tk_report_key *k = &r->keys[i];

		free(k->key);
		free(k->machine_class);
		free(k->name);
		free(k->branch);
		free(k->baseline_branch);
		free(k->build);
		free(k->diff_kind);
	}
	for (i = 0; i < r->nr_checks; i++)
		tk_check_result_release(&r->checks[i]);
	free(r->checks);
	free(r->keys);
	free(r->build);
	free(r->branch);
	free(r->build_url);
	tk_report_init(r);
}

static char *dup_or_null(const char *s)
{
	return s ? tk_xstrdup(s) : NULL;
}

void tk_report_file_name(const char *key, struct tk_buf *out)
{
	uint32_t h = 2166136261u;
	const unsigned char *p;
	size_t n = 0;

	for (p = (const unsigned char *)key; *p; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_';

		h = (h ^ *p) * 16777619u;
		if (n < 60) {
			tk_buf_addch(out, ok && !(n == 0 && *p == '.') ? *p : '_');
			n++;
		}
	}
	tk_buf_addf(out, "%s%08x", n ? "-" : "", (unsigned)h);
}

static void warn(const struct tk_report_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(const struct tk_report_opts *o, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	if (!o->warn)
		return;
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	o->warn(o->data, msg.buf);
	tk_buf_release(&msg);
}

/* ---- verdicts ---- */

static void fill_cell(struct tk_report_cell *c, const struct tk_check_result *cr,
		      const struct tk_check_metric *cm)
{
	const struct tk_verdict_result *v = &cm->result;

	c->verdict = v->verdict;
	c->n = v->n;
	c->current = -1;
	c->base_median = -1;
	c->delta_pct = 0;
	/* judged (a baseline branch was found): the current value is the verdict's */
	if (cr->nr_current && cr->baseline_branch && !cm->note &&
	    !(v->note && !strcmp(v->note, "no current value")))
		c->current = v->current;
	if (v->n)
		c->base_median = v->base_median;
	if (c->current >= 0 && c->base_median > 0)
		c->delta_pct = v->delta_pct;
}

static void take_check(struct tk_report_key *k, const struct tk_check_result *cr)
{
	size_t i;

	k->branch = dup_or_null(cr->branch);
	k->baseline_branch = dup_or_null(cr->baseline_branch);
	k->build = cr->nr_current ? dup_or_null(cr->current[0].build) : NULL;
	k->note = cr->note;
	k->wall.verdict = k->rss.verdict = TK_VERDICT_INSUFFICIENT;
	for (i = 0; i < cr->nr_metrics; i++) {
		const struct tk_check_metric *cm = &cr->metrics[i];

		if (cm->metric == TK_METRIC_WALLTIME)
			fill_cell(&k->wall, cr, cm);
		else if (cm->metric == TK_METRIC_MAXRSS)
			fill_cell(&k->rss, cr, cm);
	}
	k->verdict = tk_check_worst(cr);
}

/* ---- charts ---- */

static void chart_opts(struct tk_plot_opts *po, const struct tk_report_key *k,
		       const struct tk_ci_context *ci)
{
	memset(po, 0, sizeof(*po));
	po->metrics[0] = TK_METRIC_WALLTIME;
	po->metrics[1] = TK_METRIC_MAXRSS;
	po->nr_metrics = 2;
	po->baseline_branch = k->baseline_branch;
	po->current_build = ci && ci->build_number ? ci->build_number : NULL;
	po->pipeline = ci ? ci->pipeline : NULL;
}

static void make_chart(struct tk_store *s, const struct tk_report_opts *o,
		       const struct tk_ci_context *ci, const struct tk_key_history *h,
		       struct tk_report_key *k)
{
	struct tk_plot_opts po;
	struct tk_buf path = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	chart_opts(&po, k, ci);
	po.width = CHART_WIDTH;
	po.chart_height = CHART_HEIGHT;
	tk_buf_addf(&path, "%s/%s.png", o->dir, k->name);
	ret = tk_plot_history_to_path(h, s, 0, &po, path.buf, &err);
	if (!ret) {
		chart_opts(&po, k, ci);
		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/%s.html", o->dir, k->name);
		ret = tk_plot_history_to_path(h, s, 0, &po, path.buf, &err);
	}
	if (ret)
		warn(o, "no chart for '%s': %s", k->key, err.msg);
	k->has_chart = !ret;
	tk_buf_release(&path);
}

/* ---- diffs ---- */

/*
 * The diff of the current run against its baseline, for the first kind
 * both sides have. Returns 0 with k->diff_kind set, 0 without it when no
 * profiles exist (the usual case), or an error to warn about.
 */
static int make_diff(struct tk_store *s, const struct tk_report_opts *o,
		     const struct tk_ci_context *ci, const struct tk_config *cfg,
		     const char *run_id, struct tk_report_key *k, struct tk_err *err)
{
	static const char *const kinds[] = { "cpu", "alloc" };
	struct tk_buf path = TK_BUF_INIT;
	size_t ki;
	int ret = 0;

	for (ki = 0; ki < sizeof(kinds) / sizeof(kinds[0]) && !k->diff_kind; ki++) {
		struct tk_baseline_query q;
		struct tk_stored_diff sd;
		struct tk_diff_opts dopts;
		struct tk_diff_render_opts ropts;

		memset(&q, 0, sizeof(q));
		q.key = k->key;
		q.kind = kinds[ki];
		q.run_id = run_id;
		q.baseline_branch = k->baseline_branch ? k->baseline_branch : o->baseline_branch;
		q.nr_baselines = DIFF_BASELINES;
		tk_diff_opts_init(&dopts);
		ret = tk_diff_stored(s, &q, ci, cfg, 0, &dopts, &sd, err);
		if (!sd.chosen && (ret == TK_EDATA || ret == TK_EUSAGE)) {
			ret = 0; /* no profiles of this kind on one side */
			tk_stored_diff_release(&sd);
			continue;
		}
		if (!ret) {
			tk_diff_render_opts_init(&ropts);
			ropts.quantity = tk_diff_quantity(kinds[ki], sd.new.unit);
			ropts.base_label = sd.base_label.buf;
			ropts.new_label = sd.new_label.buf;
			tk_buf_reset(&path);
			tk_buf_addf(&path, "%s/%s-diff.html", o->dir, k->name);
			ret = tk_diff_render_path(&sd.diff, &dopts, &ropts, path.buf, 0, err);
		}
		if (!ret)
			k->diff_kind = tk_xstrdup(kinds[ki]);
		tk_stored_diff_release(&sd);
		if (ret)
			break;
	}
	tk_buf_release(&path);
	return ret;
}

/* ---- the whole build ---- */

static int verdict_rank(enum tk_verdict v)
{
	switch (v) {
	case TK_VERDICT_REGRESSION: return 0;
	case TK_VERDICT_IMPROVEMENT: return 1;
	case TK_VERDICT_INSUFFICIENT: return 2;
	default: return 3;
	}
}

static int cmp_keys(const void *a, const void *b)
{
	const struct tk_report_key *x = a, *y = b;
	int d = verdict_rank(x->verdict) - verdict_rank(y->verdict);

	if (!d)
		d = strcmp(x->key, y->key);
	if (!d && x->machine_class && y->machine_class)
		d = strcmp(x->machine_class, y->machine_class);
	return d;
}

/* One entry of the report: cr's check of key (on class cls, or NULL). */
static void add_entry(struct tk_store *s, const struct tk_report_opts *o,
		      const struct tk_ci_context *ci, const struct tk_config *cfg,
		      const struct tk_key_history *h, const char *key, const char *cls,
		      struct tk_check_result *cr, struct tk_report *out)
{
	struct tk_report_key *k;
	struct tk_buf name = TK_BUF_INIT, label = TK_BUF_INIT;
	struct tk_err derr = TK_ERR_INIT;

	TK_ALLOC_GROW(out->keys, out->nr + 1, out->alloc);
	k = &out->keys[out->nr++];
	memset(k, 0, sizeof(*k));
	k->key = tk_xstrdup(key);
	k->machine_class = dup_or_null(cls);
	/* files of "KEY on CLASS" by a name no key can have (keys hold no
	 * control characters) */
	tk_buf_adds(&label, key);
	if (cls)
		tk_buf_addf(&label, "\x1f%s", cls);
	tk_report_file_name(label.buf, &name);
	k->name = tk_buf_detach(&name, NULL);
	if (cls) {
		tk_buf_reset(&label);
		tk_buf_addf(&label, "%s on %s", key, cls);
	}
	take_check(k, cr);
	out->count[k->verdict]++;
	if (!o->no_charts)
		make_chart(s, o, ci, h, k);
	if (cr->nr_current && make_diff(s, o, ci, cfg, cr->current[0].id, k, &derr))
		warn(o, "no diff for '%s': %s", label.buf, derr.msg);
	TK_ALLOC_GROW(out->checks, out->nr_checks + 1, out->alloc_checks);
	out->checks[out->nr_checks++] = *cr; /* kept for verdicts.txt */
	tk_buf_release(&label);
}

/*
 * The key's entries: one, or one per machine class when the build ran it
 * on several (each judged against its own class's baseline).
 */
/* The dashboard's window: the runs started since a year ago. */
static int64_t dashboard_since(void)
{
	return tk_now_us() - (int64_t)DASHBOARD_DAYS * 86400 * 1000000;
}

/*
 * The last key's runs, once its check, charts and diff are made: kept,
 * within the dashboard's window, for the dashboard (o->keep_runs, else
 * KEEP_RUNS, of them at most over all keys), else let go.
 */
static int keep_for_dashboard(const struct tk_report_opts *o, struct tk_report *out,
			      struct tk_err *err)
{
	struct tk_key_history *h = &out->histories[out->nr_histories - 1];
	size_t i, kept = 0;
	int ret = 0;

	if (!o->no_charts)
		ret = tk_key_history_trim(h, dashboard_since(), err);
	for (i = 0; i < out->nr_histories; i++)
		kept += out->histories[i].nr;
	if (o->no_charts || kept > (o->keep_runs ? o->keep_runs : KEEP_RUNS)) {
		tk_key_history_release(h);
		out->nr_histories--;
	}
	return ret;
}

static int one_key(struct tk_store *s, const struct tk_report_opts *o,
		   const struct tk_ci_context *ci, const struct tk_config *cfg,
		   const char *key, struct tk_report *out, struct tk_err *err)
{
	struct tk_key_history *h;
	struct tk_check_opts co;
	struct tk_check_result cr;
	char **classes = NULL;
	size_t nr_classes = 0, i;
	int ret;

	/* the key's runs, read once for its check, its charts and the
	 * dashboard */
	TK_ALLOC_GROW(out->histories, out->nr_histories + 1, out->alloc_histories);
	h = &out->histories[out->nr_histories];
	ret = tk_key_history_load(s, key, 0, 0, h, err);
	if (ret)
		return ret;
	out->nr_histories++;
	tk_check_opts_init(&co);
	co.key = key;
	co.branch = o->branch;
	co.baseline_branch = o->baseline_branch;
	co.history_runs = h;
	memset(&cr, 0, sizeof(cr));
	ret = tk_check_key_memo(&out->memo, s, &co, ci, cfg, &cr, err);
	if (ret)
		return ret;
	if (cr.nr_other_classes) {
		nr_classes = cr.nr_other_classes;
		classes = tk_xcalloc(nr_classes, sizeof(*classes));
		for (i = 0; i < nr_classes; i++)
			classes[i] = tk_xstrdup(cr.other_classes[i]);
	}
	add_entry(s, o, ci, cfg, h, key, nr_classes ? cr.machine_class : NULL, &cr, out);
	for (i = 0; !ret && i < nr_classes; i++) {
		co.current_class = classes[i];
		memset(&cr, 0, sizeof(cr));
		ret = tk_check_key_memo(&out->memo, s, &co, ci, cfg, &cr, err);
		if (!ret)
			add_entry(s, o, ci, cfg, h, key, classes[i], &cr, out);
	}
	for (i = 0; i < nr_classes; i++)
		free(classes[i]);
	free(classes);
	if (!ret)
		ret = keep_for_dashboard(o, out, err);
	return ret;
}

/* The dashboard of every key (core/pages/dashboard.h) in DIR/dashboard/. */
static void make_dashboard(struct tk_store *s, const struct tk_report_opts *o,
			   const struct tk_ci_context *ci, const struct tk_config *cfg,
			   struct tk_report *out)
{
	struct tk_dashboard_opts d;
	struct tk_buf dir = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	tk_dashboard_opts_init(&d);
	d.since_us = dashboard_since();
	d.plot.baseline_branch = o->baseline_branch;
	d.store_url = o->store_url;
	d.ci = ci;
	d.cfg = cfg;
	/* the keys of the build are read and checked already */
	d.histories = out->histories;
	d.nr_histories = out->nr_histories;
	d.checks = &out->memo;
	tk_buf_addf(&dir, "%s/%s", o->dir, TK_REPORT_DASHBOARD_DIR);
	ret = tk_dashboard_write(s, dir.buf, &d, &err);
	if (!ret)
		out->dashboard = TK_REPORT_DASHBOARD_DIR "/index.html";
	else if (ret != TK_EDATA)
		warn(o, "no dashboard: %s", err.msg);
	tk_buf_release(&dir);
}

int tk_report_build(struct tk_store *s, const struct tk_report_opts *o,
		    const struct tk_ci_context *ci, const struct tk_config *cfg,
		    struct tk_report *out, struct tk_err *err)
{
	char **keys = NULL;
	size_t nr_keys = 0, i;
	int ret;

	ret = tk_mkdir_p(o->dir, err);
	if (ret)
		return ret;
	ret = tk_check_default_keys(s, ci, o->branch, &keys, &nr_keys, err);
	if (ret)
		return ret;
	out->branch = dup_or_null(o->branch ? o->branch : ci ? ci->branch : NULL);
	out->build = ci ? dup_or_null(ci->build_number) : NULL;
	out->build_url = ci ? dup_or_null(ci->build_url) : NULL;
	for (i = 0; i < nr_keys && !ret; i++)
		ret = one_key(s, o, ci, cfg, keys[i], out, err);
	for (i = 0; i < nr_keys; i++)
		free(keys[i]);
	free(keys);
	if (!ret && !o->no_charts)
		make_dashboard(s, o, ci, cfg, out);
	drop_work(out);
	if (out->nr)
		qsort(out->keys, out->nr, sizeof(*out->keys), cmp_keys);
	return ret;
}

void tk_report_describe_count(const struct tk_report *r, struct tk_buf *out)
{
	size_t i, j, keys = 0;

	for (i = 0; i < r->nr; i++) {
		for (j = 0; j < i && strcmp(r->keys[j].key, r->keys[i].key); j++)
			;
		keys += j == i;
	}
	tk_buf_addf(out, "%zu key%s", keys, keys == 1 ? "" : "s");
	if (keys != r->nr)
		tk_buf_addf(out, " in %zu series (one per machine class)", r->nr);
}

enum tk_verdict tk_report_worst(const struct tk_report *r)
{
	if (r->count[TK_VERDICT_REGRESSION])
		return TK_VERDICT_REGRESSION;
	if (r->count[TK_VERDICT_IMPROVEMENT])
		return TK_VERDICT_IMPROVEMENT;
	if (r->count[TK_VERDICT_NO_CHANGE])
		return TK_VERDICT_NO_CHANGE;
	return TK_VERDICT_INSUFFICIENT;
}

const char *tk_report_style(const struct tk_report *r)
{
	if (r->count[TK_VERDICT_REGRESSION])
		return "error";
	if (r->count[TK_VERDICT_INSUFFICIENT] || !r->nr)
		return "warning";
	return "success";
}

int tk_report_artifact_prefix(const char *dir, struct tk_buf *out)
{
	char *cwd = dir[0] == '/' ? getcwd(NULL, 0) : NULL;
	size_t n = cwd ? strlen(cwd) : 0;
	int inside = dir[0] != '/';

	if (cwd && n > 1 && !strncmp(dir, cwd, n) && dir[n] == '/') {
		dir += n + 1;
		inside = 1;
	}
	while (dir[0] == '.' && dir[1] == '/')
		dir += 2;
	while (*dir == '/')
		dir++;
	tk_buf_adds(out, *dir ? dir : ".");
	free(cwd);
	return inside;
}
