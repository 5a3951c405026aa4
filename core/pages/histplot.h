#ifndef TK_HISTPLOT_H
#define TK_HISTPLOT_H
/*
 * History plots: a key's runs over time as charts, one per key and
 * metric, stacked in one picture. tracker history --plot, the dashboard's
 * per-key pages (core/pages/dashboard.h) and tracker report draw them.
 *
 * Three steps, each usable alone:
 *
 *   1. gather: tk_plot_data_load (or tk_store_query_summaries with
 *      tk_plot_data_add as the callback, then tk_plot_data_finish) keeps
 *      what the charts need of each run summary, grouped by key;
 *   2. lay out: tk_plot_layout turns the runs into charts in picture
 *      coordinates: scales, ticks with their labels (dates or build
 *      numbers; µs/ms/s/min/h, KiB/MiB/GiB), the points of each class, the
 *      baseline's rolling median and its band, the change points;
 *   3. render: tk_plot_write (core/pages/plotwrite.h) writes a layout as
 *      PNG or PDF (cairo), SVG (our own writer, text as text) or a
 *      self-contained HTML page (the SVG inline, tooltips, series
 *      toggles, zoom on the time axis): each paints the shapes one walk
 *      decides (core/pages/chart.h), so every format draws the same
 *      chart.
 *
 * What a chart shows, for one key and one metric:
 *   - baseline: the runs on the baseline branch (opts->baseline_branch,
 *     else the key's baseline (tk_plot_data_baselines: tracker check's),
 *     else the branch with most runs of the key), split by machine class
 *     (core/model/machine.h) into series, so that two kinds of machine never
 *     form one noisy series: each series its dots joined by a line, and
 *     over its successful runs a rolling median of the last opts->window
 *     runs with a band of median +- 1.4826 * MAD, and its own change
 *     points. Runs with no class recorded (NULL or "") are one class; a
 *     key whose baseline has one class has one series, drawn as a
 *     history without classes always was. Series are ordered by their
 *     number of runs, most first, then by class name;
 *   - other: runs on other branches, as dots of another colour;
 *   - current: the runs of opts->current_build (the CI context's build),
 *     else (no build, or a build without a run of the key) the key's
 *     newest run, as large dots;
 *   - failed (status not ok) and partial runs get a red or amber halo;
 *   - change points of each baseline series' successful runs
 *     (core/analyze/changepoint.h) as dashed vertical lines labelled with their
 *     build and commit (and, with several series, "on CLASS");
 *   - the current run's verdict and change against its baseline, beside
 *     it, and the verdict's threshold as a band over the runs it was
 *     judged against.
 * The band of a rolling median starts at the series' 5th run (fewer say
 * nothing of the spread). The y axis is honest: it starts at zero, or,
 * when the values stay far from zero, spans at least half their median
 * (so that noise of a few percent never fills the chart) and says so in
 * axis_note.
 *
 * Everything is deterministic: the same runs and options give the same
 * bytes in every format (no clock is read; cairo's PDF carries no date).
 *
 * Strings in runs are untrusted; every writer escapes them for its
 * language (core/pages/chartsvg.h, core/pages/plothtml.h). Nothing here prints, exits or keeps global state. Errors are
 * negative enum tk_code with err filled.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/arena.h"
#include "core/base/err.h"
#include "core/model/metric.h"
#include "core/store/keyhist.h"
#include "core/store/store.h"

#define TK_PLOT_MAX_METRICS TK_METRIC_COUNT
/* the height of the line under the charts naming those left out */
#define TK_PLOT_NOTE_H 24

/* What one run is in a chart. */
enum tk_plot_class { TK_PLOT_BASELINE, TK_PLOT_OTHER, TK_PLOT_CURRENT, TK_PLOT_NCLASSES };

/* Flags of a run. */
#define TK_PLOT_FAILED 1u
#define TK_PLOT_PARTIAL 2u

