#ifndef TK_CHART_H
#define TK_CHART_H
/*
 * History charts drawn once: tk_chart_draw walks a laid-out picture
 * (tk_plot_layout, core/pages/histplot.h) and tells a painter what to
 * draw, shape by shape, in the order the picture is painted. Two
 * painters exist: SVG (core/pages/chartsvg.h, also inline in the
 * interactive page) and cairo for PNG and PDF (core/pages/chartcairo.h).
 *
 * Every decision is the walk's: which legend entries a chart has, the
 * text of each label and where it is cut, where it goes, the colours of
 * each class of run and each baseline series, the order of the shapes,
 * and the classes and ids the interactive page (core/pages/plothtml.h)
 * finds its elements by. A painter paints what it is told, in its own
 * language, and answers one question the walk cannot: how wide a text
 * is (cairo measures it; an SVG viewer lays text out itself, so the SVG
 * painter estimates).
 *
 * Text handed to a painter is valid UTF-8 as a terminal shows it
 * (tk_canvas_add_utf8: controls, bidirectional controls and bytes of no
 * valid sequence as "\xNN"); names in it are untrusted and may still
 * hold markup, which a painter writing a language escapes (the SVG painter: tk_xml_text, core/base/escape.h). Every
 * string, array and struct handed to a painter lives only during the
 * call. Nothing here prints, exits or keeps global state.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/pages/histplot.h"

/* A colour (0xRRGGBB) that is not painted: a shape without fill or
 * stroke. */
#define TK_CHART_NONE UINT32_MAX

/* How a shape is painted, and what it is to the interactive page. */
struct tk_chart_paint {
	const char *cls;         /* the page's classes ("s-base s-mc1"); NULL: none */
	uint32_t fill, stroke;   /* 0xRRGGBB, or TK_CHART_NONE */
	double fill_opacity, stroke_opacity;
	double width;            /* the stroke's */
	double dash[2];          /* on and off lengths; 0: a solid stroke */
};

/* n points, the i-th at (x[i * stride], y[i * stride]): points or a band
 * of a layout as they are, without copying. */
struct tk_chart_points {
	const double *x, *y;
	size_t n, stride;
};

enum tk_chart_anchor { TK_CHART_START, TK_CHART_MIDDLE, TK_CHART_END };

struct tk_chart_text {
	const char *s;
	const char *cls;          /* NULL: none */
	double x, y;              /* y: the baseline */
	double size;              /* the font's, pixels */
	enum tk_chart_anchor anchor;
	uint32_t colour;
	/* A label beside a point of the zoomable plot area: the x it keeps
	 * beside (the SVG's data-x) as the page zooms the time axis; NaN:
	 * the text stays where it is. */
	double follow;
};

struct tk_chart_rect {
	double x, y, w, h;
};

/* A group of shapes: the page finds it by class or id. A group with a
 * clip is a chart's plot area: what it holds is cut to the clip, and on
 * the page it zooms with the time axis. */
struct tk_chart_group {
	const char *cls, *id;     /* NULL: none */
	double size;              /* its texts' font size; 0: as around it */
	const struct tk_chart_rect *clip; /* NULL: none */
};

/*
 * A painter: ctx and what it does with each shape. fit and measure
 * answer for text at a font size: how many characters of s fit in width
 * pixels, followed by an ellipsis when they are not all of s; how wide
 * s is. Groups nest: each group() is closed by one group_end().
 */
struct tk_chart_painter {
	void *ctx;
	size_t (*fit)(void *ctx, const char *s, double size, double width);
	double (*measure)(void *ctx, const char *s, double size);
	void (*begin)(void *ctx, double width, double height, uint32_t background);
	void (*end)(void *ctx);
	void (*group)(void *ctx, const struct tk_chart_group *g);
	void (*group_end)(void *ctx);
	void (*rect)(void *ctx, const struct tk_chart_rect *r, const struct tk_chart_paint *p);
	void (*line)(void *ctx, double x1, double y1, double x2, double y2,
		     const struct tk_chart_paint *p);
	/* One dot of radius r, filled. */
	void (*circle)(void *ctx, double x, double y, double r, const struct tk_chart_paint *p);
	/* The points joined in order, stroked. */
	void (*polyline)(void *ctx, const struct tk_chart_points *pts,
			 const struct tk_chart_paint *p);
	/* The area between two lines over the same x, filled: top forward,
	 * then bottom backward. */
	void (*area)(void *ctx, const struct tk_chart_points *top,
		     const struct tk_chart_points *bottom, const struct tk_chart_paint *p);
	/* A dot of radius r at each point, filled: the runs of one class,
	 * thousands of them; they stay round when the page zooms. */
	void (*dots)(void *ctx, const struct tk_chart_points *pts, double r,
		     const struct tk_chart_paint *p);
	void (*text)(void *ctx, const struct tk_chart_text *t);
};

/* Draws the charts of l with p: begin, each chart's shapes, end. */
void tk_chart_draw(const struct tk_plot_layout *l, const struct tk_chart_painter *p);

/*
 * The machine classes of l's runs, each once (NULL too, when a run has
 * none), in the order of the keys and their runs: the page's list of
 * classes. In a chart with several baseline series, the shapes of class
 * j's series carry the class s-mc<j>. *names is malloc'd (the caller
 * frees it; its strings are the data's); returns how many.
 */
size_t tk_chart_classes(const struct tk_plot_layout *l, const char ***names);

/*
 * The width of s at size pixels as a viewer lays out Verdana, estimated
 * a little wide (0.62 em a character; 6.5 pixels at the legend's 11):
 * the SVG painter's answer, and the walk's own when what it decides must
 * be the same in every format (which series a legend has room for).
 */
double tk_chart_text_estimate(const char *s, double size);

#endif
