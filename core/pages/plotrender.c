/*
 * History plots: the renderers (core/histplot.h). One picture, four
 * outputs: cairo draws PNG and PDF; our own writer draws the SVG, which
 * the HTML page holds inline and brings to life with a small script.
 *
 * Names are untrusted (keys, branches, commits, build numbers and URLs).
 * In SVG and HTML text they are escaped by xml_text (valid XML: & < > "
 * ' escaped; C0 and C1 controls, U+FFFE/U+FFFF and invalid UTF-8 as
 * U+FFFD); in the page's JSON by tk_html_json_str; on cairo's canvas they
 * are only text. The page's script puts them in the document with
 * textContent, and links only http(s) build URLs. The page's CSP runs
 * only the script whose hash it names (PLOT_SCRIPT_SHA256 below, checked
 * by tests/t2203-history-plot-browser.sh, which prints the right value
 * when the script changes).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/outfmt.h"
#include "core/base/escape.h"
#include "core/base/buf.h"
#include "core/draw/canvas.h"
#include "core/base/fsutil.h"
#include "core/pages/histplot.h"
#include "core/draw/htmlout.h"
#include "core/pages/plotpage.h"
#include "core/draw/svgout.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

/* colours: 0xRRGGBB */
#define C_BASE 0x1f77b4
#define C_MEDIAN 0x08306b
#define C_OTHER 0xff7f0e
#define C_CURRENT 0xd4009b
#define C_FAILED 0xe31a1c
#define C_PARTIAL 0xf5a300
#define C_CHANGE 0x6a3d9a
#define C_GRID 0xdddddd

static const char *const class_css[] = { "base", "other", "current" };

/* A baseline series' dots and band, and its median: series 0 in the
 * colours of a chart with one series, then others that neither the
 * other branches, the current run, halos nor change points use. */
static const uint32_t series_colour[][2] = {
	{ C_BASE, C_MEDIAN }, { 0x2ca02c, 0x145a14 }, { 0x8c564b, 0x4a2a22 },
	{ 0x17becf, 0x0b5f68 }, { 0x7f7f7f, 0x333333 }, { 0xbcbd22, 0x5c5d0a },
};
#define NR_SERIES_COLOURS (sizeof(series_colour) / sizeof(series_colour[0]))

static uint32_t series_rgb(size_t s, int dark)
{
	return series_colour[s % NR_SERIES_COLOURS][dark];
}

size_t tk_plot_page_classes(const struct tk_plot_layout *l, const char ***out)
{
	const struct tk_plot_data *d = l->data;
	const char **names = NULL, *last = NULL;
	size_t n = 0, alloc = 0, i, j, k;
	int any = 0;

	for (i = 0; i < d->nr; i++) {
		for (j = 0; j < d->keys[i].nr; j++) {
			const char *mc = d->keys[i].runs[j].machine_class;

			/* classes come in stretches, and mostly interned */
			if (any && mc == last)
				continue;
			any = 1;
			last = mc;
			for (k = 0; k < n; k++)
				if (names[k] == mc || (names[k] && mc && !strcmp(names[k], mc)))
					break;
			if (k == n) {
				TK_ALLOC_GROW(names, n + 1, alloc);
				names[n++] = mc;
			}
		}
	}
	*out = names;
	return n;
}

/* The page-wide index of series s of c among names (tk_plot_page_classes). */
static size_t page_class(const char *const *names, size_t n, const struct tk_plot_chart *c, size_t s)
{
	const char *mc = c->series[s].machine_class;
	size_t k;

	for (k = 0; k < n; k++)
		if (names[k] == mc || (names[k] && mc && !strcmp(names[k], mc)))
			return k;
	return 0;
}

void tk_plot_num(struct tk_buf *b, double v)
{
	char tmp[TK_SVG_NUM_MAX];

	tk_buf_add(b, tmp, tk_svg_fmt_fixed(tmp, v, 1, 1, 0));
}

static void rgb_hex(struct tk_buf *b, uint32_t c)
{
	tk_buf_addf(b, "#%06x", (unsigned)c);
}

/* ---- the legend, shared by both drawings ---- */

enum swatch { SW_DOT, SW_BIG, SW_HALO, SW_BAND, SW_DASH, SW_NONE };

#define LEGEND_MAX 24

struct legend_item {
	char css[24];    /* the series' class: s-<css> */
	enum swatch sw;
	uint32_t colour;
	char text[160];
	int row;         /* 0, or 1: the second row of the baseline's series */
};

static double text_width(const char *s);

/* With several baseline series, a second row holds one item per series
 * (as many as fit; then "N more"). */
static size_t legend_series(const struct tk_plot_chart *c, const char *const *names,
			    size_t nnames, struct legend_item *it, size_t n)
{
	struct tk_buf b = TK_BUF_INIT;
	double w = 0;
	size_t s;

	for (s = 0; s < c->nseries && n < LEGEND_MAX; s++) {
		tk_buf_reset(&b);
		if (!s)
			tk_buf_adds(&b, "baseline ");
		tk_xml_text(&b, c->series[s].label, TK_XML_QUOTES, 60);
		tk_buf_addf(&b, " (%zu)", c->series[s].count);
		if (s + 1 < c->nseries &&
		    (w + 32 + text_width(b.buf) + 90 > c->x1 - c->x0 || n + 1 == LEGEND_MAX)) {
			it[n] = (struct legend_item){ "", SW_NONE, 0, "", 1 };
			snprintf(it[n++].text, sizeof(it->text), "and %zu more", c->nseries - s);
			break;
		}
		w += 32 + text_width(b.buf);
		it[n] = (struct legend_item){ "", SW_DOT, series_rgb(s, 0), "", 1 };
		snprintf(it[n].css, sizeof(it->css), "mc%zu", page_class(names, nnames, c, s));
		snprintf(it[n++].text, sizeof(it->text), "%s", b.buf);
	}
	tk_buf_release(&b);
	return n;
}

