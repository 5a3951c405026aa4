/*
 * tracker history: lists recorded runs, newest first, as a table for
 * people, CSV for spreadsheets and scripts, or JSON for programs.
 *
 * The command parses options and hands the query to the listing of the
 * format (core/pages/histsink.h: tk_histsink_write_query), or with --plot
 * to the charts (core/pages/plotwrite.h) or the dashboard of every key
 * (core/pages/dashboard.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/ci/ci.h"
#include "core/pages/dashboard.h"
#include "core/pages/framehist.h"
#include "core/pages/histplot.h"
#include "core/pages/plotwrite.h"
#include "core/pages/histsink.h"
#include "core/pages/memtimeline.h"
#include "core/base/timeutil.h"
#include "core/store/frametot.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker history [--db URL] [--key K]... [--branch B] [--since WHEN]\n"
	"                       [--limit N] [--run ID] [--ranks] [--format table|csv|json]\n"
	"                       [--plot FILE.{png,svg,pdf,html}] [--metric LIST]\n"
	"                       [--x time|build] [--baseline-branch B] [--width PX]\n"
	"       tracker history --key K (--frame NAME | --frame-match REGEX)...\n"
	"                       [--branch B] [--since WHEN] [--limit N]\n"
	"                       [--format table|csv|json | --plot FILE]\n"
	"       tracker history --run ID --timeline [-o FILE.{png,svg,pdf,html}]\n"
	"                       [--format table|csv|json]\n"
	"\n"
	"Lists the runs recorded in the database, newest first. Without filters it\n"
	"lists every run; --key may be given several times to list any of the keys.\n"
	"The database is never created by this command: when it does not exist yet,\n"
	"history says so and exits 69.\n"
	"\n"
	"With --frame or --frame-match it follows functions instead: per run, kind of\n"
	"profile and function, the function's self and cumulative totals, read from\n"
	"the frame totals stored with each profile (no profile is decoded).\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker history --key amip --branch staging --since 1y\n"
	"  tracker history --key amip --format csv >amip.csv\n"
	"  tracker history --since 2026-01-01 --limit 20 --format json\n"
	"  tracker history --key amip --ranks --limit 5\n"
	"  tracker history --key amip --plot amip.png\n"
	"  tracker history --key amip --key ocean --metric walltime,cpu --plot perf.html\n"
	"  tracker history --key amip --frame radiation --format csv\n"
	"  tracker history --key amip --frame-match '^ocean_' --plot ocean.html\n"
	"  tracker history --run 61c63795 --timeline -o memory.png\n"
	"\n"
	"Exit status: 0 ok (also when no run matches), 2 usage error (also a PNG or\n"
	"PDF too tall for the charts asked), 65 a stored run cannot be read, --plot\n"
	"has nothing to draw, or a --key no run has on any branch (the nearest keys\n"
	"are named), or a --frame no stored function has (the nearest are named), 69 the database is missing or unavailable (an unreachable one\n"
	"within 4 s).\n";

struct history_opts {
	const char *db;
	struct cmd_strlist keys;
	struct cmd_strlist frames, frame_patterns;
	const char *format;
	int ranks;
	const char *plot;
	int since_set;
	long limit;
	int x;
	long width;
	struct tk_run_query q;
	struct tk_plot_opts po;
	int timeline;
	const char *output;
};

static int parse_since(void *data, const char *arg, struct tk_err *err)
{
	struct history_opts *o = data;

	o->since_set = 1;
	return tk_parse_since(arg, tk_now_us(), &o->q.since_us, err);
}

static int parse_format(void *data, const char *arg, struct tk_err *err)
{
	struct history_opts *o = data;

	o->format = arg;
	return tk_histsink_find_format(arg, err) < 0 ? TK_EUSAGE : 0;
}

static int parse_metric(void *data, const char *arg, struct tk_err *err)
{
	struct history_opts *o = data;
	int n = tk_metric_parse_list(arg, o->po.metrics, err);

	if (n < 0)
		return n;
	o->po.nr_metrics = (size_t)n;
	return 0;
}

static const struct cmd_choice axes[] = {
	{ "time", TK_PLOT_X_TIME }, { "build", TK_PLOT_X_BUILD }, { NULL, 0 },
};

#define O struct history_opts
static const struct cmd_option options[] = {
	OPT_DB(O, db),
	OPT_STRING_LIST(0, "key", O, keys, "K", "only runs of step key K (repeatable: any of "
			"them)"),
	OPT_STRING(0, "branch", O, q.branch, "B", "only runs on branch B"),
	OPT_CALLBACK(0, "since", "WHEN", parse_since, "only runs started at or after WHEN: an "
		     "age (30d, 12h, 2w, 1y) or a UTC date (2026-01-31, 2026-01-31T12:00:00Z)"),
	OPT_LONG(0, "limit", O, limit, "N", 1, LONG_MAX, "at most N runs (the newest N)"),
	OPT_STRING(0, "run", O, q.run_id, "ID", "only the run with this id (or the start of "
		   "it)"),
	OPT_FLAG(0, "ranks", O, ranks, "one row per job recorded with tracker run --per-rank: "
		 "its number of ranks, the max and sum over the ranks of the peak RSS (MAXRSS, "
		 "TREE_RSS), the longest walltime and the worst ending; other runs are a row "
		 "each; --limit counts rows"),
	OPT_CALLBACK(0, "format", "FORMAT", parse_format, "table (default; human units, times "
		     "in UTC), csv (a header row, raw seconds and bytes, ISO 8601 UTC times) or "
		     "json (an array of the full run objects)"),
	OPT_STRING(0, "plot", O, plot, "FILE", "draws the runs instead: per key and metric a "
		   "chart of the baseline branch (line, rolling median and band), other "
		   "branches, the current build, failed runs and change points; .png, .pdf, "
		   ".svg or .html (one page with tooltips, toggles and zoom). Needs --key, "
		   "except DIR/index.html, which writes the dashboard of every key (tracker "
		   "dashboard -o DIR). --since defaults to 1y here"),
	OPT_CALLBACK(0, "metric", "LIST", parse_metric, "the charts' metrics, comma-separated: "
		     TK_METRIC_NAMES " (default walltime,maxrss)"),
	OPT_CHOICE(0, "x", O, x, "AXIS", axes, "time (default: dates) or build (build "
		   "numbers)"),
	OPT_STRING(0, "baseline-branch", O, po.baseline_branch, "B", "the baseline branch "
		   "(default: tracker check's: the PR base of the CI context, baseline_branch in "
		   ".tracker.yml, the pipeline's default branch of the CI context or, outside "
		   "CI, of the current run's; else the key's branch with most runs)"),
	OPT_LONG(0, "width", O, width, "PX", 300, 20000, "the picture's width (default 1000)"),
	OPT_STRING_LIST(0, "frame", O, frames, "NAME", "follow the function NAME instead "
			"(repeatable): its self and cumulative totals per run and kind of profile; "
			"a name matches whether or not it was demangled, and a name no stored "
			"function has gets the nearest ones named. Needs one --key"),
	OPT_STRING_LIST(0, "frame-match", O, frame_patterns, "REGEX", "follow every function "
			"whose name (raw or demangled) the POSIX extended regular expression "
			"matches (repeatable; at most 50 functions)"),
	OPT_LONG(0, "width", O, width, "PX", 300, 20000, "the picture's width (default 1000; "
		 "900 for --timeline)"),
	OPT_FLAG(0, "timeline", O, timeline, "with --run: the run's memory over time (the "
		 "process tree's RSS, the cgroup's memory where the run had a cgroup, the peak "
		 "marked, with --sacct each step's MaxRSS until its Elapsed): the samples as "
		 "--format says, or the picture with -o"),
	OPT_STRING('o', "output", O, output, "FILE", "with --timeline: draw it to FILE: .png, "
		   ".pdf, .svg or .html"),
	OPT_END(),
};

const struct cmd_help cmd_history_help = { usage, options, more };

/* --timeline's own rules; returns 0, or the exit code of a usage error. */
static int timeline_options(struct cmd_ctx *ctx, struct history_opts *o)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_memtl_format fmt;

	if (!o->timeline)
		return cmd_usage_error(ctx, "-o goes with --timeline");
	if (!o->q.run_id)
		return cmd_usage_error(ctx, "--timeline needs --run ID");
	if (o->plot || o->ranks || o->limit || o->since_set || o->q.branch || o->po.nr_metrics ||
	    o->x || o->po.baseline_branch)
		return cmd_usage_error(ctx, "--timeline goes with --run, --format, -o and --width "
				       "only");
	if (o->output && o->format)
		return cmd_usage_error(ctx, "--timeline takes -o or --format, not both");
	if (o->output && tk_memtl_format_of(o->output, &fmt, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	if (o->format && tk_memtl_format_named(o->format, &fmt, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	return 0;
}

/* --run ID --timeline: the samples, or the picture. Returns an exit code. */
static int history_timeline(struct history_opts *o, struct tk_store *store)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_memtl_format fmt = TK_MEMTL_TABLE;
	struct tk_run run;
	int ret;

	tk_run_init(&run);
	ret = tk_memtl_load(store, o->q.run_id, &run, &err);
	if (!ret && o->output)
		ret = tk_memtl_write_path(&run, o->output, (double)o->width, &err);
	else if (!ret && (!o->format || !tk_memtl_format_named(o->format, &fmt, &err)))
		ret = tk_memtl_write(&run, fmt, (double)o->width, stdout, &err);
	tk_run_release(&run);
	return ret ? cmd_fail(&err) : 0;
}

/* Returns 0, or the exit code of a usage error. */
static int parse_options(int argc, char **argv, struct cmd_ctx *ctx,
			 struct history_opts *o)
{
	struct tk_err err = TK_ERR_INIT;
	int nr_args = cmd_parse_options(ctx, options, o, argc, argv, 0);

	if (nr_args < 0)
		return EXIT_USAGE;
	if (nr_args)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[0]);
	o->q.keys = o->keys.v;
	o->q.limit = o->limit;
	if (o->timeline || o->output)
		return timeline_options(ctx, o);
	o->po.x = o->x;
	o->po.width = (double)o->width;
	if (!o->plot && (o->po.nr_metrics || o->po.x || o->po.baseline_branch || o->po.width))
		return cmd_usage_error(ctx, "--metric, --x, --baseline-branch and --width go with --plot");
	if (o->frames.nr || o->frame_patterns.nr) {
		if (o->keys.nr != 1)
			return cmd_usage_error(ctx, "--frame and --frame-match need exactly one --key");
		if (o->ranks || o->po.nr_metrics)
			return cmd_usage_error(ctx, "--frame does not go with --ranks or --metric");
	}
	if (o->plot) {
		enum tk_plot_format fmt;

		if (o->format || o->ranks || o->q.run_id)
			return cmd_usage_error(ctx, "--plot does not go with --format, --ranks or --run");
		if (tk_plot_format_of(o->plot, &fmt, &err))
			return cmd_usage_error(ctx, "%s", err.msg);
		if (!o->keys.nr && !tk_dashboard_index_path(o->plot))
			return cmd_usage_error(ctx, "--plot needs --key K (or DIR/index.html for the "
					       "dashboard of every key)");
		if (!o->since_set)
			o->q.since_us = tk_now_us() - 365LL * 86400 * 1000000;
	}
	return 0;
}

/* --plot DIR/index.html without --key: the dashboard of every key. */
static int history_dashboard(struct cmd_ctx *ctx, struct history_opts *o,
			     struct tk_store *store, const char *url,
			     const struct tk_ci_context *ci)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_dashboard_opts dopt;
	struct tk_buf dir = TK_BUF_INIT;
	int ret;

	tk_dashboard_opts_init(&dopt);
	dopt.since_us = o->q.since_us;
	dopt.branch = o->q.branch;
	dopt.plot = o->po;
	dopt.ci = ci;
	dopt.cfg = &ctx->config;
	dopt.store_url = url;
	cmd_keep_heap();
	tk_buf_add(&dir, o->plot, strlen(o->plot) - strlen("index.html"));
	ret = tk_dashboard_write(store, dir.len ? dir.buf : ".", &dopt, &err);
	if (ret == TK_EDATA && !dopt.nr_keys && !o->since_set)
		cmd_since_hint(store, &o->q, &err);
	tk_buf_release(&dir);
	return ret ? cmd_fail(&err) : 0;
}

