/*
 * tracker history --frame's outputs: rows of a function's history as a
 * table, CSV or JSON, and its charts made with history --plot's layout
 * from series of their own (one plot key per function, kind and total).
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pages/framehist.h"
#include "core/analyze/check.h"
#include "core/analyze/diffsum.h"
#include "core/base/escape.h"
#include "core/base/fsutil.h"
#include "core/base/table.h"
#include "core/base/timeutil.h"
#include "core/base/utf8.h"
#include "core/model/metric.h"
#include "core/pages/plotwrite.h"
#include "core/model/context.h"
#include "core/base/banned.h"

static const char *status_of(const struct tk_frame_point *p)
{
	return p->below ? "below_floor" : isnan(p->self) ? "not_stored" : "stored";
}

/* A weight in its unit, for people: "12.0 MiB", "1.20 s", "3.4k". */
static void add_weight(struct tk_buf *b, const char *unit, double w)
{
	enum tk_unit u;

	if (tk_unit_parse(unit, &u))
		u = TK_UNIT_SAMPLES;
	if (u == TK_UNIT_BYTES)
		tk_format_bytes(b, (int64_t)w);
	else if (u == TK_UNIT_NANOSECONDS)
		tk_format_duration(b, w / 1e9);
	else
		tk_format_count(b, w);
}

static void add_short_time(struct tk_buf *b, int64_t us)
{
	struct tk_buf iso = TK_BUF_INIT;

	/* "2026-03-14T06:00:00Z" -> "2026-03-14 06:00" */
	tk_format_iso(&iso, us);
	if (iso.len >= 16) {
		tk_buf_add(b, iso.buf, 10);
		tk_buf_addch(b, ' ');
		tk_buf_add(b, iso.buf + 11, 5);
	} else {
		tk_buf_adds(b, iso.buf);
	}
	tk_buf_release(&iso);
}

static void write_table(const struct tk_frame_history *h, FILE *f)
{
	static const char *const heads[] = { "run", "build", "branch", "commit", "started",
					     "kind", "function", "self", "cumulative", "of total" };
	static const unsigned char right[] = { 0, 1, 0, 0, 0, 0, 0, 1, 1, 1 };
	struct tk_table t;
	struct tk_buf b = TK_BUF_INIT;
	size_t i;

	tk_table_init(&t, 10, heads, right);
	for (i = 0; i < h->nr_points; i++) {
		const struct tk_frame_point *p = &h->points[i];
		const struct tk_run_ref *r = &h->runs[p->run];

		tk_buf_reset(&b);
		tk_buf_add(&b, r->id, 8);
		tk_table_add(&t, b.buf);
		tk_buf_reset(&b);
		if (r->build)
			tk_buf_addf(&b, "#%s", r->build);
		tk_table_add(&t, r->build ? b.buf : NULL);
		tk_table_add(&t, r->branch);
		tk_buf_reset(&b);
		if (r->commit)
			tk_buf_add(&b, r->commit, strlen(r->commit) < 10 ? strlen(r->commit) : 10);
		tk_table_add(&t, r->commit ? b.buf : NULL);
		tk_buf_reset(&b);
		add_short_time(&b, r->started_at_us);
		tk_table_add(&t, b.buf);
		tk_table_add(&t, p->kind);
		tk_table_add(&t, h->names[p->name]);
		if (p->below) {
			tk_buf_reset(&b);
			tk_buf_adds(&b, "<= ");
			add_weight(&b, p->unit, p->floor);
			tk_table_add(&t, b.buf);
			tk_table_add(&t, b.buf);
			tk_table_add(&t, NULL);
		} else if (isnan(p->self)) {
			tk_table_add(&t, NULL);
			tk_table_add(&t, NULL);
			tk_table_add(&t, NULL);
		} else {
			tk_buf_reset(&b);
			add_weight(&b, p->unit, p->self);
			tk_table_add(&t, b.buf);
			tk_buf_reset(&b);
			add_weight(&b, p->unit, p->cumulative);
			tk_table_add(&t, b.buf);
			tk_buf_reset(&b);
			if (p->total > 0)
				tk_buf_addf(&b, "%.1f%%", 100 * p->cumulative / p->total);
			tk_table_add(&t, p->total > 0 ? b.buf : NULL);
		}
	}
	tk_table_print(&t, f);
	tk_table_release(&t);
	tk_buf_release(&b);
}

