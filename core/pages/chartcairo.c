/*
 * History charts as PNG or PDF (core/pages/chartcairo.h): a painter for
 * the walk of core/pages/chart.c, with what makes cairo fast on a
 * year of runs: long lines traced through a few points per pixel
 * column, and many small dots stamped.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/escape.h"
#include "core/draw/canvas.h"
#include "core/pages/chart.h"
#include "core/pages/chartcairo.h"
#include "core/base/banned.h"

/* the most characters of a title tried for its fit */
#define FIT_MAX 200
/* groups open at once: the walk opens a chart, and a group in it */
#define MAX_DEPTH 4
/* dots up to this radius fit the 8x8 stamp */
#define STAMP_R 4

struct pic {
	struct tk_canvas *cv;
	const struct tk_plot_layout *l;
	struct tk_buf t;                /* scratch: a text as valid UTF-8 */
	double width;
	size_t depth;
	unsigned char clip[MAX_DEPTH];  /* group i is a plot area */
	struct tk_chart_rect area;      /* the plot area, while inside it */
	int zoom;
};

static void set_rgb(cairo_t *cr, uint32_t c, double a)
{
	cairo_set_source_rgba(cr, (c >> 16 & 255) / 255.0, (c >> 8 & 255) / 255.0,
			      (c & 255) / 255.0, a);
}

static void dot(cairo_t *cr, double x, double y, double r)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, r, 0, 2 * M_PI);
}

static void stroke_with(cairo_t *cr, const struct tk_chart_paint *p)
{
	set_rgb(cr, p->stroke, p->stroke_opacity);
	cairo_set_line_width(cr, p->width);
	if (p->dash[0] > 0)
		cairo_set_dash(cr, p->dash, 2, 0);
	cairo_stroke(cr);
	if (p->dash[0] > 0)
		cairo_set_dash(cr, NULL, 0, 0);
}

static double at(const double *v, size_t stride, size_t i)
{
	return v[i * stride];
}

/*
 * Lines through thousands of runs: per pixel column, the first, lowest,
 * highest and last point (M4 decimation), which draws the same pixels
 * as the whole line at a fraction of the cost; backwards when back.
 * The kept points are traced with cairo_line_to.
 */
static void trace_m4(cairo_t *cr, const struct tk_chart_points *p, int back)
{
	size_t n = p->n, k = 0;
#define X(k) at(p->x, p->stride, back ? n - 1 - (k) : (k))
#define Y(k) at(p->y, p->stride, back ? n - 1 - (k) : (k))
	while (k < n) {
		double col = floor(X(k));
		size_t first = k, lo = k, hi = k, last = k;

		for (; k < n && floor(X(k)) == col; k++) {
			if (Y(k) < Y(lo))
				lo = k;
			if (Y(k) > Y(hi))
				hi = k;
			last = k;
		}
		cairo_line_to(cr, X(first), Y(first));
		if (lo < hi) {
			cairo_line_to(cr, X(lo), Y(lo));
			cairo_line_to(cr, X(hi), Y(hi));
		} else if (hi < lo) {
			cairo_line_to(cr, X(hi), Y(hi));
			cairo_line_to(cr, X(lo), Y(lo));
		}
		if (last != first)
			cairo_line_to(cr, X(last), Y(last));
	}
#undef X
#undef Y
}

/* The characters that fit, by cairo's measure, from FIT_MAX down. */
static size_t pic_fit(void *ctx, const char *s, double size, double width)
{
	struct pic *pc = ctx;
	cairo_t *cr = pc->cv->cr;
	cairo_text_extents_t ext;
	size_t len = strlen(s), max = tk_xml_chars(s, len), left;

	if (max > FIT_MAX)
		max = FIT_MAX;
	cairo_set_font_size(cr, size);
	for (;;) {
		tk_buf_reset(&pc->t);
		left = tk_canvas_add_utf8(&pc->t, s, len, max);
		if (left)
			tk_buf_adds(&pc->t, "\xe2\x80\xa6");
		cairo_text_extents(cr, pc->t.buf, &ext);
		if (ext.x_advance <= width || max <= 1)
			return max;
		max--;
	}
}

