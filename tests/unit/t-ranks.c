/*
 * The library side of tracker run --per-rank: adding profiles
 * (tk_profile_merge), the rank fields of the run record, and the SQLite
 * store's rank_group filter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/profmerge.h"
#include "core/store.h"
#include "tests/unit/tap.h"
#include "core/banned.h"

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
	test_store();
	return done_testing();
}