static void csv_num(struct tk_buf *b, double v, int known)
{
	if (known)
		tk_buf_addf(b, "%.17g", v);
}

static void write_csv(const struct tk_frame_history *h, FILE *f)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t i;

	fputs("run_id,key,branch,commit,build,started_at,kind,unit,function,self,cumulative,"
	      "total,floor,status\n", f);
	for (i = 0; i < h->nr_points; i++) {
		const struct tk_frame_point *p = &h->points[i];
		const struct tk_run_ref *r = &h->runs[p->run];
		int known = !p->below && !isnan(p->self);

		tk_buf_reset(&b);
		tk_csv_raw(&b, r->id);
		tk_buf_addch(&b, ',');
		tk_csv_text(&b, h->key);
		tk_buf_addch(&b, ',');
		tk_csv_text(&b, r->branch);
		tk_buf_addch(&b, ',');
		tk_csv_text(&b, r->commit);
		tk_buf_addch(&b, ',');
		tk_csv_text(&b, r->build);
		tk_buf_addch(&b, ',');
		tk_format_iso(&b, r->started_at_us);
		tk_buf_addch(&b, ',');
		tk_csv_raw(&b, p->kind);
		tk_buf_addch(&b, ',');
		tk_csv_raw(&b, p->unit);
		tk_buf_addch(&b, ',');
		tk_csv_text(&b, h->names[p->name]);
		tk_buf_addch(&b, ',');
		csv_num(&b, p->self, known);
		tk_buf_addch(&b, ',');
		csv_num(&b, p->cumulative, known);
		tk_buf_addch(&b, ',');
		csv_num(&b, p->total, 1);
		tk_buf_addch(&b, ',');
		csv_num(&b, p->floor, !isnan(p->self) || p->below);
		tk_buf_addch(&b, ',');
		tk_buf_adds(&b, status_of(p));
		tk_buf_addch(&b, '\n');
		fwrite(b.buf, 1, b.len, f);
	}
	tk_buf_release(&b);
}

static json_t *jstr(const char *s)
{
	struct tk_buf b = TK_BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if (tk_utf8_valid(s, strlen(s)))
		return json_string(s);
	tk_utf8_sanitize(&b, s, strlen(s));
	j = json_string(b.buf);
	tk_buf_release(&b);
	return j;
}

static json_t *jnum(double v, int known)
{
	return known && isfinite(v) ? json_real(v) : json_null();
}

static int write_json(const struct tk_frame_history *h, FILE *f)
{
	json_t *a = json_array();
	struct tk_buf iso = TK_BUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < h->nr_points; i++) {
		const struct tk_frame_point *p = &h->points[i];
		const struct tk_run_ref *r = &h->runs[p->run];
		int known = !p->below && !isnan(p->self);
		json_t *o = json_object();

		tk_buf_reset(&iso);
		tk_format_iso(&iso, r->started_at_us);
		json_object_set_new(o, "run_id", json_string(r->id));
		json_object_set_new(o, "key", jstr(h->key));
		json_object_set_new(o, "branch", jstr(r->branch));
		json_object_set_new(o, "commit", jstr(r->commit));
		json_object_set_new(o, "build", jstr(r->build));
		json_object_set_new(o, "started_at", json_string(iso.buf));
		json_object_set_new(o, "kind", jstr(p->kind));
		json_object_set_new(o, "unit", jstr(p->unit));
		json_object_set_new(o, "function", jstr(h->names[p->name]));
		json_object_set_new(o, "self", jnum(p->self, known));
		json_object_set_new(o, "cumulative", jnum(p->cumulative, known));
		json_object_set_new(o, "total", jnum(p->total, 1));
		json_object_set_new(o, "floor", jnum(p->floor, !isnan(p->self) || p->below));
		json_object_set_new(o, "status", json_string(status_of(p)));
		json_array_append_new(a, o);
	}
	ret = json_dumpf(a, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	if (!ret)
		fputc('\n', f);
	json_decref(a);
	tk_buf_release(&iso);
	return ret;
}

