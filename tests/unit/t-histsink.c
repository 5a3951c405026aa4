/*
 * The outputs of tracker history (core/pages/histsink) and the text helpers
 * under them (core/base/table): known rows written as table, CSV and JSON into
 * memory, the CSV quoting and formula neutralizing, the job rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pages/histsink.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static void test_csv_fields(void)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_csv_text(&b, "plain");
	is_str(b.buf, "plain", "a plain field is as it is");
	tk_buf_reset(&b);
	tk_csv_text(&b, "a,\"b\"");
	is_str(b.buf, "\"a,\"\"b\"\"\"", "a comma quotes, a quote doubles");
	tk_buf_reset(&b);
	tk_csv_text(&b, "=HYPERLINK(1)");
	is_str(b.buf, "'=HYPERLINK(1)", "a formula gets a leading quote");
	tk_buf_reset(&b);
	tk_csv_raw(&b, "-1");
	is_str(b.buf, "-1", "raw fields are not neutralized");
	tk_buf_reset(&b);
	tk_csv_text(&b, NULL);
	is_str(b.buf, "", "NULL is an empty field");
	tk_buf_release(&b);
}

static void test_table(void)
{
	static const char *const headers[] = { "NAME", "N" };
	static const unsigned char right[] = { 0, 1 };
	struct tk_table t;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	tk_table_init(&t, 2, headers, right);
	tk_table_add(&t, "\xc3\xa9t\xc3\xa9");
	tk_table_add(&t, "12345");
	tk_table_add(&t, NULL);
	tk_table_add(&t, "7");
	is_int(tk_table_rows(&t), 2, "two rows");
	tk_table_print(&t, f);
	fclose(f);
	is_str(text, "NAME      N\n\xc3\xa9t\xc3\xa9   12345\n-         7\n",
	       "columns aligned by characters, numbers right, NULL is -");
	tk_table_release(&t);
	free(text);
}

static void summary(struct tk_run_summary *r)
{
	memset(r, 0, sizeof(*r));
	r->run_id = "00000000-0000-4000-8000-000000000001";
	r->key = "amip";
	r->branch = "=staging";
	r->commit = "b2c3d4e5f60718293a4b5c6d7e8f901234567890";
	r->build_number = "102";
	r->started_at_us = 1707552000000000; /* 2024-02-10T08:00:00Z */
	r->walltime_s = 3700.25;
	r->maxrss_bytes = 2254857830;
	r->tree_rss_bytes = 3435973836;
	r->exit_code = 3;
	r->user_s = -1;
	r->sys_s = -1;
	r->cgroup_peak_bytes = -1;
	r->wrapper_rss_bytes = -1;
	r->status = TK_RUN_FAILED;
	r->rank = -1;
	r->ntasks = -1;
}

/* Runs the sink of format over one summary (twice with ranks, as two
 * ranks of one job); returns the output, to be freed. */
static char *write_one(const char *format, int ranks, size_t *count, int *empty)
{
	struct tk_histsink h;
	struct tk_run_summary r;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	is_int(tk_histsink_init(&h, format, ranks, f), 0, "%s%s: a known format", format,
	       ranks ? " --ranks" : "");
	tk_histsink_begin(&h);
	if (count) {
		summary(&r);
		if (ranks) {
			r.rank = 1;
			r.rank_group = "77.0";
			r.ntasks = 2;
			tk_histsink_add_summary(&r, &h);
			r.run_id = "00000000-0000-4000-8000-000000000002";
			r.rank = 0;
			r.status = TK_RUN_OK;
			r.exit_code = 0;
			r.maxrss_bytes = 1000;
			tk_histsink_add_summary(&r, &h);
			tk_histsink_write_jobs(&h, 0);
		} else {
			tk_histsink_add_summary(&r, &h);
		}
		*count = h.count;
	}
	*empty = tk_histsink_end(&h);
	tk_histsink_release(&h);
	fclose(f);
	return text;
}

