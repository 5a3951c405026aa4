#ifndef TK_CHECK_H
#define TK_CHECK_H
/*
 * The check of one key against the history: the one place that decides
 * which runs are compared, so `tracker check`, `tracker report` and the
 * dashboard give the same verdict.
 *
 *   current   o->run_id; else, with a CI build number, every run of the
 *             key in this build (same branch and build number: repeats
 *             and ranks, judged together); else the newest run of the key
 *             on the current branch (o->branch, else the CI context's,
 *             else any branch).
 *   machine class  o->machine_class, else the current run's (the newest
 *             one). Two machine classes never form one series: baseline
 *             and history take only runs of that class, and runs with no
 *             stored class (recorded before classes existed) match any.
 *   baseline  the o->window (else `check: window:` of the config, else
 *             10) newest successful, complete runs of the key on the
 *             baseline branch (tk_baseline_branch: --baseline-branch, the
 *             PR base, the key's then the file's baseline_branch, the
 *             pipeline's default branch) of the machine class, never a
 *             current run, and, when the baseline branch is the current
 *             branch, only runs that started before the current one. Per
 *             metric, the window starts after the last change point of
 *             the baseline's newest runs (tk_check_recent): a level the
 *             key moved to a few builds ago is the level judged against
 *             (`since`, "10 runs of main since #14").
 *   verdicts  per metric (o->metrics, else the config's `metrics:`, else
 *             every figure the runs have: walltime, maxrss and cpu, and
 *             the total of each profile kind the current run has; and
 *             every metric a rule of the config names) of the current
 *             runs that succeeded (a failed one is listed, but its
 *             figures are not judged: insufficient, with a note), with
 *             the method and threshold of `check: keys: K: METRIC:` in the
 *             config, else o->method / o->vopts, else the defaults of
 *             core/analyze/verdict.h. A metric the current run lacks is
 *             insufficient, with a note.
 *   frames    unless off, for each profile kind: NEW, the first current
 *             run that succeeded with such a profile, against the newest
 *             5 runs with one of the window, then of the 20 runs before
 *             it, diffed by tracker diff's code (tk_diff_stored_runs,
 *             core/analyze/diffstore.h); a profile that cannot be read
 *             leaves its kind out (frames_error); and the functions that
 *             moved beyond the diff's noise floor, largest
 *             first (at most TK_CHECK_FRAMES_MAX): said beside the
 *             verdicts, and a regression of their own only when
 *             `frames: fail` asks (tk_check_worst).
 *   history   with o->history, the change points (core/analyze/changepoint.h) of
 *             each metric over the baseline branch's last o->history_limit
 *             (default 1000) successful runs of the class, oldest first,
 *             each with the builds and commits either side and the
 *             functions that moved most across it (struct
 *             tk_check_change: from the stored frame totals, no profile
 *             decoded).
 *
 * Insufficient data is a verdict, not an error: no current run, no
 * baseline branch, or too few baseline runs give a result whose metrics
 * are TK_VERDICT_INSUFFICIENT and whose `note` says why. Errors are the
 * store's (TK_EUNAVAIL, TK_EDATA) and TK_EUSAGE for bad options. Nothing
 * here prints. Every string in a result is owned by it.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/analyze/baseline.h"
#include "core/analyze/changepoint.h"
#include "core/model/context.h"
#include "core/model/config.h"
#include "core/base/err.h"
#include "core/model/metric.h"
#include "core/model/run.h"
#include "core/analyze/diffstore.h"
#include "core/store/frametot.h"
#include "core/store/keyhist.h"
#include "core/store/store.h"
#include "core/analyze/verdict.h"

#define TK_CHECK_WINDOW_DEFAULT 10

struct tk_check_result;
struct tk_check_kind;

struct tk_check_opts {
	const char *key;             /* required */
	const char *run_id;          /* the current run is this one */
	const char *branch;          /* the current branch; NULL: the CI context's */
	const char *build;           /* the current build; NULL: the CI context's */
	const char *baseline_branch; /* NULL: tk_baseline_branch's precedence */
	const char *machine_class;   /* NULL: the current run's */
	/* Only this build's runs of this machine class, against its baseline.
	 * NULL: those of the newest run's class (unless machine_class is
	 * named: then all), the other classes listed in other_classes. */
	const char *current_class;
	size_t window;               /* 0: config, else TK_CHECK_WINDOW_DEFAULT */
	/* NULL: the config's metrics: for the key, else every key's, else
	 * every figure the runs have (walltime, maxrss and cpu always; each
	 * profile kind's total the current run has), and every metric a rule
	 * of the config names */
	const enum tk_metric *metrics;
	size_t nr_metrics;
	/* The functions that moved (the check's diffs): the config's
	 * `frames:`, else TK_CHECK_FRAMES_REPORT; TK_CHECK_FRAMES_UNSET: the
	 * config's. */
	int frames;
	/*
	 * Called with each diff the check makes (core/analyze/diffstore.h)
	 * and what the check found in it (k, a kind of r, whose metrics are
	 * judged), while it holds the diff, so that a caller draws it
	 * without building it again (the report's diff pages); NULL: none.
	 * A non-zero return is the check's error, with err filled.
	 */
	int (*on_diff)(void *data, const struct tk_check_result *r,
		       const struct tk_check_kind *k, const struct tk_stored_diff *d,
		       const struct tk_diff_opts *dopts, struct tk_err *err);
	void *on_diff_data;
	/* Named on the command line: wins over the config for every metric. */
	int method_set;
	struct tk_verdict_opts vopts; /* used when method_set; else defaults */
	int history;                 /* find change points */
	size_t history_limit;        /* 0: 1000 */
	/* The key's runs already read (core/store/keyhist.h), or NULL: the
	 * check reads them there, and asks the store only for what the
	 * history does not hold (runs before its start). */
	const struct tk_key_history *history_runs;
};

