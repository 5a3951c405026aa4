#ifndef TK_CMD_H
#define TK_CMD_H
/*
 * Subcommands. A new one needs:
 *   1. its function: cmd/<name>.c exporting int cmd_<name>(int argc,
 *      char **argv, struct cmd_ctx *ctx), which parses its options
 *      (cmd_parse_options), calls core and prints; the work itself is
 *      core's (a module with a header stating its contract, and
 *      tests/unit/t-<module>.c);
 *   2. its option table (cmd/options.h): every option it takes, each
 *      with its help, from which -h makes its "Options:" section; and its
 *      struct cmd_help, exported as cmd_<name>_help: the synopsis and
 *      description, then what follows the options (examples, exit status);
 *   3. its entry (name, function, flags, summary, help) in commands[] in
 *      cmd/tracker.c;
 *   4. its docs page, docs/tracker-<name>.md, listing every option of the
 *      table, and its section in docs/tracker.1;
 *   5. its tests, tests/tNNNN-<name>-*.sh. t0001-help.sh walks
 *      `tracker --list-commands` for -h, and `tracker --list-options CMD`
 *      for each option in -h and in the docs page; t0006 holds cmd/ to
 *      parsing, calling core and printing.
 * A command returns its exit code (0 ok, 2 usage, 65 bad data,
 * 69 unavailable, 70 internal); `run` returns the job's status instead.
 * The dispatcher handles -h/--help, loads .tracker.yml, and flushes stdout,
 * turning a write error into exit 70.
 */
#include <stdio.h>

#include "core/model/config.h"
#include "core/base/err.h"
#include "core/base/fsutil.h"
#include "core/store/store.h"
#include "cmd/options.h"

#define EXIT_USAGE 2
#define EXIT_DATA 65
#define EXIT_UNAVAILABLE 69
#define EXIT_INTERNAL 70

/* cmd_entry.flags */
#define CMD_CONFIG_WARN (1u << 0) /* a broken .tracker.yml is a warning */
#define CMD_NO_CONFIG (1u << 1)   /* does not read .tracker.yml at all */
#define CMD_OWN_XFSZ (1u << 2)    /* sets SIGXFSZ itself (run: the job's) */

struct cmd_ctx {
	const char *name;        /* the subcommand */
	struct tk_config config; /* .tracker.yml, empty when none */
};

/*
 * A command's -h: usage (the synopsis, up to its first blank line, which
 * usage errors repeat, and the description), then "Options:" made from
 * options (none: no such section), then more (examples, exit status).
 */
struct cmd_help {
	const char *usage;
	const struct cmd_option *options;
	const char *more;
};

struct cmd_entry {
	const char *name;
	int (*fn)(int argc, char **argv, struct cmd_ctx *ctx);
	unsigned flags;
	const char *summary;
	const struct cmd_help *help;
};

/* Prints "tracker: <msg>" to stderr. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "tracker: MESSAGE" on stderr, for what is neither an error nor a
 * warning. All three escape control characters (core/base/table.h). */
void cmd_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints the message of err and returns its exit code. */
int cmd_fail(const struct tk_err *err);
/* Appends to a "no runs" error of a plot or the dashboard that --since
 * was left at its default, 1y, and how to reach older runs, when q
 * (without its since bound) finds a run in store. */
void cmd_since_hint(struct tk_store *store, const struct tk_run_query *q, struct tk_err *err);
/* Prints a usage error and the command's synopsis; returns 2. */
int cmd_usage_error(const struct cmd_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The database URL: --db (opt, may be NULL), else $TRACKER_DB, else db: in
 * .tracker.yml, else $XDG_DATA_HOME/tracker/history.db (default
 * ~/.local/share/tracker/history.db) (tk_config_db). Appends it to out.
 * When the choice fell to db: or the default and the config has a
 * problem with db: (tk_config.db_problem), says on stderr which database
 * is used and why, whatever -q: every command that opens a database
 * calls this once.
 */
void cmd_resolve_db(const struct cmd_ctx *ctx, const char *opt, struct tk_buf *out);
/*
 * A --run value as users have it, the whole id or its start ("run
 * 61c63795" in tracker's messages): *id becomes the whole id, kept in
 * buf, when one run of key (NULL: any) has an id that starts with it
 * (tk_store_resolve_run_id); an error when several do. *id NULL or a
 * whole id: nothing changes.
 */
int cmd_resolve_run_id(struct tk_store *s, const char *key, const char **id,
		       char buf[TK_RUN_ID_LEN + 1], struct tk_err *err);
/*
 * For commands that lay out a chart per key (dashboard, report): freed
 * memory stays in the heap for the next key. Otherwise glibc returns each
 * large array to the kernel and faults fresh pages in for the next one:
 * 0.3 s of system time in a dashboard of 100 keys x 10k runs.
 */
void cmd_keep_heap(void);

/* The artifacts directory: --artifacts, $TRACKER_ARTIFACTS, config, default. */
void cmd_resolve_artifacts(const struct cmd_ctx *ctx, const char *opt, struct tk_buf *out);

/*
 * Writes an output file so that it is never seen half written
 * (tk_write_file_stream, core/base/fsutil.h). Returns an exit code;
 * errors are printed, naming path.
 */
int cmd_write_output(const char *path, tk_write_fn fn, void *data);

/*
 * From now on TERM, INT and HUP (those not ignored, which stay so) only
 * set the returned flag, and are unblocked: a command hands the flag to
 * the store (core/base/cancel.h) so that a CI cancel ends a wait for the
 * database at once, without interrupting what it writes.
 */
#include <signal.h>
const volatile sig_atomic_t *cmd_catch_cancel(void);

/* Closes s (NULL is fine) after warning once of the rows it skipped as
 * out of bounds: "skipped 2 stored run(s) ...: run 1b2c3d4e of key ...". */
void cmd_store_close(struct tk_store *s);

int cmd_run(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_import(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_diff(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_history(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_backfill(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_push(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_flame(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_pipeline(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_config(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_check(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_fetch(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_help(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_version(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_report(int argc, char **argv, struct cmd_ctx *ctx);
int cmd_dashboard(int argc, char **argv, struct cmd_ctx *ctx);

extern const struct cmd_help cmd_run_help;
extern const struct cmd_help cmd_import_help;
extern const struct cmd_help cmd_diff_help;
extern const struct cmd_help cmd_history_help;
extern const struct cmd_help cmd_backfill_help;
extern const struct cmd_help cmd_push_help;
extern const struct cmd_help cmd_flame_help;
extern const struct cmd_help cmd_config_help;
extern const struct cmd_help cmd_pipeline_help;
extern const struct cmd_help cmd_dashboard_help;
extern const struct cmd_help cmd_check_help;
extern const struct cmd_help cmd_fetch_help;
extern const struct cmd_help cmd_report_help;

/*
 * --fetch-baseline (cmd/fetch.c): fetches from Buildkite what the
 * comparison q lacks in s (tk_bkfetch_baseline), with the pipeline and
 * token from the environment (BUILDKITE_ORGANIZATION_SLUG,
 * BUILDKITE_PIPELINE_SLUG, BUILDKITE_API_TOKEN; tk_bkfetch_opts_from_env).
 * Prints a summary line on stderr when the API was asked, warnings for
 * records that could not be stored. Returns 0 or a negative code with err
 * filled (TK_EUSAGE without the token or the pipeline).
 */
struct tk_baseline_query;
struct tk_ci_context;
int cmd_fetch_baseline(struct tk_store *s, const struct tk_baseline_query *q,
		       const struct tk_ci_context *ci, const struct tk_config *cfg,
		       struct tk_err *err);

#endif
