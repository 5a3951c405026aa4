/*
 * The dashboard (core/pages/dashboard.h): one row per key, each key's chart
 * beside it. Keys come from the store's key list (tk_store_each_key: its
 * key index, a seek per key, or one pass over the runs), or with a branch
 * from one pass over its runs; each key's runs from one indexed query
 * bounded by since_us.
 *
 * Untrusted names reach the page only through tk_xml_text (HTML
 * text and attribute values); the script reads them back with
 * textContent. When dash_script changes, DASH_SCRIPT_SHA256 must become
 * the base64 SHA-256 of its text: tests/t2204-dashboard-browser.sh checks
 * it and prints the right value.
 */
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pages/plotwrite.h"
#include "core/base/escape.h"
#include "core/analyze/check.h"
#include "core/pages/framehist.h"
#include "core/pages/dashboard.h"
#include "core/base/fsutil.h"
#include "core/draw/htmlout.h"
#include "core/pages/chartsvg.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define DASH_SCRIPT_SHA256 "baZbzgrjmVagMYjF4/By35mupY4/wYu1xAxT659AA0g="

#define SPARK_W 140
#define SPARK_H 30
/* a sparkline spans at least this share of its baseline median, so that
 * noise of a few percent looks like noise, not like the whole range */
#define SPARK_MIN_SPAN 0.2

static const char dash_style[] =
	"<style>\n"
	"body { margin: 0; font: 13px Verdana, 'DejaVu Sans', sans-serif; background: #f6f7f9; }\n"
	"#head { padding: 8px 14px; background: #fff; border-bottom: 1px solid #ddd; }\n"
	"#head h1 { font-size: 17px; margin: 2px 0; }\n"
	"#subtitle { margin: 2px 0; color: #555; overflow-wrap: anywhere; }\n"
	".bar { display: flex; gap: 12px; align-items: center; margin-top: 6px; }\n"
	"main { padding: 10px; }\n"
	/* the metric columns scroll sideways under a key column that stays */
	"#scroll { max-width: 100%; overflow-x: auto; }\n"
	"table { border-collapse: separate; border-spacing: 0; background: #fff;"
	" box-shadow: 0 1px 3px #0002; }\n"
	"th, td { padding: 4px 8px; border-bottom: 1px solid #eee; text-align: left;"
	" vertical-align: middle; }\n"
	"th { background: #fafafa; position: sticky; top: 0; white-space: nowrap; }\n"
	"th:first-child, td.key { position: sticky; left: 0; z-index: 1; }\n"
	"th:first-child { z-index: 2; }\n"
	"th button { font: inherit; font-weight: bold; border: 0; background: none;"
	" cursor: pointer; padding: 0; }\n"
	/* a key never wraps inside a word: a long one ends in an ellipsis,
	 * whole on hover */
	"td.key { background: #fff; white-space: nowrap; max-width: 16em; overflow: hidden;"
	" text-overflow: ellipsis; }\n"
	"td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
	".up { color: #b00; } .down { color: #070; }\n"
	".v-regression { color: #fff; background: #c62828; border-radius: 3px; padding: 1px 5px; }\n"
	".v-improvement { color: #fff; background: #2e7d32; border-radius: 3px; padding: 1px 5px; }\n"
	".v-no-change { color: #333; }\n"
	".v-insufficient-data { color: #888; }\n"
	".why { color: #555; font-size: 12px; margin-left: 4px; }\n"
	"</style>\n";

