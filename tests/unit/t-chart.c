/*
 * core/pages/chart.h: the walk that draws a chart once for every painter.
 * A painter that records what it is told: groups nest and close, each
 * chart has one plot area, in the order the pictures paint; the title is
 * cut where the painter's fit says, with an ellipsis; the legend has the
 * same entries whatever a painter measures; a run both failed and
 * partial gets both halos, and a run of another pipeline none; every
 * text is valid UTF-8 (hostile bytes as \xNN); a chart without values
 * says so in the middle of its area.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/utf8.h"
#include "core/pages/chart.h"
#include "core/pages/histplot.h"
#include "tests/unit/plot-history.h"
#include "tests/unit/tap.h"

#define LONG_KEY "a key whose name is long enough to be cut"

/* What a painter was told, one line a shape: "kind class ..." */
struct rec {
	struct tk_buf log;
	struct tk_buf texts;  /* each text, one a line */
	double wide;          /* measure: the estimate times this */
	size_t fit;           /* fit's answer; 0: all of it */
	int depth, max_depth, unbalanced, bad_utf8;
	size_t clips, dots_failed, dots_partial;
	double omitted_y;     /* the line naming charts left out; 0: none */
	int in_xt, xt_overlap; /* in the x ticks' group; two of its labels overlap */
	double xt_right;      /* the right end of the last x tick label */
	size_t xt_labels, thresholds, verdicts;
};

static const char *cls_of(const char *c)
{
	return c ? c : "-";
}

static size_t rec_fit(void *ctx, const char *s, double size, double width)
{
	struct rec *r = ctx;

	(void)size;
	(void)width;
	return r->fit ? r->fit : strlen(s);
}

static double rec_measure(void *ctx, const char *s, double size)
{
	struct rec *r = ctx;

	return r->wide * tk_chart_text_estimate(s, size);
}

static void rec_begin(void *ctx, double width, double height, uint32_t bg)
{
	struct rec *r = ctx;

	tk_buf_addf(&r->log, "begin %g %g %06x\n", width, height, (unsigned)bg);
}

static void rec_end(void *ctx)
{
	struct rec *r = ctx;

	r->unbalanced |= r->depth != 0;
	tk_buf_adds(&r->log, "end\n");
}

static void rec_group(void *ctx, const struct tk_chart_group *g)
{
	struct rec *r = ctx;

	if (++r->depth > r->max_depth)
		r->max_depth = r->depth;
	r->clips += g->clip != NULL;
	if (g->cls && !strcmp(g->cls, "xt")) {
		r->in_xt = r->depth;
		r->xt_right = -1e9;
	}
	tk_buf_addf(&r->log, "group %s %s%s\n", cls_of(g->cls), g->id ? g->id : "-",
		    g->clip ? " clip" : "");
}

static void rec_group_end(void *ctx)
{
	struct rec *r = ctx;

	if (r->in_xt == r->depth)
		r->in_xt = 0;
	r->unbalanced |= --r->depth < 0;
	tk_buf_adds(&r->log, "group_end\n");
}

static void rec_rect(void *ctx, const struct tk_chart_rect *rc, const struct tk_chart_paint *p)
{
	struct rec *r = ctx;

	(void)rc;
	r->thresholds += p->cls && !strcmp(p->cls, "s-threshold");
	tk_buf_addf(&r->log, "rect %s\n", cls_of(p->cls));
}

static void rec_line(void *ctx, double x1, double y1, double x2, double y2,
		     const struct tk_chart_paint *p)
{
	struct rec *r = ctx;

	(void)x1, (void)y1, (void)x2, (void)y2;
	tk_buf_addf(&r->log, "line %s\n", cls_of(p->cls));
}

static void rec_circle(void *ctx, double x, double y, double rad, const struct tk_chart_paint *p)
{
	struct rec *r = ctx;

	(void)x, (void)y;
	tk_buf_addf(&r->log, "circle %s %g\n", cls_of(p->cls), rad);
}

static void rec_polyline(void *ctx, const struct tk_chart_points *pts,
			 const struct tk_chart_paint *p)
{
	struct rec *r = ctx;

	tk_buf_addf(&r->log, "polyline %s %zu\n", cls_of(p->cls), pts->n);
}

static void rec_area(void *ctx, const struct tk_chart_points *top,
		     const struct tk_chart_points *bottom, const struct tk_chart_paint *p)
{
	struct rec *r = ctx;

	tk_buf_addf(&r->log, "area %s %zu %zu\n", cls_of(p->cls), top->n, bottom->n);
}

static void rec_dots(void *ctx, const struct tk_chart_points *pts, double rad,
		     const struct tk_chart_paint *p)
{
	struct rec *r = ctx;

	if (p->cls && !strcmp(p->cls, "s-failed"))
		r->dots_failed += pts->n;
	if (p->cls && !strcmp(p->cls, "s-partial"))
		r->dots_partial += pts->n;
	tk_buf_addf(&r->log, "dots %s %zu %g\n", cls_of(p->cls), pts->n, rad);
}

