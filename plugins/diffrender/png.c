/*
 * .png and .pdf for diffs through cairo: the differential flame graph as
 * a static picture for build annotations, coloured for one mode
 * (o->mode), widths by the new or the baseline profile
 * (o->width_by_base), with the comparison and a small legend under the
 * title, and above them the totals and the three largest changes
 * (core/analyze/diffsum.h), bold and large enough to read in an annotation. The colours are the HTML page's and the SVG's (docs/diff-pages.md).
 * One drawing routine serves both surfaces, hence two descriptors, as in
 * plugins/render/cairo.c.
 *
 * Names are drawn as a terminal shows them: invalid bytes as "\xNN".
 * The geometry, the surface and the text are core/draw/cairodraw.c's, shared
 * with the flame graph's pictures.
 */
#include "plugins/diffrender/renderers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/draw/cairodraw.h"
#include "core/draw/diffrender.h"
#include "core/analyze/diffsum.h"
#include "core/draw/flame.h"
#include "core/base/banned.h"

/* The longest text drawn, in characters. */
#define TEXT_MAX 300

struct ctx {
	struct tk_cairo_graph g;
	const struct tk_diff *d;
	const struct tk_diff_opts *dopts;
	const struct tk_diff_render_opts *o;
	const struct tk_flame *f;
	int categories; /* tk_render_categories: category outlines, legend */
};

/* A frame of a coloured category: outlined in its colour. */
static void outline(struct ctx *c, enum tk_category cat, double x, double y, double w, double h)
{
	int r, g, b;

	if (!tk_category_colored(cat))
		return;
	tk_category_rgb(cat, &r, &g, &b);
	cairo_set_source_rgb(c->g.c.cr, r / 255.0, g / 255.0, b / 255.0);
	cairo_set_line_width(c->g.c.cr, 2);
	cairo_rectangle(c->g.c.cr, x + 1, y + 1, w > 2 ? w - 2 : w, h - 2);
	cairo_stroke(c->g.c.cr);
}

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
		cairo_set_source_rgb(c->g.c.cr, 1, v, v);
		return in > 0.8;
	case TK_DIFF_DOWN:
		cairo_set_source_rgb(c->g.c.cr, v, v, 1);
		return in > 0.8;
	case TK_DIFF_NEW:
		parse_hex(c->o->new_color ? c->o->new_color : "#000000", &r, &g, &b);
		cairo_set_source_rgb(c->g.c.cr, r, g, b);
		return r * 0.299 + g * 0.587 + b * 0.114 < 0.5;
	case TK_DIFF_VANISHED:
		cairo_set_source_rgb(c->g.c.cr, 60 / 255.0, 60 / 255.0, 1);
		return 1;
	default:
		cairo_set_source_rgb(c->g.c.cr, 200 / 255.0, 200 / 255.0, 200 / 255.0);
		return 0;
	}
}

/* Vanished frames are hatched: the stripes over a pale fill. */
static void hatch(struct ctx *c, double x, double y, double w, double h)
{
	double k;

	cairo_save(c->g.c.cr);
	cairo_rectangle(c->g.c.cr, x, y, w, h);
	cairo_clip(c->g.c.cr);
	cairo_set_source_rgb(c->g.c.cr, 225 / 255.0, 225 / 255.0, 235 / 255.0);
	cairo_paint(c->g.c.cr);
	cairo_set_source_rgb(c->g.c.cr, 60 / 255.0, 60 / 255.0, 1);
	cairo_set_line_width(c->g.c.cr, 2);
	for (k = x - h; k < x + w; k += 6) {
		cairo_move_to(c->g.c.cr, k, y + h);
		cairo_line_to(c->g.c.cr, k + h, y);
	}
	cairo_stroke(c->g.c.cr);
	cairo_restore(c->g.c.cr);
}

static void swatch(struct ctx *c, double x, double y, enum tk_diff_class cls, const char *label)
{
	if (cls == TK_DIFF_VANISHED) {
		hatch(c, x, y - c->g.c.font + 2, 14, c->g.c.font);
	} else {
		set_fill(c, cls, 1);
		cairo_rectangle(c->g.c.cr, x, y - c->g.c.font + 2, 14, c->g.c.font);
		cairo_fill(c->g.c.cr);
	}
	cairo_set_source_rgb(c->g.c.cr, 0, 0, 0);
	tk_canvas_text(&c->g.c, label, TEXT_MAX, x + 18, y);
}

#define TOP_SHOWN 3

/* The TOP_SHOWN largest changes in the picture's mode, one line each,
 * increases in red and decreases in blue. */
