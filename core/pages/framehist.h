#ifndef TK_FRAMEHIST_H
#define TK_FRAMEHIST_H
/*
 * tracker history --frame: one function's history (core/store/frametot.h)
 * written as a table, CSV or JSON, or drawn as history charts.
 *
 * Every format has one row per run, kind of profile and function, newest
 * run first: the run (id, branch, commit, build, start), the kind and its
 * unit, the function, its self and cumulative totals, the profile's
 * total, and its status: "stored"; "below_floor" (the run's profile has
 * frame totals but not this function's: its cumulative total was under
 * the profile's cut, `floor`); "not_stored" (the run's frame totals are
 * not stored: tracker backfill). Values are unknown (table "-", CSV
 * empty, JSON null) unless stored.
 *
 * Function names and every string of a run are untrusted: the table
 * escapes them for a terminal, CSV quotes them (and defuses formulas),
 * JSON encodes them (invalid UTF-8 replaced), the charts' writers escape
 * them for their language.
 *
 * Nothing here prints except to the FILE * given. Errors are negative
 * enum tk_code with err filled: TK_EUNAVAIL for a write that failed,
 * TK_EUSAGE for an unknown format, the store's and the writer's.
 */
#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/base/escape.h"
#include "core/pages/histplot.h"
#include "core/store/frametot.h"
#include "core/store/store.h"

/* format: "table" (or NULL), "csv" or "json". */
int tk_framehist_write(const struct tk_frame_history *h, const char *format, FILE *out,
		       struct tk_err *err);

/*
 * The charts of h: for each function, kind of profile (alloc,
 * alloc_count, heap_peak, and cpu when in nanoseconds: the kinds that
 * are a metric, core/model/metric.h) and self or cumulative, a chart of
 * its value per run, drawn as tracker history --plot draws a metric
 * (baseline branch with its rolling median, band and change points,
 * other branches, the current run), titled "KEY · FUNCTION (self) —
 * allocated bytes". The runs are those q selects; o, ci and cfg pick the
 * baseline and current run as tk_plot_query_to_path does. Written to
 * path (its extension says the format) as tk_write_file_stream does with
 * wflags. TK_EDATA when no chart has a point.
 */
struct tk_ci_context;
struct tk_config;
int tk_framehist_plot(struct tk_store *s, const struct tk_frame_history *h,
		      const struct tk_run_query *q, struct tk_plot_opts *o,
		      const struct tk_ci_context *ci, const struct tk_config *cfg,
		      const char *path, unsigned wflags, struct tk_err *err);

/*
 * The functions that moved across a change point (tk_frametot_movers),
 * for people: "radiation (self) 979 KiB -> 1.91 MiB (+99.6%); ...",
 * names escaped by lang (TK_FRAMEHIST_RAW: as they are, for JSON); "no
 * function moved beyond the noise" when n is 0.
 */
#define TK_FRAMEHIST_RAW (-1)
void tk_framehist_add_moves(struct tk_buf *b, int lang, const struct tk_frame_move *mv,
			    size_t n);
/* "tracker diff --key K --baseline-run BEFORE --run AFTER --kind KIND",
 * the key quoted for a shell: the diff of the runs either side. */
void tk_framehist_diff_command(struct tk_buf *b, const char *key, const char *before,
			       const char *after, const char *kind);

/*
 * For the dashboard's key page: below the charts of l (laid out), for
 * each change point of each chart, the functions that moved across it
 * (tk_frametot_movers over the TK_CHECK_HINT_RUNS successful runs of the
 * change's baseline series either side, within the segments either side)
 * and the diff command, as an HTML section appended to html (names
 * escaped); nothing when no change point has runs with frame totals.
 */
int tk_framehist_moves_html(struct tk_store *s, const struct tk_plot_layout *l,
			    struct tk_buf *html, struct tk_err *err);

#endif
