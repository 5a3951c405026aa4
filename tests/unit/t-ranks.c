/*
 * The library side of tracker run --per-rank: adding profiles
 * (tk_profile_merge), the rank fields of the run record, and the SQLite
 * store's rank_group filter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/profmerge.h"
#include "core/store/profstore.h"
#include "core/analyze/ranks.h"
#include "core/model/rank.h"
#include "core/model/record.h"
#include "core/store/store.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

/* Adds "a;b;c" with weight w. */
static void add(struct tk_profile *p, const char *stack, double w)
{
	uint32_t names[16];
	size_t depth = 0;
	const char *s = stack, *semi;

	for (;;) {
		semi = strchr(s, ';');
		names[depth++] = tk_profile_intern(p, s, semi ? (size_t)(semi - s) : strlen(s));
		if (!semi)
			break;
		s = semi + 1;
	}
	tk_profile_add_stack(p, names, depth, w);
}

/* The total of the node at path "a;b" (root-first), -1 when absent. */
static double total_at(const struct tk_profile *p, const char *path)
{
	uint32_t node = TK_PROFILE_ROOT, c;
	const char *s = path, *semi;
	size_t len;

	for (;;) {
		semi = strchr(s, ';');
		len = semi ? (size_t)(semi - s) : strlen(s);
		for (c = p->nodes[node].first_child; c; c = p->nodes[c].next_sibling)
			if (strlen(tk_profile_name(p, c)) == len &&
			    !memcmp(tk_profile_name(p, c), s, len))
				break;
		if (!c)
			return -1;
		node = c;
		if (!semi)
			return p->nodes[node].total;
		s = semi + 1;
	}
}

static void test_merge(void)
{
	struct tk_profile a, b, c;
	struct tk_err err = TK_ERR_INIT;

	tk_profile_init(&a, TK_UNIT_BYTES);
	tk_profile_init(&b, TK_UNIT_BYTES);
	tk_profile_init(&c, TK_UNIT_SAMPLES);
	add(&a, "app;main;solve", 100);
	add(&a, "app;main;io", 10);
	add(&b, "app;main;solve", 50);
	add(&b, "app;main;halo", 7);
	add(&b, "app;main", 3);
	add(&c, "x", 1);
	tk_profile_finish(&a);
	tk_profile_finish(&b);
	tk_profile_finish(&c);

	is_int(tk_profile_merge(&a, &b, &err), 0, "merge two byte profiles");
	tk_profile_finish(&a);
	ok(tk_profile_total(&a) == 170, "total is the sum (%g)", tk_profile_total(&a));
	ok(total_at(&a, "app;main;solve") == 150, "a shared path adds up");
	ok(total_at(&a, "app;main;io") == 10, "a path only in the first stays");
	ok(total_at(&a, "app;main;halo") == 7, "a path only in the second is added");
	ok(total_at(&a, "app;main") == 170, "self weight of an inner frame is kept");
	ok(total_at(&b, "app;main;solve") == 50, "the added profile is unchanged");

	is_int(tk_profile_merge(&a, &c, &err), TK_EDATA, "units must match");
	ok(strstr(err.msg, "samples") && strstr(err.msg, "bytes"), "the error names both "
	   "units: %s", err.msg);

	tk_profile_release(&a);
	tk_profile_release(&b);
	tk_profile_release(&c);
}

static void make_rank(struct tk_run *r, int n, const char *key, const char *group,
		      int rank, int64_t started)
{
	char id[TK_RUN_ID_LEN + 1];

	tk_run_init(r);
	snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d", n);
	memcpy(r->id, id, sizeof(id));
	r->key = tk_xstrdup(key);
	r->started_at_us = started;
	r->walltime_s = 1;
	r->maxrss_bytes = 1000 * (rank + 1);
	r->exit_code = 0;
	if (group) {
		r->rank = rank;
		r->rank_group = tk_xstrdup(group);
	}
}

