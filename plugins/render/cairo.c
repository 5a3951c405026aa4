/*
 * .png and .pdf through cairo: a static flame graph for build annotations
 * and papers. One drawing routine serves both surfaces, so this file
 * exports two descriptors (an exception to one-symbol-per-plugin: the
 * formats share everything but the surface).
 *
 * Names are drawn with cairo's text API, which wants UTF-8: bytes that
 * are not valid UTF-8 are drawn as U+FFFD.
 */
#include <cairo.h>
#include <cairo-pdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/render.h"
#include "core/timeutil.h"
#include "core/utf8.h"
#include "core/banned.h"

#define MAX_IMAGE_HEIGHT 32000.0

enum surface_kind { SURFACE_PNG, SURFACE_PDF };

/* Appends up to max_chars characters of s, invalid bytes as U+FFFD. */
static void add_utf8(struct tk_buf *b, const char *s, size_t max_chars)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), chars = 0;

	while (left && chars < max_chars) {
		size_t n = tk_utf8_seqlen(p, left);

		if (n)
			tk_buf_add(b, p, n);
		else
			tk_buf_adds(b, "\xef\xbf\xbd");
		p += n ? n : 1;
		left -= n ? n : 1;
		chars++;
	}
}

struct ctx {
	cairo_t *cr;
	const struct tk_profile *p;
	const struct tk_flame *f;
	const struct tk_render_opts *o;
	double width, height, frame_h, pad_top, pad_side, font;
	double scale; /* pixels per weight unit */
};

static void draw_label(struct ctx *c, const char *name, double x, double y, double w)
{
	struct tk_buf t = TK_BUF_INIT;
	size_t fit = (size_t)(w / (c->font * 0.59));

	if (fit < 3)
		return;
	add_utf8(&t, name, fit);
	if (strlen(name) > fit && t.len > 2) {
		tk_buf_reset(&t);
		add_utf8(&t, name, fit - 2);
		tk_buf_adds(&t, "..");
	}
	cairo_set_source_rgb(c->cr, 0, 0, 0);
	cairo_move_to(c->cr, x + 3, y + c->frame_h - 4.5);
	cairo_show_text(c->cr, t.buf);
	tk_buf_release(&t);
}

static void draw(struct ctx *c)
{
	struct tk_buf t = TK_BUF_INIT;
	cairo_pattern_t *bg;
	size_t i;

	bg = cairo_pattern_create_linear(0, 0, 0, c->height);
	cairo_pattern_add_color_stop_rgb(bg, 0, 0xee / 255.0, 0xee / 255.0, 0xee / 255.0);
	cairo_pattern_add_color_stop_rgb(bg, 1, 0xee / 255.0, 0xee / 255.0, 0xb0 / 255.0);
	cairo_set_source(c->cr, bg);
	cairo_paint(c->cr);
	cairo_pattern_destroy(bg);

	cairo_select_font_face(c->cr, "Verdana", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(c->cr, c->font + 5);
	cairo_set_source_rgb(c->cr, 0, 0, 0);
	add_utf8(&t, c->o->title ? c->o->title : "Flame Graph", 200);
	{
		cairo_text_extents_t ext;

		cairo_text_extents(c->cr, t.buf, &ext);
		cairo_move_to(c->cr, (c->width - ext.x_advance) / 2, c->font * 2);
		cairo_show_text(c->cr, t.buf);
	}
	if (c->o->subtitle) {
		cairo_text_extents_t ext;

		tk_buf_reset(&t);
		add_utf8(&t, c->o->subtitle, 300);
		cairo_set_font_size(c->cr, c->font);
		cairo_text_extents(c->cr, t.buf, &ext);
		cairo_move_to(c->cr, (c->width - ext.x_advance) / 2, c->font * 3.5);
		cairo_show_text(c->cr, t.buf);
	}
	tk_buf_release(&t);

	cairo_set_font_size(c->cr, c->font);
	for (i = 0; i < c->f->nr; i++) {
		const struct tk_flame_frame *fr = &c->f->frames[i];
		const char *name = fr->node == TK_PROFILE_ROOT ? "all" : tk_profile_name(c->p, fr->node);
		double x = c->pad_side + fr->start * c->scale;
		double w = fr->width * c->scale;
		double y;
		int r, g, b;

		if (c->o->inverted)
			y = c->pad_top + fr->depth * c->frame_h;
		else
			y = c->height - c->pad_side * 2 - (fr->depth + 1) * c->frame_h;
		if (y < c->pad_top - c->frame_h || w < 0.1)
			continue;
		tk_palette_color(c->o->palette, name, &r, &g, &b);
		cairo_set_source_rgb(c->cr, r / 255.0, g / 255.0, b / 255.0);
		cairo_rectangle(c->cr, x, y, w > 1 ? w - 0.5 : w, c->frame_h - 1);
		cairo_fill(c->cr);
		draw_label(c, name, x, y, w);
	}
}

static cairo_status_t write_file(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int render(const struct tk_profile *p, const struct tk_flame *f,
		  const struct tk_render_opts *o, FILE *out, enum surface_kind kind,
		  struct tk_err *err)
{
	struct ctx c;
	cairo_surface_t *s;
	cairo_status_t st;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.f = f;
	c.o = o;
	c.width = o->image_width > 0 ? o->image_width : 1200;
	c.frame_h = o->frame_height > 0 ? o->frame_height : 16;
	c.font = o->font_size > 0 ? o->font_size : 12;
	c.pad_side = 10;
	c.pad_top = c.font * 3 + (o->subtitle ? c.font * 2 : 0);
	/* A very deep graph shrinks its frames to stay within cairo's limits. */
	if (c.pad_top + (f->max_depth + 1) * c.frame_h + 4 * c.pad_side > MAX_IMAGE_HEIGHT)
		c.frame_h = (MAX_IMAGE_HEIGHT - c.pad_top - 4 * c.pad_side) / (f->max_depth + 1);
	c.height = c.pad_top + (f->max_depth + 1) * c.frame_h + 4 * c.pad_side;
	c.scale = f->total > 0 ? (c.width - 2 * c.pad_side) / f->total : 0;

	if (kind == SURFACE_PDF)
		s = cairo_pdf_surface_create_for_stream(write_file, out, c.width, c.height);
	else
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(c.width),
					       (int)ceil(c.height));
	st = cairo_surface_status(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return tk_err_set(err, TK_EINTERNAL, "cannot create the image: %s",
				  cairo_status_to_string(st));
	}
	c.cr = cairo_create(s);
	draw(&c);
	cairo_destroy(c.cr);
	if (kind == SURFACE_PNG)
		st = cairo_surface_write_to_png_stream(s, write_file, out);
	cairo_surface_finish(s);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(s);
	cairo_surface_destroy(s);
	if (st != CAIRO_STATUS_SUCCESS)
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the image: %s",
				  cairo_status_to_string(st));
	return 0;
}

static int png_render(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	return render(p, f, o, out, SURFACE_PNG, err);
}

static int pdf_render(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	return render(p, f, o, out, SURFACE_PDF, err);
}

const struct tk_renderer tk_render_png = {
	.version = TK_RENDERER_VERSION,
	.name = "png",
	.ext = ".png",
	.render = png_render,
};

const struct tk_renderer tk_render_pdf = {
	.version = TK_RENDERER_VERSION,
	.name = "pdf",
	.ext = ".pdf",
	.render = pdf_render,
};