static size_t legend(const struct tk_plot_layout *l, const struct tk_plot_chart *c,
		     const char *const *names, size_t nnames, struct legend_item *it)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t n = 0;

	if (c->nseries > 1) {
		it[n] = (struct legend_item){ "band", SW_BAND, C_BASE, "", 0 };
		snprintf(it[n++].text, sizeof(it->text), "median \xc2\xb1 spread");
	} else if (c->count[TK_PLOT_BASELINE] || c->baseline[0]) {
		tk_buf_adds(&b, "baseline ");
		tk_xml_text(&b, c->baseline, TK_XML_QUOTES, 30);
		tk_buf_addf(&b, " (%zu)", c->count[TK_PLOT_BASELINE]);
		it[n] = (struct legend_item){ "base", SW_DOT, C_BASE, "" };
		snprintf(it[n++].text, sizeof(it->text), "%s", b.buf);
		it[n] = (struct legend_item){ "band", SW_BAND, C_BASE, "" };
		snprintf(it[n++].text, sizeof(it->text), "median \xc2\xb1 spread");
	}
	if (c->count[TK_PLOT_OTHER]) {
		it[n] = (struct legend_item){ "other", SW_DOT, C_OTHER, "" };
		snprintf(it[n++].text, sizeof(it->text), "other branches (%zu)",
			 c->count[TK_PLOT_OTHER]);
	}
	if (c->count[TK_PLOT_CURRENT]) {
		tk_buf_reset(&b);
		tk_xml_text(&b, l->current, TK_XML_QUOTES, 40);
		it[n] = (struct legend_item){ "current", SW_BIG, C_CURRENT, "" };
		snprintf(it[n++].text, sizeof(it->text), "%s", b.buf);
	}
	if (c->nfailed) {
		it[n] = (struct legend_item){ "failed", SW_HALO, C_FAILED, "" };
		snprintf(it[n++].text, sizeof(it->text), "failed (%zu)", c->nfailed);
	}
	if (c->npartial) {
		it[n] = (struct legend_item){ "partial", SW_HALO, C_PARTIAL, "" };
		snprintf(it[n++].text, sizeof(it->text), "partial (%zu)", c->npartial);
	}
	if (c->nchanges) {
		it[n] = (struct legend_item){ "change", SW_DASH, C_CHANGE, "" };
		snprintf(it[n++].text, sizeof(it->text), "change points (%zu)", c->nchanges);
	}
	tk_buf_release(&b);
	if (c->nseries > 1)
		n = legend_series(c, names, nnames, it, n);
	return n;
}

/* Rough width of escaped legend text at 12 px: entities count as one. */
static double text_width(const char *s)
{
	double w = 0;

	for (; *s; s++) {
		if (*s == '&') {
			while (*s && *s != ';')
				s++;
		} else if ((*s & 0xc0) == 0x80) {
			continue;
		}
		w += 6.5;
	}
	return w;
}

/* Characters of text at font size px that fit in w pixels, by an
 * estimate a little wider than Verdana's average (0.62 em): the SVG's
 * text is laid out by the viewer. */
static size_t chars_fitting(double w, double px)
{
	return w > 0 ? (size_t)(w / (0.62 * px)) : 1;
}

/* The centre of a label w pixels wide at x, moved inwards so that the
 * label stays inside a picture `width` wide. */
static double label_centre(double x, double w, double width)
{
	if (x + w / 2 > width - 2)
		x = width - 2 - w / 2;
	if (x - w / 2 < 2)
		x = 2 + w / 2;
	return x;
}

static size_t utf8_chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += (*s & 0xc0) != 0x80;
	return n;
}

/* ---- SVG ---- */

/* " s-mc<j>": the page-wide class of series s, when c has several. */
static void series_css(struct tk_buf *b, const struct tk_plot_chart *c, const char *const *names,
		       size_t nnames, size_t s)
{
	if (c->nseries > 1)
		tk_buf_addf(b, " s-mc%zu", page_class(names, nnames, c, s));
}

/* The start of series se's path: <path class="CLS<series css>PAINT#rgb REST. */
static void series_path(struct tk_buf *b, const struct tk_plot_chart *c,
			const char *const *names, size_t nnames, size_t se, const char *cls,
			const char *paint, int dark, const char *rest)
{
	tk_buf_addf(b, "<path class=\"%s", cls);
	series_css(b, c, names, nnames, se);
	tk_buf_adds(b, paint);
	rgb_hex(b, series_rgb(se, dark));
	tk_buf_adds(b, rest);
}

/* "x y" pairs of nb band points, joined by 'L', at the double `field`
 * of each point; backwards (and each after an 'L') when back. */
static void band_points(struct tk_htmlout *w, const struct tk_plot_band *bd, size_t nb,
			size_t field, int back)
{
	struct tk_buf *b = &w->b;
	size_t i, k;

	for (k = 0; k < nb; k++) {
		i = back ? nb - 1 - k : k;
		if (k || back)
			tk_buf_addch(b, 'L');
		tk_plot_num(b, bd[i].px);
		tk_buf_addch(b, ' ');
		tk_plot_num(b, *(const double *)(const void *)((const char *)&bd[i] + field));
		tk_htmlout_flush(w);
	}
}

