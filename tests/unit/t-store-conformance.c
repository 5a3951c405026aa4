/*
 * The store interface's contract (core/store/store.h), for any backend:
 *
 *   tests/unit/t-store-conformance [URL]
 *
 * URL defaults to $TRACKER_TEST_STORE_URL, else a fresh SQLite file in a
 * temporary directory. Every run this suite stores has a key and ids that
 * carry a random tag, so a database that already holds runs (a shared
 * PostgreSQL, say) does not disturb it; it never deletes anything.
 *
 * Covered: opening migrates an empty database; put and read back every
 * field; put is idempotent by run id; a partial run replaces a started
 * one; a complete run replaces a partial
 * one and nothing else replaces anything; the filters (keys, branch,
 * since, run id, rank group, profile kind), limit and order; the summary
 * query agrees with the full query field by field on every filter; and
 * profiles are stored and loaded byte for byte.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store/store.h"
#include "plugins/store/backends.h"
#include "core/model/record.h"
#include "core/model/runfield.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static char tag[9];     /* random, in every id and key of this run */
static char keys[3][32]; /* "conf-<tag>-a" ... */

static void run_id(char out[TK_RUN_ID_LEN + 1], int n)
{
	snprintf(out, TK_RUN_ID_LEN + 1, "%s-0000-4000-8000-%012d", tag, n);
}

/* A run with every field set, distinct per n. */
static void make_run(struct tk_run *r, int n, const char *key, const char *branch,
		     int64_t started)
{
	tk_run_init(r);
	run_id(r->id, n);
	r->key = tk_xstrdup(key);
	r->ci.provider = tk_xstrdup("slurm");
	r->ci.organization = tk_xstrdup("org");
	r->ci.pipeline = tk_xstrdup("pipe, \"quoted\"");
	r->ci.branch = branch ? tk_xstrdup(branch) : NULL;
	r->ci.commit = tk_xstrdup("0123456789abcdef0123456789abcdef01234567");
	r->ci.build_number = tk_xstrdup("42");
	r->ci.build_url = tk_xstrdup("https://example.invalid/b/42");
	r->ci.step_key = tk_xstrdup(key);
	r->ci.base_branch = tk_xstrdup("main");
	r->ci.host = tk_xstrdup("node1");
	tk_kvlist_set(&r->ci.agent_tags, "queue", "gpu");
	r->ci.slurm_job_id = tk_xstrdup("777");
	r->ci.slurm_ntasks = 4;
	r->argv = tk_xcalloc(3, sizeof(char *));
	r->argv[0] = tk_xstrdup("julia");
	r->argv[1] = tk_xstrdup("caf\xc3\xa9.jl");
	r->started_at_us = started;
	r->walltime_s = 12.345678 + n;
	r->user_s = 10.5;
	r->sys_s = 0.25;
	r->maxrss_bytes = 1000000 + n;
	r->tree_rss_bytes = 3000000 + n;
	r->maxrss_source = tk_xstrdup("sampled");
	r->wrapper_rss_bytes = 2048 + n;
	r->tree_samples = 17 + n;
	r->exit_code = n % 3;
	r->status = n % 3 ? TK_RUN_FAILED : TK_RUN_OK;
	tk_kvlist_set(&r->tags, "resolution", "1deg");
	r->tracker_version = tk_xstrdup("0.1.0");
	r->machine_class = n % 2 ? tk_xstrdup("gpu") : NULL;
	if (n % 2) { /* SLURM accounting on every other run */
		struct tk_sacct_step st = { "777.0", "julia", TK_SACCT_STEP, "COMPLETED", "0:0",
					    61.5, 5000000 + n, 4000000, "cpu=00:01:02,mem=9",
					    "cpu=00:00:31,mem=5" };

		tk_sacct_add(&r->slurm, &st);
		st.job_id = "777.extern";
		st.kind = TK_SACCT_EXTERN;
		st.maxrss_bytes = 90000000;
		tk_sacct_add(&r->slurm, &st);
		tk_sacct_finish(&r->slurm);
	}
}

/* Every field of a summary as text, to compare two in one assertion. */
static void summary_text(struct tk_buf *b, const struct tk_run_summary *s)
{
#define S(f) (s->f ? s->f : "(null)")
	tk_buf_addf(b, "%s|%s|%s|%s|%s|%lld|%.17g|%.17g|%.17g|%lld|%lld|%lld|%s|%lld|%lld|"
		    "%d|%d|%s|%d|%s|%s|%s|%s|%s|%d|%s|%d|%s|%lld\n",
		    S(run_id), S(key), S(branch), S(commit), S(build_number),
		    (long long)s->started_at_us, s->walltime_s, s->user_s, s->sys_s,
		    (long long)s->maxrss_bytes, (long long)s->tree_rss_bytes,
		    (long long)s->cgroup_peak_bytes, S(maxrss_source),
		    (long long)s->wrapper_rss_bytes, (long long)s->tree_samples,
		    s->exit_code, s->term_signal, tk_run_status_name(s->status), s->partial,
		    S(provider), S(pipeline), S(build_url), S(host), S(tracker_version),
		    s->rank, S(rank_group), s->ntasks, S(machine_class),
		    (long long)s->slurm_maxrss_bytes);
#undef S
}

