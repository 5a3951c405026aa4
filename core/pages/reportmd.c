/*
 * The report as text and files (contract in core/pages/reportmd.h). Keys
 * and branches are untrusted: a key may read "<script>", "a|b", "`x`" or
 * "](javascript:...)"; everything from a run goes through tk_md_escape.
 */
#include "core/pages/reportmd.h"

#include <stdio.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/fsutil.h"
#include "core/analyze/check.h"
#include "core/model/metric.h"
#include "core/pages/checkfmt.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

/* The most charts an annotation shows. */
#define MAX_CHARTS 50

/* A path of ours (prefix/name.ext) as a URL: unreserved characters and
 * '/' as they are, the rest percent-encoded. */
static void add_url_path(struct tk_buf *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~/", c))
			tk_buf_addch(out, (char)c);
		else
			tk_buf_addf(out, "%%%02X", c);
	}
}

/*
 * The two languages of the report's pages: markdown (summary.md, the
 * annotation) and HTML (index.html). Each piece is written once, with
 * the markup of the page it goes into.
 */
struct markup {
	enum tk_esc_lang lang;
	const char *strong, *strong_end;
	const char *row, *cell, *row_end;
	const char *list, *item, *item_end, *list_end;       /* keys' changes */
	const char *sublist, *subitem, *subitem_end, *sublist_end; /* functions */
	const char *para, *para_end;
};

static const struct markup markdown = {
	TK_ESC_MARKDOWN, "**", "**",
	"| ", " | ", " |\n",
	"", "- ", "", "",
	"", "  - ", "\n", "",
	"", "\n\n",
};

static const struct markup html = {
	TK_ESC_XML, "<b>", "</b>",
	"<tr><td>", "</td><td>", "</td></tr>\n",
	"<ul>\n", "<li>", "", "</ul>\n",
	"<ul>\n", "<li>", "</li>\n", "</ul></li>\n",
	"<p>", "</p>\n",
};

struct md {
	const struct tk_report *r;
	enum tk_report_links links;
	const char *prefix;
	const struct markup *mk;
};

/* The link target of a file of the report, per link style. */
static void add_target(struct tk_buf *out, const struct md *m, const char *file)
{
	if (m->links == TK_REPORT_LINKS_ARTIFACTS) {
		const char *p = m->prefix ? m->prefix : "";

		tk_buf_adds(out, "artifact://");
		while (*p == '/')
			p++;
		if (*p) {
			add_url_path(out, p);
			if (p[strlen(p) - 1] != '/')
				tk_buf_addch(out, '/');
		}
	}
	add_url_path(out, file);
}

/* A link to the report's file NAME SUFFIX; text is tracker's own. */
static void add_link(struct tk_buf *out, const struct md *m, const char *text,
		     const char *name, const char *suffix)
{
	struct tk_buf file = TK_BUF_INIT;

	tk_buf_addf(&file, "%s%s", name, suffix);
	if (m->mk->lang == TK_ESC_XML) {
		tk_buf_adds(out, "<a href=\"");
		add_target(out, m, file.buf);
		tk_buf_addf(out, "\">%s</a>", text);
	} else {
		tk_buf_addf(out, "[%s](", text);
		add_target(out, m, file.buf);
		tk_buf_addch(out, ')');
	}
	tk_buf_release(&file);
}

static void verdict_text(struct tk_buf *out, const struct md *m, enum tk_verdict v)
{
	if (v == TK_VERDICT_REGRESSION)
		tk_buf_addf(out, "%sregression%s", m->mk->strong, m->mk->strong_end);
	else
		tk_buf_adds(out, tk_verdict_name(v));
}

static void value_cells(struct tk_buf *out, const struct md *m, enum tk_metric metric,
			const struct tk_report_cell *c)
{
	tk_buf_adds(out, m->mk->cell);
	if (c->current >= 0)
		tk_metric_format(out, metric, c->current);
	else
		tk_buf_adds(out, "–");
	tk_buf_adds(out, m->mk->cell);
	if (c->current >= 0 && c->base_median >= 0) {
		int strong = c->verdict == TK_VERDICT_REGRESSION;

		tk_buf_addf(out, "%s%+.1f%%%s (", strong ? m->mk->strong : "", c->delta_pct,
			    strong ? m->mk->strong_end : "");
		tk_metric_format(out, metric, c->base_median);
		tk_buf_addf(out, ", %zu run%s)", c->n, c->n == 1 ? "" : "s");
	} else if (c->base_median >= 0) {
		tk_buf_adds(out, "– (");
		tk_metric_format(out, metric, c->base_median);
		tk_buf_addf(out, ", %zu run%s)", c->n, c->n == 1 ? "" : "s");
	} else {
		tk_buf_adds(out, "no baseline");
	}
}

