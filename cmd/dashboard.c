/*
 * tracker dashboard: one page of every key (core/pages/dashboard.h), each with
 * sparklines, the current value against the baseline, the verdict of
 * tracker check and a link to its full chart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/ci/ci.h"
#include "core/pages/dashboard.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker dashboard -o DIR [--db URL] [--key-filter PATTERN] [--since WHEN]\n"
	"                         [--branch B] [--baseline-branch B] [--metric LIST]\n"
	"                         [--x time|build] [-j N]\n"
	"\n"
	"Writes DIR/index.html, one self-contained page listing every key with runs\n"
	"in the database: per metric a sparkline of the baseline branch (of the\n"
	"current run's machine class), the current value and its change against the\n"
	"baseline median, the verdict of tracker check, and a link to the key's full\n"
	"chart (DIR/<key>-<hash>.html, as tracker history --plot draws it: a baseline\n"
	"series per machine class). The page sorts by any column and filters keys\n"
	"by name. The current run is the CI build's, else (no build, or one that\n"
	"did not run the key) each key's newest.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker dashboard -o perf/\n"
	"  tracker dashboard -o perf/ --key-filter 'amip*' --since 90d --baseline-branch main\n"
	"\n"
	"Exit status: 0 ok, 2 usage error, 65 no key has runs to show (a\n"
	"--key-filter no key matches: the nearest keys are named) or a stored run\n"
	"cannot be read, 69 the database is missing or unavailable (an unreachable\n"
	"one within 4 s), or a file cannot be written.\n";

struct dashboard_cmd {
	const char *out, *db;
	int since_set, x;
	long jobs;
	struct tk_dashboard_opts o;
};

static int parse_since(void *data, const char *arg, struct tk_err *err)
{
	struct dashboard_cmd *d = data;

	d->since_set = 1;
	return tk_parse_since(arg, tk_now_us(), &d->o.since_us, err);
}

static int parse_metric(void *data, const char *arg, struct tk_err *err)
{
	struct dashboard_cmd *d = data;
	int n = tk_metric_parse_list(arg, d->o.plot.metrics, err);

	if (n < 0)
		return n;
	d->o.plot.nr_metrics = (size_t)n;
	return 0;
}

static const struct cmd_choice axes[] = {
	{ "time", TK_PLOT_X_TIME }, { "build", TK_PLOT_X_BUILD }, { NULL, 0 },
};

#define O struct dashboard_cmd
static const struct cmd_option options[] = {
	OPT_STRING('o', "output", O, out, "DIR", "the directory to write (made when missing)"),
	OPT_DB(O, db),
	OPT_STRING(0, "key-filter", O, o.key_filter, "PATTERN", "only keys matching the shell "
		   "pattern (amip*, *-gpu)"),
	OPT_CALLBACK(0, "since", "WHEN", parse_since, "runs started at or after WHEN (default "
		     "1y): an age (30d, 2w, 1y) or a UTC date (2026-01-31)"),
	OPT_STRING(0, "branch", O, o.branch, "B", "only runs on branch B"),
	OPT_STRING(0, "baseline-branch", O, o.plot.baseline_branch, "B", "the baseline branch "
		   "(default: tracker check's: the PR base of the CI context, baseline_branch in "
		   ".tracker.yml, the pipeline's default branch of the CI context or, outside "
		   "CI, of the current run's)"),
	OPT_CALLBACK(0, "metric", "LIST", parse_metric, "the metrics shown and judged, "
		     "comma-separated: " TK_METRIC_NAMES " (default: walltime,maxrss shown, "
		     "the verdict tracker check's)"),
	OPT_CHOICE(0, "x", O, x, "AXIS", axes, "the charts' x axis: time (default) or build"),
	OPT_LONG('j', "jobs", O, jobs, "N", 1, 256, "keys drawn at once, each worker with its "
		 "own database connection (default: the online CPUs, at most 8)"),
	OPT_END(),
};

const struct cmd_help cmd_dashboard_help = { usage, options, more };

static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, struct dashboard_cmd *d)
{
	int nr_args;

	d->o.since_us = tk_now_us() - 365LL * 86400 * 1000000;
	nr_args = cmd_parse_options(ctx, options, d, argc, argv, 0);
	if (nr_args < 0)
		return EXIT_USAGE;
	if (nr_args)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[0]);
	if (!d->out || !*d->out)
		return cmd_usage_error(ctx, "the dashboard needs a directory: -o DIR");
	d->o.plot.x = d->x;
	if (d->jobs)
		d->o.jobs = (unsigned)d->jobs;
	return 0;
}

int cmd_dashboard(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct dashboard_cmd d;
	struct tk_err err = TK_ERR_INIT;
	struct tk_ci_context ci;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *store = NULL;
	int ret;

	memset(&d, 0, sizeof(d));
	tk_dashboard_opts_init(&d.o);
	ret = parse_options(argc, argv, ctx, &d);
	if (ret)
		return ret;
	cmd_resolve_db(ctx, d.db, &url);
	if (tk_store_open_reader(url.buf, &store, &err)) {
		tk_buf_release(&url);
		return cmd_fail(&err);
	}
	if (store->warning[0])
		cmd_warning("%s", store->warning);
	tk_ci_context_init(&ci);
	tk_ci_collect(&tk_env_process, &ci, NULL);
	d.o.ci = &ci;
	d.o.cfg = &ctx->config;
	d.o.store_url = url.buf;
	cmd_keep_heap();
	ret = tk_dashboard_write(store, d.out, &d.o, &err);
	if (ret == TK_EDATA && !d.o.nr_keys && !d.since_set && !d.o.key_filter) {
		struct tk_run_query q = { .branch = d.o.branch };

		cmd_since_hint(store, &q, &err);
	}
	/* a filter no key of the whole history matches is a typo */
	if (ret == TK_EDATA && !d.o.nr_keys && d.o.key_filter &&
	    tk_store_require_key_match(store, d.o.key_filter, &err) < 0)
		ret = err.code;
	if (ret)
		ret = cmd_fail(&err);
	else
		fprintf(stderr, "tracker: wrote %s/index.html (%zu key%s)\n", d.out, d.o.nr_keys,
			d.o.nr_keys == 1 ? "" : "s");
	tk_ci_context_release(&ci);
	cmd_store_close(store);
	tk_buf_release(&url);
	return ret;
}
