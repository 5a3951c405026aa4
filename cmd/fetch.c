/*
 * tracker fetch: backfills the history with the run records a Buildkite
 * pipeline's builds uploaded as artifacts (core/ci/bkfetch.h). Also the
 * --fetch-baseline step the comparing commands share.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/ci/bkfetch.h"
#include "core/measure/profiler.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker fetch --org ORG --pipeline SLUG [--branch B] [--since WHEN]\n"
	"                     [--key K] [--api URL] [--timeout DUR] [--deadline DUR]\n"
	"                     [--retries N] [--max-bytes SIZE] [--allow-http] [--db URL]\n"
	"\n"
	"Fills the history from Buildkite: lists the pipeline's builds through the\n"
	"REST API (newest first, all pages), finds the run records 'tracker run'\n"
	"wrote among each build's artifacts (<key>-<run id>.json, uploaded with\n"
	"'buildkite-agent artifact upload'), downloads them and the profiles they\n"
	"list, and stores them as 'tracker push' does: the same checks, and\n"
	"idempotent by run id, so fetching again stores only what is new (runs\n"
	"already stored are not downloaded again).\n"
	"\n"
	"The API token is read from $BUILDKITE_API_TOKEN (scopes read_builds and\n"
	"read_artifacts); it is sent to the API's host only, never to the storage\n"
	"host downloads are redirected to, and never printed or stored. HTTP 429\n"
	"waits for RateLimit-Reset; server errors, timeouts and dropped connections\n"
	"are retried with a doubling wait. Progress goes to standard error on a\n"
	"terminal; a summary line always.\n"
	"\n"
	"Everything the API sends is bounded: a request slower than 1 KiB/s over\n"
	"--timeout or longer than --deadline fails; a build's artifact list is cut\n"
	"at 100 pages, 10000 artifacts, 64 MiB or a next link seen before; a gzip\n"
	"body is refused before inflating past its cap; the walk stops after\n"
	"--max-bytes. A plain http:// --api to another host gets no token unless\n"
	"--allow-http.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker fetch --org clima --pipeline climacoupler --branch main --since 1y\n"
	"  tracker fetch --org clima --pipeline climacoupler --key amip --since 30d\n"
	"\n"
	"Exit status: 0 every record found stored or already stored, 2 usage error\n"
	"(also: no $BUILDKITE_API_TOKEN), 65 a record could not be stored (the\n"
	"others are) or the API answered something that is not its JSON, 69 the\n"
	"API refused the token (401/403), does not know the pipeline, or failed\n"
	"past the retries, or the database is unavailable. Interrupted (INT, TERM)\n"
	"it stops at once and dies by the signal; what was stored stays stored.\n";

struct fetch_args {
	struct tk_bkfetch_opts o;
	const char *db, *since;
	long retries;
	int allow_http;
};

static int parse_max_bytes(void *data, const char *arg, struct tk_err *err)
{
	struct fetch_args *a = data;

	if (tk_profiler_parse_bytes(arg, &a->o.max_bytes))
		return tk_err_set(err, TK_EUSAGE, "--max-bytes wants a size such as 20G, not '%s'",
				  arg);
	return 0;
}

#define O struct fetch_args
static const struct cmd_option options[] = {
	OPT_STRING(0, "org", O, o.org, "ORG", "the organization slug (default: "
		   "$BUILDKITE_ORGANIZATION_SLUG)"),
	OPT_STRING(0, "pipeline", O, o.pipeline, "SLUG", "the pipeline slug (default: "
		   "$BUILDKITE_PIPELINE_SLUG)"),
	OPT_STRING(0, "branch", O, o.branch, "B", "only builds of branch B"),
	OPT_STRING(0, "since", O, since, "WHEN", "only builds created since WHEN: an age (30d, "
		   "1y) or a date (2026-01-31); 'all' for every build (default 1y)"),
	OPT_STRING(0, "key", O, o.key, "K", "only the records of key K"),
	OPT_STRING(0, "api", O, o.api, "URL", "the API's base URL (default: "
		   "$TRACKER_BUILDKITE_API, else https://api.buildkite.com)"),
	OPT_POSITIVE_DURATION(0, "timeout", O, o.timeout_s, "DUR", "give up a connection that "
			      "moves less than 1 KiB/s over DUR (default: $TRACKER_FETCH_TIMEOUT, "
			      "else 30s)"),
	OPT_POSITIVE_DURATION(0, "deadline", O, o.deadline_s, "DUR", "give up a request, its "
			      "retries and redirects included, after DUR (default: "
			      "$TRACKER_FETCH_DEADLINE, else 10m)"),
	OPT_LONG(0, "retries", O, retries, "N", 0, 100, "retries of a request that failed "
		 "(default: $TRACKER_FETCH_RETRIES, else 4)"),
	OPT_CALLBACK(0, "max-bytes", "SIZE", parse_max_bytes, "stop after receiving SIZE "
		     "bytes in all, pages and downloads (default 64G)"),
	OPT_FLAG(0, "allow-http", O, allow_http, "send the token even over a plain http:// "
		 "--api to another host (in clear)"),
	OPT_DB(O, db),
	OPT_END(),
};

const struct cmd_help cmd_fetch_help = { usage, options, more };

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct fetch_cmd {
	int tty;     /* progress lines on standard error */
	int drawn;   /* a progress line is showing */
};

