/*
 * The report of one build: the keys, their verdicts (core/analyze/check), charts
 * (core/pages/histplot) and diffs (core/analyze/baseline + core/analyze/diff), and the files
 * they are written to. The markdown and metrics texts are in reportmd.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
#include "core/base/reader.h"
#include "core/pages/histplot.h"
#include "core/pages/memtimeline.h"
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
	size_t i, j;

	drop_work(r);
	for (i = 0; i < r->nr; i++) {
		struct tk_report_key *k = &r->keys[i];

		free(k->key);
		free(k->machine_class);
		free(k->name);
		free(k->branch);
		free(k->baseline_branch);
		free(k->build);
		for (j = 0; j < k->nr_diff_kinds; j++)
			free(k->diff_kinds[j]);
		free(k->diff_kinds);
	}
	for (i = 0; i < r->nr_checks; i++)
		tk_check_result_release(&r->checks[i]);
	for (i = 0; i < r->nr_files; i++)
		free(r->files[i]);
	free(r->files);
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
			/* never a leading '.' (hidden) or '-' (an option to
			 * the tools that will handle the file) */
			tk_buf_addch(out, ok && !(n == 0 && (*p == '.' || *p == '-')) ? *p : '_');
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

/* ---- the files of earlier builds ---- */

/* A name the report writes: [A-Za-z0-9._-] components, at most two
 * ("dashboard/x.html"), none "." or "..", nothing absolute. Anything else
 * in a list of files is not ours to remove. */
static int our_name(const char *s, size_t len)
{
	size_t i, comp = 0, parts = 1;

	if (!len || len > TK_REPORT_NAME_MAX)
		return 0;
	for (i = 0; i <= len; i++) {
		char c = i < len ? s[i] : '/';

		if (c == '/') {
			if (!comp || (comp == 1 && s[i - 1] == '.') ||
			    (comp == 2 && s[i - 1] == '.' && s[i - 2] == '.'))
				return 0;
			if (i < len && ++parts > 2)
				return 0;
			comp = 0;
			continue;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '-' || c == '_'))
			return 0;
		comp++;
	}
	return 1;
}

/* Whether the directory a listed name is in is a directory of the report
 * and not a link to one elsewhere (then nothing in it is ours). */
static int real_dir_of(const char *dir, const char *name, size_t len)
{
	const char *slash = memchr(name, '/', len);
	struct tk_buf sub = TK_BUF_INIT;
	struct stat st;
	int ok;

	if (!slash)
		return 1;
	tk_buf_addf(&sub, "%s/", dir);
	tk_buf_add(&sub, name, (size_t)(slash - name));
	ok = !lstat(sub.buf, &st) && S_ISDIR(st.st_mode);
	tk_buf_release(&sub);
	return ok;
}

/*
 * Removes the files an earlier report wrote into dir, as its list names
 * them (TK_REPORT_FILES): never a file the list does not name, nor a name
 * that is not one tracker writes. The list is read under bounds (its
 * size, its lines); past them, what was read is removed and the rest
 * stays, with a warning.
 */
static void clean_dir(const struct tk_report_opts *o)
{
	struct tk_buf path = TK_BUF_INIT;
	struct tk_reader rd;
	struct tk_err err = TK_ERR_INIT;
	const char *line;
	size_t len, removed = 0;
	int ret;

	tk_buf_addf(&path, "%s/%s", o->dir, TK_REPORT_FILES);
	if (access(path.buf, F_OK))
		goto out;
	ret = tk_reader_open(&rd, path.buf, &err);
	if (ret) {
		warn(o, "earlier files stay: %s", err.msg);
		goto out;
	}
	rd.max_line = TK_REPORT_LINE_MAX;
	while ((ret = tk_reader_line(&rd, &line, &len, &err)) > 0) {
		struct tk_buf file = TK_BUF_INIT;

		if (rd.offset > TK_REPORT_FILES_MAX) {
			ret = tk_err_set(&err, TK_EDATA, "'%s' is longer than %u bytes", path.buf,
					 TK_REPORT_FILES_MAX);
			break;
		}
		if (!our_name(line, len))
			continue;
		tk_buf_addf(&file, "%s/", o->dir);
		tk_buf_add(&file, line, len);
		if (!real_dir_of(o->dir, line, len)) {
			tk_buf_release(&file);
			continue;
		}
		if (!unlink(file.buf))
			removed++;
		else if (errno != ENOENT)
			warn(o, "cannot remove %s: %s", file.buf, strerror(errno));
		tk_buf_release(&file);
	}
	if (ret < 0)
		warn(o, "some earlier files stay: %s", err.msg);
	tk_reader_close(&rd);
out:
	tk_buf_release(&path);
}

