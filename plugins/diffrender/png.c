/*
 * .png and .pdf for diffs through cairo: the differential flame graph as
 * a static picture for build annotations, coloured for one mode
 * (o->mode), widths by the new or the baseline profile
 * (o->width_by_base), with the comparison and a small legend under the
 * title. The colours are the HTML page's and the SVG's (docs/diff-pages.md).
 * One drawing routine serves both surfaces, hence two descriptors, as in
 * plugins/render/cairo.c.
 *
 * cairo's text API wants UTF-8: invalid bytes in names are drawn as U+FFFD.
 */
#include <cairo.h>
#include <cairo-pdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diffrender.h"
#include "core/flame.h"
#include "core/utf8.h"
#include "core/banned.h"

#define MAX_IMAGE_HEIGHT 32000.0

enum surface_kind { SURFACE_PNG, SURFACE_PDF };

/* Appends up to max_chars characters of s[0..len), invalid bytes as U+FFFD. */
static size_t add_utf8(struct tk_buf *b, const char *s, size_t len, size_t max_chars)
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

struct ctx {
	cairo_t *cr;
	const struct tk_diff *d;
	const struct tk_diff_opts *dopts;
	const struct tk_diff_render_opts *o;
	const struct tk_flame *f;
	double width, height, frame_h, pad_top, pad_side, font;
	double scale;
};

static void parse_hex(const char *s, double *r, double *g, double *b)
{
	unsigned long x = 0;
	char *end = NULL;

	*r = *g = *b = 0;
	if (!s || s[0] != '#' || strlen(s) != 7)
		return;
	x = strtoul(s + 1, &end, 16);
	if (*end)
		return;
	*r = (x >> 16 & 255) / 255.0;
	*g = (x >> 8 & 255) / 255.0;
	*b = (x & 255) / 255.0;
}

/* Sets the fill of a class; returns 1 when labels should be white. */
static int set_fill(struct ctx *c, enum tk_diff_class cls, double in)
{
	double v = floor(220 - 190 * (in < 0 ? 0 : in > 1 ? 1 : in) + 0.5) / 255.0, r, g, b;

	switch (cls) {
	case TK_DIFF_UP:
		cairo_set_source_rgb(c->cr, 1, v, v);
		return in > 0.8;
	case TK_DIFF_DOWN:
		cairo_set_source_rgb(c->cr, v, v, 1);
		return in > 0.8;
	case TK_DIFF_NEW:
		parse_hex(c->o->new_color ? c->o->new_color : "#000000", &r, &g, &b);
		cairo_set_source_rgb(c->cr, r, g, b);
		return r * 0.299 + g * 0.587 + b * 0.114 < 0.5;
	case TK_DIFF_VANISHED:
		cairo_set_source_rgb(c->cr, 60 / 255.0, 60 / 255.0, 1);
		return 1;
	default:
		cairo_set_source_rgb(c->cr, 200 / 255.0, 200 / 255.0, 200 / 255.0);
		return 0;
	}
}

/* Vanished frames are hatched: the stripes over a pale fill. */
static void hatch(struct ctx *c, double x, double y, double w, double h)
{
	double k;

	cairo_save(c->cr);
	cairo_rectangle(c->cr, x, y, w, h);
	cairo_clip(c->cr);
	cairo_set_source_rgb(c->cr, 225 / 255.0, 225 / 255.0, 235 / 255.0);
	cairo_paint(c->cr);
	cairo_set_source_rgb(c->cr, 60 / 255.0, 60 / 255.0, 1);
	cairo_set_line_width(c->cr, 2);
	for (k = x - h; k < x + w; k += 6) {
		cairo_move_to(c->cr, k, y + h);
		cairo_line_to(c->cr, k + h, y);
	}
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
}

static void draw_label(struct ctx *c, const char *name, size_t len, double x, double y,
		       double w, int white)
{
	struct tk_buf t = TK_BUF_INIT;
	size_t fit = (size_t)(w / (c->font * 0.59));

	if (fit < 3)
		return;
	if (add_utf8(&t, name, len, fit) && t.len > 2) {
		tk_buf_reset(&t);
		add_utf8(&t, name, len, fit - 2);
		tk_buf_adds(&t, "..");
	}
	cairo_set_source_rgb(c->cr, white, white, white);
	cairo_move_to(c->cr, x + 3, y + c->frame_h - 4.5);
	cairo_show_text(c->cr, t.buf);
	tk_buf_release(&t);
}