static const struct tk_check_result *check_of(const struct tk_report *r,
					      const struct tk_report_key *k)
{
	return k->check < r->nr_checks ? &r->checks[k->check] : NULL;
}

/*
 * The verdict cell: the verdict, then what moved besides the table's two
 * figures ("alloc +23.0%", "a function's alloc grew"); a current run that
 * did not succeed, as it ended ("failed (exit 1)").
 */
static void verdict_cell(struct tk_buf *out, const struct md *m, const struct tk_report_key *k)
{
	const struct tk_check_result *cr = check_of(m->r, k);
	const char *sep = " (";
	size_t i;

	if (cr && cr->nr_current && k->verdict == TK_VERDICT_INSUFFICIENT &&
	    cr->current[0].status != TK_RUN_OK) {
		tk_buf_adds(out, m->mk->strong);
		tk_check_add_outcome(out, &cr->current[0]);
		tk_buf_adds(out, m->mk->strong_end);
		return;
	}
	verdict_text(out, m, k->verdict);
	for (i = 0; cr && i < cr->nr_metrics; i++) {
		const struct tk_check_metric *cm = &cr->metrics[i];

		if (cm->metric == TK_METRIC_WALLTIME || cm->metric == TK_METRIC_MAXRSS ||
		    (cm->result.verdict != TK_VERDICT_REGRESSION &&
		     cm->result.verdict != TK_VERDICT_IMPROVEMENT))
			continue;
		tk_buf_addf(out, "%s%s %+.1f%%", sep, tk_metric_name(cm->metric),
			    cm->result.delta_pct);
		sep = ", ";
	}
	for (i = 0; cr && cr->frames == TK_CHECK_FRAMES_FAIL && i < cr->nr_kinds; i++)
		if (cr->kinds[i].frames_up) {
			tk_buf_addf(out, "%sa function's %s grew", sep, cr->kinds[i].kind);
			sep = ", ";
		}
	if (strcmp(sep, " ("))
		tk_buf_adds(out, ")");
}

/* The key, and " on CLASS" for one machine class of a matrix build. */
static void key_text(struct tk_buf *out, const struct md *m, const struct tk_report_key *k)
{
	tk_escape(out, m->mk->lang, k->key);
	if (k->machine_class) {
		tk_buf_adds(out, " on ");
		tk_escape(out, m->mk->lang, k->machine_class);
	}
}

/* "<name>-<kind>-diff.html" of k's i-th diff, linked as "KIND diff". */
static void diff_link(struct tk_buf *out, const struct md *m, const struct tk_report_key *k,
		      size_t i)
{
	struct tk_buf text = TK_BUF_INIT, suffix = TK_BUF_INIT;

	tk_buf_addf(&text, "%s diff", k->diff_kinds[i]);
	tk_buf_addf(&suffix, "-%s-diff.html", k->diff_kinds[i]);
	add_link(out, m, text.buf, k->name, suffix.buf);
	tk_buf_release(&text);
	tk_buf_release(&suffix);
}

static void row(struct tk_buf *out, const struct md *m, const struct tk_report_key *k)
{
	size_t i;

	tk_buf_adds(out, m->mk->row);
	key_text(out, m, k);
	value_cells(out, m, TK_METRIC_WALLTIME, &k->wall);
	value_cells(out, m, TK_METRIC_MAXRSS, &k->rss);
	tk_buf_adds(out, m->mk->cell);
	verdict_cell(out, m, k);
	tk_buf_adds(out, m->mk->cell);
	if (m->links != TK_REPORT_LINKS_NONE) {
		const char *sep = "";

		if (k->has_chart) {
			add_link(out, m, "history", k->name, ".html");
			sep = " · ";
		}
		if (k->has_timeline) {
			tk_buf_adds(out, sep);
			add_link(out, m, "memory", k->name, "-memory.html");
			sep = " · ";
		}
		for (i = 0; i < k->nr_diff_kinds; i++) {
			tk_buf_adds(out, sep);
			diff_link(out, m, k, i);
			sep = " · ";
		}
	}
	tk_buf_adds(out, m->mk->row_end);
}

/*
 * What changed in k's profiles, for each kind its check diffed that
 * changed: the totals, the functions that moved, the link to the diff.
 * Nothing when no kind changed.
 */
