/*
 * core/pages/histplot.h (and its writers: the walk of core/pages/chart.h
 * painted as SVG, PNG and PDF, and the page of core/pages/plothtml.h): date ticks and units; the layout of a synthetic
 * history (classes, the rolling median and band, the change point of a
 * 2x step, scales); SVG and HTML output that escapes hostile names and is
 * the same bytes twice; machine classes: a baseline series per class with
 * its own change points (a known answer: two classes taking turns, a 2x
 * step on one), one class drawn as none, thinning per class, and a
 * hostile class escaped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/pages/histplot.h"
#include "core/pages/plotwrite.h"
#include "tests/unit/plot-history.h"
#include "tests/unit/tap.h"

static double utc(int y, int mo, int d, int h)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	return (double)timegm(&tm);
}

static void test_date_ticks(void)
{
	double t[32];
	char *l[32];
	size_t n, i;

	/* a year: months */
	n = tk_plot_date_ticks(utc(2025, 11, 20, 0), utc(2026, 11, 20, 0), 9, t, l);
	ok(n >= 4 && n <= 9, "a year: %zu ticks", n);
	is_str(l[0], "Jan 2026", "a year ticks at quarters, starting Jan 2026");
	ok(t[0] == utc(2026, 1, 1, 0), "at the month's start");
	for (i = 0; i < n; i++)
		free(l[i]);
	/* two weeks: days or weeks (Mondays) */
	n = tk_plot_date_ticks(utc(2026, 3, 1, 12), utc(2026, 3, 15, 12), 8, t, l);
	ok(n >= 2 && n <= 8, "two weeks: %zu ticks", n);
	is_str(l[0], "Mar 2", "2026-03-02 is a Monday, the first week tick");
	for (i = 0; i < n; i++)
		free(l[i]);
	/* a day: hours */
	n = tk_plot_date_ticks(utc(2026, 3, 1, 0) + 600, utc(2026, 3, 1, 23), 9, t, l);
	ok(n >= 4, "a day: %zu ticks", n);
	is_str(l[0], "Mar 1 03:00", "hours with the time");
	for (i = 0; i < n; i++)
		free(l[i]);
	/* a first history: runs within 40 minutes */
	n = tk_plot_date_ticks(utc(2026, 3, 1, 9) + 100, utc(2026, 3, 1, 9) + 2500, 8, t, l);
	ok(n >= 2 && n <= 8, "40 minutes: %zu ticks", n);
	is_str(l[0], "Mar 1 09:15", "quarter hours with the time");
	for (i = 0; i < n; i++)
		free(l[i]);
	/* runs within one minute: ticks seconds apart, the time to the second */
	n = tk_plot_date_ticks(utc(2026, 3, 1, 9) + 10, utc(2026, 3, 1, 9) + 40, 8, t, l);
	ok(n >= 4 && n <= 8, "30 seconds: %zu ticks", n);
	is_str(l[0], "09:00:10", "the time to the second");
	for (i = 0; i < n; i++)
		free(l[i]);
	n = tk_plot_date_ticks(utc(2026, 3, 1, 9) + 3, utc(2026, 3, 1, 9) + 43, 8, t, l);
	ok(n >= 4 && n <= 8, "40 seconds: %zu ticks", n);
	for (i = 0; i < n; i++)
		free(l[i]);
	/* within one second: named once */
	n = tk_plot_date_ticks(utc(2026, 3, 1, 9) + 10.2, utc(2026, 3, 1, 9) + 10.7, 8, t, l);
	is_int(n, 1, "half a second: one tick");
	is_str(l[0], "Mar 1 09:00", "naming the minute");
	for (i = 0; i < n; i++)
		free(l[i]);
	is_int(tk_plot_date_ticks(5, 1, 8, t, l), 0, "an empty range has no ticks");
}

