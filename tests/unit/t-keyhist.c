/*
 * core/store/keyhist: a key's runs read once replay as the store's query
 * gives them (filters, order, limit), say when a history that starts late
 * cannot answer, carry alloc totals; and a report reads each of its keys'
 * runs once and checks each once, its dashboard included, on a real
 * SQLite history (store calls counted).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/timeutil.h"
#include "core/model/profile.h"
#include "core/pages/report.h"
#include "core/store/keyhist.h"
#include "core/store/profstore.h"
#include "tests/unit/tap.h"

static char dir[] = "/tmp/t-keyhist.XXXXXX";
static int next_id;
static int64_t base_us;

static void put(struct tk_store *s, const char *key, const char *branch, int build, double w,
		int at)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;
	char num[64];
	int inserted;

	tk_run_init(&r);
	snprintf(r.id, sizeof(r.id), "00000000-0000-4000-8000-%012d", ++next_id);
	r.key = strdup(key);
	r.ci.branch = strdup(branch);
	r.ci.pipeline = strdup("climacoupler");
	r.ci.default_branch = strdup("main");
	snprintf(num, sizeof(num), "%d", build);
	r.ci.build_number = strdup(num);
	snprintf(num, sizeof(num), "%040d", build);
	r.ci.commit = strdup(num);
	/* two runs share a start (the run id orders them), `at` hours after
	 * a start 50 hours ago: within the dashboard's year */
	r.started_at_us = base_us + (int64_t)(at - at % 2) * 3600 * 1000000;
	r.walltime_s = w;
	r.user_s = w;
	r.sys_s = 0;
	r.maxrss_bytes = 1 << 30;
	r.tree_rss_bytes = 1 << 30;
	r.status = build % 7 == 3 ? TK_RUN_FAILED : TK_RUN_OK;
	r.exit_code = r.status == TK_RUN_OK ? 0 : 1;
	if (tk_store_put_run(s, &r, &inserted, &err))
		diag(err.msg);
	tk_run_release(&r);
}

struct ids {
	struct tk_buf b;
};

static int add_id(const struct tk_run_summary *s, void *data)
{
	struct ids *l = data;

	tk_buf_addf(&l->b, "%s %s %s\n", s->run_id, s->branch ? s->branch : "-",
		    s->build_number ? s->build_number : "-");
	return 0;
}

/* The same runs, in the same order, from the store and from h. */
static void same_as_store(struct tk_store *s, const struct tk_key_history *h,
			  const struct tk_run_query *q, const char *what)
{
	struct ids a = { TK_BUF_INIT }, b = { TK_BUF_INIT };
	struct tk_err err = TK_ERR_INIT;
	int complete = -1;

	tk_store_query_summaries(s, q, add_id, &a, &err);
	is_int(tk_key_history_query(h, q, add_id, &b, &complete, &err), 0, "%s: replayed", what);
	ok(a.b.len > 0 && !strcmp(a.b.buf, b.b.buf), "%s: the store's runs, in its order", what);
	ok(complete == 1, "%s: complete", what);
	tk_buf_release(&a.b);
	tk_buf_release(&b.b);
}

/* ---- store calls, counted ---- */

static struct tk_store_ops counting_ops;
static const struct tk_store_ops *real_ops;
static size_t all_reads;    /* every query */
static size_t key_reads;    /* summaries of one key, every branch */
static size_t branch_reads; /* of one key on one branch: a check's own reads */

static int counting_summaries(struct tk_store *s, const struct tk_run_query *q,
			      tk_summary_fn fn, void *data, struct tk_err *err)
{
	all_reads++;
	if (q->keys && q->keys[0] && !q->keys[1] && !q->branch && !q->run_id &&
	    !q->profile_kind)
		key_reads++;
	if (q->keys && q->branch)
		branch_reads++;
	return real_ops->query_summaries(s, q, fn, data, err);
}

static void warn_to_diag(void *data, const char *msg)
{
	(void)data;
	diag(msg);
}