struct collect {
	struct tk_buf ids;   /* the runs' numbers, "3,1,2" */
	struct tk_buf sums;  /* summary_text of each */
	struct tk_buf json;  /* the last run, as JSON (full query only) */
	int seen;
};

static void add_id(struct collect *c, const char *id)
{
	if (c->ids.len)
		tk_buf_addch(&c->ids, ',');
	tk_buf_addf(&c->ids, "%ld", strtol(id + 24, NULL, 10)); /* the number after the tag */
}

static int full_fn(const struct tk_run *r, void *data)
{
	struct collect *c = data;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_summary s;

	add_id(c, r->id);
	tk_run_summarize(r, &s);
	summary_text(&c->sums, &s);
	tk_buf_reset(&c->json);
	tk_run_to_json(r, &c->json, &err);
	c->seen++;
	return 0;
}

static int summary_fn(const struct tk_run_summary *s, void *data)
{
	struct collect *c = data;

	add_id(c, s->run_id);
	summary_text(&c->sums, s);
	c->seen++;
	return 0;
}

static void collect_release(struct collect *c)
{
	tk_buf_release(&c->ids);
	tk_buf_release(&c->sums);
	tk_buf_release(&c->json);
}

/*
 * Runs q both ways; asserts both succeed and agree on every field, and
 * that the order is want ("3,1,2"). Leaves the full query's result in c.
 */
static void check_query(struct tk_store *s, const struct tk_run_query *q, const char *want,
			const char *what)
{
	struct collect full = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, 0 };
	struct collect sum = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, 0 };
	struct tk_err err = TK_ERR_INIT;
	int ret;

	ret = tk_store_query_runs(s, q, full_fn, &full, &err);
	if (ret)
		diag(err.msg);
	ret |= tk_store_query_summaries(s, q, summary_fn, &sum, &err);
	if (ret)
		diag(err.msg);
	is_str(full.ids.buf, want, "%s", what);
	ok(!ret && !strcmp(full.sums.buf, sum.sums.buf),
	   "%s: the summary query gives the full query's fields", what);
	if (strcmp(full.sums.buf, sum.sums.buf))
		printf("#   full:\n%s#   summary:\n%s", full.sums.buf, sum.sums.buf);
	collect_release(&full);
	collect_release(&sum);
}

static void put(struct tk_store *s, int n, const char *key, const char *branch, int64_t t)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;
	int inserted = 0;

	make_run(&r, n, key, branch, t);
	if (tk_store_put_run(s, &r, &inserted, &err) || !inserted)
		ok(0, "put run %d: %s", n, err.msg);
	tk_run_release(&r);
}

static void test_empty(struct tk_store *s, int fresh)
{
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, 0 };
	const char *k[] = { keys[0], NULL };
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;

	memset(&q, 0, sizeof(q));
	q.keys = k;
	is_int(tk_store_query_runs(s, &q, full_fn, &c, &err), 0, "a key with no runs: no error");
	is_int(c.seen, 0, "and no run");
	is_int(tk_store_query_summaries(s, &q, summary_fn, &c, &err), 0,
	       "summaries of a key with no runs: no error");
	is_int(c.seen, 0, "and no summary");
	is_int(s->ops->migrate(s, &err), 0, "migrating a migrated store is a no-op");
	if (fresh) {
		is_int(tk_store_require_keys(s, k, &err), TK_EDATA,
		       "a key named in an empty store: bad data");
		ok(strstr(err.msg, "'; the database has no runs") != NULL, "saying so: %s",
		   err.msg);
	}
	collect_release(&c);
}

/* What a chart reads of a summary (tk_run_query.chart_only). */
static int chart_fn(const struct tk_run_summary *s, void *data)
{
	tk_buf_addf(data, "%s %s %s %s %s %s %s %lld %.6f %.6f %.6f %lld %lld %s %d %d %d\n",
		    s->run_id, s->key, s->branch ? s->branch : "-", s->commit ? s->commit : "-",
		    s->build_number ? s->build_number : "-", s->build_url ? s->build_url : "-",
		    s->pipeline ? s->pipeline : "-", (long long)s->started_at_us, s->walltime_s,
		    s->user_s, s->sys_s, (long long)s->maxrss_bytes, (long long)s->tree_rss_bytes,
		    tk_run_status_name(s->status), s->partial, s->exit_code, s->term_signal);
	return 0;
}