static void svg_chart(struct tk_htmlout *w, const struct tk_plot_layout *l, size_t ci,
		      const char *const *names, size_t nnames)
{
	const struct tk_plot_chart *c = &l->charts[ci];
	const struct tk_plot_key *k = c->key;
	struct tk_buf *b = &w->b;
	struct legend_item items[LEGEND_MAX];
	size_t i, n, cls, se;
	double lx;
	int row = 0;

	tk_buf_addf(b, "<g class=\"chart\" id=\"chart%zu\">\n<text class=\"title\" x=\"", ci);
	tk_plot_num(b, l->width / 2);
	tk_buf_adds(b, "\" y=\"");
	tk_plot_num(b, c->top + 19);
	tk_buf_adds(b, "\" text-anchor=\"middle\" font-size=\"15\">");
	tk_xml_text(b, c->title, TK_XML_QUOTES, chars_fitting(l->width - 16, 15) - 1);
	tk_buf_adds(b, "</text>\n");

	/* legend */
	n = legend(l, c, names, nnames, items);
	lx = c->x0;
	for (i = 0; i < n; i++) {
		double y = c->top + 24 + 12 + 16 * items[i].row;

		if (items[i].row != row) {
			row = items[i].row;
			lx = c->x0;
		}
		if (items[i].css[0])
			tk_buf_addf(b, "<g class=\"li s-%s\" font-size=\"11\">", items[i].css);
		else
			tk_buf_adds(b, "<g class=\"li\" font-size=\"11\">");
		switch (items[i].sw) {
		case SW_NONE:
			lx -= 18;
			break;
		case SW_BAND:
			tk_buf_adds(b, "<rect x=\"");
			tk_plot_num(b, lx);
			tk_buf_adds(b, "\" y=\"");
			tk_plot_num(b, y - 9);
			tk_buf_adds(b, "\" width=\"14\" height=\"10\" fill=\"");
			rgb_hex(b, items[i].colour);
			tk_buf_adds(b, "\" fill-opacity=\"0.25\" stroke=\"");
			rgb_hex(b, C_MEDIAN);
			tk_buf_adds(b, "\"/>");
			break;
		case SW_DASH:
			tk_buf_adds(b, "<path d=\"M");
			tk_plot_num(b, lx + 7);
			tk_buf_addch(b, ' ');
			tk_plot_num(b, y - 11);
			tk_buf_adds(b, "v13\" stroke=\"");
			rgb_hex(b, items[i].colour);
			tk_buf_adds(b, "\" stroke-dasharray=\"4 3\"/>");
			break;
		default:
			tk_buf_adds(b, "<circle cx=\"");
			tk_plot_num(b, lx + 7);
			tk_buf_adds(b, "\" cy=\"");
			tk_plot_num(b, y - 4);
			tk_buf_addf(b, "\" r=\"%s\" fill=\"",
				    items[i].sw == SW_BIG ? "5" : items[i].sw == SW_HALO ? "6" : "3");
			rgb_hex(b, items[i].colour);
			tk_buf_adds(b, items[i].sw == SW_HALO ? "\" fill-opacity=\"0.6\"/>" : "\"/>");
			break;
		}
		tk_buf_adds(b, "<text x=\"");
		tk_plot_num(b, lx + 18);
		tk_buf_adds(b, "\" y=\"");
		tk_plot_num(b, y);
		tk_buf_addf(b, "\">%s</text></g>\n", items[i].text);
		lx += 18 + text_width(items[i].text) + 14;
	}

	/* grid and y ticks */
	tk_buf_adds(b, "<g class=\"yt\">");
	for (i = 0; i < c->nyt; i++) {
		double y = floor(c->yt[i].pos) + 0.5;

		tk_buf_adds(b, "<path d=\"M");
		tk_plot_num(b, c->x0);
		tk_buf_addch(b, ' ');
		tk_plot_num(b, y);
		tk_buf_adds(b, "H");
		tk_plot_num(b, c->x1);
		tk_buf_adds(b, "\" stroke=\"#dddddd\"/><text x=\"");
		tk_plot_num(b, c->x0 - 6);
		tk_buf_adds(b, "\" y=\"");
		tk_plot_num(b, y + 4);
		tk_buf_adds(b, "\" text-anchor=\"end\">");
		tk_xml_text(b, c->yt[i].label, TK_XML_QUOTES, 40);
		tk_buf_adds(b, "</text>");
	}
	tk_buf_adds(b, "</g>\n<g class=\"xt\">");
	for (i = 0; i < c->nxt; i++) {
		double x = floor(c->xt[i].pos) + 0.5;

		tk_buf_adds(b, "<path d=\"M");
		tk_plot_num(b, x);
		tk_buf_addch(b, ' ');
		tk_plot_num(b, c->y1);
		tk_buf_adds(b, "v5\" stroke=\"#000000\"/><text x=\"");
		tk_plot_num(b, label_centre(x, 0.62 * 12 * (double)utf8_chars(c->xt[i].label),
					    l->width));
		tk_buf_adds(b, "\" y=\"");
		tk_plot_num(b, c->y1 + 19);
		tk_buf_adds(b, "\" text-anchor=\"middle\">");
		tk_xml_text(b, c->xt[i].label, TK_XML_QUOTES, 40);
		tk_buf_adds(b, "</text>");
	}
	tk_buf_addf(b, "</g>\n<clipPath id=\"clip%zu\"><rect x=\"", ci);
	tk_plot_num(b, c->x0);
	tk_buf_adds(b, "\" y=\"");
	tk_plot_num(b, c->y0 - 8);
	tk_buf_adds(b, "\" width=\"");
	tk_plot_num(b, c->x1 - c->x0);
	tk_buf_adds(b, "\" height=\"");
	tk_plot_num(b, c->y1 - c->y0 + 8);
	tk_buf_addf(b, "\"/></clipPath>\n<g clip-path=\"url(#clip%zu)\"><g class=\"zoom\">\n", ci);

	/* each series' band: hi forward, lo back */
	for (se = 0; se < c->nseries; se++) {
		const struct tk_plot_band *bd = c->band + c->series[se].band0;
		size_t nb = c->series[se].nband;

		if (!nb)
			continue;
		series_path(b, c, names, nnames, se, "s-band", "\" fill=\"", 0,
			    "\" fill-opacity=\"0.18\" d=\"M");
		band_points(w, bd, nb, offsetof(struct tk_plot_band, hi), 0);
		band_points(w, bd, nb, offsetof(struct tk_plot_band, lo), 1);
		tk_buf_adds(b, "Z\"/>\n");
		tk_htmlout_flush(w);
	}
	/* each series' line, then the medians */
	for (se = 0; se < c->nseries; se++) {
		int first = 1;

		if (c->series[se].count < 2)
			continue;
		series_path(b, c, names, nnames, se, "s-base", "\" fill=\"none\" stroke=\"", 0,
			    "\" stroke-opacity=\"0.45\" vector-effect=\"non-scaling-stroke\" d=\"");
		for (i = 0; i < c->npts; i++) {
			if (c->pts[i].cls != TK_PLOT_BASELINE || c->pts[i].series != se)
				continue;
			tk_buf_addch(b, first ? 'M' : 'L');
			first = 0;
			tk_plot_num(b, c->pts[i].px);
			tk_buf_addch(b, ' ');
			tk_plot_num(b, c->pts[i].py);
			tk_htmlout_flush(w);
		}
		tk_buf_adds(b, "\"/>\n");
	}
	for (se = 0; se < c->nseries; se++) {
		const struct tk_plot_band *bd = c->band + c->series[se].band0;
		size_t nb = c->series[se].nband;

		if (!nb)
			continue;
		series_path(b, c, names, nnames, se, "s-band", "\" fill=\"none\" stroke=\"", 1,
			    "\" stroke-width=\"2\" vector-effect=\"non-scaling-stroke\" d=\"M");
		band_points(w, bd, nb, offsetof(struct tk_plot_band, mid), 0);
		tk_buf_adds(b, "\"/>\n");
	}
	/* halos, then dots by class: each a path of zero-length round-capped
	 * strokes, so they stay round when the time axis is zoomed */
	/* a current run's halo is wider than its dark ring (14), else the
	 * ring would hide it */
	for (cls = 0; cls < 4; cls++) {
		unsigned flag = cls & 1 ? TK_PLOT_PARTIAL : TK_PLOT_FAILED;
		int cur = cls >= 2, any = 0;

		for (i = 0; i < c->npts; i++) {
			if (!(c->pts[i].flags & flag) || (c->pts[i].cls == TK_PLOT_CURRENT) != cur)
				continue;
			if (!any)
				tk_buf_addf(b, "<path class=\"s-%s\" stroke=\"#%06x\" stroke-opacity=\"0.6\" "
					    "stroke-width=\"%s\" stroke-linecap=\"round\" "
					    "vector-effect=\"non-scaling-stroke\" d=\"",
					    cls & 1 ? "partial" : "failed", cls & 1 ? C_PARTIAL : C_FAILED,
					    cur ? "22" : "13");
			any = 1;
			tk_buf_addch(b, 'M');
			tk_plot_num(b, c->pts[i].px);
			tk_buf_addch(b, ' ');
			tk_plot_num(b, c->pts[i].py);
			tk_buf_adds(b, "h0");
			tk_htmlout_flush(w);
		}
		if (any)
			tk_buf_adds(b, "\"/>\n");
	}
	for (cls = 0; cls < TK_PLOT_NCLASSES; cls++) {
	for (se = 0; se < (cls == TK_PLOT_BASELINE ? c->nseries : 1); se++) {
		static const uint32_t colour[] = { C_BASE, C_OTHER, C_CURRENT };
		static const char *const width[] = { "5", "6", "11" };
		uint32_t col = cls == TK_PLOT_BASELINE ? series_rgb(se, 0) : colour[cls];
		int pass;

		if (!c->count[cls] || (cls == TK_PLOT_BASELINE && !c->series[se].count))
			continue;
		/* the current runs get a dark ring: a wider dark stroke first */
		for (pass = cls == TK_PLOT_CURRENT ? 0 : 1; pass < 2; pass++) {
			tk_buf_addf(b, "<path class=\"s-%s", class_css[cls]);
			if (cls == TK_PLOT_BASELINE)
				series_css(b, c, names, nnames, se);
			tk_buf_addf(b, "\" stroke=\"#%06x\" stroke-width=\"%s\" "
				    "stroke-linecap=\"round\" vector-effect=\"non-scaling-stroke\" d=\"",
				    pass ? (unsigned)col : 0x222222u, pass ? width[cls] : "14");
			for (i = 0; i < c->npts; i++) {
				if (c->pts[i].cls != cls ||
				    (cls == TK_PLOT_BASELINE && c->pts[i].series != se))
					continue;
				tk_buf_addch(b, 'M');
				tk_plot_num(b, c->pts[i].px);
				tk_buf_addch(b, ' ');
				tk_plot_num(b, c->pts[i].py);
				tk_buf_adds(b, "h0");
				tk_htmlout_flush(w);
			}
			tk_buf_adds(b, "\"/>\n");
		}
	}
	}
	for (i = 0; i < c->nchanges; i++) {
		tk_buf_adds(b, "<path class=\"s-change");
		series_css(b, c, names, nnames, c->changes[i].series);
		tk_buf_adds(b, "\" stroke=\"#6a3d9a\" stroke-width=\"1.5\" "
			    "stroke-dasharray=\"5 4\" vector-effect=\"non-scaling-stroke\" d=\"M");
		tk_plot_num(b, c->changes[i].px);
		tk_buf_addch(b, ' ');
		tk_plot_num(b, c->y0 - 8);
		tk_buf_adds(b, "V");
		tk_plot_num(b, c->y1);
		tk_buf_adds(b, "\"/>\n");
	}
	tk_buf_adds(b, "</g></g>\n");
	for (i = 0; i < c->nchanges; i++) {
		int right = c->changes[i].px > (c->x0 + c->x1) / 2;

		if (c->changes[i].row < 0)
			continue;
		tk_buf_adds(b, "<text class=\"s-change zx change");
		series_css(b, c, names, nnames, c->changes[i].series);
		tk_buf_adds(b, "\" fill=\"#6a3d9a\" data-x=\"");
		tk_plot_num(b, c->changes[i].px);
		tk_buf_adds(b, "\" x=\"");
		tk_plot_num(b, c->changes[i].px + (right ? -4 : 4));
		tk_buf_adds(b, "\" y=\"");
		tk_plot_num(b, c->y0 + 16 + 14 * (double)c->changes[i].row);
		tk_buf_addf(b, "\" text-anchor=\"%s\">change at ", right ? "end" : "start");
		tk_xml_text(b, c->changes[i].label, TK_XML_QUOTES, 80);
		tk_buf_adds(b, "</text>\n");
	}
	tk_buf_adds(b, "<rect x=\"");
	tk_plot_num(b, floor(c->x0) + 0.5);
	tk_buf_adds(b, "\" y=\"");
	tk_plot_num(b, floor(c->y0) + 0.5);
	tk_buf_adds(b, "\" width=\"");
	tk_plot_num(b, floor(c->x1 - c->x0));
	tk_buf_adds(b, "\" height=\"");
	tk_plot_num(b, floor(c->y1 - c->y0));
	tk_buf_adds(b, "\" fill=\"none\" stroke=\"#000000\"/>\n");
	if (!c->npts) {
		tk_buf_adds(b, "<text x=\"");
		tk_plot_num(b, (c->x0 + c->x1) / 2);
		tk_buf_adds(b, "\" y=\"");
		tk_plot_num(b, (c->y0 + c->y1) / 2);
		tk_buf_adds(b, "\" text-anchor=\"middle\" fill=\"#777777\">no values</text>\n");
	}
	tk_buf_adds(b, "</g>\n");
	(void)k;
}

