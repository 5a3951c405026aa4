/*
 * .svg for diffs: the interactive SVG of plugins/render/svg.c (hover
 * details, click to zoom with the ancestors kept, Ctrl-F regex search with
 * "Matched: x%", zoom and search in the URL as ?x=&y=&s=), coloured
 * statically for one mode (o->mode: self or cumulative change) and laid
 * out by the new or the baseline weights (o->width_by_base). The page,
 * its script, the writer and the escaping are core/draw/svgout.h's; this file
 * has the colours, the headings with the legend, and the details. A
 * legend under the title gives the colour scale; each frame's <title>
 * (shown in the details line on hover) is
 *
 *     name (self: base 10 samples, new 15 samples, Δ +5 samples, +50.00%)
 *
 * with ", new", ", vanished" or ", within noise" before the ")" for those
 * classes (tk_diff_classify), and, when the baseline was scaled, the
 * scaling ("baseline scaled x1.29 to the same total"). The totals line
 * (core/analyze/diffsum.h) stands under the title. The script reads a frame's name back from
 * its title up to the last " (": the details text never contains " (".
 *
 * Names are untrusted: they only appear as XML text, escaped by
 * tk_svgout_text; the script holds only our code and numbers.
 */
#include "plugins/diffrender/renderers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/draw/diffrender.h"
#include "core/analyze/diffsum.h"
#include "core/draw/flame.h"
#include "core/draw/svgout.h"
#include "core/base/banned.h"

struct ctx {
	struct tk_svgout w;
	const struct tk_diff *d;
	const struct tk_diff_opts *dopts;
	const struct tk_diff_render_opts *o;
	struct tk_svg_page pg;
	double wpt; /* pixels per weight unit */
	const char *totals;  /* the totals line */
	const char *scaling; /* "baseline scaled x1.29 ...", "" */
	int categories;      /* tk_render_categories: category outlines, legend */
};

/* "1,234 samples", "12.50 ms", "3.20 MiB"... (v >= 0); counts that are
 * whole but for floating-point noise (normalized weights) shown whole. */
static void out_weight(struct ctx *c, double v)
{
	const char *cn = c->o->render.count_name;
	enum tk_unit unit = c->d->tree.unit;

	if ((cn || (unit != TK_UNIT_NANOSECONDS && unit != TK_UNIT_BYTES)) &&
	    fabs(v - floor(v + 0.5)) < 1e-9 * (v > 1 ? v : 1))
		v = floor(v + 0.5);
	tk_svgout_weight(&c->w, v, unit, cn);
}

static const char *new_color(const struct ctx *c)
{
	return c->o->new_color && *c->o->new_color ? c->o->new_color : "#000000";
}

/* The fill of a class: see docs/diff-pages.md (the HTML page's colours). */
static void out_fill(struct ctx *c, enum tk_diff_class cls, double in)
{
	int v = (int)floor(220 - 190 * (in < 0 ? 0 : in > 1 ? 1 : in) + 0.5);

	switch (cls) {
	case TK_DIFF_UP:
		tk_svgout_rgb(&c->w, 255, v, v);
		break;
	case TK_DIFF_DOWN:
		tk_svgout_rgb(&c->w, v, v, 255);
		break;
	case TK_DIFF_NEW:
		tk_svgout_cstr(&c->w, new_color(c));
		break;
	case TK_DIFF_VANISHED:
		TK_SVGOUT_LIT(&c->w, "url(#vanished)");
		break;
	default:
		TK_SVGOUT_LIT(&c->w, "rgb(200,200,200)");
		break;
	}
}

static int dark_fill(const struct ctx *c, enum tk_diff_class cls, double in)
{
	const char *nc = new_color(c);
	unsigned long x;
	char *end;

	if (cls == TK_DIFF_UP || cls == TK_DIFF_DOWN)
		return in > 0.8;
	if (cls != TK_DIFF_NEW)
		return 0;
	if (nc[0] != '#' || strlen(nc) != 7)
		return 1;
	x = strtoul(nc + 1, &end, 16);
	if (*end)
		return 1;
	return ((x >> 16) * 299 + (x >> 8 & 255) * 587 + (x & 255) * 114) / 1000 < 128;
}