static void test_put_get(struct tk_store *s)
{
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, 0 };
	struct tk_buf want = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;
	struct tk_run r, bad;
	int inserted = -1;

	make_run(&r, 1, keys[2], "main", 1700000000123456LL);
	tk_run_to_json(&r, &want, &err);
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a run with every field");
	is_int(inserted, 1, "it is inserted");
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the same run again");
	is_int(inserted, 0, "idempotent by run id: nothing changes");
	memset(&q, 0, sizeof(q));
	q.run_id = r.id;
	is_int(tk_store_query_runs(s, &q, full_fn, &c, &err), 0, "query by run id");
	is_int(c.seen, 1, "finds exactly one run");
	is_str(c.json.buf, want.buf, "every field survives the round trip");
	check_query(s, &q, "1", "by run id");
	{
		struct tk_buf all = TK_BUF_INIT, chart = TK_BUF_INIT;

		tk_store_query_summaries(s, &q, chart_fn, &all, &err);
		q.chart_only = 1;
		is_int(tk_store_query_summaries(s, &q, chart_fn, &chart, &err), 0,
		       "a summary query for a chart");
		ok(all.len > 0 && !strcmp(all.buf, chart.buf), "it has every field a chart reads");
		q.chart_only = 0;
		tk_buf_release(&all);
		tk_buf_release(&chart);
	}

	tk_run_init(&bad);
	memcpy(bad.id, r.id, sizeof(bad.id));
	inserted = 1;
	is_int(tk_store_put_run(s, &bad, &inserted, &err), TK_EDATA,
	       "a run without a key is refused");
	ok(strstr(err.msg, "it has no key") != NULL, "says so: %s", err.msg);
	is_int(inserted, 0, "nothing inserted");
	tk_run_release(&bad);
	tk_run_init(&bad);
	memcpy(bad.id, "not-a-uuid", 11);
	bad.key = tk_xstrdup(keys[2]);
	inserted = 1;
	is_int(tk_store_put_run(s, &bad, &inserted, &err), TK_EDATA,
	       "a run without a valid id is refused");
	ok(strstr(err.msg, "'not-a-uuid' is not a run id") != NULL, "says so: %s", err.msg);
	is_int(inserted, 0, "nothing inserted");
	tk_run_release(&bad);
	tk_run_release(&r);
	tk_buf_release(&want);
	collect_release(&c);
}

static void test_partial(struct tk_store *s)
{
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;
	struct tk_run r;
	int inserted = -1;

	make_run(&r, 2, keys[2], "main", 1700000001000000LL);
	r.partial = 1;
	r.status = TK_RUN_STARTED;
	r.walltime_s = -1;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a started run");
	is_int(inserted, 1, "inserted");
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the started run again");
	is_int(inserted, 0, "a started run does not replace a started run");
	r.status = TK_RUN_CANCELLED;
	r.walltime_s = 1.0;
	r.tree_samples = 3;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a partial run");
	is_int(inserted, 1, "a partial run (cancelled) replaces the started one");
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the partial run again");
	is_int(inserted, 0, "a partial run does not replace a partial run");
	r.partial = 0;
	r.status = TK_RUN_OK;
	r.walltime_s = 2.5;
	r.tree_samples = 9;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the complete run");
	is_int(inserted, 1, "the complete run replaces the partial one");
	r.walltime_s = 99.0;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put another complete run, same id");
	is_int(inserted, 0, "a complete run is never replaced");
	r.partial = 1;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a partial run once more");
	is_int(inserted, 0, "a partial run never replaces a complete one");

	memset(&q, 0, sizeof(q));
	q.run_id = r.id;
	tk_store_query_runs(s, &q, full_fn, &c, &err);
	is_int(c.seen, 1, "one run for the id");
	ok(strstr(c.json.buf, "\"walltime_s\": 2.5") && strstr(c.json.buf, "\"partial\": false") &&
	   strstr(c.json.buf, "\"tree_samples\": 9"),
	   "the stored run is the first complete one, every field of it");
	check_query(s, &q, "2", "the replaced run's summary is the complete run's");
	tk_run_release(&r);
	collect_release(&c);
}