void tk_plot_svg(struct tk_htmlout *w, const struct tk_plot_layout *l, int standalone)
{
	struct tk_buf *b = &w->b;
	const char **names;
	size_t i, nnames;

	if (standalone)
		tk_buf_adds(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
	tk_buf_adds(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"plot\" width=\"");
	tk_plot_num(b, l->width);
	tk_buf_adds(b, "\" height=\"");
	tk_plot_num(b, l->height);
	tk_buf_adds(b, "\" viewBox=\"0 0 ");
	tk_plot_num(b, l->width);
	tk_buf_addch(b, ' ');
	tk_plot_num(b, l->height);
	tk_buf_adds(b, "\" font-family=\"Verdana, 'DejaVu Sans', sans-serif\" font-size=\"12\">\n"
		    "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
	nnames = tk_plot_page_classes(l, &names);
	for (i = 0; i < l->nr; i++) {
		svg_chart(w, l, i, names, nnames);
		tk_htmlout_flush(w);
	}
	free(names);
	tk_buf_adds(b, "</svg>\n");
}

static int write_svg(const struct tk_plot_layout *l, FILE *out, struct tk_err *err)
{
	struct tk_htmlout w;

	tk_htmlout_init(&w, out);
	tk_plot_svg(&w, l, 1);
	if (w.b.len && fwrite(w.b.buf, 1, w.b.len, out) != w.b.len)
		w.failed = 1;
	tk_buf_release(&w.b);
	if (w.failed || fflush(out) || ferror(out))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the svg");
	return 0;
}

/* ---- cairo ---- */

struct cairo_job {
	const struct tk_plot_layout *l;
	struct tk_canvas *cv;
};

static void set_rgb(cairo_t *cr, uint32_t c, double a)
{
	cairo_set_source_rgba(cr, (c >> 16 & 255) / 255.0, (c >> 8 & 255) / 255.0,
			      (c & 255) / 255.0, a);
}

static void dot(cairo_t *cr, double x, double y, double r)
{
	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, r, 0, 2 * M_PI);
}

/* Legend text was escaped for XML: draw it back unescaped. */
static void unescape(struct tk_buf *out, const char *s)
{
	static const struct { const char *e; char c; } ents[] = {
		{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' }, { "&#39;", '\'' },
	};
	size_t i;

	while (*s) {
		for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++)
			if (!strncmp(s, ents[i].e, strlen(ents[i].e)))
				break;
		if (i < sizeof(ents) / sizeof(ents[0])) {
			tk_buf_addch(out, ents[i].c);
			s += strlen(ents[i].e);
		} else {
			tk_buf_addch(out, *s++);
		}
	}
}

