/*
 * The SQLite store on a real file in a temporary directory: schema and
 * migrations, round trip of every field, idempotent puts, partial runs,
 * query filters and order, and concurrent writers.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/store/store.h"
#include "plugins/store/backends.h"
#include "core/model/record.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static char tmpdir[] = "/tmp/t-store-sqlite.XXXXXX";

static char *path_in_tmp(const char *name)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_addf(&b, "%s/%s", tmpdir, name);
	return tk_buf_detach(&b, NULL);
}

/* A run with every field set, distinct per n. */
static void make_run(struct tk_run *r, int n, const char *key, const char *branch,
		     int64_t started)
{
	char id[TK_RUN_ID_LEN + 1];

	tk_run_init(r);
	snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d", n);
	memcpy(r->id, id, sizeof(id));
	r->key = tk_xstrdup(key);
	r->ci.provider = tk_xstrdup("buildkite");
	r->ci.organization = tk_xstrdup("org");
	r->ci.pipeline = tk_xstrdup("pipe");
	r->ci.branch = branch ? tk_xstrdup(branch) : NULL;
	r->ci.commit = tk_xstrdup("0123456789abcdef0123456789abcdef01234567");
	r->ci.build_number = tk_xstrdup("42");
	r->ci.build_url = tk_xstrdup("https://example.invalid/b/42");
	r->ci.job_id = tk_xstrdup("job-1");
	r->ci.step_key = tk_xstrdup(key);
	r->ci.step_label = tk_xstrdup("label, with \"quotes\"");
	r->ci.base_branch = tk_xstrdup("main");
	r->ci.base_commit = tk_xstrdup("base");
	r->ci.head_commit = tk_xstrdup("head");
	r->ci.default_branch = tk_xstrdup("main");
	r->ci.host = tk_xstrdup("node1");
	tk_kvlist_set(&r->ci.agent_tags, "queue", "gpu");
	r->ci.slurm_job_id = tk_xstrdup("777");
	r->ci.slurm_step_id = tk_xstrdup("0");
	r->ci.slurm_procid = tk_xstrdup("3");
	r->ci.slurm_ntasks = 8;
	r->ci.slurm_cpus_per_task = 2;
	r->ci.slurm_nodelist = tk_xstrdup("node[1-2]");
	r->ci.slurm_partition = tk_xstrdup("batch");
	r->argv = tk_xcalloc(3, sizeof(char *));
	r->argv[0] = tk_xstrdup("julia");
	r->argv[1] = tk_xstrdup("--project");
	r->started_at_us = started;
	r->walltime_s = 12.345678 + n;
	r->user_s = 10.5;
	r->sys_s = 0.25;
	r->maxrss_bytes = 1000000 + n;
	r->tree_rss_bytes = 3000000 + n;
	r->cgroup_peak_bytes = 4000000;
	r->maxrss_source = tk_xstrdup("wait4");
	r->tree_samples = 17;
	r->exit_code = 0;
	r->term_signal = 0;
	r->status = TK_RUN_OK;
	tk_kvlist_set(&r->tags, "resolution", "1deg");
	r->tracker_version = tk_xstrdup("0.1.0");
}

struct collect {
	struct tk_buf ids;  /* "n,n,n" — last 3 digits of each id */
	struct tk_buf json; /* the last run, as JSON */
	int stop_after;
	int seen;
};

static int collect_fn(const struct tk_run *r, void *data)
{
	struct collect *c = data;
	struct tk_err err = TK_ERR_INIT;

	if (c->ids.len)
		tk_buf_addch(&c->ids, ',');
	tk_buf_adds(&c->ids, r->id + TK_RUN_ID_LEN - 3);
	tk_buf_reset(&c->json);
	tk_run_to_json(r, &c->json, &err);
	c->seen++;
	if (c->stop_after && c->seen >= c->stop_after)
		return 7;
	return 0;
}

static int query(struct tk_store *s, const struct tk_run_query *q, struct collect *c)
{
	struct tk_err err = TK_ERR_INIT;

	tk_buf_reset(&c->ids);
	tk_buf_reset(&c->json);
	c->seen = 0;
	return tk_store_query_runs(s, q, collect_fn, c, &err);
}