static void changes(struct tk_buf *out, const struct md *m, const struct tk_report_key *k)
{
	const struct markup *mk = m->mk;
	const struct tk_check_result *cr = check_of(m->r, k);
	size_t i, j, d;
	int head = 0;

	for (i = 0; cr && i < cr->nr_kinds; i++) {
		const struct tk_check_kind *kd = &cr->kinds[i];

		if (!tk_check_kind_changed(cr, kd))
			continue;
		if (!head) {
			tk_buf_addf(out, "%s%s", mk->para, mk->strong);
			key_text(out, m, k);
			tk_buf_addf(out, "%s%s%s", mk->strong_end, mk->para_end, mk->list);
			head = 1;
		}
		tk_buf_adds(out, mk->item);
		tk_checkfmt_kind_head(out, cr, kd, mk->lang);
		for (d = 0; m->links != TK_REPORT_LINKS_NONE && d < k->nr_diff_kinds; d++)
			if (!strcmp(k->diff_kinds[d], kd->kind)) {
				tk_buf_adds(out, " (");
				diff_link(out, m, k, d);
				tk_buf_adds(out, ")");
			}
		tk_buf_addf(out, "\n%s", mk->sublist);
		for (j = 0; j < kd->nr_frames; j++) {
			tk_buf_adds(out, mk->subitem);
			tk_checkfmt_frame(out, kd, &kd->frames[j], mk->lang);
			tk_buf_adds(out, mk->subitem_end);
		}
		if (!kd->nr_frames)
			tk_buf_addf(out, "%sno function moved beyond the noise%s", mk->subitem,
				    mk->subitem_end);
		tk_buf_addf(out, "%s%s", mk->sublist_end, mk->item_end);
	}
	if (head)
		tk_buf_addf(out, "%s\n", mk->list_end);
}

/* "3 keys: 1 regression, 2 no change." */
static void counts(struct tk_buf *out, const struct md *m)
{
	static const enum tk_verdict order[] = { TK_VERDICT_REGRESSION, TK_VERDICT_IMPROVEMENT,
						 TK_VERDICT_NO_CHANGE, TK_VERDICT_INSUFFICIENT };
	const struct tk_report *r = m->r;
	const char *sep = ": ";
	size_t i;

	tk_report_describe_count(r, out);
	for (i = 0; i < 4; i++) {
		size_t n = r->count[order[i]];

		if (!n)
			continue;
		if (order[i] == TK_VERDICT_REGRESSION)
			tk_buf_addf(out, "%s%s%zu regression%s%s", sep, m->mk->strong, n,
				    n == 1 ? "" : "s", m->mk->strong_end);
		else
			tk_buf_addf(out, "%s%zu %s", sep, n, tk_verdict_name(order[i]));
		sep = ", ";
	}
	tk_buf_adds(out, r->nr ? "." : ": nothing was recorded in this build.");
}

/* "tracker: performance of build 12 on main" */
static void title(struct tk_buf *out, const struct md *m)
{
	tk_buf_adds(out, "tracker: performance");
	if (m->r->build) {
		tk_buf_adds(out, " of build ");
		if (m->mk->lang == TK_ESC_XML)
			tk_xml_text(out, m->r->build, 0, 40);
		else
			tk_md_escape(out, m->r->build, 40);
	}
	if (m->r->branch) {
		tk_buf_adds(out, " on ");
		if (m->mk->lang == TK_ESC_XML)
			tk_xml_text(out, m->r->branch, 0, 200);
		else
			tk_md_escape(out, m->r->branch, 200);
	}
}

static void header(struct tk_buf *out, const struct md *m)
{
	tk_buf_adds(out, "### ");
	title(out, m);
	tk_buf_adds(out, "\n\n");
	counts(out, m);
	tk_buf_adds(out, m->r->nr ? "\n\n" : "\n");
}

static const char table_head[] =
	"| key | walltime | against the baseline median | max RSS "
	"| against the baseline median | verdict | |\n"
	"| --- | ---: | ---: | ---: | ---: | --- | --- |\n";

/* Appends piece to out unless that would pass max (0: no limit). */
static int fits(struct tk_buf *out, const struct tk_buf *piece, size_t max, size_t reserve)
{
	if (max && out->len + piece->len + reserve > max)
		return 0;
	tk_buf_add(out, piece->buf, piece->len);
	return 1;
}

