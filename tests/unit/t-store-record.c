/*
 * The store's compact record (tk_run_to_json_flags with
 * TK_RUN_JSON_COMPACT, written without jansson) against what jansson
 * makes of the same run: the pretty record, parsed and dumped compactly,
 * which is how tracker 0.1 wrote the `record` column. Byte for byte, on
 * hand-picked runs and on 2000 random ones with hostile strings (quotes,
 * backslashes, control characters, invalid and multi-byte UTF-8, keys
 * that collide once made valid) and awkward numbers (1e-7, 1e20, 2.0,
 * NaN, infinity, unknown).
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/run.h"
#include "core/model/record.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static uint64_t seed = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed % n);
}

/* NULL a fifth of the time, else up to 12 bytes from a hostile alphabet. */
static char *rnd_str(void)
{
	static const char *const pieces[] = {
		"a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\r", "\b", "\f",
		"\x01", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\xa5",
		"\xff", "\xc3", "\xe2\x82", "=", ",", "{", "}", "[", "]", ":",
	};
	struct tk_buf b = TK_BUF_INIT;
	unsigned i, n;

	if (!rnd(5))
		return NULL;
	n = rnd(13);
	for (i = 0; i < n; i++)
		tk_buf_adds(&b, pieces[rnd(sizeof(pieces) / sizeof(pieces[0]))]);
	return tk_buf_detach(&b, NULL);
}

static double rnd_real(void)
{
	static const double special[] = {
		-1, 0, 0.1, 2.0, 1e-7, 1e20, 123456789.125, 3700.25, 1e300, 5e-324,
		0.30000000000000004,
	};

	switch (rnd(6)) {
	case 0:
		return special[rnd(sizeof(special) / sizeof(special[0]))];
	case 1:
		return rnd(2) ? NAN : INFINITY;
	default:
		return (double)rnd(1000000) / (1 + rnd(1000));
	}
}

static int64_t rnd_int(void)
{
	switch (rnd(4)) {
	case 0:
		return -1;
	case 1:
		return (int64_t)rnd(100);
	default:
		return (int64_t)rnd(1u << 31) * (int64_t)rnd(1u << 31);
	}
}

static void rnd_kv(struct tk_kvlist *l)
{
	unsigned i, n = rnd(4);

	for (i = 0; i < n; i++) {
		char *k = rnd_str(), *v = rnd_str();

		/* invalid keys that collide once sanitized: "\xff" and "\xfe" */
		tk_kvlist_set(l, k ? k : (rnd(2) ? "\xff" : "\xfe"), v ? v : "");
		free(k);
		free(v);
	}
}

static void rnd_run(struct tk_run *r)
{
	unsigned i, n;

	tk_run_init(r);
	if (tk_uuid_v4(r->id, NULL))
		memcpy(r->id, "00000000-0000-4000-8000-000000000000", TK_RUN_ID_LEN + 1);
	r->key = rnd_str();
	r->ci.provider = rnd_str();
	r->ci.branch = rnd_str();
	r->ci.commit = rnd_str();
	r->ci.build_url = rnd_str();
	r->ci.step_label = rnd_str();
	r->ci.host = rnd_str();
	r->ci.slurm_nodelist = rnd_str();
	r->ci.slurm_ntasks = (int)rnd_int() % 1000;
	if (r->ci.slurm_ntasks < -1)
		r->ci.slurm_ntasks = -1;
	rnd_kv(&r->ci.agent_tags);
	rnd_kv(&r->tags);
	n = rnd(4);
	if (n) {
		r->argv = tk_xcalloc(n + 1, sizeof(char *));
		for (i = 0; i < n; i++) {
			r->argv[i] = rnd_str();
			if (!r->argv[i])
				r->argv[i] = tk_xstrdup("");
		}
	}
	r->started_at_us = rnd_int();
	r->walltime_s = rnd_real();
	r->user_s = rnd_real();
	r->sys_s = rnd_real();
	r->maxrss_bytes = rnd_int();
	r->tree_rss_bytes = rnd_int();
	r->cgroup_peak_bytes = rnd_int();
	r->wrapper_rss_bytes = rnd_int();
	r->tree_samples = (int64_t)rnd(100);
	r->maxrss_source = rnd_str();
	r->exit_code = rnd(3) ? (int)rnd(256) : -1;
	r->term_signal = (int)rnd(3) * 9;
	r->status = (enum tk_run_status)rnd(6);
	r->partial = (int)rnd(2);
	if (rnd(3) == 0) {
		r->rank = (int)rnd(64);
		r->rank_group = tk_xstrdup("77.0");
	}
	n = rnd(3);
	for (i = 0; i < n; i++)
		tk_run_add_profile(r, "cpu", "samples", rnd(2) ? "folded" : NULL, "p.tkpf");
	n = rnd(4);
	for (i = 0; i < n; i++) {
		struct tk_sacct_step st;

		st.job_id = rnd_str();
		if (!st.job_id || !*st.job_id) { /* a record's steps name their job */
			free(st.job_id);
			st.job_id = tk_xstrdup("1.0");
		}
		st.name = rnd_str();
		st.kind = (enum tk_sacct_kind)rnd(6);
		st.state = rnd_str();
		st.exit_code = rnd_str();
		st.elapsed_s = rnd_real();
		st.maxrss_bytes = rnd_int();
		st.averss_bytes = rnd_int();
		st.tres_in_tot = rnd_str();
		st.tres_in_max = rnd_str();
		tk_sacct_add(&r->slurm, &st);
		free(st.job_id);
		free(st.name);
		free(st.state);
		free(st.exit_code);
		free(st.tres_in_tot);
		free(st.tres_in_max);
	}
	tk_sacct_finish(&r->slurm);
	r->tracker_version = rnd_str();
}