static void test_record(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf json = TK_BUF_INIT;
	struct tk_run r, back;
	const char *bad;

	make_rank(&r, 1, "k", "4242.0", 3, 1000);
	is_int(tk_run_to_json(&r, &json, &err), 0, "a rank to JSON");
	ok(strstr(json.buf, "\"rank\": 3") && strstr(json.buf, "\"rank_group\": \"4242.0\""),
	   "the record carries rank and rank_group");
	tk_run_init(&back);
	is_int(tk_run_from_json(json.buf, json.len, "t", &back, &err), 0, "and back");
	is_int(back.rank, 3, "rank read back");
	is_str(back.rank_group, "4242.0", "rank_group read back");
	tk_run_release(&back);
	tk_run_release(&r);

	tk_buf_reset(&json);
	make_rank(&r, 2, "k", NULL, 0, 1000);
	tk_run_to_json(&r, &json, &err);
	ok(!strstr(json.buf, "rank"), "a run that is not a rank has no rank fields");
	tk_run_init(&back);
	is_int(tk_run_from_json(json.buf, json.len, "t", &back, &err), 0, "read it");
	is_int(back.rank, -1, "its rank is -1");
	ok(back.rank_group == NULL, "and it has no group");
	tk_run_release(&back);
	tk_run_release(&r);

	bad = "{\"format\": \"tracker-run\", \"version\": 1, \"run\": {\"id\": "
	      "\"00000000-0000-4000-8000-000000000003\", \"key\": \"k\", \"rank\": 2}}";
	tk_run_init(&back);
	is_int(tk_run_from_json(bad, strlen(bad), "bad.json", &back, &err), TK_EDATA,
	       "a rank without a group is refused");
	ok(strstr(err.msg, "bad.json") && strstr(err.msg, "rank"), "saying so: %s", err.msg);
	tk_run_release(&back);
	tk_buf_release(&json);
}

static int count_fn(const struct tk_run *r, void *data)
{
	int *n = data;

	if (r->rank >= 0)
		*n += 1 << r->rank;
	return 0;
}

/* The kind profile of each rank of job 77.0 (runs 10..12): rank i has
 * "app;main;solve" weighing 10 * (i + 1). */
static void test_merged(struct tk_store *s)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf label = TK_BUF_INIT;
	struct tk_profile p, m;
	char id[TK_RUN_ID_LEN + 1];
	int i;

	for (i = 0; i < 3; i++) {
		snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d", 10 + i);
		tk_profile_init(&p, TK_UNIT_BYTES);
		add(&p, "app;main;solve", 10 * (i + 1));
		tk_profile_finish(&p);
		is_int(tk_profstore_put(s, id, "alloc", "folded", &p, &err), 0,
		       "store rank %d's profile", i);
		tk_profile_release(&p);
	}
	tk_profile_init(&m, TK_UNIT_BYTES);
	is_int(tk_ranks_load_profile(s, NULL, "k", NULL, "alloc", &m, &label, &err), 0,
	       "load the merged profile of the newest ranked job with one");
	ok(total_at(&m, "app;main;solve") == 60, "it is the sum of the ranks (%g)",
	   total_at(&m, "app;main;solve"));
	is_str(label.buf, "k \xc2\xb7 job 77.0 \xc2\xb7 3 ranks merged", "and its label");
	tk_profile_release(&m);

	tk_profile_init(&m, TK_UNIT_BYTES);
	is_int(tk_ranks_load_profile(s, NULL, "k", NULL, "cpu", &m, NULL, &err), TK_EDATA,
	       "no job has a cpu profile");
	ok(strstr(err.msg, "'k'") && strstr(err.msg, "--per-rank") && strstr(err.msg, "cpu"),
	   "the error says what was looked for: %s", err.msg);
	tk_profile_release(&m);

	tk_profile_init(&m, TK_UNIT_BYTES);
	is_int(tk_ranks_load_profile(s, "00000000-0000-4000-8000-000000000021", NULL, NULL,
				     "alloc", &m, NULL, &err), TK_EDATA,
	       "a run that is not a rank has no job");
	ok(strstr(err.msg, "not a rank of a job") != NULL, "saying so: %s", err.msg);
	tk_profile_release(&m);
	tk_buf_release(&label);
}

