/*
 * tracker check: is this build's run of a key slower or bigger than its
 * baseline? The choice of runs and the statistics are core/analyze/check.h's (the
 * report and the dashboard call the same), the outputs core/pages/checkfmt.h's;
 * this parses options, picks the keys and sets the exit status.
 */
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

static const char usage[] =
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
	"current branch's runs in the last 24 hours of its history.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker check --key amip\n"
	"  tracker check --metric walltime,maxrss,cpu --format markdown >verdicts.md\n"
	"  tracker check --key amip --history --format json\n"
	"\n"
	"Exit status: 0 no regression (also for insufficient data, with a note),\n"
	"1 a regression, 2 usage error, 65 a stored run cannot be read, no run\n"
	"--run names, or a --key no run has on any branch (the nearest keys are\n"
	"named), 69 the database is missing or unavailable (an unreachable one\n"
	"within 4 s).\n";

struct check_cmd {
	const char *db;
	struct cmd_strlist key_list;
	const char **keys; /* key_list without repeats */
	size_t nr_keys;
	enum tk_metric metrics[TK_METRIC_COUNT];
	long window;
	double threshold;
	enum tk_checkfmt format;
	struct tk_check_opts o;
};

static int parse_metric(void *data, const char *arg, struct tk_err *err)
{
	struct check_cmd *c = data;
	int n = tk_metric_parse_list(arg, c->metrics, err);

	if (n < 0)
		return n;
	c->o.metrics = c->metrics;
	c->o.nr_metrics = (size_t)n;
	return 0;
}

static int parse_method(void *data, const char *arg, struct tk_err *err)
{
	struct check_cmd *c = data;

	if (tk_verdict_method_parse(arg, &c->o.vopts.method))
		return tk_err_set(err, TK_EUSAGE, "unknown method '%s' (use interval, percent, "
				  "zscore or mannwhitney)", arg);
	c->o.method_set = 1;
	return 0;
}

static int parse_format(void *data, const char *arg, struct tk_err *err)
{
	struct check_cmd *c = data;

	return tk_checkfmt_parse(arg, &c->format, err);
}

#define O struct check_cmd
static const struct cmd_option options[] = {
	OPT_STRING_LIST(0, "key", O, key_list, "K", "check key K (repeatable)"),
	OPT_CALLBACK(0, "metric", "LIST", parse_metric, "metrics to judge, comma-separated: "
		     TK_METRIC_NAMES " (default: check: metrics: of .tracker.yml, else every "
		     "figure the runs have: walltime, maxrss, cpu and the total of each kind "
		     "of profile the current run has)"),
	OPT_STRING(0, "baseline-branch", O, o.baseline_branch, "B", "the baseline branch "
		   "(default: the PR base branch, baseline_branch of the key or of .tracker.yml, "
		   "the pipeline's default branch)"),
	OPT_LONG(0, "window", O, window, "N", TK_CHECK_WINDOW_MIN, TK_CHECK_WINDOW_MAX,
		 "baseline runs, 5 to 1000 (default: check: window:, else 10)"),
	OPT_CALLBACK(0, "method", "M", parse_method, "interval (default: a robust prediction "
		     "interval on log values, with a 2% effect floor), percent, zscore or "
		     "mannwhitney; overrides .tracker.yml's check: rules"),
	OPT_DOUBLE_ABOVE(0, "threshold", O, threshold, "X", 0, 1e9, "percent: the change in % "
			 "(default 10); zscore: z (3); interval, mannwhitney: the one-sided "
			 "level (0.005)"),
	OPT_FLAG(0, "history", O, o.history, "also list the change points of the baseline "
		 "branch"),
	OPT_CALLBACK(0, "format", "F", parse_format, "text (default), json or markdown"),
	OPT_STRING(0, "run", O, o.run_id, "ID", "the current run is this one (its id or the "
		   "start of it, as tracker prints it; its key)"),
	OPT_STRING(0, "branch", O, o.branch, "B", "the current branch (default: the CI "
		   "context's)"),
	OPT_STRING(0, "machine-class", O, o.machine_class, "C", "compare runs of this machine "
		   "class (default: the current run's)"),
	OPT_DB(O, db),
	OPT_END(),
};

const struct cmd_help cmd_check_help = { usage, options, more };

/* --key named twice is checked once. */
static void add_key(struct check_cmd *c, const char *key)
{
	size_t i;

	for (i = 0; i < c->nr_keys; i++)
		if (!strcmp(c->keys[i], key))
			return;
	c->keys[c->nr_keys++] = key;
}

/* Returns 0, or the exit code of a usage error. */
static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, struct check_cmd *c)
{
	enum tk_verdict_method m;
	int nr_args = cmd_parse_options(ctx, options, c, argc, argv, 0);
	size_t i;

	if (nr_args < 0)
		return EXIT_USAGE;
	if (nr_args)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[0]);
	c->keys = tk_xcalloc(c->key_list.nr + 1, sizeof(*c->keys));
	for (i = 0; i < c->key_list.nr; i++)
		add_key(c, c->key_list.v[i]);
	c->o.window = (size_t)c->window;
	m = c->o.vopts.method;
	if (c->threshold > 0) {
		if (!c->o.method_set)
			return cmd_usage_error(ctx, "--threshold needs --method");
		if ((m == TK_VERDICT_INTERVAL || m == TK_VERDICT_MANNWHITNEY) && c->threshold >= 0.5)
			return cmd_usage_error(ctx, "--threshold of %s is a test level below "
					       "0.5, not %g", tk_verdict_method_name(m),
					       c->threshold);
		if (m == TK_VERDICT_INTERVAL || m == TK_VERDICT_MANNWHITNEY)
			c->o.vopts.alpha = c->threshold;
		else
			c->o.vopts.threshold = c->threshold;
	}
	if (c->o.run_id && c->nr_keys > 1)
		return cmd_usage_error(ctx, "--run names one run: give at most one --key");
	return 0;
}