void tk_check_opts_init(struct tk_check_opts *o);

/* A run of a series, as outputs name it. */
struct tk_check_run {
	char id[TK_RUN_ID_LEN + 1];
	char *branch, *build, *commit, *machine_class, *pipeline; /* NULL when unknown */
	int64_t started_at_us;
	enum tk_run_status status;
	int exit_code, term_signal; /* as the run's summary has them */
};

struct tk_check_change {
	struct tk_changepoint cp;  /* index into the series, medians */
	struct tk_check_run first; /* the first run of the new level */
	struct tk_check_run last_before; /* the last run before it */
	/*
	 * The functions that moved most across it (bisect hints): from the
	 * frame totals (core/store/frametot.h, tk_frametot_movers) of
	 * frames_kind's profiles of the TK_CHECK_HINT_RUNS runs either side
	 * (within the segments either side), largest move first, at most
	 * TK_CHECK_FRAMES_MAX. frames_kind is the metric's own kind for a
	 * profile total, "cpu" for walltime and cpu, "alloc" for the RSS
	 * figures (static). frames_compared is 0 when the runs of one side
	 * have no frame totals of that kind: then there is nothing to say,
	 * nor a diff to look at.
	 */
	const char *frames_kind;
	int frames_compared;
	struct tk_frame_move *frames;
	size_t nr_frames;
};

#define TK_CHECK_HINT_RUNS 10

struct tk_check_metric {
	enum tk_metric metric;
	enum tk_metric_unit unit;     /* its values' (a cpu profile's may be samples) */
	struct tk_verdict_result result;
	struct tk_verdict_opts vopts; /* what judged it */
	const char *note;             /* static, or NULL: overrides result.note */
	/* The baseline starts at this run, the first of the level the
	 * metric is judged at (tk_check_recent); NULL when the window is the
	 * baseline's newest runs as they are. */
	struct tk_check_run *since;
	size_t nr_values;             /* current runs with the figure */
	size_t series_n;              /* points of the history series */
	struct tk_check_change *changes; /* with o->history */
	size_t nr_changes;
};

/* A function that moved beyond the noise in a check's diff. */
struct tk_check_frame {
	char *path;        /* leaf first, "churn <- radiation"; untrusted */
	int cumulative;    /* its total moved (0: its self weight) */
	int up;            /* 1 grew, 0 shrank */
	int is_new;        /* absent from every baseline run */
	double base, now;  /* the weights, in the profile's unit */
	uint32_t node;     /* private: its node in the diff that found it */
};

/* The check's diff of one profile kind: NEW against baseline runs. */
struct tk_check_kind {
	char *kind;                 /* "cpu", "alloc", "alloc_count", "heap_peak" */
	char *unit;                 /* the profile's unit name (tk_unit_name) */
	char *quantity;             /* what its totals are: "allocations" */
	/* the diff's totals line, as tracker diff prints it: "allocations
	 * 171 MiB -> 210 MiB (+23.0%); baseline: mean of 5 runs" */
	char *headline;
	struct tk_check_run new_run;
	size_t nr_base;             /* baseline runs with such a profile */
	double base_total, new_total;
	struct tk_check_frame *frames; /* largest change first */
	size_t nr_frames;
	int frames_up;              /* a frame grew beyond the noise */
};

#define TK_CHECK_FRAMES_MAX 5

