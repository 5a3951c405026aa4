/*
 * core/analyze/check on a real SQLite history: which runs are current and which
 * are the baseline (window, failed runs, the current branch's own older
 * runs, machine classes, repeats of one build), the verdicts, the rules
 * of the config, change points with their builds and commits, the
 * keys of a build, and whether the current run's command is its
 * baseline's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/analyze/check.h"
#include "core/pages/checkfmt.h"
#include "core/store/keyhist.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-check.XXXXXX";
static int next_id;

/* A run of key on branch, build, with walltime w (maxrss 1 GiB), machine
 * class mc (NULL: none), started at minute `at`. */
static void put(struct tk_store *s, const char *key, const char *branch, int build, double w,
		const char *mc, int at, enum tk_run_status status)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;
	char num[64];
	int inserted;

	tk_run_init(&r);
	snprintf(r.id, sizeof(r.id), "00000000-0000-4000-8000-%012d", ++next_id);
	r.key = strdup(key);
	r.ci.branch = strdup(branch);
	snprintf(num, sizeof(num), "%d", build);
	r.ci.build_number = strdup(num);
	snprintf(num, sizeof(num), "%040d", build);
	r.ci.commit = strdup(num);
	r.machine_class = mc ? strdup(mc) : NULL;
	r.started_at_us = (int64_t)at * 60 * 1000000;
	r.walltime_s = w;
	r.user_s = w;
	r.sys_s = 0;
	r.maxrss_bytes = 1 << 30;
	r.tree_rss_bytes = 1 << 30;
	r.status = status;
	r.exit_code = status == TK_RUN_OK ? 0 : 1;
	if (tk_store_put_run(s, &r, &inserted, &err))
		diag(err.msg);
	tk_run_release(&r);
}

static const double noise[] = { 0, 1, -1, 2, 0, -2, 1, 0, -1, 3, 1, -1 };

/* The check's JSON, to compare two results. */
static char *as_json(const struct tk_check_result *r, int history)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	tk_checkfmt_write(f, TK_CHECKFMT_JSON, r, 1, history, NULL);
	fclose(f);
	return text;
}

/*
 * The same check made from the key's runs read once (core/store/keyhist.h):
 * all of them, and only those since the middle of the history (the check
 * then asks the store for what came before), must give what the store
 * gives.
 */
static void same_from_history(struct tk_store *s, struct tk_check_opts *o,
			      const struct tk_ci_context *ci, const struct tk_config *cfg,
			      const struct tk_check_result *want)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_key_history h;
	struct tk_check_result got;
	char *a = as_json(want, o->history), *b;
	int64_t since[2] = { 0, 0 };
	int i;

	if (!tk_key_history_load(s, o->key, 0, 1, &h, &err) && h.nr)
		since[1] = h.runs[h.nr / 2].started_at_us;
	tk_key_history_release(&h);
	for (i = 0; i < 2; i++) {
		if (tk_key_history_load(s, o->key, since[i], 1, &h, &err)) {
			ok(0, "history of %s read: %s", o->key, err.msg);
			continue;
		}
		o->history_runs = &h;
		memset(&got, 0, sizeof(got));
		if (tk_check_key(s, o, ci, cfg, &got, &err)) {
			ok(0, "check of %s from its history: %s", o->key, err.msg);
		} else {
			b = as_json(&got, o->history);
			ok(!strcmp(a, b), "check of %s from its runs read once%s: the store's result",
			   o->key, i ? " (since the middle)" : "");
			if (strcmp(a, b))
				diag(b);
			free(b);
			tk_check_result_release(&got);
		}
		o->history_runs = NULL;
		tk_key_history_release(&h);
	}
	free(a);
}

static int check(struct tk_store *s, struct tk_check_opts *o, const struct tk_ci_context *ci,
		 const struct tk_config *cfg, struct tk_check_result *r)
{
	struct tk_err err = TK_ERR_INIT;
	int ret = tk_check_key(s, o, ci, cfg, r, &err);

	if (ret)
		diag(err.msg);
	else
		same_from_history(s, o, ci, cfg, r);
	return ret;
}