/* The frame's details: see the top of the file. */
static void out_info(struct ctx *c, uint32_t node, enum tk_diff_class cls)
{
	int self = c->o->mode != TK_DIFF_CUMULATIVE;
	double b = self ? c->d->base_self[node] : c->d->base_total[node];
	double n = self ? tk_diff_new_self(c->d, node) : tk_diff_new_total(c->d, node);
	double delta = n - b;
	char num[TK_SVG_NUM_MAX];

	TK_SVGOUT_LIT(&c->w, " (");
	tk_svgout_str(&c->w, self ? "self" : "total");
	TK_SVGOUT_LIT(&c->w, ": base ");
	out_weight(c, b);
	TK_SVGOUT_LIT(&c->w, ", new ");
	out_weight(c, n);
	TK_SVGOUT_LIT(&c->w, ", \xce\x94 ");
	tk_svgout_str(&c->w, delta < 0 ? "-" : "+");
	out_weight(c, fabs(delta));
	TK_SVGOUT_LIT(&c->w, ", ");
	if (b > 0) {
		tk_svgout_str(&c->w, delta < 0 ? "-" : "+");
		tk_svgout_add(&c->w, num, tk_svg_fmt_fixed(num, fabs(100 * delta / b), 2, 0, 0));
		TK_SVGOUT_LIT(&c->w, "%");
	} else {
		tk_svgout_str(&c->w, n > 0 ? "+\xe2\x88\x9e%" : "+0.00%");
	}
	if (cls == TK_DIFF_NEW)
		TK_SVGOUT_LIT(&c->w, ", new");
	else if (cls == TK_DIFF_VANISHED)
		TK_SVGOUT_LIT(&c->w, ", vanished");
	else if (cls == TK_DIFF_NOISE)
		TK_SVGOUT_LIT(&c->w, ", within noise");
	if (c->dopts->norm != TK_DIFF_NORM_NONE) {
		TK_SVGOUT_LIT(&c->w, ", ");
		tk_svgout_cstr(&c->w, c->scaling);
	}
	TK_SVGOUT_LIT(&c->w, ")");
}

/* A frame of a coloured category is outlined in its colour (inside the
 * rect's fill attribute's quotes: tk_svg_frame_text closes them). */
static void out_category(struct ctx *c, uint32_t name)
{
	enum tk_category cat = tk_profile_category(&c->d->tree, name);
	int r, g, b;

	if (!tk_category_colored(cat))
		return;
	tk_category_rgb(cat, &r, &g, &b);
	TK_SVGOUT_LIT(&c->w, "\" stroke=\"");
	tk_svgout_rgb(&c->w, r, g, b);
	TK_SVGOUT_LIT(&c->w, "\" stroke-width=\"2");
}

/* The categories' swatches, outlined as their frames are, from x on. */
static void category_legend(struct ctx *c, double x, double y)
{
	enum tk_category cats[TK_CAT_NR];
	size_t nr = tk_render_legend(&c->d->tree, cats), i;
	double fs = c->pg.font_size;
	int r, g, b;

	for (i = 0; i < nr; i++) {
		const char *name = tk_category_name(cats[i]);

		tk_category_rgb(cats[i], &r, &g, &b);
		TK_SVGOUT_LIT(&c->w, "<rect class=\"category\" x=\"");
		tk_svgout_num(&c->w, x, 2);
		TK_SVGOUT_LIT(&c->w, "\" y=\"");
		tk_svgout_num(&c->w, y - fs + 2, 2);
		TK_SVGOUT_LIT(&c->w, "\" width=\"14\" height=\"");
		tk_svgout_num(&c->w, fs, 2);
		TK_SVGOUT_LIT(&c->w, "\" fill=\"rgb(200,200,200)\" stroke-width=\"2\" stroke=\"");
		tk_svgout_rgb(&c->w, r, g, b);
		TK_SVGOUT_LIT(&c->w, "\"/>");
		tk_svg_text_open(&c->w, NULL, x + 18, y);
		tk_svgout_cstr(&c->w, name);
		TK_SVGOUT_LIT(&c->w, "</text>\n");
		x += 18 + fs * TK_SVG_FONT_WIDTH * (strlen(name) + 2);
	}
}

static void frame(struct ctx *c, const struct tk_flame_frame *fr)
{
	const struct tk_svg_page *pg = &c->pg;
	struct tk_svgout *w = &c->w;
	size_t len, shown;
	const char *name = tk_svg_frame_name(&c->d->tree, fr->node, &len, &shown);
	double x1 = tk_svg_round4(pg->xpad + fr->start * c->wpt);
	double x2 = tk_svg_round4(pg->xpad + (fr->start + fr->width) * c->wpt);
	double y1 = pg->bottom - fr->depth * pg->frame_height, in = 0;
	enum tk_diff_class cls = tk_diff_classify(c->d, fr->node, c->o->mode, c->dopts, &in);

	tk_svg_frame_begin(w, name, shown);
	out_info(c, fr->node, cls);
	tk_svg_frame_rect(w, pg, x1, y1, x2 - x1);
	out_fill(c, cls, in);
	if (c->categories && fr->node != TK_PROFILE_ROOT)
		out_category(c, c->d->tree.nodes[fr->node].name);
	tk_svg_frame_text(w, pg, x1, y1);
	if (dark_fill(c, cls, in))
		TK_SVGOUT_LIT(w, " fill=\"rgb(255,255,255)\"");
	tk_svg_frame_end(w, pg, name, shown, x2 - x1);
}

