/*
 * History charts as SVG (core/pages/chartsvg.h): a painter for the walk
 * of core/pages/chart.c.
 *
 * The elements keep the form the pages always had, so that the same
 * layout gives the same bytes: a chart's and its plot area's elements
 * one a line, a small group (a legend entry, the ticks) on one line; in
 * the plot area, which the page zooms, an element names its classes and
 * paint before its path, and strokes keep their width at any zoom.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/escape.h"
#include "core/draw/htmlout.h"
#include "core/draw/svgout.h"
#include "core/pages/chart.h"
#include "core/pages/chartsvg.h"
#include "core/base/banned.h"

/* the root's font size: a text of another size names its own */
#define ROOT_SIZE 12
/* groups open at once: the walk opens a chart, and a group in it */
#define MAX_DEPTH 4

struct svg {
	struct tk_htmlout *w;
	int standalone;
	size_t depth;          /* g[depth] is the innermost group; g[0] the root */
	struct {
		unsigned char block, clip;
		double size;
	} g[MAX_DEPTH];
	int zoom;              /* inside a chart's plot area */
};

void tk_chartsvg_num(struct tk_buf *b, double v)
{
	char tmp[TK_SVG_NUM_MAX];

	tk_buf_add(b, tmp, tk_svg_fmt_fixed(tmp, v, 1, 1, 0));
}

static void attr_num(struct tk_buf *b, const char *name, double v)
{
	tk_buf_addf(b, " %s=\"", name);
	tk_chartsvg_num(b, v);
	tk_buf_addch(b, '"');
}

static void xy(struct tk_buf *b, double x, double y)
{
	tk_chartsvg_num(b, x);
	tk_buf_addch(b, ' ');
	tk_chartsvg_num(b, y);
}

static double at(const double *v, size_t stride, size_t i)
{
	return v[i * stride];
}

/* The end of an element: its own line in a chart or its plot area. */
static void done(struct svg *s)
{
	if (s->g[s->depth].block)
		tk_buf_addch(&s->w->b, '\n');
	tk_htmlout_flush(s->w);
}

static void cls_attr(struct tk_buf *b, const char *cls)
{
	if (cls)
		tk_buf_addf(b, " class=\"%s\"", cls);
}

/* The paint's attributes; `fills`: the shape could enclose an area, and
 * names its fill even when none. */
static void paint(struct svg *s, const struct tk_chart_paint *p, int fills, int round)
{
	struct tk_buf *b = &s->w->b;

	if (fills && p->fill == TK_CHART_NONE)
		tk_buf_adds(b, " fill=\"none\"");
	else if (fills)
		tk_buf_addf(b, " fill=\"#%06x\"", (unsigned)p->fill);
	if (fills && p->fill != TK_CHART_NONE && p->fill_opacity < 1)
		tk_buf_addf(b, " fill-opacity=\"%g\"", p->fill_opacity);
	if (p->stroke == TK_CHART_NONE)
		return;
	tk_buf_addf(b, " stroke=\"#%06x\"", (unsigned)p->stroke);
	if (p->stroke_opacity < 1)
		tk_buf_addf(b, " stroke-opacity=\"%g\"", p->stroke_opacity);
	if (p->width != 1)
		tk_buf_addf(b, " stroke-width=\"%g\"", p->width);
	if (round)
		tk_buf_adds(b, " stroke-linecap=\"round\"");
	if (p->dash[0] > 0)
		tk_buf_addf(b, " stroke-dasharray=\"%g %g\"", p->dash[0], p->dash[1]);
	if (s->zoom)
		tk_buf_adds(b, " vector-effect=\"non-scaling-stroke\"");
}

/* <path with its class, paint and the start of d (the plot area's
 * order), or the start of d alone. */
static void path_begin(struct svg *s, const struct tk_chart_paint *p, int fills, int round)
{
	struct tk_buf *b = &s->w->b;

	tk_buf_adds(b, "<path");
	if (s->zoom) {
		cls_attr(b, p->cls);
		paint(s, p, fills, round);
	}
	tk_buf_adds(b, " d=\"");
}

static void path_end(struct svg *s, const struct tk_chart_paint *p, int fills)
{
	struct tk_buf *b = &s->w->b;

	tk_buf_addch(b, '"');
	if (!s->zoom) {
		cls_attr(b, p->cls);
		paint(s, p, fills, 0);
	}
	tk_buf_adds(b, "/>");
	done(s);
}

static size_t svg_fit(void *ctx, const char *str, double size, double width)
{
	/* room kept for the ellipsis, as the viewer's font is a guess */
	(void)ctx;
	(void)str;
	return width > 0 ? (size_t)(width / (0.62 * size)) - 1 : 0;
}