static const char dash_script[] =
	"(function () {\n"
	"'use strict';\n"
	"var $ = function (id) { return document.getElementById(id); };\n"
	"var body = $('rows'), filter = $('filter'), shown = $('shown');\n"
	"var rows = Array.prototype.slice.call(body.rows), dir = {};\n"
	"function keyOf(r) { return r.cells[0].textContent; }\n"
	"function apply() {\n"
	"  var f = filter.value.toLowerCase(), n = 0;\n"
	"  rows.forEach(function (r) {\n"
	"    var ok = keyOf(r).toLowerCase().indexOf(f) >= 0;\n"
	"    r.hidden = !ok;\n"
	"    if (ok) n++;\n"
	"  });\n"
	"  shown.textContent = n + ' of ' + rows.length + ' keys';\n"
	"}\n"
	"function sortBy(col) {\n"
	"  var d = dir[col] = dir[col] === 'desc' ? 'asc' : 'desc', s = d === 'desc' ? -1 : 1;\n"
	"  rows.sort(function (a, b) {\n"
	"    if (col === 'key') return s * (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0);\n"
	"    var x = parseFloat(a.getAttribute('data-' + col)), y = parseFloat(b.getAttribute('data-' + col));\n"
	"    if (isNaN(x) !== isNaN(y)) return isNaN(x) ? 1 : -1;\n"
	"    if (isNaN(x) || x === y) return keyOf(a) < keyOf(b) ? -1 : 1;\n"
	"    return s * (x - y);\n"
	"  });\n"
	"  rows.forEach(function (r) { body.appendChild(r); });\n"
	"  document.querySelectorAll('th[data-col]').forEach(function (th) {\n"
	"    th.setAttribute('aria-sort', th.getAttribute('data-col') === col ?\n"
	"      (d === 'desc' ? 'descending' : 'ascending') : 'none');\n"
	"  });\n"
	"}\n"
	"document.querySelectorAll('th[data-col] button').forEach(function (b) {\n"
	"  b.addEventListener('click', function () { sortBy(b.parentNode.getAttribute('data-col')); });\n"
	"});\n"
	"filter.addEventListener('input', apply);\n"
	"apply();\n"
	"window.tkDash = {\n"
	"  order: function () { return rows.filter(function (r) { return !r.hidden; }).map(keyOf); },\n"
	"  sort: sortBy\n"
	"};\n"
	"})();\n";

void tk_dashboard_opts_init(struct tk_dashboard_opts *o)
{
	memset(o, 0, sizeof(*o));
}

int tk_dashboard_index_path(const char *path)
{
	const char *base = strrchr(path, '/');

	return !strcmp(base ? base + 1 : path, "index.html");
}

