/*
 * The cairo canvas: see core/draw/canvas.h.
 */
#include "core/draw/canvas.h"

#include <math.h>
#include <string.h>

#include "core/base/err.h"
#include "core/base/escape.h"
#include "core/base/banned.h"

#define MAX_TICKS 32

void tk_canvas_init(struct tk_canvas *c, double width, double height, double font)
{
	memset(c, 0, sizeof(*c));
	c->width = width;
	c->height = height;
	c->font = font > 0 ? font : 12;
}

static cairo_status_t write_file(void *closure, const unsigned char *data, unsigned int len)
{
	return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int tk_canvas_render(struct tk_canvas *c, enum tk_canvas_format fmt, FILE *out,
		     void (*draw)(void *arg), void *arg, struct tk_err *err)
{
	cairo_surface_t *s;
	cairo_status_t st;
	int ret = tk_cairo_load(err);

	if (ret)
		return ret;
	if (fmt == TK_CANVAS_PDF) {
		s = cairo_pdf_surface_create_for_stream(write_file, out, c->width, c->height);
		if (c->pdf_date && cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
			cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, c->pdf_date);
	} else
		s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)ceil(c->width),
					       (int)ceil(c->height));
	st = cairo_surface_status(s);
	if (st != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return tk_err_set(err, TK_EINTERNAL, "cannot create the image: %s",
				  cairo_status_to_string(st));
	}
	c->cr = cairo_create(s);
	draw(arg);
	cairo_destroy(c->cr);
	c->cr = NULL;
	if (fmt == TK_CANVAS_PNG)
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

static void set_rgb(cairo_t *cr, uint32_t rgb)
{
	cairo_set_source_rgb(cr, (rgb >> 16 & 255) / 255.0, (rgb >> 8 & 255) / 255.0,
			     (rgb & 255) / 255.0);
}

void tk_canvas_background(const struct tk_canvas *c, uint32_t top_rgb, uint32_t bottom_rgb)
{
	cairo_pattern_t *bg = cairo_pattern_create_linear(0, 0, 0, c->height);

	cairo_pattern_add_color_stop_rgb(bg, 0, (top_rgb >> 16 & 255) / 255.0,
					 (top_rgb >> 8 & 255) / 255.0, (top_rgb & 255) / 255.0);
	cairo_pattern_add_color_stop_rgb(bg, 1, (bottom_rgb >> 16 & 255) / 255.0,
					 (bottom_rgb >> 8 & 255) / 255.0, (bottom_rgb & 255) / 255.0);
	cairo_set_source(c->cr, bg);
	cairo_paint(c->cr);
	cairo_pattern_destroy(bg);
}