/* The check: section of .tracker.yml: rules, and warnings for mistakes. */
static void config_rules(void)
{
	static const char good[] =
		"check:\n"
		"  window: 15\n"
		"  method: zscore\n"
		"  maxrss: { method: percent, threshold: 5 }\n"
		"  keys:\n"
		"    amip:\n"
		"      walltime: { method: percent, threshold: 15, min_effect: 3 }\n";
	static const char bad[] =
		"check:\n"
		"  window: 1\n"
		"  methd: percent\n"
		"  keys:\n"
		"    amip:\n"
		"      wall: { method: percent }\n"
		"      maxrss: { method: magic, threshold: -2 }\n";
	static const char level[] =
		"check:\n"
		"  keys:\n"
		"    slow:\n"
		"      walltime: { threshold: 0.7 }\n"
		"      maxrss: { method: percent, threshold: 15 }\n";
	struct tk_err err = TK_ERR_INIT;
	struct tk_config c;

	tk_config_init(&c);
	ok(!tk_config_parse(good, strlen(good), "t.yml", &c, &err) && !c.nr_warnings,
	   "check rules parse without warnings");
	ok(c.check.window == 15 && c.check.method_set &&
	   c.check.method == TK_VERDICT_ZSCORE, "window and method");
	is_int(c.check.nr_rules, 2, "two rules");
	ok(!c.check.rules[0].key && c.check.rules[0].metric == TK_METRIC_MAXRSS &&
	   c.check.rules[0].threshold == 5, "maxrss of every key: percent 5");
	ok(c.check.rules[1].key && !strcmp(c.check.rules[1].key, "amip") &&
	   c.check.rules[1].metric == TK_METRIC_WALLTIME &&
	   c.check.rules[1].method == TK_VERDICT_PERCENT && c.check.rules[1].threshold == 15 &&
	   c.check.rules[1].min_effect > 0.0299 && c.check.rules[1].min_effect < 0.0301,
	   "walltime of amip: percent 15, floor 3%%");
	tk_config_release(&c);

	tk_config_init(&c);
	ok(!tk_config_parse(bad, strlen(bad), "t.yml", &c, &err), "mistakes are warnings");
	is_int(c.nr_warnings, 5, "five of them");
	if (c.nr_warnings == 5) {
		is_str(c.warnings[0], "t.yml:2:11: 'window' must be a whole number of runs from 5 "
		       "to 1000; ignored", "a window of 1");
		is_str(c.warnings[1], "t.yml:3:3: unknown field 'methd' in check (did you mean "
		       "'method'?); ignored", "a misspelled field");
		is_str(c.warnings[2], "t.yml:6:7: unknown metric 'wall' in check of key 'amip' "
		       "(expected " TK_METRIC_NAMES "); ignored",
		       "an unknown metric");
		is_str(c.warnings[3], "t.yml:7:25: unknown method 'magic' (expected interval, "
		       "percent, zscore or mannwhitney); ignored", "an unknown method");
		is_str(c.warnings[4], "t.yml:7:43: 'threshold' must be a positive number, not "
		       "'-2'; ignored", "a negative threshold");
	} else {
		skip(5, "not five warnings");
	}
	ok(c.check.window == 0, "the bad window is not set");
	tk_config_release(&c);

	tk_config_init(&c);
	ok(!tk_config_parse(level, strlen(level), "t.yml", &c, &err), "a level over 0.5: a warning");
	is_int(c.nr_warnings, 1, "one");
	if (c.nr_warnings == 1)
		is_str(c.warnings[0], "t.yml:4:30: the threshold of interval in check of walltime "
		       "is a test level below 0.5, not 0.7; ignored", "naming the method and value");
	else
		skip(1, "no warning");
	ok(c.check.nr_rules == 2 && c.check.rules[0].threshold == 0 &&
	   c.check.rules[1].threshold == 15, "ignored; a percent threshold of 15 is kept");
	tk_config_release(&c);
}

/* A run of key on main, build b at minute `at`, whose command is argv
 * (NULL: none recorded). */