void tk_dashboard_file_name(struct tk_buf *out, const char *key)
{
	const unsigned char *p = (const unsigned char *)key;
	uint32_t h = 2166136261u;
	size_t n = 0;

	for (; *p; p++) {
		h = (h ^ *p) * 16777619u;
		if (n < 60) {
			int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				 (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';

			tk_buf_addch(out, ok ? *p : '_');
			n++;
		}
	}
	if (!n)
		tk_buf_adds(out, "key");
	tk_buf_addf(out, "-%08x.html", (unsigned)h);
}

/* ---- the keys ---- */

struct key_list {
	char **keys;
	size_t nr, alloc;
	const char *filter;
};

static int add_key(const char *key, void *data)
{
	struct key_list *k = data;

	if (k->filter && fnmatch(k->filter, key, 0))
		return 0;
	if (k->nr && !strcmp(k->keys[k->nr - 1], key))
		return 0;
	TK_ALLOC_GROW(k->keys, k->nr + 1, k->alloc);
	k->keys[k->nr++] = tk_xstrdup(key);
	return 0;
}

static int add_run_key(const struct tk_run_summary *s, void *data)
{
	return add_key(s->key ? s->key : "", data);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_keys(struct tk_store *s, const struct tk_dashboard_opts *o, struct key_list *k,
		     struct tk_err *err)
{
	size_t i, j;
	int ret;

	if (o->branch) {
		/* the key index knows no branches */
		struct tk_run_query rq;

		memset(&rq, 0, sizeof(rq));
		rq.since_us = o->since_us;
		rq.branch = o->branch;
		ret = tk_store_query_summaries(s, &rq, add_run_key, k, err);
	} else {
		ret = tk_store_each_key(s, o->since_us, add_key, k, err);
	}
	if (ret)
		return ret < 0 ? ret : 0;
	if (k->nr) /* qsort's pointer must not be NULL, even for 0 elements */
		qsort(k->keys, k->nr, sizeof(*k->keys), cmp_str);
	for (i = j = 0; i < k->nr; i++) {
		if (j && !strcmp(k->keys[j - 1], k->keys[i]))
			free(k->keys[i]);
		else
			k->keys[j++] = k->keys[i];
	}
	k->nr = j;
	return 0;
}

/* ---- one row ---- */

struct row_metric {
	double spark[1024];
	size_t nspark;
	double current, delta; /* NaN: none */
	double median, spread; /* the baseline's, as check judged it; 0: none */
};

/* The baseline's successful runs of machine class mc (NULL: any; a run
 * with no class matches any, as in tracker check), by bucket medians. */
static void sparkline(const struct tk_plot_key *k, enum tk_metric m, const char *mc, size_t max,
		      struct row_metric *rm)
{
	double *v = NULL, *tmp;
	size_t n = 0, alloc = 0, i;

	for (i = 0; i < k->nr; i++) {
		const struct tk_plot_run *r = &k->runs[i];

		if (r->cls == TK_PLOT_BASELINE && !r->flags && isfinite(r->v[m]) &&
		    (!mc || !r->machine_class || !strcmp(mc, r->machine_class))) {
			TK_ALLOC_GROW(v, n + 1, alloc);
			v[n++] = r->v[m];
		}
	}
	if (max > sizeof(rm->spark) / sizeof(rm->spark[0]))
		max = sizeof(rm->spark) / sizeof(rm->spark[0]);
	rm->nspark = 0;
	tmp = tk_xmalloc((n / max + 2) * sizeof(*tmp));
	for (i = 0; i < max && n; i++) {
		size_t lo = n * i / max, hi = n * (i + 1) / max, j, c;

		if (n <= max) {
			if (i >= n)
				break;
			rm->spark[rm->nspark++] = v[i];
			continue;
		}
		c = hi - lo;
		for (j = 0; j < c; j++)
			tmp[j] = v[lo + j];
		/* the bucket's median: insertion sort, buckets are small */
		for (j = 1; j < c; j++) {
			double x = tmp[j];
			size_t q = j;

			for (; q && tmp[q - 1] > x; q--)
				tmp[q] = tmp[q - 1];
			tmp[q] = x;
		}
		rm->spark[rm->nspark++] = c % 2 ? tmp[c / 2] : (tmp[c / 2 - 1] + tmp[c / 2]) / 2;
	}
	free(tmp);
	free(v);
}

/*
 * The sparkline: the baseline's band (median x exp(+-spread), as check
 * judged it) shaded, the baseline's runs, the current run's dot. The
 * scale holds them all and spans at least SPARK_MIN_SPAN of the median,
 * so a +0.1% run sits in the band, not at the top.
 */
static void spark_svg(struct tk_buf *b, const struct row_metric *rm, const char *verdict_css)
{
	double lo = INFINITY, hi = -INFINITY, xs, y, blo = 0, bhi = 0, mid;
	size_t i;

	for (i = 0; i < rm->nspark; i++) {
		lo = fmin(lo, rm->spark[i]);
		hi = fmax(hi, rm->spark[i]);
	}
	if (isfinite(rm->current)) {
		lo = fmin(lo, rm->current);
		hi = fmax(hi, rm->current);
	}
	if (rm->median > 0 && isfinite(lo)) {
		blo = rm->median * exp(-rm->spread);
		bhi = rm->median * exp(rm->spread);
		lo = fmin(lo, blo);
		hi = fmax(hi, bhi);
		if (hi - lo < SPARK_MIN_SPAN * rm->median) {
			mid = (hi + lo) / 2;
			lo = mid - SPARK_MIN_SPAN * rm->median / 2;
			hi = mid + SPARK_MIN_SPAN * rm->median / 2;
		}
	}
	tk_buf_addf(b, "<svg class=\"spark\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">",
		    SPARK_W, SPARK_H, SPARK_W, SPARK_H);
	if (!isfinite(lo)) {
		tk_buf_adds(b, "</svg>");
		return;
	}
	if (hi <= lo) {
		hi = lo + 1;
		lo -= 1;
	}
	xs = rm->nspark > 1 ? (SPARK_W - 8.0) / (double)(rm->nspark - 1) : 0;
	if (bhi > blo) {
		double top = SPARK_H - 3 - (bhi - lo) / (hi - lo) * (SPARK_H - 6);
		double bottom = SPARK_H - 3 - (blo - lo) / (hi - lo) * (SPARK_H - 6);

		tk_buf_adds(b, "<rect class=\"band\" x=\"0\" y=\"");
		tk_chartsvg_num(b, top);
		tk_buf_addf(b, "\" width=\"%d\" height=\"", SPARK_W);
		tk_chartsvg_num(b, bottom - top > 1 ? bottom - top : 1);
		tk_buf_adds(b, "\" fill=\"#1f77b4\" fill-opacity=\"0.15\"/>");
	}
	if (rm->nspark) {
		tk_buf_adds(b, "<path fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.2\" d=\"");
		for (i = 0; i < rm->nspark; i++) {
			tk_buf_addch(b, i ? 'L' : 'M');
			tk_chartsvg_num(b, 1 + xs * (double)i);
			tk_buf_addch(b, ' ');
			tk_chartsvg_num(b, SPARK_H - 3 - (rm->spark[i] - lo) / (hi - lo) * (SPARK_H - 6));
		}
		tk_buf_adds(b, "\"/>");
	}
	if (isfinite(rm->current)) {
		y = SPARK_H - 3 - (rm->current - lo) / (hi - lo) * (SPARK_H - 6);
		tk_buf_adds(b, "<circle cx=\"");
		tk_chartsvg_num(b, SPARK_W - 4);
		tk_buf_adds(b, "\" cy=\"");
		tk_chartsvg_num(b, y);
		tk_buf_addf(b, "\" r=\"3\" fill=\"%s\"/>",
			    !strcmp(verdict_css, "regression") ? "#c62828"
			    : !strcmp(verdict_css, "improvement") ? "#2e7d32" : "#d4009b");
	}
	tk_buf_adds(b, "</svg>");
}

static void verdict_css(struct tk_buf *b, enum tk_verdict v)
{
	const char *s = tk_verdict_name(v);

	for (; *s; s++)
		tk_buf_addch(b, *s == ' ' ? '-' : *s);
}

struct dash {
	struct tk_dashboard_opts *o;
	const enum tk_metric *metrics;
	size_t nm;
	const char *dir;
	char **keys;
	size_t nkeys;
	struct tk_buf *rows;  /* per key, in key order; empty: no row */
	unsigned char *paged; /* per key: its page was written */
	int *ret;             /* per key */
	struct tk_err *errs;  /* per key, set where ret[i] != 0 */
	pthread_mutex_t lock;
	size_t next;          /* the next key to take, under lock */
	int failed;           /* a key failed: take no more, under lock */
};

/* Whether key k has a run in build `build`. */
static int in_build(const struct tk_plot_key *k, const char *build)
{
	size_t i;

	for (i = 0; i < k->nr; i++)
		if (k->runs[i].build_number && !strcmp(k->runs[i].build_number, build))
			return 1;
	return 0;
}

/* The runs of key as the caller read them, or NULL. */
static const struct tk_key_history *known_history(const struct tk_dashboard_opts *o,
						  const char *key)
{
	size_t i;

	for (i = 0; i < o->nr_histories; i++)
		if (!strcmp(o->histories[i].key, key) && o->histories[i].since_us <= o->since_us)
			return &o->histories[i];
	return NULL;
}

/* The check as tk_check_key gives it, or as the caller made it already. */
static int check(struct dash *d, struct tk_store *s, const struct tk_check_opts *co,
		 struct tk_check_result *cr, struct tk_err *err)
{
	const struct tk_check_result *known = tk_check_memo_find(d->o->checks, co);

	if (known) {
		tk_check_result_copy(cr, known);
		return 0;
	}
	return tk_check_key(s, co, d->o->ci, d->o->cfg, cr, err);
}

/* The check's metric shown in a column, or NULL when it judged none such
 * (a profile's total the run has no profile for). */
static const struct tk_check_metric *column(const struct tk_check_result *cr, enum tk_metric m)
{
	size_t i;

	for (i = 0; i < cr->nr_metrics; i++)
		if (cr->metrics[i].metric == m)
			return &cr->metrics[i];
	return NULL;
}

/* The metrics that moved that the page has no column for: "alloc +44%". */
static void moved_elsewhere(struct tk_buf *b, const struct dash *d,
			    const struct tk_check_result *cr)
{
	const char *sep = "<span class=\"why\">";
	size_t i, j;

	for (i = 0; i < cr->nr_metrics; i++) {
		const struct tk_check_metric *cm = &cr->metrics[i];

		if (cm->result.verdict != TK_VERDICT_REGRESSION &&
		    cm->result.verdict != TK_VERDICT_IMPROVEMENT)
			continue;
		for (j = 0; j < d->nm && d->metrics[j] != cm->metric; j++)
			;
		if (j < d->nm)
			continue;
		tk_buf_addf(b, "%s%s %+.0f%%", sep, tk_metric_name(cm->metric),
			    cm->result.delta_pct);
		sep = ", ";
	}
	for (i = 0; cr->frames == TK_CHECK_FRAMES_FAIL && i < cr->nr_kinds; i++)
		if (cr->kinds[i].frames_up) {
			tk_buf_addf(b, "%sa function's %s grew", sep, cr->kinds[i].kind);
			sep = ", ";
		}
	if (strcmp(sep, "<span class=\"why\">"))
		tk_buf_adds(b, "</span>");
}

/* A key's row, appended to b when the key has runs. */
static int dash_key(struct dash *d, struct tk_store *s, size_t slot, struct tk_buf *b,
		    struct tk_err *err)
{
	const char *key = d->keys[slot];
	struct tk_dashboard_opts *o = d->o;
	const struct tk_key_history *h = known_history(o, key);
	const char *keys[] = { key, NULL };
	struct tk_run_query q;
	struct tk_plot_data pd;
	struct tk_plot_layout l;
	struct tk_plot_opts po = o->plot;
	struct tk_check_opts co;
	struct tk_check_result cr;
	struct tk_buf name = TK_BUF_INIT, path = TK_BUF_INIT, css = TK_BUF_INIT;
	struct tk_buf moves = TK_BUF_INIT;
	struct row_metric *rm = NULL;
	const struct tk_plot_key *k;
	enum tk_verdict worst;
	struct tk_verdict_result none;
	int ret = 0;
	size_t i;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.since_us = o->since_us;
	q.branch = o->branch;
	tk_plot_data_init(&pd);
	pd.pipeline = o->ci ? o->ci->pipeline : NULL;
	/*
	 * The runs the caller read, or the store's: a history read here
	 * only for this row would cost more to keep than the check's few
	 * indexed reads it saves.
	 */
	ret = h ? tk_plot_data_load_history(&pd, h, &q, err) : tk_plot_data_load(&pd, s, &q, err);
	if (!ret)
		ret = tk_plot_fill_profiles(&pd, h, s, &po, err);
	if (ret || !pd.nr) {
		tk_plot_data_release(&pd);
		return ret;
	}
	k = &pd.keys[0];
	if (o->ci)
		po.current_build = o->ci->build_number;
	if (!po.max_points)
		po.max_points = TK_DASHBOARD_MAX_POINTS;
	/* the chart's baseline branch is the one tracker check judges with */
	ret = tk_plot_data_baselines(&pd, s, &po, o->ci, o->cfg, err);
	if (!ret)
		ret = tk_plot_layout(&pd, &po, &l, err);
	if (ret) {
		tk_plot_data_release(&pd);
		return ret;
	}
	/* the functions that moved at the change points, below the charts */
	ret = tk_framehist_moves_html(s, &l, &moves, err);
	l.appendix = moves.len ? moves.buf : NULL;
	tk_dashboard_file_name(&name, key);
	tk_buf_addf(&path, "%s/%s", d->dir, name.buf);
	if (!ret)
		ret = tk_plot_write_path(&l, path.buf, "index.html", TK_WRITE_NO_FSYNC, err);
	if (!ret)
		d->paged[slot] = 1;

	/* the verdict, as tracker check gives it, with the same baseline */
	memset(&cr, 0, sizeof(cr));
	if (!ret) {
		tk_check_opts_init(&co);
		co.key = key;
		/* check's own resolution, as the chart's (a chart of a key
		 * check finds no baseline branch for shows the key's busiest
		 * branch, but the verdict stays check's) */
		co.baseline_branch = o->plot.baseline_branch;
		/* check's metrics (its defaults judge every figure the run
		 * has), the columns showing those of them the page shows */
		co.metrics = o->plot.nr_metrics ? d->metrics : NULL;
		co.nr_metrics = o->plot.nr_metrics ? d->nm : 0;
		/* the functions that moved only when they decide the verdict:
		 * the page shows no diff */
		co.frames = tk_check_frames_policy(&co, o->cfg) == TK_CHECK_FRAMES_FAIL
			    ? TK_CHECK_FRAMES_FAIL : TK_CHECK_FRAMES_OFF;
		/* the CI build's runs of the key, else (no build, or a build
		 * that did not run the key: a scheduled dashboard step) its
		 * newest run */
		if (!po.current_build || !in_build(k, po.current_build))
			co.run_id = k->runs[k->nr - 1].run_id;
		co.history_runs = h;
		ret = check(d, s, &co, &cr, err);
		/* a build that ran the key on several machine classes: the row
		 * shows the class with the worst verdict (the chart has them all) */
		for (i = 0; !ret && i < cr.nr_other_classes; i++) {
			struct tk_check_result other;

			co.current_class = cr.other_classes[i];
			ret = check(d, s, &co, &other, err);
			if (!ret && tk_check_verdict_rank(tk_check_worst(&other)) >
					    tk_check_verdict_rank(tk_check_worst(&cr))) {
				char **classes = cr.other_classes; /* being walked */
				size_t nr = cr.nr_other_classes;

				cr.other_classes = NULL;
				cr.nr_other_classes = 0;
				tk_check_result_release(&cr);
				cr = other;
				cr.other_classes = classes;
				cr.nr_other_classes = nr;
			} else if (!ret) {
				tk_check_result_release(&other);
			}
		}
	}
	if (!ret) {
		memset(&none, 0, sizeof(none));
		none.verdict = TK_VERDICT_INSUFFICIENT;
		rm = tk_xcalloc(d->nm, sizeof(*rm));
		worst = tk_check_worst(&cr);
		verdict_css(&css, worst);
		tk_buf_adds(b, "<tr data-verdict=\"");
		tk_buf_addf(b, "%d", worst == TK_VERDICT_REGRESSION ? 3 : worst ==
			    TK_VERDICT_IMPROVEMENT ? 1 : worst == TK_VERDICT_NO_CHANGE ? 2 : 0);
		tk_buf_addf(b, "\" data-runs=\"%zu\"", k->nr);
		for (i = 0; i < d->nm; i++) {
			const struct tk_check_metric *cm = column(&cr, d->metrics[i]);
			const struct tk_verdict_result *vr = cm ? &cm->result : &none;

			/* the current value as check shows it, with a baseline
			 * or without (a key's first run) */
			rm[i].current = cm && cm->nr_values && isfinite(vr->current)
					? vr->current : NAN;
			rm[i].delta = vr->n && isfinite(vr->delta_pct) && vr->base_median > 0
				      ? vr->delta_pct : NAN;
			rm[i].median = vr->n && vr->base_median > 0 ? vr->base_median : 0;
			rm[i].spread = isfinite(vr->base_spread) && vr->base_spread > 0
				       ? vr->base_spread : 0;
			tk_buf_addf(b, " data-d%zu=\"", i);
			if (isfinite(rm[i].delta))
				tk_buf_addf(b, "%.3f", rm[i].delta);
			else
				tk_buf_adds(b, "NaN");
			tk_buf_addch(b, '"');
			sparkline(k, d->metrics[i], cr.machine_class,
				  o->spark_points ? o->spark_points : 200, &rm[i]);
		}
		tk_buf_adds(b, ">\n<td class=\"key\" title=\"");
		tk_xml_text(b, key, TK_XML_QUOTES, 300);
		tk_buf_adds(b, "\"><a href=\"");
		tk_xml_text(b, name.buf, TK_XML_QUOTES, 200);
		tk_buf_adds(b, "\">");
		tk_xml_text(b, key, TK_XML_QUOTES, 300);
		tk_buf_addf(b, "</a></td><td class=\"num\">%zu</td>", k->nr);
		for (i = 0; i < d->nm; i++) {
			/* the dot in its own metric's colour, not the row's worst */
			const struct tk_check_metric *cm = column(&cr, d->metrics[i]);

			tk_buf_reset(&css);
			verdict_css(&css, cm ? cm->result.verdict : TK_VERDICT_INSUFFICIENT);
			tk_buf_adds(b, "<td>");
			spark_svg(b, &rm[i], css.buf);
			tk_buf_adds(b, "</td><td class=\"num\">");
			tk_plot_format_value(b, d->metrics[i], rm[i].current);
			/* coloured only when the verdict says the change is one:
			 * a +1.2% that is no change is plain */
			if (isfinite(rm[i].delta))
				tk_buf_addf(b, "</td><td class=\"num%s\">%+.1f%%</td>",
					    !cm ? "" : cm->result.verdict == TK_VERDICT_REGRESSION
					    ? " up" : cm->result.verdict == TK_VERDICT_IMPROVEMENT
					    ? " down" : "", rm[i].delta);
			else
				tk_buf_adds(b, "</td><td class=\"num\">-</td>");
		}
		tk_buf_reset(&css);
		verdict_css(&css, worst);
		tk_buf_addf(b, "<td><span class=\"v-%s\">%s</span>", css.buf,
			    tk_verdict_name(worst));
		moved_elsewhere(b, d, &cr);
		tk_buf_adds(b, "</td><td>");
		tk_xml_text(b, cr.baseline_branch ? cr.baseline_branch : "-", TK_XML_QUOTES, 60);
		if (cr.machine_class) {
			tk_buf_adds(b, " \xc2\xb7 ");
			tk_xml_text(b, cr.machine_class, TK_XML_QUOTES, 60);
		}
		tk_buf_adds(b, "</td></tr>\n");
	}
	free(rm);
	tk_check_result_release(&cr);
	tk_buf_release(&css);
	tk_buf_release(&name);
	tk_buf_release(&path);
	tk_buf_release(&moves);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&pd);
	return ret;
}

static int write_index(struct dash *d, size_t nrows, FILE *out, struct tk_err *err)
{
	static const char *const script[] = { dash_script, NULL };
	struct tk_htmlout w;
	struct tk_buf sub = TK_BUF_INIT;
	size_t i;

	tk_buf_addf(&sub, "%zu key%s", nrows, nrows == 1 ? "" : "s");
	if (d->o->plot.baseline_branch)
		tk_buf_addf(&sub, "; baseline branch %s", d->o->plot.baseline_branch);
	if (d->o->ci && d->o->ci->build_number)
		tk_buf_addf(&sub, "; current: build #%s, else each key's newest run",
			    d->o->ci->build_number);
	else
		tk_buf_adds(&sub, "; current: each key's newest run");
	tk_htmlout_init(&w, out);
	tk_htmlout_begin(&w, DASH_SCRIPT_SHA256, dash_style, "tracker dashboard", sub.buf);
	tk_buf_release(&sub);
	tk_buf_adds(&w.b, "<div class=\"bar\"><input id=\"filter\" type=\"search\" "
		    "placeholder=\"Filter keys\" autocomplete=\"off\" spellcheck=\"false\">"
		    "<span id=\"shown\"></span></div>\n</header>\n<main>\n<div id=\"scroll\">"
		    "<table>\n<thead><tr>"
		    "<th data-col=\"key\" aria-sort=\"ascending\"><button type=\"button\">key</button></th>"
		    "<th data-col=\"runs\"><button type=\"button\">runs</button></th>");
	for (i = 0; i < d->nm; i++) {
		tk_buf_addf(&w.b, "<th>%s</th><th>current</th><th data-col=\"d%zu\">"
			    "<button type=\"button\" id=\"sort-d%zu\">&Delta; %s</button></th>",
			    tk_metric_name(d->metrics[i]), i, i, tk_metric_name(d->metrics[i]));
	}
	tk_buf_adds(&w.b, "<th data-col=\"verdict\"><button type=\"button\">verdict</button></th>"
		    "<th>baseline</th></tr></thead>\n<tbody id=\"rows\">\n");
	for (i = 0; i < d->nkeys; i++)
		tk_buf_add(&w.b, d->rows[i].buf, d->rows[i].len);
	tk_buf_adds(&w.b, "</tbody>\n</table>\n</div>\n</main>\n<script type=\"application/json\" "
		    "id=\"tk-data\">{}");
	return tk_htmlout_end(&w, script, err);
}

/* ---- the workers ---- */

struct worker {
	struct dash *d;
	struct tk_store *s; /* the caller's, or this worker's own */
	pthread_t thread;
};

/* Takes keys until none is left or one has failed; each key's row and
 * result land in its own slot, so the page does not depend on which
 * worker took which key. */
static void *work(void *data)
{
	struct worker *w = data;
	struct dash *d = w->d;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&d->lock);
		i = d->failed ? d->nkeys : d->next++;
		pthread_mutex_unlock(&d->lock);
		if (i >= d->nkeys)
			break;
		d->ret[i] = dash_key(d, w->s, i, &d->rows[i], &d->errs[i]);
		if (d->ret[i]) {
			pthread_mutex_lock(&d->lock);
			d->failed = 1;
			pthread_mutex_unlock(&d->lock);
		}
	}
	return NULL;
}

