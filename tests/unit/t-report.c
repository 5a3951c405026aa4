/*
 * core/pages/report: file names, the markdown table and its size limit, the OpenMetrics text,
 * styles and artifact prefixes; on hand-made reports (tk_report_build is
 * tested end to end by tests/t7200-report.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/pages/report.h"
#include "core/pages/reportmd.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static void add_key(struct tk_report *r, const char *key, enum tk_verdict v, double wall,
		    double base)
{
	struct tk_report_key *k;
	struct tk_buf name = TK_BUF_INIT;

	TK_ALLOC_GROW(r->keys, r->nr + 1, r->alloc);
	k = &r->keys[r->nr++];
	memset(k, 0, sizeof(*k));
	k->key = tk_xstrdup(key);
	tk_report_file_name(key, &name);
	k->name = tk_buf_detach(&name, NULL);
	k->verdict = v;
	k->wall.verdict = v;
	k->wall.current = wall;
	k->wall.base_median = base;
	k->wall.delta_pct = base > 0 ? (wall / base - 1) * 100 : 0;
	k->wall.n = 10;
	k->rss.verdict = TK_VERDICT_NO_CHANGE;
	k->rss.current = 1 << 30;
	k->rss.base_median = -1;
	k->has_chart = 1;
	r->count[v]++;
}

int main(void)
{
	struct tk_report r;
	struct tk_buf b = TK_BUF_INIT;
	char *cwd;
	size_t i;

	tk_report_file_name("amip", &b);
	ok(!strncmp(b.buf, "amip-", 5) && strlen(b.buf) == 13, "file name of amip (%s)", b.buf);
	tk_buf_reset(&b);
	tk_report_file_name("../../etc/passwd", &b);
	ok(!strchr(b.buf, '/') && b.buf[0] != '.', "no path in a file name (%s)", b.buf);
	tk_buf_reset(&b);
	tk_report_file_name("-rf", &b);
	ok(b.buf[0] != '-' && !strncmp(b.buf, "_rf-", 4),
	   "a key starting with - makes no file name that reads as an option (%s)", b.buf);
	tk_buf_reset(&b);
	tk_report_file_name("", &b);
	ok(b.buf[0] != '-', "nor does an empty key (%s)", b.buf);
	{
		struct tk_buf c = TK_BUF_INIT;

		tk_report_file_name("a b", &c);
		tk_buf_reset(&b);
		tk_report_file_name("a_b", &b);
		ok(strcmp(b.buf, c.buf), "two keys that reduce alike differ (%s, %s)", b.buf,
		   c.buf);
		tk_buf_release(&c);
	}

	tk_report_init(&r);
	r.build = tk_xstrdup("412");
	r.branch = tk_xstrdup("feature|x");
	add_key(&r, "beta", TK_VERDICT_REGRESSION, 190.5, 94);
	add_key(&r, "alpha", TK_VERDICT_NO_CHANGE, 100, 100.5);
	is_str(tk_report_style(&r), "error", "a regression: style error");
	is_int(tk_report_worst(&r), TK_VERDICT_REGRESSION, "worst: regression");

	tk_buf_reset(&b);
	tk_report_markdown(&r, TK_REPORT_LINKS_FILES, NULL, 0, &b);
	ok(strstr(b.buf, "### tracker: performance of build 412 on feature&#124;x\n") != NULL,
	   "title with the escaped branch");
	ok(strstr(b.buf, "| beta | 3m 11s | **+102.7%** (1m 34s, 10 runs) | 1.00 GiB | "
		   "no baseline | **regression** | [history](beta-") != NULL,
	   "the regression's row");
	ok(!strstr(b.buf, "artifact://") && !strstr(b.buf, "!["), "files: no artifact links");

	tk_buf_reset(&b);
	tk_report_markdown(&r, TK_REPORT_LINKS_ARTIFACTS, "/out dir/rep/", 0, &b);
	ok(strstr(b.buf, "[history](artifact://out%20dir/rep/beta-") != NULL,
	   "artifact links, prefix percent-encoded");
	ok(strstr(b.buf, "[![history of beta](artifact://out%20dir/rep/beta-") != NULL,
	   "the regression's chart inline");
	ok(strstr(b.buf, "<details><summary>History charts of the other keys</summary>") &&
	   strstr(b.buf, "</details>\n"), "the others collapsed");

	tk_buf_reset(&b);
	tk_report_markdown(&r, TK_REPORT_LINKS_ARTIFACTS, "/", 0, &b);
	ok(strstr(b.buf, "[history](artifact://beta-") != NULL, "a prefix of only / is none");

	tk_buf_reset(&b);
	tk_report_markdown(&r, TK_REPORT_LINKS_NONE, NULL, 0, &b);
	ok(!strstr(b.buf, "](") && strstr(b.buf, "| **regression** |  |\n"), "no links at all");

	/* many keys: the limit holds, regressions stay */
	for (i = 0; i < 3000; i++) {
		char key[64];

		snprintf(key, sizeof(key), "key-%04zu-<<<<<<<<<<<<<<<<", i);
		add_key(&r, key, TK_VERDICT_NO_CHANGE, 10, 10);
	}
	tk_buf_reset(&b);
	tk_report_markdown(&r, TK_REPORT_LINKS_ARTIFACTS, "rep", 100000, &b);
	ok(b.len <= 100000, "100000 bytes at most (%zu)", b.len);
	ok(strstr(b.buf, "| beta |") != NULL, "the regression is kept");
	ok(strstr(b.buf, "rows are not shown: the text is limited to 100000 bytes") != NULL,
	   "and a note says what is missing");
	tk_buf_reset(&b);
	tk_report_markdown(&r, TK_REPORT_LINKS_FILES, NULL, 0, &b);
	ok(b.len > 300000 && !strstr(b.buf, "not shown"), "without a limit, every row");

	tk_buf_reset(&b);
	tk_report_metrics(&r, &b);
	ok(strstr(b.buf, "tracker_walltime_seconds{key=\"beta\"} 190.5\n") &&
	   strstr(b.buf, "tracker_walltime_baseline_seconds{key=\"beta\"} 94\n") &&
	   !strstr(b.buf, "tracker_maxrss_baseline_bytes{key=\"beta\"}") &&
	   !strcmp(b.buf + b.len - 6, "# EOF\n"), "OpenMetrics lines");
	tk_report_release(&r);

	tk_report_init(&r);
	add_key(&r, "a\"b\\c", TK_VERDICT_INSUFFICIENT, 1, -1);
	is_str(tk_report_style(&r), "warning", "insufficient data: style warning");
	tk_buf_reset(&b);
	tk_report_metrics(&r, &b);
	ok(strstr(b.buf, "{key=\"a\\\"b\\\\c\"} 1\n") != NULL, "label values escaped");
	tk_report_release(&r);
	tk_report_init(&r);
	is_str(tk_report_style(&r), "warning", "nothing recorded: style warning");
	add_key(&r, "x", TK_VERDICT_NO_CHANGE, 1, 1);
	is_str(tk_report_style(&r), "success", "all fine: style success");
	tk_report_release(&r);

	tk_buf_reset(&b);
	is_int(tk_report_artifact_prefix("./tracker-artifacts/report", &b), 1, "relative: inside");
	is_str(b.buf, "tracker-artifacts/report", "./ dropped");
	cwd = getcwd(NULL, 0);
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s/perf/rep", cwd);
	{
		struct tk_buf p = TK_BUF_INIT;

		is_int(tk_report_artifact_prefix(b.buf, &p), 1, "under the working directory");
		is_str(p.buf, "perf/rep", "absolute under the working directory: relative");
		tk_buf_reset(&p);
		is_int(tk_report_artifact_prefix("/elsewhere/rep", &p), 0, "elsewhere: outside");
		is_str(p.buf, "elsewhere/rep", "elsewhere: without the leading /");
		tk_buf_release(&p);
	}
	free(cwd);
	tk_buf_release(&b);
	return done_testing();
}