static void test_filters(struct tk_store *s)
{
	const char *a[] = { keys[0], NULL };
	const char *both[] = { keys[1], keys[0], NULL };
	struct tk_run_query q;
	int64_t day = 86400LL * 1000000;
	int64_t t0 = 1704067200LL * 1000000; /* 2024-01-01 */

	put(s, 101, keys[0], "staging", t0 + 1 * day);
	put(s, 102, keys[0], "staging", t0 + 3 * day);
	put(s, 103, keys[0], "feature", t0 + 2 * day);
	put(s, 104, keys[1], "staging", t0 + 4 * day);
	put(s, 105, keys[1], NULL, t0 + 4 * day); /* the same time as 104 */
	put(s, 106, keys[1], "x'; DROP TABLE runs; --", t0);

	memset(&q, 0, sizeof(q));
	q.keys = a;
	check_query(s, &q, "102,103,101", "one key, newest first");
	q.keys = both;
	check_query(s, &q, "104,105,102,103,101,106",
		    "any of two keys; equal times in run id order");
	q.branch = "staging";
	check_query(s, &q, "104,102,101", "keys and branch");
	q.since_us = t0 + 3 * day;
	check_query(s, &q, "104,102", "since is inclusive");
	q.limit = 1;
	check_query(s, &q, "104", "limit keeps the newest");
	memset(&q, 0, sizeof(q));
	q.keys = both;
	q.limit = 2;
	check_query(s, &q, "104,105", "limit counts runs in order");
	q.limit = 0;
	q.branch = "x'; DROP TABLE runs; --";
	check_query(s, &q, "106", "values with quotes are bound, not spliced");
	q.branch = "no such branch";
	check_query(s, &q, "", "no match is no run, not an error");
}

/* Runs named by the start of their id, as tracker prints them. */
static void test_id_prefix(struct tk_store *s)
{
	const char *both[] = { keys[1], keys[0], NULL };
	char id[TK_RUN_ID_LEN + 1], prefix[TK_RUN_ID_LEN + 1];
	struct tk_buf out = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;

	memset(&q, 0, sizeof(q));
	q.keys = both;
	q.run_id_prefix = tag;
	check_query(s, &q, "104,105,102,103,101,106", "an id prefix all of them share");
	run_id(id, 103);
	memcpy(prefix, id, 35); /* 35 characters: 101 to 106 */
	prefix[35] = '\0';
	q.run_id_prefix = prefix;
	q.keys = NULL;
	check_query(s, &q, "104,105,102,103,101,106", "a longer prefix");
	q.run_id_prefix = "x'; DROP TABLE runs; --";
	check_query(s, &q, "", "a prefix that is no id matches nothing, as a value");

	put(s, 424242, keys[2], "staging", 1704067200LL * 1000000);
	run_id(id, 424242);
	memcpy(prefix, id, 33); /* "...000000424": only 424242 */
	prefix[33] = '\0';
	is_int(tk_store_resolve_run_id(s, prefix, NULL, &out, &err), 0, "a unique prefix resolves");
	is_str(out.buf, id, "to the whole id");
	ok(!tk_store_resolve_run_id(s, id, NULL, &out, &err) && !strcmp(out.buf, id),
	   "a whole id stays");
	ok(!tk_store_resolve_run_id(s, "0123456789abc", NULL, &out, &err) &&
	   !strcmp(out.buf, "0123456789abc"), "no run starts with it: it stays, for the "
	   "caller's lookup to say so");
	ok(!tk_store_resolve_run_id(s, "no-such", NULL, &out, &err) && !strcmp(out.buf, "no-such"),
	   "not an id at all: it stays");
	is_int(tk_store_resolve_run_id(s, tag, NULL, &out, &err), TK_EUSAGE,
	       "a prefix of several runs is a usage error");
	ok(strstr(err.msg, "ambiguous") && strstr(err.msg, tag),
	   "saying so with two of them: %s", err.msg);
	/* 424243, of another key, shares the 33 characters */
	put(s, 424243, keys[1], "staging", 1704067200LL * 1000000);
	is_int(tk_store_resolve_run_id(s, prefix, NULL, &out, &err), TK_EUSAGE,
	       "two keys' runs share the prefix: ambiguous");
	{
		const char *only[] = { keys[2], NULL };

		is_int(tk_store_resolve_run_id(s, prefix, only, &out, &err), 0,
		       "among one key's runs: one run");
		is_str(out.buf, id, "that key's");
	}
	tk_buf_release(&out);
}

/* The lookups made of queries: is there a run; the key of a run. */
static void test_lookups(struct tk_store *s)
{
	const char *k[] = { keys[0], NULL };
	char id[TK_RUN_ID_LEN + 1];
	struct tk_buf key = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;

	memset(&q, 0, sizeof(q));
	q.keys = k;
	is_int(tk_store_any_run(s, &q, &err), 1, "any run: a key with runs");
	q.limit = 100;
	is_int(tk_store_any_run(s, &q, &err), 1, "whatever the limit");
	q.branch = "no such branch";
	is_int(tk_store_any_run(s, &q, &err), 0, "any run: none on that branch");
	run_id(id, 424242);
	is_int(tk_store_run_key(s, id, &key, &err), 0, "the key of a run");
	is_str(key.buf, keys[2], "is its key");
	tk_buf_reset(&key);
	run_id(id, 999999);
	ok(!tk_store_run_key(s, id, &key, &err) && !key.len, "no such run: no key, no error");
	tk_buf_release(&key);
}