/* What a chart keeps of a run summary; strings in the data's arena. */
struct tk_plot_run {
	int64_t started_at_us;
	double build;   /* the build number as a number; NaN when none */
	const char *run_id, *branch, *commit, *build_number, *build_url; /* NULL: unknown */
	const char *machine_class; /* NULL: none recorded (also for "") */
	double v[TK_METRIC_COUNT]; /* NaN: unknown */
	unsigned char flags;       /* TK_PLOT_FAILED, TK_PLOT_PARTIAL */
	unsigned char cls;         /* enum tk_plot_class, set by tk_plot_layout */
	unsigned short series;     /* a baseline run's series (tk_plot_chart.series),
				      set by tk_plot_layout; 0 for other runs */
};

struct tk_plot_key {
	char *key;
	char *pipeline;            /* of the newest run; NULL when none */
	int own_pipeline;          /* has runs of tk_plot_data.pipeline */
	const char *baseline;      /* the baseline branch tracker check uses for
				      the key's current run (set by
				      tk_plot_data_baselines); NULL: none */
	struct tk_plot_run *runs;  /* oldest first after tk_plot_data_finish */
	size_t nr, alloc;
	/* 0: a chart for every metric of the options; else only for the
	 * metrics whose bit (1u << metric) is set: a series that is one
	 * metric's alone (tracker history --frame's functions) */
	unsigned metric_mask;
};

struct tk_plot_data {
	struct tk_plot_key *keys;  /* sorted by key after tk_plot_data_finish */
	size_t nr, alloc;
	struct tk_arena arena;
	/* private */
	size_t last;
	const char *last_branch;
	const char *classes[16]; /* the machine classes seen first, interned */
	size_t nclasses;
	/* Set before adding: of a key with runs of this pipeline, only those
	 * (and runs of no pipeline recorded) are kept, as tracker check
	 * compares; a key it never ran (a separate dashboard pipeline) keeps
	 * all. NULL: all. */
	const char *pipeline;
};

void tk_plot_data_init(struct tk_plot_data *d);
/* A tk_summary_fn: keeps s in the data d. Returns 0. */
int tk_plot_data_add(const struct tk_run_summary *s, void *d);
/* Orders what was added: keys by name, runs oldest first. */
void tk_plot_data_finish(struct tk_plot_data *d);
/* The query's summaries, added and finished. The store's errors. */
int tk_plot_data_load(struct tk_plot_data *d, struct tk_store *s,
		      const struct tk_run_query *q, struct tk_err *err);
void tk_plot_data_release(struct tk_plot_data *d);
/*
 * The totals of profiles are not in a run summary: for each metric of o
 * that is one (alloc, alloc_count, heap_peak, cpu_profile;
 * tk_metric_profile_kind), reads the total of each run's stored profile
 * of that kind (tk_profstore_totals), or takes h's (core/store/keyhist.h,
 * h may be NULL) when it read them for its key. A total in another unit
 * than the metric's (a cpu profile of samples, charted in seconds) is no
 * point. The store's errors.
 */
struct tk_plot_opts;
int tk_plot_fill_profiles(struct tk_plot_data *d, const struct tk_key_history *h,
			  struct tk_store *s, const struct tk_plot_opts *o, struct tk_err *err);
/* The runs of h that q selects (as the store's query would), added and
 * finished: a key's charts made from the runs it read once. */
int tk_plot_data_load_history(struct tk_plot_data *d, const struct tk_key_history *h,
			      const struct tk_run_query *q, struct tk_err *err);

/*
 * Sets each key's baseline branch to the one tracker check compares the
 * key's current run with (tk_baseline_branch_for_run, core/analyze/baseline.h):
 * o->baseline_branch, else the PR base of ci, baseline_branch of the key
 * or of cfg, the pipeline's default branch of ci, else (outside CI) of
 * the CI context the current run was recorded in. The current run is
 * the newest run of o->current_build, else the key's newest run, as
 * tk_plot_layout draws it. The store's errors.
 */
struct tk_ci_context;
struct tk_config;
int tk_plot_data_baselines(struct tk_plot_data *d, struct tk_store *s,
			   const struct tk_plot_opts *o, const struct tk_ci_context *ci,
			   const struct tk_config *cfg, struct tk_err *err);

