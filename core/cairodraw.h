#ifndef TK_CAIRODRAW_H
#define TK_CAIRODRAW_H
/*
 * What the static cairo pictures share: the flame graph's .png and .pdf
 * (plugins/render/cairo.c) and the diff's (plugins/diffrender/png.c).
 * The image's geometry, the surface for either format written to a
 * stream, and drawing: the background, the title, text and frame labels
 * from untrusted UTF-8.
 *
 * A picture is made in this order:
 *
 *   tk_cairo_graph_init(&g, o, width);
 *   tk_cairo_graph_fit(&g, pad_top, f);     (pad_top from g.font)
 *   return tk_cairo_render(&g, TK_CAIRO_PNG, out, draw, arg, err);
 *
 * and draw(arg) paints on g.cr: tk_cairo_background, tk_cairo_title,
 * then for each frame tk_cairo_frame_box, a fill, tk_cairo_label.
 *
 * cairo's text API wants UTF-8: every function here that draws a string
 * draws the bytes that are not valid UTF-8 as U+FFFD. Nothing here
 * prints, exits or keeps global state.
 */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>

#include "core/buf.h"

struct tk_err;
struct tk_flame;
struct tk_flame_frame;
struct tk_render_opts;

struct tk_cairo_graph {
	cairo_t *cr;           /* while tk_cairo_render draws, else NULL */
	double width, height;  /* the image: pixels (PNG) or points (PDF) */
	double frame_h;        /* a frame's height */
	double font;           /* the labels' font size; the title's is 5 more */
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

enum tk_cairo_format { TK_CAIRO_PNG, TK_CAIRO_PDF };

/*
 * Creates the surface of g's size, calls draw(arg) with g->cr set, and
 * writes the image to out (the PDF as cairo produces it, the PNG when
 * drawn), then flushes out. Returns 0; TK_EINTERNAL when the surface
 * cannot be created (draw is not called); TK_EUNAVAIL when cairo fails
 * while drawing or writing, or a write to out fails. Messages name
 * cairo's status. out is not closed.
 */
int tk_cairo_render(struct tk_cairo_graph *g, enum tk_cairo_format fmt, FILE *out,
		    void (*draw)(void *arg), void *arg, struct tk_err *err);

/* Paints the whole image with the vertical gradient from #eeeeee at the
 * top to bottom_rgb (0xRRGGBB) at the bottom. */
void tk_cairo_background(const struct tk_cairo_graph *g, uint32_t bottom_rgb);

/* Selects the font (Verdana) and draws title, at most max_chars
 * characters, in black at the title's size, centred at the top. */
void tk_cairo_title(const struct tk_cairo_graph *g, const char *title, size_t max_chars);

/* Draws s, at most max_chars characters, with the current font and
 * source, from (x, y) or centred on the image at y. */
void tk_cairo_text(const struct tk_cairo_graph *g, const char *s, size_t max_chars, double x,
		   double y);
void tk_cairo_text_centred(const struct tk_cairo_graph *g, const char *s, size_t max_chars,
			   double y);

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

/* Appends up to max_chars characters of s[0..len), bytes that are not
 * valid UTF-8 as U+FFFD (one character each); returns the number of
 * bytes of s left over (0: all of s fitted). */
size_t tk_cairo_add_utf8(struct tk_buf *b, const char *s, size_t len, size_t max_chars);

#endif