static void test_units(void)
{
	double div;

	is_str(tk_plot_unit(TK_METRIC_WALLTIME, 90, &div), "s", "90 s in seconds");
	is_str(tk_plot_unit(TK_METRIC_WALLTIME, 0.0019, &div), "ms", "1.9 ms in ms");
	ok(div == 0.001, "a ms");
	is_str(tk_plot_unit(TK_METRIC_WALLTIME, 0.0004, &div), "\xc2\xb5s", "400 us in us");
	is_str(tk_plot_unit(TK_METRIC_WALLTIME, 1.5, &div), "s", "1.5 s in seconds");
	is_str(tk_plot_unit(TK_METRIC_WALLTIME, 600, &div), "min", "10 min in minutes");
	ok(div == 60, "a minute is 60 s");
	is_str(tk_plot_unit(TK_METRIC_WALLTIME, 3 * 3600, &div), "h", "3 h in hours");
	is_str(tk_plot_unit(TK_METRIC_MAXRSS, 500.0 * 1048576, &div), "MiB", "500 MiB");
	is_str(tk_plot_unit(TK_METRIC_TREE_RSS, 3.0 * 1073741824, &div), "GiB", "3 GiB");
	ok(div == 1073741824, "a GiB");
}

static void test_layout(void)
{
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct tk_plot_opts o;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_plot_chart *c;
	size_t i;

	plot_history(&d, &(struct plot_history){ .branch2 = "feature<x>" });
	is_int(d.nr, 1, "one key");
	is_int(d.keys[0].nr, 41, "41 runs");
	ok(d.keys[0].runs[0].started_at_us < d.keys[0].runs[40].started_at_us, "oldest first");
	memset(&o, 0, sizeof(o));
	is_int(tk_plot_layout(&d, &o, &l, &err), 0, "laid out");
	is_int(l.nr, 2, "walltime and maxrss by default");
	c = &l.charts[0];
	ok(c->metric == TK_METRIC_WALLTIME && l.charts[1].metric == TK_METRIC_MAXRSS, "in order");
	is_str(c->baseline, "staging", "the busiest branch is the baseline");
	is_int(c->count[TK_PLOT_BASELINE], 39, "39 baseline runs");
	is_int(c->count[TK_PLOT_CURRENT], 1, "the newest is current");
	is_int(c->count[TK_PLOT_OTHER], 1, "one run on another branch");
	is_int(c->nfailed, 1, "one failed run");
	is_int(c->nband, 34, "the band over the successful baseline runs from the 5th on");
	is_int(c->nchanges, 1, "one change point");
	if (c->nchanges) {
		is_int(d.keys[0].runs[c->changes[0].run].build, 130, "at build 130");
		ok(fabs(c->changes[0].after / c->changes[0].before - 2) < 0.05, "a 2x step");
		ok(strstr(c->changes[0].label, "#130 c000001e") != NULL, "labelled with build and commit: %s",
		   c->changes[0].label);
	}
	is_str(c->unit, "min", "up to 200 s: minutes");
	for (i = 1; i < c->npts; i++)
		if (c->pts[i].px < c->pts[i - 1].px)
			break;
	is_int(i, c->npts, "points by x");
	ok(c->pts[0].px >= c->x0 && c->pts[c->npts - 1].px <= c->x1, "inside the plot area");
	ok(c->band[c->nband - 1].mid < c->band[0].mid, "the median rose (smaller y)");
	tk_plot_layout_release(&l);

	o.x = TK_PLOT_X_BUILD;
	o.baseline_branch = "feature<x>";
	o.current_build = "121";
	o.metrics[0] = TK_METRIC_CPU;
	o.nr_metrics = 1;
	is_int(tk_plot_layout(&d, &o, &l, &err), 0, "by build, named baseline and current");
	is_int(l.nr, 1, "one metric");
	is_int(l.charts[0].count[TK_PLOT_BASELINE], 1, "the named baseline branch");
	is_int(l.charts[0].count[TK_PLOT_CURRENT], 1, "build 121 is current");
	is_str(l.current, "build #121", "named");
	ok(l.charts[0].xlo < 100 && l.charts[0].xhi > 140, "the x axis spans the builds");
	tk_plot_layout_release(&l);

	/* a CI build that ran no run of the key (a scheduled plotting step):
	 * the key's newest run is current, as tracker check judges it */
	o.current_build = "999";
	is_int(tk_plot_layout(&d, &o, &l, &err), 0, "a build without a run of the key");
	is_int(l.charts[0].count[TK_PLOT_CURRENT], 1, "its newest run is current");
	is_int(d.keys[0].runs[d.keys[0].nr - 1].cls, TK_PLOT_CURRENT, "the newest run");
	is_str(l.current, "newest run", "and the legend says so");
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);

	tk_plot_data_init(&d);
	memset(&o, 0, sizeof(o));
	ok(tk_plot_layout(&d, &o, &l, &err) == TK_EDATA, "no runs: TK_EDATA");
	tk_plot_data_release(&d);
}