static unsigned default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > TK_DASHBOARD_MAX_JOBS ? TK_DASHBOARD_MAX_JOBS : (unsigned)n;
}

/* Runs every key on `jobs` workers: the caller's store and, for each
 * other worker, a connection of its own to o->store_url. A worker whose
 * connection cannot be opened is not started; the others do its share. */
static void run_workers(struct dash *d, struct tk_store *s, unsigned jobs)
{
	struct worker *w = tk_xcalloc(jobs, sizeof(*w));
	struct tk_store_opts so;
	struct tk_err ignored = TK_ERR_INIT;
	unsigned i, started = 0;

	memset(&so, 0, sizeof(so));
	so.flags = TK_STORE_NO_CREATE;
	so.cancel = s->cancel;
	so.wait_s = TK_STORE_READ_WAIT_S;
	so.timeout_s = TK_STORE_READ_TIMEOUT_S;
	for (i = 1; i < jobs && i < d->nkeys; i++) {
		w[i].d = d;
		if (tk_store_open_opts(d->o->store_url, &so, &w[i].s, &ignored))
			break;
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			tk_store_close(w[i].s);
			break;
		}
		started++;
	}
	w[0].d = d;
	w[0].s = s;
	work(&w[0]);
	for (i = 1; i <= started; i++) {
		pthread_join(w[i].thread, NULL);
		/* rows a worker skipped are the caller's to show */
		if (w[i].s->skipped && !s->skipped)
			memcpy(s->skipped_first, w[i].s->skipped_first, sizeof(s->skipped_first));
		s->skipped += w[i].s->skipped;
		tk_store_close(w[i].s);
	}
	free(w);
}