/* --frame, --frame-match: the functions' history. Returns an exit code. */
static int history_frames(struct cmd_ctx *ctx, struct history_opts *o, struct tk_store *store)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_frametot_names names;
	struct tk_frame_history h;
	struct tk_ci_context ci;
	int ret;

	memset(&names, 0, sizeof(names));
	memset(&h, 0, sizeof(h));
	tk_ci_context_init(&ci);
	ret = tk_frametot_match(store, o->keys.v[0], (const char *const *)o->frames.v,
				o->frames.nr, (const char *const *)o->frame_patterns.v,
				o->frame_patterns.nr, &names, &err);
	if (!ret)
		ret = tk_frametot_history(store, &o->q, &names, &h, &err);
	if (ret)
		goto out;
	if (h.not_stored)
		cmd_warning("%zu profiles of these runs have no frame totals (stored before "
			    "tracker kept them): tracker backfill stores them", h.not_stored);
	if (o->plot) {
		tk_ci_collect(&tk_env_process, &ci, NULL);
		ret = tk_framehist_plot(store, &h, &o->q, &o->po, &ci, &ctx->config, o->plot,
					TK_WRITE_NO_FSYNC, &err);
	} else {
		ret = tk_framehist_write(&h, o->format, stdout, &err);
		if (!ret && !h.nr_points)
			fprintf(stderr, "no runs with a profile\n");
	}
