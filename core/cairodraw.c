/*
 * The cairo pictures' shared parts: see core/cairodraw.h.
 */
#include <cairo-pdf.h>
#include <math.h>
#include <string.h>

#include "core/cairodraw.h"
#include "core/err.h"
#include "core/flame.h"
#include "core/render.h"
#include "core/utf8.h"
#include "core/banned.h"

/* cairo's image surfaces stop at 32767 pixels a side. */
#define MAX_IMAGE_HEIGHT 32000.0

void tk_cairo_graph_init(struct tk_cairo_graph *g, const struct tk_render_opts *o, double width)
{
	memset(g, 0, sizeof(*g));
	g->width = width;
	g->frame_h = o->frame_height > 0 ? o->frame_height : 16;
	g->font = o->font_size > 0 ? o->font_size : 12;
	g->pad_side = 10;
}

void tk_cairo_graph_fit(struct tk_cairo_graph *g, double pad_top, const struct tk_flame *f)
{
	g->pad_top = pad_top;
	if (g->pad_top + (f->max_depth + 1) * g->frame_h + 4 * g->pad_side > MAX_IMAGE_HEIGHT)
		g->frame_h = (MAX_IMAGE_HEIGHT - g->pad_top - 4 * g->pad_side) / (f->max_depth + 1);
	g->height = g->pad_top + (f->max_depth + 1) * g->frame_h + 4 * g->pad_side;
	g->scale = f->total > 0 ? (g->width - 2 * g->pad_side) / f->total : 0;
}

static cairo_status_t write_file(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int tk_cairo_render(struct tk_cairo_graph *g, enum tk_cairo_format fmt, FILE *out,
		    void (*draw)(void *arg), void *arg, struct tk_err *err)
{
	cairo_surface_t *s;
	cairo_status_t st;

	if (fmt == TK_CAIRO_PDF)
		s = cairo_pdf_surface_create_for_stream(write_file, out, g->width, g->height);
	else
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(g->width),
					       (int)ceil(g->height));
	st = cairo_surface_status(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return tk_err_set(err, TK_EINTERNAL, "cannot create the image: %s",
				  cairo_status_to_string(st));
	}
	g->cr = cairo_create(s);
	draw(arg);
	cairo_destroy(g->cr);
	g->cr = NULL;
	if (fmt == TK_CAIRO_PNG)
		st = cairo_surface_write_to_png_stream(s, write_file, out);
	/* the PDF is written as it is finished */
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (st == CAIRO_STATUS_SUCCESS && (fflush(out) || ferror(out)))
		st = CAIRO_STATUS_WRITE_ERROR;
	if (st != CAIRO_STATUS_SUCCESS)
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the image: %s",
				  cairo_status_to_string(st));
	return 0;
}

void tk_cairo_background(const struct tk_cairo_graph *g, uint32_t bottom_rgb)
{
	cairo_pattern_t *bg = cairo_pattern_create_linear(0, 0, 0, g->height);

	cairo_pattern_add_color_stop_rgb(bg, 0, 0xee / 255.0, 0xee / 255.0, 0xee / 255.0);
	cairo_pattern_add_color_stop_rgb(bg, 1, (bottom_rgb >> 16 & 255) / 255.0,
					 (bottom_rgb >> 8 & 255) / 255.0, (bottom_rgb & 255) / 255.0);
	cairo_set_source(g->cr, bg);
	cairo_paint(g->cr);
	cairo_pattern_destroy(bg);
}

void tk_cairo_title(const struct tk_cairo_graph *g, const char *title, size_t max_chars)
{
	cairo_select_font_face(g->cr, "Verdana", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(g->cr, g->font + 5);
	cairo_set_source_rgb(g->cr, 0, 0, 0);
	tk_cairo_text_centred(g, title, max_chars, g->font * 2);
}

void tk_cairo_text(const struct tk_cairo_graph *g, const char *s, size_t max_chars, double x,
		   double y)
{
	struct tk_buf t = TK_BUF_INIT;

	tk_cairo_add_utf8(&t, s, strlen(s), max_chars);
	cairo_move_to(g->cr, x, y);
	cairo_show_text(g->cr, t.buf);
	tk_buf_release(&t);
}

void tk_cairo_text_centred(const struct tk_cairo_graph *g, const char *s, size_t max_chars,
			   double y)
{
	struct tk_buf t = TK_BUF_INIT;
	cairo_text_extents_t ext;

	tk_cairo_add_utf8(&t, s, strlen(s), max_chars);
	cairo_text_extents(g->cr, t.buf, &ext);
	cairo_move_to(g->cr, (g->width - ext.x_advance) / 2, y);
	cairo_show_text(g->cr, t.buf);
	tk_buf_release(&t);
}

int tk_cairo_frame_box(const struct tk_cairo_graph *g, const struct tk_flame_frame *fr,
		       int inverted, double *x, double *y, double *w)
{
	*x = g->pad_side + fr->start * g->scale;
	*w = fr->width * g->scale;
	if (inverted)
		*y = g->pad_top + fr->depth * g->frame_h;
	else
		*y = g->height - g->pad_side * 2 - (fr->depth + 1) * g->frame_h;
	return !(*y < g->pad_top - g->frame_h || *w < 0.1);
}

void tk_cairo_label(const struct tk_cairo_graph *g, const char *name, size_t len, double x,
		    double y, double w)
{
	struct tk_buf t = TK_BUF_INIT;
	/* Verdana's mean character width is about 0.59 em */
	size_t fit = (size_t)(w / (g->font * 0.59));

	if (fit < 3)
		return;
	if (tk_cairo_add_utf8(&t, name, len, fit) && t.len > 2) {
		tk_buf_reset(&t);
		tk_cairo_add_utf8(&t, name, len, fit - 2);
		tk_buf_adds(&t, "..");
	}
	cairo_move_to(g->cr, x + 3, y + g->frame_h - 4.5);
	cairo_show_text(g->cr, t.buf);
	tk_buf_release(&t);
}

size_t tk_cairo_add_utf8(struct tk_buf *b, const char *s, size_t len, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0;

	while (len && chars < max_chars) {
		size_t n = tk_utf8_seqlen(p, len);

		if (n)
			tk_buf_add(b, p, n);
		else
			tk_buf_adds(b, "\xef\xbf\xbd");
		p += n ? n : 1;
		len -= n ? n : 1;
		chars++;
	}
	return len;
}
