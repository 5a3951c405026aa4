/*
 * tracker history: lists recorded runs, newest first, as a table for
 * people, CSV for spreadsheets and scripts, or JSON for programs.
 *
 * The command parses options, runs one store query and hands every row to
 * the output of the format (core/pages/histsink.h). Table and CSV print run
 * summaries, which the store reads from columns without parsing any
 * record (query_summaries); only JSON, which prints whole runs, asks for
 * them (query_runs). With --ranks the runs are gathered into jobs first
 * and each output prints job rows instead. --plot draws the runs instead
 * (core/pages/histplot.h), or the dashboard of every key (core/pages/dashboard.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/ci/ci.h"
#include "core/pages/dashboard.h"
#include "core/pages/histplot.h"
#include "core/pages/plotwrite.h"
#include "core/pages/histsink.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

const char cmd_history_usage[] =
	"usage: tracker history [--db URL] [--key K]... [--branch B] [--since WHEN]\n"
	"                       [--limit N] [--run ID] [--ranks] [--format table|csv|json]\n"
	"                       [--plot FILE.{png,svg,pdf,html}] [--metric LIST]\n"
	"                       [--x time|build] [--baseline-branch B] [--width PX]\n"
	"\n"
	"Lists the runs recorded in the database, newest first. Without filters it\n"
	"lists every run; --key may be given several times to list any of the keys.\n"
	"The database is never created by this command: when it does not exist yet,\n"
	"history says so and exits 69.\n"
	"\n"
	"Options:\n"
	"  --db URL          the database (default: $TRACKER_DB, db: in .tracker.yml,\n"
	"                    else $XDG_DATA_HOME/tracker/history.db)\n"
	"  --key K           only runs of step key K (repeatable: any of them)\n"
	"  --branch B        only runs on branch B\n"
	"  --since WHEN      only runs started at or after WHEN: an age (30d, 12h,\n"
	"                    2w, 1y) or a UTC date (2026-01-31, 2026-01-31T12:00:00Z)\n"
	"  --limit N         at most N runs (the newest N)\n"
	"  --run ID          only the run with this id (or the start of it)\n"
	"  --ranks           one row per job recorded with tracker run --per-rank:\n"
	"                    its number of ranks, the max and sum over the ranks of\n"
	"                    the peak RSS (MAXRSS, TREE_RSS), the longest walltime\n"
	"                    and the worst ending; other runs are a row each;\n"
	"                    --limit counts rows\n"
	"  --format FORMAT   table (default; human units, times in UTC), csv (a header\n"
	"                    row, raw seconds and bytes, ISO 8601 UTC times) or json\n"
	"                    (an array of the full run objects)\n"
	"  --plot FILE       draws the runs instead: per key and metric a chart of\n"
	"                    the baseline branch (line, rolling median and band),\n"
	"                    other branches, the current build, failed runs and\n"
	"                    change points; .png, .pdf, .svg or .html (one page with\n"
	"                    tooltips, toggles and zoom). Needs --key, except\n"
	"                    DIR/index.html, which writes the dashboard of every key\n"
	"                    (tracker dashboard -o DIR). --since defaults to 1y here\n"
	"  --metric LIST     the charts' metrics, comma-separated: walltime, cpu,\n"
	"                    maxrss, tree_rss, alloc, slurm_maxrss (default\n"
	"                    walltime,maxrss)\n"
	"  --x AXIS          time (default: dates) or build (build numbers)\n"
	"  --baseline-branch B  the baseline branch (default: tracker check's: the PR\n"
	"                    base of the CI context, baseline_branch in .tracker.yml,\n"
	"                    the pipeline's default branch of the CI context or, outside\n"
	"                    CI, of the current run's; else the key's branch with most\n"
	"                    runs)\n"
	"  --width PX        the picture's width (default 1000)\n"
	"\n"
	"Examples:\n"
	"  tracker history --key amip --branch staging --since 1y\n"
	"  tracker history --key amip --format csv >amip.csv\n"
	"  tracker history --since 2026-01-01 --limit 20 --format json\n"
	"  tracker history --key amip --ranks --limit 5\n"
	"  tracker history --key amip --plot amip.png\n"
	"  tracker history --key amip --key ocean --metric walltime,cpu --plot perf.html\n"
	"\n"
	"Exit status: 0 ok (also when no run matches), 2 usage error (also a PNG or\n"
	"PDF too tall for the charts asked), 65 a stored run cannot be read or --plot\n"
	"has nothing to draw, 69 the database is missing or unavailable.\n";

enum {
	OPT_DB = 256, OPT_KEY, OPT_BRANCH, OPT_SINCE, OPT_LIMIT, OPT_RUN, OPT_FORMAT, OPT_RANKS,
	OPT_PLOT, OPT_METRIC, OPT_X, OPT_BASELINE_BRANCH, OPT_WIDTH,
};

static const struct option options[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "branch", required_argument, NULL, OPT_BRANCH },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "run", required_argument, NULL, OPT_RUN },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "ranks", no_argument, NULL, OPT_RANKS },
	{ "plot", required_argument, NULL, OPT_PLOT },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "x", required_argument, NULL, OPT_X },
	{ "baseline-branch", required_argument, NULL, OPT_BASELINE_BRANCH },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ NULL, 0, NULL, 0 },
};

struct history_opts {
	const char *db;
	const char **keys;
	size_t nr_keys, alloc_keys;
	struct tk_run_query q;
	const char *format;
	int ranks;
	const char *plot;
	int since_set;
	struct tk_plot_opts po;
};

/* Returns 0, or the exit code of a usage error. */
static int parse_options(int argc, char **argv, struct cmd_ctx *ctx,
			 struct history_opts *o)
{
	struct tk_err err = TK_ERR_INIT;
	int c;