static void progress(void *data, const struct tk_bkfetch_stats *st)
{
	struct fetch_cmd *f = data;

	if (!f->tty)
		return;
	fprintf(stderr, "\rtracker: fetch: %zu builds, %zu records, %zu stored ", st->builds,
		st->records, st->stored);
	f->drawn = 1;
}

static void warn(void *data, const char *msg)
{
	struct fetch_cmd *f = data;

	if (f->drawn)
		fputc('\n', stderr);
	f->drawn = 0;
	cmd_warning("%s", msg);
}

static void install(struct sigaction *old_int, struct sigaction *old_term)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, old_int);
	sigaction(SIGTERM, &sa, old_term);
}

/* Dies by the signal that stopped the fetch, as a shell expects. */
static void die_by(int sig)
{
	fflush(NULL);
	signal(sig, SIG_DFL);
	raise(sig);
	exit(128 + sig);
}

static int finish(struct fetch_cmd *f, const struct tk_bkfetch_stats *st, int ret,
		  const struct tk_err *err)
{
	if (f->drawn)
		fputc('\n', stderr);
	f->drawn = 0;
	fprintf(stderr, "tracker: fetch: %zu builds, %zu records: %zu stored, %zu already "
		"stored, %zu failed\n", st->builds, st->records, st->stored, st->already,
		st->failed);
	if (stop_signal)
		die_by(stop_signal);
	if (ret)
		return cmd_fail(err);
	return st->failed ? EXIT_DATA : 0;
}

static int parse(int argc, char **argv, struct cmd_ctx *ctx, struct fetch_args *a)
{
	struct tk_bkfetch_opts *o = &a->o;
	struct tk_err err = TK_ERR_INIT;
	int nr_args;

	a->since = "1y";
	a->retries = -1;
	nr_args = cmd_parse_options(ctx, options, a, argc, argv, 0);
	if (nr_args < 0)
		return EXIT_USAGE;
	if (nr_args)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[0]);
	o->retries = (int)a->retries;
	o->allow_http = a->allow_http;
	if (strcmp(a->since, "all") && tk_parse_since(a->since, tk_now_us(), &o->since_us, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	if (o->key && tk_run_check_key(o->key, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	if (tk_bkfetch_opts_from_env(o, &tk_env_process, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	if (!o->org || !o->pipeline)
		return cmd_usage_error(ctx, "name the pipeline with --org ORG --pipeline SLUG");
	return 0;
}

int cmd_fetch(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct fetch_args a;
	struct tk_bkfetch_opts *o = &a.o;
	struct tk_bkfetch_stats st;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *s = NULL;
	struct sigaction old_int, old_term;
	struct fetch_cmd f = { 0, 0 };
	int ret;

	memset(&a, 0, sizeof(a));
	tk_bkfetch_opts_init(&a.o);
	memset(&st, 0, sizeof(st));
	ret = parse(argc, argv, ctx, &a);
	if (ret)
		return ret;
	if (!o->token) {
		cmd_error("no Buildkite API token: set BUILDKITE_API_TOKEN to a token with "
			  "the read_builds and read_artifacts scopes");
		return EXIT_USAGE;
	}
	cmd_resolve_db(ctx, a.db, &url);
	ret = tk_store_open(url.buf, &s, &err);
	tk_buf_release(&url);
	if (ret)
		return cmd_fail(&err);
	if (s->warning[0])
		cmd_warning("%s", s->warning);
	f.tty = isatty(STDERR_FILENO);
	o->stop = &stop_signal;
	o->progress = progress;
	o->warn = warn;
	o->cb_data = &f;
	install(&old_int, &old_term);
	ret = tk_bkfetch_run(s, o, &st, &err);
	tk_store_close(s);
	return finish(&f, &st, ret, &err);
}

/* ---- --fetch-baseline ---- */

static void baseline_warn(void *data, const char *msg)
{
	cmd_warning("%s", msg);
}

int cmd_fetch_baseline(struct tk_store *s, const struct tk_baseline_query *q,
		       const struct tk_ci_context *ci, const struct tk_config *cfg,
		       struct tk_err *err)
{
	struct tk_bkfetch_opts o;
	struct tk_bkfetch_stats st;
	int fetched = 0, ret;

	tk_bkfetch_opts_init(&o);
	ret = tk_bkfetch_opts_from_env(&o, &tk_env_process, err);
	if (!ret && (!o.org || !o.pipeline))
		ret = tk_err_set(err, TK_EUSAGE, "--fetch-baseline needs the pipeline: "
				 "BUILDKITE_ORGANIZATION_SLUG and BUILDKITE_PIPELINE_SLUG (set "
				 "in a Buildkite job)");
	if (ret)
		return ret;
	o.warn = baseline_warn;
	ret = tk_bkfetch_baseline(s, q, ci, cfg, &o, &st, &fetched, err);
	if (fetched)
		fprintf(stderr, "tracker: fetched from Buildkite: %zu builds, %zu records: %zu "
			"stored, %zu already stored, %zu failed\n", st.builds, st.records,
			st.stored, st.already, st.failed);
	return ret;
}