static void top_changes(struct ctx *c, double *y)
{
	struct tk_diff_summary s;
	struct tk_buf t = TK_BUF_INIT;
	const struct tk_diff_change *pick[TOP_SHOWN];
	size_t nr = 0, iu = 0, idn = 0, i;
	int m = c->o->mode == TK_DIFF_CUMULATIVE ? TK_DIFF_CUMULATIVE : TK_DIFF_SELF;

	tk_diff_summarize(c->d, c->dopts, TOP_SHOWN, &s);
	/* merge the two ranked lists by the size of the change */
	while (nr < TOP_SHOWN && (iu < s.up[m].nr || idn < s.down[m].nr)) {
		const struct tk_diff_change *u = iu < s.up[m].nr ? &s.up[m].rows[iu] : NULL;
		const struct tk_diff_change *dn = idn < s.down[m].nr ? &s.down[m].rows[idn] : NULL;

		if (u && (!dn || fabs(u->now - u->base) >= fabs(dn->now - dn->base))) {
			pick[nr++] = u;
			iu++;
		} else {
			pick[nr++] = dn;
			idn++;
		}
	}
	*y += c->g.c.font * 1.8;
	tk_buf_addf(&t, "%s changes beyond the noise: ", m == TK_DIFF_CUMULATIVE ?
		    "cumulative" : "self");
	if (!nr)
		tk_buf_adds(&t, "none");
	tk_canvas_text_centred(&c->g.c, t.buf, TEXT_MAX, *y);
	for (i = 0; i < nr; i++) {
		*y += c->g.c.font * 1.6;
		tk_buf_reset(&t);
		tk_diff_add_change(&t, c->d, pick[i], 4);
		if (pick[i]->now > pick[i]->base)
			cairo_set_source_rgb(c->g.c.cr, 0.7, 0, 0);
		else
			cairo_set_source_rgb(c->g.c.cr, 0, 0, 0.7);
		tk_canvas_text_centred(&c->g.c, t.buf, TEXT_MAX, *y);
	}
	cairo_set_source_rgb(c->g.c.cr, 0, 0, 0);
	tk_diff_summary_release(&s);
	tk_buf_release(&t);
}

