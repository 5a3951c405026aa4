/*
 * Flame graphs on a canvas: see core/draw/cairodraw.h.
 */
#include <math.h>
#include <string.h>

#include "core/draw/cairodraw.h"
#include "core/draw/flame.h"
#include "core/draw/render.h"
#include "core/base/banned.h"

/* cairo's image surfaces stop at 32767 pixels a side. */
#define MAX_IMAGE_HEIGHT 32000.0

void tk_cairo_graph_init(struct tk_cairo_graph *g, const struct tk_render_opts *o, double width)
{
	memset(g, 0, sizeof(*g));
	tk_canvas_init(&g->c, width, 0, o->font_size);
	g->frame_h = o->frame_height > 0 ? o->frame_height : 16;
	g->pad_side = 10;
}

void tk_cairo_graph_fit(struct tk_cairo_graph *g, double pad_top, const struct tk_flame *f)
{
	g->pad_top = pad_top;
	if (g->pad_top + (f->max_depth + 1) * g->frame_h + 4 * g->pad_side > MAX_IMAGE_HEIGHT)
		g->frame_h = (MAX_IMAGE_HEIGHT - g->pad_top - 4 * g->pad_side) / (f->max_depth + 1);
	g->c.height = g->pad_top + (f->max_depth + 1) * g->frame_h + 4 * g->pad_side;
	g->scale = f->total > 0 ? (g->c.width - 2 * g->pad_side) / f->total : 0;
}

int tk_cairo_frame_box(const struct tk_cairo_graph *g, const struct tk_flame_frame *fr,
		       int inverted, double *x, double *y, double *w)
{
	*x = g->pad_side + fr->start * g->scale;
	*w = fr->width * g->scale;
	if (inverted)
		*y = g->pad_top + fr->depth * g->frame_h;
	else
		*y = g->c.height - g->pad_side * 2 - (fr->depth + 1) * g->frame_h;
	return !(*y < g->pad_top - g->frame_h || *w < 0.1);
}

void tk_cairo_label(const struct tk_cairo_graph *g, const char *name, size_t len, double x,
		    double y, double w)
{
	struct tk_buf t = TK_BUF_INIT;
	/* Verdana's mean character width is about 0.59 em */
	size_t fit = (size_t)(w / (g->c.font * 0.59));

	if (fit < 3)
		return;
	if (tk_canvas_add_utf8(&t, name, len, fit) && t.len > 2) {
		tk_buf_reset(&t);
		tk_canvas_add_utf8(&t, name, len, fit - 2);
		tk_buf_adds(&t, "..");
	}
	cairo_move_to(g->c.cr, x + 3, y + g->frame_h - 4.5);
	cairo_show_text(g->c.cr, t.buf);
	tk_buf_release(&t);
}