/* A backend without a key index: what tk_store_each_key falls back on. */
static const struct tk_store_ops *real_ops;

static int no_keys_ctrl(struct tk_store *s, int op, void *arg, struct tk_err *err)
{
	if (op == TK_STORE_CTRL_KEYS)
		return tk_err_set(err, TK_EUSAGE, "no such operation");
	return real_ops->ctrl(s, op, arg, err);
}

static int list_key(const char *key, void *data)
{
	tk_buf_addf(data, "%s\n", key);
	return 0;
}

/* Every key both ways: by the key index (when the backend has one) and by
 * the pass over the runs; in byte order, each once. */
static void test_each_key(struct tk_store *s)
{
	struct tk_store_ops hidden = *s->ops;
	struct tk_buf a = TK_BUF_INIT, b = TK_BUF_INIT, want = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	const char *p, *prev = NULL;
	int sorted = 1;

	is_int(tk_store_each_key(s, 0, list_key, &a, &err), 0, "each key: no error");
	real_ops = s->ops;
	hidden.ctrl = no_keys_ctrl;
	s->ops = &hidden;
	is_int(tk_store_each_key(s, 0, list_key, &b, &err), 0,
	       "each key without a key index: no error");
	s->ops = real_ops;
	is_str(b.buf, a.buf, "the pass over the runs finds the keys the index does");
	tk_buf_addf(&want, "%s\n%s\n%s\n", keys[0], keys[1], keys[2]);
	ok(strstr(a.buf, want.buf) != NULL, "the suite's keys, once each, in order");
	for (p = a.buf; *p; p = strchr(p, '\n') + 1) {
		if (prev && strcmp(prev, p) >= 0)
			sorted = 0;
		prev = p;
	}
	ok(sorted, "every key once, in byte order");
	tk_buf_reset(&a);
	is_int(tk_store_each_key(s, 1704067200LL * 1000000 + 4 * 86400LL * 1000000, list_key,
				 &a, &err), 0, "each key since a time");
	ok(strstr(a.buf, keys[1]) && !strstr(a.buf, keys[0]),
	   "only the keys with a run since then");
	tk_buf_release(&a);
	tk_buf_release(&b);
	tk_buf_release(&want);
}

/* A key named that has no run anywhere: the nearest ones suggested. */
static void test_unknown_keys(struct tk_store *s)
{
	const char *known[] = { keys[0], keys[1], NULL };
	char typo[40], hostile[48], far[64];
	const char *one[] = { typo, NULL }, *mixed[] = { keys[0], typo, NULL };
	const char *esc[] = { hostile, NULL }, *unlike[] = { far, NULL };
	struct tk_store_ops hidden = *s->ops;
	struct tk_store_near near;
	struct tk_buf want = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;

	snprintf(typo, sizeof(typo), "conf-%s-x", tag);
	snprintf(hostile, sizeof(hostile), "conf-%s-\x1b[31m", tag);
	snprintf(far, sizeof(far), "zq%szq%szqzqzqzqzq", tag, tag);
	is_int(tk_store_key_exists(s, keys[0], &err), 1, "a key with runs exists");
	is_int(tk_store_key_exists(s, typo, &err), 0, "a key with none does not");
	is_int(tk_store_require_keys(s, known, &err), 0, "keys with runs: no error");
	is_int(tk_store_require_keys(s, mixed, &err), TK_EDATA,
	       "one key with no run at all: bad data");
	tk_buf_addf(&want, "no runs of key '%s'; the nearest keys are '%s', '%s', '%s'", typo,
		    keys[0], keys[1], keys[2]);
	is_str(err.msg, want.buf, "naming it and the nearest keys, in byte order when as near");
	tk_buf_reset(&want);
	is_int(tk_store_require_keys(s, esc, &err), TK_EDATA, "a key with an escape sequence");
	ok(!strchr(err.msg, '\x1b') && strstr(err.msg, "\\x1b[31m'; the nearest"),
	   "is shown escaped: %s", err.msg);
	is_int(tk_store_require_keys(s, unlike, &err), TK_EDATA, "a key unlike every other");
	ok(strstr(err.msg, "; no key is near it (the database has ") != NULL,
	   "gets no suggestion, but the count of keys: %s", err.msg);
	is_int(tk_store_near_keys(s, keys[1], &near, &err), 0, "the keys near a stored key");
	ok(near.nr == 3 && !strcmp(near.keys[0], keys[1]) && near.total >= 3,
	   "itself first, then the others");
	tk_store_near_release(&near);
	real_ops = s->ops;
	hidden.ctrl = no_keys_ctrl;
	s->ops = &hidden;
	is_int(tk_store_require_keys(s, one, &err), TK_EDATA,
	       "without a key index: the same error");
	tk_buf_addf(&want, "no runs of key '%s'; the nearest keys are '%s', '%s', '%s'", typo,
		    keys[0], keys[1], keys[2]);
	is_str(err.msg, want.buf, "with the same keys");
	tk_buf_reset(&want);
	s->ops = real_ops;
	tk_buf_addf(&want, "conf-%s-*", tag);
	is_int(tk_store_require_key_match(s, want.buf, &err), 0, "a pattern that matches a key");
	tk_buf_reset(&want);
	tk_buf_addf(&want, "conf-%s-q*", tag);
	is_int(tk_store_require_key_match(s, want.buf, &err), TK_EDATA,
	       "a pattern that matches none");
	tk_buf_addf(&want, "'; the nearest keys are '%s', '%s', '%s'", keys[0], keys[1], keys[2]);
	ok(!strncmp(err.msg, "no runs of a key matching 'conf-", 32) &&
	   strstr(err.msg, want.buf), "names it and the keys near it: %s", err.msg);
	tk_buf_release(&want);
}