static void test_open_and_migrate(const char *url)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	const char *mode = NULL;
	int v = 0;

	is_int(tk_store_open(url, &s, &err), 0, "open creates the database and its directories");
	if (!s) {
		diag(err.msg);
		exit(1);
	}
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_SCHEMA_VERSION, &v, &err), 0, "schema version ctrl");
	is_int(v, 9, "schema version is 9");
	is_int(s->ops->ctrl(s, TK_STORE_CTRL_JOURNAL_MODE, &mode, &err), 0, "journal mode ctrl");
	is_str(mode, "wal", "local disk uses WAL");
	is_str(s->warning, "", "no warning on a local disk");
	is_int(s->ops->migrate(s, &err), 0, "migrating again is a no-op");
	tk_store_close(s);
	is_int(tk_store_open(url, &s, &err), 0, "reopening migrates idempotently");
	v = 0;
	s->ops->ctrl(s, TK_STORE_CTRL_SCHEMA_VERSION, &v, &err);
	is_int(v, 9, "still schema version 9");
	tk_store_close(s);
}

static void test_open_errors(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	char *missing = path_in_tmp("missing/history.db");
	char *file = path_in_tmp("afile");
	char *under_file = path_in_tmp("afile/history.db");
	struct stat st;
	FILE *f;

	is_int(tk_store_open_flags(missing, TK_STORE_NO_CREATE, &s, &err), TK_EUNAVAIL,
	       "NO_CREATE: a missing database is unavailable");
	ok(strstr(err.msg, "no database at") && strstr(err.msg, missing),
	   "the message names the missing database: %s", err.msg);
	ok(stat(missing, &st) != 0, "and the file was not created");

	f = fopen(file, "w");
	if (f)
		fclose(f);
	tk_err_clear(&err);
	is_int(tk_store_open(under_file, &s, &err), TK_EUNAVAIL,
	       "a database under a regular file cannot be opened");
	ok(strstr(err.msg, under_file) != NULL, "the message names the database: %s", err.msg);

	/* PostgreSQL URLs are another store's (plugins/store/postgres.c) */
	ok(tk_store_backend_for("postgresql://db.invalid/tracker") != &tk_store_sqlite,
	   "postgresql:// is not SQLite's");
	ok(tk_store_backend_for("postgres://x") != &tk_store_sqlite, "postgres:// neither");
	ok(!tk_store_sqlite.accepts("postgresql://db/tracker"), "SQLite does not accept it");
	is_int(tk_store_open("", &s, &err), TK_EUSAGE, "an empty url is a usage error");
	is_int(tk_store_open("mysql://x", &s, &err), TK_EUSAGE, "an unknown scheme is a usage error");
	ok(s == NULL, "failed opens leave *out NULL");
	free(missing);
	free(file);
	free(under_file);
}

static void test_roundtrip(struct tk_store *s)
{
	struct tk_err err = TK_ERR_INIT;
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, 0, 0 };
	struct tk_buf want = TK_BUF_INIT;
	struct tk_run_query q;
	struct tk_run r, bad;
	int inserted = -1;

	make_run(&r, 1, "roundtrip", "main", 1700000000123456LL);
	tk_run_to_json(&r, &want, &err);
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a run with every field");
	is_int(inserted, 1, "it is inserted");
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put it again");
	is_int(inserted, 0, "the second put changes nothing");

	memset(&q, 0, sizeof(q));
	q.run_id = r.id;
	is_int(query(s, &q, &c), 0, "query by run id");
	is_int(c.seen, 1, "finds exactly one run");
	is_str(c.json.buf, want.buf, "every field survives the round trip");

	tk_run_init(&bad);
	memcpy(bad.id, r.id, sizeof(bad.id));
	is_int(tk_store_put_run(s, &bad, &inserted, &err), TK_EDATA, "a run without a key is rejected");
	tk_run_release(&bad);
	tk_run_release(&r);
	tk_buf_release(&want);
	tk_buf_release(&c.ids);
	tk_buf_release(&c.json);
}