int tk_framehist_write(const struct tk_frame_history *h, const char *format, FILE *out,
		       struct tk_err *err)
{
	int failed = 0;

	if (!format || !strcmp(format, "table"))
		write_table(h, out);
	else if (!strcmp(format, "csv"))
		write_csv(h, out);
	else if (!strcmp(format, "json"))
		failed = write_json(h, out);
	else
		return tk_err_set(err, TK_EUSAGE, "--frame: no format '%s' (table, csv or json)",
				  format);
	if (failed || fflush(out) || ferror(out))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the history of a function");
	return 0;
}

/* ---- charts ---- */

/* The metric whose values a kind's totals are (its profile total), or -1. */
static int metric_of_kind(const char *kind)
{
	int m;

	for (m = 0; m < TK_METRIC_COUNT; m++) {
		const char *k = tk_metric_profile_kind((enum tk_metric)m);

		if (k && !strcmp(k, kind))
			return m;
	}
	return -1;
}

struct run_at {
	const char *id;
	size_t at;
};

static int by_id(const void *a, const void *b)
{
	return strcmp(((const struct run_at *)a)->id, ((const struct run_at *)b)->id);
}

/* The index of run id in h, by its runs sorted by id; -1 when none. */
static long run_index(const struct tk_frame_history *h, const struct run_at *sorted,
		      const char *id)
{
	struct run_at want = { id, 0 };
	const struct run_at *hit = bsearch(&want, sorted, h->nr_runs, sizeof(*sorted), by_id);

	return hit ? (long)hit->at : -1;
}

/* One series: a function's self or cumulative totals of one kind. */
static size_t add_series(struct tk_plot_data *d2, const struct tk_plot_key *k,
			 const struct tk_frame_history *h, const struct run_at *sorted, size_t name,
			 const char *kind, int m, int cumulative)
{
	struct tk_plot_key *nk;
	struct tk_buf title = TK_BUF_INIT;
	size_t i, j, points = 0;
	double *at = tk_xcalloc(h->nr_runs + 1, sizeof(double));

	for (i = 0; i < h->nr_runs; i++)
		at[i] = NAN;
	for (i = 0; i < h->nr_points; i++) {
		const struct tk_frame_point *p = &h->points[i];
		enum tk_metric_unit u;
		double v;

		if (p->name != name || strcmp(p->kind, kind) || isnan(p->self))
			continue;
		v = tk_metric_profile_value((enum tk_metric)m, cumulative ? p->cumulative : p->self,
					    p->unit, &u);
		if (v >= 0 && u == tk_metric_unit((enum tk_metric)m))
			at[p->run] = v;
	}
	TK_ALLOC_GROW(d2->keys, d2->nr + 1, d2->alloc);
	nk = &d2->keys[d2->nr++];
	memset(nk, 0, sizeof(*nk));
	tk_buf_addf(&title, "%s \xc2\xb7 %s (%s)", k->key, h->names[name],
		    cumulative ? "cumulative" : "self");
	nk->key = tk_buf_detach(&title, NULL);
	nk->pipeline = k->pipeline ? tk_xstrdup(k->pipeline) : NULL;
	nk->own_pipeline = k->own_pipeline;
	nk->baseline = k->baseline;
	nk->metric_mask = 1u << m;
	nk->runs = tk_xcalloc(k->nr + 1, sizeof(*nk->runs));
	for (i = 0; i < k->nr; i++) {
		struct tk_plot_run r = k->runs[i];
		long at_run = r.run_id ? run_index(h, sorted, r.run_id) : -1;

		for (j = 0; j < TK_METRIC_COUNT; j++)
			r.v[j] = NAN;
		if (at_run >= 0)
			r.v[m] = at[at_run];
		points += isfinite(r.v[m]);
		nk->runs[nk->nr++] = r;
	}
	nk->alloc = k->nr + 1;
	free(at);
	return points;
}