out:
	if (ret)
		ret = cmd_fail(&err);
	tk_frame_history_release(&h);
	tk_frametot_names_release(&names);
	tk_ci_context_release(&ci);
	return ret;
}

/* --plot: the charts of the keys, or the dashboard. Returns an exit code. */
static int history_plot(struct cmd_ctx *ctx, struct history_opts *o, struct tk_store *store,
			const char *url)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_ci_context ci;
	struct tk_plot_result res;
	size_t i;
	int ret;

	tk_ci_context_init(&ci);
	tk_ci_collect(&tk_env_process, &ci, NULL);
	if (!o->keys.nr) {
		ret = history_dashboard(ctx, o, store, url, &ci);
		tk_ci_context_release(&ci);
		return ret;
	}
	ret = tk_plot_query_to_path(store, &o->q, &o->po, &ci, &ctx->config, o->plot,
				    TK_WRITE_NO_FSYNC, &res, &err);
	/* a key asked for that has no runs gets no chart: say so */
	for (i = 0; i < res.nr_missing; i++)
		cmd_warning("no runs of key '%s' to plot%s, so no chart of it", res.missing[i],
			    o->since_set ? " since --since" : " in the last year (--since 1y)");
	if (ret == TK_EDATA && !res.nr_keys && !o->since_set)
		cmd_since_hint(store, &o->q, &err);
	if (ret)
		ret = cmd_fail(&err);
	else if (res.skipped)
		cmd_warning("%zu runs without a numeric build number are not drawn", res.skipped);
	tk_plot_result_release(&res);
	tk_ci_context_release(&ci);
	return ret;
}