static void test_setup(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;

	tk_run_init(&r);
	is_int(tk_ranks_setup(&r, NULL, NULL, &err), TK_EUSAGE, "--per-rank outside SLURM is refused");
	ok(strstr(err.msg, "SLURM_JOB_ID is not set") != NULL, "naming what is missing: %s",
	   err.msg);
	r.ci.slurm_job_id = tk_xstrdup("4242");
	r.ci.slurm_procid = tk_xstrdup("x1");
	is_int(tk_ranks_setup(&r, NULL, NULL, &err), TK_EUSAGE, "a PROCID that is no number is refused");
	ok(strstr(err.msg, "'x1'") != NULL, "quoting it: %s", err.msg);
	free(r.ci.slurm_procid);
	r.ci.slurm_procid = tk_xstrdup("3");
	is_int(tk_ranks_setup(&r, NULL, NULL, &err), 0, "a task of a job");
	is_int(r.rank, 3, "its rank is SLURM_PROCID");
	is_str(r.rank_group, "4242", "outside a step the group is the job");
	is_int(tk_ranks_task_rank(&r), 3, "the task's rank is the run's");
	r.ci.slurm_step_id = tk_xstrdup("7");
	is_int(tk_ranks_setup(&r, NULL, NULL, &err), 0, "a task of a job step");
	is_str(r.rank_group, "4242.7", "the group is job.step");
	free(r.ci.slurm_step_id);
	r.ci.slurm_step_id = tk_xstrdup("a b");
	is_int(tk_ranks_setup(&r, NULL, NULL, &err), TK_EUSAGE, "a step id with a space is refused");
	tk_run_release(&r);
}

static void test_path(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;

	is_int(tk_ranks_path("prof-%r.txt", 12, &b, &err), 0, "expand %%r");
	is_str(b.buf, "prof-12.txt", "to the rank");
	tk_ranks_path("a%%r-%d-%", 1, &b, &err);
	is_str(b.buf, "a%r-%d-%", "%%%% is a %%, other %% stay as they are");
	tk_ranks_path("plain.txt", -1, &b, &err);
	is_str(b.buf, "plain.txt", "no placeholder needs no rank");
	is_int(tk_ranks_path("p%r", -1, &b, &err), TK_EUSAGE, "%%r without a rank is refused");
	ok(strstr(err.msg, "'p%r'") && strstr(err.msg, "SLURM_PROCID"), "naming the path: %s",
	   err.msg);
	tk_buf_release(&b);
}

static void sum(struct tk_run_summary *r, int n, const char *group, int rank, int64_t started,
		enum tk_run_status status, int64_t rss)
{
	static char ids[16][TK_RUN_ID_LEN + 1];

	memset(r, 0, sizeof(*r));
	snprintf(ids[n], sizeof(ids[n]), "00000000-0000-4000-8000-%012d", n);
	r->run_id = ids[n];
	r->key = "k";
	r->branch = "main";
	r->rank = group ? rank : -1;
	r->rank_group = group;
	r->started_at_us = started;
	r->walltime_s = 1 + rank;
	r->maxrss_bytes = rss;
	r->tree_rss_bytes = -1;
	r->status = status;
	r->ntasks = group ? 4 : -1;
}