static void chart(struct tk_buf *out, const struct md *m, const struct tk_report_key *k)
{
	struct tk_buf png = TK_BUF_INIT;

	tk_buf_adds(out, "**");
	key_text(out, m, k);
	tk_buf_adds(out, "**: ");
	verdict_text(out, m, k->verdict);
	tk_buf_adds(out, "\n\n[![history of ");
	key_text(out, m, k);
	tk_buf_adds(out, "](");
	tk_buf_addf(&png, "%s.png", k->name);
	add_target(out, m, png.buf);
	tk_buf_adds(out, ")](");
	tk_buf_reset(&png);
	tk_buf_addf(&png, "%s.html", k->name);
	add_target(out, m, png.buf);
	tk_buf_adds(out, ")\n\n");
	tk_buf_release(&png);
}

#define RESERVE 512 /* the closing note and tags */

void tk_report_markdown(const struct tk_report *r, enum tk_report_links links,
			const char *prefix, size_t max, struct tk_buf *out)
{
	struct md m = { r, links, prefix, &markdown };
	struct tk_buf piece = TK_BUF_INIT;
	size_t start = out->len, i, shown = 0, charts = 0, nr_charts = 0;
	int open = 0, full = 0;

	if (max)
		max += start;
	header(&piece, &m);
	fits(out, &piece, 0, 0);
	if (r->nr) {
		tk_buf_reset(&piece);
		tk_buf_adds(&piece, table_head);
		fits(out, &piece, 0, 0);
	}
	for (i = 0; i < r->nr && !full; i++) {
		tk_buf_reset(&piece);
		row(&piece, &m, &r->keys[i]);
		if (fits(out, &piece, max, RESERVE))
			shown++;
		else
			full = 1;
	}
	for (i = 0; i < shown && !full; i++) {
		tk_buf_reset(&piece);
		changes(&piece, &m, &r->keys[i]);
		if (!piece.len)
			continue;
		if (!open) {
			struct tk_buf head = TK_BUF_INIT;

			tk_buf_adds(&head, "\n#### What changed\n\n");
			full = !fits(out, &head, max, RESERVE + piece.len);
			tk_buf_release(&head);
		}
		if (!full && !fits(out, &piece, max, RESERVE))
			full = 1;
		open = 1;
	}
	open = 0;
	if (links != TK_REPORT_LINKS_NONE && r->dashboard) {
		tk_buf_reset(&piece);
		tk_buf_adds(&piece, "\nAll keys: ");
		add_link(&piece, &m, "dashboard", r->dashboard, "");
		tk_buf_adds(&piece, ".\n");
		full = full || !fits(out, &piece, max, RESERVE);
	}
	for (i = 0; i < r->nr; i++)
		nr_charts += r->keys[i].has_chart;
	for (i = 0; links == TK_REPORT_LINKS_ARTIFACTS && !full && i < shown &&
		    charts < MAX_CHARTS; i++) {
		const struct tk_report_key *k = &r->keys[i];
		int notable = k->verdict == TK_VERDICT_REGRESSION ||
			      k->verdict == TK_VERDICT_IMPROVEMENT;

		if (!k->has_chart)
			continue;
		tk_buf_reset(&piece);
		if (!charts)
			tk_buf_adds(&piece, "\n");
		if (!notable && !open)
			tk_buf_addf(&piece, "<details><summary>History charts of %s keys</summary>"
				    "\n\n", charts ? "the other" : "the");
		chart(&piece, &m, k);
		if (!fits(out, &piece, max, RESERVE)) {
			full = 1;
			break;
		}
		open = open || !notable;
		charts++;
	}
	if (open)
		tk_buf_adds(out, "</details>\n");
	if (shown < r->nr)
		tk_buf_addf(out, "\n_%zu of %zu rows are not shown: the text is limited to %zu "
			    "bytes; summary.md in the report's files has them all._\n",
			    r->nr - shown, r->nr, max - start);
	else if (links == TK_REPORT_LINKS_ARTIFACTS && charts < nr_charts)
		tk_buf_addf(out, "\n_%zu of %zu charts are shown; the others are in the "
			    "report's files._\n", charts, nr_charts);
	tk_buf_release(&piece);
}

/* ---- index.html ---- */