static void test_ranks(struct tk_store *s)
{
	const char *k[] = { keys[0], NULL };
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;
	char group[64];
	int i;

	snprintf(group, sizeof(group), "%s.0", tag);
	for (i = 0; i < 3; i++) {
		struct tk_run r;
		int inserted = 0;

		make_run(&r, 200 + i, keys[0], "ranks", 1600000000000000LL + i);
		r.rank = i;
		r.rank_group = tk_xstrdup(group);
		if (tk_store_put_run(s, &r, &inserted, &err) || !inserted)
			ok(0, "put rank %d: %s", i, err.msg);
		tk_run_release(&r);
	}
	memset(&q, 0, sizeof(q));
	q.keys = k;
	q.rank_group = group;
	check_query(s, &q, "202,201,200", "the ranks of one job, with rank and group");
}

static void test_profiles(struct tk_store *s)
{
	static const unsigned char blob[] = { 't', 'k', 0, 1, 2, 0xff, 0, 7 };
	const char *k[] = { keys[0], NULL };
	struct tk_profile_blob b;
	struct tk_buf got = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;
	char id[TK_RUN_ID_LEN + 1], missing[TK_RUN_ID_LEN + 1];

	run_id(id, 102);
	run_id(missing, 999);
	memset(&b, 0, sizeof(b));
	b.run_id = id;
	b.kind = "cpu";
	b.unit = "samples";
	b.source_format = "folded";
	b.nodes = 3;
	b.total = 42;
	b.data = blob;
	b.len = sizeof(blob);
	is_int(tk_store_put_profile(s, &b, &err), 0, "store a profile of a stored run");
	is_int(tk_store_get_profile(s, id, "cpu", &got, &err), 0, "load it");
	ok(got.len == sizeof(blob) && !memcmp(got.buf, blob, sizeof(blob)),
	   "byte for byte, NUL bytes too");
	b.len = 3;
	is_int(tk_store_put_profile(s, &b, &err), 0, "store another of the same kind");
	tk_buf_reset(&got);
	tk_store_get_profile(s, id, "cpu", &got, &err);
	is_int(got.len, 3, "it replaces the first");
	tk_buf_reset(&got);
	tk_err_clear(&err);
	is_int(tk_store_get_profile(s, id, "alloc", &got, &err), TK_EDATA,
	       "a kind not stored is TK_EDATA");
	ok(strstr(err.msg, "no alloc profile") != NULL, "saying so: %s", err.msg);
	b.run_id = missing;
	is_int(tk_store_put_profile(s, &b, &err), TK_EDATA,
	       "a profile of a run not stored is refused");
	memset(&q, 0, sizeof(q));
	q.keys = k;
	q.profile_kind = "cpu";
	check_query(s, &q, "102", "only runs with a profile of a kind");
	{
		struct tk_store_profile_total t;

		memset(&t, 0, sizeof(t));
		t.run_id = id;
		t.kind = "cpu";
		is_int(s->ops->ctrl(s, TK_STORE_CTRL_PROFILE_TOTAL, &t, &err), 0,
		       "a profile's stored total, without its data");
		ok(t.found && t.total == 42 && !strcmp(t.unit, "samples"), "its total and unit");
		t.kind = "alloc";
		t.found = 1;
		is_int(s->ops->ctrl(s, TK_STORE_CTRL_PROFILE_TOTAL, &t, &err), 0,
		       "a kind not stored");
		ok(!t.found, "is not found");
	}
	tk_buf_release(&got);
}

struct frame_seen {
	struct tk_buf b;
	size_t n;
};

static int frame_row_fn(const char *run_id, const char *kind, const struct tk_store_frame *f,
			void *data)
{
	struct frame_seen *fs = data;

	(void)run_id;
	tk_buf_addf(&fs->b, "%s:%s=%g/%g;", kind, f->name, f->self, f->cumulative);
	fs->n++;
	return 0;
}

