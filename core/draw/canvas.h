#ifndef TK_CANVAS_H
#define TK_CANVAS_H
/*
 * A cairo canvas for tracker's static pictures: a surface of a given
 * size written as PNG or PDF to a stream, the background, the title,
 * text from untrusted UTF-8, and axes with readable ticks. The flame
 * graphs' boxes (core/draw/cairodraw.h) are drawn on it, and so are plots.
 *
 * A picture is made in this order:
 *
 *   struct tk_canvas c;
 *   tk_canvas_init(&c, width, height, font);
 *   return tk_canvas_render(&c, TK_CANVAS_PNG, out, draw, arg, err);
 *
 * and draw(arg) paints on c.cr with the functions below and cairo's own.
 *
 * Every function here that draws a string draws it as a terminal shows
 * it: the characters of the one rule of core/base/escape.h (controls,
 * bidirectional controls, bytes that are not valid UTF-8, which cairo's
 * text API refuses) as "\xNN" per byte. Nothing here prints, exits or
 * keeps global state.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/lazy-cairo.h"

struct tk_err;

struct tk_canvas {
	cairo_t *cr;          /* while tk_canvas_render draws, else NULL */
	double width, height; /* pixels (PNG) or points (PDF) */
	double font;          /* the text's size; the title's is 5 more */
	/* The PDF's creation date, ISO 8601 ("2026-11-24T18:00:00Z"); NULL:
	 * cairo's (now). A picture of data gives the data's date, so the
	 * same data makes the same bytes. */
	const char *pdf_date;
};

/* Zeroes c and sets its size and font size (12 when font <= 0). */
void tk_canvas_init(struct tk_canvas *c, double width, double height, double font);

enum tk_canvas_format { TK_CANVAS_PNG, TK_CANVAS_PDF };

/*
 * Creates the surface of c's size, calls draw(arg) with c->cr set, and
 * writes the image to out (the PDF as cairo produces it, the PNG when
 * drawn), then flushes out. Returns 0; TK_EINTERNAL when the surface
 * cannot be created (draw is not called); TK_EUNAVAIL when cairo fails
 * while drawing or writing, or a write to out fails. Messages name
 * cairo's status. out is not closed.
 */
int tk_canvas_render(struct tk_canvas *c, enum tk_canvas_format fmt, FILE *out,
		     void (*draw)(void *arg), void *arg, struct tk_err *err);

/* Paints the whole image with a vertical gradient from top_rgb to
 * bottom_rgb (0xRRGGBB). */
void tk_canvas_background(const struct tk_canvas *c, uint32_t top_rgb, uint32_t bottom_rgb);

/* Selects the font (Verdana) and draws title, at most max_chars
 * characters, in black at the title's size, centred at the top. */
void tk_canvas_title(const struct tk_canvas *c, const char *title, size_t max_chars);

/* Draws s, at most max_chars characters, with the current font and
 * source: from (x, y); centred on the image at y; ending at x. */
void tk_canvas_text(const struct tk_canvas *c, const char *s, size_t max_chars, double x,
		    double y);
void tk_canvas_text_centred(const struct tk_canvas *c, const char *s, size_t max_chars,
			    double y);
void tk_canvas_text_right(const struct tk_canvas *c, const char *s, size_t max_chars, double x,
			  double y);

/* Appends up to max_chars characters of s[0..len) as the text rule of
 * core/base/escape.h writes them (valid UTF-8, "\xNN" per byte of a
 * hidden character, 4 characters a byte); returns the number of bytes of
 * s left over (0: all of s fitted). */
size_t tk_canvas_add_utf8(struct tk_buf *b, const char *s, size_t len, size_t max_chars);

/*
 * Ticks for an axis over [lo, hi]: at most max_ticks (2..32) values,
 * multiples of 1, 2 or 5 times a power of ten, inside [lo, hi], in
 * increasing order. Returns how many were written to ticks (0 when the
 * range is empty or not finite; the single value when lo == hi).
 */
size_t tk_canvas_ticks(double lo, double hi, size_t max_ticks, double *ticks);

/*
 * An axis: its value range, the tick labels' text (label(v, b, data)
 * appends v's label to b; NULL: "%g"), and at most max_ticks ticks.
 */
struct tk_canvas_axis {
	double lo, hi;
	size_t max_ticks;
	void (*label)(double v, struct tk_buf *b, void *data);
	void *data;
};

/*
 * Draws the frame of the plot area (x0, y0)-(x1, y1) (y0 the top) with
 * x's ticks and labels under it and y's to the left of it, and faint
 * grid lines at y's ticks. Values map linearly: x->lo to x0, y->lo to y1.
 */
void tk_canvas_axes(const struct tk_canvas *c, double x0, double y0, double x1, double y1,
		    const struct tk_canvas_axis *x, const struct tk_canvas_axis *y);

#endif
