/*
 * .png and .pdf through cairo: a static flame graph for build annotations
 * and papers. One drawing routine serves both surfaces, so this file
 * exports two descriptors (an exception to one-symbol-per-plugin: the
 * formats share everything but the surface). The geometry, the surface
 * and the text handling (hidden bytes drawn as "\xNN") are shared with
 * the diff's pictures in core/draw/cairodraw.c.
 */
#include "plugins/render/renderers.h"

#include <string.h>

#include "core/base/buf.h"
#include "core/draw/cairodraw.h"
#include "core/draw/render.h"
#include "core/base/banned.h"

struct ctx {
	struct tk_cairo_graph g;
	const struct tk_profile *p;
	const struct tk_flame *f;
	const struct tk_render_opts *o;
	int categories; /* tk_render_categories: colours by category, a legend */
};

/* The categories' legend centred on the line at y, as the SVG's. */
static void legend(const struct ctx *c, double y)
{
	enum tk_category cats[TK_CAT_NR];
	size_t nr = tk_render_legend(c->p, cats), i;
	cairo_t *cr = c->g.c.cr;
	cairo_text_extents_t te;
	double fs = c->g.c.font, width = 0, x;
	int r, g, b;

	cairo_set_font_size(cr, fs);
	for (i = 0; i < nr; i++) {
		cairo_text_extents(cr, tk_category_name(cats[i]), &te);
		width += fs + 4 + te.x_advance + (i + 1 < nr ? 2 * fs : 0);
	}
	x = (c->g.c.width - width) / 2;
	for (i = 0; i < nr; i++) {
		const char *name = tk_category_name(cats[i]);

		tk_category_rgb(cats[i], &r, &g, &b);
		cairo_set_source_rgb(cr, r / 255.0, g / 255.0, b / 255.0);
		cairo_rectangle(cr, x, y - fs + 2, fs, fs);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		tk_canvas_text(&c->g.c, name, 40, x + fs + 4, y);
		cairo_text_extents(cr, name, &te);
		x += fs + 4 + te.x_advance + 2 * fs;
	}
}

static void draw(void *arg)
{
	struct ctx *c = arg;
	const struct tk_cairo_graph *g = &c->g;
	uint32_t top, bottom;
	size_t i;

	/* the palette's gradient, as the SVG's */
	tk_palette_background(c->o->palette, &top, &bottom);
	tk_canvas_background(&g->c, top, bottom);
	tk_canvas_title(&g->c, c->o->title ? c->o->title : "Flame Graph", 200);
	if (c->o->subtitle) {
		cairo_set_font_size(g->c.cr, g->c.font);
		tk_canvas_text_centred(&g->c, c->o->subtitle, 300, g->c.font * 3.5);
	}
	if (c->categories)
		legend(c, g->c.font * (c->o->subtitle ? 5.5 : 3.5));

	cairo_set_font_size(g->c.cr, g->c.font);
	for (i = 0; i < c->f->nr; i++) {
		const struct tk_flame_frame *fr = &c->f->frames[i];
		const char *name = fr->node == TK_PROFILE_ROOT ? "all" : tk_profile_name(c->p, fr->node);
		double x, y, w;
		int r, gr, b;

		if (!tk_cairo_frame_box(g, fr, c->o->inverted, &x, &y, &w))
			continue;
		if (c->categories)
			tk_render_name_rgb(c->p, fr->node == TK_PROFILE_ROOT ? 0 :
					   c->p->nodes[fr->node].name, c->o, 1, &r, &gr, &b);
		else
			tk_palette_color(c->o->palette, name, &r, &gr, &b);
		cairo_set_source_rgb(g->c.cr, r / 255.0, gr / 255.0, b / 255.0);
		cairo_rectangle(g->c.cr, x, y, w > 1 ? w - 0.5 : w, g->frame_h - 1);
		cairo_fill(g->c.cr);
		cairo_set_source_rgb(g->c.cr, 0, 0, 0);
		tk_cairo_label(g, name, strlen(name), x, y, w);
	}
}

static int render(const struct tk_profile *p, const struct tk_flame *f,
		  const struct tk_render_opts *o, FILE *out, enum tk_canvas_format fmt,
		  struct tk_err *err)
{
	struct ctx c;

	memset(&c, 0, sizeof(c));
	c.p = p;
	c.f = f;
	c.o = o;
	tk_cairo_graph_init(&c.g, o, o->image_width > 0 ? o->image_width : 1200);
	c.categories = tk_render_categories(p, o);
	tk_cairo_graph_fit(&c.g, c.g.c.font * 3 + (o->subtitle ? c.g.c.font * 2 : 0) +
			   (c.categories ? c.g.c.font * 2 : 0), f);
	return tk_canvas_render(&c.g.c, fmt, out, draw, &c, err);
}

static int png_render(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	return render(p, f, o, out, TK_CANVAS_PNG, err);
}

static int pdf_render(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	return render(p, f, o, out, TK_CANVAS_PDF, err);
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
