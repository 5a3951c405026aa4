/*
 * History charts drawn once (core/pages/chart.h): the walk over a layout
 * that decides every shape, label and colour, for every painter.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyze/verdict.h"
#include "core/base/buf.h"
#include "core/base/escape.h"
#include "core/draw/canvas.h"
#include "core/pages/chart.h"
#include "core/pages/histplot.h"
#include "core/base/banned.h"

/* colours: 0xRRGGBB */
#define C_BASE 0x1f77b4
#define C_MEDIAN 0x08306b
#define C_OTHER 0xff7f0e
#define C_CURRENT 0xd4009b
#define C_RING 0x222222
#define C_FAILED 0xe31a1c
#define C_PARTIAL 0xf5a300
#define C_CHANGE 0x6a3d9a
#define C_GRID 0xdddddd
#define C_TEXT 0x000000
#define C_NOTE 0x777777
#define C_THRESHOLD 0x8a8a8a
#define C_REGRESSION 0xc00000
#define C_IMPROVEMENT 0x1a7f1a

#define TITLE_SIZE 15
#define LEGEND_SIZE 11
#define TEXT_SIZE 12

/* A baseline series' dots and band, and its median: series 0 in the
 * colours of a chart with one series, then others that neither the
 * other branches, the current run, halos nor change points use. */
static const uint32_t series_colour[][2] = {
	{ C_BASE, C_MEDIAN }, { 0x2ca02c, 0x145a14 }, { 0x8c564b, 0x4a2a22 },
	{ 0x17becf, 0x0b5f68 }, { 0x7f7f7f, 0x333333 }, { 0xbcbd22, 0x5c5d0a },
};
#define NR_SERIES_COLOURS (sizeof(series_colour) / sizeof(series_colour[0]))

/* A band is read in place as points of doubles (struct tk_chart_points). */
_Static_assert(sizeof(struct tk_plot_band) % sizeof(double) == 0, "a band is whole doubles");
#define BAND_STRIDE (sizeof(struct tk_plot_band) / sizeof(double))

static uint32_t series_rgb(size_t s, int dark)
{
	return series_colour[s % NR_SERIES_COLOURS][dark];
}

