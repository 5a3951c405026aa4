#ifndef TK_REPORT_H
#define TK_REPORT_H
/*
 * The report of one build: for every key recorded in it, its history
 * chart, its diff flame graph against the baseline when profiles exist,
 * the check's verdicts, and a summary table; written into a directory
 * that a CI system can upload and show (tracker report).
 *
 * Which build (tk_report_build):
 *   keys     tk_check_default_keys: with a CI build number and branch, the
 *            keys recorded in this build; else the keys run on the current
 *            branch (the CI context's, else any) in the newest 24 hours of
 *            its runs.
 *   verdicts tk_check_key per key (core/analyze/check.h): the current runs (this
 *            build, else the key's newest run on the branch), the
 *            baseline window, every figure the runs have (or o->metrics);
 *            the same verdicts as `tracker check`, with its diffs.
 *   chart    tk_plot_history_to_path (core/pages/histplot.h), from the key's
 *            runs read once (core/store/keyhist.h): <name>.png (small,
 *            for the annotation) and <name>.html (interactive), the
 *            current build's runs marked: walltime, maxrss and every
 *            other metric that changed (or o->metrics).
 *   diffs    the check's diffs, drawn as it makes them (its on_diff):
 *            <name>-<kind>-diff.html for each kind of profile that
 *            changed (tk_check_kind_changed), else for the first kind,
 *            as `tracker diff --key K --kind KIND` draws it.
 *   memory   with the charts, the memory timeline of the key's current
 *            run (the newest, core/pages/memtimeline.h), when it has one:
 *            <name>-memory.png and <name>-memory.html.
 *   dashboard  with the charts, the dashboard of every key with runs in
 *            the last year (core/pages/dashboard.h) in DIR/dashboard/, linked
 *            from the summary.
 * where <name> is tk_report_file_name(key): the key reduced to
 * [A-Za-z0-9._-] and a hash of the key, so two keys never share files.
 *
 * A chart or diff page that cannot be made is a warning (o->warn) and
 * the report goes on without it; a profile that cannot be read leaves
 * its kind out of the check (its frames_error); the store's errors end
 * the build.
 *
 * Outputs (tk_report_write, core/pages/reportmd.h): summary.md (the
 * table and what changed, links relative to the directory), annotation.md
 * (the body for a CI build page: the table, what changed, small charts
 * and links as artifact:// URLs under o->artifact_prefix, cut to fit
 * o->max_body bytes with a note), index.html, verdicts.txt and check.json
 * (the checks as `tracker check` prints them as text and JSON,
 * core/pages/checkfmt.h), metrics.txt (OpenMetrics, for GitLab's metrics
 * report). Every key, branch and other untrusted string is escaped for
 * markdown and HTML (tk_md_escape, core/base/escape.h).
 *
 * Nothing here prints except to the FILE * or callbacks it is given.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/analyze/check.h"
#include "core/model/context.h"
#include "core/model/config.h"
#include "core/base/err.h"
#include "core/model/metric.h"
#include "core/store/store.h"
#include "core/analyze/verdict.h"

/* The dashboard's directory inside the report's. */
#define TK_REPORT_DASHBOARD_DIR "dashboard"

/* The most diff pages of one key: one per kind of profile. */
#define TK_REPORT_DIFFS_MAX 4

/*
 * The list of the files a report wrote into its directory, one name a
 * line (relative, [A-Za-z0-9._-/]). The next report removes them first,
 * and nothing else: a report directory holds only this build's files,
 * whatever else lives there. Read under bounds: at most
 * TK_REPORT_FILES_MAX bytes and lines of TK_REPORT_LINE_MAX; names of
 * more than TK_REPORT_NAME_MAX bytes are left alone, and so is a name in
 * a directory that is a link.
 */
#define TK_REPORT_FILES ".tracker-files"
#define TK_REPORT_FILES_MAX (16u << 20)
#define TK_REPORT_NAME_MAX 255
/* a line longer than this ends the reading of the list, with a warning */
#define TK_REPORT_LINE_MAX 4096

/* Buildkite's limit on an annotation body, bytes. */
#define TK_REPORT_BODY_MAX 1048576