int main(void)
{
	const char *amip[] = { "amip", NULL };
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf path = TK_BUF_INIT;
	struct tk_key_history h;
	struct tk_run_query q;
	struct tk_store *s;
	struct ids got = { TK_BUF_INIT };
	int complete, b;

	if (!mkdtemp(dir))
		return 1;
	base_us = (tk_now_us() / 3600000000 - 50) * 3600000000;
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		diag(err.msg);
		return 1;
	}
	for (b = 1; b <= 40; b++) {
		put(s, "amip", b % 5 ? "main" : "feature", b, 100 + b % 3, b);
		put(s, "ocean", "main", b, 50, b);
	}
	/* an alloc profile of one run */
	{
		struct tk_profile p;
		uint32_t stack[2];

		tk_profile_init(&p, TK_UNIT_BYTES);
		stack[0] = tk_profile_intern(&p, "main", 4);
		stack[1] = tk_profile_intern(&p, "radiation", 9);
		tk_profile_add_stack(&p, stack, 2, 4096);
		tk_profile_finish(&p);
		if (tk_profstore_put(s, "00000000-0000-4000-8000-000000000041", "alloc", NULL, &p,
				     &err))
			diag(err.msg);
		tk_profile_release(&p);
	}

	ok(!tk_key_history_load(s, "amip", 0, 1, &h, &err), "a key's history read");
	is_int(h.nr, 40, "every run of the key, none of another");
	memset(&q, 0, sizeof(q));
	q.keys = amip;
	same_as_store(s, &h, &q, "every run");
	q.branch = "feature";
	same_as_store(s, &h, &q, "one branch");
	q.branch = NULL;
	q.since_us = base_us + (int64_t)20 * 3600 * 1000000;
	same_as_store(s, &h, &q, "since a time");
	q.since_us = 0;
	q.limit = 7;
	same_as_store(s, &h, &q, "a limit");
	q.limit = 0;
	q.run_id = "00000000-0000-4000-8000-000000000041";
	same_as_store(s, &h, &q, "one run");
	q.run_id = NULL;
	is_int(tk_key_history_alloc(&h, tk_key_history_find(&h,
			"00000000-0000-4000-8000-000000000041")), 4096, "its alloc total");
	is_int(tk_key_history_alloc(&h, 0), -1, "a run without: -1");
	q.profile_kind = "cpu";
	is_int(tk_key_history_query(&h, &q, add_id, &got, NULL, &err), TK_EUSAGE,
	       "a filter it cannot answer is refused");
	q.profile_kind = NULL;
	{
		const char *none[] = { NULL }, *both[] = { "amip", "ocean", NULL };
		const char *other[] = { "ocean", NULL };
		struct tk_run_query wide = q;

		wide.keys = NULL;
		tk_buf_reset(&got.b);
		tk_key_history_query(&h, &wide, add_id, &got, &complete, &err);
		ok(!complete && !got.b.len, "a query of every key: nothing, incomplete");
		wide.keys = none;
		tk_key_history_query(&h, &wide, add_id, &got, &complete, &err);
		ok(!complete && !got.b.len, "an empty list of keys, as every key");
		wide.keys = both;
		tk_key_history_query(&h, &wide, add_id, &got, &complete, &err);
		ok(!complete && !got.b.len, "its key and another: incomplete");
		wide.keys = other;
		tk_key_history_query(&h, &wide, add_id, &got, &complete, &err);
		ok(!complete && !got.b.len, "another key: incomplete");
		wide.keys = amip;
		wide.limit = -1;
		tk_key_history_query(&h, &wide, add_id, &got, &complete, &err);
		ok(complete && got.b.len, "a negative limit is no limit, as for the store");
	}
	is_int(tk_key_history_find(&h, "00000000-0000-4000-8000-000000000001"), 39,
	       "the oldest run found by id");
	is_int(tk_key_history_find(&h, "nope"), -1, "an id it has not");
	ok(!tk_key_history_trim(&h, base_us + (int64_t)30 * 3600 * 1000000, &err) && h.nr == 11 &&
	   h.since_us == base_us + (int64_t)30 * 3600 * 1000000, "trimmed to a window (%zu runs)", h.nr);
	is_int(tk_key_history_alloc(&h, tk_key_history_find(&h,
			"00000000-0000-4000-8000-000000000079")), -1, "its totals kept by run");
	q.since_us = base_us + (int64_t)30 * 3600 * 1000000;
	same_as_store(s, &h, &q, "the window, after trimming");
	q.since_us = 0;
	tk_key_history_release(&h);
	ok(h.nr == 0 && !h.runs, "released: empty");

	ok(!tk_key_history_load(s, "amip", base_us + (int64_t)30 * 3600 * 1000000, 0, &h, &err),
	   "a history since a time");
	tk_buf_reset(&got.b);
	tk_key_history_query(&h, &q, add_id, &got, &complete, &err);
	is_int(complete, 0, "cannot say what came before it");
	q.limit = 3;
	tk_key_history_query(&h, &q, add_id, &got, &complete, &err);
	is_int(complete, 1, "but answers a query its runs fill");
	q.limit = 0;
	q.since_us = base_us + (int64_t)35 * 3600 * 1000000;
	tk_key_history_query(&h, &q, add_id, &got, &complete, &err);
	is_int(complete, 1, "and one that starts inside it");
	tk_key_history_release(&h);

	/* a report of build 39 reads each of its keys once, checks each once,
	 * and its dashboard reads and checks them no more */
	{
		struct tk_report_opts o;
		struct tk_report r;
		struct tk_ci_context ci;
		struct tk_config cfg;

		counting_ops = *s->ops;
		real_ops = s->ops;
		counting_ops.query_summaries = counting_summaries;
		s->ops = &counting_ops;
		tk_ci_context_init(&ci);
		ci.provider = strdup("buildkite");
		ci.branch = strdup("main");
		ci.build_number = strdup("39");
		ci.pipeline = strdup("climacoupler");
		ci.default_branch = strdup("main");
		tk_config_init(&cfg);
		memset(&o, 0, sizeof(o));
		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/report", dir);
		o.dir = path.buf;
		o.warn = warn_to_diag;
		tk_report_init(&r);
		key_reads = branch_reads = 0;
		ok(!tk_report_build(s, &o, &ci, &cfg, &r, &err), "the report of build 39");
		is_int(r.nr, 2, "two keys");
		ok(r.nr == 2 && r.keys[0].has_chart && r.keys[1].has_chart,
		   "each with its charts, drawn from the runs read once");
		is_int(key_reads, 2, "each key's runs read once, the dashboard's too");
		is_int(branch_reads, 0, "the checks read them there, and are not made again");
		ok(r.dashboard != NULL, "and its dashboard");
		tk_report_release(&r);

		/* past the runs it keeps for the dashboard, a key is read again */
		o.keep_runs = 45;
		tk_report_init(&r);
		key_reads = branch_reads = 0;
		ok(!tk_report_build(s, &o, &ci, &cfg, &r, &err), "a report keeping 45 runs");
		is_int(key_reads, 3, "the second key's 40 runs past them, let go: read again for the dashboard");
		tk_report_release(&r);
		o.keep_runs = 0;

		/* a check made twice with one memo is made once */
		{
			struct tk_check_memo m;
			struct tk_check_opts co;
			struct tk_check_result c1, c2;
			size_t before;

			memset(&m, 0, sizeof(m));
			tk_check_opts_init(&co);
			co.key = "amip";
			ok(!tk_check_key_memo(&m, s, &co, &ci, &cfg, &c1, &err), "a check");
			before = all_reads;
			ok(!tk_check_key_memo(&m, s, &co, &ci, &cfg, &c2, &err), "the same again");
			is_int(all_reads, before, "answered from the memo, without the store");
			ok(c1.nr_base == c2.nr_base && c1.nr_base > 0 &&
			   !strcmp(c1.base[0].id, c2.base[0].id) &&
			   c1.metrics[0].result.verdict == c2.metrics[0].result.verdict,
			   "with the same result");
			tk_check_result_release(&c2);
			co.baseline_branch = "feature";
			ok(!tk_check_key_memo(&m, s, &co, &ci, &cfg, &c2, &err), "another check");
			ok(all_reads > before, "is made");
			ok(c2.baseline_branch && !strcmp(c2.baseline_branch, "feature"),
			   "against its own baseline");
			tk_check_result_release(&c1);
			tk_check_result_release(&c2);
			tk_check_memo_release(&m);
		}
		s->ops = real_ops;
		tk_ci_context_release(&ci);
		tk_config_release(&cfg);
	}

	tk_buf_release(&got.b);
	tk_store_close(s);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "rm -rf '%s'", dir);
	if (system(path.buf))
		diag("cannot remove the test directory");
	tk_buf_release(&path);
	return done_testing();
}