int tk_framehist_plot(struct tk_store *s, const struct tk_frame_history *h,
		      const struct tk_run_query *q, struct tk_plot_opts *o,
		      const struct tk_ci_context *ci, const struct tk_config *cfg,
		      const char *path, unsigned wflags, struct tk_err *err)
{
	struct tk_plot_data d, d2;
	struct tk_plot_layout l;
	struct run_at *sorted = tk_xcalloc(h->nr_runs + 1, sizeof(*sorted));
	size_t i, n, kd, points = 0, nm = 0;
	int ret, m;

	for (i = 0; i < h->nr_runs; i++) {
		sorted[i].id = h->runs[i].id;
		sorted[i].at = i;
	}
	qsort(sorted, h->nr_runs, sizeof(*sorted), by_id);
	o->current_build = ci->build_number;
	tk_plot_data_init(&d);
	tk_plot_data_init(&d2);
	d.pipeline = ci->pipeline;
	ret = tk_plot_data_load(&d, s, q, err);
	if (!ret && !d.nr)
		ret = tk_err_set(err, TK_EDATA, "no runs to plot");
	if (!ret)
		ret = tk_plot_data_baselines(&d, s, o, ci, cfg, err);
	if (ret)
		goto out;
	o->nr_metrics = 0;
	for (n = 0; n < h->nr_names; n++)
		for (kd = 0; kd < h->nr_kinds; kd++) {
			m = metric_of_kind(h->kinds[kd]);
			if (m < 0)
				continue;
			points += add_series(&d2, &d.keys[0], h, sorted, n, h->kinds[kd], m, 0);
			points += add_series(&d2, &d.keys[0], h, sorted, n, h->kinds[kd], m, 1);
			for (i = 0; i < nm && o->metrics[i] != (enum tk_metric)m; i++)
				;
			if (i == nm)
				o->metrics[nm++] = (enum tk_metric)m;
		}
	o->nr_metrics = nm;
	if (!points) {
		ret = tk_err_set(err, TK_EDATA, "no run to plot has frame totals of the functions "
				 "asked in a kind that is drawn (alloc, alloc_count, heap_peak, cpu in "
				 "nanoseconds)");
		goto out;
	}
	ret = tk_plot_layout(&d2, o, &l, err);
	if (!ret) {
		ret = tk_plot_write_path(&l, path, NULL, wflags, err);
		tk_plot_layout_release(&l);
	}
out:
	/* the runs' strings are d's: d2 frees only what it made */
	tk_plot_data_release(&d2);
	tk_plot_data_release(&d);
	free(sorted);
	return ret;
}

/* ---- the functions that moved ---- */

void tk_framehist_add_moves(struct tk_buf *b, int lang, const struct tk_frame_move *mv,
			    size_t n)
{
	size_t i;

	if (!n) {
		tk_buf_adds(b, "no function moved beyond the noise");
		return;
	}
	for (i = 0; i < n; i++) {
		enum tk_unit u;

		if (tk_unit_parse(mv[i].unit, &u))
			u = TK_UNIT_SAMPLES;
		if (i)
			tk_buf_adds(b, "; ");
		if (lang == TK_FRAMEHIST_RAW)
			tk_buf_adds(b, mv[i].name);
		else
			tk_escape(b, (enum tk_esc_lang)lang, mv[i].name);
		tk_buf_addf(b, " (%s) ", mv[i].cumulative ? "cumulative" : "self");
		tk_diff_add_value(b, u, mv[i].before, 0);
		tk_buf_adds(b, " -> ");
		tk_diff_add_value(b, u, mv[i].after, 0);
		if (mv[i].before > 0)
			tk_buf_addf(b, " (%+.1f%%)", (mv[i].after / mv[i].before - 1) * 100);
		else
			tk_buf_adds(b, " (new)");
	}
}

void tk_framehist_diff_command(struct tk_buf *b, const char *key, const char *before,
			       const char *after, const char *kind)
{
	tk_buf_adds(b, "tracker diff --key ");
	tk_sh_quote(b, key, strlen(key));
	tk_buf_addf(b, " --baseline-run %s --run %s --kind %s", before, after, kind);
}

/* A run the change detection of a chart's series used: a successful
 * baseline run of that series with the metric's value. */