static void text(struct ctx *c, const char *s, double x, double y, int centred)
{
	struct tk_buf t = TK_BUF_INIT;
	cairo_text_extents_t ext;

	add_utf8(&t, s, strlen(s), 300);
	if (centred) {
		cairo_text_extents(c->cr, t.buf, &ext);
		x = (c->width - ext.x_advance) / 2;
	}
	cairo_move_to(c->cr, x, y);
	cairo_show_text(c->cr, t.buf);
	tk_buf_release(&t);
}

static void swatch(struct ctx *c, double x, double y, enum tk_diff_class cls, const char *label)
{
	if (cls == TK_DIFF_VANISHED) {
		hatch(c, x, y - c->font + 2, 14, c->font);
	} else {
		set_fill(c, cls, 1);
		cairo_rectangle(c->cr, x, y - c->font + 2, 14, c->font);
		cairo_fill(c->cr);
	}
	cairo_set_source_rgb(c->cr, 0, 0, 0);
	text(c, label, x + 18, y, 0);
}

static void headings(struct ctx *c)
{
	const struct tk_diff_render_opts *o = c->o;
	struct tk_buf t = TK_BUF_INIT;
	cairo_pattern_t *ramp;
	double y = c->font * 2, x = c->pad_side, sat = c->dopts->saturation > 0 ? c->dopts->saturation : 1;

	cairo_select_font_face(c->cr, "Verdana", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(c->cr, c->font + 5);
	cairo_set_source_rgb(c->cr, 0, 0, 0);
	text(c, o->render.title && *o->render.title ? o->render.title : "Differential Flame Graph",
	     0, y, 1);
	cairo_set_font_size(c->cr, c->font);
	if (o->render.subtitle && *o->render.subtitle) {
		y += c->font * 2;
		text(c, o->render.subtitle, 0, y, 1);
	}
	tk_buf_addf(&t, "%s compared with the baseline %s; colour: %s change; width: %s",
		    o->new_label ? o->new_label : "new", o->base_label ? o->base_label : "base",
		    o->mode == TK_DIFF_CUMULATIVE ? "cumulative" : "self",
		    o->width_by_base ? "baseline" : "new");
	y += c->font * 2;
	text(c, t.buf, 0, y, 1);
	tk_buf_reset(&t);

	y += c->font * 2;
	tk_buf_addf(&t, "-%g%%", 100 * sat);
	text(c, t.buf, x, y, 0);
	x += c->font * 4;
	ramp = cairo_pattern_create_linear(x, 0, x + 160, 0);
	cairo_pattern_add_color_stop_rgb(ramp, 0, 30 / 255.0, 30 / 255.0, 1);
	cairo_pattern_add_color_stop_rgb(ramp, 0.499, 220 / 255.0, 220 / 255.0, 1);
	cairo_pattern_add_color_stop_rgb(ramp, 0.501, 1, 220 / 255.0, 220 / 255.0);
	cairo_pattern_add_color_stop_rgb(ramp, 1, 1, 30 / 255.0, 30 / 255.0);
	cairo_set_source(c->cr, ramp);
	cairo_rectangle(c->cr, x, y - c->font + 2, 160, c->font);
	cairo_fill(c->cr);
	cairo_pattern_destroy(ramp);
	cairo_set_source_rgb(c->cr, 0, 0, 0);
	tk_buf_reset(&t);
	tk_buf_addf(&t, "+%g%%", 100 * sat);
	text(c, t.buf, x + 166, y, 0);
	x += 166 + c->font * 5;
	swatch(c, x, y, TK_DIFF_NEW, "new (not in baseline)");
	x += 18 + c->font * 0.59 * 22;
	swatch(c, x, y, TK_DIFF_VANISHED, "vanished");
	x += 18 + c->font * 0.59 * 10;
	swatch(c, x, y, TK_DIFF_NOISE, "noise");
	tk_buf_release(&t);
}

static void draw(struct ctx *c)
{
	cairo_pattern_t *bg;
	size_t i;

	bg = cairo_pattern_create_linear(0, 0, 0, c->height);
	cairo_pattern_add_color_stop_rgb(bg, 0, 0xee / 255.0, 0xee / 255.0, 0xee / 255.0);
	cairo_pattern_add_color_stop_rgb(bg, 1, 0xe8 / 255.0, 0xe8 / 255.0, 0xf4 / 255.0);
	cairo_set_source(c->cr, bg);
	cairo_paint(c->cr);
	cairo_pattern_destroy(bg);
	headings(c);

	cairo_set_font_size(c->cr, c->font);
	for (i = 0; i < c->f->nr; i++) {
		const struct tk_flame_frame *fr = &c->f->frames[i];
		const struct tk_profile *p = &c->d->tree;
		const char *name = fr->node == TK_PROFILE_ROOT ? "all" : tk_profile_name(p, fr->node);
		size_t len = fr->node == TK_PROFILE_ROOT ? 3 : p->name_lens[p->nodes[fr->node].name];
		double x = c->pad_side + fr->start * c->scale, w = fr->width * c->scale, in = 0;
		double y = c->height - c->pad_side * 2 - (fr->depth + 1) * c->frame_h;
		double fw = w > 1 ? w - 0.5 : w;
		enum tk_diff_class cls;
		int white;

		if (y < c->pad_top - c->frame_h || w < 0.1)
			continue;
		cls = tk_diff_classify(c->d, fr->node, c->o->mode, c->dopts, &in);
		white = set_fill(c, cls, in);
		if (cls == TK_DIFF_VANISHED) {
			hatch(c, x, y, fw, c->frame_h - 1);
			white = 0;
		} else {
			cairo_rectangle(c->cr, x, y, fw, c->frame_h - 1);
			cairo_fill(c->cr);
		}
		draw_label(c, name, len, x, y, w, white);
	}
}

static cairo_status_t write_file(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

static int render(const struct tk_diff *d, const struct tk_diff_opts *dopts,
		  const struct tk_diff_render_opts *o, FILE *out, enum surface_kind kind,
		  struct tk_err *err)
{
	struct tk_diff_opts dflt;
	struct tk_flame_opts fo;
	struct tk_flame fl;
	struct ctx c;
	cairo_surface_t *s;
	cairo_status_t st;
	int ret;

	if (!dopts) {
		tk_diff_opts_init(&dflt);
		dopts = &dflt;
	}
	tk_flame_opts_init(&fo);
	if (o->render.image_width > 2 * TK_FLAME_XPAD)
		fo.image_width = o->render.image_width;
	ret = tk_flame_layout_weights(&d->tree, o->width_by_base ? d->base_total : d->new_total,
				      &fo, &fl, err);
	if (ret)
		return ret;
	memset(&c, 0, sizeof(c));
	c.d = d;
	c.dopts = dopts;
	c.o = o;
	c.f = &fl;
	c.width = fo.image_width;
	c.frame_h = o->render.frame_height > 0 ? o->render.frame_height : 16;
	c.font = o->render.font_size > 0 ? o->render.font_size : 12;
	c.pad_side = 10;
	c.pad_top = c.font * 7 + (o->render.subtitle && *o->render.subtitle ? c.font * 2 : 0);
	if (c.pad_top + (fl.max_depth + 1) * c.frame_h + 4 * c.pad_side > MAX_IMAGE_HEIGHT)
		c.frame_h = (MAX_IMAGE_HEIGHT - c.pad_top - 4 * c.pad_side) / (fl.max_depth + 1);
	c.height = c.pad_top + (fl.max_depth + 1) * c.frame_h + 4 * c.pad_side;
	c.scale = fl.total > 0 ? (c.width - 2 * c.pad_side) / fl.total : 0;

	if (kind == SURFACE_PDF)
		s = cairo_pdf_surface_create_for_stream(write_file, out, c.width, c.height);
	else
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(c.width),
					       (int)ceil(c.height));
	st = cairo_surface_status(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		tk_flame_release(&fl);
		return tk_err_set(err, TK_EINTERNAL, "cannot create the image: %s",
				  cairo_status_to_string(st));
	}
	c.cr = cairo_create(s);
	draw(&c);
	cairo_destroy(c.cr);
	tk_flame_release(&fl);
	if (kind == SURFACE_PNG)
		st = cairo_surface_write_to_png_stream(s, write_file, out);
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

static int png_render(const struct tk_diff *d, const struct tk_diff_opts *dopts,
		      const struct tk_diff_render_opts *o, FILE *out, struct tk_err *err)
{
	return render(d, dopts, o, out, SURFACE_PNG, err);
}

static int pdf_render(const struct tk_diff *d, const struct tk_diff_opts *dopts,
		      const struct tk_diff_render_opts *o, FILE *out, struct tk_err *err)
{
	return render(d, dopts, o, out, SURFACE_PDF, err);
}

const struct tk_diff_renderer tk_diffrender_png = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "png",
	.ext = ".png",
	.render = png_render,
};

const struct tk_diff_renderer tk_diffrender_pdf = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "pdf",
	.ext = ".pdf",
	.render = pdf_render,
};