static int same_class(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

size_t tk_chart_classes(const struct tk_plot_layout *l, const char ***out)
{
	const struct tk_plot_data *d = l->data;
	const char **names = NULL, *last = NULL;
	size_t n = 0, alloc = 0, i, j, k;
	int any = 0;

	for (i = 0; i < d->nr; i++) {
		for (j = 0; j < d->keys[i].nr; j++) {
			const char *mc = d->keys[i].runs[j].machine_class;

			/* classes come in stretches, and mostly interned */
			if (any && mc == last)
				continue;
			any = 1;
			last = mc;
			for (k = 0; k < n && !same_class(names[k], mc); k++)
				;
			if (k == n) {
				TK_ALLOC_GROW(names, n + 1, alloc);
				names[n++] = mc;
			}
		}
	}
	*out = names;
	return n;
}

double tk_chart_text_estimate(const char *s, double size)
{
	/* the legend's text has always been spaced at 6.5 px a character */
	return (size == LEGEND_SIZE ? 6.5 : 0.62 * size) * (double)tk_xml_chars(s, strlen(s));
}

/* What one walk over a chart has at hand. */
struct walk {
	const struct tk_chart_painter *p;
	const struct tk_plot_layout *l;
	const struct tk_plot_chart *c;
	const char *const *names;  /* tk_chart_classes */
	size_t nnames;
	struct tk_buf cls, text;   /* scratch: a shape's classes, a label */
	double *xy;                /* scratch: points gathered, 2 per point */
	/* the legend so far */
	double lx;
	int row;
	/* the first row's width by the estimate (the same in every format),
	 * and its entries left out for want of room */
	double elx;
	size_t hidden;
};

/* At most max characters of s, then an ellipsis when some were left. */
static void add_cut(struct tk_buf *b, const char *s, size_t max)
{
	if (tk_canvas_add_utf8(b, s, strlen(s), max))
		tk_buf_adds(b, "\xe2\x80\xa6");
}

/* The page-wide index of series s of the chart among the page's classes. */
static size_t page_class(const struct walk *w, size_t s)
{
	const char *mc = w->c->series[s].machine_class;
	size_t k;

	for (k = 0; k < w->nnames; k++)
		if (same_class(w->names[k], mc))
			return k;
	return 0;
}

/* w->cls set to base, and " s-mc<j>" for series s when the chart has
 * several: the page's toggle of a machine class hides all of them. */
static const char *series_cls(struct walk *w, const char *base, size_t s)
{
	tk_buf_reset(&w->cls);
	tk_buf_adds(&w->cls, base);
	if (w->c->nseries > 1)
		tk_buf_addf(&w->cls, " s-mc%zu", page_class(w, s));
	return w->cls.buf;
}

static struct tk_chart_paint fill(const char *cls, uint32_t rgb, double opacity)
{
	return (struct tk_chart_paint){ cls, rgb, TK_CHART_NONE, opacity, 1, 1, { 0, 0 } };
}

static struct tk_chart_paint stroke(const char *cls, uint32_t rgb, double opacity, double width)
{
	return (struct tk_chart_paint){ cls, TK_CHART_NONE, rgb, 1, opacity, width, { 0, 0 } };
}

static void text(const struct walk *w, const char *s, const char *cls, double x, double y,
		 double size, enum tk_chart_anchor anchor, uint32_t colour)
{
	struct tk_chart_text t = { s, cls, x, y, size, anchor, colour, NAN };

	w->p->text(w->p->ctx, &t);
}

static void group(const struct walk *w, const char *cls, const char *id, double size,
		  const struct tk_chart_rect *clip)
{
	struct tk_chart_group g = { cls, id, size, clip };

	w->p->group(w->p->ctx, &g);
}

/* ---- the legend ---- */

enum swatch { SW_DOT, SW_BIG, SW_HALO, SW_BAND, SW_DASH, SW_NONE };

#define LEGEND_MAX 24
/* the legend may run into the right margin by this much, pixels */
#define MARGIN_R_ROOM 16

/* One entry, after those before it in its row: its swatch, then its
 * text. css: the page's class of what it explains (s-<css>); "": none. */
static void legend_item(struct walk *w, const char *css, enum swatch sw, uint32_t colour,
			const char *s, int row)
{
	const struct tk_chart_painter *p = w->p;
	const struct tk_plot_chart *c = w->c;
	double y = c->top + 24 + 12 + 16 * row;
	struct tk_chart_paint pt;

	if (row != w->row) {
		w->row = row;
		w->lx = c->x0;
	}
	tk_buf_reset(&w->cls);
	tk_buf_adds(&w->cls, "li");
	if (css[0])
		tk_buf_addf(&w->cls, " s-%s", css);
	group(w, w->cls.buf, NULL, LEGEND_SIZE, NULL);
	switch (sw) {
	case SW_NONE:
		w->lx -= 18;
		break;
	case SW_BAND: {
		struct tk_chart_rect r = { w->lx, y - 9, 14, 10 };

		pt = fill(NULL, colour, 0.25);
		pt.stroke = C_MEDIAN;
		p->rect(p->ctx, &r, &pt);
		break;
	}
	case SW_DASH:
		pt = stroke(NULL, colour, 1, 1);
		pt.dash[0] = 4;
		pt.dash[1] = 3;
		p->line(p->ctx, w->lx + 7, y - 11, w->lx + 7, y + 2, &pt);
		break;
	default:
		pt = fill(NULL, colour, sw == SW_HALO ? 0.6 : 1);
		p->circle(p->ctx, w->lx + 7, y - 4, sw == SW_BIG ? 5 : sw == SW_HALO ? 6 : 3, &pt);
		break;
	}
	text(w, s, NULL, w->lx + 18, y, LEGEND_SIZE, TK_CHART_START, C_TEXT);
	p->group_end(p->ctx);
	w->lx += 18 + p->measure(p->ctx, s, LEGEND_SIZE) + 14;
	if (!row)
		w->elx += 18 + tk_chart_text_estimate(s, LEGEND_SIZE) + 14;
}

/* Whether an entry s fits the first row of the legend (by the
 * estimate); one that does not, and every one after it, is counted. */
static int fits(struct walk *w, const char *s)
{
	if (w->hidden || w->elx + 18 + tk_chart_text_estimate(s, LEGEND_SIZE) >
			       w->c->x1 - w->c->x0 + MARGIN_R_ROOM) {
		w->hidden++;
		return 0;
	}
	return 1;
}

/* With several baseline series, a second row holds one entry per series,
 * as many as fit, then "and N more": chosen by the estimated width, so
 * that every format has the same entries. n: the entries so far. */
static void legend_series(struct walk *w, size_t n)
{
	const struct tk_plot_chart *c = w->c;
	char css[32];
	double used = 0, tw;
	size_t s;

	for (s = 0; s < c->nseries && n < LEGEND_MAX; s++, n++) {
		tk_buf_reset(&w->text);
		if (!s)
			tk_buf_adds(&w->text, "baseline ");
		add_cut(&w->text, c->series[s].label, 60);
		tk_buf_addf(&w->text, " (%zu)", c->series[s].count);
		tw = tk_chart_text_estimate(w->text.buf, LEGEND_SIZE);
		if (s + 1 < c->nseries &&
		    (used + 32 + tw + 90 > c->x1 - c->x0 || n + 1 == LEGEND_MAX)) {
			tk_buf_reset(&w->text);
			tk_buf_addf(&w->text, "and %zu more", c->nseries - s);
			legend_item(w, "", SW_NONE, 0, w->text.buf, 1);
			break;
		}
		used += 32 + tw;
		snprintf(css, sizeof(css), "mc%zu", page_class(w, s));
		legend_item(w, css, SW_DOT, series_rgb(s, 0), w->text.buf, 1);
	}
}

/* An entry "what (n)" of n runs or change points, when there are any;
 * returns how many entries it added. */
static size_t counted(struct walk *w, const char *css, enum swatch sw, uint32_t colour,
		      const char *what, size_t n)
{
	if (!n)
		return 0;
	tk_buf_reset(&w->text);
	tk_buf_addf(&w->text, "%s (%zu)", what, n);
	if (!fits(w, w->text.buf))
		return 0;
	legend_item(w, css, sw, colour, w->text.buf, 0);
	return 1;
}

static void legend(struct walk *w)
{
	const struct tk_plot_chart *c = w->c;
	size_t n = 0;

	w->lx = c->x0;
	w->row = 0;
	w->elx = 0;
	w->hidden = 0;
	if (c->nseries > 1 || c->count[TK_PLOT_BASELINE] || c->baseline[0]) {
		if (c->nseries <= 1) {
			tk_buf_reset(&w->text);
			tk_buf_adds(&w->text, "baseline ");
			add_cut(&w->text, c->baseline, 30);
			tk_buf_addf(&w->text, " (%zu)", c->count[TK_PLOT_BASELINE]);
			legend_item(w, "base", SW_DOT, C_BASE, w->text.buf, 0);
			n++;
		}
		legend_item(w, "band", SW_BAND, C_BASE, "median \xc2\xb1 spread", 0);
		n++;
	}
	n += counted(w, "other", SW_DOT, C_OTHER, "other branches", c->count[TK_PLOT_OTHER]);
	if (c->count[TK_PLOT_CURRENT]) {
		tk_buf_reset(&w->text);
		add_cut(&w->text, w->l->current, 40);
		if (fits(w, w->text.buf)) {
			legend_item(w, "current", SW_BIG, C_CURRENT, w->text.buf, 0);
			n++;
		}
	}
	n += counted(w, "failed", SW_HALO, C_FAILED, "failed", c->nfailed);
	n += counted(w, "partial", SW_HALO, C_PARTIAL, "partial", c->npartial);
	n += counted(w, "change", SW_DASH, C_CHANGE, "change points", c->nchanges);
	/* a narrow chart: what did not fit, counted rather than cut (when
	 * even that does not fit, the page's toggles still name them) */
	if (w->hidden) {
		tk_buf_reset(&w->text);
		tk_buf_addf(&w->text, "and %zu more", w->hidden);
		if (w->elx + tk_chart_text_estimate(w->text.buf, LEGEND_SIZE) <=
		    c->x1 - c->x0 + MARGIN_R_ROOM) {
			legend_item(w, "", SW_NONE, 0, w->text.buf, 0);
			n++;
		}
	}
	if (c->nseries > 1)
		legend_series(w, n);
}

/* ---- the axes ---- */

/* The centre of a label tw pixels wide at x, moved inwards so that the
 * label stays inside a picture `width` wide. */
static double label_centre(double x, double tw, double width)
{
	if (x + tw / 2 > width - 2)
		x = width - 2 - tw / 2;
	if (x - tw / 2 < 2)
		x = 2 + tw / 2;
	return x;
}

/* Grid lines and labels at the y ticks, tick marks and labels at the x
 * ticks; lines on the pixel grid, for crisp pictures. */
static void axes(struct walk *w)
{
	const struct tk_chart_painter *p = w->p;
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_paint grid = stroke(NULL, C_GRID, 1, 1), tick = stroke(NULL, C_TEXT, 1, 1);
	double right = -INFINITY;
	size_t i;

	group(w, "yt", NULL, 0, NULL);
	for (i = 0; i < c->nyt; i++) {
		double y = floor(c->yt[i].pos) + 0.5;

		p->line(p->ctx, c->x0, y, c->x1, y, &grid);
		tk_buf_reset(&w->text);
		add_cut(&w->text, c->yt[i].label, 40);
		text(w, w->text.buf, NULL, c->x0 - 6, y + 4, TEXT_SIZE, TK_CHART_END, C_TEXT);
	}
	p->group_end(p->ctx);
	group(w, "xt", NULL, 0, NULL);
	for (i = 0; i < c->nxt; i++) {
		double x = floor(c->xt[i].pos) + 0.5, tw;

		p->line(p->ctx, x, c->y1, x, c->y1 + 5, &tick);
		tk_buf_reset(&w->text);
		add_cut(&w->text, c->xt[i].label, 40);
		/* a label that would touch the one before keeps its tick only:
		 * decided by the estimate, so every format draws the same labels */
		tw = tk_chart_text_estimate(w->text.buf, TEXT_SIZE);
		if (label_centre(x, tw, w->l->width) - tw / 2 < right + 10)
			continue;
		right = label_centre(x, tw, w->l->width) + tw / 2;
		x = label_centre(x, p->measure(p->ctx, w->text.buf, TEXT_SIZE), w->l->width);
		text(w, w->text.buf, NULL, x, c->y1 + 19, TEXT_SIZE, TK_CHART_MIDDLE, C_TEXT);
	}
	p->group_end(p->ctx);
	if (c->axis_note)
		text(w, c->axis_note, "axis-note", c->x0, c->y1 + 34, LEGEND_SIZE, TK_CHART_START,
		     C_NOTE);
}

/* ---- the plot area ---- */

/* The points of class cls (of the baseline: of its series se) gathered
 * in w->xy; with a flag, the points that have it, the current runs or
 * the others as cls is TK_PLOT_CURRENT or not. */
static struct tk_chart_points gather(struct walk *w, int cls, size_t se, unsigned flag)
{
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_points pts = { w->xy, w->xy + 1, 0, 2 };
	size_t i;

	for (i = 0; i < c->npts; i++) {
		const struct tk_plot_point *pt = &c->pts[i];
		int want;

		if (flag)
			want = (pt->flags & flag) &&
			       (pt->cls == TK_PLOT_CURRENT) == (cls == TK_PLOT_CURRENT);
		else
			want = pt->cls == cls && (cls != TK_PLOT_BASELINE || pt->series == se);
		if (!want)
			continue;
		w->xy[2 * pts.n] = pt->px;
		w->xy[2 * pts.n++ + 1] = pt->py;
	}
	return pts;
}

enum band_edge { BAND_LO, BAND_MID, BAND_HI };

/* An edge of series se's band, read in place. */
static struct tk_chart_points band_of(const struct tk_plot_chart *c, size_t se,
				      enum band_edge e)
{
	const struct tk_plot_band *bd = c->band + c->series[se].band0;
	const double *y = e == BAND_HI ? &bd->hi : e == BAND_LO ? &bd->lo : &bd->mid;

	return (struct tk_chart_points){ &bd->px, y, c->series[se].nband, BAND_STRIDE };
}

/* Each series' band (median +- spread), its line through its runs, then
 * its median over them. */
static void series(struct walk *w)
{
	const struct tk_chart_painter *p = w->p;
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_paint pt;
	struct tk_chart_points top, bottom, line;
	size_t se;

	for (se = 0; se < c->nseries; se++) {
		if (!c->series[se].nband)
			continue;
		top = band_of(c, se, BAND_HI);
		bottom = band_of(c, se, BAND_LO);
		pt = fill(series_cls(w, "s-band", se), series_rgb(se, 0), 0.18);
		p->area(p->ctx, &top, &bottom, &pt);
	}
	for (se = 0; se < c->nseries; se++) {
		if (c->series[se].count < 2)
			continue;
		line = gather(w, TK_PLOT_BASELINE, se, 0);
		pt = stroke(series_cls(w, "s-base", se), series_rgb(se, 0), 0.45, 1);
		p->polyline(p->ctx, &line, &pt);
	}
	for (se = 0; se < c->nseries; se++) {
		if (!c->series[se].nband)
			continue;
		line = band_of(c, se, BAND_MID);
		pt = stroke(series_cls(w, "s-band", se), series_rgb(se, 1), 1, 2);
		p->polyline(p->ctx, &line, &pt);
	}
}

/* The halos of failed and partial runs, then the dots of each class (the
 * baseline's by series); the current runs' on a dark ring. A current
 * run's halo is wider than its ring, which would hide it. */
static void dots(struct walk *w)
{
	static const char *const class_css[] = { "s-base", "s-other", "s-current" };
	static const uint32_t colour[] = { C_BASE, C_OTHER, C_CURRENT };
	static const double radius[] = { 2.5, 3, 5.5 };
	const struct tk_chart_painter *p = w->p;
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_paint pt;
	struct tk_chart_points at;
	size_t pass, cls, se;

	for (pass = 0; pass < 4; pass++) {
		int partial = pass & 1, cur = pass >= 2;

		at = gather(w, cur ? TK_PLOT_CURRENT : TK_PLOT_BASELINE, 0,
			    partial ? TK_PLOT_PARTIAL : TK_PLOT_FAILED);
		if (!at.n)
			continue;
		pt = fill(partial ? "s-partial" : "s-failed", partial ? C_PARTIAL : C_FAILED, 0.6);
		p->dots(p->ctx, &at, cur ? 11 : 6.5, &pt);
	}
	for (cls = 0; cls < TK_PLOT_NCLASSES; cls++) {
		int base = cls == TK_PLOT_BASELINE;

		for (se = 0; se < (base ? c->nseries : 1); se++) {
			if (!c->count[cls] || (base && !c->series[se].count))
				continue;
			at = gather(w, (int)cls, se, 0);
			if (cls == TK_PLOT_CURRENT) {
				pt = fill(class_css[cls], C_RING, 1);
				p->dots(p->ctx, &at, 7, &pt);
			}
			pt = fill(base ? series_cls(w, class_css[cls], se) : class_css[cls],
				  base ? series_rgb(se, 0) : colour[cls], 1);
			p->dots(p->ctx, &at, radius[cls], &pt);
		}
	}
}

/* Dashed lines at the change points, over the whole height of the area. */
static void change_lines(struct walk *w)
{
	const struct tk_chart_painter *p = w->p;
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_paint pt;
	size_t i;

	for (i = 0; i < c->nchanges; i++) {
		pt = stroke(series_cls(w, "s-change", c->changes[i].series), C_CHANGE, 1, 1.5);
		pt.dash[0] = 5;
		pt.dash[1] = 4;
		p->line(p->ctx, c->changes[i].px, c->y0 - 8, c->changes[i].px, c->y1, &pt);
	}
}

/* The change points' labels in their rows (tk_plot_layout placed them):
 * right of the line in the left half, left of it in the right half. */
static void change_labels(struct walk *w)
{
	const struct tk_plot_chart *c = w->c;
	size_t i;

	for (i = 0; i < c->nchanges; i++) {
		const struct tk_plot_change *ch = &c->changes[i];
		int right = ch->px > (c->x0 + c->x1) / 2;
		struct tk_chart_text t;

		if (ch->row < 0)
			continue;
		tk_buf_reset(&w->text);
		tk_buf_adds(&w->text, "change at ");
		add_cut(&w->text, ch->label, 80);
		/* series_cls sets w->cls: after it, "zx change" are the page's */
		series_cls(w, "s-change zx change", ch->series);
		t = (struct tk_chart_text){ w->text.buf, w->cls.buf, ch->px + (right ? -4 : 4),
			c->y0 + 16 + 14 * (double)ch->row, TEXT_SIZE,
			right ? TK_CHART_END : TK_CHART_START, C_CHANGE, ch->px };
		w->p->text(w->p->ctx, &t);
	}
}

/* The verdict's threshold: the values a change must leave to be
 * flagged, over the baseline runs the current one was judged against. */
static void threshold(struct walk *w)
{
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_rect r;
	struct tk_chart_paint pt;

	if (!(c->thr_x1 > c->thr_x0))
		return;
	r = (struct tk_chart_rect){ c->thr_x0, c->thr_hi, c->thr_x1 - c->thr_x0,
				    c->thr_lo - c->thr_hi };
	pt = fill("s-threshold", C_THRESHOLD, 0.16);
	pt.stroke = C_THRESHOLD;
	pt.stroke_opacity = 0.8;
	pt.width = 1;
	pt.dash[0] = 3;
	pt.dash[1] = 3;
	w->p->rect(w->p->ctx, &r, &pt);
}

/* The current run's verdict and change where the layout placed it
 * (beside the point when there is room), in the verdict's colour. */
static void verdict(struct walk *w)
{
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_text t;
	uint32_t colour = c->verdict == TK_VERDICT_REGRESSION ? C_REGRESSION
			  : c->verdict == TK_VERDICT_IMPROVEMENT ? C_IMPROVEMENT : C_NOTE;
	int under = c->vty > c->y1;

	if (!c->verdict_label)
		return;
	/* under the axis it stays put; in the plot area it follows the
	 * point as the page zooms */
	t = (struct tk_chart_text){ c->verdict_label, under ? "verdict" : "zx verdict", c->vtx,
		c->vty, TEXT_SIZE, c->vend ? TK_CHART_END : TK_CHART_START, colour,
		under ? NAN : c->vx };
	w->p->text(w->p->ctx, &t);
}

static void chart(struct walk *w, size_t ci)
{
	const struct tk_chart_painter *p = w->p;
	const struct tk_plot_layout *l = w->l;
	const struct tk_plot_chart *c = w->c;
	struct tk_chart_rect area = { c->x0, c->y0 - 8, c->x1 - c->x0, c->y1 - c->y0 + 8 };
	struct tk_chart_rect frame = { floor(c->x0) + 0.5, floor(c->y0) + 0.5, floor(c->x1 - c->x0),
				       floor(c->y1 - c->y0) };
	struct tk_chart_paint pt = stroke(NULL, C_TEXT, 1, 1);
	char id[32];

	snprintf(id, sizeof(id), "chart%zu", ci);
	group(w, "chart", id, 0, NULL);
	/* the title, cut with an ellipsis to the picture's width */
	tk_buf_reset(&w->text);
	add_cut(&w->text, c->title, p->fit(p->ctx, c->title, TITLE_SIZE, l->width - 16));
	text(w, w->text.buf, "title", l->width / 2, c->top + 19, TITLE_SIZE, TK_CHART_MIDDLE,
	     C_TEXT);
	legend(w);
	axes(w);
	snprintf(id, sizeof(id), "clip%zu", ci);
	group(w, "zoom", id, 0, &area);
	threshold(w);
	series(w);
	dots(w);
	change_lines(w);
	p->group_end(p->ctx);
	change_labels(w);
	verdict(w);
	p->rect(p->ctx, &frame, &pt);
	p->group_end(p->ctx);
}

void tk_chart_draw(const struct tk_plot_layout *l, const struct tk_chart_painter *p)
{
	struct walk w = { p, l, NULL, NULL, 0, TK_BUF_INIT, TK_BUF_INIT, NULL, 0, 0 };
	const char **names;
	size_t i, most = 1;

	w.nnames = tk_chart_classes(l, &names);
	w.names = names;
	for (i = 0; i < l->nr; i++)
		if (l->charts[i].npts > most)
			most = l->charts[i].npts;
	w.xy = tk_xmalloc(2 * most * sizeof(*w.xy));
	p->begin(p->ctx, l->width, l->height, 0xffffff);
	for (i = 0; i < l->nr; i++) {
		w.c = &l->charts[i];
		chart(&w, i);
	}
	if (l->omitted) {
		/* the charts left out for want of values, named in one line */
		tk_buf_reset(&w.text);
		add_cut(&w.text, l->omitted, p->fit(p->ctx, l->omitted, TEXT_SIZE, l->width - 16));
		text(&w, w.text.buf, "omitted", 8, l->height - 8, TEXT_SIZE, TK_CHART_START, C_NOTE);
	}
	p->end(p->ctx);
	free(w.xy);
	free(names);
	tk_buf_release(&w.cls);
	tk_buf_release(&w.text);
}
