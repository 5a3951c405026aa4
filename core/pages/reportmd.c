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

struct md {
	const struct tk_report *r;
	enum tk_report_links links;
	const char *prefix;
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

static void add_link(struct tk_buf *out, const struct md *m, const char *text,
		     const char *name, const char *suffix)
{
	struct tk_buf file = TK_BUF_INIT;

	tk_buf_addf(&file, "%s%s", name, suffix);
	tk_buf_addf(out, "[%s](", text);
	add_target(out, m, file.buf);
	tk_buf_addch(out, ')');
	tk_buf_release(&file);
}

static const char *verdict_md(enum tk_verdict v)
{
	switch (v) {
	case TK_VERDICT_REGRESSION: return "**regression**";
	case TK_VERDICT_IMPROVEMENT: return "improvement";
	case TK_VERDICT_NO_CHANGE: return "no change";
	default: return "insufficient data";
	}
}

static void value_cells(struct tk_buf *out, enum tk_metric metric,
			const struct tk_report_cell *c)
{
	tk_buf_adds(out, " | ");
	if (c->current >= 0)
		tk_metric_format(out, metric, c->current);
	else
		tk_buf_adds(out, "–");
	tk_buf_adds(out, " | ");
	if (c->current >= 0 && c->base_median >= 0) {
		int strong = c->verdict == TK_VERDICT_REGRESSION;

		tk_buf_addf(out, "%s%+.1f%%%s (", strong ? "**" : "", c->delta_pct,
			    strong ? "**" : "");
		tk_metric_format(out, metric, c->base_median);
		tk_buf_addf(out, ", %zu run%s)", c->n, c->n == 1 ? "" : "s");
	} else {
		tk_buf_adds(out, "no baseline");
	}
}

/* The key, and " on CLASS" for one machine class of a matrix build. */
static void key_text(struct tk_buf *out, const struct tk_report_key *k)
{
	tk_md_escape(out, k->key, 0);
	if (k->machine_class) {
		tk_buf_adds(out, " on ");
		tk_md_escape(out, k->machine_class, 0);
	}
}

static void row(struct tk_buf *out, const struct md *m, const struct tk_report_key *k)
{
	tk_buf_adds(out, "| ");
	key_text(out, k);
	value_cells(out, TK_METRIC_WALLTIME, &k->wall);
	value_cells(out, TK_METRIC_MAXRSS, &k->rss);
	tk_buf_addf(out, " | %s | ", verdict_md(k->verdict));
	if (m->links != TK_REPORT_LINKS_NONE) {
		const char *sep = "";

		if (k->has_chart) {
			add_link(out, m, "history", k->name, ".html");
			sep = " · ";
		}
		if (k->diff_kind) {
			struct tk_buf text = TK_BUF_INIT;

			tk_buf_addf(&text, "%s diff", k->diff_kind);
			tk_buf_adds(out, sep);
			add_link(out, m, text.buf, k->name, "-diff.html");
			tk_buf_release(&text);
		}
	}
	tk_buf_adds(out, " |\n");
}

static void header(struct tk_buf *out, const struct tk_report *r)
{
	static const enum tk_verdict order[] = { TK_VERDICT_REGRESSION, TK_VERDICT_IMPROVEMENT,
						 TK_VERDICT_NO_CHANGE, TK_VERDICT_INSUFFICIENT };
	const char *sep = ": ";
	size_t i;

	tk_buf_adds(out, "### tracker: performance");
	if (r->build) {
		tk_buf_adds(out, " of build ");
		tk_md_escape(out, r->build, 40);
	}
	if (r->branch) {
		tk_buf_adds(out, " on ");
		tk_md_escape(out, r->branch, 200);
	}
	tk_buf_adds(out, "\n\n");
	tk_report_describe_count(r, out);
	for (i = 0; i < 4; i++) {
		size_t n = r->count[order[i]];

		if (!n)
			continue;
		if (order[i] == TK_VERDICT_REGRESSION)
			tk_buf_addf(out, "%s**%zu regression%s**", sep, n, n == 1 ? "" : "s");
		else
			tk_buf_addf(out, "%s%zu %s", sep, n, tk_verdict_name(order[i]));
		sep = ", ";
	}
	tk_buf_adds(out, r->nr ? ".\n\n" : ": nothing was recorded in this build.\n");
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
	key_text(out, k);
	tk_buf_addf(out, "**: %s\n\n[![history of ", verdict_md(k->verdict));
	key_text(out, k);
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
	struct md m = { r, links, prefix };
	struct tk_buf piece = TK_BUF_INIT;
	size_t start = out->len, i, shown = 0, charts = 0, nr_charts = 0;
	int open = 0, full = 0;

	if (max)
		max += start;
	header(&piece, r);
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
	tk_buf_addf(out, "\"} %.17g\n", v);
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
	struct tk_buf b = TK_BUF_INIT;
	size_t max = o->max_body ? o->max_body : TK_REPORT_BODY_MAX - 1024;
	int ret;

	ret = tk_mkdir_p(o->dir, err);
	tk_report_markdown(r, TK_REPORT_LINKS_FILES, NULL, 0, &b);
	if (!ret)
		ret = write_text(o->dir, "summary.md", &b, err);
	tk_buf_reset(&b);
	tk_report_markdown(r, TK_REPORT_LINKS_ARTIFACTS,
			   o->artifact_prefix ? o->artifact_prefix : o->dir, max, &b);
	if (!ret)
		ret = write_text(o->dir, "annotation.md", &b, err);
	if (!ret)
		ret = write_checks(r, o->dir, "verdicts.txt", TK_CHECKFMT_TEXT, err);
	if (!ret)
		ret = write_checks(r, o->dir, "check.json", TK_CHECKFMT_JSON, err);
	tk_buf_reset(&b);
	tk_report_metrics(r, &b);
	if (!ret)
		ret = write_text(o->dir, "metrics.txt", &b, err);
	tk_buf_release(&b);
	return ret;
}