static void out_pct(struct tk_svgout *w, double sat, const char *sign)
{
	char num[TK_SVG_NUM_MAX];

	tk_svgout_str(w, sign);
	tk_svgout_add(w, num, tk_svg_fmt_fixed(num, 100 * (sat > 0 ? sat : 1), 1, 1, 0));
	TK_SVGOUT_LIT(w, "%");
}

static void swatch(struct ctx *c, double x, double y, const char *fill, const char *label)
{
	TK_SVGOUT_LIT(&c->w, "<rect x=\"");
	tk_svgout_num(&c->w, x, 2);
	TK_SVGOUT_LIT(&c->w, "\" y=\"");
	tk_svgout_num(&c->w, y - c->pg.font_size + 2, 2);
	TK_SVGOUT_LIT(&c->w, "\" width=\"14\" height=\"");
	tk_svgout_num(&c->w, c->pg.font_size, 2);
	TK_SVGOUT_LIT(&c->w, "\" stroke=\"rgb(136,136,136)\" fill=\"");
	tk_svgout_cstr(&c->w, fill);
	TK_SVGOUT_LIT(&c->w, "\"/>");
	tk_svg_text_open(&c->w, NULL, x + 18, y);
	tk_svgout_str(&c->w, label);
	TK_SVGOUT_LIT(&c->w, "</text>\n");
}

/* Title, what was compared, and the legend, one line each. */
static void headings(struct ctx *c, double y)
{
	const struct tk_diff_render_opts *o = c->o;
	struct tk_svgout *w = &c->w;
	double mid = floor(c->pg.width / 2), x = c->pg.xpad, fs = c->pg.font_size;

	tk_svg_text(w, "title", mid, fs * 2, o->render.title && *o->render.title ?
			o->render.title : "Differential Flame Graph");
	tk_svg_text(w, "totals", mid, y, c->totals);
	y += fs * 2;
	if (o->render.subtitle && *o->render.subtitle) {
		tk_svg_text(w, "subtitle", mid, y, o->render.subtitle);
		y += fs * 2;
	}
	tk_svg_text_open(w, "compared", mid, y);
	tk_svgout_cstr(w, o->new_label ? o->new_label : "new");
	TK_SVGOUT_LIT(w, " compared with the baseline ");
	tk_svgout_cstr(w, o->base_label ? o->base_label : "base");
	tk_svgout_str(w, o->mode == TK_DIFF_CUMULATIVE ? "; colour: cumulative change" :
						     "; colour: self change");
	tk_svgout_str(w, o->width_by_base ? "; width: baseline" : "; width: new");
	tk_svgout_str(w, c->dopts->norm == TK_DIFF_NORM_NONE ? "; not normalized" :
			 c->dopts->norm == TK_DIFF_NORM_WALLTIME ? "; normalized by walltime" :
								    "; normalized to the same total");
	TK_SVGOUT_LIT(w, "</text>\n");
	y += fs * 2;
	TK_SVGOUT_LIT(w, "<g id=\"legend\">");
	tk_svg_text_open(w, NULL, x, y);
	out_pct(w, c->dopts->saturation, "-");
	TK_SVGOUT_LIT(w, "</text><rect x=\"");
	tk_svgout_num(w, x + fs * 4, 2);
	TK_SVGOUT_LIT(w, "\" y=\"");
	tk_svgout_num(w, y - fs + 2, 2);
	TK_SVGOUT_LIT(w, "\" width=\"160\" height=\"");
	tk_svgout_num(w, fs, 2);
	TK_SVGOUT_LIT(w, "\" fill=\"url(#ramp)\"/>");
	tk_svg_text_open(w, NULL, x + fs * 4 + 166, y);
	out_pct(w, c->dopts->saturation, "+");
	TK_SVGOUT_LIT(w, "</text>\n");
	x += fs * 4 + 166 + fs * 5;
	swatch(c, x, y, new_color(c), "new (not in baseline)");
	x += 18 + fs * TK_SVG_FONT_WIDTH * 22;
	swatch(c, x, y, "url(#vanished)", "vanished");
	x += 18 + fs * TK_SVG_FONT_WIDTH * 10;
	swatch(c, x, y, "rgb(200,200,200)", "noise");
	if (c->categories)
		category_legend(c, x + 18 + fs * TK_SVG_FONT_WIDTH * 8, y);
	TK_SVGOUT_LIT(w, "</g>\n");
}

