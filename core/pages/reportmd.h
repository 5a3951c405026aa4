#ifndef TK_REPORTMD_H
#define TK_REPORTMD_H
/*
 * The report of a build (core/pages/report.h) as text and files: its
 * markdown summary (for files, for a CI build page with artifact links,
 * or without links), the OpenMetrics text, and the files a CI uploads.
 * Every untrusted string goes through the markdown rule of
 * core/base/escape.h; URLs are made only of tracker's file names and the
 * report's prefix, percent-encoded.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/pages/report.h"

/* How the markdown links to the report's files. */
enum tk_report_links {
	TK_REPORT_LINKS_FILES,     /* relative to the report directory */
	TK_REPORT_LINKS_ARTIFACTS, /* artifact://PREFIX/..., charts inline */
	TK_REPORT_LINKS_NONE,      /* no links (GitHub's step summary) */
};

/*
 * Appends the markdown summary: a title, the counts, the table (key,
 * walltime and peak RSS against the baseline median, the verdict with
 * every other metric that moved, links to the chart and diffs), what
 * changed in the profiles (per key and kind that changed: the totals,
 * the functions that moved, the diff's link), then (artifact links) the
 * small charts. At most max bytes are appended
 * (0: no limit): rows that do not fit are left out, regressions last to
 * go, with a line saying how many and where the whole table is.
 */
void tk_report_markdown(const struct tk_report *r, enum tk_report_links links,
			const char *prefix, size_t max, struct tk_buf *out);

/*
 * Appends index.html, the one page of the report to open: the title and
 * counts, the table (links to the charts and diffs as files of the
 * directory), what changed per key (the totals and functions of each
 * kind of profile that changed), the dashboard's link and every key's
 * small chart. Self-contained: no script, a CSP that allows only the
 * report's own images and the inline style.
 */
void tk_report_html(const struct tk_report *r, struct tk_buf *out);

/* OpenMetrics text: walltime_seconds, maxrss_bytes and their baseline
 * medians per key (label key="..." escaped), then "# EOF". */
void tk_report_metrics(const struct tk_report *r, struct tk_buf *out);

/* Writes summary.md, annotation.md, verdicts.txt, check.json,
 * metrics.txt and index.html into o->dir (atomically each), then the
 * list of the files the report wrote (core/pages/report.h). */
int tk_report_write(const struct tk_report *r, const struct tk_report_opts *o,
		    struct tk_err *err);

#endif