static char *render(struct tk_plot_layout *l, enum tk_plot_format f, size_t *len)
{
	struct tk_err err = TK_ERR_INIT;
	char *mem = NULL;
	FILE *fp = open_memstream(&mem, len);

	if (tk_plot_write(l, f, "index.html", fp, &err))
		diag(err.msg);
	fclose(fp);
	return mem;
}

static void test_render(void)
{
	static const char hostile[] = "<script>x</script>&\"'\x01\xff";
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct tk_plot_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;
	char *svg, *svg2, *html;
	size_t len, len2, hlen;
	enum tk_plot_format f;

	plot_history(&d, &(struct plot_history){ .branch2 = hostile });
	memset(&o, 0, sizeof(o));
	tk_plot_layout(&d, &o, &l, &err);
	svg = render(&l, TK_PLOT_SVG, &len);
	svg2 = render(&l, TK_PLOT_SVG, &len2);
	ok(len == len2 && !memcmp(svg, svg2, len), "the same bytes twice");
	ok(strstr(svg, "change at #130") != NULL, "the change point in the SVG");
	ok(!strstr(svg, "<script"), "no markup from names in the SVG");
	html = render(&l, TK_PLOT_HTML, &hlen);
	ok(strstr(html, "\\u003cscript\\u003ex\\u003c/script\\u003e\\u0026\\\"'\\\\x01\\\\xff") != NULL,
	   "the hostile branch escaped in the page's JSON, its control and stray bytes as \\xNN");
	ok(strstr(html, "href=\"index.html\"") != NULL, "the link back");
	free(svg);
	free(svg2);
	free(html);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);

	tk_buf_release(&b);

	ok(!tk_plot_format_of("a.PNG", &f, NULL) && f == TK_PLOT_PNG, ".PNG");
	ok(!tk_plot_format_of("x/y.html", &f, NULL) && f == TK_PLOT_HTML, ".html");
	ok(tk_plot_format_of("a.gif", &f, NULL) == TK_EUSAGE, ".gif is no plot format");
}

/* Noise of about 2%, the same every time: a sum of uniforms from an LCG. */
static double noise(unsigned *st)
{
	double u = 0;
	int i;

	for (i = 0; i < 12; i++) {
		*st = *st * 1103515245u + 12345u;
		u += (double)(*st >> 8 & 0xffff) / 65536.0;
	}
	return 1 + 0.02 * (u - 6);
}

/*
 * n (class_history: 120) staging builds 1..n taking turns on two machine
 * classes (odd builds on cls_a at 1.0 s, even ones on cls_b at 1.6 s),
 * 2% noise, and a real 2x step from build 3n/4 (90) on cls_a only. NULL
 * classes: none.
 */
static void class_history_n(struct tk_plot_data *d, const char *cls_a, const char *cls_b, int n)
{
	struct tk_run_summary s;
	char id[64], build[32];
	unsigned st = 7;
	int i;

	tk_plot_data_init(d);
	for (i = n; i >= 1; i--) {
		int a = i % 2;

		memset(&s, 0, sizeof(s));
		snprintf(id, sizeof(id), "00000000-0000-4000-8000-%012d", i);
		snprintf(build, sizeof(build), "%d", i);
		s.run_id = id;
		s.key = "amip";
		s.branch = "staging";
		s.build_number = build;
		s.started_at_us = (int64_t)(1767225600 + i * 3600) * 1000000;
		s.walltime_s = (a ? 1.0 : 1.6) * (a && i >= n * 3 / 4 ? 2 : 1) * noise(&st);
		s.maxrss_bytes = 1000000000;
		s.tree_rss_bytes = -1;
		s.cgroup_peak_bytes = -1;
		s.status = TK_RUN_OK;
		s.rank = -1;
		s.ntasks = -1;
		s.machine_class = a ? cls_a : cls_b;
		tk_plot_data_add(&s, d);
	}
	tk_plot_data_finish(d);
}

static void class_history(struct tk_plot_data *d, const char *cls_a, const char *cls_b)
{
	class_history_n(d, cls_a, cls_b, 120);
}