static const char page_style[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1100px;"
	"padding:0 1em;color:#1b1f24}"
	"table{border-collapse:collapse;margin:1em 0}"
	"td,th{border:1px solid #d0d7de;padding:.3em .6em;vertical-align:top}"
	"th{background:#f6f8fa;text-align:left}"
	"td:nth-child(n+2):nth-child(-n+5){text-align:right;white-space:nowrap}"
	"li{margin:.15em 0}figure{margin:1em 0}figcaption{margin-bottom:.3em}"
	"img{border:1px solid #d0d7de;max-width:100%;height:auto}";

void tk_report_html(const struct tk_report *r, struct tk_buf *out)
{
	struct md m = { r, TK_REPORT_LINKS_FILES, NULL, &html };
	struct tk_buf piece = TK_BUF_INIT;
	size_t i, any = 0;

	tk_buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "img-src 'self'; style-src 'unsafe-inline'\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width\">\n<title>");
	title(out, &m);
	tk_buf_addf(out, "</title>\n<style>%s</style></head>\n<body>\n<h1>", page_style);
	title(out, &m);
	tk_buf_adds(out, "</h1>\n<p>");
	counts(out, &m);
	tk_buf_adds(out, "</p>\n");
	if (r->nr)
		tk_buf_adds(out, "<table>\n<tr><th>key</th><th>walltime</th>"
			    "<th>against the baseline median</th><th>max RSS</th>"
			    "<th>against the baseline median</th><th>verdict</th><th></th></tr>\n");
	for (i = 0; i < r->nr; i++)
		row(out, &m, &r->keys[i]);
	if (r->nr)
		tk_buf_adds(out, "</table>\n");
	if (r->dashboard) {
		tk_buf_adds(out, "<p>All keys: ");
		add_link(out, &m, "dashboard", r->dashboard, "");
		tk_buf_adds(out, ".</p>\n");
	}
	for (i = 0; i < r->nr; i++) {
		tk_buf_reset(&piece);
		changes(&piece, &m, &r->keys[i]);
		if (piece.len && !any++)
			tk_buf_adds(out, "<h2>What changed</h2>\n");
		tk_buf_add(out, piece.buf, piece.len);
	}
	for (i = 0, any = 0; i < r->nr; i++) {
		const struct tk_report_key *k = &r->keys[i];

		if (!k->has_chart)
			continue;
		if (!any++)
			tk_buf_adds(out, "<h2>History</h2>\n");
		tk_buf_adds(out, "<figure><figcaption><b>");
		key_text(out, &m, k);
		tk_buf_adds(out, "</b>: ");
		verdict_text(out, &m, k->verdict);
		tk_buf_adds(out, "</figcaption><a href=\"");
		add_url_path(out, k->name);
		tk_buf_adds(out, ".html\"><img src=\"");
		add_url_path(out, k->name);
		tk_buf_adds(out, ".png\" alt=\"history of ");
		tk_xml_text(out, k->key, TK_XML_QUOTES, 0);
		tk_buf_adds(out, "\"></a></figure>\n");
		if (!k->has_timeline)
			continue;
		tk_buf_adds(out, "<figure><figcaption><b>");
		key_text(out, &m, k);
		tk_buf_adds(out, "</b>: memory of the current run</figcaption><a href=\"");
		add_url_path(out, k->name);
		tk_buf_adds(out, "-memory.html\"><img src=\"");
		add_url_path(out, k->name);
		tk_buf_adds(out, "-memory.png\" alt=\"memory of ");
		tk_xml_text(out, k->key, TK_XML_QUOTES, 0);
		tk_buf_adds(out, "\"></a></figure>\n");
	}
	tk_buf_adds(out, "</body></html>\n");
	tk_buf_release(&piece);
}

/* OpenMetrics label value: \ " and newline escaped, valid UTF-8. */
static void label_value(struct tk_buf *out, const char *s)
{
	struct tk_buf clean = TK_BUF_INIT;
	size_t i;

	tk_utf8_sanitize(&clean, s, strlen(s));
	for (i = 0; i < clean.len; i++) {
		char c = clean.buf[i];

		if (c == '\\' || c == '"')
			tk_buf_addf(out, "\\%c", c);
		else if (c == '\n')
			tk_buf_adds(out, "\\n");
		else
			tk_buf_addch(out, c);
	}
	tk_buf_release(&clean);
}

static void metric_line(struct tk_buf *out, const char *name, const struct tk_report_key *k,
			double v)
{
	if (v < 0)
		return;
	tk_buf_addf(out, "%s{key=\"", name);
	label_value(out, k->key);
	if (k->machine_class) {
		tk_buf_adds(out, "\",machine_class=\"");
		label_value(out, k->machine_class);
	}
	/* 15 significant digits: the seconds a run measured, without float noise */
	tk_buf_addf(out, "\"} %.15g\n", v);
}