/*
 * --run names the key: the one to check, or one that must match --key.
 * Returns 0 or an exit code, the error printed.
 */
static int key_of_run(struct tk_store *store, struct check_cmd *c, struct tk_buf *key,
		      char idbuf[TK_RUN_ID_LEN + 1])
{
	struct tk_err err = TK_ERR_INIT;
	int ret;

	ret = cmd_resolve_run_id(store, c->nr_keys ? c->keys[0] : NULL, &c->o.run_id, idbuf,
				 &err);
	if (!ret)
		ret = tk_store_run_key(store, c->o.run_id, key, &err);
	if (!ret && !key->len)
		ret = tk_err_set(&err, TK_EDATA, "no run %s in the database (--run takes a run "
				 "id or the start of it, as tracker prints it)", c->o.run_id);
	if (!ret && c->nr_keys && strcmp(c->keys[0], key->buf))
		ret = tk_err_set(&err, TK_EUSAGE, "run %s is of key '%s', not '%s'",
				 c->o.run_id, key->buf, c->keys[0]);
	if (ret)
		return cmd_fail(&err);
	if (!c->nr_keys)
		c->keys[c->nr_keys++] = key->buf;
	return 0;
}

/* No key to check: a hint that leads somewhere, as the key of a build or
 * branch with no runs has none either. */
static void warn_no_keys(const struct check_cmd *c, const struct tk_ci_context *ci)
{
	const char *b = c->o.branch ? c->o.branch : ci->branch;
	struct tk_buf branch = TK_BUF_INIT, num = TK_BUF_INIT;

	if (b)
		tk_text_escape(&branch, b, strlen(b));
	if (b && ci->build_number) {
		tk_text_escape(&num, ci->build_number, strlen(ci->build_number));
		cmd_warning("no run to check in build %s of branch '%s' (check after the build's "
			    "tracker run steps, or name a run with --run ID)", num.buf, branch.buf);
	} else if (b) {
		cmd_warning("no run to check on branch '%s' (name another with --branch, or a "
			    "run with --run ID)", branch.buf);
	} else {
		cmd_warning("no run to check (record one with tracker run)");
	}
	tk_buf_release(&num);
	tk_buf_release(&branch);
}

/* A current run whose command is not its baseline's: unlike things. */
static void warn_command(const struct tk_check_result *r)
{
	struct tk_buf say = TK_BUF_INIT, key = TK_BUF_INIT, shown = TK_BUF_INIT;

	tk_check_command_say(r, &say);
	if (say.len) {
		tk_text_escape(&key, r->key, strlen(r->key));
		tk_text_escape(&shown, say.buf, say.len);
		cmd_warning("%s: %s", key.buf, shown.buf);
	}
	tk_buf_release(&say);
	tk_buf_release(&key);
	tk_buf_release(&shown);
}

int cmd_check(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct check_cmd c;
	struct tk_ci_context ci;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT, run_key = TK_BUF_INIT;
	struct tk_store *store = NULL;
	struct tk_check_results res = { NULL, 0, 0 };
	char **found = NULL, idbuf[TK_RUN_ID_LEN + 1];
	size_t nr_found = 0, i;
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
	if (tk_store_open_reader(url.buf, &store, &err)) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (store->warning[0])
		cmd_warning("%s", store->warning);
	/* a key no run has on any branch is a typo: never "insufficient data" */
	if (tk_store_require_keys(store, c.keys, &err)) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (c.o.run_id)
		ret = key_of_run(store, &c, &run_key, idbuf);
	if (!ret && !c.nr_keys && tk_check_default_keys(store, &ci, c.o.branch, &found,
							 &nr_found, &err))
		ret = cmd_fail(&err);
	if (ret)
		goto out;
	if (!c.nr_keys && !nr_found)
		warn_no_keys(&c, &ci);
	for (i = 0; i < c.nr_keys + nr_found; i++) {
		c.o.key = i < c.nr_keys ? c.keys[i] : found[i - c.nr_keys];
		if (tk_check_key_classes(store, &c.o, &ci, &ctx->config, &res, &err)) {
			ret = cmd_fail(&err);
			goto out;
		}
	}
	for (i = 0; i < res.nr; i++) {
		if (tk_check_command(store, &res.v[i], &err)) {
			ret = cmd_fail(&err);
			goto out;
		}
		warn_command(&res.v[i]);
		regression |= tk_check_worst(&res.v[i]) == TK_VERDICT_REGRESSION;
	}
	if (tk_checkfmt_write(stdout, c.format, res.v, res.nr, c.o.history, &err))
		ret = cmd_fail(&err);
	else
		ret = regression ? 1 : 0;
out:
	tk_check_results_release(&res);
	for (i = 0; i < nr_found; i++)
		free(found[i]);
	free(found);
	free(c.keys);
	cmd_strlist_release(&c.key_list);
	cmd_store_close(store);
	tk_ci_context_release(&ci);
	tk_buf_release(&url);
	tk_buf_release(&run_key);
	return ret;
}
