/*
 * core/analyze/check with profiles, on a real SQLite history: the metrics
 * judged by default (every figure the runs have, each profile kind's
 * total), the functions that moved (the check's diffs), the config's
 * `metrics:` and `frames:`, a baseline that starts after a level shift,
 * and how the outputs (core/pages/checkfmt.h) say all of it.
 *
 * The key's runs carry an allocation profile and a CPU profile of a toy
 * model: main -> physics -> radiation -> churn, main -> physics ->
 * microphysics -> churn, main -> dynamics -> advect -> churn, with a
 * percent of noise per run. The feature build's radiation allocates twice
 * as much; its CPU does not move.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyze/changepoint.h"
#include "core/analyze/check.h"
#include "core/pages/checkfmt.h"
#include "core/store/profstore.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-check-profiles.XXXXXX";
static int next_id;

static const double noise[] = { 0, 0.01, -0.01, 0.02, 0, -0.02, 0.01, 0, -0.01, 0.015 };

/* A run of key on branch, build, walltime w, started at minute `at`;
 * its id into id. */
static void put(struct tk_store *s, const char *key, const char *branch, int build, double w,
		int at, enum tk_run_status status, int exit_code, char *id)
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
	r.started_at_us = (int64_t)at * 60 * 1000000;
	r.walltime_s = w;
	r.user_s = w;
	r.sys_s = 0;
	r.maxrss_bytes = 1 << 30;
	r.tree_rss_bytes = 1 << 30;
	r.status = status;
	r.exit_code = exit_code;
	if (tk_store_put_run(s, &r, &inserted, &err))
		diag(err.msg);
	if (id)
		memcpy(id, r.id, TK_RUN_ID_LEN + 1);
	tk_run_release(&r);
}

/* The model's profile of kind: radiation, microphysics and advect, each
 * with churn (alloc) or spin (cpu) under it, scaled by 1 + e; radiation
 * by rad more. */
static void put_profile(struct tk_store *s, const char *id, const char *kind, double e,
			double rad)
{
	static const char *const paths[3][4] = {
		{ "main", "physics", "radiation", NULL },
		{ "main", "physics", "microphysics", NULL },
		{ "main", "dynamics", "advect", NULL },
	};
	static const double alloc[3] = { 2 << 20, 1.5 * (1 << 20), 1.25 * (1 << 20) };
	static const double cpu[3] = { 4e8, 3e8, 3e8 };
	int is_alloc = !strcmp(kind, "alloc");
	struct tk_err err = TK_ERR_INIT;
	struct tk_profile p;
	uint32_t names[4];
	size_t i, j;

	tk_profile_init(&p, is_alloc ? TK_UNIT_BYTES : TK_UNIT_NANOSECONDS);
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 3; j++)
			names[j] = tk_profile_intern(&p, paths[i][j], strlen(paths[i][j]));
		names[3] = tk_profile_intern(&p, is_alloc ? "churn" : "spin", is_alloc ? 5 : 4);
		tk_profile_add_stack(&p, names, 4, (uint64_t)((is_alloc ? alloc[i] : cpu[i]) *
							 (1 + e) * (i ? 1 : rad)));
	}
	tk_profile_finish(&p);
	if (tk_profstore_put(s, id, kind, NULL, &p, &err))
		diag(err.msg);
	tk_profile_release(&p);
}

/* A number in [-1, 1) from a fixed sequence. */
static double jitter(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (double)((*seed >> 8) & 0xffff) / 32768.0 - 1;
}

/* A cpu profile of 20 leaves under main;physics;radiation, each of
 * weight 1e7 x (1 + up) with 4% of noise of its own, and one of 2e8
 * under main;physics;microphysics. */
static void put_spread(struct tk_store *s, const char *id, double up, unsigned *seed)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_profile p;
	uint32_t names[4];
	char leaf[16];
	int i;

	tk_profile_init(&p, TK_UNIT_NANOSECONDS);
	names[0] = tk_profile_intern(&p, "main", 4);
	names[1] = tk_profile_intern(&p, "physics", 7);
	names[2] = tk_profile_intern(&p, "radiation", 9);
	for (i = 0; i < 20; i++) {
		snprintf(leaf, sizeof(leaf), "band%02d", i);
		names[3] = tk_profile_intern(&p, leaf, strlen(leaf));
		tk_profile_add_stack(&p, names, 4,
				     (uint64_t)(1e7 * (1 + up) * (1 + 0.04 * jitter(seed))));
	}
	names[2] = tk_profile_intern(&p, "microphysics", 12);
	tk_profile_add_stack(&p, names, 3, (uint64_t)(2e8 * (1 + 0.002 * jitter(seed))));
	tk_profile_finish(&p);
	if (tk_profstore_put(s, id, "cpu", NULL, &p, &err))
		diag(err.msg);
	tk_profile_release(&p);
}