static void put_command(struct tk_store *s, const char *key, int b, int at, char *const *argv)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;
	char num[64];
	int inserted;

	tk_run_init(&r);
	snprintf(r.id, sizeof(r.id), "00000000-0000-4000-8000-%012d", ++next_id);
	r.key = strdup(key);
	r.ci.branch = strdup("main");
	snprintf(num, sizeof(num), "%d", b);
	r.ci.build_number = strdup(num);
	r.started_at_us = (int64_t)at * 60 * 1000000;
	r.walltime_s = 10;
	r.maxrss_bytes = 1 << 30;
	r.status = TK_RUN_OK;
	if (argv)
		tk_run_set_argv(&r, argv);
	if (tk_store_put_run(s, &r, &inserted, &err))
		diag(err.msg);
	tk_run_release(&r);
}

/* The check of key's build `build` on main against main, with the
 * commands compared; what tk_check_command_say says in say. */
static int check_command(struct tk_store *s, const char *key, const char *build,
			 struct tk_check_result *r, struct tk_buf *say)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_check_opts o;
	int ret;

	tk_check_opts_init(&o);
	o.key = key;
	o.branch = "main";
	o.build = build;
	o.baseline_branch = "main";
	ret = tk_check_key(s, &o, NULL, NULL, r, &err);
	if (!ret)
		ret = tk_check_command(s, r, &err);
	if (ret)
		diag(err.msg);
	tk_buf_reset(say);
	tk_check_command_say(r, say);
	return ret;
}