static void test_classes(void)
{
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct tk_plot_opts o;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_plot_chart *c;
	size_t i;

	memset(&o, 0, sizeof(o));
	o.metrics[0] = TK_METRIC_WALLTIME;
	o.nr_metrics = 1;
	class_history(&d, "cpu-large", "cpu-small");
	is_int(tk_plot_layout(&d, &o, &l, &err), 0, "two machine classes: laid out");
	c = &l.charts[0];
	is_int(c->nseries, 2, "two baseline series");
	if (c->nseries == 2) {
		is_str(c->series[0].machine_class, "cpu-large", "the class with most runs first");
		is_str(c->series[0].label, "staging \xc2\xb7 cpu-large", "labelled branch and class");
		is_int(c->series[0].count, 60, "60 runs on cpu-large");
		is_int(c->series[1].count, 59, "59 on cpu-small (and the newest, current)");
		is_int(c->series[0].nband + c->series[1].nband, c->nband, "a band per series");
	}
	is_int(c->nchanges, 1, "exactly one change point");
	if (c->nchanges) {
		double b = d.keys[0].runs[c->changes[0].run].build;

		ok(b >= 89 && b <= 91, "at build 90 (+-1): %g", b);
		is_int(c->changes[0].series, 0, "on cpu-large's series");
		ok(fabs(c->changes[0].after / c->changes[0].before - 2) < 0.1, "a 2x step");
		ok(strstr(c->changes[0].label, " on cpu-large") != NULL, "the label names the class: %s",
		   c->changes[0].label);
	}
	for (i = 0; i < c->npts; i++)
		if (c->pts[i].cls == TK_PLOT_BASELINE &&
		    strcmp(d.keys[0].runs[c->pts[i].run].machine_class,
			   c->series[c->pts[i].series].machine_class))
			break;
	is_int(i, c->npts, "each baseline point in its class's series");
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);

	/* the same runs without classes: one series, whose change points
	 * come from the mix */
	class_history(&d, NULL, NULL);
	tk_plot_layout(&d, &o, &l, &err);
	c = &l.charts[0];
	is_int(c->nseries, 1, "no classes: one series");
	ok(c->nchanges != 1 || fabs(d.keys[0].runs[c->changes[0].run].build - 90) > 1,
	   "the mixed series does not find the step alone (%zu changes)", c->nchanges);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);

	/* "" is no class, as NULL */
	class_history(&d, "", NULL);
	tk_plot_layout(&d, &o, &l, &err);
	is_int(l.charts[0].nseries, 1, "an empty class is no class");
	is_str(l.charts[0].series[0].label, "staging", "one series: the branch alone");
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);
}

/* One class throughout draws the same bytes as no class, in SVG, PNG
 * and PDF. */
