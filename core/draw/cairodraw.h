#ifndef TK_CAIRODRAW_H
#define TK_CAIRODRAW_H
/*
 * Flame graphs on a canvas (core/draw/canvas.h): what the flame graph's .png
 * and .pdf (plugins/render/cairo.c) and the diff's
 * (plugins/diffrender/png.c) share: the geometry of the frames and their
 * labels. The surface, the background, the title and text are the
 * canvas's, which plots use too.
 *
 * A picture is made in this order:
 *
 *   tk_cairo_graph_init(&g, o, width);
 *   tk_cairo_graph_fit(&g, pad_top, f);     (pad_top from g.c.font)
 *   return tk_canvas_render(&g.c, TK_CANVAS_PNG, out, draw, arg, err);
 *
 * and draw(arg) paints on g.c.cr: tk_canvas_background, tk_canvas_title,
 * then for each frame tk_cairo_frame_box, a fill, tk_cairo_label.
 *
 * Labels are untrusted: drawn as a terminal shows them (controls and
 * bytes that are not valid UTF-8 as "\xNN", core/draw/canvas.h). Nothing
 * here prints, exits or keeps global state.
 */
#include <stddef.h>

#include "core/draw/canvas.h"

struct tk_flame;
struct tk_flame_frame;
struct tk_render_opts;

struct tk_cairo_graph {
	struct tk_canvas c;    /* the picture: c.cr, c.width, c.height, and
				  c.font, the labels' size (the title's is
				  5 more) */
	double frame_h;        /* a frame's height */
	double pad_top;        /* the frames' area starts here */
	double pad_side;       /* left and right of the frames */
	double scale;          /* pixels per weight unit */
};

/* Zeroes g and takes width, o's frame height (default 16) and font size
 * (default 12); pad_side is 10. */
void tk_cairo_graph_init(struct tk_cairo_graph *g, const struct tk_render_opts *o, double width);

/*
 * Sets pad_top, the image's height for f's levels, and the scale for
 * f's total. A graph too deep for cairo's image size limit (32000
 * pixels) gets thinner frames instead.
 */
void tk_cairo_graph_fit(struct tk_cairo_graph *g, double pad_top, const struct tk_flame *f);

/*
 * The box of frame fr: x and y its top left, w its width. Returns 0
 * when it is not drawn: narrower than a tenth of a pixel, or above the
 * frames' area. The root is at the bottom (or, inverted, at the top).
 */
int tk_cairo_frame_box(const struct tk_cairo_graph *g, const struct tk_flame_frame *fr,
		       int inverted, double *x, double *y, double *w);

/*
 * Draws the label of the frame box at (x, y), w wide, in the current
 * source: name[0..len), or its first characters and "..", or nothing
 * when fewer than 3 characters fit.
 */
void tk_cairo_label(const struct tk_cairo_graph *g, const char *name, size_t len, double x,
		    double y, double w);

#endif