/*
 * Lines through thousands of runs: per pixel column, the first, lowest,
 * highest and last point (M4 decimation), which draws the same pixels
 * as the whole line at a fraction of the cost. xy: n points by x; the
 * kept points are traced with cairo_line_to.
 */
static void trace_m4(cairo_t *cr, const double *x, const double *y, size_t n, size_t stride)
{
	size_t i = 0;

	while (i < n) {
		double col = floor(x[i * stride]);
		size_t first = i, lo = i, hi = i, last = i;

		for (; i < n && floor(x[i * stride]) == col; i++) {
			if (y[i * stride] < y[lo * stride])
				lo = i;
			if (y[i * stride] > y[hi * stride])
				hi = i;
			last = i;
		}
		cairo_line_to(cr, x[first * stride], y[first * stride]);
		if (lo < hi) {
			cairo_line_to(cr, x[lo * stride], y[lo * stride]);
			cairo_line_to(cr, x[hi * stride], y[hi * stride]);
		} else if (hi < lo) {
			cairo_line_to(cr, x[hi * stride], y[hi * stride]);
			cairo_line_to(cr, x[lo * stride], y[lo * stride]);
		}
		if (last != first)
			cairo_line_to(cr, x[last * stride], y[last * stride]);
	}
}

static void cairo_chart(const struct tk_canvas *cv, const struct tk_plot_layout *l,
			const struct tk_plot_chart *c, const char *const *names, size_t nnames)
{
	cairo_t *cr = cv->cr;
	struct legend_item items[LEGEND_MAX];
	struct tk_buf t = TK_BUF_INIT;
	cairo_text_extents_t ext;
	size_t i, n, cls, se;
	double lx;
	int row = 0;

	cairo_set_font_size(cr, 15);
	set_rgb(cr, 0, 1);
	{
		/* the title cut with an ellipsis to the picture's width */
		size_t max = 200, left;

		for (;;) {
			tk_buf_reset(&t);
			left = tk_canvas_add_utf8(&t, c->title, strlen(c->title), max);
			if (left)
				tk_buf_adds(&t, "\xe2\x80\xa6");
			cairo_text_extents(cr, t.buf, &ext);
			if (ext.x_advance <= l->width - 16 || max <= 1)
				break;
			max--;
		}
		tk_canvas_text(cv, t.buf, 400, (l->width - ext.x_advance) / 2, c->top + 19);
	}
	cairo_set_font_size(cr, 11);

	n = legend(l, c, names, nnames, items);
	lx = c->x0;
	for (i = 0; i < n; i++) {
		double y = c->top + 24 + 12 + 16 * items[i].row;

		if (items[i].row != row) {
			row = items[i].row;
			lx = c->x0;
		}
		switch (items[i].sw) {
		case SW_NONE:
			lx -= 18;
			break;
		case SW_BAND:
			cairo_rectangle(cr, lx, y - 9, 14, 10);
			set_rgb(cr, items[i].colour, 0.25);
			cairo_fill_preserve(cr);
			set_rgb(cr, C_MEDIAN, 1);
			cairo_set_line_width(cr, 1);
			cairo_stroke(cr);
			break;
		case SW_DASH: {
			double d[] = { 4, 3 };

			cairo_set_dash(cr, d, 2, 0);
			cairo_move_to(cr, lx + 7, y - 11);
			cairo_line_to(cr, lx + 7, y + 2);
			set_rgb(cr, items[i].colour, 1);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			break;
		}
		default:
			dot(cr, lx + 7, y - 4, items[i].sw == SW_BIG ? 5 : items[i].sw == SW_HALO ? 6 : 3);
			set_rgb(cr, items[i].colour, items[i].sw == SW_HALO ? 0.6 : 1);
			cairo_fill(cr);
			break;
		}
		tk_buf_reset(&t);
		unescape(&t, items[i].text);
		set_rgb(cr, 0, 1);
		tk_canvas_text(cv, t.buf, 200, lx + 18, y);
		cairo_text_extents(cr, t.buf, &ext);
		lx += 18 + ext.x_advance + 14;
	}

	cairo_set_font_size(cr, 12);
	cairo_set_line_width(cr, 1);
	for (i = 0; i < c->nyt; i++) {
		double y = floor(c->yt[i].pos) + 0.5;

		set_rgb(cr, C_GRID, 1);
		cairo_move_to(cr, c->x0, y);
		cairo_line_to(cr, c->x1, y);
		cairo_stroke(cr);
		set_rgb(cr, 0, 1);
		tk_canvas_text_right(cv, c->yt[i].label, 40, c->x0 - 6, y + 4);
	}
	for (i = 0; i < c->nxt; i++) {
		double x = floor(c->xt[i].pos) + 0.5;

		set_rgb(cr, 0, 1);
		cairo_move_to(cr, x, c->y1);
		cairo_line_to(cr, x, c->y1 + 5);
		cairo_stroke(cr);
		cairo_text_extents(cr, c->xt[i].label, &ext);
		tk_canvas_text(cv, c->xt[i].label, 40,
			       label_centre(x, ext.x_advance, l->width) - ext.x_advance / 2,
			       c->y1 + 19);
	}

	cairo_save(cr);
	cairo_rectangle(cr, c->x0, c->y0 - 8, c->x1 - c->x0, c->y1 - c->y0 + 8);
	cairo_clip(cr);
	for (se = 0; se < c->nseries; se++) {
		/* the band's outline: its top edge by column, then its bottom
		 * edge backwards */
		const struct tk_plot_band *bd = c->band + c->series[se].band0;
		size_t nb = c->series[se].nband;
		struct tk_plot_band *rev;

		if (!nb)
			continue;
		rev = tk_xmalloc(nb * sizeof(*rev));
		for (i = 0; i < nb; i++)
			rev[i] = bd[nb - 1 - i];
		trace_m4(cr, &bd[0].px, &bd[0].hi, nb, sizeof(*rev) / sizeof(double));
		trace_m4(cr, &rev[0].px, &rev[0].lo, nb, sizeof(*rev) / sizeof(double));
		free(rev);
		cairo_close_path(cr);
		set_rgb(cr, series_rgb(se, 0), 0.18);
		cairo_fill(cr);
	}
	for (se = 0; se < c->nseries; se++) {
		double *xy;
		size_t nxy = 0;

		if (c->series[se].count < 2)
			continue;
		xy = tk_xmalloc(2 * c->series[se].count * sizeof(*xy));
		for (i = 0; i < c->npts; i++)
			if (c->pts[i].cls == TK_PLOT_BASELINE && c->pts[i].series == se) {
				xy[2 * nxy] = c->pts[i].px;
				xy[2 * nxy++ + 1] = c->pts[i].py;
			}
		trace_m4(cr, xy, xy + 1, nxy, 2);
		free(xy);
		set_rgb(cr, series_rgb(se, 0), 0.45);
		cairo_set_line_width(cr, 1);
		cairo_stroke(cr);
	}
	for (se = 0; se < c->nseries; se++) {
		const struct tk_plot_band *bd = c->band + c->series[se].band0;

		if (!c->series[se].nband)
			continue;
		trace_m4(cr, &bd[0].px, &bd[0].mid, c->series[se].nband,
			 sizeof(*c->band) / sizeof(double));
		set_rgb(cr, series_rgb(se, 1), 1);
		cairo_set_line_width(cr, 2);
		cairo_stroke(cr);
	}
	for (i = 0; i < c->npts; i++)
		if (c->pts[i].flags) {
			/* around a current run, wider than its dark ring (7) */
			dot(cr, c->pts[i].px, c->pts[i].py, c->pts[i].cls == TK_PLOT_CURRENT ? 11 : 6.5);
			set_rgb(cr, c->pts[i].flags & TK_PLOT_FAILED ? C_FAILED : C_PARTIAL, 0.6);
			cairo_fill(cr);
		}
	for (cls = 0; cls < TK_PLOT_NCLASSES; cls++) {
	for (se = 0; se < (cls == TK_PLOT_BASELINE ? c->nseries : 1); se++) {
		static const uint32_t colour[] = { C_BASE, C_OTHER, C_CURRENT };
		static const double radius[] = { 2.5, 3, 5.5 };
		uint32_t col = cls == TK_PLOT_BASELINE ? series_rgb(se, 0) : colour[cls];
		/* A year of runs puts many dots on the same pixel: draw one of
		 * them (a dot per half pixel), each filled alone, which cairo
		 * rasterizes much faster than one path of thousands of
		 * overlapping circles. */
		size_t gw = (size_t)(2 * l->width) + 2, gh = (size_t)(2 * (c->y1 - c->y0 + 16)) + 2;
		unsigned char *seen = tk_xcalloc(gw * gh / 8 + 1, 1);
		cairo_surface_t *stamp = NULL;

		if (cls != TK_PLOT_CURRENT &&
		    cairo_surface_get_type(cairo_get_target(cr)) == CAIRO_SURFACE_TYPE_IMAGE) {
			cairo_t *sc;

			stamp = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 8, 8);
			sc = cairo_create(stamp);
			dot(sc, 4, 4, radius[cls]);
			set_rgb(sc, col, 1);
			cairo_fill(sc);
			cairo_destroy(sc);
		}

		for (i = 0; i < c->npts; i++) {
			size_t gx, gy, bit;

			if (c->pts[i].cls != cls ||
			    (cls == TK_PLOT_BASELINE && c->pts[i].series != se))
				continue;
			gx = (size_t)fmax(0, fmin((double)gw - 1, round(2 * c->pts[i].px)));
			gy = (size_t)fmax(0, fmin((double)gh - 1, round(2 * (c->pts[i].py - c->y0 + 8))));
			bit = gy * gw + gx;
			if (cls != TK_PLOT_CURRENT && (seen[bit / 8] >> (bit % 8) & 1))
				continue;
			seen[bit / 8] |= (unsigned char)(1u << (bit % 8));
			if (cls == TK_PLOT_CURRENT) {
				dot(cr, c->pts[i].px, c->pts[i].py, 7);
				set_rgb(cr, 0x222222, 1);
				cairo_fill(cr);
			}
			if (stamp) {
				/* a pixel picture: the dot drawn once, copied */
				cairo_set_source_surface(cr, stamp, floor(c->pts[i].px + 0.5) - 4,
							 floor(c->pts[i].py + 0.5) - 4);
				cairo_rectangle(cr, floor(c->pts[i].px + 0.5) - 4,
						floor(c->pts[i].py + 0.5) - 4, 8, 8);
				cairo_fill(cr);
				continue;
			}
			dot(cr, c->pts[i].px, c->pts[i].py, radius[cls]);
			set_rgb(cr, col, 1);
			cairo_fill(cr);
		}
		free(seen);
		if (stamp)
			cairo_surface_destroy(stamp);
	}
	}
	for (i = 0; i < c->nchanges; i++) {
		double d[] = { 5, 4 };

		cairo_set_dash(cr, d, 2, 0);
		cairo_set_line_width(cr, 1.5);
		cairo_move_to(cr, floor(c->changes[i].px) + 0.5, c->y0 - 8);
		cairo_line_to(cr, floor(c->changes[i].px) + 0.5, c->y1);
		set_rgb(cr, C_CHANGE, 1);
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
	}
	cairo_restore(cr);
	for (i = 0; i < c->nchanges; i++) {
		int right = c->changes[i].px > (c->x0 + c->x1) / 2;
		double y = c->y0 + 16 + 14 * (double)c->changes[i].row;

		if (c->changes[i].row < 0)
			continue;
		tk_buf_reset(&t);
		tk_buf_adds(&t, "change at ");
		tk_buf_adds(&t, c->changes[i].label);
		set_rgb(cr, C_CHANGE, 1);
		if (right)
			tk_canvas_text_right(cv, t.buf, 80, c->changes[i].px - 4, y);
		else
			tk_canvas_text(cv, t.buf, 80, c->changes[i].px + 4, y);
	}
	set_rgb(cr, 0, 1);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, floor(c->x0) + 0.5, floor(c->y0) + 0.5, floor(c->x1 - c->x0),
			floor(c->y1 - c->y0));
	cairo_stroke(cr);
	if (!c->npts) {
		set_rgb(cr, 0x777777, 1);
		tk_canvas_text(cv, "no values", 20, (c->x0 + c->x1) / 2 - 30, (c->y0 + c->y1) / 2);
	}
	tk_buf_release(&t);
}