static double svg_measure(void *ctx, const char *str, double size)
{
	(void)ctx;
	return tk_chart_text_estimate(str, size);
}

static void svg_begin(void *ctx, double width, double height, uint32_t background)
{
	struct svg *s = ctx;
	struct tk_buf *b = &s->w->b;

	if (s->standalone)
		tk_buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	tk_buf_adds(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"plot\"");
	attr_num(b, "width", width);
	attr_num(b, "height", height);
	tk_buf_adds(b, " viewBox=\"0 0 ");
	xy(b, width, height);
	tk_buf_addf(b, "\" font-family=\"Verdana, 'DejaVu Sans', sans-serif\" font-size=\"%d\">\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"#%06x\"/>\n", ROOT_SIZE,
		    (unsigned)background);
	s->depth = 0;
	s->g[0].block = 1;
	s->g[0].clip = 0;
	s->g[0].size = ROOT_SIZE;
	s->zoom = 0;
}

static void svg_end(void *ctx)
{
	struct svg *s = ctx;

	tk_buf_adds(&s->w->b, "</svg>\n");
}

static void svg_group(void *ctx, const struct tk_chart_group *g)
{
	struct svg *s = ctx;
	struct tk_buf *b = &s->w->b;
	double size = g->size > 0 ? g->size : s->g[s->depth].size;

	if (s->depth + 1 >= MAX_DEPTH)
		return;
	if (g->clip) {
		tk_buf_addf(b, "<clipPath id=\"%s\"><rect", g->id);
		attr_num(b, "x", g->clip->x);
		attr_num(b, "y", g->clip->y);
		attr_num(b, "width", g->clip->w);
		attr_num(b, "height", g->clip->h);
		tk_buf_adds(b, "/></clipPath>");
		done(s);
		tk_buf_addf(b, "<g clip-path=\"url(#%s)\"><g", g->id);
		cls_attr(b, g->cls);
	} else {
		tk_buf_adds(b, "<g");
		cls_attr(b, g->cls);
		if (g->id)
			tk_buf_addf(b, " id=\"%s\"", g->id);
	}
	if (size != s->g[s->depth].size)
		attr_num(b, "font-size", size);
	tk_buf_addch(b, '>');
	s->depth++;
	s->g[s->depth].block = s->depth == 1 || g->clip;
	s->g[s->depth].clip = g->clip != NULL;
	s->g[s->depth].size = size;
	s->zoom += g->clip != NULL;
	if (s->g[s->depth].block)
		tk_buf_addch(b, '\n');
}

static void svg_group_end(void *ctx)
{
	struct svg *s = ctx;

	if (!s->depth)
		return;
	if (s->g[s->depth].clip) {
		tk_buf_adds(&s->w->b, "</g></g>");
		s->zoom--;
	} else {
		tk_buf_adds(&s->w->b, "</g>");
	}
	s->depth--;
	done(s);
}

static void svg_rect(void *ctx, const struct tk_chart_rect *r, const struct tk_chart_paint *p)
{
	struct svg *s = ctx;
	struct tk_buf *b = &s->w->b;

	tk_buf_adds(b, "<rect");
	cls_attr(b, p->cls);
	attr_num(b, "x", r->x);
	attr_num(b, "y", r->y);
	attr_num(b, "width", r->w);
	attr_num(b, "height", r->h);
	paint(s, p, 1, 0);
	tk_buf_adds(b, "/>");
	done(s);
}

/* Horizontal lines end at an x; vertical lines outside the plot area
 * go a length down, inside it to a y. */
static void svg_line(void *ctx, double x1, double y1, double x2, double y2,
		     const struct tk_chart_paint *p)
{
	struct svg *s = ctx;
	struct tk_buf *b = &s->w->b;

	path_begin(s, p, 0, 0);
	tk_buf_addch(b, 'M');
	xy(b, x1, y1);
	if (y1 == y2) {
		tk_buf_addch(b, 'H');
		tk_chartsvg_num(b, x2);
	} else if (x1 == x2 && !s->zoom) {
		tk_buf_addch(b, 'v');
		tk_chartsvg_num(b, y2 - y1);
	} else if (x1 == x2) {
		tk_buf_addch(b, 'V');
		tk_chartsvg_num(b, y2);
	} else {
		tk_buf_addch(b, 'L');
		xy(b, x2, y2);
	}
	path_end(s, p, 0);
}

static void svg_circle(void *ctx, double x, double y, double r, const struct tk_chart_paint *p)
{
	struct svg *s = ctx;
	struct tk_buf *b = &s->w->b;

	tk_buf_adds(b, "<circle");
	cls_attr(b, p->cls);
	attr_num(b, "cx", x);
	attr_num(b, "cy", y);
	tk_buf_addf(b, " r=\"%g\"", r);
	paint(s, p, 1, 0);
	tk_buf_adds(b, "/>");
	done(s);
}

