/*
 * tracker report: this build's charts, diffs, verdicts and summary in a
 * directory (core/pages/report.h), published where the CI system shows them
 * through the provider's publish operation (core/ci/ci.h). The verdicts do
 * not set the exit status: `tracker check` is the gate.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/analyze/baseline.h"
#include "core/analyze/check.h"
#include "core/ci/ci.h"
#include "core/pages/report.h"
#include "core/pages/reportmd.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker report [--artifacts DIR] [--upload] [--annotate] [--db URL]\n"
	"                      [--branch B] [--baseline-branch B] [--no-charts]\n"
	"                      [--metric LIST] [--fetch-baseline]\n"
	"\n"
	"Writes the report of the current build into DIR: for every key recorded\n"
	"in it, its history chart (KEY.png, KEY.html), a diff flame graph against\n"
	"the baseline for each kind of profile that changed (KEY-alloc-diff.html,\n"
	"KEY-cpu-diff.html), and the verdicts of tracker check with the functions\n"
	"that moved (verdicts.txt, check.json); the page to open (index.html), a\n"
	"markdown summary (summary.md), the body for the CI's build page\n"
	"(annotation.md), an OpenMetrics file (metrics.txt), and the dashboard of\n"
	"every key (dashboard/index.html). The files an earlier report wrote\n"
	"into DIR are removed first (listed in DIR/.tracker-files; nothing else).\n"
	"The current build is the CI context's; outside CI, the\n"
	"newest runs of each key on the current branch (its last 24 hours).\n";

static const char more[] =
	"\n"
	"Without the CI's tool (buildkite-agent not on PATH, or not under CI),\n"
	"the files are written and tracker says what it would have uploaded and\n"
	"annotated.\n"
	"\n"
	"Examples:\n"
	"  tracker report --upload --annotate\n"
	"  tracker report --artifacts perf-report --baseline-branch main\n"
	"  tracker report --fetch-baseline --upload --annotate   # no shared database\n"
	"\n"
	"Exit status: 0 the report was written (whatever its verdicts), 2 usage\n"
	"error, 65 a stored run cannot be read, 69 the database is unavailable (an\n"
	"unreachable one within 4 s, without --fetch-baseline) or the CI's tool\n"
	"failed, 70 internal error.\n";

struct report_args {
	const char *dir, *db;
	int upload, annotate, fetch;
	enum tk_metric metrics[TK_METRIC_COUNT];
	struct tk_report_opts o;
};

static int parse_metric(void *data, const char *arg, struct tk_err *err)
{
	struct report_args *a = data;
	int n = tk_metric_parse_list(arg, a->metrics, err);

	if (n < 0)
		return n;
	a->o.metrics = a->metrics;
	a->o.nr_metrics = (size_t)n;
	return 0;
}

#define O struct report_args
static const struct cmd_option options[] = {
	OPT_STRING(0, "artifacts", O, dir, "DIR", "where the report goes (default: the "
		   "artifacts directory, $TRACKER_ARTIFACTS or artifacts: in .tracker.yml or "
		   "tracker-artifacts, then /report)"),
	OPT_FLAG(0, "upload", O, upload, "upload DIR's files as the CI's artifacts (Buildkite: "
		 "buildkite-agent artifact upload 'DIR/**/*')"),
	OPT_FLAG(0, "annotate", O, annotate, "show the summary on the build's page (Buildkite: "
		 "buildkite-agent annotate --context tracker; GitHub: the step summary)"),
	OPT_DB(O, db),
	OPT_STRING(0, "branch", O, o.branch, "B", "the current branch (default: the CI "
		   "context's)"),
	OPT_STRING(0, "baseline-branch", O, o.baseline_branch, "B", "compare with B (default: "
		   "as tracker check)"),
	OPT_CALLBACK(0, "metric", "LIST", parse_metric, "the metrics judged and charted, "
		     "comma-separated: " TK_METRIC_NAMES " (default: tracker check's, and "
		     "charts of walltime, maxrss and every other metric that changed)"),
	OPT_FLAG(0, "no-charts", O, o.no_charts, "no history charts nor dashboard (faster with "
		 "thousands of keys)"),
	OPT_FLAG(0, "fetch-baseline", O, fetch, "first fetch from Buildkite the baseline runs "
		 "the history lacks for each key of the build (as tracker diff "
		 "--fetch-baseline; BUILDKITE_API_TOKEN, in a Buildkite job)"),
	OPT_END(),
};

const struct cmd_help cmd_report_help = { usage, options, more };

static void warning(void *data, const char *msg)
{
	cmd_warning("%s", msg);
}

/*
 * --fetch-baseline: for each key of this build, the baseline runs the
 * store lacks, from Buildkite (cmd_fetch_baseline, as tracker diff).
 */
static int fetch_baselines(struct tk_store *s, const struct tk_report_opts *o,
			   const struct tk_ci_context *ci, const struct tk_config *cfg,
			   struct tk_err *err)
{
	struct tk_baseline_query q;
	char **keys = NULL;
	size_t i, nr = 0;
	int ret = tk_check_default_keys(s, ci, o->branch, &keys, &nr, err);