static void test_partial(struct tk_store *s)
{
	struct tk_err err = TK_ERR_INIT;
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, 0, 0 };
	struct tk_run_query q;
	struct tk_run r;
	int inserted = -1;

	make_run(&r, 2, "partial", "main", 1700000001000000LL);
	r.partial = 1;
	r.status = TK_RUN_CANCELLED;
	r.walltime_s = 1.0;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a partial run");
	is_int(inserted, 1, "inserted");
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the partial run again");
	is_int(inserted, 0, "a partial run does not replace a partial run");
	r.partial = 0;
	r.walltime_s = 2.5;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the complete run");
	is_int(inserted, 1, "the complete run replaces the partial one");
	r.walltime_s = 99.0;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put a different complete run, same id");
	is_int(inserted, 0, "a complete run is never replaced");
	r.partial = 1;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "put the partial run once more");
	is_int(inserted, 0, "a partial run never replaces a complete one");

	memset(&q, 0, sizeof(q));
	q.run_id = r.id;
	query(s, &q, &c);
	is_int(c.seen, 1, "still one row for the id");
	ok(strstr(c.json.buf, "\"walltime_s\": 2.5") && strstr(c.json.buf, "\"partial\": false"),
	   "the stored run is the first complete one");
	tk_run_release(&r);
	tk_buf_release(&c.ids);
	tk_buf_release(&c.json);
}

static void put(struct tk_store *s, int n, const char *key, const char *branch, int64_t t)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;
	int inserted;

	make_run(&r, n, key, branch, t);
	if (tk_store_put_run(s, &r, &inserted, &err))
		diag(err.msg);
	tk_run_release(&r);
}

static void test_filters(struct tk_store *s)
{
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, 0, 0 };
	const char *amip[] = { "amip", NULL };
	const char *both[] = { "ocean", "amip", NULL };
	const char *quote[] = { "it's", NULL };
	const char *none[] = { "nope", NULL };
	struct tk_run_query q;
	int64_t day = 86400LL * 1000000;
	int64_t t0 = 1704067200LL * 1000000; /* 2024-01-01 */

	put(s, 101, "amip", "staging", t0 + 1 * day);
	put(s, 102, "amip", "staging", t0 + 3 * day);
	put(s, 103, "amip", "feature", t0 + 2 * day);
	put(s, 104, "ocean", "staging", t0 + 4 * day);
	put(s, 105, "ocean", NULL, t0 + 4 * day); /* same time as 104 */
	put(s, 106, "it's", "x'; DROP TABLE runs; --", t0);

	memset(&q, 0, sizeof(q));
	q.keys = amip;
	query(s, &q, &c);
	is_str(c.ids.buf, "102,103,101", "one key, newest first");
	q.keys = both;
	query(s, &q, &c);
	is_str(c.ids.buf, "104,105,102,103,101", "any of two keys; equal times ordered by run id");
	q.branch = "staging";
	query(s, &q, &c);
	is_str(c.ids.buf, "104,102,101", "keys and branch");
	q.since_us = t0 + 3 * day;
	query(s, &q, &c);
	is_str(c.ids.buf, "104,102", "since is inclusive");
	q.limit = 1;
	query(s, &q, &c);
	is_str(c.ids.buf, "104", "limit keeps the newest");
	memset(&q, 0, sizeof(q));
	q.since_us = t0 + 2 * day;
	q.limit = 3;
	query(s, &q, &c);
	is_str(c.ids.buf, "104,105,102", "since and limit without keys");
	memset(&q, 0, sizeof(q));
	q.keys = quote;
	q.branch = "x'; DROP TABLE runs; --";
	query(s, &q, &c);
	is_str(c.ids.buf, "106", "values with quotes are bound, not spliced");
	q.keys = none;
	q.branch = NULL;
	is_int(query(s, &q, &c), 0, "no match is not an error");
	is_int(c.seen, 0, "and calls nothing");
	memset(&q, 0, sizeof(q));
	q.keys = both;
	c.stop_after = 2;
	is_int(query(s, &q, &c), 7, "a non-zero callback return stops the query and is returned");
	is_int(c.seen, 2, "after two runs");
	tk_buf_release(&c.ids);
	tk_buf_release(&c.json);
}