/* What tracker 0.1 stored: the pretty record re-dumped compactly. */
static int jansson_compact(const struct tk_run *r, struct tk_buf *out)
{
	struct tk_buf pretty = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	json_t *doc;
	char *text = NULL;

	if (!tk_run_to_json(r, &pretty, &err)) {
		doc = json_loadb(pretty.buf, pretty.len, 0, NULL);
		text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
					JSON_REAL_PRECISION(17)) : NULL;
		json_decref(doc);
	}
	tk_buf_release(&pretty);
	if (!text)
		return -1;
	tk_buf_adds(out, text);
	free(text);
	return 0;
}

static int same(const struct tk_run *r, struct tk_buf *want, struct tk_buf *got)
{
	struct tk_err err = TK_ERR_INIT;

	tk_buf_reset(want);
	tk_buf_reset(got);
	if (jansson_compact(r, want) ||
	    tk_run_to_json_flags(r, TK_RUN_JSON_COMPACT, got, &err))
		return 0;
	return want->len == got->len && !memcmp(want->buf, got->buf, got->len);
}

int main(void)
{
	struct tk_buf want = TK_BUF_INIT, got = TK_BUF_INIT;
	struct tk_run r, back;
	struct tk_err err = TK_ERR_INIT;
	int i, bad = 0, parsed = 0;

	tk_run_init(&r);
	memcpy(r.id, "3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e05", TK_RUN_ID_LEN + 1);
	ok(same(&r, &want, &got), "an empty run: the same bytes as jansson");
	is_str(got.buf, want.buf, "(the compact record)");
	r.key = tk_xstrdup("amip \"q\" \\ caf\xc3\xa9 \x01");
	r.walltime_s = 2.0;
	r.user_s = 1e20;
	r.sys_s = 1e-7;
	r.maxrss_bytes = 2254857830LL;
	tk_kvlist_set(&r.tags, "\xff", "first");
	tk_kvlist_set(&r.tags, "\xfe", "second");
	ok(same(&r, &want, &got), "escapes, reals 2.0, 1e20 and 1e-7, colliding keys");
	is_str(got.buf, want.buf, "(the compact record)");
	r.walltime_s = NAN;
	ok(same(&r, &want, &got), "a NaN walltime is left out, as jansson leaves it");
	ok(!strstr(got.buf, "walltime_s"), "(no walltime_s member)");
	tk_run_release(&r);

	for (i = 0; i < 2000; i++) {
		rnd_run(&r);
		if (!same(&r, &want, &got)) {
			if (!bad++)
				printf("#   jansson: %s\n#   direct:  %s\n", want.buf, got.buf);
		} else if (r.key && *r.key) {
			tk_run_init(&back);
			/* the codec: random figures are past a record's bounds */
			if (!tk_run_from_stored_json(got.buf, got.len, "random", &back, &err))
				parsed++;
			tk_run_release(&back);
		}
		tk_run_release(&r);
	}
	is_int(bad, 0, "2000 random runs: the same bytes as jansson");
	ok(parsed > 1000, "and the records read back (%d of those with a key)", parsed);
	tk_buf_release(&want);
	tk_buf_release(&got);
	return done_testing();
}