enum tk_plot_x { TK_PLOT_X_TIME, TK_PLOT_X_BUILD };

struct tk_plot_opts {
	enum tk_metric metrics[TK_PLOT_MAX_METRICS];
	size_t nr_metrics;           /* 0: walltime and maxrss */
	enum tk_plot_x x;            /* the time axis: dates or build numbers */
	const char *baseline_branch; /* NULL: each key's baseline, else its
					branch with most runs */
	const char *current_build;   /* NULL, or no run of the key in it: the
					key's newest run is current */
	const char *pipeline;        /* tk_plot_history_to_path: only this
					pipeline's runs (tk_plot_data) */
	size_t window;               /* the rolling median's runs; 0: 10 */
	double width;                /* pixels; 0: 1000 */
	double chart_height;         /* pixels per chart; 0: 340 */
	/*
	 * 0: every run is a point. Else, in a chart of more points than this,
	 * the successful baseline runs are thinned: of those falling in one
	 * pixel column only the lowest, the median and the highest stay (and
	 * of the band, the first and last of each column); every other run
	 * (other branches, current, failed, partial, change points) stays.
	 * Each baseline series (machine class) is thinned on its own: a
	 * column keeps the lowest, median and highest of every series in it.
	 * Rolling medians and change points are still found over all runs.
	 */
	size_t max_points;
};

/* One tick of an axis: its position (pixels) and label. */
struct tk_plot_tick {
	double pos;
	char *label;
};

/* One dot of a chart, in picture coordinates. */
struct tk_plot_point {
	double px, py;
	double v;        /* the metric's value, in its base unit (s, bytes) */
	uint32_t run;    /* index into the key's runs */
	unsigned char cls, flags;
	unsigned short series; /* of a baseline point; 0 for others */
};

/* A baseline series' rolling median at one of its points. */
struct tk_plot_band {
	double px, mid, lo, hi; /* pixels */
	uint32_t run;
};

struct tk_plot_change {
	double px;
	uint32_t run;          /* the first run of the new level */
	double before, after;  /* the levels, in the metric's base unit */
	char *label;           /* "#412 3f2a9c1e +98%"; with several series
				  "#412 3f2a9c1e +98% on cpu-large" */
	int row;               /* the label's row (0..2) below the top; -1: not
				  labelled, for want of room */
	unsigned short series; /* whose change it is */
};

/* The baseline runs of one machine class, in one chart. */
struct tk_plot_series {
	const char *machine_class; /* NULL: none recorded; in the data's arena */
	char *label;          /* "staging · cpu-large"; with one series the
				 baseline branch alone */
	size_t count;         /* its points (before thinning) */
	size_t band0, nband;  /* its rolling median: band[band0 .. band0+nband) */
};