/* k's listed frame of path and weight (cumulative 1: its total), or NULL. */
static const struct tk_check_frame *frame(const struct tk_check_kind *k, const char *path,
					  int cumulative)
{
	size_t i;

	for (i = 0; i < k->nr_frames; i++)
		if (!strcmp(k->frames[i].path, path) && k->frames[i].cumulative == cumulative)
			return &k->frames[i];
	return NULL;
}

static int check(struct tk_store *s, struct tk_check_opts *o, const struct tk_config *cfg,
		 struct tk_check_result *r)
{
	struct tk_err err = TK_ERR_INIT;
	int ret = tk_check_key(s, o, NULL, cfg, r, &err);

	if (ret)
		diag(err.msg);
	return ret;
}

static const struct tk_check_metric *metric(const struct tk_check_result *r, enum tk_metric m)
{
	size_t i;

	for (i = 0; i < r->nr_metrics; i++)
		if (r->metrics[i].metric == m)
			return &r->metrics[i];
	return NULL;
}

static const struct tk_check_kind *kind(const struct tk_check_result *r, const char *k)
{
	size_t i;

	for (i = 0; i < r->nr_kinds; i++)
		if (!strcmp(r->kinds[i].kind, k))
			return &r->kinds[i];
	return NULL;
}

/* The check's output in fmt, malloc'd. */
static char *output(const struct tk_check_result *r, enum tk_checkfmt fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	tk_checkfmt_write(f, fmt, r, 1, 0, NULL);
	fclose(f);
	return text;
}

static void config(struct tk_config *c, const char *yml)
{
	struct tk_err err = TK_ERR_INIT;

	tk_config_release(c);
	tk_config_init(c);
	if (tk_config_parse(yml, strlen(yml), "t.yml", c, &err))
		diag(err.msg);
}

/* `metrics:` and `frames:` in .tracker.yml. */
static void config_sets(void)
{
	static const char good[] =
		"check:\n"
		"  metrics: walltime, alloc\n"
		"  frames: fail\n"
		"  keys:\n"
		"    amip:\n"
		"      metrics: [maxrss, heap_peak]\n"
		"      frames: off\n";
	static const char bad[] =
		"check:\n"
		"  metrics: [walltime, wall]\n"
		"  frames: always\n"
		"  keys:\n"
		"    amip:\n"
		"      metrics: { walltime: 1 }\n"
		"      framez: fail\n";
	struct tk_config c;
	const struct tk_check_keyset *all, *amip;

	tk_config_init(&c);
	config(&c, good);
	is_int(c.nr_warnings, 0, "metrics: and frames: parse");
	all = tk_config_check_set(&c, NULL);
	amip = tk_config_check_set(&c, "amip");
	ok(all && all->metrics == (1u << TK_METRIC_WALLTIME | 1u << TK_METRIC_ALLOC) &&
	   all->frames == TK_CHECK_FRAMES_FAIL, "every key's: a comma list, fail");
	ok(amip && amip->metrics == (1u << TK_METRIC_MAXRSS | 1u << TK_METRIC_HEAP_PEAK) &&
	   amip->frames == TK_CHECK_FRAMES_OFF, "amip's: a list, off");
	ok(!tk_config_check_set(&c, "other"), "no set for another key");

	config(&c, bad);
	is_int(c.nr_warnings, 4, "four mistakes, four warnings");
	if (c.nr_warnings == 4) {
		is_str(c.warnings[0], "t.yml:2:12: unknown metric 'wall' (expected "
		       TK_METRIC_NAMES "); ignored", "an unknown metric in the list");
		is_str(c.warnings[1], "t.yml:3:11: 'frames' is fail, report or off, not always; "
		       "ignored", "an unknown frames policy");
		is_str(c.warnings[2], "t.yml:6:16: 'metrics' is a list of metric names, not a "
		       "mapping; ignored", "metrics of the wrong type");
		ok(strstr(c.warnings[3], "'framez'") && strstr(c.warnings[3], "'frames'?"),
		   "a misspelled frames: the nearest field (%s)", c.warnings[3]);
	} else {
		skip(4, "not four warnings");
	}
	ok(!tk_config_check_set(&c, NULL) || !tk_config_check_set(&c, NULL)->metrics,
	   "a list with an unknown name sets nothing");
	tk_config_release(&c);
}