static int frame_set_fn(const struct tk_store_frame_set *set, void *data)
{
	struct frame_seen *fs = data;

	tk_buf_addf(&fs->b, "%s:%s:%g:%d:%g;", set->kind, set->unit, set->total, set->has_frames,
		    set->has_frames ? set->floor : -1.0);
	fs->n++;
	return 0;
}

static int frame_name_fn(const char *name, void *data)
{
	struct frame_seen *fs = data;

	(void)name;
	fs->n++;
	return 0;
}

/* Frame totals (core/store/frametot.h): replaced with the profile's,
 * read by key and name, by run, listed with the profiles they belong to,
 * hostile names kept byte for byte. */
static void test_frames(struct tk_store *s)
{
	static const char hostile[] = "<b>'\"\x1b[31m;\\ \xe2\x80\xae x\n";
	const char *names[] = { "solve", hostile, NULL };
	struct tk_store_frame v[3] = {
		{ "main", 0, 40 }, { "solve", 30, 30 }, { hostile, 10, 10 },
	};
	struct tk_store_frames_put put;
	struct tk_store_frame_rows rq;
	struct tk_store_frame_sets sq;
	struct tk_store_frame_names nq;
	struct tk_err err = TK_ERR_INIT;
	struct frame_seen fs;
	char id[TK_RUN_ID_LEN + 1], other[TK_RUN_ID_LEN + 1];

	tk_buf_init(&fs.b, 0);
	run_id(id, 102);
	run_id(other, 101);
	memset(&put, 0, sizeof(put));
	put.run_id = id;
	put.kind = "cpu";
	put.floor = 0.5;
	put.v = v;
	put.nr = 3;
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_PUT_FRAMES, &put, &err), 0,
	       "store the frame totals of a stored profile");
	put.nr = 2;
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_PUT_FRAMES, &put, &err), 0, "and again, fewer");
	put.run_id = other;
	tk_err_clear(&err);
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_PUT_FRAMES, &put, &err), TK_EDATA,
	       "a run without such a profile has no frame totals");
	ok(strstr(err.msg, "no cpu profile") != NULL, "saying so: %s", err.msg);

	memset(&rq, 0, sizeof(rq));
	rq.key = keys[0];
	rq.fn = frame_row_fn;
	rq.data = &fs;
	fs.n = 0;
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_FRAME_ROWS, &rq, &err), 0, "read the key's rows");
	is_int(fs.n, 2, "the second put replaced the first");
	put.run_id = id;
	put.nr = 3;
	s->ops->ctrl(s, TK_STORE_CTRL_PUT_FRAMES, &put, &err);
	rq.names = names;
	tk_buf_reset(&fs.b);
	fs.n = 0;
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_FRAME_ROWS, &rq, &err), 0, "read two names' rows");
	is_int(fs.n, 2, "one row each");
	ok(strstr(fs.b.buf, "cpu:solve=30/30;") != NULL, "self and cumulative");
	{
		struct tk_buf want = TK_BUF_INIT;

		tk_buf_addf(&want, "cpu:%s=10/10;", hostile);
		ok(strstr(fs.b.buf, want.buf) != NULL, "a hostile name, byte for byte");
		tk_buf_release(&want);
	}
	rq.names = NULL;
	rq.run_id = other;
	fs.n = 0;
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_FRAME_ROWS, &rq, &err), 0, "rows of another run");
	is_int(fs.n, 0, "none");
	rq.key = keys[1];
	rq.run_id = NULL;
	s->ops->ctrl(s, TK_STORE_CTRL_FRAME_ROWS, &rq, &err);
	is_int(fs.n, 0, "nor of another key");

	memset(&nq, 0, sizeof(nq));
	nq.key = keys[0];
	nq.fn = frame_name_fn;
	nq.data = &fs;
	fs.n = 0;
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_FRAME_NAMES, &nq, &err), 0, "the key's names");
	is_int(fs.n, 3, "each once");

	memset(&sq, 0, sizeof(sq));
	sq.key = keys[0];
	sq.fn = frame_set_fn;
	sq.data = &fs;
	tk_buf_reset(&fs.b);
	fs.n = 0;
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_FRAME_SETS, &sq, &err), 0, "the key's profiles");
	is_str(fs.b.buf, "cpu:samples:42:1:0.5;", "with total, unit and floor");
	sq.missing_only = 1;
	tk_buf_reset(&fs.b);
	fs.n = 0;
	s->ops->ctrl(s, TK_STORE_CTRL_FRAME_SETS, &sq, &err);
	is_int(fs.n, 0, "none misses its frame totals");
	tk_buf_release(&fs.b);
}

static char tmpdir[] = "/tmp/t-store-conformance.XXXXXX";

/*
 * A run's memory timeline: kept in the store's own table, not in the
 * record; a run stored again keeps the first timeline; a partial run's
 * timeline is replaced with the complete run; runs without one have none.
 */