	opterr = 0;
	optind = 1;
	for (;;) {
		c = getopt_long(argc, argv, ":", options, NULL);
		if (c == -1)
			break;
		switch (c) {
		case OPT_DB:
			o->db = optarg;
			break;
		case OPT_KEY:
			if (!*optarg)
				return cmd_usage_error(ctx, "--key needs a non-empty key");
			TK_ALLOC_GROW(o->keys, o->nr_keys + 2, o->alloc_keys);
			o->keys[o->nr_keys++] = optarg;
			o->keys[o->nr_keys] = NULL;
			break;
		case OPT_BRANCH:
			o->q.branch = optarg;
			break;
		case OPT_SINCE:
			if (tk_parse_since(optarg, tk_now_us(), &o->q.since_us, &err))
				return cmd_usage_error(ctx, "--since: %s", err.msg);
			o->since_set = 1;
			break;
		case OPT_LIMIT:
			if (tk_parse_long(optarg, &o->q.limit) || o->q.limit < 1)
				return cmd_usage_error(ctx, "--limit needs a positive number, not '%s'",
						       optarg);
			break;
		case OPT_RUN:
			o->q.run_id = optarg;
			break;
		case OPT_FORMAT:
			o->format = optarg;
			if (tk_histsink_find_format(optarg, &err) < 0)
				return cmd_usage_error(ctx, "%s", err.msg);
			break;
		case OPT_RANKS:
			o->ranks = 1;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case OPT_METRIC: {
			int n = tk_metric_parse_list(optarg, o->po.metrics, &err);

			if (n < 0)
				return cmd_usage_error(ctx, "--metric: %s", err.msg);
			o->po.nr_metrics = (size_t)n;
			break;
		}
		case OPT_X:
			if (strcmp(optarg, "time") && strcmp(optarg, "build"))
				return cmd_usage_error(ctx, "--x takes time or build, not '%s'", optarg);
			o->po.x = strcmp(optarg, "build") ? TK_PLOT_X_TIME : TK_PLOT_X_BUILD;
			break;
		case OPT_BASELINE_BRANCH:
			o->po.baseline_branch = optarg;
			break;
		case OPT_WIDTH: {
			long w;

			if (tk_parse_long(optarg, &w) || w < 300 || w > 20000)
				return cmd_usage_error(ctx, "--width needs 300..20000 pixels, not '%s'",
						       optarg);
			o->po.width = (double)w;
			break;
		}
		case ':':
			return cmd_usage_error(ctx, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error(ctx, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[optind]);
	o->q.keys = o->keys;
	if (!o->plot && (o->po.nr_metrics || o->po.x || o->po.baseline_branch || o->po.width))
		return cmd_usage_error(ctx, "--metric, --x, --baseline-branch and --width go with --plot");
	if (o->plot) {
		enum tk_plot_format fmt;

		if (o->format || o->ranks || o->q.run_id)
			return cmd_usage_error(ctx, "--plot does not go with --format, --ranks or --run");
		if (tk_plot_format_of(o->plot, &fmt, &err))
			return cmd_usage_error(ctx, "%s", err.msg);
		if (!o->nr_keys && !tk_dashboard_index_path(o->plot))
			return cmd_usage_error(ctx, "--plot needs --key K (or DIR/index.html for the "
					       "dashboard of every key)");
		if (!o->since_set)
			o->q.since_us = tk_now_us() - 365LL * 86400 * 1000000;
	}
	return 0;
}

/* A key asked for that has no runs gets no chart: say so. */
static void warn_missing_keys(const struct history_opts *o, const struct tk_plot_data *d)
{
	size_t i, j;

	for (i = 0; i < o->nr_keys; i++) {
		for (j = 0; j < d->nr && strcmp(d->keys[j].key, o->keys[i]); j++)
			;
		if (j == d->nr)
			cmd_warning("no runs of key '%s' to plot%s, so no chart of it", o->keys[i],
				    o->since_set ? " since --since" : " in the last year (--since 1y)");
	}
}

struct plot_job {
	const struct tk_plot_layout *l;
	enum tk_plot_format fmt;
};

static int write_plot(FILE *out, void *data, struct tk_err *err)
{
	struct plot_job *j = data;

	return tk_plot_write(j->l, j->fmt, NULL, out, err);
}

/* --plot: the charts of the keys, or the dashboard. Returns an exit code. */
static int history_plot(struct cmd_ctx *ctx, struct history_opts *o, struct tk_store *store,
			const char *url)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_ci_context ci;
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct plot_job j;
	int ret;

	tk_ci_context_init(&ci);
	tk_ci_collect(&tk_env_process, &ci, NULL);
	if (!o->nr_keys) {
		struct tk_dashboard_opts dopt;
		struct tk_buf dir = TK_BUF_INIT;

		tk_dashboard_opts_init(&dopt);
		dopt.since_us = o->q.since_us;
		dopt.branch = o->q.branch;
		dopt.plot = o->po;
		dopt.ci = &ci;
		dopt.cfg = &ctx->config;
		dopt.store_url = url;
		cmd_keep_heap();
		tk_buf_add(&dir, o->plot, strlen(o->plot) - strlen("index.html"));
		ret = tk_dashboard_write(store, dir.len ? dir.buf : ".", &dopt, &err);
		if (ret == TK_EDATA && !dopt.nr_keys && !o->since_set)
			cmd_since_hint(store, &o->q, &err);
		tk_buf_release(&dir);
		tk_ci_context_release(&ci);
		return ret ? cmd_fail(&err) : 0;
	}
	o->po.current_build = ci.build_number;
	tk_plot_data_init(&d);
	d.pipeline = ci.pipeline;
	ret = tk_plot_data_load(&d, store, &o->q, &err);
	if (!ret && !d.nr) {
		struct tk_buf since = TK_BUF_INIT;

		tk_format_iso(&since, o->q.since_us);
		tk_err_set(&err, TK_EDATA, "no runs to plot%s%s", o->q.since_us ? " since " : "",
			   o->q.since_us ? since.buf : "");
		tk_buf_release(&since);
		if (!o->since_set)
			cmd_since_hint(store, &o->q, &err);
		ret = -1;
	}
	if (!ret)
		warn_missing_keys(o, &d);
	if (!ret)
		ret = tk_plot_fill_alloc(&d, store, &o->po, &err);
	if (!ret)
		ret = tk_plot_data_baselines(&d, store, &o->po, &ci, &ctx->config, &err);
	if (!ret)
		ret = tk_plot_layout(&d, &o->po, &l, &err);
	if (!ret && !l.drawn) {
		/* nothing to draw: an axis of 1970 says nothing */
		if (l.skipped)
			tk_err_set(&err, TK_EDATA, "no run to plot has a numeric build number "
				   "(--x build)");
		else
			tk_err_set(&err, TK_EDATA, "no run to plot has a figure of the metrics "
				   "asked (--metric)");
		tk_plot_layout_release(&l);
		ret = -1;
	}
	if (ret) {
		ret = cmd_fail(&err);
	} else {
		j.l = &l;
		tk_plot_format_of(o->plot, &j.fmt, NULL);
		ret = cmd_write_output(o->plot, write_plot, &j);
		if (!ret && l.skipped)
			cmd_warning("%zu runs without a numeric build number are not drawn",
				    l.skipped);
		tk_plot_layout_release(&l);
	}
	tk_plot_data_release(&d);
	tk_ci_context_release(&ci);
	return ret;
}

int cmd_history(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct history_opts o;
	struct tk_histsink h;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *store = NULL;
	char id[TK_RUN_ID_LEN + 1];
	long limit = 0;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_options(argc, argv, ctx, &o);
	tk_histsink_init(&h, o.format, o.ranks, stdout);
	if (ret)
		goto out;
	if (h.ranks) {
		/* --limit counts jobs: gather every run first */
		limit = o.q.limit;
		o.q.limit = 0;
	}
	cmd_resolve_db(ctx, o.db, &url);
	if (tk_store_open_flags(url.buf, TK_STORE_NO_CREATE, &store, &h.err)) {
		ret = cmd_fail(&h.err);
		goto out;
	}
	if (store->warning[0])
		cmd_warning("%s", store->warning);
	if (cmd_resolve_run_id(store, o.nr_keys == 1 ? o.keys[0] : NULL, &o.q.run_id, id,
			       &h.err)) {
		ret = cmd_fail(&h.err);
		goto out;
	}
	if (o.plot) {
		ret = history_plot(ctx, &o, store, url.buf);
		goto out;
	}
	tk_histsink_begin(&h);
	if (tk_histsink_full_runs(&h))
		ret = tk_store_query_runs(store, &o.q, tk_histsink_add_run, &h, &h.err);
	else
		ret = tk_store_query_summaries(store, &o.q, tk_histsink_add_summary, &h, &h.err);
	if (!ret && h.ranks)
		ret = tk_histsink_write_jobs(&h, limit);
	/* Close a started document even after an error, so the error is the
	 * only damage. */
	if (tk_histsink_end(&h))
		fprintf(stderr, "no runs\n");
	if (ret)
		ret = cmd_fail(&h.err);
out:
	tk_store_close(store);
	tk_histsink_release(&h);
	tk_buf_release(&url);
	free(o.keys);
	return ret;
}
