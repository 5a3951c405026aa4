/*
 * core/analyze/baseline: which runs a comparison uses, on a real SQLite history:
 * NEW from the branch or the CI context, the baseline branch's order of
 * precedence, failed runs and NEW itself skipped, profile kinds, fewer
 * runs than asked for, the errors, and the labels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analyze/baseline.h"
#include "core/base/buf.h"
#include "core/store/store.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-baseline.XXXXXX";

/* Stores a run of key k on branch `branch`, build `build`, `status`,
 * started at `t` seconds, with a cpu profile blob when `with_cpu`. */
static void put(struct tk_store *s, const char *branch, int build, enum tk_run_status status,
		int t, int with_cpu, char id_out[TK_RUN_ID_LEN + 1])
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;
	char num[16];
	int inserted;

	tk_run_init(&r);
	tk_uuid_v4(r.id, &err);
	r.key = tk_xstrdup("k");
	r.ci.branch = tk_xstrdup(branch);
	snprintf(num, sizeof(num), "%d", build);
	r.ci.build_number = tk_xstrdup(num);
	r.ci.commit = tk_xstrdup("0123456789abcdef0123456789abcdef01234567");
	r.started_at_us = (int64_t)t * 1000000;
	r.walltime_s = build;
	r.status = status;
	r.exit_code = status == TK_RUN_OK ? 0 : 1;
	if (tk_store_put_run(s, &r, &inserted, &err))
		printf("# put_run: %s\n", err.msg);
	if (with_cpu) {
		struct tk_profile_blob b;
		static const char blob[] = "not decoded here";

		memset(&b, 0, sizeof(b));
		b.run_id = r.id;
		b.kind = "cpu";
		b.unit = "samples";
		b.nodes = 1;
		b.total = 1;
		b.data = blob;
		b.len = sizeof(blob);
		if (tk_store_put_profile(s, &b, &err))
			printf("# put_profile: %s\n", err.msg);
	}
	if (id_out)
		memcpy(id_out, r.id, TK_RUN_ID_LEN + 1);
	tk_run_release(&r);
}