static void rec_text(void *ctx, const struct tk_chart_text *t)
{
	struct rec *r = ctx;

	r->bad_utf8 |= !tk_utf8_valid(t->s, strlen(t->s));
	if (t->cls && !strcmp(t->cls, "omitted"))
		r->omitted_y = t->y;
	if (t->cls && strstr(t->cls, "verdict"))
		r->verdicts++;
	if (r->in_xt) {
		/* x tick labels are centred on their x */
		double w = rec_measure(r, t->s, t->size);

		r->xt_overlap |= t->x - w / 2 < r->xt_right;
		r->xt_right = t->x + w / 2;
		r->xt_labels++;
	}
	tk_buf_addf(&r->log, "text %s%s\n", cls_of(t->cls), isnan(t->follow) ? "" : " follows");
	tk_buf_addf(&r->texts, "%s\n", t->s);
}

static void record(const struct tk_plot_layout *l, struct rec *r, double wide, size_t fit)
{
	const struct tk_chart_painter p = {
		r, rec_fit, rec_measure, rec_begin, rec_end, rec_group, rec_group_end,
		rec_rect, rec_line, rec_circle, rec_polyline, rec_area, rec_dots, rec_text,
	};

	memset(r, 0, sizeof(*r));
	tk_buf_init(&r->log, 0);
	tk_buf_init(&r->texts, 0);
	r->wide = wide;
	r->fit = fit;
	tk_chart_draw(l, &p);
}

static void rec_release(struct rec *r)
{
	tk_buf_release(&r->log);
	tk_buf_release(&r->texts);
}

static void lay_out(struct tk_plot_data *d, struct tk_plot_layout *l, enum tk_metric m,
		    double width)
{
	struct tk_plot_opts o;
	struct tk_err err = TK_ERR_INIT;

	memset(&o, 0, sizeof(o));
	o.width = width;
	o.metrics[0] = m;
	o.nr_metrics = 1;
	if (tk_plot_layout(d, &o, l, &err))
		diag(err.msg);
}

static void test_shapes(void)
{
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct rec r;
	const char *log, *area, *area_end;

	plot_history(&d, &(struct plot_history){ .key = LONG_KEY, .branch2 = "feature",
						  .partial = 1 });
	lay_out(&d, &l, TK_METRIC_WALLTIME, 0);
	record(&l, &r, 1, 0);
	log = r.log.buf;
	ok(!r.unbalanced && r.depth == 0 && r.max_depth == 2, "groups nest two deep and close");
	is_int(r.clips, 1, "one plot area");
	ok(!strncmp(log, "begin 1000 ", 11) && strstr(log, "group chart chart0\n") &&
	   strstr(log, "group zoom clip0 clip\n"), "the picture, the chart, its area");
	area = strstr(log, "group zoom");
	area_end = area ? strstr(area, "group_end\n") : NULL;
	ok(area && area_end && strstr(area, "area s-band ") < strstr(area, "polyline s-base ") &&
	   strstr(area, "polyline s-base ") < strstr(area, "polyline s-band ") &&
	   strstr(area, "polyline s-band ") < strstr(area, "dots s-failed ") &&
	   strstr(area, "dots s-failed ") < strstr(area, "dots s-base ") &&
	   strstr(area, "dots s-base ") < strstr(area, "line s-change") &&
	   strstr(area, "line s-change") < area_end,
	   "band, line, median, halos, dots and change lines in the plot area, in order");
	ok(area_end && strstr(area_end, "text s-change zx change follows\n"),
	   "after it, the change labels, which follow the zoom");
	is_int(r.dots_failed, 1, "the failed run has a failed halo");
	is_int(r.dots_partial, 2, "it and the partial run have a partial halo");
	ok(strstr(r.texts.buf, "baseline staging (39)\nmedian \xc2\xb1 spread\n"
		   "other branches (1)\nnewest run\nfailed (1)\npartial (2)\nchange points (1)\n")
	   != NULL, "the legend's entries");
	rec_release(&r);
	record(&l, &r, 1, 10);
	ok(!strncmp(r.texts.buf, "a key whos\xe2\x80\xa6\n", 14), "the title cut where fit says");
	rec_release(&r);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);

	/* a key the data's pipeline never ran: its runs of another are kept,
	 * and only failed and partial ones get a halo */
	plot_history(&d, &(struct plot_history){ .branch2 = "feature", .pipeline = "elsewhere",
						  .partial = 1 });
	lay_out(&d, &l, TK_METRIC_WALLTIME, 0);
	record(&l, &r, 1, 0);
	ok(l.charts[0].npts == 41 && r.dots_failed == 1 && r.dots_partial == 2,
	   "a run of another pipeline has no halo");
	rec_release(&r);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);
}