/* "x yLx y..." of pts, backwards when back (each point after an 'L'). */
static void trace(struct svg *s, const struct tk_chart_points *pts, int back)
{
	struct tk_buf *b = &s->w->b;
	size_t k, i;

	for (k = 0; k < pts->n; k++) {
		i = back ? pts->n - 1 - k : k;
		if (k || back)
			tk_buf_addch(b, 'L');
		xy(b, at(pts->x, pts->stride, i), at(pts->y, pts->stride, i));
		tk_htmlout_flush(s->w);
	}
}

static void svg_polyline(void *ctx, const struct tk_chart_points *pts,
			 const struct tk_chart_paint *p)
{
	struct svg *s = ctx;

	path_begin(s, p, 1, 0);
	if (pts->n)
		tk_buf_addch(&s->w->b, 'M');
	trace(s, pts, 0);
	path_end(s, p, 1);
}

static void svg_area(void *ctx, const struct tk_chart_points *top,
		     const struct tk_chart_points *bottom, const struct tk_chart_paint *p)
{
	struct svg *s = ctx;

	path_begin(s, p, 1, 0);
	tk_buf_addch(&s->w->b, 'M');
	trace(s, top, 0);
	trace(s, bottom, 1);
	tk_buf_addch(&s->w->b, 'Z');
	path_end(s, p, 1);
}

/* Zero-length strokes with round caps: dots that stay round when the
 * page stretches the time axis. */
static void svg_dots(void *ctx, const struct tk_chart_points *pts, double r,
		     const struct tk_chart_paint *p)
{
	struct svg *s = ctx;
	struct tk_buf *b = &s->w->b;
	struct tk_chart_paint dot = { p->cls, TK_CHART_NONE, p->fill, 1, p->fill_opacity, 2 * r,
				      { 0, 0 } };
	size_t i;

	path_begin(s, &dot, 0, 1);
	for (i = 0; i < pts->n; i++) {
		tk_buf_addch(b, 'M');
		xy(b, at(pts->x, pts->stride, i), at(pts->y, pts->stride, i));
		tk_buf_adds(b, "h0");
		tk_htmlout_flush(s->w);
	}
	path_end(s, &dot, 0);
}

/* A text's colour follows its class, where it has one; a text that
 * follows the zoom names its anchor for the page's script. */
static void svg_text(void *ctx, const struct tk_chart_text *t)
{
	struct svg *s = ctx;
	struct tk_buf *b = &s->w->b;
	static const char *const anchor[] = { "start", "middle", "end" };
	int follows = !isnan(t->follow);

	tk_buf_adds(b, "<text");
	cls_attr(b, t->cls);
	if (t->cls && t->colour)
		tk_buf_addf(b, " fill=\"#%06x\"", (unsigned)t->colour);
	if (follows)
		attr_num(b, "data-x", t->follow);
	attr_num(b, "x", t->x);
	attr_num(b, "y", t->y);
	if (t->anchor != TK_CHART_START || follows)
		tk_buf_addf(b, " text-anchor=\"%s\"", anchor[t->anchor]);
	if (t->size != s->g[s->depth].size)
		attr_num(b, "font-size", t->size);
	if (!t->cls && t->colour)
		tk_buf_addf(b, " fill=\"#%06x\"", (unsigned)t->colour);
	tk_buf_addch(b, '>');
	tk_xml_text(b, t->s, TK_XML_QUOTES, 0);
	tk_buf_adds(b, "</text>");
	done(s);
}

void tk_chartsvg_write(struct tk_htmlout *w, const struct tk_plot_layout *l, int standalone)
{
	struct svg s;
	const struct tk_chart_painter p = {
		&s, svg_fit, svg_measure, svg_begin, svg_end, svg_group, svg_group_end,
		svg_rect, svg_line, svg_circle, svg_polyline, svg_area, svg_dots, svg_text,
	};

	s.w = w;
	s.standalone = standalone;
	tk_chart_draw(l, &p);
}

int tk_chartsvg_file(const struct tk_plot_layout *l, FILE *out, struct tk_err *err)
{
	struct tk_htmlout w;

	tk_htmlout_init(&w, out);
	tk_chartsvg_write(&w, l, 1);
	if (w.b.len && fwrite(w.b.buf, 1, w.b.len, out) != w.b.len)
		w.failed = 1;
	tk_buf_release(&w.b);
	if (w.failed || fflush(out) || ferror(out))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the svg");
	return 0;
}