static void add_file(struct tk_report *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* One more file the report wrote, relative to its directory. */
static void add_file(struct tk_report *out, const char *fmt, ...)
{
	struct tk_buf name = TK_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tk_buf_vaddf(&name, fmt, ap);
	va_end(ap);
	TK_ALLOC_GROW(out->files, out->nr_files + 1, out->alloc_files);
	out->files[out->nr_files++] = tk_buf_detach(&name, NULL);
}

/* name is no longer one of the report's files (it was removed). */
static void drop_file(struct tk_report *out, const char *name)
{
	size_t i;

	for (i = 0; i < out->nr_files; i++)
		if (!strcmp(out->files[i], name)) {
			free(out->files[i]);
			out->files[i] = out->files[--out->nr_files];
			return;
		}
}

int tk_report_write_files(const struct tk_report *r, const char *dir,
			  const char *const *more, size_t nr_more, struct tk_err *err)
{
	struct tk_buf b = TK_BUF_INIT, path = TK_BUF_INIT;
	size_t i;
	int ret;

	tk_buf_adds(&b, "# the files tracker report wrote here; the next report removes them\n");
	for (i = 0; i < r->nr_files; i++)
		tk_buf_addf(&b, "%s\n", r->files[i]);
	for (i = 0; i < nr_more; i++)
		tk_buf_addf(&b, "%s\n", more[i]);
	tk_buf_addf(&path, "%s/%s", dir, TK_REPORT_FILES);
	ret = tk_write_file_atomic(path.buf, b.buf, b.len, err);
	tk_buf_release(&b);
	tk_buf_release(&path);
	return ret;
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

/*
 * The chart's metrics: those asked for (o->metrics, at most
 * TK_PLOT_MAX_METRICS), else walltime, maxrss and every other metric
 * whose verdict is a change (the alloc a feature doubled is drawn).
 */
static void chart_opts(struct tk_plot_opts *po, const struct tk_report_opts *o,
		       const struct tk_report_key *k, const struct tk_check_result *cr,
		       const struct tk_ci_context *ci)
{
	size_t i;

	memset(po, 0, sizeof(*po));
	for (i = 0; i < o->nr_metrics && po->nr_metrics < TK_PLOT_MAX_METRICS; i++)
		po->metrics[po->nr_metrics++] = o->metrics[i];
	if (!o->nr_metrics) {
		po->metrics[0] = TK_METRIC_WALLTIME;
		po->metrics[1] = TK_METRIC_MAXRSS;
		po->nr_metrics = 2;
		for (i = 0; i < cr->nr_metrics && po->nr_metrics < TK_PLOT_MAX_METRICS; i++) {
			const struct tk_check_metric *m = &cr->metrics[i];

			if (m->metric != TK_METRIC_WALLTIME && m->metric != TK_METRIC_MAXRSS &&
			    (m->result.verdict == TK_VERDICT_REGRESSION ||
			     m->result.verdict == TK_VERDICT_IMPROVEMENT))
				po->metrics[po->nr_metrics++] = m->metric;
		}
	}
	po->baseline_branch = k->baseline_branch;
	po->current_build = ci && ci->build_number ? ci->build_number : NULL;
	po->pipeline = ci ? ci->pipeline : NULL;
}

static void make_chart(struct tk_store *s, const struct tk_report_opts *o,
		       const struct tk_ci_context *ci, const struct tk_key_history *h,
		       const struct tk_check_result *cr, struct tk_report_key *k,
		       struct tk_report *out)
{
	struct tk_plot_opts po;
	struct tk_buf path = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	chart_opts(&po, o, k, cr, ci);
	po.width = CHART_WIDTH;
	po.chart_height = CHART_HEIGHT;
	tk_buf_addf(&path, "%s/%s.png", o->dir, k->name);
	ret = tk_plot_history_to_path(h, s, 0, &po, path.buf, &err);
	if (!ret) {
		add_file(out, "%s.png", k->name);
		chart_opts(&po, o, k, cr, ci);
		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/%s.html", o->dir, k->name);
		ret = tk_plot_history_to_path(h, s, 0, &po, path.buf, &err);
		if (!ret)
			add_file(out, "%s.html", k->name);
	}
	if (ret)
		warn(o, "no chart for '%s': %s", k->key, err.msg);
	k->has_chart = !ret;
	tk_buf_release(&path);
}

/* The current run's memory timeline; a run without one draws nothing. */
static void make_timeline(struct tk_store *s, const struct tk_report_opts *o,
			  const struct tk_check_result *cr, struct tk_report_key *k,
			  struct tk_report *out)
{
	static const char *const exts[] = { "png", "html" };
	struct tk_buf path = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run run;
	size_t i;
	int ret;

	if (!cr->nr_current)
		return;
	tk_run_init(&run);
	ret = tk_memtl_load(s, cr->current[0].id, &run, &err);
	for (i = 0; !ret && i < sizeof(exts) / sizeof(exts[0]); i++) {
		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/%s-memory.%s", o->dir, k->name, exts[i]);
		/* the picture as wide as the history chart beside it */
		ret = tk_memtl_write_path(&run, path.buf, i ? 0 : CHART_WIDTH, &err);
		if (!ret)
			add_file(out, "%s-memory.%s", k->name, exts[i]);
	}
	/* a run kept without a timeline is not a failure of the report */
	if (ret && run.timeline.nr)
		warn(o, "no memory timeline for '%s': %s", k->key, err.msg);
	k->has_timeline = !ret;
	tk_run_release(&run);
	tk_buf_release(&path);
}

/* ---- diffs ---- */

/*
 * The diff pages of one entry, drawn while its check holds each diff
 * (tk_check_opts.on_diff): <name>-<kind>-diff.html for each kind of
 * profile that changed, and for the first kind when none did (a diff to
 * open all the same); once the check is done, the first is removed when
 * another kind changed and it did not.
 */
struct diff_pages {
	const struct tk_report_opts *o;
	struct tk_report *out; /* its files: each page listed once written */
	const char *name;      /* the entry's file name */
	const char *label;     /* the key, for warnings */
	char *kinds[TK_REPORT_DIFFS_MAX];
	int changed[TK_REPORT_DIFFS_MAX];
	size_t nr;
};

static void diff_path(struct tk_buf *path, const char *dir, const char *name, const char *kind)
{
	tk_buf_reset(path);
	tk_buf_addf(path, "%s/%s-%s-diff.html", dir, name, kind);
}

static int draw_diff(void *data, const struct tk_check_result *r, const struct tk_check_kind *k,
		     const struct tk_stored_diff *sd, const struct tk_diff_opts *dopts,
		     struct tk_err *err)
{
	struct diff_pages *dp = data;
	struct tk_diff_render_opts ropts;
	struct tk_buf path = TK_BUF_INIT;
	struct tk_err derr = TK_ERR_INIT;
	int changed = tk_check_kind_changed(r, k);

	(void)err; /* a diff page not drawn is a warning, not the check's error */
	if ((!changed && dp->nr) || dp->nr == TK_REPORT_DIFFS_MAX)
		return 0;
	tk_diff_render_opts_init(&ropts);
	ropts.quantity = k->quantity;
	ropts.base_label = sd->base_label.buf;
	ropts.new_label = sd->new_label.buf;
	diff_path(&path, dp->o->dir, dp->name, k->kind);
	if (tk_diff_render_path(&sd->diff, dopts, &ropts, path.buf, 0, &derr)) {
		warn(dp->o, "no %s diff for '%s': %s", k->kind, dp->label, derr.msg);
	} else {
		add_file(dp->out, "%s-%s-diff.html", dp->name, k->kind);
		dp->kinds[dp->nr] = tk_xstrdup(k->kind);
		dp->changed[dp->nr++] = changed;
	}
	tk_buf_release(&path);
	return 0;
}

/* Once the check is done: the diffs kept, into k (the pages drawn for
 * nothing removed). */
static void keep_diffs(struct diff_pages *dp, struct tk_report_key *k)
{
	struct tk_buf path = TK_BUF_INIT;
	size_t i, any = 0;

	for (i = 0; i < dp->nr; i++)
		any += dp->changed[i];
	k->diff_kinds = dp->nr ? tk_xcalloc(dp->nr, sizeof(*k->diff_kinds)) : NULL;
	for (i = 0; i < dp->nr; i++) {
		if (any && !dp->changed[i]) {
			diff_path(&path, dp->o->dir, dp->name, dp->kinds[i]);
			if (unlink(path.buf))
				warn(dp->o, "cannot remove %s: %s", path.buf, strerror(errno));
			else
				drop_file(dp->out, path.buf + strlen(dp->o->dir) + 1);
			free(dp->kinds[i]);
			continue;
		}
		k->diff_kinds[k->nr_diff_kinds++] = dp->kinds[i];
	}
	dp->nr = 0;
	tk_buf_release(&path);
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

/* The file name of the entry of key on cls (NULL: the key's only one):
 * "KEY on CLASS" by a name no key can have (keys hold no control
 * characters). */
static char *entry_name(const char *key, const char *cls)
{
	struct tk_buf name = TK_BUF_INIT, label = TK_BUF_INIT;

	tk_buf_adds(&label, key);
	if (cls)
		tk_buf_addf(&label, "\x1f%s", cls);
	tk_report_file_name(label.buf, &name);
	tk_buf_release(&label);
	return tk_buf_detach(&name, NULL);
}

/*
 * One entry of the report: the check of key (on class cls, or NULL: the
 * newest run's, the others listed in cr->other_classes), its diff pages
 * drawn as the check makes them, and its chart.
 */
static int add_entry(struct tk_store *s, const struct tk_report_opts *o,
		     const struct tk_ci_context *ci, const struct tk_config *cfg,
		     struct tk_check_opts *co, const struct tk_key_history *h,
		     const char *cls, struct tk_check_result *cr, struct tk_report *out,
		     struct tk_err *err)
{
	struct tk_report_key *k;
	struct tk_buf label = TK_BUF_INIT;
	struct diff_pages dp;
	char *name;
	size_t i;
	int ret;

	/* a key checked on several classes: the first entry is named after
	 * its class once the check has found it */
	memset(&dp, 0, sizeof(dp));
	name = entry_name(co->key, cls);
	tk_buf_adds(&label, co->key);
	dp.o = o;
	dp.out = out;
	dp.name = name;
	dp.label = label.buf;
	co->on_diff = draw_diff;
	co->on_diff_data = &dp;
	memset(cr, 0, sizeof(*cr));
	ret = tk_check_key_memo(&out->memo, s, co, ci, cfg, cr, err);
	co->on_diff = NULL;
	co->on_diff_data = NULL;
	if (!ret && !cls && cr->nr_other_classes && cr->machine_class) {
		/* the first of several classes: its files under its class's name */
		char *named = entry_name(co->key, cr->machine_class);
		struct tk_buf from = TK_BUF_INIT, to = TK_BUF_INIT;
		size_t n = dp.nr;

		for (i = dp.nr = 0; i < n; i++) {
			diff_path(&from, o->dir, name, dp.kinds[i]);
			diff_path(&to, o->dir, named, dp.kinds[i]);
			if (rename(from.buf, to.buf)) {
				/* listed under its first name, not linked */
				warn(o, "cannot rename %s: %s", from.buf, strerror(errno));
				free(dp.kinds[i]);
				continue;
			}
			drop_file(out, from.buf + strlen(o->dir) + 1);
			add_file(out, "%s", to.buf + strlen(o->dir) + 1);
			dp.changed[dp.nr] = dp.changed[i];
			dp.kinds[dp.nr++] = dp.kinds[i];
		}
		tk_buf_release(&from);
		tk_buf_release(&to);
		free(name);
		name = named;
		dp.name = name;
		cls = cr->machine_class;
	}
	if (ret) {
		for (; dp.nr; dp.nr--)
			free(dp.kinds[dp.nr - 1]);
		free(name);
		tk_buf_release(&label);
		return ret;
	}
	if (cr->frames_error)
		warn(o, "%s: %s", label.buf, cr->frames_error);
	TK_ALLOC_GROW(out->keys, out->nr + 1, out->alloc);
	k = &out->keys[out->nr++];
	memset(k, 0, sizeof(*k));
	k->key = tk_xstrdup(co->key);
	k->machine_class = dup_or_null(cls);
	k->name = name;
	take_check(k, cr);
	keep_diffs(&dp, k);
	out->count[k->verdict]++;
	if (!o->no_charts) {
		make_chart(s, o, ci, h, cr, k, out);
		make_timeline(s, o, cr, k, out);
	}
	k->check = out->nr_checks;
	TK_ALLOC_GROW(out->checks, out->nr_checks + 1, out->alloc_checks);
	out->checks[out->nr_checks++] = *cr; /* kept for verdicts.txt */
	tk_buf_release(&label);
	return 0;
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
	co.metrics = o->metrics;
	co.nr_metrics = o->nr_metrics;
	co.history_runs = h;
	ret = add_entry(s, o, ci, cfg, &co, h, NULL, &cr, out, err);
	if (ret)
		return ret;
	if (cr.nr_other_classes) {
		nr_classes = cr.nr_other_classes;
		classes = tk_xcalloc(nr_classes, sizeof(*classes));
		for (i = 0; i < nr_classes; i++)
			classes[i] = tk_xstrdup(cr.other_classes[i]);
	}
	for (i = 0; !ret && i < nr_classes; i++) {
		co.current_class = classes[i];
		ret = add_entry(s, o, ci, cfg, &co, h, classes[i], &cr, out, err);
	}
	for (i = 0; i < nr_classes; i++)
		free(classes[i]);
	free(classes);
	if (!ret)
		ret = keep_for_dashboard(o, out, err);
	return ret;
}

static void dashboard_file(void *data, const char *name)
{
	add_file(data, "%s/%s", TK_REPORT_DASHBOARD_DIR, name);
}

/* The dashboard of every key (core/pages/dashboard.h) in DIR/dashboard/. */
static void make_dashboard(struct tk_store *s, const struct tk_report_opts *o,
			   const struct tk_ci_context *ci, const struct tk_config *cfg,
			   struct tk_report *out)
{
	struct tk_dashboard_opts d;
	struct tk_buf dir = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	size_t i;
	int ret;

	tk_dashboard_opts_init(&d);
	d.since_us = dashboard_since();
	d.plot.baseline_branch = o->baseline_branch;
	for (i = 0; i < o->nr_metrics && d.plot.nr_metrics < TK_PLOT_MAX_METRICS; i++)
		d.plot.metrics[d.plot.nr_metrics++] = o->metrics[i];
	d.store_url = o->store_url;
	d.ci = ci;
	d.cfg = cfg;
	/* the keys of the build are read and checked already */
	d.histories = out->histories;
	d.nr_histories = out->nr_histories;
	d.checks = &out->memo;
	d.wrote = dashboard_file;
	d.wrote_data = out;
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
	struct tk_err lerr = TK_ERR_INIT;
	int ret;

	ret = tk_mkdir_p(o->dir, err);
	if (ret)
		return ret;
	clean_dir(o);
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
	/* what was written, so that the next report removes it even when
	 * this one ends here */
	if (tk_report_write_files(out, o->dir, NULL, 0, &lerr))
		warn(o, "%s", lerr.msg);
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