static void header(struct ctx *c, double head_y)
{
	struct tk_svgout *w = &c->w;

	tk_svg_open(w, &c->pg, "Differential flame graph", "#eeeeee", "#e8e8f4");
	TK_SVGOUT_LIT(w, "\t<linearGradient id=\"ramp\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">\n"
		      "\t\t<stop stop-color=\"rgb(30,30,255)\" offset=\"0\"/>\n"
		      "\t\t<stop stop-color=\"rgb(220,220,255)\" offset=\"0.499\"/>\n"
		      "\t\t<stop stop-color=\"rgb(255,220,220)\" offset=\"0.501\"/>\n"
		      "\t\t<stop stop-color=\"rgb(255,30,30)\" offset=\"1\"/>\n\t</linearGradient>\n"
		      "\t<pattern id=\"vanished\" width=\"6\" height=\"6\" "
		      "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">\n"
		      "\t\t<rect width=\"6\" height=\"6\" fill=\"rgb(225,225,235)\"/>"
		      "<rect width=\"2\" height=\"6\" fill=\"rgb(60,60,255)\"/>\n\t</pattern>\n");
	tk_svg_prologue(w, &c->pg,
			"\t#subtitle, #compared { text-anchor:middle; fill:rgb(96,96,96); }\n"
			"\t#totals { text-anchor:middle; font-weight:bold; }\n");
	headings(c, head_y);
	tk_svg_controls(w, &c->pg);
}

static int svg_render(const struct tk_diff *d, const struct tk_flame *layout,
		      const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		      FILE *outf, struct tk_err *err)
{
	const struct tk_flame fl = *layout;
	struct tk_diff_opts dflt;
	struct ctx c;
	struct tk_svg_page *pg = &c.pg;
	struct tk_buf totals = TK_BUF_INIT, scaling = TK_BUF_INIT;
	double lines, ypad2;
	size_t i;

	if (!dopts) {
		tk_diff_opts_init(&dflt);
		dopts = &dflt;
	}
	memset(&c, 0, sizeof(c));
	c.d = d;
	c.dopts = dopts;
	c.o = o;
	c.categories = tk_render_categories(&d->tree, &o->render);
	pg->width = tk_diff_image_width(o);
	pg->frame_height = o->render.frame_height >= 2 ? o->render.frame_height : 16;
	pg->font_size = o->render.font_size > 0 ? o->render.font_size : 12;
	pg->xpad = TK_FLAME_XPAD;
	ypad2 = pg->font_size * 2 + 10;
	/* title, totals, [subtitle], compared, legend */
	lines = o->render.subtitle && *o->render.subtitle ? 4 : 3;
	tk_diff_add_totals(&totals, d, dopts, o->quantity);
	tk_diff_add_scaling(&scaling, d, dopts);
	c.totals = totals.buf;
	c.scaling = scaling.buf;
	pg->top = pg->font_size * 3 + lines * pg->font_size * 2;
	pg->height = (fl.max_depth + 1) * pg->frame_height + pg->top + ypad2;
	pg->bottom = pg->height - ypad2 - pg->frame_height + 1;
	pg->foot_y = pg->height - ypad2 / 2;
	c.wpt = fl.total > 0 ? (pg->width - 2 * pg->xpad) / fl.total : 0;

	tk_svgout_init(&c.w, outf);
	header(&c, pg->font_size * 4);
	for (i = 0; i < fl.nr; i++) {
		frame(&c, &fl.frames[i]);
		if (c.w.len >= TK_SVGOUT_FLUSH_AT)
			tk_svgout_flush(&c.w);
	}
	tk_svg_close(&c.w);
	/* unlike the flame SVG's, the stream is flushed: a full disk is
	 * reported here, not later */
	tk_svgout_flush(&c.w);
	if (!c.w.failed && fflush(outf))
		c.w.failed = 1;
	tk_buf_release(&totals);
	tk_buf_release(&scaling);
	return tk_svgout_finish(&c.w, err);
}

const struct tk_diff_renderer tk_diffrender_svg = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "svg",
	.ext = ".svg",
	.layout = TK_DIFF_LAYOUT_WIDTH,
	.render = svg_render,
};
