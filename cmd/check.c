/*
 * tracker check: is this build's run of a key slower or bigger than its
 * baseline? The choice of runs and the statistics are core/analyze/check.h's (the
 * report and the dashboard call the same), the outputs core/pages/checkfmt.h's;
 * this parses options, picks the keys and sets the exit status.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/base/escape.h"
#include "core/analyze/check.h"
#include "core/pages/checkfmt.h"
#include "core/ci/ci.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

const char cmd_check_usage[] =
	"usage: tracker check [--key K]... [--metric walltime,maxrss,tree_rss,cpu,alloc,slurm_maxrss]\n"
	"                     [--baseline-branch B] [--window N] [--method M]\n"
	"                     [--threshold X] [--history] [--format text|json|markdown]\n"
	"                     [--run ID] [--branch B] [--machine-class C] [--db URL]\n"
	"\n"
	"Compares the current run of each key with its baseline: the last N\n"
	"successful runs of the key on the baseline branch, on the same machine\n"
	"class. The current run is this build's (CI context; several runs of the\n"
	"build are judged together), else the newest on the current branch.\n"
	"Without --key: the keys recorded in this build, else those of the\n"
	"current branch's runs in the last 24 hours of its history.\n"
	"\n"
	"Options:\n"
	"  --key K            check key K (repeatable)\n"
	"  --metric LIST      metrics to judge (default walltime,maxrss)\n"
	"  --baseline-branch B  the baseline branch (default: the PR base branch,\n"
	"                     baseline_branch of the key or of .tracker.yml, the\n"
	"                     pipeline's default branch)\n"
	"  --window N         baseline runs, 5 to 1000 (default: check: window:,\n"
	"                     else 10)\n"
	"  --method M         interval (default: a robust prediction interval on\n"
	"                     log values, with a 2% effect floor), percent, zscore\n"
	"                     or mannwhitney; overrides .tracker.yml's check: rules\n"
	"  --threshold X      percent: the change in % (default 10); zscore: z (3);\n"
	"                     interval, mannwhitney: the one-sided level (0.005)\n"
	"  --history          also list the change points of the baseline branch\n"
	"  --format F         text (default), json or markdown\n"
	"  --run ID           the current run is this one (its id or the start of it,\n"
	"                     as tracker prints it; its key)\n"
	"  --branch B         the current branch (default: the CI context's)\n"
	"  --machine-class C  compare runs of this machine class (default: the\n"
	"                     current run's)\n"
	"  --db URL           the database (default: $TRACKER_DB, db: in .tracker.yml)\n"
	"\n"
	"Examples:\n"
	"  tracker check --key amip\n"
	"  tracker check --metric walltime,maxrss,cpu --format markdown >verdicts.md\n"
	"  tracker check --key amip --history --format json\n"
	"\n"
	"Exit status: 0 no regression (also for insufficient data, with a note),\n"
	"1 a regression, 2 usage error, 65 a stored run cannot be read (or no run\n"
	"--run names), 69 the database is missing or unavailable.\n";

enum { OPT_DB = 256, OPT_KEY, OPT_METRIC, OPT_BASELINE_BRANCH, OPT_WINDOW, OPT_METHOD,
       OPT_THRESHOLD, OPT_HISTORY, OPT_FORMAT, OPT_RUN, OPT_BRANCH, OPT_MACHINE_CLASS };

static const struct option options[] = {
	{ "db", required_argument, NULL, OPT_DB },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "baseline-branch", required_argument, NULL, OPT_BASELINE_BRANCH },
	{ "window", required_argument, NULL, OPT_WINDOW },
	{ "method", required_argument, NULL, OPT_METHOD },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "history", no_argument, NULL, OPT_HISTORY },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "run", required_argument, NULL, OPT_RUN },
	{ "branch", required_argument, NULL, OPT_BRANCH },
	{ "machine-class", required_argument, NULL, OPT_MACHINE_CLASS },
	{ NULL, 0, NULL, 0 },
};

struct check_cmd {
	const char *db;
	const char **keys;
	size_t nr_keys, alloc_keys;
	enum tk_metric metrics[TK_METRIC_COUNT];
	double threshold;
	enum tk_checkfmt format;
	struct tk_check_opts o;
};

static int parse_number(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return end == s || *end || !(*out > 0) || *out > 1e9 ? -1 : 0;
}

/* Returns 0, or the exit code of a usage error. */
static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, struct check_cmd *c)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_verdict_method m;
	long n;
	int opt, nm;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case OPT_DB:
			c->db = optarg;
			break;
		case OPT_KEY:
			if (!*optarg)
				return cmd_usage_error(ctx, "--key needs a non-empty key");
			for (n = 0; (size_t)n < c->nr_keys && strcmp(c->keys[n], optarg); n++)
				;
			if ((size_t)n < c->nr_keys)
				break; /* named twice: checked once */
			TK_ALLOC_GROW(c->keys, c->nr_keys + 1, c->alloc_keys);
			c->keys[c->nr_keys++] = optarg;
			break;
		case OPT_METRIC:
			nm = tk_metric_parse_list(optarg, c->metrics, &err);
			if (nm < 0)
				return cmd_usage_error(ctx, "--metric: %s", err.msg);
			c->o.metrics = c->metrics;
			c->o.nr_metrics = (size_t)nm;
			break;
		case OPT_BASELINE_BRANCH:
			c->o.baseline_branch = optarg;
			break;
		case OPT_WINDOW:
			if (tk_parse_long(optarg, &n) || n < TK_CHECK_WINDOW_MIN ||
			    n > TK_CHECK_WINDOW_MAX)
				return cmd_usage_error(ctx, "--window needs a number of runs from %d "
						       "to %d, not '%s'", TK_CHECK_WINDOW_MIN,
						       TK_CHECK_WINDOW_MAX, optarg);
			c->o.window = (size_t)n;
			break;
		case OPT_METHOD:
			if (tk_verdict_method_parse(optarg, &m))
				return cmd_usage_error(ctx, "unknown method '%s' (use interval, "
						       "percent, zscore or mannwhitney)", optarg);
			c->o.method_set = 1;
			c->o.vopts.method = m;
			break;
		case OPT_THRESHOLD:
			if (parse_number(optarg, &c->threshold))
				return cmd_usage_error(ctx, "--threshold needs a positive number, "
						       "not '%s'", optarg);
			break;
		case OPT_HISTORY:
			c->o.history = 1;
			break;
		case OPT_FORMAT:
			if (tk_checkfmt_parse(optarg, &c->format, &err))
				return cmd_usage_error(ctx, "%s", err.msg);
			break;
		case OPT_RUN:
			c->o.run_id = optarg;
			break;
		case OPT_BRANCH:
			c->o.branch = optarg;
			break;
		case OPT_MACHINE_CLASS:
			c->o.machine_class = optarg;
			break;
		case ':':
			return cmd_usage_error(ctx, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error(ctx, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[optind]);
	if (c->threshold > 0) {
		if (!c->o.method_set)
			return cmd_usage_error(ctx, "--threshold needs --method");
		if ((c->o.vopts.method == TK_VERDICT_INTERVAL ||
		     c->o.vopts.method == TK_VERDICT_MANNWHITNEY) && c->threshold >= 0.5)
			return cmd_usage_error(ctx, "--threshold of %s is a test level below "
					       "0.5, not %g", tk_verdict_method_name(c->o.vopts.method),
					       c->threshold);
		if (c->o.vopts.method == TK_VERDICT_INTERVAL ||
		    c->o.vopts.method == TK_VERDICT_MANNWHITNEY)
			c->o.vopts.alpha = c->threshold;
		else
			c->o.vopts.threshold = c->threshold;
	}
	if (c->o.run_id && c->nr_keys > 1)
		return cmd_usage_error(ctx, "--run names one run: give at most one --key");
	return 0;
}