int cmd_history(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct history_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *store = NULL;
	char id[TK_RUN_ID_LEN + 1];
	int ret, empty;

	memset(&o, 0, sizeof(o));
	ret = parse_options(argc, argv, ctx, &o);
	if (ret)
		goto out;
	cmd_resolve_db(ctx, o.db, &url);
	if (tk_store_open_reader(url.buf, &store, &err)) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (store->warning[0])
		cmd_warning("%s", store->warning);
	/* a key no run has is a typo, not an empty history */
	if (tk_store_require_keys(store, o.q.keys, &err) ||
	    cmd_resolve_run_id(store, o.keys.nr == 1 ? o.keys.v[0] : NULL, &o.q.run_id, id,
			       &err)) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (o.frames.nr || o.frame_patterns.nr) {
		ret = history_frames(ctx, &o, store);
		goto out;
	}
	if (o.plot) {
		ret = history_plot(ctx, &o, store, url.buf);
		goto out;
	}
	if (o.timeline) {
		ret = history_timeline(&o, store);
		goto out;
	}
	ret = tk_histsink_write_query(store, &o.q, o.format, o.ranks, stdout, &empty, &err);
	if (empty)
		fprintf(stderr, "no runs\n");
	if (ret)
		ret = cmd_fail(&err);
out:
	cmd_store_close(store);
	tk_buf_release(&url);
	cmd_strlist_release(&o.keys);
	cmd_strlist_release(&o.frames);
	cmd_strlist_release(&o.frame_patterns);
	return ret;
}