static void headings(struct ctx *c)
{
	const struct tk_diff_render_opts *o = c->o;
	struct tk_buf t = TK_BUF_INIT;
	cairo_pattern_t *ramp;
	double y = c->g.c.font * 2, x = c->g.pad_side;
	double sat = c->dopts->saturation > 0 ? c->dopts->saturation : 1;

	tk_canvas_title(&c->g.c, o->render.title && *o->render.title ? o->render.title :
		       "Differential Flame Graph", TEXT_MAX);
	/* the totals and the top changes, bold: this picture goes into build
	 * annotations, where it is all a reader sees */
	y += c->g.c.font * 2;
	cairo_select_font_face(c->g.c.cr, "Verdana", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(c->g.c.cr, c->g.c.font * 1.25);
	tk_diff_add_totals(&t, c->d, c->dopts, o->quantity);
	tk_canvas_text_centred(&c->g.c, t.buf, TEXT_MAX, y);
	cairo_select_font_face(c->g.c.cr, "Verdana", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(c->g.c.cr, c->g.c.font);
	top_changes(c, &y);
	tk_buf_reset(&t);
	if (o->render.subtitle && *o->render.subtitle) {
		y += c->g.c.font * 2;
		tk_canvas_text_centred(&c->g.c, o->render.subtitle, TEXT_MAX, y);
	}
	tk_buf_addf(&t, "%s compared with the baseline %s; colour: %s change; width: %s",
		    o->new_label ? o->new_label : "new", o->base_label ? o->base_label : "base",
		    o->mode == TK_DIFF_CUMULATIVE ? "cumulative" : "self",
		    o->width_by_base ? "baseline" : "new");
	y += c->g.c.font * 2;
	tk_canvas_text_centred(&c->g.c, t.buf, TEXT_MAX, y);
	tk_buf_reset(&t);

	y += c->g.c.font * 2;
	tk_buf_addf(&t, "-%g%%", 100 * sat);
	tk_canvas_text(&c->g.c, t.buf, TEXT_MAX, x, y);
	x += c->g.c.font * 4;
	ramp = cairo_pattern_create_linear(x, 0, x + 160, 0);
	cairo_pattern_add_color_stop_rgb(ramp, 0, 30 / 255.0, 30 / 255.0, 1);
	cairo_pattern_add_color_stop_rgb(ramp, 0.499, 220 / 255.0, 220 / 255.0, 1);
	cairo_pattern_add_color_stop_rgb(ramp, 0.501, 1, 220 / 255.0, 220 / 255.0);
	cairo_pattern_add_color_stop_rgb(ramp, 1, 1, 30 / 255.0, 30 / 255.0);
	cairo_set_source(c->g.c.cr, ramp);
	cairo_rectangle(c->g.c.cr, x, y - c->g.c.font + 2, 160, c->g.c.font);
	cairo_fill(c->g.c.cr);
	cairo_pattern_destroy(ramp);
	cairo_set_source_rgb(c->g.c.cr, 0, 0, 0);
	tk_buf_reset(&t);
	tk_buf_addf(&t, "+%g%%", 100 * sat);
	tk_canvas_text(&c->g.c, t.buf, TEXT_MAX, x + 166, y);
	x += 166 + c->g.c.font * 5;
	swatch(c, x, y, TK_DIFF_NEW, "new (not in baseline)");
	x += 18 + c->g.c.font * 0.59 * 22;
	swatch(c, x, y, TK_DIFF_VANISHED, "vanished");
	x += 18 + c->g.c.font * 0.59 * 10;
	swatch(c, x, y, TK_DIFF_NOISE, "noise");
	x += 18 + c->g.c.font * 0.59 * 8;
	if (c->categories) {
		enum tk_category cats[TK_CAT_NR];
		size_t nr = tk_render_legend(&c->d->tree, cats), k;

		for (k = 0; k < nr; k++) {
			swatch(c, x, y, TK_DIFF_NOISE, tk_category_name(cats[k]));
			outline(c, cats[k], x, y - c->g.c.font + 2, 14, c->g.c.font);
			x += 18 + c->g.c.font * 0.59 * (strlen(tk_category_name(cats[k])) + 2);
		}
	}
	tk_buf_release(&t);
}

static void draw(void *arg)
{
	struct ctx *c = arg;
	const struct tk_profile *p = &c->d->tree;
	size_t i;

	tk_canvas_background(&c->g.c, 0xeeeeee, 0xe8e8f4);
	headings(c);

	cairo_set_font_size(c->g.c.cr, c->g.c.font);
	for (i = 0; i < c->f->nr; i++) {
		const struct tk_flame_frame *fr = &c->f->frames[i];
		const char *name = fr->node == TK_PROFILE_ROOT ? "all" : tk_profile_name(p, fr->node);
		size_t len = fr->node == TK_PROFILE_ROOT ? 3 : p->name_lens[p->nodes[fr->node].name];
		double x, y, w, fw, in = 0;
		enum tk_diff_class cls;
		int white;

		if (!tk_cairo_frame_box(&c->g, fr, 0, &x, &y, &w))
			continue;
		fw = w > 1 ? w - 0.5 : w;
		cls = tk_diff_classify(c->d, fr->node, c->o->mode, c->dopts, &in);
		white = set_fill(c, cls, in);
		if (cls == TK_DIFF_VANISHED) {
			hatch(c, x, y, fw, c->g.frame_h - 1);
			white = 0;
		} else {
			cairo_rectangle(c->g.c.cr, x, y, fw, c->g.frame_h - 1);
			cairo_fill(c->g.c.cr);
		}
		if (c->categories && fr->node != TK_PROFILE_ROOT)
			outline(c, tk_profile_category(p, p->nodes[fr->node].name), x, y, fw,
				c->g.frame_h - 1);
		cairo_set_source_rgb(c->g.c.cr, white, white, white);
		tk_cairo_label(&c->g, name, len, x, y, w);
	}
}

static int render(const struct tk_diff *d, const struct tk_flame *fl,
		  const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o, FILE *out,
		  enum tk_canvas_format fmt, struct tk_err *err)
{
	struct tk_diff_opts dflt;
	struct ctx c;
	double font;

	if (!dopts) {
		tk_diff_opts_init(&dflt);
		dopts = &dflt;
	}
	memset(&c, 0, sizeof(c));
	c.d = d;
	c.dopts = dopts;
	c.o = o;
	c.f = fl;
	c.categories = tk_render_categories(&d->tree, &o->render);
	tk_cairo_graph_init(&c.g, &o->render, tk_diff_image_width(o));
	font = c.g.c.font;
	/* the title, totals, top changes, subtitle, comparison and legend lines */
	tk_cairo_graph_fit(&c.g, font * 7 + font * 2 + font * (1.8 + 1.6 * TOP_SHOWN) +
			   (o->render.subtitle && *o->render.subtitle ? font * 2 : 0), fl);
	return tk_canvas_render(&c.g.c, fmt, out, draw, &c, err);
}

static int png_render(const struct tk_diff *d, const struct tk_flame *fl,
		      const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		      FILE *out, struct tk_err *err)
{
	return render(d, fl, dopts, o, out, TK_CANVAS_PNG, err);
}

static int pdf_render(const struct tk_diff *d, const struct tk_flame *fl,
		      const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		      FILE *out, struct tk_err *err)
{
	return render(d, fl, dopts, o, out, TK_CANVAS_PDF, err);
}

const struct tk_diff_renderer tk_diffrender_png = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "png",
	.ext = ".png",
	.layout = TK_DIFF_LAYOUT_WIDTH,
	.render = png_render,
};

const struct tk_diff_renderer tk_diffrender_pdf = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "pdf",
	.ext = ".pdf",
	.layout = TK_DIFF_LAYOUT_WIDTH,
	.render = pdf_render,
};