static void cairo_draw(void *arg)
{
	struct cairo_job *j = arg;
	cairo_t *cr = j->cv->cr;
	cairo_font_options_t *fo = cairo_font_options_create();
	const char **names;
	size_t i, nnames;

	/* crisp text: grey antialiasing, hinted to the pixel grid */
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "Verdana", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	nnames = tk_plot_page_classes(j->l, &names);
	for (i = 0; i < j->l->nr; i++)
		cairo_chart(j->cv, j->l, &j->l->charts[i], names, nnames);
	free(names);
}

/* ---- dispatch ---- */

static const struct tk_outfmt plot_formats[] = {
	{ TK_PLOT_PNG, NULL, ".png" },
	{ TK_PLOT_SVG, NULL, ".svg" },
	{ TK_PLOT_PDF, NULL, ".pdf" },
	{ TK_PLOT_HTML, NULL, ".html" },
	{ TK_PLOT_HTML, NULL, ".htm" },
};

#define NR_PLOT_FORMATS (sizeof(plot_formats) / sizeof(plot_formats[0]))

int tk_plot_format_of(const char *path, enum tk_plot_format *out, struct tk_err *err)
{
	const struct tk_outfmt *f = tk_outfmt_by_path(plot_formats, NR_PLOT_FORMATS, path);
	struct tk_buf use = TK_BUF_INIT;

	if (f) {
		*out = (enum tk_plot_format)f->id;
		return 0;
	}
	tk_outfmt_list(plot_formats, NR_PLOT_FORMATS, 1, ", ", " or ", &use);
	tk_err_set(err, TK_EUSAGE, "cannot tell the plot's format from '%s' (use %s)", path,
		   use.buf);
	tk_buf_release(&use);
	return TK_EUSAGE;
}