/* Many processes writing at once must all succeed. */
static void test_concurrent(const char *url)
{
	struct tk_err err = TK_ERR_INIT;
	struct collect c = { TK_BUF_INIT, TK_BUF_INIT, 0, 0 };
	const char *keys[] = { "conc", NULL };
	struct tk_run_query q;
	struct tk_store *s;
	int i, failed = 0;
	pid_t pids[16];

	for (i = 0; i < 16; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			int j, rc = 0;

			if (tk_store_open(url, &s, &err))
				_exit(1);
			for (j = 0; j < 5; j++) {
				struct tk_run r;
				int inserted = 0;

				make_run(&r, 1000 + i * 10 + j, "conc", "main", 1000 + i);
				if (tk_store_put_run(s, &r, &inserted, &err) || !inserted)
					rc = 1;
				tk_run_release(&r);
			}
			tk_store_close(s);
			_exit(rc);
		}
	}
	for (i = 0; i < 16; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			failed++;
	}
	is_int(failed, 0, "16 concurrent writers, 5 runs each, all succeed");
	if (tk_store_open(url, &s, &err)) {
		diag(err.msg);
		return;
	}
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	query(s, &q, &c);
	is_int(c.seen, 80, "and all 80 runs are stored");
	tk_store_close(s);
	tk_buf_release(&c.ids);
	tk_buf_release(&c.json);
}

static int keep_summary(const struct tk_run_summary *sum, void *data)
{
	struct tk_buf *b = data;

	tk_buf_addf(b, "%s %s %.6f %.2f %lld %lld %s %s %lld %s", sum->key,
		    sum->branch ? sum->branch : "-", sum->walltime_s, sum->user_s + sum->sys_s,
		    (long long)sum->maxrss_bytes, (long long)sum->tree_rss_bytes,
		    tk_run_status_name(sum->status), sum->tracker_version ? sum->tracker_version : "-",
		    (long long)sum->cgroup_peak_bytes, sum->maxrss_source ? sum->maxrss_source : "-");
	return 0;
}

/* chart_only: what a chart shows and a check judges (the RSS's source
 * among them), the rest unknown. */
static void test_chart_only(struct tk_store *s)
{
	const char *keys[] = { "roundtrip", NULL };
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_run_query q;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	is_int(tk_store_query_summaries(s, &q, keep_summary, &b, &err), 0, "summaries");
	is_str(b.buf, "roundtrip main 13.345678 10.75 1000001 3000001 ok 0.1.0 4000000 wait4",
	       "every summary column");
	tk_buf_reset(&b);
	q.chart_only = 1;
	is_int(tk_store_query_summaries(s, &q, keep_summary, &b, &err), 0, "chart_only summaries");
	is_str(b.buf, "roundtrip main 13.345678 10.75 1000001 3000001 ok - -1 wait4",
	       "a chart's and a check's columns, the others unknown");
	tk_buf_release(&b);
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	char *db, *conc;
	struct tk_buf url = TK_BUF_INIT;

	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	db = path_in_tmp("nested/dir/history.db");
	conc = path_in_tmp("conc.db");
	test_open_and_migrate(db);
	test_open_errors();

	tk_buf_addf(&url, "sqlite:%s", db);
	is_int(tk_store_open_flags(url.buf, TK_STORE_NO_CREATE, &s, &err), 0,
	       "sqlite:PATH opens the existing file");
	if (!s) {
		diag(err.msg);
		return done_testing();
	}
	test_roundtrip(s);
	test_chart_only(s);
	test_partial(s);
	test_filters(s);
	tk_store_close(s);
	test_concurrent(conc);

	free(db);
	free(conc);
	if (!getenv("TEST_KEEP")) {
		tk_buf_reset(&url);
		tk_buf_addf(&url, "rm -rf '%s'", tmpdir);
		if (system(url.buf))
			diag("cannot remove the temporary directory");
	}
	tk_buf_release(&url);
	return done_testing();
}
