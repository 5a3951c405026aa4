/*
 * The outputs of tracker history (core/pages/histsink) and the text helpers
 * under them (core/base/table): known rows written as table, CSV and JSON into
 * memory, the CSV quoting and formula neutralizing, the job rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(void)
{
	test_csv_fields();
	test_table();
	test_sinks();
	return done_testing();
}
