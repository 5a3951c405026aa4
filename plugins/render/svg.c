/*
 * The interactive SVG renderer: flamegraph.pl's picture and behaviour
 * (hover details, click to zoom with the ancestors kept greyed, Ctrl-F
 * regex search with "Matched: x%", zoom and search in the URL), written
 * from scratch and fast on big graphs. The page, its script, the writer
 * and the escaping are core/draw/svgout.h's, shared with the differential SVG;
 * this file has the flame graph's colours, headings and frame details.
 *
 * Safety: frame names are untrusted. They only ever appear as XML text
 * (in <title> and <text>), escaped by tk_svgout_text, so the file is
 * well-formed whatever the names.
 *
 * Geometry is flamegraph.pl's: frames span image_width - 2 * xpad pixels,
 * each frame_height tall (1 px gap), the root at the bottom (at the top
 * when inverted). x and width carry 4 decimals (flamegraph.pl: 1) so
 * that zooming deep into a narrow frame stays exact.
 */
#include "plugins/render/renderers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/draw/render.h"
#include "core/draw/svgout.h"
#include "core/base/banned.h"

/* The palette's gradient (tk_palette_background) as "#rrggbb". */
static void background(const char *palette, char c1[8], char c2[8])
{
	uint32_t top, bottom;

	tk_palette_background(palette, &top, &bottom);
	snprintf(c1, 8, "#%06x", (unsigned)top);
	snprintf(c2, 8, "#%06x", (unsigned)bottom);
}

struct geom {
	struct tk_svg_page pg;
	double wpt; /* pixels per weight unit */
	int categories; /* tk_render_categories: colours by category, a legend */
};

/* The categories' legend, centred on the line at y: a swatch and the
 * category's name for each coloured category the profile has. */
static void legend(struct tk_svgout *w, const struct tk_profile *p, const struct geom *g,
		   double y)
{
	enum tk_category cats[TK_CAT_NR];
	size_t nr = tk_render_legend(p, cats), i;
	double fs = g->pg.font_size, width = 0, x;
	int r, gr, b;

	for (i = 0; i < nr; i++)
		width += fs + 4 + strlen(tk_category_name(cats[i])) * fs * 0.6 + 2 * fs;
	x = floor((g->pg.width - width) / 2);
	for (i = 0; i < nr; i++) {
		const char *name = tk_category_name(cats[i]);

		tk_category_rgb(cats[i], &r, &gr, &b);
		TK_SVGOUT_LIT(w, "<rect class=\"legend\" x=\"");
		tk_svgout_num(w, x, 2);
		TK_SVGOUT_LIT(w, "\" y=\"");
		tk_svgout_num(w, y - fs + 2, 2);
		TK_SVGOUT_LIT(w, "\" width=\"");
		tk_svgout_num(w, fs, 2);
		TK_SVGOUT_LIT(w, "\" height=\"");
		tk_svgout_num(w, fs, 2);
		TK_SVGOUT_LIT(w, "\" fill=\"");
		tk_svgout_rgb(w, r, gr, b);
		TK_SVGOUT_LIT(w, "\"/>\n<text class=\"legend\" x=\"");
		tk_svgout_num(w, x + fs + 4, 2);
		TK_SVGOUT_LIT(w, "\" y=\"");
		tk_svgout_num(w, y, 2);
		TK_SVGOUT_LIT(w, "\">");
		tk_svgout_cstr(w, name);
		TK_SVGOUT_LIT(w, "</text>\n");
		x += fs + 4 + strlen(name) * fs * 0.6 + 2 * fs;
	}
}

static void header(struct tk_svgout *w, const struct tk_profile *p,
		   const struct tk_render_opts *o, const struct geom *g)
{
	const struct tk_svg_page *pg = &g->pg;
	char bg1[8], bg2[8];

	background(o->palette, bg1, bg2);
	tk_svg_open(w, pg, "Flame graph", bg1, bg2);
	tk_svg_prologue(w, pg, "\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n");
	tk_svg_text(w, "title", floor(pg->width / 2), pg->font_size * 2,
		    o->title ? o->title : "Flame Graph");
	if (o->subtitle && *o->subtitle)
		tk_svg_text(w, "subtitle", floor(pg->width / 2), pg->font_size * 4, o->subtitle);
	if (g->categories)
		legend(w, p, g, pg->font_size * (o->subtitle && *o->subtitle ? 6 : 4));
	tk_svg_controls(w, pg);
}