static int in_series(const struct tk_plot_run *r, unsigned short series, enum tk_metric m)
{
	return r->cls == TK_PLOT_BASELINE && r->series == series &&
	       !(r->flags & (TK_PLOT_FAILED | TK_PLOT_PARTIAL)) && isfinite(r->v[m]) && r->run_id;
}

static int chart_moves(struct tk_store *s, const struct tk_plot_chart *c, struct tk_buf *items,
		       struct tk_err *err)
{
	const struct tk_plot_key *k = c->key;
	const char *kind = tk_frametot_kind_for(c->metric);
	struct tk_buf cmd = TK_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < c->nchanges; i++) {
		const struct tk_plot_change *ch = &c->changes[i];
		const char *before[TK_CHECK_HINT_RUNS], *after[TK_CHECK_HINT_RUNS];
		const struct tk_plot_run *first = &k->runs[ch->run], *last = NULL;
		struct tk_frame_move *mv = NULL;
		size_t nb = 0, na = 0, nmv = 0, j;
		int compared = 0;

		/* back to the previous change of the series, forward to the next */
		for (j = ch->run; j-- > 0 && nb < TK_CHECK_HINT_RUNS;) {
			if (!in_series(&k->runs[j], ch->series, c->metric))
				continue;
			if (i && c->changes[i - 1].series == ch->series && j < c->changes[i - 1].run)
				break;
			if (!last)
				last = &k->runs[j];
			before[nb++] = k->runs[j].run_id;
		}
		for (j = ch->run; j < k->nr && na < TK_CHECK_HINT_RUNS; j++) {
			if (!in_series(&k->runs[j], ch->series, c->metric))
				continue;
			if (i + 1 < c->nchanges && c->changes[i + 1].series == ch->series &&
			    j >= c->changes[i + 1].run)
				break;
			after[na++] = k->runs[j].run_id;
		}
		if (!nb || !na)
			continue;
		ret = tk_frametot_movers(s, k->key, kind, before, nb, after, na,
					 TK_CHECK_FRAMES_MAX, &mv, &nmv, &compared, err);
		if (ret == TK_EUSAGE) {
			tk_err_clear(err);
			ret = 0;
		}
		if (!ret && compared) {
			tk_buf_adds(items, "<li>");
			tk_xml_text(items, tk_metric_name(c->metric), 0, 40);
			tk_buf_adds(items, " at ");
			tk_xml_text(items, ch->label ? ch->label : first->run_id, 0, 200);
			tk_buf_addf(items, " (%s profiles): ", kind);
			tk_framehist_add_moves(items, TK_ESC_XML, mv, nmv);
			tk_buf_reset(&cmd);
			tk_framehist_diff_command(&cmd, k->key, last->run_id, first->run_id, kind);
			tk_buf_adds(items, "<br>diff: <code>");
			tk_xml_text(items, cmd.buf, 0, 2000);
			tk_buf_adds(items, "</code></li>\n");
		}
		tk_frame_moves_free(mv, nmv);
	}
	tk_buf_release(&cmd);
	return ret;
}

int tk_framehist_moves_html(struct tk_store *s, const struct tk_plot_layout *l,
			    struct tk_buf *html, struct tk_err *err)
{
	struct tk_buf items = TK_BUF_INIT;
	size_t i;
	int ret = 0, has = -1;

	for (i = 0; !ret && i < l->nr; i++) {
		if (i && l->charts[i].key != l->charts[i - 1].key)
			has = -1;
		if (!l->charts[i].nchanges)
			continue;
		/* a key without frame totals (most, on a dashboard of many) costs
		 * one seek, not one per run around each change point */
		if (has < 0)
			has = tk_frametot_key_has(s, l->charts[i].key->key, err);
		if (has < 0)
			ret = has;
		else if (has)
			ret = chart_moves(s, &l->charts[i], &items, err);
	}
	if (!ret && items.len) {
		tk_buf_adds(html, "<section id=\"moves\"><h2>Functions that moved at the change "
			    "points</h2>\n<ul>\n");
		tk_buf_add(html, items.buf, items.len);
		tk_buf_adds(html, "</ul></section>\n");
	}
	tk_buf_release(&items);
	return ret;
}