int tk_dashboard_write(struct tk_store *s, const char *dir, struct tk_dashboard_opts *o,
		       struct tk_err *err)
{
	static const enum tk_metric defaults[] = { TK_METRIC_WALLTIME, TK_METRIC_MAXRSS };
	struct key_list kl;
	struct dash d;
	struct tk_buf path = TK_BUF_INIT;
	char *mem = NULL;
	size_t len = 0, i, nrows = 0;
	unsigned jobs;
	FILE *f;
	int ret;

	memset(&kl, 0, sizeof(kl));
	memset(&d, 0, sizeof(d));
	kl.filter = o->key_filter;
	d.o = o;
	d.dir = dir;
	d.metrics = o->plot.nr_metrics ? o->plot.metrics : defaults;
	d.nm = o->plot.nr_metrics ? o->plot.nr_metrics : 2;
	/* the directory only once there is something to put in it */
	ret = list_keys(s, o, &kl, err);
	if (!ret && !kl.nr) {
		struct tk_buf since = TK_BUF_INIT;

		if (o->since_us) {
			tk_buf_adds(&since, " since ");
			tk_format_iso(&since, o->since_us);
		}
		ret = tk_err_set(err, TK_EDATA, "no keys with runs%s%s%s to show",
				 o->key_filter ? " matching " : "",
				 o->key_filter ? o->key_filter : "", since.len ? since.buf : "");
		tk_buf_release(&since);
	}
	if (!ret)
		ret = tk_mkdir_p(dir, err);
	if (!ret) {
		d.keys = kl.keys;
		d.nkeys = kl.nr;
		d.rows = tk_xcalloc(kl.nr, sizeof(*d.rows));
		d.paged = tk_xcalloc(kl.nr + 1, 1);
		d.ret = tk_xcalloc(kl.nr, sizeof(*d.ret));
		d.errs = tk_xcalloc(kl.nr, sizeof(*d.errs));
		pthread_mutex_init(&d.lock, NULL);
		jobs = o->jobs ? o->jobs : default_jobs();
		run_workers(&d, s, o->store_url ? jobs : 1);
		pthread_mutex_destroy(&d.lock);
		/* the first failure in key order, whichever worker saw it */
		for (i = 0; !ret && i < kl.nr; i++) {
			if (d.ret[i]) {
				ret = d.ret[i];
				*err = d.errs[i];
			}
			nrows += d.rows[i].len > 0;
		}
	}
	o->nr_keys = nrows;
	if (!ret) {
		f = open_memstream(&mem, &len);
		if (!f) {
			ret = tk_err_set(err, TK_EINTERNAL, "out of memory");
		} else {
			ret = write_index(&d, nrows, f, err);
			if (fclose(f) && !ret)
				ret = tk_err_set(err, TK_EINTERNAL, "out of memory");
		}
		tk_buf_addf(&path, "%s/index.html", dir);
		if (!ret)
			ret = tk_write_file_atomic(path.buf, mem, len, err);
		free(mem);
	}
	/* the files written, also when a key failed */
	for (i = 0; d.paged && o->wrote && i < kl.nr; i++) {
		if (!d.paged[i])
			continue;
		tk_buf_reset(&path);
		tk_dashboard_file_name(&path, kl.keys[i]);
		o->wrote(o->wrote_data, path.buf);
	}
	if (!ret && o->wrote)
		o->wrote(o->wrote_data, "index.html");
	for (i = 0; i < kl.nr; i++) {
		free(kl.keys[i]);
		if (d.rows)
			tk_buf_release(&d.rows[i]);
	}
	free(kl.keys);
	free(d.rows);
	free(d.paged);
	free(d.ret);
	free(d.errs);
	tk_buf_release(&path);
	return ret;
}