static void test_one_class_unchanged(void)
{
	static const enum tk_plot_format fmts[] = { TK_PLOT_SVG, TK_PLOT_PNG, TK_PLOT_PDF };
	struct tk_plot_data d1, d2;
	struct tk_plot_layout l1, l2;
	struct tk_plot_opts o;
	struct tk_err err = TK_ERR_INIT;
	size_t i, n1, n2;

	memset(&o, 0, sizeof(o));
	class_history(&d1, NULL, NULL);
	class_history(&d2, "cpu-large", "cpu-large");
	tk_plot_layout(&d1, &o, &l1, &err);
	tk_plot_layout(&d2, &o, &l2, &err);
	for (i = 0; i < 3; i++) {
		char *a = render(&l1, fmts[i], &n1), *b = render(&l2, fmts[i], &n2);

		ok(n1 > 100 && n1 == n2 && !memcmp(a, b, n1), "one class: the same bytes as none (%s)",
		   i == 0 ? "svg" : i == 1 ? "png" : "pdf");
		free(a);
		free(b);
	}
	tk_plot_layout_release(&l1);
	tk_plot_layout_release(&l2);
	tk_plot_data_release(&d1);
	tk_plot_data_release(&d2);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* Thinning keeps, in each pixel column, each series' own lowest and
 * highest: two classes never share one column's three points. */
static void test_thin_classes(void)
{
	struct tk_plot_data d;
	struct tk_plot_layout full, thin;
	struct tk_plot_opts o;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_plot_chart *c, *t;
	size_t i, j, groups = 0, missing = 0, *kept;

	memset(&o, 0, sizeof(o));
	o.metrics[0] = TK_METRIC_WALLTIME;
	o.nr_metrics = 1;
	o.width = 300; /* 192 pixel columns for 4800 runs */
	class_history_n(&d, "cpu-large", "cpu-small", 4800);
	tk_plot_layout(&d, &o, &full, &err);
	o.max_points = 100;
	tk_plot_layout(&d, &o, &thin, &err);
	c = &full.charts[0];
	t = &thin.charts[0];
	ok(t->npts < c->npts, "thinned: %zu of %zu points", t->npts, c->npts);
	kept = tk_xmalloc((t->npts + 1) * sizeof(*kept));
	for (i = 0; i < t->npts; i++)
		kept[i] = t->pts[i].run;
	qsort(kept, t->npts, sizeof(*kept), cmp_size);
	for (i = 0; i < c->npts;) {
		double px = floor(c->pts[i].px);
		size_t lo[2] = { (size_t)-1, (size_t)-1 }, hi[2] = { (size_t)-1, (size_t)-1 }, s;

		for (j = i; j < c->npts && floor(c->pts[j].px) == px; j++) {
			const struct tk_plot_point *p = &c->pts[j];

			if (p->cls != TK_PLOT_BASELINE || p->flags || p->series > 1)
				continue;
			s = p->series;
			if (lo[s] == (size_t)-1 || p->py < c->pts[lo[s]].py)
				lo[s] = j;
			if (hi[s] == (size_t)-1 || p->py > c->pts[hi[s]].py)
				hi[s] = j;
		}
		for (s = 0; s < 2; s++) {
			size_t r;

			if (lo[s] == (size_t)-1)
				continue;
			groups++;
			r = c->pts[lo[s]].run;
			missing += !bsearch(&r, kept, t->npts, sizeof(*kept), cmp_size);
			r = c->pts[hi[s]].run;
			missing += !bsearch(&r, kept, t->npts, sizeof(*kept), cmp_size);
		}
		i = j;
	}
	ok(groups > 0 && !missing, "each column keeps each class's lowest and highest "
	   "(%zu groups, %zu missing)", groups, missing);
	for (i = 0; i < t->nseries; i++)
		for (j = t->series[i].band0; j < t->series[i].band0 + t->series[i].nband; j++)
			if (d.keys[0].runs[t->band[j].run].series != i)
				missing++;
	is_int(missing, 0, "each series' thinned band holds only its runs");
	free(kept);
	tk_plot_layout_release(&full);
	tk_plot_layout_release(&thin);
	tk_plot_data_release(&d);
}

/* A hostile machine class is text in the SVG and data in the page. */
static void test_hostile_class(void)
{
	static const char hostile[] = "<script>x</script>&\"'\x01\xff";
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct tk_plot_opts o;
	struct tk_err err = TK_ERR_INIT;
	char *svg, *html;
	size_t len, hlen;

	memset(&o, 0, sizeof(o));
	class_history(&d, hostile, "cpu-small");
	tk_plot_layout(&d, &o, &l, &err);
	is_int(l.charts[0].nseries, 2, "a hostile class is a series");
	svg = render(&l, TK_PLOT_SVG, &len);
	ok(!strstr(svg, "<script"), "no markup from the class in the SVG");
	ok(strstr(svg, "&lt;script&gt;x&lt;/script&gt;&amp;&quot;&#39;\\x01\\xff") != NULL,
	   "the class escaped in the legend, as a terminal shows it");
	html = render(&l, TK_PLOT_HTML, &hlen);
	ok(strstr(html, "\"classes\":[\"\\u003cscript\\u003ex\\u003c/script\\u003e\\u0026\\\"'\\\\x01\\\\xff\"")
	   != NULL, "the class escaped in the page's JSON");
	ok(strstr(html, "data-s=\"mc0\" id=\"t-mc0\" checked> &lt;script&gt;") != NULL,
	   "the class's toggle, escaped");
	free(svg);
	free(html);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);
}

int main(void)
{
	test_date_ticks();
	test_units();
	test_layout();
	test_render();
	test_classes();
	test_one_class_unchanged();
	test_thin_classes();
	test_hostile_class();
	return done_testing();
}