/* The current run's command against its baseline runs' (tk_check_command). */
struct tk_check_command {
	size_t differ;  /* baseline runs whose command is not the current run's */
	size_t known;   /* baseline runs whose record holds a command */
	char *current;  /* the current run's command as shell words; NULL: none differs */
	char *other;    /* the newest differing baseline run's, the same way */
};

struct tk_check_result {
	char *key;
	char *branch;          /* the current run's */
	char *baseline_branch; /* NULL when none could be found */
	char *machine_class;   /* NULL: any */
	struct tk_check_run *current; /* newest first */
	size_t nr_current;
	struct tk_check_run *base;    /* the baseline window, newest first */
	size_t nr_base;
	struct tk_check_metric *metrics;
	size_t nr_metrics;
	const char *note;      /* static: why everything is insufficient, or NULL */
	/* The machine classes of this build's other runs of the key, set
	 * aside: each is checked on its own (current_class). */
	char **other_classes;
	size_t nr_other_classes;
	/* The diffs, one per profile kind both sides have (frames not off). */
	struct tk_check_kind *kinds;
	size_t nr_kinds, alloc_kinds;
	int frames;        /* enum tk_check_frames: what the check did with them */
	/* The first diff that could not be made ("no alloc diff: corrupt
	 * stored profile ..."): its kind is left out, the check goes on. */
	char *frames_error;
	struct tk_check_command command; /* zero until tk_check_command fills it */
};

int tk_check_key(struct tk_store *s, const struct tk_check_opts *o,
		 const struct tk_ci_context *ci, const struct tk_config *cfg,
		 struct tk_check_result *out, struct tk_err *err);
void tk_check_result_release(struct tk_check_result *r);

/*
 * Whether r compares like with like: the command (run->argv) of r's
 * newest current run against those of its baseline runs. A different
 * program or different arguments (another resolution, another config
 * file) make runs whose figures should not be one series, whatever the
 * verdict says. Reads the records of those runs only (one small query
 * each, by id), and fills r->command; runs without a recorded command
 * are not compared. Returns 0 or the store's error.
 */
int tk_check_command(struct tk_store *s, struct tk_check_result *r, struct tk_err *err);
/* Appends "the current run's command differs from 7 of its 10 baseline
 * runs ('julia a.jl' vs 'julia b.jl')", the commands shown from their
 * first different word when long; nothing when none differs. Raw text:
 * outputs escape it. */
void tk_check_command_say(const struct tk_check_result *r, struct tk_buf *out);

/*
 * tracker check's results: those of tk_check_key for o's key (its
 * current_class ignored), then, for each of the result's other_classes,
 * those of this build's runs of that class, appended to out in that
 * order. A zeroed struct tk_check_results is empty;
 * tk_check_results_release frees the results and leaves it empty. On an
 * error, what was appended before stays.
 */
struct tk_check_results {
	struct tk_check_result *v;
	size_t nr, alloc;
};
int tk_check_key_classes(struct tk_store *s, const struct tk_check_opts *o,
			 const struct tk_ci_context *ci, const struct tk_config *cfg,
			 struct tk_check_results *out, struct tk_err *err);
void tk_check_results_release(struct tk_check_results *r);
/* A deep copy of src into dst (owned by dst). */
void tk_check_result_copy(struct tk_check_result *dst, const struct tk_check_result *src);

/*
 * The checks a command has made, so that a report and its dashboard run
 * each check once: tk_check_key_memo answers from m when a check with the
 * same options that decide its result (key, run, branch, build, baseline
 * branch, machine class, current class, window, metrics, method, history
 * and its limit, and a frames policy the kept result answers: one made
 * with diffs answers a request for none) was made with m before, under
 * the same CI context and config, and otherwise checks (tk_check_key) and
 * keeps a copy. A check answered from m calls no on_diff.
 * tk_check_memo_find only looks: it is safe from several threads while
 * nothing is added. A zeroed memo is empty; tk_check_memo_release frees
 * it and leaves it empty.
 */
struct tk_check_memo_entry;
struct tk_check_memo {
	struct tk_check_memo_entry *e;
	size_t nr, alloc;
};

int tk_check_key_memo(struct tk_check_memo *m, struct tk_store *s,
		      const struct tk_check_opts *o, const struct tk_ci_context *ci,
		      const struct tk_config *cfg, struct tk_check_result *out,
		      struct tk_err *err);
/* The result kept for o, or NULL; borrowed from m. */
const struct tk_check_result *tk_check_memo_find(const struct tk_check_memo *m,
						 const struct tk_check_opts *o);
void tk_check_memo_release(struct tk_check_memo *m);

/* What a check of o does with the functions that moved: o->frames, else
 * the config's for the key, else for every key, else
 * TK_CHECK_FRAMES_REPORT. */
