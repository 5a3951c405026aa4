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
 *             branch, only runs that started before the current one.
 *   verdicts  per metric (o->metrics, default walltime and maxrss) of the
 *             current runs that succeeded (a failed one is listed, but
 *             its figures are not judged: insufficient, with a note), with
 *             the method and threshold of `check: keys: K: METRIC:` in the
 *             config, else o->method / o->vopts, else the defaults of
 *             core/analyze/verdict.h. A metric the current run lacks is
 *             insufficient, with a note.
 *   history   with o->history, the change points (core/analyze/changepoint.h) of
 *             each metric over the baseline branch's last o->history_limit
 *             (default 1000) successful runs of the class, oldest first,
 *             each with the builds and commits either side.
 *
 * Insufficient data is a verdict, not an error: no current run, no
 * baseline branch, or too few baseline runs give a result whose metrics
 * are TK_VERDICT_INSUFFICIENT and whose `note` says why. Errors are the
 * store's (TK_EUNAVAIL, TK_EDATA) and TK_EUSAGE for bad options. Nothing
 * here prints. Every string in a result is owned by it.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/analyze/changepoint.h"
#include "core/model/context.h"
#include "core/model/config.h"
#include "core/base/err.h"
#include "core/model/metric.h"
#include "core/model/run.h"
#include "core/store/keyhist.h"
#include "core/store/store.h"
#include "core/analyze/verdict.h"

#define TK_CHECK_WINDOW_DEFAULT 10

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
	const enum tk_metric *metrics; /* NULL: walltime, maxrss */
	size_t nr_metrics;
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
};

struct tk_check_change {
	struct tk_changepoint cp;  /* index into the series, medians */
	struct tk_check_run first; /* the first run of the new level */
	struct tk_check_run last_before; /* the last run before it */
};

struct tk_check_metric {
	enum tk_metric metric;
	struct tk_verdict_result result;
	struct tk_verdict_opts vopts; /* what judged it */
	const char *note;             /* static, or NULL: overrides result.note */
	size_t nr_values;             /* current runs with the figure */
	size_t series_n;              /* points of the history series */
	struct tk_check_change *changes; /* with o->history */
	size_t nr_changes;
};

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
 * and its limit) was made with m before, under the same CI context and
 * config, and otherwise checks (tk_check_key) and keeps a copy.
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