struct tk_report_opts {
	const char *dir;             /* where the files go; created */
	const char *branch;          /* the current branch; NULL: the CI context's */
	const char *baseline_branch; /* NULL: core/analyze/baseline.h's precedence */
	const char *artifact_prefix; /* the directory as the CI uploads it
					(annotation links); NULL: dir */
	size_t max_body;             /* annotation.md at most this; 0: the limit
					above minus 1 KiB */
	int no_charts;               /* no charts and no dashboard */
	const char *store_url;       /* the store's URL, for the dashboard's
					workers (core/pages/dashboard.h); NULL: one */
	size_t keep_runs;            /* the most runs kept read, over all keys,
					for the dashboard; 0: 200000 */
	/* The metrics judged (as tk_check_opts.metrics) and charted; NULL:
	 * the check's defaults, and walltime and maxrss charted. */
	const enum tk_metric *metrics;
	size_t nr_metrics;
	void (*warn)(void *data, const char *msg);
	void *data;
};

/* One metric of one key against its baseline. */
struct tk_report_cell {
	enum tk_verdict verdict;
	double current;       /* -1: unknown */
	double base_median;   /* -1: no baseline */
	double delta_pct;
	size_t n;             /* baseline runs */
};

struct tk_report_key {
	char *key;
	/* When the build ran the key on several machine classes (a matrix),
	 * each has its own entry, judged against its own baseline: this
	 * entry's class, shown as "KEY on CLASS". NULL otherwise. */
	char *machine_class;
	char *name;            /* tk_report_file_name of the key, or of the
				  key, a 0x1f byte and the class */
	char *branch;          /* of the current run; NULL */
	char *baseline_branch; /* NULL when none */
	char *build;           /* of the current run; NULL */
	enum tk_verdict verdict; /* the worst of the cells */
	struct tk_report_cell wall, rss;
	const char *note;      /* static: why data is insufficient, or NULL */
	int has_chart;         /* <name>.png and <name>.html written */
	int has_timeline;      /* <name>-memory.png and .html: the current run's
				  memory timeline (core/pages/memtimeline.h) */
	/* The kinds of profile whose diff page <name>-<kind>-diff.html was
	 * written: each that changed, else the first the check diffed. */
	char **diff_kinds;
	size_t nr_diff_kinds;
	size_t check;          /* its check: the report's checks[check] */
};

struct tk_report {
	struct tk_report_key *keys; /* regressions first, then by key */
	size_t nr, alloc;
	char *build;                /* the CI build number; NULL outside CI */
	char *branch;               /* the current branch; NULL when any */
	char *build_url;            /* NULL */
	size_t count[4];            /* entries per verdict */
	const char *dashboard;      /* the dashboard's file in the directory, when
				       the caller wrote one; NULL */
	struct tk_check_result *checks; /* every key's check, in key order */
	size_t nr_checks, alloc_checks;
	/* private: the keys' runs, read once (core/store/keyhist.h), and the
	 * checks made, both for the dashboard */
	struct tk_key_history *histories;
	size_t nr_histories, alloc_histories;
	struct tk_check_memo memo;
	/* private: the files written, relative to the directory */
	char **files;
	size_t nr_files, alloc_files;
};

void tk_report_init(struct tk_report *r);
void tk_report_release(struct tk_report *r);

int tk_report_build(struct tk_store *s, const struct tk_report_opts *o,
		    const struct tk_ci_context *ci, const struct tk_config *cfg,
		    struct tk_report *out, struct tk_err *err);

/* Writes dir's TK_REPORT_FILES: r's files and the nr_more names of more
 * (those tk_report_write adds). */
int tk_report_write_files(const struct tk_report *r, const char *dir,
			  const char *const *more, size_t nr_more, struct tk_err *err);

/* The worst verdict over the keys (regression > improvement > no change >
 * insufficient), and the style a build page shows it in: "error" for a
 * regression, "warning" when a key has insufficient data, else "success". */
enum tk_verdict tk_report_worst(const struct tk_report *r);

/* Appends how much the report covers: "3 keys", or "2 keys in 3 series
 * (one per machine class)" when a key ran on several machine classes and
 * so has an entry per class. */
void tk_report_describe_count(const struct tk_report *r, struct tk_buf *out);
const char *tk_report_style(const struct tk_report *r);

/*
 * dir as a CI system names it once uploaded from the working directory:
 * relative paths as they are ("./" dropped), absolute ones under the
 * working directory made relative to it, others without the leading '/'.
 * Returns 1 when out names dir from the working directory (the first two
 * cases), 0 for a directory elsewhere.
 */
int tk_report_artifact_prefix(const char *dir, struct tk_buf *out);

/* A file name for key's files: [A-Za-z0-9._-] of it (at most 60 bytes,
 * never starting with '.') and 8 hex digits of its FNV-1a hash. */
void tk_report_file_name(const char *key, struct tk_buf *out);

#endif
