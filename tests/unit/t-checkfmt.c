/*
 * core/pages/checkfmt: the three outputs of one result (text lines, markdown table, JSON
 * document read back).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pages/checkfmt.h"
#include "tests/unit/tap.h"

static char *render(enum tk_checkfmt fmt, const struct tk_check_result *r, int history)
{
	struct tk_err err = TK_ERR_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (tk_checkfmt_write(f, fmt, r, 1, history, &err))
		diag(err.msg);
	fclose(f);
	return text;
}

int main(void)
{
	struct tk_check_result r;
	struct tk_check_metric m[2];
	struct tk_check_run cur, base[10];
	struct tk_check_change ch;
	json_t *doc, *met, *cp;
	char *s;

	memset(&r, 0, sizeof(r));
	memset(m, 0, sizeof(m));
	memset(&cur, 0, sizeof(cur));
	memset(&ch, 0, sizeof(ch));
	r.key = "amip|<b>";
	r.branch = "feature";
	r.baseline_branch = "main";
	strcpy(cur.id, "8c1d2e3f-0000-4000-8000-000000000001");
	cur.branch = "feature";
	cur.build = "14";
	cur.commit = "0123456789abcdef";
	r.current = &cur;
	r.nr_current = 1;
	memset(base, 0, sizeof(base));
	r.base = base;
	r.nr_base = 10;
	r.metrics = m;
	r.nr_metrics = 2;
	m[0].metric = TK_METRIC_WALLTIME;
	m[0].nr_values = 1;
	m[0].result.verdict = TK_VERDICT_REGRESSION;
	m[0].result.n = 10;
	m[0].result.base_median = 100;
	m[0].result.base_spread = 0.015;
	m[0].result.current = 121;
	m[0].result.delta_pct = 21;
	m[0].result.statistic = 12.04;
	m[0].result.threshold = 3.14;
	m[0].result.method = "interval";
	ch.cp.index = 20;
	ch.cp.before = 100;
	ch.cp.after = 115;
	strcpy(ch.first.id, "8c1d2e3f-0000-4000-8000-000000000002");
	ch.first.build = "25";
	ch.first.commit = "c25";
	ch.last_before.build = "24";
	ch.last_before.commit = "c24";
	m[0].changes = &ch;
	m[0].nr_changes = 1;
	m[1].metric = TK_METRIC_MAXRSS;
	m[1].result.verdict = TK_VERDICT_INSUFFICIENT;
	m[1].result.method = "interval";
	m[1].note = "the current run has no such figure";

	s = render(TK_CHECKFMT_TEXT, &r, 1);
	ok(strstr(s, "amip|<b>: feature #14 0123456789 (run 8c1d2e3f) against 10 runs of main\n") != NULL,
	   "text: the header line");
	ok(strstr(s, "regression") && strstr(s, "1m 40s ±1.5%") && strstr(s, "2m 01s") &&
	   strstr(s, "+21.0%") && strstr(s, "t 12.04 > 3.14 (interval)"), "text: the walltime line");
	ok(strstr(s, "insufficient data") && strstr(s, "the current run has no such figure"),
	   "text: the maxrss line and its note");
	ok(strstr(s, "#25") && strstr(s, "c24..c25") && strstr(s, "+15.0%"), "text: the change point");
	free(s);

	s = render(TK_CHECKFMT_MARKDOWN, &r, 1);
	ok(strstr(s, "| amip&#124;&lt;b&gt; | walltime | **regression** | 1m 40s ±1.5% | 2m 01s | "
		  "+21.0% | t 12.04 > 3.14 (interval) |  |\n") != NULL, "markdown: the walltime row");
	ok(!strstr(s, "<b>"), "markdown: no raw HTML from the key");
	free(s);

	s = render(TK_CHECKFMT_JSON, &r, 1);
	doc = json_loads(s, 0, NULL);
	ok(doc != NULL, "json: parses");
	is_str(json_string_value(json_object_get(doc, "format")), "tracker-check", "json: format");
	is_str(json_string_value(json_object_get(doc, "verdict")), "regression", "json: worst verdict");
	met = json_array_get(json_object_get(json_array_get(json_object_get(doc, "results"), 0),
					     "metrics"), 0);
	ok(json_real_value(json_object_get(met, "current")) == 121 &&
	   json_real_value(json_object_get(met, "threshold")) == 3.14, "json: the figures");
	cp = json_array_get(json_object_get(met, "changepoints"), 0);
	is_str(json_string_value(json_object_get(cp, "build")), "25", "json: the change's build");
	is_str(json_string_value(json_object_get(cp, "commit_before")), "c24",
	       "json: the commit before it");
	met = json_array_get(json_object_get(json_array_get(json_object_get(doc, "results"), 0),
					     "metrics"), 1);
	ok(json_is_null(json_object_get(met, "statistic")) &&
	   json_is_null(json_object_get(met, "current")), "json: insufficient has nulls");
	is_int(json_array_size(json_object_get(json_array_get(json_object_get(doc, "results"), 0),
					       "baseline")), 10, "json: the baseline runs");
	json_decref(doc);
	free(s);
	return done_testing();
}