/* tk_changepoint_newest_level and tk_check_recent on known series. */
static void newest_level(void)
{
	double x[30], y[30];
	size_t i;

	for (i = 0; i < 30; i++)
		x[i] = 100 * (1 + noise[i % 10] / 2);
	is_int(tk_changepoint_newest_level(x, 30, 3, 4, 0.02), 0, "a quiet key: no new level");
	for (i = 26; i < 30; i++)
		x[i] *= 1.2;
	is_int(tk_changepoint_newest_level(x, 30, 3, 4, 0.02), 4,
	       "the last 4 runs 20%% slower: a level of 4");
	for (i = 0; i < 30; i++)
		y[i] = x[29 - i];
	is_int(tk_check_recent(y, 30), 4, "the check's baseline starts there");
	x[27] /= 1.2;
	is_int(tk_changepoint_newest_level(x, 30, 3, 4, 0.02), 0,
	       "one of them back at the old level: none");
	for (i = 0; i < 30; i++)
		x[i] = 100 * (1 + noise[i % 10] / 2) * (i % 2 ? 1.3 : 1);
	x[27] = x[29] = 130;
	x[28] = 131;
	is_int(tk_changepoint_newest_level(x, 30, 3, 4, 0.02), 0,
	       "a key whose runs are often 1.3x slower: three slow ones are no level");
	for (i = 0; i < 6; i++)
		y[i] = 100 + (double)i;
	is_int(tk_check_recent(y, 6), 6, "a history of 6: kept whole");
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_check_opts o;
	struct tk_check_result r;
	struct tk_config cfg;
	struct tk_buf path = TK_BUF_INIT;
	struct tk_store *s;
	const struct tk_check_metric *m;
	const struct tk_check_kind *k;
	char id[TK_RUN_ID_LEN + 1], *text;
	int b;

	config_sets();
	newest_level();

	if (!mkdtemp(dir))
		return 1;
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		diag(err.msg);
		return 1;
	}
	tk_config_init(&cfg);

	/* prof: 10 builds of main, then feature: radiation allocates 2x */
	for (b = 1; b <= 10; b++) {
		put(s, "prof", "main", b, 100 * (1 + noise[b - 1]), b, TK_RUN_OK, 0, id);
		put_profile(s, id, "alloc", noise[b - 1], 1);
		put_profile(s, id, "cpu", -noise[b - 1], 1);
	}
	put(s, "prof", "feature", 11, 100, 11, TK_RUN_OK, 0, id);
	put_profile(s, id, "alloc", 0, 2);
	put_profile(s, id, "cpu", 0, 1);

	tk_check_opts_init(&o);
	o.key = "prof";
	o.branch = "feature";
	o.baseline_branch = "main";
	ok(!check(s, &o, &cfg, &r), "a check with default options");
	ok(metric(&r, TK_METRIC_WALLTIME) && metric(&r, TK_METRIC_MAXRSS) &&
	   metric(&r, TK_METRIC_CPU), "walltime, maxrss and cpu judged");
	m = metric(&r, TK_METRIC_ALLOC);
	ok(m && m->result.verdict == TK_VERDICT_REGRESSION,
	   "alloc, the alloc profile's total, judged by default: a regression");
	ok(m && m->unit == TK_METRIC_BYTES && m->result.delta_pct > 40 &&
	   m->result.delta_pct < 44, "in bytes, +42%% (%.1f)", m ? m->result.delta_pct : 0);
	m = metric(&r, TK_METRIC_CPU_PROFILE);
	ok(m && m->result.verdict == TK_VERDICT_NO_CHANGE && m->unit == TK_METRIC_SECONDS,
	   "cpu_profile, in seconds: no change");
	ok(!metric(&r, TK_METRIC_HEAP_PEAK) && !metric(&r, TK_METRIC_ALLOC_COUNT),
	   "no heap_peak nor alloc_count: the run has no such profiles");
	is_int(tk_check_worst(&r), TK_VERDICT_REGRESSION, "worst: regression");
	is_int(r.nr_kinds, 2, "two diffs: cpu and alloc");
	k = kind(&r, "alloc");
	ok(k && k->nr_base == 5, "alloc against 5 baseline runs");
	ok(k && k->nr_frames == 1 && !strcmp(k->frames[0].path, "churn <- radiation <- ...") &&
	   k->frames[0].up && !k->frames[0].cumulative,
	   "one function moved: churn under radiation, its self weight, up (%s)",
	   k && k->nr_frames ? k->frames[0].path : "none");
	ok(k && k->nr_frames && k->frames[0].now > 1.9 * k->frames[0].base &&
	   k->frames[0].now < 2.1 * k->frames[0].base, "twice its baseline");
	ok(k && k->headline && strstr(k->headline, "allocations 4.75 MiB -> 6.75 MiB (+4"),
	   "the diff's totals line (%s)", k && k->headline ? k->headline : "none");
	ok(k && tk_check_kind_changed(&r, k), "the alloc profile changed");
	k = kind(&r, "cpu");
	ok(k && !k->nr_frames && !tk_check_kind_changed(&r, k), "the CPU profile did not");

	text = output(&r, TK_CHECKFMT_TEXT);
	ok(strstr(text, "\nprofiles against the baseline's:\n  prof alloc profile regression: "
		  "allocations 4.75 MiB -> 6.75 MiB (+42.") != NULL, "text: the alloc profile's line");
	ok(strstr(text, "\n      churn <- radiation <- ... +100.") != NULL,
	   "text: the function, its change and how much");
	ok(strstr(text, "  prof cpu: no change, no function moved beyond the noise\n") != NULL,
	   "text: the kinds that did not change, in one line");
	free(text);
	text = output(&r, TK_CHECKFMT_MARKDOWN);
	ok(strstr(text, "- prof alloc profile **regression**: allocations") &&
	   strstr(text, "  - churn &lt;\\- radiation &lt;\\- \\.\\.\\. +100."),
	   "markdown: the same, escaped");
	free(text);
	text = output(&r, TK_CHECKFMT_JSON);
	ok(strstr(text, "\"frames\": \"report\"") && strstr(text, "\"kind\": \"alloc\"") &&
	   strstr(text, "\"path\": \"churn <- radiation <- ...\"") &&
	   strstr(text, "\"weight\": \"self\""), "json: the profiles and their functions");
	free(text);
	tk_check_result_release(&r);

	/* --metric names what is judged; the diffs are made all the same */
	{
		static const enum tk_metric wall[] = { TK_METRIC_WALLTIME };

		o.metrics = wall;
		o.nr_metrics = 1;
		ok(!check(s, &o, &cfg, &r) && r.nr_metrics == 1, "--metric walltime: one metric");
		is_int(tk_check_worst(&r), TK_VERDICT_NO_CHANGE,
		       "no change: the function that moved is said, not judged");
		ok(r.nr_kinds == 2 && kind(&r, "alloc") && kind(&r, "alloc")->frames_up,
		   "the diffs still name it");
		text = output(&r, TK_CHECKFMT_TEXT);
		ok(strstr(text, "  prof cpu: not judged, no function moved beyond the noise\n") != NULL,
		   "a kind whose total is not judged says so, not 'no change'");
		free(text);
		tk_check_result_release(&r);
		o.metrics = NULL;
		o.nr_metrics = 0;
	}

	/* the config: metrics: and frames: */
	config(&cfg, "check:\n  keys:\n    prof:\n      metrics: walltime\n      frames: fail\n");
	ok(!check(s, &o, &cfg, &r) && r.nr_metrics == 1, "metrics: walltime");
	is_int(r.frames, TK_CHECK_FRAMES_FAIL, "frames: fail");
	is_int(tk_check_worst(&r), TK_VERDICT_REGRESSION, "a function that grew is a regression");
	tk_check_result_release(&r);
	config(&cfg, "check:\n  metrics: [walltime]\n  alloc: { method: percent, threshold: 50 }\n");
	ok(!check(s, &o, &cfg, &r) && r.nr_metrics == 2 && metric(&r, TK_METRIC_ALLOC),
	   "a rule names alloc: it is judged beside metrics:");
	is_int(metric(&r, TK_METRIC_ALLOC)->result.verdict, TK_VERDICT_NO_CHANGE,
	       "by the rule: +42%% within 50%%");
	tk_check_result_release(&r);
	config(&cfg, "check:\n  frames: off\n");
	ok(!check(s, &o, &cfg, &r) && !r.nr_kinds, "frames: off: no diffs");
	tk_check_result_release(&r);
	tk_config_release(&cfg);
	tk_config_init(&cfg);

	/* shift: 20 builds at 100 s, 4 at 120 s, then the feature at 120 s */
	for (b = 1; b <= 24; b++)
		put(s, "shift", "main", b, (b > 20 ? 120 : 100) * (1 + noise[b % 10] / 2), 100 + b,
		    TK_RUN_OK, 0, NULL);
	put(s, "shift", "feature", 25, 120, 125, TK_RUN_OK, 0, NULL);
	o.key = "shift";
	ok(!check(s, &o, &cfg, &r), "a check after a level shift");
	m = metric(&r, TK_METRIC_WALLTIME);
	ok(m && m->result.verdict == TK_VERDICT_NO_CHANGE, "the same level: no change");
	ok(m && m->since && m->since->build && !strcmp(m->since->build, "21") && m->result.n == 4,
	   "judged on the 4 runs since build 21");
	text = output(&r, TK_CHECKFMT_TEXT);
	ok(strstr(text, "baseline: 4 runs of main since #21") != NULL, "the note says so");
	free(text);
	tk_check_result_release(&r);

	/* spread: every leaf under radiation 6% up, each within its noise;
	 * radiation's total moved, and physics's only through it */
	{
		unsigned seed = 7;

		for (b = 1; b <= 8; b++) {
			put(s, "spread", "main", b, 100, 200 + b, TK_RUN_OK, 0, id);
			put_spread(s, id, 0, &seed);
		}
		put(s, "spread", "feature", 9, 100, 209, TK_RUN_OK, 0, id);
		put_spread(s, id, 0.06, &seed);
		o.key = "spread";
		o.branch = "feature";
		ok(!check(s, &o, &cfg, &r), "a check of many small changes");
		k = kind(&r, "cpu");
		ok(k && frame(k, "radiation <- physics <- ...", 1),
		   "radiation's total, which its leaves listed do not explain");
		ok(k && !frame(k, "physics <- main", 1),
		   "not physics's, which radiation's explains");
		tk_check_result_release(&r);
		o.key = "shift";
	}

	/* corrupt: the baseline runs' cpu profiles cannot be decoded */
	{
		struct tk_profile_blob blob;
		char bad_ids[3][TK_RUN_ID_LEN + 1];

		for (b = 1; b <= 8; b++) {
			put(s, "corrupt", "main", b, 100 * (1 + noise[b % 10]), 300 + b, TK_RUN_OK, 0,
			    bad_ids[b % 3]);
			put_profile(s, bad_ids[b % 3], "alloc", noise[b % 10], 1);
			memset(&blob, 0, sizeof(blob));
			blob.run_id = bad_ids[b % 3];
			blob.kind = "cpu";
			blob.unit = "nanoseconds";
			blob.nodes = 3;
			blob.total = 1e9;
			blob.data = "not a profile";
			blob.len = 13;
			if (tk_store_put_profile(s, &blob, &err))
				diag(err.msg);
		}
		put(s, "corrupt", "feature", 9, 100, 309, TK_RUN_OK, 0, id);
		put_profile(s, id, "alloc", 0, 2);
		put_profile(s, id, "cpu", 0, 1);
		o.key = "corrupt";
		o.branch = "feature";
		ok(!check(s, &o, &cfg, &r), "a check with unreadable baseline profiles goes on");
		ok(metric(&r, TK_METRIC_WALLTIME) &&
		   metric(&r, TK_METRIC_WALLTIME)->result.verdict == TK_VERDICT_NO_CHANGE,
		   "its verdicts are made");
		ok(r.frames_error && strstr(r.frames_error, "no cpu diff: "),
		   "the kind it could not diff is named (%s)",
		   r.frames_error ? r.frames_error : "none");
		ok(kind(&r, "alloc") && !kind(&r, "cpu"), "the other kinds are diffed");
		text = output(&r, TK_CHECKFMT_TEXT);
		ok(strstr(text, "  corrupt: no cpu diff: ") != NULL, "text says so");
		free(text);
		tk_check_result_release(&r);
		o.key = "shift";
	}

	/* a failed current run: its status */
	put(s, "shift", "failing", 26, 3, 126, TK_RUN_FAILED, 3, NULL);
	o.branch = "failing";
	ok(!check(s, &o, &cfg, &r), "a check of a failed run");
	text = output(&r, TK_CHECKFMT_TEXT);
	ok(strstr(text, "the current run failed (exit 3)") != NULL, "failed, with its exit code");
	free(text);
	tk_check_result_release(&r);

	tk_store_close(s);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "rm -rf '%s'", dir);
	if (system(path.buf))
		diag(dir);
	tk_buf_release(&path);
	tk_config_release(&cfg);
	return done_testing();
}