void tk_canvas_title(const struct tk_canvas *c, const char *title, size_t max_chars)
{
	cairo_select_font_face(c->cr, "Verdana", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(c->cr, c->font + 5);
	cairo_set_source_rgb(c->cr, 0, 0, 0);
	tk_canvas_text_centred(c, title, max_chars, c->font * 2);
}

/* Shows s at (x, y) moved left by align times its width. */
static void show(const struct tk_canvas *c, const char *s, size_t max_chars, double x, double y,
		 double align)
{
	struct tk_buf t = TK_BUF_INIT;
	cairo_text_extents_t ext;

	tk_canvas_add_utf8(&t, s, strlen(s), max_chars);
	if (align != 0) {
		cairo_text_extents(c->cr, t.buf, &ext);
		x -= ext.x_advance * align;
	}
	cairo_move_to(c->cr, x, y);
	cairo_show_text(c->cr, t.buf);
	tk_buf_release(&t);
}

void tk_canvas_text(const struct tk_canvas *c, const char *s, size_t max_chars, double x,
		    double y)
{
	show(c, s, max_chars, x, y, 0);
}

void tk_canvas_text_centred(const struct tk_canvas *c, const char *s, size_t max_chars,
			    double y)
{
	show(c, s, max_chars, c->width / 2, y, 0.5);
}

void tk_canvas_text_right(const struct tk_canvas *c, const char *s, size_t max_chars, double x,
			  double y)
{
	show(c, s, max_chars, x, y, 1);
}

size_t tk_canvas_add_utf8(struct tk_buf *b, const char *s, size_t len, size_t max_chars)
{
	size_t chars = 0, plain = 0, i = 0;

	while (i < len && chars < max_chars) {
		int hex;
		size_t n = tk_escape_char(s + i, len - i, &hex);

		/* "\xNN" is 4 characters a byte: never past max_chars */
		if (hex && chars + 4 * n > max_chars)
			break;
		chars += hex ? 4 * n - 1 : 0;
		if (hex) {
			tk_buf_add(b, s + plain, i - plain);
			tk_text_escape(b, s + i, n);
			plain = i + n;
		}
		i += n;
		chars++;
	}
	tk_buf_add(b, s + plain, i - plain);
	return len - i;
}

/* The smallest step 1, 2 or 5 x 10^k that gives at most max_ticks ticks
 * over a span. */
static double nice_step(double span, size_t max_ticks)
{
	static const double mult[] = { 1, 2, 5 };
	double raw = span / (double)(max_ticks - 1), p = pow(10, floor(log10(raw)));
	size_t i;

	for (;;) {
		for (i = 0; i < 3; i++)
			if (mult[i] * p >= raw)
				return mult[i] * p;
		p *= 10;
	}
}

size_t tk_canvas_ticks(double lo, double hi, size_t max_ticks, double *ticks)
{
	double step, v;
	size_t n = 0;

	if (!isfinite(lo) || !isfinite(hi) || hi < lo)
		return 0;
	if (max_ticks < 2)
		max_ticks = 2;
	if (max_ticks > MAX_TICKS)
		max_ticks = MAX_TICKS;
	if (hi == lo) {
		ticks[0] = lo;
		return 1;
	}
	step = nice_step(hi - lo, max_ticks);
	for (v = ceil(lo / step) * step; v <= hi + step * 1e-9 && n < max_ticks; v += step) {
		/* multiples of the step, not sums of it: no 0.30000000000000004 */
		double k = round(v / step);

		ticks[n++] = k * step == 0 ? 0 : k * step;
	}
	return n;
}

static void tick_label(const struct tk_canvas_axis *a, double v, struct tk_buf *b)
{
	tk_buf_reset(b);
	if (a->label)
		a->label(v, b, a->data);
	else
		tk_buf_addf(b, "%g", v);
}

void tk_canvas_axes(const struct tk_canvas *c, double x0, double y0, double x1, double y1,
		    const struct tk_canvas_axis *x, const struct tk_canvas_axis *y)
{
	double ticks[MAX_TICKS], pos;
	struct tk_buf b = TK_BUF_INIT;
	size_t i, n;

	cairo_save(c->cr);
	cairo_set_font_size(c->cr, c->font);
	cairo_set_line_width(c->cr, 1);
	n = tk_canvas_ticks(y->lo, y->hi, y->max_ticks ? y->max_ticks : 6, ticks);
	for (i = 0; i < n; i++) {
		pos = y->hi > y->lo ? y1 - (ticks[i] - y->lo) / (y->hi - y->lo) * (y1 - y0) : y1;
		pos = floor(pos) + 0.5;
		set_rgb(c->cr, 0xdddddd);
		cairo_move_to(c->cr, x0, pos);
		cairo_line_to(c->cr, x1, pos);
		cairo_stroke(c->cr);
		set_rgb(c->cr, 0x000000);
		cairo_move_to(c->cr, x0 - 4, pos);
		cairo_line_to(c->cr, x0, pos);
		cairo_stroke(c->cr);
		tick_label(y, ticks[i], &b);
		tk_canvas_text_right(c, b.buf, 40, x0 - 6, pos + c->font * 0.35);
	}
	n = tk_canvas_ticks(x->lo, x->hi, x->max_ticks ? x->max_ticks : 8, ticks);
	for (i = 0; i < n; i++) {
		pos = x->hi > x->lo ? x0 + (ticks[i] - x->lo) / (x->hi - x->lo) * (x1 - x0) : x0;
		pos = floor(pos) + 0.5;
		set_rgb(c->cr, 0x000000);
		cairo_move_to(c->cr, pos, y1);
		cairo_line_to(c->cr, pos, y1 + 4);
		cairo_stroke(c->cr);
		tick_label(x, ticks[i], &b);
		show(c, b.buf, 40, pos, y1 + 6 + c->font, 0.5);
	}
	set_rgb(c->cr, 0x000000);
	cairo_rectangle(c->cr, floor(x0) + 0.5, floor(y0) + 0.5, floor(x1 - x0), floor(y1 - y0));
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
	tk_buf_release(&b);
}