static void test_timeline(struct tk_store *s)
{
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_timeline got;
	struct tk_run_query q;
	struct tk_run r;
	int inserted, found = -1, i;

	tk_timeline_init(&got);
	make_run(&r, 300, keys[1], "memory", 1650000000000000LL);
	r.partial = 1;
	r.status = TK_RUN_CANCELLED;
	r.timeline.interval_ms = 10;
	tk_timeline_add(&r.timeline, 8, 1 << 20, -1);
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a partial run with a timeline");
	is_int(tk_store_get_timeline(s, r.id, &got, &found, &err), 0, "read its timeline");
	ok(found && got.nr == 1 && got.p[0].rss_bytes == 1 << 20, "the partial run's point");
	r.partial = 0;
	r.status = TK_RUN_OK;
	r.timeline.nr = 0;
	r.timeline.has_cgroup = 1;
	r.timeline.interval_ms = 20;
	for (i = 0; i < 3000; i++)
		tk_timeline_add(&r.timeline, 10 * (i + 1), (int64_t)(i % 500) << 20,
				(int64_t)(i % 700) << 20);
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "the complete run replaces it");
	is_int(inserted, 1, "inserted");
	is_int(tk_store_get_timeline(s, r.id, &got, &found, &err), 0, "read the timeline again");
	ok(found && got.nr == 3000 && got.has_cgroup && got.interval_ms == 20,
	   "the complete run's 3000 points, with the cgroup's, every 20 ms");
	ok(got.nr == 3000 && got.p[2999].t_ms == 30000 && got.p[499].rss_bytes == 499LL << 20 &&
	   got.p[699].cgroup_bytes == 699LL << 20, "point by point");
	r.timeline.nr = 1;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the complete run once more");
	is_int(tk_store_get_timeline(s, r.id, &got, &found, &err), 0, "and read it");
	is_int(got.nr, 3000, "a stored complete run keeps its timeline");
	memset(&q, 0, sizeof(q));
	q.run_id = r.id;
	tk_store_query_runs(s, &q, full_fn, &c, &err);
	ok(c.seen == 1 && !strstr(c.json.buf, "\"timeline\": {"),
	   "query_runs leaves the timeline out of the run");
	is_int(tk_store_get_timeline(s, "00000000-0000-4000-8000-000000000000", &got, &found,
				     &err), 0, "a run that is not stored");
	ok(!found && !got.nr, "has no timeline");
	tk_run_release(&r);
	tk_timeline_release(&got);
	collect_release(&c);
}

int main(int argc, char **argv)
{
	struct tk_buf url = TK_BUF_INIT, cmd = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	char id[TK_RUN_ID_LEN + 1];
	int fresh = 0, i;

	if (argc > 1)
		tk_buf_adds(&url, argv[1]);
	else if (getenv("TRACKER_TEST_STORE_URL") && *getenv("TRACKER_TEST_STORE_URL"))
		tk_buf_adds(&url, getenv("TRACKER_TEST_STORE_URL"));
	if (!url.len) {
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			return 1;
		}
		tk_buf_addf(&url, "sqlite:%s/history.db", tmpdir);
		fresh = 1;
	}
	if (tk_uuid_v4(id, &err)) {
		diag(err.msg);
		return 1;
	}
	memcpy(tag, id, 8);
	for (i = 0; i < 3; i++)
		snprintf(keys[i], sizeof(keys[i]), "conf-%s-%c", tag, 'a' + i);
	printf("# store: %s\n", url.buf);

	is_int(tk_store_open(url.buf, &s, &err), 0, "open %s, migrating it", fresh ?
	       "a fresh database" : "the database");
	if (!s) {
		diag(err.msg);
		return done_testing();
	}
	test_empty(s, fresh);
	test_put_get(s);
	test_partial(s);
	test_filters(s);
	test_id_prefix(s);
	test_lookups(s);
	test_each_key(s);
	test_unknown_keys(s);
	test_ranks(s);
	test_profiles(s);
	test_frames(s);
	test_timeline(s);
	tk_store_close(s);
	is_int(tk_store_open_flags(url.buf, TK_STORE_NO_CREATE, &s, &err), 0,
	       "reopen the existing store");
	if (s) {
		struct tk_run_query q;
		const char *k[] = { keys[0], NULL };

		memset(&q, 0, sizeof(q));
		q.keys = k;
		q.branch = "staging";
		check_query(s, &q, "102,101", "the runs are still there after reopening");
		tk_store_close(s);
	}

	if (fresh && !getenv("TEST_KEEP")) {
		tk_buf_addf(&cmd, "rm -rf '%s'", tmpdir);
		if (system(cmd.buf))
			diag("cannot remove the temporary directory");
	}
	tk_buf_release(&cmd);
	tk_buf_release(&url);
	return done_testing();
}
