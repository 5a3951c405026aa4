/*
 * core/ci/bkfetch without a network: the settings from the environment,
 * what is refused before any request (no token, a token with a control
 * character, no pipeline), and tk_bkfetch_baseline asking the API only
 * when the history lacks runs (the API here is a closed port, so a
 * request is an error). The walk itself is tested end to end against a
 * fake API in tests/t7150-fetch.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ci/bkfetch.h"
#include "core/base/buf.h"
#include "core/store/store.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-bkfetch.XXXXXX";

static const char *const fake_vars[] = {
	"BUILDKITE_API_TOKEN", "tok",
	"BUILDKITE_ORGANIZATION_SLUG", "clima",
	"BUILDKITE_PIPELINE_SLUG", "coupler",
	"TRACKER_BUILDKITE_API", "http://127.0.0.1:1",
	"TRACKER_FETCH_TIMEOUT", "2s",
	"TRACKER_FETCH_RETRIES", "0",
	NULL,
};

static const char *fake_get(void *data, const char *name)
{
	const char *const *v;

	for (v = data; *v; v += 2)
		if (!strcmp(v[0], name))
			return v[1];
	return NULL;
}

static void put(struct tk_store *s, const char *branch, enum tk_run_status status)
{
	static const char blob[] = "not decoded here";
	struct tk_err err = TK_ERR_INIT;
	struct tk_profile_blob b;
	struct tk_run r;
	int inserted;

	tk_run_init(&r);
	tk_uuid_v4(r.id, &err);
	r.key = tk_xstrdup("k");
	r.ci.branch = tk_xstrdup(branch);
	r.started_at_us = 1000000;
	r.status = status;
	r.exit_code = status == TK_RUN_OK ? 0 : 1;
	if (tk_store_put_run(s, &r, &inserted, &err))
		printf("# put_run: %s\n", err.msg);
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
	tk_run_release(&r);
}

static void test_env(void)
{
	struct tk_env env = { fake_get, (void *)fake_vars, NULL, NULL };
	const char *const bad_vars[] = { "TRACKER_FETCH_RETRIES", "lots", NULL };
	struct tk_env bad = { fake_get, (void *)bad_vars, NULL, NULL };
	struct tk_bkfetch_opts o;
	struct tk_err err = TK_ERR_INIT;

	tk_bkfetch_opts_init(&o);
	o.org = "mine";
	is_int(tk_bkfetch_opts_from_env(&o, &env, &err), 0, "settings from the environment");
	is_str(o.token, "tok", "the token");
	is_str(o.org, "mine", "a field already set is kept");
	is_str(o.pipeline, "coupler", "the pipeline");
	is_str(o.api, "http://127.0.0.1:1", "the API");
	ok(o.timeout_s == 2, "the timeout");
	is_int(o.retries, 0, "the retries");
	tk_bkfetch_opts_init(&o);
	is_int(tk_bkfetch_opts_from_env(&o, &bad, &err), TK_EUSAGE, "retries that do not parse");
	ok(strstr(err.msg, "TRACKER_FETCH_RETRIES") != NULL, "are named: %s", err.msg);
}

static void test_refused(struct tk_store *s)
{
	struct tk_bkfetch_opts o;
	struct tk_bkfetch_stats st;
	struct tk_err err = TK_ERR_INIT;

	tk_bkfetch_opts_init(&o);
	o.org = "clima";
	o.pipeline = "coupler";
	o.api = "http://127.0.0.1:1";
	is_int(tk_bkfetch_run(s, &o, &st, &err), TK_EUSAGE, "no token");
	ok(strstr(err.msg, "set BUILDKITE_API_TOKEN") != NULL, "says what to set: %s", err.msg);
	o.token = "abc\r\nX-Injected: 1";
	is_int(tk_bkfetch_run(s, &o, &st, &err), TK_EUSAGE, "a token with a line break");
	ok(!strstr(err.msg, "abc") && !strstr(err.msg, "Injected"), "is not shown: %s",
	   err.msg);
	o.token = "tok";
	o.pipeline = NULL;
	is_int(tk_bkfetch_run(s, &o, &st, &err), TK_EUSAGE, "no pipeline");
	o.pipeline = "coupler";
	o.retries = 0;
	is_int(tk_bkfetch_run(s, &o, &st, &err), TK_EUNAVAIL, "an API that cannot be reached");
	ok(strstr(err.msg, "http://127.0.0.1:1/v2/organizations/clima/pipelines/coupler/"
		  "builds?per_page=100") != NULL, "names the URL: %s", err.msg);
	ok(!strstr(err.msg, "tok"), "not the token");
}

static void test_baseline(struct tk_store *s)
{
	struct tk_env env = { fake_get, (void *)fake_vars, NULL, NULL };
	struct tk_baseline_query q;
	struct tk_bkfetch_opts o;
	struct tk_bkfetch_stats st;
	struct tk_ci_context ci;
	struct tk_err err = TK_ERR_INIT;
	int fetched = -1;

	tk_bkfetch_opts_init(&o);
	tk_bkfetch_opts_from_env(&o, &env, &err);
	tk_ci_context_init(&ci);
	memset(&q, 0, sizeof(q));
	q.key = "k";
	q.kind = "cpu";
	q.branch = "feature";
	q.baseline_branch = "main";
	q.nr_baselines = 2;
	is_int(tk_bkfetch_baseline(s, &q, &ci, NULL, &o, &st, &fetched, &err), 0,
	       "two successful main runs and a feature run: nothing to fetch");
	is_int(fetched, 0, "the API was not asked");
	q.nr_baselines = 3;
	is_int(tk_bkfetch_baseline(s, &q, &ci, NULL, &o, &st, &fetched, &err), TK_EUNAVAIL,
	       "a third baseline run (the failed one does not count) is fetched");
	is_int(fetched, 1, "the API was asked");
	q.nr_baselines = 2;
	q.branch = "main";
	is_int(tk_bkfetch_baseline(s, &q, &ci, NULL, &o, &st, &fetched, &err), TK_EUNAVAIL,
	       "NEW on the baseline branch needs one run more");
	q.branch = "feature";
	q.baseline_run = "00000000-0000-4000-8000-000000000000";
	q.run_id = "00000000-0000-4000-8000-000000000001";
	is_int(tk_bkfetch_baseline(s, &q, &ci, NULL, &o, &st, &fetched, &err), 0,
	       "named runs: nothing to fetch");
	is_int(fetched, 0, "the API was not asked");
	q.baseline_run = q.run_id = NULL;
	q.branch = "other";
	is_int(tk_bkfetch_baseline(s, &q, &ci, NULL, &o, &st, &fetched, &err), TK_EUNAVAIL,
	       "no run on NEW's branch: fetched");
	q.baseline_branch = NULL;
	is_int(tk_bkfetch_baseline(s, &q, &ci, NULL, &o, &st, &fetched, &err), TK_EUSAGE,
	       "no baseline branch");
	ok(strstr(err.msg, "--baseline-branch") != NULL, "says how to name one: %s", err.msg);
	tk_ci_context_release(&ci);
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *s;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tk_buf_addf(&url, "%s/h.db", dir);
	if (tk_store_open(url.buf, &s, &err)) {
		printf("Bail out! cannot open %s: %s\n", url.buf, err.msg);
		return 1;
	}
	put(s, "main", TK_RUN_OK);
	put(s, "main", TK_RUN_OK);
	put(s, "main", TK_RUN_FAILED);
	put(s, "feature", TK_RUN_OK);
	test_env();
	test_refused(s);
	test_baseline(s);
	tk_store_close(s);
	unlink(url.buf);
	tk_buf_reset(&url);
	tk_buf_addf(&url, "%s/h.db-wal", dir);
	unlink(url.buf);
	tk_buf_reset(&url);
	tk_buf_addf(&url, "%s/h.db-shm", dir);
	unlink(url.buf);
	rmdir(dir);
	tk_buf_release(&url);
	return done_testing();
}
