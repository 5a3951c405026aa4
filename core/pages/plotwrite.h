#ifndef TK_PLOTWRITE_H
#define TK_PLOTWRITE_H
/*
 * A laid-out chart (core/pages/histplot.h) written to a file or a stream
 * in the format its name asks for: PNG or PDF through the cairo painter,
 * SVG through the SVG painter, the interactive page around it
 * (core/pages/chart.h). The one place that knows every format of a
 * chart; nothing here prints.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/base/err.h"
#include "core/pages/histplot.h"
#include "core/store/keyhist.h"
#include "core/store/store.h"

enum tk_plot_format { TK_PLOT_PNG, TK_PLOT_PDF, TK_PLOT_SVG, TK_PLOT_HTML };

/* The format of a file name's extension (.png .pdf .svg .html .htm);
 * TK_EUSAGE naming path otherwise. */
int tk_plot_format_of(const char *path, enum tk_plot_format *out, struct tk_err *err);

/*
 * Writes l to out as fmt, and flushes out. Returns 0, or TK_EUNAVAIL when
 * a write failed; TK_EINTERNAL when cairo cannot make the picture. The
 * HTML page links back to `back` (NULL: no link), e.g. the dashboard.
 */
int tk_plot_write(const struct tk_plot_layout *l, enum tk_plot_format fmt, const char *back,
		  FILE *out, struct tk_err *err);

/*
 * For tracker report: the runs of h (a key's, core/store/keyhist.h)
 * started at or after since_us (0: all) laid out with o and written to
 * path (format by its extension), atomically (a reader sees the old file
 * or the new one). TK_EDATA when the key has no run since then. As
 * tracker history --plot does, a caller in CI sets o->current_build to
 * the CI context's build number and o->baseline_branch to
 * tk_baseline_branch's answer (core/analyze/baseline.h); the alloc metric
 * is read from h, else from the store s, when o asks for it.
 */
int tk_plot_history_to_path(const struct tk_key_history *h, struct tk_store *s,
			    int64_t since_us, const struct tk_plot_opts *o, const char *path,
			    struct tk_err *err);

/* Writes l to path as its extension says, atomically; wflags: the
 * TK_WRITE_* flags of tk_write_file_atomic_flags (core/base/fsutil.h). */
int tk_plot_write_path(const struct tk_plot_layout *l, const char *path, const char *back,
		       unsigned wflags, struct tk_err *err);


/*
 * tracker history --plot: the charts of the runs q selects (its keys,
 * branch and since bound) drawn with o into path, in the format of its
 * extension, written as tk_write_file_stream does (wflags: its flags).
 * ci is the current build's context (core/model/context.h): its build
 * number is o's current_build, its pipeline picks the runs, and it
 * takes part in choosing each key's baseline (tk_plot_data_baselines).
 *
 * res says what the caller may want to tell: the keys of q->keys that
 * have no run (no chart; borrowed from q), the runs left out for want of
 * a numeric build number (x build), and the keys that have runs. Errors:
 * TK_EDATA "no runs to plot since DATE" (res->nr_keys 0) or "no run to
 * plot has ..." when no point would be drawn, TK_EUSAGE for a path of no
 * chart format, else the store's and the writer's errors.
 */
struct tk_plot_result {
	size_t nr_keys;        /* keys with runs */
	const char **missing;  /* keys of q->keys without runs (allocated) */
	size_t nr_missing;
	size_t skipped;        /* runs not drawn: no numeric build number */
};
struct tk_ci_context;
struct tk_config;
int tk_plot_query_to_path(struct tk_store *s, const struct tk_run_query *q,
			  struct tk_plot_opts *o, const struct tk_ci_context *ci,
			  const struct tk_config *cfg, const char *path, unsigned wflags,
			  struct tk_plot_result *res, struct tk_err *err);
void tk_plot_result_release(struct tk_plot_result *res);

#endif