void tk_report_metrics(const struct tk_report *r, struct tk_buf *out)
{
	size_t i;

	tk_buf_adds(out, "# TYPE tracker_walltime_seconds gauge\n");
	for (i = 0; i < r->nr; i++)
		metric_line(out, "tracker_walltime_seconds", &r->keys[i], r->keys[i].wall.current);
	tk_buf_adds(out, "# TYPE tracker_walltime_baseline_seconds gauge\n");
	for (i = 0; i < r->nr; i++)
		metric_line(out, "tracker_walltime_baseline_seconds", &r->keys[i],
			    r->keys[i].wall.base_median);
	tk_buf_adds(out, "# TYPE tracker_maxrss_bytes gauge\n");
	for (i = 0; i < r->nr; i++)
		metric_line(out, "tracker_maxrss_bytes", &r->keys[i], r->keys[i].rss.current);
	tk_buf_adds(out, "# TYPE tracker_maxrss_baseline_bytes gauge\n");
	for (i = 0; i < r->nr; i++)
		metric_line(out, "tracker_maxrss_baseline_bytes", &r->keys[i],
			    r->keys[i].rss.base_median);
	tk_buf_adds(out, "# EOF\n");
}

/* ---- the files ---- */

static int write_text(const char *dir, const char *name, const struct tk_buf *b,
		      struct tk_err *err)
{
	struct tk_buf path = TK_BUF_INIT;
	int ret;

	tk_buf_addf(&path, "%s/%s", dir, name);
	ret = tk_write_file_atomic(path.buf, b->buf, b->len, err);
	tk_buf_release(&path);
	return ret;
}

struct checks_job {
	const struct tk_report *r;
	enum tk_checkfmt fmt;
};

static int checks_to(FILE *out, void *data, struct tk_err *err)
{
	const struct checks_job *j = data;

	return tk_checkfmt_write(out, j->fmt, j->r->checks, j->r->nr_checks, 0, err);
}

/* The checks as tracker check prints them (core/pages/checkfmt.h). */
static int write_checks(const struct tk_report *r, const char *dir, const char *name,
			enum tk_checkfmt fmt, struct tk_err *err)
{
	struct checks_job j = { r, fmt };
	struct tk_buf path = TK_BUF_INIT;
	int ret;

	tk_buf_addf(&path, "%s/%s", dir, name);
	ret = tk_write_file_stream(path.buf, checks_to, &j, 0, err);
	tk_buf_release(&path);
	return ret;
}

int tk_report_write(const struct tk_report *r, const struct tk_report_opts *o,
		    struct tk_err *err)
{
	static const char *const ours[] = { "summary.md", "annotation.md", "verdicts.txt",
					    "check.json", "metrics.txt", "index.html" };
	struct tk_buf b = TK_BUF_INIT;
	struct tk_err lerr = TK_ERR_INIT;
	size_t max = o->max_body ? o->max_body : TK_REPORT_BODY_MAX - 1024, done = 0;
	int ret;

	ret = tk_mkdir_p(o->dir, err);
	tk_report_markdown(r, TK_REPORT_LINKS_FILES, NULL, 0, &b);
	if (!ret && !(ret = write_text(o->dir, ours[0], &b, err)))
		done++;
	tk_buf_reset(&b);
	tk_report_markdown(r, TK_REPORT_LINKS_ARTIFACTS,
			   o->artifact_prefix ? o->artifact_prefix : o->dir, max, &b);
	if (!ret && !(ret = write_text(o->dir, ours[1], &b, err)))
		done++;
	if (!ret && !(ret = write_checks(r, o->dir, ours[2], TK_CHECKFMT_TEXT, err)))
		done++;
	if (!ret && !(ret = write_checks(r, o->dir, ours[3], TK_CHECKFMT_JSON, err)))
		done++;
	tk_buf_reset(&b);
	tk_report_metrics(r, &b);
	if (!ret && !(ret = write_text(o->dir, ours[4], &b, err)))
		done++;
	tk_buf_reset(&b);
	tk_report_html(r, &b);
	if (!ret && !(ret = write_text(o->dir, ours[5], &b, err)))
		done++;
	/* what was written, also when a write failed: the next report
	 * removes it */
	if (tk_report_write_files(r, o->dir, ours, done, ret ? &lerr : err) && !ret)
		ret = err->code;
	tk_buf_release(&b);
	return ret;
}
