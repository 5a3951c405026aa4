#ifndef TK_CHECKFMT_H
#define TK_CHECKFMT_H
/*
 * The outputs of checks (core/analyze/check.h): a text table for the terminal,
 * markdown for CI annotations and reports, and JSON for scripts. The same
 * results print the same way wherever they are shown.
 *
 *   text      one aligned line per key and metric: verdict, baseline
 *             median and spread, current value, change, the statistic
 *             against its threshold (method), a note (why it is not
 *             judged, where a moved baseline starts); then, per kind of
 *             profile the check diffed, the totals and the functions
 *             that moved; with history, a table of change points. Keys and branches are escaped by
 *             the text rule of core/base/escape.h (controls and invalid
 *             UTF-8 as \xNN), so a hostile name cannot drive the terminal.
 *   markdown  the same as a table; names are escaped by the markdown rule
 *             of core/base/escape.h.
 *   json      { "format": "tracker-check", "version": 1, "results": [...] },
 *             documented in docs/tracker-check.md.
 *
 * A result whose current run's command is not its baseline runs'
 * (tk_check_command) adds a warning line below its header in markdown and
 * a command_differs object in JSON; the text table leaves it to its
 * caller (tracker check warns on standard error). Results without one
 * print as they always did.
 *
 * Writes only to the FILE * given; returns 0, or TK_EUNAVAIL when the
 * write fails (ferror).
 */
#include <stdio.h>

#include "core/base/buf.h"
#include "core/analyze/check.h"
#include "core/base/err.h"
#include "core/base/escape.h"

enum tk_checkfmt {
	TK_CHECKFMT_TEXT,
	TK_CHECKFMT_JSON,
	TK_CHECKFMT_MARKDOWN,
};

/* *out for "text", "json" or "markdown"; TK_EUSAGE naming the others. */
int tk_checkfmt_parse(const char *name, enum tk_checkfmt *out, struct tk_err *err);

/*
 * The pieces that say what changed in a kind of profile (k, one of r's
 * kinds), in lang (core/base/escape.h: the terminal's, markdown or
 * HTML); the report shows them as check does:
 *   head   "alloc profile regression: allocations 171 MiB -> 210 MiB
 *          (+23.0%); baseline: mean of 5 runs" (the verdict of its total,
 *          the diff's totals line)
 *   frame  "radiation <- main +97.7% (+39.0 MiB)", " in total" inside the
 *          parentheses when it is the frame's cumulative weight.
 */
void tk_checkfmt_kind_head(struct tk_buf *b, const struct tk_check_result *r,
			   const struct tk_check_kind *k, enum tk_esc_lang lang);
void tk_checkfmt_frame(struct tk_buf *b, const struct tk_check_kind *k,
		       const struct tk_check_frame *f, enum tk_esc_lang lang);

int tk_checkfmt_write(FILE *f, enum tk_checkfmt fmt, const struct tk_check_result *r,
		      size_t nr, int history, struct tk_err *err);

#endif