static int builds_are(const struct tk_baseline *b, const char *want)
{
	struct tk_buf got = TK_BUF_INIT;
	size_t i;
	int same;

	for (i = 0; i < b->nr_base; i++)
		tk_buf_addf(&got, "%s%s", i ? "," : "", b->base[i].build);
	same = !strcmp(got.buf, want);
	if (!same)
		printf("# baseline builds: %s, want %s\n", got.buf, want);
	tk_buf_release(&got);
	return same;
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_baseline_query q;
	struct tk_ci_context ci;
	struct tk_config cfg;
	struct tk_baseline b;
	struct tk_store *s;
	struct tk_buf url = TK_BUF_INIT, l = TK_BUF_INIT;
	char feat_id[TK_RUN_ID_LEN + 1], main3_id[TK_RUN_ID_LEN + 1];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tk_buf_addf(&url, "%s/h.db", dir);
	if (tk_store_open(url.buf, &s, &err)) {
		printf("Bail out! cannot open %s: %s\n", url.buf, err.msg);
		return 1;
	}
	put(s, "main", 1, TK_RUN_OK, 1, 1, NULL);
	put(s, "main", 2, TK_RUN_OK, 2, 1, NULL);
	put(s, "main", 3, TK_RUN_OK, 3, 1, main3_id);
	put(s, "main", 4, TK_RUN_FAILED, 4, 1, NULL);
	put(s, "main", 5, TK_RUN_OK, 5, 0, NULL);
	put(s, "feature", 6, TK_RUN_OK, 6, 1, feat_id);
	put(s, "staging", 7, TK_RUN_OK, 7, 1, NULL);

	tk_ci_context_init(&ci);
	tk_config_init(&cfg);
	memset(&q, 0, sizeof(q));
	q.key = "k";
	q.kind = "cpu";
	q.branch = "feature";
	q.baseline_branch = "main";
	q.nr_baselines = 5;
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), 0, "choose: feature against main");
	is_str(b.new_run.build, "6", "NEW is the newest feature run");
	ok(builds_are(&b, "3,2,1"), "the baseline: successful main runs with a cpu profile, "
	   "newest first, fewer than asked for");
	is_str(b.branch, "main", "the baseline branch used is kept");
	tk_buf_reset(&l);
	tk_runs_label(&l, b.base, b.nr_base);
	is_str(l.buf, "mean of 3 runs of main: #3, #2, #1", "the label of several runs");
	tk_buf_reset(&l);
	tk_run_label(&l, &b.new_run);
	ok(!strncmp(l.buf, "feature #6 0123456789 (run ", 27), "the label of one run: %s", l.buf);
	tk_baseline_release(&b);

	q.kind = NULL;
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), 0, "without a kind");
	ok(builds_are(&b, "5,3,2,1"), "... every successful run counts");
	tk_baseline_release(&b);
	q.kind = "cpu";

	q.branch = "main";
	q.nr_baselines = 1;
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), 0, "NEW on the baseline branch");
	is_str(b.new_run.build, "4", "... NEW is the newest main run with the kind, failed or not");
	ok(builds_are(&b, "3"), "... the baseline the one before it");
	tk_baseline_release(&b);

	q.branch = NULL;
	q.run_id = feat_id;
	q.baseline_run = main3_id;
	q.baseline_branch = NULL;
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), 0, "--run and --baseline-run");
	ok(b.nr_base == 1 && !strcmp(b.base[0].id, main3_id) && !b.branch,
	   "... exactly the runs named");
	tk_baseline_release(&b);
	q.run_id = NULL;
	q.baseline_run = NULL;

	/* the baseline branch: named, PR base, key config, file config, default */
	ci.branch = tk_xstrdup("feature");
	ci.default_branch = tk_xstrdup("staging");
	is_str(tk_baseline_branch(NULL, &ci, &cfg, "k"), "staging", "the pipeline's default branch last");
	cfg.baseline_branch = tk_xstrdup("main");
	is_str(tk_baseline_branch(NULL, &ci, &cfg, "k"), "main", "the config file's before it");
	ci.base_branch = tk_xstrdup("staging");
	is_str(tk_baseline_branch(NULL, &ci, &cfg, "k"), "staging", "the PR base branch before that");
	is_str(tk_baseline_branch("main", &ci, &cfg, "k"), "main", "a named branch first");
	q.nr_baselines = 5;
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), 0, "from the CI context");
	ok(!strcmp(b.new_run.build, "6") && builds_are(&b, "7"),
	   "... NEW on the CI's branch, the baseline on the PR base");
	tk_baseline_release(&b);

	q.baseline_branch = "nowhere";
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), TK_EDATA, "no baseline run: TK_EDATA");
	ok(strstr(err.msg, "'nowhere'") && strstr(err.msg, "cpu"), "... naming the branch and kind: %s",
	   err.msg);
	ok(b.nr_base == 0 && !b.branch, "... and nothing is left to release");
	q.baseline_branch = NULL;
	tk_ci_context_release(&ci);
	tk_ci_context_init(&ci);
	free(cfg.baseline_branch);
	cfg.baseline_branch = NULL;
	q.branch = "feature";
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), TK_EUSAGE,
	       "no baseline branch anywhere: TK_EUSAGE");
	ok(strstr(err.msg, "--baseline-branch") != NULL, "... saying how to name one");
	q.key = "nobody";
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), TK_EDATA, "no NEW: TK_EDATA");
	q.key = "k";
	q.nr_baselines = TK_BASELINE_MAX + 1;
	is_int(tk_baseline_choose(s, &q, &ci, &cfg, &b, &err), TK_EUSAGE, "too many baselines");

	tk_config_release(&cfg);
	tk_ci_context_release(&ci);
	tk_store_close(s);
	unlink(url.buf);
	tk_buf_reset(&l);
	tk_buf_addf(&l, "rm -rf '%s'", dir);
	if (system(l.buf))
		printf("# could not remove %s\n", dir);
	tk_buf_release(&l);
	tk_buf_release(&url);
	return done_testing();
}