struct tk_plot_chart {
	const struct tk_plot_key *key;
	enum tk_metric metric;
	char *title;          /* "amip — walltime (pipeline climacoupler)" */
	char *unit;           /* of the y axis: "s", "min", "h", "MiB", ... */
	char *baseline;       /* the baseline branch, or "" when none */
	double top;           /* the chart's top in the picture */
	double x0, y0, x1, y1; /* the plot area, y0 its top */
	double xlo, xhi;      /* the data at x0 and x1 (s since the epoch, or build) */
	double ylo, yhi;      /* the data at y1 and y0, base unit */
	double ydiv;          /* base units per axis unit */
	struct tk_plot_tick *xt, *yt;
	size_t nxt, nyt;
	struct tk_plot_point *pts;    /* by x, then run index */
	size_t npts;
	size_t count[TK_PLOT_NCLASSES];
	size_t nfailed, npartial;
	struct tk_plot_band *band;    /* by series, then x */
	size_t nband;
	struct tk_plot_change *changes; /* by series, then x */
	size_t nchanges;
	/* The baseline's series, one per machine class of the key's baseline
	 * runs; always at least one (empty when the baseline has no run). */
	struct tk_plot_series *series;
	size_t nseries;
	size_t nall;                  /* points before thinning (max_points) */
	/*
	 * The current run judged against its baseline series as tracker
	 * check judges it with its default options (tk_check_judge: the
	 * series' newest TK_CHECK_WINDOW_DEFAULT successful runs before it,
	 * cut at their last level). verdict_label is NULL when the chart has
	 * no current run; "+12.0% regression (threshold +2.4% / -2.3%)",
	 * "+0.8% no change (threshold +2.0% / -2.0%)", "no verdict: fewer
	 * than 5 baseline runs"; "no verdict: no baseline branch" when the
	 * baseline is the chart's guess (the busiest branch), not check's.
	 */
	int verdict;                  /* enum tk_verdict */
	double delta_pct;             /* NaN: none */
	char *verdict_label;
	double vx, vy;                /* the judged current point, pixels */
	/* where the label stands (its baseline): beside the point when that
	 * overlaps no change point's label, else in a free row of theirs,
	 * else under the axis; vend: it ends at vtx (else starts there) */
	double vtx, vty;
	int vend;
	/* The verdict's threshold as a band over the baseline runs judged
	 * against, pixels: its edges the values nearest the baseline median
	 * that the same judgement flags (bisection); thr_x1 <= thr_x0 when
	 * there is none. */
	double thr_x0, thr_x1, thr_lo, thr_hi;
	/* The y axis does not start at zero: where it starts and what it
	 * spans, "axis from 1.13 GiB: spans 58% of the median"; NULL when it
	 * starts at zero. */
	char *axis_note;
};

struct tk_plot_layout {
	double width, height;
	enum tk_plot_x x;
	const struct tk_plot_data *data;
	struct tk_plot_chart *charts;  /* key by key, metric by metric */
	size_t nr;
	size_t skipped;                /* runs without a numeric build (x build) */
	char *current;                 /* what the current runs are: "build #412",
					  "newest run", or "build #412, else
					  newest run" when some key has no run
					  in that build */
	char *date;                    /* the newest run's start, ISO 8601 UTC: the
					  PDF's date */
	int thinned;                   /* some chart shows fewer points than runs */
	/* The charts left out for want of values, in one line: "no values
	 * of heap peak for amip, ocean"; NULL when none was. */
	char *omitted;
	size_t drawn;                  /* runs drawn over all charts (before thinning);
					  0: every chart is empty */
	/* HTML (escaped by whoever made it) the HTML page shows below the
	 * charts, borrowed; NULL: none. The dashboard's functions that
	 * moved (core/pages/framehist.h). */
	const char *appendix;
};

/*
 * Lays out a chart for each key of d and each metric of o (d finished).
 * Sets each run's class. TK_EDATA "no runs to plot" when d has no run;
 * a key without values of a metric gets no chart, its name in
 * out->omitted (when no chart at all has values, the picture is that
 * line alone).
 * d must outlive the layout.
 */
int tk_plot_layout(struct tk_plot_data *d, const struct tk_plot_opts *o,
		   struct tk_plot_layout *out, struct tk_err *err);
void tk_plot_layout_release(struct tk_plot_layout *l);

/* Axis helpers, shared with the dashboard and the tests. */
/* A metric in words: "walltime", "max RSS (largest process)", ... */
const char *tk_plot_metric_title(enum tk_metric m);
/* The unit for values up to max of metric m: its name and divisor
 * (durations in h, min, s, ms or µs; sizes in GiB, MiB, KiB or B). */
const char *tk_plot_unit(enum tk_metric m, double max, double *div);
/* A value of metric m in human units: "1.23 s", "2m 03s", "512 MiB". */
void tk_plot_format_value(struct tk_buf *b, enum tk_metric m, double v);
/*
 * Date ticks over [lo, hi] (seconds since the epoch, UTC): at most max
 * ticks at seconds, minutes, hours, days, weeks (Mondays), months or
 * years; labels such as "00:02:15" (ticks under a minute apart), "Mar 14
 * 06:00", "Mar 14", "Jan 2026". Returns how many were
 * written to t (labels allocated, the caller frees them).
 */
size_t tk_plot_date_ticks(double lo, double hi, size_t max, double *t, char **labels);

#endif