static double pic_measure(void *ctx, const char *s, double size)
{
	struct pic *pc = ctx;
	cairo_text_extents_t ext;

	cairo_set_font_size(pc->cv->cr, size);
	tk_buf_reset(&pc->t);
	tk_canvas_add_utf8(&pc->t, s, strlen(s), SIZE_MAX);
	cairo_text_extents(pc->cv->cr, pc->t.buf, &ext);
	return ext.x_advance;
}

static void pic_begin(void *ctx, double width, double height, uint32_t background)
{
	struct pic *pc = ctx;
	cairo_t *cr = pc->cv->cr;
	cairo_font_options_t *fo = cairo_font_options_create();

	(void)height;
	pc->width = width;
	/* crisp text: grey antialiasing, hinted to the pixel grid */
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
	set_rgb(cr, background, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "Verdana", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

static void pic_end(void *ctx)
{
	(void)ctx;
}

static void pic_group(void *ctx, const struct tk_chart_group *g)
{
	struct pic *pc = ctx;
	cairo_t *cr = pc->cv->cr;

	if (pc->depth + 1 >= MAX_DEPTH)
		return;
	pc->clip[++pc->depth] = g->clip != NULL;
	if (!g->clip)
		return;
	cairo_save(cr);
	cairo_rectangle(cr, g->clip->x, g->clip->y, g->clip->w, g->clip->h);
	cairo_clip(cr);
	pc->area = *g->clip;
	pc->zoom++;
}

static void pic_group_end(void *ctx)
{
	struct pic *pc = ctx;

	if (!pc->depth)
		return;
	if (pc->clip[pc->depth--]) {
		cairo_restore(pc->cv->cr);
		pc->zoom--;
	}
}

static void pic_rect(void *ctx, const struct tk_chart_rect *r, const struct tk_chart_paint *p)
{
	struct pic *pc = ctx;
	cairo_t *cr = pc->cv->cr;

	cairo_rectangle(cr, r->x, r->y, r->w, r->h);
	if (p->fill != TK_CHART_NONE) {
		set_rgb(cr, p->fill, p->fill_opacity);
		if (p->stroke != TK_CHART_NONE)
			cairo_fill_preserve(cr);
		else
			cairo_fill(cr);
	}
	if (p->stroke != TK_CHART_NONE)
		stroke_with(cr, p);
}

/* A vertical line of the plot area on the pixel grid: the SVG keeps its
 * exact x for the page's zoom, a picture wants it crisp. */
static void pic_line(void *ctx, double x1, double y1, double x2, double y2,
		     const struct tk_chart_paint *p)
{
	struct pic *pc = ctx;
	cairo_t *cr = pc->cv->cr;

	if (pc->zoom && x1 == x2)
		x1 = x2 = floor(x1) + 0.5;
	cairo_move_to(cr, x1, y1);
	cairo_line_to(cr, x2, y2);
	stroke_with(cr, p);
}

static void pic_circle(void *ctx, double x, double y, double r, const struct tk_chart_paint *p)
{
	struct pic *pc = ctx;

	dot(pc->cv->cr, x, y, r);
	set_rgb(pc->cv->cr, p->fill, p->fill_opacity);
	cairo_fill(pc->cv->cr);
}

static void pic_polyline(void *ctx, const struct tk_chart_points *pts,
			 const struct tk_chart_paint *p)
{
	struct pic *pc = ctx;

	trace_m4(pc->cv->cr, pts, 0);
	stroke_with(pc->cv->cr, p);
}

static void pic_area(void *ctx, const struct tk_chart_points *top,
		     const struct tk_chart_points *bottom, const struct tk_chart_paint *p)
{
	struct pic *pc = ctx;
	cairo_t *cr = pc->cv->cr;

	trace_m4(cr, top, 0);
	trace_m4(cr, bottom, 1);
	cairo_close_path(cr);
	set_rgb(cr, p->fill, p->fill_opacity);
	cairo_fill(cr);
}

/* The dot of radius r drawn once, to be copied. */
static cairo_surface_t *stamp_of(double r, uint32_t rgb)
{
	cairo_surface_t *stamp = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8);
	cairo_t *sc = cairo_create(stamp);

	dot(sc, 4, 4, r);
	set_rgb(sc, rgb, 1);
	cairo_fill(sc);
	cairo_destroy(sc);
	return stamp;
}

/*
 * A year of runs puts many dots on the same pixel: of small opaque dots
 * draw one per half pixel, each filled alone (which cairo rasterizes
 * much faster than one path of thousands of overlapping circles), and
 * in a pixel picture copied from a stamp. Halos (translucent) and the
 * current runs' large dots are few, and each drawn.
 */
static void pic_dots(void *ctx, const struct tk_chart_points *pts, double r,
		     const struct tk_chart_paint *p)
{
	struct pic *pc = ctx;
	cairo_t *cr = pc->cv->cr;
	size_t gw = (size_t)(2 * pc->width) + 2, gh = (size_t)(2 * (pc->area.h + 8)) + 2;
	unsigned char *seen;
	cairo_surface_t *stamp = NULL;
	size_t i, gx, gy, bit;

	if (p->fill_opacity < 1 || r > STAMP_R) {
		for (i = 0; i < pts->n; i++) {
			dot(cr, at(pts->x, pts->stride, i), at(pts->y, pts->stride, i), r);
			set_rgb(cr, p->fill, p->fill_opacity);
			cairo_fill(cr);
		}
		return;
	}
	seen = tk_xcalloc(gw * gh / 8 + 1, 1);
	if (cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE)
		stamp = stamp_of(r, p->fill);
	for (i = 0; i < pts->n; i++) {
		double x = at(pts->x, pts->stride, i), y = at(pts->y, pts->stride, i);

		gx = (size_t)fmax(0, fmin((double)gw - 1, round(2 * x)));
		gy = (size_t)fmax(0, fmin((double)gh - 1, round(2 * (y - pc->area.y))));
		bit = gy * gw + gx;
		if (seen[bit / 8] >> (bit % 8) & 1)
			continue;
		seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
		if (stamp) {
			cairo_set_source_surface(cr, stamp, floor(x + 0.5) - 4, floor(y + 0.5) - 4);
			cairo_rectangle(cr, floor(x + 0.5) - 4, floor(y + 0.5) - 4, 8, 8);
		} else {
			dot(cr, x, y, r);
			set_rgb(cr, p->fill, 1);
		}
		cairo_fill(cr);
	}
	free(seen);
	if (stamp)
		cairo_surface_destroy(stamp);
}

static void pic_text(void *ctx, const struct tk_chart_text *t)
{
	struct pic *pc = ctx;

	cairo_set_font_size(pc->cv->cr, t->size);
	set_rgb(pc->cv->cr, t->colour, 1);
	if (t->anchor == TK_CHART_END)
		tk_canvas_text_right(pc->cv, t->s, SIZE_MAX, t->x, t->y);
	else if (t->anchor == TK_CHART_MIDDLE)
		tk_canvas_text(pc->cv, t->s, SIZE_MAX,
			       t->x - pic_measure(pc, t->s, t->size) / 2, t->y);
	else
		tk_canvas_text(pc->cv, t->s, SIZE_MAX, t->x, t->y);
}

static void draw(void *arg)
{
	struct pic *pc = arg;
	const struct tk_chart_painter p = {
		pc, pic_fit, pic_measure, pic_begin, pic_end, pic_group, pic_group_end,
		pic_rect, pic_line, pic_circle, pic_polyline, pic_area, pic_dots, pic_text,
	};

	tk_chart_draw(pc->l, &p);
}

int tk_chartcairo_write(const struct tk_plot_layout *l, enum tk_canvas_format fmt, FILE *out,
			struct tk_err *err)
{
	struct tk_canvas cv;
	struct pic pc;
	int ret;

	memset(&pc, 0, sizeof(pc));
	tk_canvas_init(&cv, l->width, l->height, 12);
	cv.pdf_date = l->date;
	pc.cv = &cv;
	pc.l = l;
	tk_buf_init(&pc.t, 0);
	ret = tk_canvas_render(&cv, fmt, out, draw, &pc, err);
	tk_buf_release(&pc.t);
	return ret;
}