int tk_plot_write(const struct tk_plot_layout *l, enum tk_plot_format fmt, const char *back,
		  FILE *out, struct tk_err *err)
{
	struct tk_canvas cv;
	struct cairo_job j;

	switch (fmt) {
	case TK_PLOT_SVG:
		return write_svg(l, out, err);
	case TK_PLOT_HTML:
		return tk_plot_html(l, back, out, err);
	case TK_PLOT_PNG:
	case TK_PLOT_PDF:
		break;
	}
	/* cairo's limit for an image surface, and so for the picture */
	if (l->height > 32767 || l->width > 32767)
		return tk_err_set(err, TK_EUSAGE, "%zu charts make a picture %.0f pixels tall, and "
				  "PNG and PDF are drawn at most 32767: plot fewer keys or "
				  "metrics, or write .svg or .html", l->nr, l->height);
	tk_canvas_init(&cv, l->width, l->height, 12);
	cv.pdf_date = l->date;
	j.l = l;
	j.cv = &cv;
	return tk_canvas_render(&cv, fmt == TK_PLOT_PDF ? TK_CANVAS_PDF : TK_CANVAS_PNG, out,
				cairo_draw, &j, err);
}

int tk_plot_write_path(const struct tk_plot_layout *l, const char *path, const char *back,
		       unsigned wflags, struct tk_err *err)
{
	enum tk_plot_format fmt;
	char *mem = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	ret = tk_plot_format_of(path, &fmt, err);
	if (ret)
		return ret;
	f = open_memstream(&mem, &len);
	if (!f)
		return tk_err_set(err, TK_EINTERNAL, "out of memory");
	ret = tk_plot_write(l, fmt, back, f, err);
	if (fclose(f) && !ret)
		ret = tk_err_set(err, TK_EINTERNAL, "out of memory");
	if (!ret)
		ret = tk_write_file_atomic_flags(path, mem, len, wflags, err);
	free(mem);
	return ret;
}

int tk_plot_key_to_path(struct tk_store *s, const char *key, int64_t since_us,
			const struct tk_plot_opts *o, const char *path, struct tk_err *err)
{
	const char *keys[] = { key, NULL };
	struct tk_run_query q;
	struct tk_plot_data d;
	struct tk_plot_layout l;
	int ret;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.since_us = since_us;
	tk_plot_data_init(&d);
	d.pipeline = o->pipeline;
	ret = tk_plot_data_load(&d, s, &q, err);
	if (!ret)
		ret = tk_plot_fill_alloc(&d, s, o, err);
	if (!ret && !d.nr)
		ret = tk_err_set(err, TK_EDATA, "no runs of key '%s' to plot", key);
	if (!ret)
		ret = tk_plot_layout(&d, o, &l, err);
	if (!ret) {
		ret = tk_plot_write_path(&l, path, NULL, 0, err);
		tk_plot_layout_release(&l);
	}
	tk_plot_data_release(&d);
	return ret;
}
