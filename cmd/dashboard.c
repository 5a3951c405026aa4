/*
 * tracker dashboard: one page of every key (core/pages/dashboard.h), each with
 * sparklines, the current value against the baseline, the verdict of
 * tracker check and a link to its full chart.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/ci/ci.h"
#include "core/pages/dashboard.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

const char cmd_dashboard_usage[] =
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
	"did not run the key) each key's newest.\n"
	"\n"
	"Options:\n"
	"  -o, --output DIR     the directory to write (made when missing)\n"
	"  --db URL             the database (default: $TRACKER_DB, db: in .tracker.yml,\n"
	"                       else $XDG_DATA_HOME/tracker/history.db)\n"
	"  --key-filter PATTERN only keys matching the shell pattern (amip*, *-gpu)\n"
	"  --since WHEN         runs started at or after WHEN (default 1y): an age\n"
	"                       (30d, 2w, 1y) or a UTC date (2026-01-31)\n"
	"  --branch B           only runs on branch B\n"
	"  --baseline-branch B  the baseline branch (default: tracker check's: the PR\n"
	"                       base of the CI context, baseline_branch in\n"
	"                       .tracker.yml, the pipeline's default branch of the CI\n"
	"                       context or, outside CI, of the current run's)\n"
	"  --metric LIST        walltime, cpu, maxrss, tree_rss, alloc, slurm_maxrss,\n"
	"                       comma-separated\n"
	"                       (default walltime,maxrss)\n"
	"  --x AXIS             the charts' x axis: time (default) or build\n"
	"  -j, --jobs N         keys drawn at once, each worker with its own database\n"
	"                       connection (default: the online CPUs, at most 8)\n"
	"\n"
	"Examples:\n"
	"  tracker dashboard -o perf/\n"
	"  tracker dashboard -o perf/ --key-filter 'amip*' --since 90d --baseline-branch main\n"
	"\n"
	"Exit status: 0 ok, 2 usage error, 65 no key has runs to show or a stored run\n"
	"cannot be read, 69 the database is missing or a file cannot be written.\n";

enum { OPT_DB = 256, OPT_FILTER, OPT_SINCE, OPT_BRANCH, OPT_BASELINE, OPT_METRIC, OPT_X };


static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "db", required_argument, NULL, OPT_DB },
	{ "key-filter", required_argument, NULL, OPT_FILTER },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "branch", required_argument, NULL, OPT_BRANCH },
	{ "baseline-branch", required_argument, NULL, OPT_BASELINE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "x", required_argument, NULL, OPT_X },
	{ "jobs", required_argument, NULL, 'j' },
	{ NULL, 0, NULL, 0 },
};

static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, const char **out,
			 const char **db, struct tk_dashboard_opts *o, int *since_set)
{
	struct tk_err err = TK_ERR_INIT;
	long jobs;
	int c, n;

	opterr = 0;
	optind = 1;
	o->since_us = tk_now_us() - 365LL * 86400 * 1000000;
	*since_set = 0;
	while ((c = getopt_long(argc, argv, ":o:j:", options, NULL)) != -1) {
		switch (c) {
		case 'o':
			*out = optarg;
			break;
		case OPT_DB:
			*db = optarg;
			break;
		case 'j':
			if (tk_parse_long(optarg, &jobs) || jobs < 1 || jobs > 256)
				return cmd_usage_error(ctx, "--jobs takes a number from 1 to 256, "
						       "not '%s'", optarg);
			o->jobs = (unsigned)jobs;
			break;
		case OPT_FILTER:
			o->key_filter = optarg;
			break;
		case OPT_SINCE:
			if (tk_parse_since(optarg, tk_now_us(), &o->since_us, &err))
				return cmd_usage_error(ctx, "--since: %s", err.msg);
			*since_set = 1;
			break;
		case OPT_BRANCH:
			o->branch = optarg;
			break;
		case OPT_BASELINE:
			o->plot.baseline_branch = optarg;
			break;
		case OPT_METRIC:
			n = tk_metric_parse_list(optarg, o->plot.metrics, &err);
			if (n < 0)
				return cmd_usage_error(ctx, "--metric: %s", err.msg);
			o->plot.nr_metrics = (size_t)n;
			break;
		case OPT_X:
			if (strcmp(optarg, "time") && strcmp(optarg, "build"))
				return cmd_usage_error(ctx, "--x takes time or build, not '%s'", optarg);
			o->plot.x = strcmp(optarg, "build") ? TK_PLOT_X_TIME : TK_PLOT_X_BUILD;
			break;
		case ':':
			return cmd_usage_error(ctx, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error(ctx, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[optind]);
	if (!*out || !**out)
		return cmd_usage_error(ctx, "the dashboard needs a directory: -o DIR");
	return 0;
}

int cmd_dashboard(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct tk_dashboard_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_ci_context ci;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *store = NULL;
	const char *out = NULL, *db = NULL;
	int ret, since_set;

	tk_dashboard_opts_init(&o);
	ret = parse_options(argc, argv, ctx, &out, &db, &o, &since_set);
	if (ret)
		return ret;
	cmd_resolve_db(ctx, db, &url);
	if (tk_store_open_flags(url.buf, TK_STORE_NO_CREATE, &store, &err)) {
		tk_buf_release(&url);
		return cmd_fail(&err);
	}
	if (store->warning[0])
		cmd_warning("%s", store->warning);
	tk_ci_context_init(&ci);
	tk_ci_collect(&tk_env_process, &ci, NULL);
	o.ci = &ci;
	o.cfg = &ctx->config;
	o.store_url = url.buf;
	cmd_keep_heap();
	ret = tk_dashboard_write(store, out, &o, &err);
	if (ret == TK_EDATA && !o.nr_keys && !since_set && !o.key_filter) {
		struct tk_run_query q = { .branch = o.branch };

		cmd_since_hint(store, &q, &err);
	}
	if (ret)
		ret = cmd_fail(&err);
	else
		fprintf(stderr, "tracker: wrote %s/index.html (%zu key%s)\n", out, o.nr_keys,
			o.nr_keys == 1 ? "" : "s");
	tk_ci_context_release(&ci);
	tk_store_close(store);
	tk_buf_release(&url);
	return ret;
}