int tk_check_frames_policy(const struct tk_check_opts *o, const struct tk_config *cfg);

/*
 * The runs tracker diff compares, chosen as the check chooses (o's
 * current runs, baseline branch, machine class, pipeline; successful,
 * complete, never current, before the current runs on their own branch):
 * NEW, the newest current run with a profile of kind; the baseline, the
 * newest n baseline runs with one (1 when n is 0), or the one run
 * baseline_run names (which must have succeeded). TK_EDATA naming what
 * was looked for when there is no NEW or no baseline run, TK_EUSAGE when
 * no baseline branch can be found; *out is then released.
 */
int tk_check_diff_runs(struct tk_store *s, const struct tk_check_opts *o,
		       const struct tk_ci_context *ci, const struct tk_config *cfg,
		       const char *kind, size_t n, const char *baseline_run,
		       struct tk_baseline *out, struct tk_err *err);

/*
 * tracker diff --key: the runs of tk_check_diff_runs and their diff
 * (tk_diff_stored_runs, core/analyze/diffstore.h) into out, whose
 * `chosen` says the runs were found (a caller may describe them after an
 * error loading their profiles). Release out with
 * tk_stored_diff_release, also after an error.
 */
int tk_check_diff(struct tk_store *s, const struct tk_check_opts *o,
		  const struct tk_ci_context *ci, const struct tk_config *cfg, const char *kind,
		  size_t n, const char *baseline_run, int no_demangle,
		  struct tk_diff_opts *dopts, struct tk_stored_diff *out, struct tk_err *err);

/*
 * How many of a baseline's newest values (newest first) are its current
 * level: all n, or those after the last change point of the series
 * (tk_changepoints with segments of 3 runs at least), or the newest 3 to
 * 16 runs when they stand apart from all before them
 * (tk_changepoint_newest_level, 4 robust sigmas), whichever is newer, so
 * a level shift a few builds back starts the baseline window. A level
 * needs 5 runs before it: a shorter history is kept whole.
 */
size_t tk_check_recent(const double *newest_first, size_t n);

/*
 * The verdict on a metric's current values c (nc of them) against its
 * baseline b, newest first: the window's nw values, then older ones, nb
 * in all. The baseline is cut at its last change point
 * (tk_check_recent); *keep (may be NULL) gets how many of b were kept.
 * What tk_check_key does with each metric; the harness
 * (bench/verdicts.c) judges its synthetic keys with it.
 */
int tk_check_judge(const double *b, size_t nw, size_t nb, const double *c, size_t nc,
		   const struct tk_verdict_opts *o, struct tk_verdict_result *r, size_t *keep,
		   struct tk_err *err);

/* tk_check_judge with the level already cut: k of b's nb values kept
 * (what tk_check_judge's *keep said, which the current values do not
 * change): for judging many values against one baseline. */
int tk_check_judge_kept(const double *b, size_t nw, size_t k, size_t nb, const double *c,
			size_t nc, const struct tk_verdict_opts *o, struct tk_verdict_result *r,
			struct tk_err *err);

/* The metric of r that judges k's totals (alloc for "alloc", cpu_profile
 * for "cpu"), or NULL when r does not judge it. */
const struct tk_check_metric *tk_check_kind_metric(const struct tk_check_result *r,
						    const struct tk_check_kind *k);
/* Whether the profiles of kind k changed: its total's verdict is a
 * regression or an improvement, or a function moved beyond the noise. */
int tk_check_kind_changed(const struct tk_check_result *r, const struct tk_check_kind *k);

/*
 * Why the current run is not judged when it did not succeed, with its
 * status: "failed (exit 1)", "killed by signal 9", "cancelled", "timed
 * out", "could not start", "still running"; nothing when it succeeded.
 */
void tk_check_add_outcome(struct tk_buf *b, const struct tk_check_run *run);

/* The worst verdict of a result: regression > improvement > no change >
 * insufficient. tk_check_verdict_rank gives that order: 3, 2, 1, 0. */
enum tk_verdict tk_check_worst(const struct tk_check_result *r);
int tk_check_verdict_rank(enum tk_verdict v);

/*
 * The keys a check with no --key looks at, appended to keys (malloc'd
 * strings, sorted, no duplicates): with a CI build number and branch, the
 * keys recorded in this build of this pipeline; else the keys of the runs
 * on the current branch (CI context's, else any) in the newest 24 hours
 * of its runs.
 */
int tk_check_default_keys(struct tk_store *s, const struct tk_ci_context *ci,
			  const char *branch, char ***keys, size_t *nr_keys,
			  struct tk_err *err);

#endif