static void frame(struct tk_svgout *w, const struct tk_profile *p, const struct tk_flame *fl,
		  const struct tk_render_opts *o, const struct geom *g,
		  const struct tk_flame_frame *fr)
{
	const struct tk_svg_page *pg = &g->pg;
	size_t len, shown;
	const char *name = tk_svg_frame_name(p, fr->node, &len, &shown);
	double x1 = tk_svg_round4(pg->xpad + fr->start * g->wpt);
	double x2 = tk_svg_round4(pg->xpad + (fr->start + fr->width) * g->wpt);
	double y1;
	int r, gr, b;

	if (o->inverted)
		y1 = pg->top + fr->depth * pg->frame_height;
	else
		y1 = pg->bottom - fr->depth * pg->frame_height;
	tk_svg_frame_begin(w, name, shown);
	TK_SVGOUT_LIT(w, " (");
	tk_svgout_weight(w, fr->width, p->unit, o->count_name);
	if (fr->node == TK_PROFILE_ROOT) {
		TK_SVGOUT_LIT(w, ", 100%)");
	} else {
		TK_SVGOUT_LIT(w, ", ");
		tk_svgout_reserve(w, TK_SVG_NUM_MAX);
		w->len += tk_svg_fmt_fixed(w->buf + w->len,
					   fl->total > 0 ? 100 * fr->width / fl->total : 0, 2, 0, 0);
		TK_SVGOUT_LIT(w, "%)");
	}
	tk_svg_frame_rect(w, pg, x1, y1, x2 - x1);
	if (fr->node != TK_PROFILE_ROOT && len == 1 && name[0] == '-') {
		TK_SVGOUT_LIT(w, "rgb(200,200,200)");
	} else if (fr->node != TK_PROFILE_ROOT && len == 2 && name[0] == '-' && name[1] == '-') {
		TK_SVGOUT_LIT(w, "rgb(160,160,160)");
	} else if (g->categories) {
		tk_render_name_rgb(p, fr->node == TK_PROFILE_ROOT ? 0 : p->nodes[fr->node].name, o, 1,
				   &r, &gr, &b);
		tk_svgout_rgb(w, r, gr, b);
	} else {
		tk_palette_color(o->palette, fr->node == TK_PROFILE_ROOT ? "" : name, &r, &gr, &b);
		tk_svgout_rgb(w, r, gr, b);
	}
	tk_svg_frame_text(w, pg, x1, y1);
	tk_svg_frame_end(w, pg, name, shown, x2 - x1);
}

static int svg_render(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *outf, struct tk_err *err)
{
	struct tk_svgout w;
	struct geom g;
	struct tk_svg_page *pg = &g.pg;
	double ypad1, ypad2, ypad3;
	size_t i;

	memset(&g, 0, sizeof(g));
	pg->width = o->image_width > 2 * TK_FLAME_XPAD ? o->image_width : 1200;
	pg->frame_height = o->frame_height >= 2 ? o->frame_height : 16;
	pg->font_size = o->font_size > 0 ? o->font_size : 12;
	pg->xpad = TK_FLAME_XPAD;
	pg->inverted = o->inverted;
	ypad1 = pg->font_size * 3;
	ypad2 = pg->font_size * 2 + 10;
	ypad3 = o->subtitle && *o->subtitle ? pg->font_size * 2 : 0;
	g.categories = tk_render_categories(p, o);
	if (g.categories)
		ypad3 += pg->font_size * 2;
	pg->height = (f->max_depth + 1) * pg->frame_height + ypad1 + ypad2 + ypad3;
	/* top edge of depth 0 when inverted; of depth 0 otherwise */
	pg->top = ypad1 + ypad3;
	pg->bottom = pg->height - ypad2 - pg->frame_height + 1;
	pg->foot_y = pg->height - ypad2 / 2;
	g.wpt = f->total > 0 ? (pg->width - 2 * pg->xpad) / f->total : 0;

	tk_svgout_init(&w, outf);
	header(&w, p, o, &g);
	for (i = 0; i < f->nr; i++) {
		frame(&w, p, f, o, &g, &f->frames[i]);
		if (w.len >= TK_SVGOUT_FLUSH_AT)
			tk_svgout_flush(&w);
	}
	tk_svg_close(&w);
	return tk_svgout_finish(&w, err);
}

const struct tk_renderer tk_render_svg = {
	.version = TK_RENDERER_VERSION,
	.name = "svg",
	.ext = ".svg",
	.render = svg_render,
};