static void test_rows(void)
{
	struct tk_rank_rows j;
	struct tk_run_summary r;

	memset(&j, 0, sizeof(j));
	/* as the store lists them: newest first */
	sum(&r, 1, NULL, 0, 500, TK_RUN_OK, 10);
	tk_rank_rows_add(&j, &r);
	sum(&r, 2, "9.0", 2, 400, TK_RUN_FAILED, 300);
	tk_rank_rows_add(&j, &r);
	sum(&r, 3, "9.0", 1, 401, TK_RUN_OK, -1);
	tk_rank_rows_add(&j, &r);
	sum(&r, 4, "9.0", 0, 399, TK_RUN_CANCELLED, 100);
	tk_rank_rows_add(&j, &r);
	sum(&r, 5, "9.0", 0, 300, TK_RUN_ERROR, 1);  /* rank 0 requeued: older, dropped */
	tk_rank_rows_add(&j, &r);
	sum(&r, 6, "8.0", 0, 200, TK_RUN_OK, 5);
	tk_rank_rows_add(&j, &r);
	tk_rank_rows_finish(&j);

	is_int(j.nr, 3, "one row per job, one per run that is not a rank");
	is_str(j.rows[0].group, NULL, "newest first: the lone run");
	is_str(j.rows[1].group, "9.0", "then job 9.0");
	is_int(j.rows[1].nr, 3, "a requeued rank counts once");
	is_int(j.rows[1].started_at_us, 399, "a job starts with its first rank");
	ok(j.rows[1].walltime_s == 3, "its walltime is the longest");
	is_int(j.rows[1].maxrss_max, 300, "maxrss: the largest known");
	is_int(j.rows[1].maxrss_sum, 400, "and the sum of the known");
	is_int(j.rows[1].tree_rss_sum, -1, "unknown on every rank stays unknown");
	is_int(j.rows[1].e[j.rows[1].worst].rank, 2, "the worst ending is rank 2's failure");
	is_int(j.rows[1].not_ok, 2, "two ranks did not end ok");
	is_int(j.rows[1].ntasks, 4, "ntasks kept");
	is_str(j.rows[2].group, "8.0", "job 8.0 last");
	ok(tk_run_status_severity(TK_RUN_SIGNALED) > tk_run_status_severity(TK_RUN_FAILED) &&
	   tk_run_status_severity(TK_RUN_CANCELLED) < tk_run_status_severity(TK_RUN_TIMEOUT),
	   "a crash is worse than a failure, a cancel less bad than a timeout");
	tk_rank_rows_release(&j);
	is_int(j.nr, 0, "release empties");
}

static void test_store(void)
{
	char dir[] = "/tmp/t-ranks.XXXXXX";
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *s = NULL;
	struct tk_run_query q;
	const char *keys[2] = { "k", NULL };
	struct tk_run r;
	int i, n = 0, inserted;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	tk_buf_addf(&url, "%s/h.db", dir);
	is_int(tk_store_open(url.buf, &s, &err), 0, "open a store");
	if (!s) {
		diag(err.msg);
		return;
	}
	for (i = 0; i < 3; i++) {
		make_rank(&r, 10 + i, "k", "77.0", i, 100 + i);
		tk_store_put_run(s, &r, &inserted, &err);
		tk_run_release(&r);
	}
	make_rank(&r, 20, "k", "78.0", 0, 200);
	tk_store_put_run(s, &r, &inserted, &err);
	tk_run_release(&r);
	make_rank(&r, 21, "k", NULL, 0, 300);
	tk_store_put_run(s, &r, &inserted, &err);
	tk_run_release(&r);

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.rank_group = "77.0";
	is_int(tk_store_query_runs(s, &q, count_fn, &n, &err), 0, "query one job's ranks");
	is_int(n, 7, "ranks 0, 1 and 2 of job 77.0, nothing else");
	q.rank_group = "78.0";
	n = 0;
	tk_store_query_runs(s, &q, count_fn, &n, &err);
	is_int(n, 1, "rank 0 of job 78.0");
	test_merged(s);
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
}

int main(void)
{
	test_merge();
	test_record();
	test_setup();
	test_path();
	test_rows();
	test_store();
	return done_testing();
}
