/*
 * core/draw/canvas: ticks at readable values, axes drawn where the values
 * map, text from untrusted bytes, and a picture written as PNG and PDF.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw/canvas.h"
#include "core/base/err.h"
#include "tests/unit/tap.h"

static int same(const double *got, size_t n, const double *want, size_t nw)
{
	size_t i;

	if (n != nw) {
		printf("# %zu ticks, want %zu\n", n, nw);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (fabs(got[i] - want[i]) > 1e-12 * (fabs(want[i]) + 1)) {
			printf("# tick %zu: %.17g, want %.17g\n", i, got[i], want[i]);
			return 0;
		}
	return 1;
}

static void test_ticks(void)
{
	double t[32];
	static const double a[] = { 0, 20, 40, 60, 80, 100 };
	static const double b[] = { 0.1, 0.2, 0.3 };
	static const double c[] = { 1.2e9, 1.4e9, 1.6e9, 1.8e9 };
	static const double d[] = { -10, -5, 0, 5 };

	ok(same(t, tk_canvas_ticks(0, 100, 6, t), a, 6), "0..100 by 20");
	ok(same(t, tk_canvas_ticks(0.05, 0.31, 4, t), b, 3), "0.1, 0.2, 0.3: multiples, not sums");
	ok(same(t, tk_canvas_ticks(1.13e9, 1.87e9, 5, t), c, 4), "large values by 2 x 10^8");
	ok(same(t, tk_canvas_ticks(-12, 7, 5, t), d, 4), "negative to positive by 5");
	is_int(tk_canvas_ticks(3, 3, 5, t), 1, "an empty range: its one value");
	is_int(tk_canvas_ticks(5, 1, 5, t), 0, "a reversed range: none");
	is_int(tk_canvas_ticks(0, INFINITY, 5, t), 0, "an infinite range: none");
	is_int(tk_canvas_ticks(NAN, 1, 5, t), 0, "NaN: none");
	ok(tk_canvas_ticks(0, 1e6, 100, t) <= 32, "at most 32 ticks whatever is asked");
}

struct pic {
	struct tk_canvas c;
};

static void draw_axes(void *arg)
{
	struct pic *p = arg;
	struct tk_canvas_axis x = { 0, 10, 6, NULL, NULL }, y = { 0, 100, 6, NULL, NULL };

	tk_canvas_background(&p->c, 0xffffff, 0xffffff);
	tk_canvas_axes(&p->c, 50, 10, 250, 110, &x, &y);
	cairo_set_source_rgb(p->c.cr, 0, 0, 0);
	tk_canvas_text(&p->c, "bad \xff\xfe bytes", 40, 60, 140);
}

/* Whether the pixel at (x, y) of a PNG file is dark. */
static int dark_at(const char *path, int x, int y)
{
	cairo_surface_t *s;
	unsigned char *d;
	uint32_t px;
	int ret = 0;

	if (tk_cairo_load(NULL))
		return 0;
	s = cairo_image_surface_create_from_png(path);
	if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS) {
		cairo_surface_flush(s);
		d = cairo_image_surface_get_data(s);
		memcpy(&px, d + y * cairo_image_surface_get_stride(s) + x * 4, 4);
		ret = ((px >> 16 & 255) + (px >> 8 & 255) + (px & 255)) < 3 * 100;
	}
	cairo_surface_destroy(s);
	return ret;
}

static void test_render(void)
{
	struct tk_err err = TK_ERR_INIT;
	char png[] = "/tmp/t-canvas.XXXXXX";
	struct pic p;
	FILE *f;
	int fd = mkstemp(png);
	char head[5];

	if (fd < 0 || !(f = fdopen(fd, "w+"))) {
		printf("Bail out! cannot make a temporary file\n");
		exit(1);
	}
	tk_canvas_init(&p.c, 300, 160, 0);
	ok(p.c.font == 12, "the default font size is 12");
	is_int(tk_canvas_render(&p.c, TK_CANVAS_PNG, f, draw_axes, &p, &err), 0, "axes to PNG");
	ok(p.c.cr == NULL, "the cairo context is gone after rendering");
	fclose(f);
	ok(dark_at(png, 50, 60) && dark_at(png, 250, 60), "the plot area's left and right sides");
	ok(dark_at(png, 150, 110), "its bottom");
	ok(dark_at(png, 47, 110) && dark_at(png, 47, 90) && dark_at(png, 47, 10),
	   "y ticks at 0, 20 and 100 stand left of the frame (y = 110, 90, 10)");
	ok(!dark_at(png, 47, 100), "no y tick between two (y = 100 is 10)");
	ok(dark_at(png, 50, 113) && dark_at(png, 90, 113) && dark_at(png, 250, 113),
	   "x ticks at 0, 2 and 10 under it (x = 50, 90, 250)");
	ok(!dark_at(png, 70, 113), "no x tick between two (x = 70 is 1)");

	f = tmpfile();
	is_int(tk_canvas_render(&p.c, TK_CANVAS_PDF, f, draw_axes, &p, &err), 0, "axes to PDF");
	rewind(f);
	ok(fread(head, 1, 5, f) == 5 && !memcmp(head, "%PDF-", 5), "a PDF file");
	fclose(f);
	remove(png);
}

static void test_utf8(void)
{
	struct tk_buf b = TK_BUF_INIT;

	is_int(tk_canvas_add_utf8(&b, "ab\xffz", 4, 10), 0, "all of it fits");
	is_str(b.buf, "ab\\xffz", "an invalid byte as \\xNN, as a terminal shows it");
	tk_buf_reset(&b);
	is_int(tk_canvas_add_utf8(&b, "\x1b[1m\xe2\x80\xae" "x\ty\xc2\x85", 12, 100), 0,
	       "controls fit");
	is_str(b.buf, "\\x1b[1m\\xe2\\x80\\xaex\\x09y\\xc2\\x85",
	       "ESC, U+202E, TAB and a C1 control as \\xNN");
	tk_buf_reset(&b);
	is_int(tk_canvas_add_utf8(&b, "\xff\xfe" "ab", 4, 5), 3, "one escaped byte, 3 bytes left");
	is_str(b.buf, "\\xff", "an escaped byte counts as the 4 characters it shows, whole");
	tk_buf_reset(&b);
	is_int(tk_canvas_add_utf8(&b, "a\xff", 2, 4), 1, "a byte that would pass the limit");
	is_str(b.buf, "a", "is left out whole");
	tk_buf_reset(&b);
	is_int(tk_canvas_add_utf8(&b, "h\xc3\xa9llo", 6, 2), 3, "two characters, 3 bytes left");
	is_str(b.buf, "h\xc3\xa9", "a character is whole");
	tk_buf_release(&b);
}

int main(void)
{
	test_ticks();
	test_render();
	test_utf8();
	return done_testing();
}