static int take_key(const struct tk_run_summary *s, void *data)
{
	tk_buf_adds(data, s->key ? s->key : "");
	return 1;
}

/* The key of run id, into out; TK_EDATA when the store has no such run. */
static int run_key(struct tk_store *store, const char *id, struct tk_buf *out,
		   struct tk_err *err)
{
	struct tk_run_query q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.run_id = id;
	ret = tk_store_query_summaries(store, &q, take_key, out, err);
	if (ret < 0)
		return ret;
	if (!out->len)
		return tk_err_set(err, TK_EDATA, "no run %s in the database (--run takes a run "
				  "id or the start of it, as tracker prints it)", id);
	return 0;
}

int cmd_check(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct check_cmd c;
	struct tk_ci_context ci;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT, run_key_buf = TK_BUF_INIT;
	struct tk_store *store = NULL;
	struct tk_check_result *res = NULL;
	char **found = NULL, idbuf[TK_RUN_ID_LEN + 1];
	size_t nr_found = 0, nr_res = 0, alloc_res = 0, i;
	int ret, regression = 0;

	memset(&c, 0, sizeof(c));
	tk_check_opts_init(&c.o);
	tk_ci_context_init(&ci);
	ret = parse_options(argc, argv, ctx, &c);
	if (ret)
		goto out;
	if (tk_ci_collect(&tk_env_process, &ci, &err))
		cmd_warning("incomplete CI context: %s", err.msg);
	cmd_resolve_db(ctx, c.db, &url);
	if (tk_store_open_flags(url.buf, TK_STORE_NO_CREATE, &store, &err)) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (store->warning[0])
		cmd_warning("%s", store->warning);
	if (c.o.run_id) {
		/* the run names its key */
		ret = cmd_resolve_run_id(store, c.nr_keys ? c.keys[0] : NULL, &c.o.run_id, idbuf,
					 &err);
		if (!ret)
			ret = run_key(store, c.o.run_id, &run_key_buf, &err);
		if (!ret && c.nr_keys && strcmp(c.keys[0], run_key_buf.buf))
			ret = tk_err_set(&err, TK_EUSAGE, "run %s is of key '%s', not '%s'",
					 c.o.run_id, run_key_buf.buf, c.keys[0]);
		if (ret) {
			ret = cmd_fail(&err);
			goto out;
		}
		if (!c.nr_keys) {
			TK_ALLOC_GROW(c.keys, 1, c.alloc_keys);
			c.keys[c.nr_keys++] = run_key_buf.buf;
		}
	}
	if (!c.nr_keys) {
		ret = tk_check_default_keys(store, &ci, c.o.branch, &found, &nr_found, &err);
		if (ret) {
			ret = cmd_fail(&err);
			goto out;
		}
		if (!nr_found) {
			/* a hint that leads somewhere: the key of a build or
			 * branch with no runs has none either */
			const char *b = c.o.branch ? c.o.branch : ci.branch;
			struct tk_buf num = TK_BUF_INIT;

			tk_buf_reset(&url);
			if (b)
				tk_text_escape(&url, b, strlen(b));
			if (b && ci.build_number) {
				tk_text_escape(&num, ci.build_number, strlen(ci.build_number));
				cmd_warning("no run to check in build %s of branch '%s' (check "
					    "after the build's tracker run steps, or name a run "
					    "with --run ID)", num.buf, url.buf);
			} else if (b) {
				cmd_warning("no run to check on branch '%s' (name another with "
					    "--branch, or a run with --run ID)", url.buf);
			} else {
				cmd_warning("no run to check (record one with tracker run)");
			}
			tk_buf_release(&num);
		}
	}
	for (i = 0; i < c.nr_keys + nr_found; i++) {
		size_t first = nr_res, k;

		c.o.key = i < c.nr_keys ? c.keys[i] : found[i - c.nr_keys];
		c.o.current_class = NULL;
		/* then this build's runs on each other kind of machine */
		for (k = 0; !k || k <= res[first].nr_other_classes; k++) {
			if (k)
				c.o.current_class = res[first].other_classes[k - 1];
			TK_ALLOC_GROW(res, nr_res + 1, alloc_res);
			ret = tk_check_key(store, &c.o, &ci, &ctx->config, &res[nr_res], &err);
			if (ret) {
				ret = cmd_fail(&err);
				goto out;
			}
			regression |= tk_check_worst(&res[nr_res]) == TK_VERDICT_REGRESSION;
			nr_res++;
		}
	}
	if (tk_checkfmt_write(stdout, c.format, res, nr_res, c.o.history, &err))
		ret = cmd_fail(&err);
	else
		ret = regression ? 1 : 0;
out:
	for (i = 0; i < nr_res; i++)
		tk_check_result_release(&res[i]);
	free(res);
	for (i = 0; i < nr_found; i++)
		free(found[i]);
	free(found);
	free(c.keys);
	tk_store_close(store);
	tk_ci_context_release(&ci);
	tk_buf_release(&url);
	tk_buf_release(&run_key_buf);
	return ret;
}