static void test_sinks(void)
{
	struct tk_histsink h;
	size_t count;
	int empty;
	char *s;

	is_int(tk_histsink_init(&h, "xml", 0, stdout), TK_EUSAGE, "an unknown format");
	is_str(h.err.msg, "unknown format 'xml' (use table, csv or json)", "is named");
	tk_histsink_release(&h);
	ok(tk_histsink_find_format("csv", NULL) == 1 &&
	   tk_histsink_find_format("CSV", NULL) == TK_EUSAGE, "formats by exact name");

	s = write_one("table", 0, &count, &empty);
	/* docs/tracker-history.md's example row */
	is_str(s, "STARTED           KEY   BRANCH    BUILD  COMMIT        WALL    MAXRSS  "
	       "TREE_RSS  STATUS\n2024-02-10 08:00  amip  =staging    102  b2c3d4e5f6  "
	       "1h 01m  2.10 GiB  3.20 GiB  failed 3\n", "the table row of a failed run");
	is_int(count, 1, "one row");
	is_int(empty, 0, "not empty");
	free(s);
	s = write_one("table", 0, NULL, &empty);
	is_str(s, "", "an empty table writes nothing");
	is_int(empty, 1, "and says it was empty");
	free(s);

	s = write_one("csv", 0, &count, &empty);
	ok(!strncmp(s, "run_id,key,branch,commit,build,started_at,walltime_s,maxrss_bytes,"
		    "tree_rss_bytes,exit_code,", 91), "the CSV header's documented columns");
	ok(strstr(s, "\n00000000-0000-4000-8000-000000000001,amip,'=staging,"
		  "b2c3d4e5f60718293a4b5c6d7e8f901234567890,102,2024-02-10T08:00:00Z,"
		  "3700.250000,2254857830,3435973836,3,,,,0,failed,0,") != NULL,
	   "the CSV row: raw values, ISO time, the formula neutralized");
	is_int(empty, 0, "csv is never empty");
	free(s);

	s = write_one("json", 0, NULL, &empty);
	is_str(s, "[]\n", "an empty JSON array");
	free(s);
	ok(!tk_histsink_init(&h, "json", 0, stdout) && tk_histsink_full_runs(&h),
	   "json wants whole runs");
	tk_histsink_release(&h);
	ok(!tk_histsink_init(&h, "json", 1, stdout) && !tk_histsink_full_runs(&h),
	   "but not with --ranks");
	tk_histsink_release(&h);

	s = write_one("table", 1, &count, &empty);
	is_int(count, 1, "two ranks of one job are one row");
	ok(strstr(s, "  77.0  ") && strstr(s, "failed 3 (rank 1 of 2)"),
	   "the job row names the job and its failed rank");
	free(s);
	s = write_one("json", 1, &count, &empty);
	ok(strstr(s, "\"rank_group\": \"77.0\"") && strstr(s, "\"maxrss_sum_bytes\": 2254858830"),
	   "the JSON job row sums the ranks' peaks");
	free(s);
}

static void put(struct tk_store *s, int n, const char *key, int rank)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run r;
	int inserted;

	tk_run_init(&r);
	snprintf(r.id, sizeof(r.id), "00000000-0000-4000-8000-%012d", n);
	r.key = tk_xstrdup(key);
	r.started_at_us = (int64_t)n * 60 * 1000000;
	r.walltime_s = n;
	r.rank = rank;
	r.rank_group = rank >= 0 ? tk_xstrdup("77.0") : NULL;
	r.status = TK_RUN_OK;
	if (tk_store_put_run(s, &r, &inserted, &err))
		diag(err.msg);
	tk_run_release(&r);
}

/* The lines tk_histsink_write_query writes for q; *ret its answer. */
static int query_lines(struct tk_store *s, const struct tk_run_query *q, const char *format,
		       int ranks, int *empty, int *ret, struct tk_err *err)
{
	char *text = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int n = 0;

	*ret = tk_histsink_write_query(s, q, format, ranks, f, empty, err);
	fclose(f);
	for (p = text; p && *p; p++)
		n += *p == '\n';
	free(text);
	return n;
}

/* tracker history's listing in one call, on a real SQLite store. */
static void test_write_query(void)
{
	char dir[] = "/tmp/t-histsink.XXXXXX";
	struct tk_buf path = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	struct tk_run_query q;
	int empty, ret;

	if (!mkdtemp(dir)) {
		skip(8, "mkdtemp");
		return;
	}
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		diag(err.msg);
		skip(8, "no store");
		return;
	}
	put(s, 1, "amip", -1);
	put(s, 2, "amip", 0);
	put(s, 3, "amip", 1);
	put(s, 4, "ocean", -1);
	memset(&q, 0, sizeof(q));
	is_int(query_lines(s, &q, "csv", 0, &empty, &ret, &err), 5, "csv: a header, 4 runs");
	ok(!ret && !empty, "written");
	q.limit = 2;
	is_int(query_lines(s, &q, "csv", 0, &empty, &ret, &err), 3, "--limit 2: 2 runs");
	is_int(query_lines(s, &q, "csv", 1, &empty, &ret, &err), 3,
	       "--ranks --limit 2: 2 rows, the ranks' job counted once");
	q.limit = 0;
	is_int(query_lines(s, &q, "csv", 1, &empty, &ret, &err), 4,
	       "--ranks: the job of two ranks is one row");
	q.branch = "none";
	is_int(query_lines(s, &q, NULL, 0, &empty, &ret, &err), 0, "no run: no table");
	ok(!ret && empty, "and it says it was empty");
	q.branch = NULL;
	query_lines(s, &q, "xml", 0, &empty, &ret, &err);
	ok(ret == TK_EUSAGE && !strcmp(err.msg, "unknown format 'xml' (use table, csv or json)"),
	   "an unknown format: %s", err.msg);
	tk_store_close(s);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "rm -rf '%s'", dir);
	if (system(path.buf))
		diag("cannot remove the test directory");
	tk_buf_release(&path);
}

int main(void)
{
	test_csv_fields();
	test_table();
	test_sinks();
	test_write_query();
	return done_testing();
}