static void commands(struct tk_store *s)
{
	static char *const a[] = { "julia", "--project", "a.jl", NULL };
	static char *const b[] = { "julia", "--project", "b.jl", NULL };
	static char *const spaced[] = { "julia", "a b.jl", NULL };
	static char *const split[] = { "julia", "a", "b.jl", NULL };
	static char *const low[] = { "bash", "-e", "-c", "julia --project=experiments/ClimaEarth/ "
				     "experiments/ClimaEarth/run_amip.jl --config_file low.yml", NULL };
	static char *const high[] = { "bash", "-e", "-c", "julia --project=experiments/ClimaEarth/ "
				      "experiments/ClimaEarth/run_amip.jl --config_file high.yml", NULL };
	struct tk_check_result r, copy;
	struct tk_buf say = TK_BUF_INIT;
	char *json;
	int i;

	/* builds 1-5 of main: a, b, none recorded, b, a; build 6: a */
	put_command(s, "cmd", 1, 2001, a);
	put_command(s, "cmd", 2, 2002, b);
	put_command(s, "cmd", 3, 2003, NULL);
	put_command(s, "cmd", 4, 2004, b);
	put_command(s, "cmd", 5, 2005, a);
	put_command(s, "cmd", 6, 2006, a);
	ok(!check_command(s, "cmd", "6", &r, &say), "commands compared");
	is_int(r.nr_base, 5, "against 5 runs");
	is_int(r.command.known, 4, "4 of them with a command");
	is_int(r.command.differ, 2, "2 of them another");
	is_str(r.command.current, "julia --project a.jl", "the current command, as shell words");
	is_str(r.command.other, "julia --project b.jl", "the newest other one (build 4)");
	is_str(say.buf, "the current run's command differs from 2 of its 4 baseline runs with a "
	       "recorded command ('julia --project a.jl' vs 'julia --project b.jl')", "said so");
	json = as_json(&r, 0);
	ok(strstr(json, "\"command_differs\": {\n        \"differing\": 2,\n        \"of\": 4,")
	   != NULL, "in the JSON");
	free(json);
	tk_check_result_copy(&copy, &r);
	is_str(copy.command.other, "julia --project b.jl", "a copy has its own");
	tk_check_result_release(&copy);
	tk_check_result_release(&r);

	/* the same command every time: nothing to say, nothing in the JSON */
	for (i = 1; i <= 6; i++)
		put_command(s, "same", i, 2100 + i, a);
	ok(!check_command(s, "same", "6", &r, &say), "the same command");
	ok(!r.command.differ && r.command.known == 5 && !r.command.current && !say.len,
	   "nothing differs");
	json = as_json(&r, 0);
	ok(!strstr(json, "command_differs"), "nor in the JSON");
	free(json);
	tk_check_result_release(&r);

	/* one word with a blank is not two words */
	put_command(s, "spaced", 1, 2201, split);
	put_command(s, "spaced", 2, 2202, spaced);
	ok(!check_command(s, "spaced", "2", &r, &say), "quoted words");
	is_str(say.buf, "the current run's command differs from 1 of its 1 baseline run "
	       "('julia 'a b.jl'' vs 'julia a b.jl')", "shown as one would type them");
	tk_check_result_release(&r);

	/* long commands are shown from the word where they part */
	put_command(s, "long", 1, 2301, low);
	put_command(s, "long", 2, 2302, high);
	ok(!check_command(s, "long", "2", &r, &say), "long commands");
	is_str(say.buf, "the current run's command differs from 1 of its 1 baseline run "
	       "('... high.yml'' vs '... low.yml'')", "from the word where they part");
	tk_check_result_release(&r);

	/* no baseline: nothing compared */
	ok(!check_command(s, "alone", NULL, &r, &say) && !r.command.known && !say.len,
	   "no run, no baseline: nothing compared");
	tk_check_result_release(&r);
	tk_buf_release(&say);
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_check_opts o;
	struct tk_check_result r;
	struct tk_ci_context ci;
	struct tk_config cfg;
	struct tk_buf path = TK_BUF_INIT;
	struct tk_store *s;
	char **keys = NULL;
	size_t nkeys = 0, i;
	int b;
	static const char yml[] = "baseline_branch: main\ncheck:\n  keys:\n    amip:\n"
				  "      walltime: { method: percent, threshold: 50 }\n";

	if (!mkdtemp(dir))
		return 1;
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		diag(err.msg);
		return 1;
	}
	tk_ci_context_init(&ci);
	tk_config_init(&cfg);

	/* amip: 12 builds of main (a failed one among them), then feature +30% */
	for (b = 1; b <= 12; b++)
		put(s, "amip", "main", b, 100 + noise[b - 1], NULL, b, TK_RUN_OK);
	put(s, "amip", "main", 13, 500, NULL, 13, TK_RUN_FAILED);
	put(s, "amip", "feature", 14, 130, NULL, 14, TK_RUN_OK);

	tk_check_opts_init(&o);
	o.key = "amip";
	o.branch = "feature";
	o.baseline_branch = "main";
	ok(!check(s, &o, NULL, NULL, &r), "a check");
	is_int(r.nr_current, 1, "one current run");
	is_str(r.current[0].build, "14", "the feature build");
	is_int(r.nr_base, 10, "a window of 10");
	is_str(r.base[0].build, "12", "newest first, the failed build 13 skipped");
	is_str(r.base[9].build, "3", "down to build 3");
	is_int(r.nr_metrics, 3, "walltime, maxrss and cpu by default (no profiles)");
	is_int(r.metrics[0].result.verdict, TK_VERDICT_REGRESSION, "walltime +30%%: regression");
	is_int(r.metrics[1].result.verdict, TK_VERDICT_NO_CHANGE, "maxrss: no change");
	is_int(r.metrics[2].metric, TK_METRIC_CPU, "then cpu");
	is_int(tk_check_worst(&r), TK_VERDICT_REGRESSION, "worst: regression");
	tk_check_result_release(&r);

	/* the config's rule for the key: percent 50 */
	ok(!tk_config_parse(yml, strlen(yml), "t.yml", &cfg, &err) && !cfg.nr_warnings,
	   "check rules parse");
	o.baseline_branch = NULL;
	ok(!check(s, &o, NULL, &cfg, &r), "a check with the config");
	is_str(r.baseline_branch, "main", "the config's baseline branch");
	is_str(r.metrics[0].result.method, "percent", "the key's method");
	is_int(r.metrics[0].result.verdict, TK_VERDICT_NO_CHANGE, "+30%% <= 50%%");
	tk_check_result_release(&r);
	o.method_set = 1;
	o.vopts = tk_verdict_opts_default();
	ok(!check(s, &o, NULL, &cfg, &r), "--method wins over the config");
	is_int(r.metrics[0].result.verdict, TK_VERDICT_REGRESSION, "interval: regression");
	tk_check_result_release(&r);
	o.method_set = 0;

	/* checking main itself: the newest main run against the older ones */
	o.branch = "main";
	o.window = 5;
	ok(!check(s, &o, NULL, &cfg, &r), "a check on the baseline branch");
	is_str(r.current[0].build, "13", "the newest run is current, even failed");
	ok(r.metrics[0].result.verdict == TK_VERDICT_INSUFFICIENT && r.metrics[0].note &&
	   !strcmp(r.metrics[0].note, "the current run did not succeed"),
	   "but a failed run is not judged");
	is_str(r.base[0].build, "12", "the baseline starts before it");
	is_int(r.nr_base, 5, "--window 5");
	tk_check_result_release(&r);
	o.window = 0;

	/* too few runs, and no baseline branch */
	o.key = "amip";
	o.branch = "feature";
	o.baseline_branch = "release";
	ok(!check(s, &o, NULL, NULL, &r), "a baseline branch with no runs");
	ok(r.metrics[0].result.verdict == TK_VERDICT_INSUFFICIENT && r.note,
	   "insufficient, with a note: %s", r.note ? r.note : "(none)");
	tk_check_result_release(&r);

	/* a current run still running is said to be running, not failed;
	 * a failed one with no baseline at all: the run is what to say */
	for (b = 1; b <= 6; b++)
		put(s, "live", "nightly", b, 100 + noise[b], NULL, 300 + b, TK_RUN_OK);
	put(s, "live", "nightly", 7, 0, NULL, 307, TK_RUN_STARTED);
	put(s, "lone", "topic", 1, 100, NULL, 310, TK_RUN_FAILED);
	tk_check_opts_init(&o);
	o.key = "live";
	o.branch = "nightly";
	o.baseline_branch = "nightly";
	ok(!check(s, &o, NULL, NULL, &r), "a check while the current run runs");
	is_str(r.current[0].build, "7", "the started run is current");
	is_int(r.nr_base, 6, "the 6 runs before it are the baseline");
	ok(r.metrics[0].result.verdict == TK_VERDICT_INSUFFICIENT && r.metrics[0].note &&
	   !strcmp(r.metrics[0].note, "the current run is still running (status started)"),
	   "a started run: still running, not judged (%s)",
	   r.metrics[0].note ? r.metrics[0].note : "(none)");
	tk_check_result_release(&r);
	o.key = "lone";
	o.branch = "topic";
	o.baseline_branch = "main";
	ok(!check(s, &o, NULL, NULL, &r), "a failed run, no baseline runs");
	ok(r.nr_base == 0 && r.note && !strcmp(r.note, "the current run did not succeed"),
	   "the note says the current run did not succeed (%s)", r.note ? r.note : "(none)");
	tk_check_result_release(&r);

	/* ocean: two machine classes, the slow one at 2x */
	for (b = 1; b <= 20; b++)
		put(s, "ocean", "main", b, (b % 2 ? 100 : 200) + noise[b % 12], b % 2 ? "fast" : "slow",
		    100 + b, TK_RUN_OK);
	put(s, "ocean", "main", 0, 99, NULL, 99, TK_RUN_OK); /* before classes */
	put(s, "ocean", "pr", 21, 101, "fast", 121, TK_RUN_OK);
	tk_check_opts_init(&o);
	o.key = "ocean";
	o.branch = "pr";
	o.baseline_branch = "main";
	o.window = 11;
	ok(!check(s, &o, NULL, NULL, &r), "a check with machine classes");
	is_str(r.machine_class, "fast", "the current run's class");
	is_int(r.nr_base, 11, "10 runs of the class and 1 without a class");
	for (i = 0; i < r.nr_base; i++)
		if (r.base[i].machine_class && strcmp(r.base[i].machine_class, "fast"))
			break;
	ok(i == r.nr_base, "no run of the slow class in the baseline");
	is_int(r.metrics[0].result.verdict, TK_VERDICT_NO_CHANGE, "so no regression");
	tk_check_result_release(&r);

	/* three runs of one CI build are judged together */
	for (b = 0; b < 3; b++)
		put(s, "ice", "pr", 50, 120 + b, NULL, 300 + b, TK_RUN_OK);
	put(s, "ice", "pr", 49, 100, NULL, 299, TK_RUN_OK);
	for (b = 1; b <= 10; b++)
		put(s, "ice", "main", b, 100 + noise[b], NULL, 200 + b, TK_RUN_OK);
	ci.branch = strdup("pr");
	ci.build_number = strdup("50");
	ci.base_branch = strdup("main");
	tk_check_opts_init(&o);
	o.key = "ice";
	ok(!check(s, &o, &ci, NULL, &r), "a check in a CI build");
	is_int(r.nr_current, 3, "the build's three runs");
	is_str(r.baseline_branch, "main", "the PR's base branch");
	is_str(r.metrics[0].result.method, "two-sample", "judged as two samples");
	is_int(r.metrics[0].result.verdict, TK_VERDICT_REGRESSION, "a regression");
	tk_check_result_release(&r);
	ok(!tk_check_default_keys(s, &ci, NULL, &keys, &nkeys, &err) && nkeys == 1 &&
	   !strcmp(keys[0], "ice"), "the keys of this build: ice");
	for (i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	ok(!tk_check_default_keys(s, NULL, "main", &keys, &nkeys, &err) && nkeys == 3 &&
	   !strcmp(keys[0], "amip") && !strcmp(keys[1], "ice") && !strcmp(keys[2], "ocean"),
	   "no build: the keys of the branch's last day, sorted");
	for (i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);

	/* a build's runs on two kinds of machine: a result per class */
	for (b = 1; b <= 10; b++) {
		put(s, "sea", "main", b, 100 + noise[b], "fast", 500 + b, TK_RUN_OK);
		put(s, "sea", "main", b, 200 + noise[b], "slow", 500 + b, TK_RUN_OK);
	}
	put(s, "sea", "pr", 50, 101, "fast", 520, TK_RUN_OK);
	put(s, "sea", "pr", 50, 300, "slow", 521, TK_RUN_OK);
	{
		struct tk_check_results all = { NULL, 0, 0 };

		tk_check_opts_init(&o);
		o.key = "sea";
		ok(!tk_check_key_classes(s, &o, &ci, NULL, &all, &err), "a check of every class");
		is_int(all.nr, 2, "two results");
		if (all.nr == 2) {
			is_str(all.v[0].machine_class, "slow", "first the newest run's class");
			is_int(all.v[0].nr_other_classes, 1, "which sets the other aside");
			is_int(all.v[0].metrics[0].result.verdict, TK_VERDICT_REGRESSION,
			       "slow: 300 s against 200 s, a regression");
			is_str(all.v[1].machine_class, "fast", "then the other class");
			is_int(all.v[1].metrics[0].result.verdict, TK_VERDICT_NO_CHANGE,
			       "fast: 101 s against 100 s, no change");
		} else {
			skip(5, "not two results");
		}
		o.key = "amip";
		ok(!tk_check_key_classes(s, &o, &ci, NULL, &all, &err) && all.nr == 3,
		   "results are appended");
		tk_check_results_release(&all);
		ok(!all.v && !all.nr, "released: empty");
	}

	/* history: a +15% step at build 25 of 40 */
	for (b = 1; b <= 40; b++)
		put(s, "land", "main", b, (100 + noise[b % 12]) * (b >= 25 ? 1.15 : 1), NULL,
		    400 + b, TK_RUN_OK);
	tk_check_opts_init(&o);
	o.key = "land";
	o.branch = "main";
	o.baseline_branch = "main";
	o.history = 1;
	ok(!check(s, &o, NULL, NULL, &r), "a check with history");
	is_int(r.metrics[0].series_n, 39, "the series: the runs before the current one");
	is_int(r.metrics[0].nr_changes, 1, "one change point of walltime");
	if (r.metrics[0].nr_changes == 1) {
		const struct tk_check_change *c = &r.metrics[0].changes[0];

		is_str(c->first.build, "25", "at build 25");
		is_str(c->last_before.build, "24", "after build 24");
		is_str(c->first.commit, "0000000000000000000000000000000000000025", "its commit");
		ok(c->cp.before == 100 && c->cp.after > 114 && c->cp.after < 117,
		   "from 100 s to 115 s (%g -> %g)", c->cp.before, c->cp.after);
	} else {
		skip(4, "no change point");
	}
	is_int(r.metrics[1].nr_changes, 0, "none of maxrss");
	tk_check_result_release(&r);

	config_rules();
	commands(s);
	tk_config_release(&cfg);
	tk_ci_context_release(&ci);
	tk_store_close(s);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "rm -rf '%s'", dir);
	if (system(path.buf))
		diag("cannot remove the test directory");
	tk_buf_release(&path);
	return done_testing();
}