/* The legend's entries are chosen by the estimate, the same in every
 * format; only where they go follows the painter's measure. */
static void test_legend_same(void)
{
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct rec narrow, wide;
	const char *a = "a-machine-class-with-a-long-name-to-fill-the-legend-row";
	const char *b = "another-machine-class-with-a-long-name";

	plot_history(&d, &(struct plot_history){ .branch2 = "feature", .cls_odd = a,
						  .cls_even = b });
	lay_out(&d, &l, TK_METRIC_WALLTIME, 300);
	is_int(l.charts[0].nseries, 2, "two series");
	record(&l, &narrow, 0.5, 0);
	record(&l, &wide, 3, 0);
	ok(narrow.texts.len == wide.texts.len && !strcmp(narrow.texts.buf, wide.texts.buf) &&
	   !strcmp(narrow.log.buf, wide.log.buf), "the same shapes and texts for any measure");
	ok(strstr(wide.texts.buf, "and 2 more\n") != NULL,
	   "a narrow chart has no room for either series");
	rec_release(&narrow);
	rec_release(&wide);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);
}

static void test_hostile(void)
{
	static const char hostile[] = "<b>x</b>&\"'\x01\xff\xc3";
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct rec r;
	const struct tk_plot_chart *c;

	plot_history(&d, &(struct plot_history){ .branch2 = hostile, .cls_odd = hostile,
						  .cls_even = "cpu", .partial = 1 });
	lay_out(&d, &l, TK_METRIC_WALLTIME, 0);
	record(&l, &r, 1, 0);
	ok(!r.bad_utf8, "every text is valid UTF-8");
	ok(strstr(r.texts.buf, "<b>x</b>&\"'\\x01\\xff\\xc3") != NULL,
	   "controls and hostile bytes as \\xNN, the markup for the painter to escape");
	rec_release(&r);
	tk_plot_layout_release(&l);

	/* no run has a slurm MaxRSS: no empty frame with an epoch axis, one
	 * line saying what has no values */
	lay_out(&d, &l, TK_METRIC_SLURM_MAXRSS, 0);
	record(&l, &r, 1, 0);
	ok(l.nr == 0 && l.omitted && strstr(l.omitted, "no values: ") &&
	   strstr(r.texts.buf, l.omitted) && r.omitted_y == l.height - 8,
	   "no values: no chart, one line saying so");
	(void)c;
	rec_release(&r);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);
}

/* The current run carries its verdict, its threshold is a band, and the
 * x tick labels never overlap, at every width the report and the
 * command use. */
static void test_verdict_and_ticks(void)
{
	static const double widths[] = { 300, 640, 1000, 1600 };
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct rec r;
	size_t i;

	plot_history(&d, &(struct plot_history){ 0 });
	/* a chart of the busiest branch, which check would not judge with */
	lay_out(&d, &l, TK_METRIC_WALLTIME, 0);
	ok(l.charts[0].verdict_label &&
	   !strcmp(l.charts[0].verdict_label, "no verdict: no baseline branch (--baseline-branch)") &&
	   !(l.charts[0].thr_x1 > l.charts[0].thr_x0), "no baseline branch: no verdict, no band");
	tk_plot_layout_release(&l);
	d.keys[0].baseline = "staging"; /* as tk_plot_data_baselines sets it */
	for (i = 0; i < sizeof(widths) / sizeof(widths[0]); i++) {
		lay_out(&d, &l, TK_METRIC_WALLTIME, widths[i]);
		record(&l, &r, 1, 0);
		ok(!r.xt_overlap && r.xt_labels >= 2, "%.0f px: %zu x tick labels, none overlapping",
		   widths[i], r.xt_labels);
		ok(r.verdicts == 1 && r.thresholds == 1 && l.charts[0].verdict_label &&
		   strstr(l.charts[0].verdict_label, "% no change (threshold +"),
		   "%.0f px: the current run's verdict, its threshold as a band: %s", widths[i],
		   l.charts[0].verdict_label ? l.charts[0].verdict_label : "none");
		rec_release(&r);
		tk_plot_layout_release(&l);
	}
	/* the baseline's first runs have no band: it starts at the 5th */
	lay_out(&d, &l, TK_METRIC_WALLTIME, 0);
	ok(l.charts[0].nband + 4 == l.charts[0].series[0].count - 1,
	   "the band starts at the baseline's 5th successful run (%zu of %zu)",
	   l.charts[0].nband, l.charts[0].series[0].count);
	tk_plot_layout_release(&l);
	tk_plot_data_release(&d);
}

int main(void)
{
	test_shapes();
	test_verdict_and_ticks();
	test_legend_same();
	test_hostile();
	return done_testing();
}