	for (i = 0; !ret && i < nr; i++) {
		memset(&q, 0, sizeof(q));
		q.key = keys[i];
		q.branch = o->branch;
		q.baseline_branch = o->baseline_branch;
		q.nr_baselines = TK_CHECK_WINDOW_DEFAULT;
		ret = cmd_fetch_baseline(s, &q, ci, cfg, err);
	}
	for (i = 0; i < nr; i++)
		free(keys[i]);
	free(keys);
	return ret;
}

/*
 * Hands the report to the CI system's provider; outside CI, or for a CI
 * system with no place for reports, says what was asked and where the
 * files are.
 */
static int publish(const struct tk_report *r, const char *dir, const char *prefix,
		   int upload, int annotate)
{
	const struct tk_ci_provider *p = tk_ci_system(&tk_env_process);
	struct tk_buf annotation = TK_BUF_INIT, summary = TK_BUF_INIT;
	struct tk_ci_report rep;
	struct tk_err err = TK_ERR_INIT;
	int ret = 0;

	if (!upload && !annotate)
		return 0;
	if (!p || !p->publish) {
		printf("%s%s: the report stays in %s; would have%s%s%s (style %s, the body "
		       "is %s/annotation.md)\n", p ? p->name : "not under CI",
		       p ? " shows no reports" : "", dir, upload ? " uploaded its files" : "",
		       upload && annotate ? " and" : "", annotate ? " annotated the build" : "",
		       tk_report_style(r), dir);
		return 0;
	}
	tk_report_markdown(r, TK_REPORT_LINKS_ARTIFACTS, prefix, TK_REPORT_BODY_MAX - 1024,
			   &annotation);
	tk_report_markdown(r, TK_REPORT_LINKS_NONE, NULL, TK_REPORT_BODY_MAX - 1024, &summary);
	memset(&rep, 0, sizeof(rep));
	rep.dir = dir;
	rep.annotation = annotation.buf;
	rep.summary = summary.buf;
	rep.style = tk_report_style(r);
	rep.upload = upload;
	rep.annotate = annotate;
	ret = p->publish(&tk_env_process, &rep, stdout, &err);
	if (ret < 0)
		ret = cmd_fail(&err);
	else
		ret = 0;
	tk_buf_release(&annotation);
	tk_buf_release(&summary);
	return ret;
}

int cmd_report(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct report_args a;
	struct tk_report_opts *o = &a.o;
	struct tk_buf dir = TK_BUF_INIT, db = TK_BUF_INIT, prefix = TK_BUF_INIT;
	struct tk_report r;
	struct tk_ci_context ci;
	struct tk_store *s = NULL;
	struct tk_err err = TK_ERR_INIT;
	int nr_args, inside, ret;

	memset(&a, 0, sizeof(a));
	nr_args = cmd_parse_options(ctx, options, &a, argc, argv, 0);
	if (nr_args < 0)
		return EXIT_USAGE;
	if (nr_args)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[0]);
	if (a.dir && *a.dir) {
		tk_buf_adds(&dir, a.dir);
	} else {
		cmd_resolve_artifacts(ctx, NULL, &dir);
		tk_buf_adds(&dir, "/report");
	}
	/* uploaded from the working directory: the name the links use */
	inside = tk_report_artifact_prefix(dir.buf, &prefix);
	o->dir = dir.buf;
	o->artifact_prefix = prefix.buf;
	o->warn = warning;
	cmd_resolve_db(ctx, a.db, &db);
	o->store_url = db.buf;
	cmd_keep_heap();
	tk_ci_context_init(&ci);
	tk_ci_collect(&tk_env_process, &ci, NULL);
	tk_report_init(&r);
	/* --fetch-baseline writes: it waits for the database as run does */
	if (a.fetch)
		ret = tk_store_open_flags(db.buf, TK_STORE_NO_CREATE, &s, &err);
	else
		ret = tk_store_open_reader(db.buf, &s, &err);
	if (!ret && a.fetch)
		ret = fetch_baselines(s, o, &ci, &ctx->config, &err);
	if (!ret)
		ret = tk_report_build(s, o, &ci, &ctx->config, &r, &err);
	if (!ret)
		ret = tk_report_write(&r, o, &err);
	if (ret) {
		ret = cmd_fail(&err);
	} else {
		struct tk_buf what = TK_BUF_INIT;

		tk_report_describe_count(&r, &what);
		printf("wrote the report of %s to %s (%zu regression%s)\n", what.buf, dir.buf,
		       r.count[TK_VERDICT_REGRESSION],
		       r.count[TK_VERDICT_REGRESSION] == 1 ? "" : "s");
		tk_buf_release(&what);
		ret = publish(&r, inside ? prefix.buf : dir.buf, prefix.buf, a.upload, a.annotate);
	}
	cmd_store_close(s);
	tk_report_release(&r);
	tk_ci_context_release(&ci);
	tk_buf_release(&dir);
	tk_buf_release(&db);
	tk_buf_release(&prefix);
	return ret;
}
