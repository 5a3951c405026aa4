/*
 * .svg for diffs: the interactive SVG of plugins/render/svg.c (hover
 * details, click to zoom with the ancestors kept, Ctrl-F regex search with
 * "Matched: x%", zoom and search in the URL as ?x=&y=&s=), coloured
 * statically for one mode (o->mode: self or cumulative change) and laid
 * out by the new or the baseline weights (o->width_by_base). A legend
 * under the title gives the colour scale; each frame's <title> (shown in
 * the details line on hover) is
 *
 *     name (self: base 10 samples, new 15 samples, Δ +5 samples, +50.00%)
 *
 * with ", new", ", vanished" or ", within noise" before the ")" for those
 * classes (tk_diff_classify). The script is the flame SVG's, which reads
 * a frame's name back from its title up to the last " (": the details
 * text never contains " (".
 *
 * Names are untrusted: they only appear as XML text, escaped, invalid
 * UTF-8 and characters XML forbids written as U+FFFD; the script holds
 * only our code and numbers.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diffrender.h"
#include "core/flame.h"
#include "core/banned.h"

#define FLUSH_AT (1u << 20)
#define FONT_WIDTH 0.59

struct out {
	char *buf;
	size_t len, alloc;
	FILE *f;
	int failed;
};

static void out_flush(struct out *w)
{
	if (w->len && !w->failed && fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->failed = 1;
	w->len = 0;
}

static void out_reserve(struct out *w, size_t n)
{
	if (w->len + n <= w->alloc)
		return;
	out_flush(w);
	if (n > w->alloc) {
		w->buf = tk_realloc_array(w->buf, n, 1);
		w->alloc = n;
	}
}

static void out_add(struct out *w, const char *s, size_t n)
{
	out_reserve(w, n);
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

#define OUT_LIT(w, lit) out_add((w), (lit), sizeof(lit) - 1)

static void out_str(struct out *w, const char *s)
{
	out_add(w, s, strlen(s));
}

/* v with `dec` (<= 4) decimals into p (>= 48 bytes); returns the length. */
static size_t fmt_fixed(char *p, double v, int dec, int trim, int commas)
{
	static const double pow10[] = { 1, 10, 100, 1000, 10000 };
	char tmp[32];
	size_t n = 0, len = 0;
	uint64_t scaled, ip, fp;
	int neg = v < 0, i;

	if (neg)
		v = -v;
	if (!(v < 1e15)) {
		int r = snprintf(p, 48, "%.*f", dec, neg ? -v : v);

		return r > 0 && r < 48 ? (size_t)r : 0;
	}
	scaled = (uint64_t)(v * pow10[dec] + 0.5);
	ip = scaled / (uint64_t)pow10[dec];
	fp = scaled % (uint64_t)pow10[dec];
	if (neg && scaled)
		p[len++] = '-';
	do {
		tmp[n++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	while (n) {
		p[len++] = tmp[--n];
		if (commas && n && n % 3 == 0)
			p[len++] = ',';
	}
	if (dec) {
		char frac[8];

		for (i = dec - 1; i >= 0; i--) {
			frac[i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		n = (size_t)dec;
		if (trim)
			while (n && frac[n - 1] == '0')
				n--;
		if (n) {
			p[len++] = '.';
			memcpy(p + len, frac, n);
			len += n;
		}
	}
	return len;
}

static void out_num(struct out *w, double v, int dec)
{
	out_reserve(w, 48);
	w->len += fmt_fixed(w->buf + w->len, v, dec, 1, 0);
}

/* Length of the valid, XML-allowed UTF-8 sequence at s (0: replace a byte). */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	uint32_t cp;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0)
		return avail >= 2 && (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c < 0xf0) {
		if (avail < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80)
			return 0;
		cp = (c & 0x0f) << 12 | (s[1] & 0x3fu) << 6 | (s[2] & 0x3fu);
		if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
			return 0;
		return 3;
	}
	if (avail < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
	    (s[3] & 0xc0) != 0x80)
		return 0;
	cp = (c & 0x07) << 18 | (s[1] & 0x3fu) << 12 | (s[2] & 0x3fu) << 6 | (s[3] & 0x3fu);
	return cp >= 0x10000 && cp <= 0x10ffff ? 4 : 0;
}

static size_t count_chars(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = 0;

	while (i < len) {
		size_t k = u[i] < 0x80 ? 1 : utf8_seq(u + i, len - i);

		i += k ? k : 1;
		n++;
	}
	return n;
}

/* XML text: & < > escaped, invalid UTF-8 and C0 controls (but tab, LF,
 * CR) as U+FFFD; at most max_chars characters (0: all). */
static void out_text(struct out *w, const char *s, size_t len, size_t max_chars)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, chars = 0;

	out_reserve(w, len * 6 + 8);
	while (i < len && (!max_chars || chars < max_chars)) {
		unsigned char c = u[i];
		char *d = w->buf + w->len;
		size_t k;

		chars++;
		if (c == '&') {
			memcpy(d, "&amp;", 5);
			w->len += 5;
			i++;
		} else if (c == '<' || c == '>') {
			memcpy(d, c == '<' ? "&lt;" : "&gt;", 4);
			w->len += 4;
			i++;
		} else if ((c >= 0x20 && c < 0x80) || c == '\t' || c == '\n' || c == '\r') {
			*d = (char)c;
			w->len++;
			i++;
		} else if (c >= 0x80 && (k = utf8_seq(u + i, len - i)) != 0) {
			memcpy(d, s + i, k);
			w->len += k;
			i += k;
		} else {
			memcpy(d, "\xef\xbf\xbd", 3);
			w->len += 3;
			i++;
		}
	}
}

static void out_cstr_text(struct out *w, const char *s)
{
	out_text(w, s, strlen(s), 0);
}

static size_t shown_len(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    name[len - 2] && strchr("kwij", name[len - 2]))
		return len - 4;
	return len;
}

/* "1,234 samples", "12.50 ms", "3.20 MiB"... (v >= 0) */
static void out_weight(struct out *w, const struct tk_diff *d,
		       const struct tk_diff_render_opts *o, double v)
{
	const char *cn = o->render.count_name;
	char num[48];
	int i = 0;

	if (!cn && d->tree.unit == TK_UNIT_NANOSECONDS) {
		static const char *const u[] = { " ns", " \xc2\xb5s", " ms", " s" };

		for (; i < 3 && v >= 1000; i++)
			v /= 1000;
		out_add(w, num, fmt_fixed(num, v, i ? 2 : 0, 0, 0));
		out_str(w, u[i]);
		return;
	}
	if (!cn && d->tree.unit == TK_UNIT_BYTES) {
		static const char *const u[] = { " bytes", " KiB", " MiB", " GiB", " TiB" };

		for (; i < 4 && v >= 1024; i++)
			v /= 1024;
		out_add(w, num, fmt_fixed(num, v, i ? 2 : 0, 0, 0));
		out_str(w, u[i]);
		return;
	}
	if (fabs(v - floor(v + 0.5)) < 1e-9 * (v > 1 ? v : 1))
		v = floor(v + 0.5);
	out_add(w, num, fmt_fixed(num, v, v == floor(v) ? 0 : 2, 0, 1));
	out_add(w, " ", 1);
	out_cstr_text(w, cn ? cn : tk_unit_name(d->tree.unit));
}

/* The flame SVG's script (plugins/render/svg.c), unchanged in behaviour. */
static const char script[] =
	"\"use strict\";\n"
	"var F = [], details, searchbtn, unzoombtn, matchedtxt, icbtn;\n"
	"var zoomed = -1, term = null, ignorecase = false;\n"
	"function init(evt) {\n"
	"\tdetails = document.getElementById(\"details\").firstChild;\n"
	"\tsearchbtn = document.getElementById(\"search\");\n"
	"\tunzoombtn = document.getElementById(\"unzoom\");\n"
	"\tmatchedtxt = document.getElementById(\"matched\");\n"
	"\ticbtn = document.getElementById(\"ignorecase\");\n"
	"\tvar gs = document.getElementById(\"frames\").children;\n"
	"\tfor (var i = 0; i < gs.length; i++) {\n"
	"\t\tvar g = gs[i], ti = g.children[0].textContent, r = g.children[1];\n"
	"\t\tvar k = ti.lastIndexOf(\" (\"), y = parseFloat(r.getAttribute(\"y\"));\n"
	"\t\tg.fgIndex = i;\n"
	"\t\tF.push({ g: g, r: r, t: g.children[2], info: ti,\n"
	"\t\t\tname: k < 0 ? ti : ti.substring(0, k),\n"
	"\t\t\tx: parseFloat(r.getAttribute(\"x\")), w: parseFloat(r.getAttribute(\"width\")),\n"
	"\t\t\tax: r.getAttribute(\"x\"), ay: r.getAttribute(\"y\"), fill: r.getAttribute(\"fill\"),\n"
	"\t\t\tdepth: Math.round((C.bottom - y) / C.fh), hl: false });\n"
	"\t}\n"
	"\tvar p = get_params();\n"
	"\tif (p.x !== undefined && p.y !== undefined) {\n"
	"\t\tfor (var j = 0; j < F.length; j++)\n"
	"\t\t\tif (F[j].ax === p.x && F[j].ay === p.y) { zoom(j); break; }\n"
	"\t}\n"
	"\tif (p.s !== undefined) search(p.s);\n"
	"}\n"
	"function frame_of(node) {\n"
	"\tfor (; node && node.parentNode; node = node.parentNode)\n"
	"\t\tif (node.parentNode.id === \"frames\") return node.fgIndex;\n"
	"\treturn -1;\n"
	"}\n"
	"window.addEventListener(\"click\", function (e) {\n"
	"\tvar i = frame_of(e.target);\n"
	"\tif (i >= 0) {\n"
	"\t\tif (i === 0) clearzoom(); else zoom(i);\n"
	"\t\tsave_params();\n"
	"\t} else if (e.target.id === \"unzoom\") { clearzoom(); save_params(); }\n"
	"\telse if (e.target.id === \"search\") search_prompt();\n"
	"\telse if (e.target.id === \"ignorecase\") toggle_ignorecase();\n"
	"}, false);\n"
	"window.addEventListener(\"mouseover\", function (e) {\n"
	"\tvar i = frame_of(e.target);\n"
	"\tif (i >= 0) details.nodeValue = F[i].info;\n"
	"}, false);\n"
	"window.addEventListener(\"mouseout\", function (e) {\n"
	"\tif (frame_of(e.target) >= 0) details.nodeValue = \" \";\n"
	"}, false);\n"
	"window.addEventListener(\"keydown\", function (e) {\n"
	"\tif (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) {\n"
	"\t\te.preventDefault(); search_prompt();\n"
	"\t} else if (e.ctrlKey && e.keyCode === 73) {\n"
	"\t\te.preventDefault(); toggle_ignorecase();\n"
	"\t}\n"
	"}, false);\n"
	"function get_params() {\n"
	"\tvar p = {}, a = window.location.search.substr(1).split(\"&\");\n"
	"\tfor (var i = 0; i < a.length; i++) {\n"
	"\t\tvar k = a[i].indexOf(\"=\");\n"
	"\t\tif (k <= 0) continue;\n"
	"\t\ttry { p[a[i].substr(0, k)] = decodeURIComponent(a[i].substr(k + 1)); } catch (err) {}\n"
	"\t}\n"
	"\treturn p;\n"
	"}\n"
	"function save_params() {\n"
	"\tvar p = get_params(), q = [];\n"
	"\tdelete p.x; delete p.y; delete p.s;\n"
	"\tif (zoomed > 0) { p.x = F[zoomed].ax; p.y = F[zoomed].ay; }\n"
	"\tif (term !== null) p.s = term;\n"
	"\tfor (var k in p) q.push(encodeURIComponent(k) + \"=\" + encodeURIComponent(p[k]));\n"
	"\tvar url = window.location.pathname + (q.length ? \"?\" + q.join(\"&\") : \"\") + window.location.hash;\n"
	"\ttry { history.replaceState(null, \"\", url); } catch (err) {}\n"
	"}\n"
	"function set_text(f, w) {\n"
	"\tvar chars = Math.floor(w / (C.fs * C.fw)), s = \"\";\n"
	"\tif (chars >= 3) s = f.name.length <= chars ? f.name : f.name.substring(0, chars - 2) + \"..\";\n"
	"\tif (f.t.textContent !== s) f.t.textContent = s;\n"
	"}\n"
	"function place(f, x, w, cls) {\n"
	"\tf.r.setAttribute(\"x\", x.toFixed(4)); f.r.setAttribute(\"width\", w.toFixed(4));\n"
	"\tf.t.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"\tf.g.setAttribute(\"class\", cls ? \"func_g \" + cls : \"func_g\");\n"
	"\tset_text(f, w);\n"
	"}\n"
	"function zoom(i) {\n"
	"\tvar f = F[i], full = C.W - 2 * C.xpad, ratio = full / f.w, j, need;\n"
	"\tzoomed = i;\n"
	"\tunzoombtn.classList.remove(\"hide\");\n"
	"\tfor (j = 0; j < F.length; j++) F[j].g.setAttribute(\"class\", \"func_g hide\");\n"
	"\tfor (j = i, need = f.depth - 1; j >= 0 && need >= 0; j--)\n"
	"\t\tif (F[j].depth === need) { place(F[j], C.xpad, full, \"parent\"); need--; }\n"
	"\tplace(f, C.xpad, full, \"\");\n"
	"\tfor (j = i + 1; j < F.length && F[j].depth > f.depth; j++)\n"
	"\t\tplace(F[j], C.xpad + (F[j].x - f.x) * ratio, F[j].w * ratio, \"\");\n"
	"\tsearch();\n"
	"}\n"
	"function clearzoom() {\n"
	"\tzoomed = -1;\n"
	"\tunzoombtn.classList.add(\"hide\");\n"
	"\tfor (var j = 0; j < F.length; j++) place(F[j], F[j].x, F[j].w, \"\");\n"
	"\tsearch();\n"
	"}\n"
	"function toggle_ignorecase() {\n"
	"\tignorecase = !ignorecase;\n"
	"\tif (ignorecase) icbtn.classList.add(\"show\"); else icbtn.classList.remove(\"show\");\n"
	"\tsearch();\n"
	"}\n"
	"function search_prompt() {\n"
	"\tif (term === null) {\n"
	"\t\tvar t = prompt(\"Enter a search term (regexp allowed, eg: ^ext4_)\" +\n"
	"\t\t\t(ignorecase ? \", ignoring case\" : \"\") + \"\\nPress Ctrl-i to toggle case sensitivity\", \"\");\n"
	"\t\tif (t !== null && t !== \"\") search(t);\n"
	"\t} else {\n"
	"\t\tterm = null; search();\n"
	"\t}\n"
	"\tsave_params();\n"
	"}\n"
	"function search(t) {\n"
	"\tif (t !== undefined) term = t;\n"
	"\tvar j, re = null;\n"
	"\tfor (j = 0; j < F.length; j++)\n"
	"\t\tif (F[j].hl) { F[j].r.setAttribute(\"fill\", F[j].fill); F[j].hl = false; }\n"
	"\tif (term !== null) {\n"
	"\t\ttry { re = new RegExp(term, ignorecase ? \"i\" : \"\"); } catch (err) { re = null; }\n"
	"\t}\n"
	"\tif (re === null) {\n"
	"\t\tsearchbtn.classList.remove(\"show\");\n"
	"\t\tsearchbtn.firstChild.nodeValue = \"Search\";\n"
	"\t\tmatchedtxt.classList.add(\"hide\");\n"
	"\t\tmatchedtxt.firstChild.nodeValue = term === null ? \" \" : \"Invalid search: \" + term;\n"
	"\t\tif (term !== null) matchedtxt.classList.remove(\"hide\");\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tvar root = zoomed < 0 ? 0 : zoomed, end = root + 1, sum = 0, inside = -1;\n"
	"\twhile (end < F.length && F[end].depth > F[root].depth) end++;\n"
	"\tfor (j = 0; j < F.length; j++) {\n"
	"\t\tvar f = F[j], m = re.test(f.name);\n"
	"\t\tif (m) { f.r.setAttribute(\"fill\", C.searchcolor); f.hl = true; }\n"
	"\t\tif (j < root || j >= end) continue;\n"
	"\t\tif (inside >= 0 && f.depth > inside) continue;\n"
	"\t\tinside = -1;\n"
	"\t\tif (m) { sum += f.w; inside = f.depth; }\n"
	"\t}\n"
	"\tsearchbtn.classList.add(\"show\");\n"
	"\tsearchbtn.firstChild.nodeValue = \"Reset Search\";\n"
	"\tmatchedtxt.classList.remove(\"hide\");\n"
	"\tvar pct = F[root].w > 0 ? 100 * sum / F[root].w : 0;\n"
	"\tmatchedtxt.firstChild.nodeValue = \"Matched: \" + pct.toFixed(1) + \"%\";\n"
	"}\n";

struct geom {
	double W, H, fh, fs, xpad, ypad2, top, bottom, wpt;
};

struct ctx {
	struct out w;
	const struct tk_diff *d;
	const struct tk_diff_opts *dopts;
	const struct tk_diff_render_opts *o;
	struct geom g;
};

static void out_rgb(struct out *w, int r, int g, int b)
{
	OUT_LIT(w, "rgb(");
	out_num(w, r, 0);
	OUT_LIT(w, ",");
	out_num(w, g, 0);
	OUT_LIT(w, ",");
	out_num(w, b, 0);
	OUT_LIT(w, ")");
}

/* The fill of a class: see docs/diff-pages.md (the HTML page's colours). */
static void out_fill(struct ctx *c, enum tk_diff_class cls, double in)
{
	int v = (int)floor(220 - 190 * (in < 0 ? 0 : in > 1 ? 1 : in) + 0.5);

	switch (cls) {
	case TK_DIFF_UP:
		out_rgb(&c->w, 255, v, v);
		break;
	case TK_DIFF_DOWN:
		out_rgb(&c->w, v, v, 255);
		break;
	case TK_DIFF_NEW:
		out_cstr_text(&c->w, c->o->new_color && *c->o->new_color ? c->o->new_color : "#000000");
		break;
	case TK_DIFF_VANISHED:
		OUT_LIT(&c->w, "url(#vanished)");
		break;
	default:
		OUT_LIT(&c->w, "rgb(200,200,200)");
		break;
	}
}

static int dark_fill(const struct ctx *c, enum tk_diff_class cls, double in)
{
	const char *nc = c->o->new_color && *c->o->new_color ? c->o->new_color : "#000000";
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

static void out_signed_weight(struct ctx *c, double v)
{
	out_str(&c->w, v < 0 ? "-" : "+");
	out_weight(&c->w, c->d, c->o, fabs(v));
}

/* The frame's details: see the top of the file. */
static void out_info(struct ctx *c, uint32_t node, enum tk_diff_class cls)
{
	int self = c->o->mode != TK_DIFF_CUMULATIVE;
	double b = self ? c->d->base_self[node] : c->d->base_total[node];
	double n = self ? c->d->new_self[node] : c->d->new_total[node];
	double delta = n - b;
	char num[48];

	OUT_LIT(&c->w, " (");
	out_str(&c->w, self ? "self" : "total");
	OUT_LIT(&c->w, ": base ");
	out_weight(&c->w, c->d, c->o, b);
	OUT_LIT(&c->w, ", new ");
	out_weight(&c->w, c->d, c->o, n);
	OUT_LIT(&c->w, ", \xce\x94 ");
	out_signed_weight(c, delta);
	OUT_LIT(&c->w, ", ");
	if (b > 0) {
		out_str(&c->w, delta < 0 ? "-" : "+");
		out_add(&c->w, num, fmt_fixed(num, fabs(100 * delta / b), 2, 0, 0));
		OUT_LIT(&c->w, "%");
	} else {
		out_str(&c->w, n > 0 ? "+\xe2\x88\x9e%" : "+0.00%");
	}
	if (cls == TK_DIFF_NEW)
		OUT_LIT(&c->w, ", new");
	else if (cls == TK_DIFF_VANISHED)
		OUT_LIT(&c->w, ", vanished");
	else if (cls == TK_DIFF_NOISE)
		OUT_LIT(&c->w, ", within noise");
	OUT_LIT(&c->w, ")");
}

static void frame(struct ctx *c, const struct tk_flame_frame *fr)
{
	const struct tk_profile *p = &c->d->tree;
	struct out *w = &c->w;
	const struct geom *g = &c->g;
	const char *name = fr->node == TK_PROFILE_ROOT ? "all" : tk_profile_name(p, fr->node);
	size_t len = fr->node == TK_PROFILE_ROOT ? 3 : p->name_lens[p->nodes[fr->node].name];
	size_t shown = fr->node == TK_PROFILE_ROOT ? 3 : shown_len(name, len);
	double x1 = g->xpad + fr->start * g->wpt, x2 = g->xpad + (fr->start + fr->width) * g->wpt;
	double y1 = g->bottom - fr->depth * g->fh, wpx, chars, in = 0;
	enum tk_diff_class cls = tk_diff_classify(c->d, fr->node, c->o->mode, c->dopts, &in);

	x1 = floor(x1 * 10000 + 0.5) / 10000;
	x2 = floor(x2 * 10000 + 0.5) / 10000;
	wpx = x2 - x1;
	OUT_LIT(w, "<g class=\"func_g\"><title>");
	out_text(w, name, shown, 0);
	out_info(c, fr->node, cls);
	OUT_LIT(w, "</title><rect x=\"");
	out_num(w, x1, 4);
	OUT_LIT(w, "\" y=\"");
	out_num(w, y1, 2);
	OUT_LIT(w, "\" width=\"");
	out_num(w, wpx, 4);
	OUT_LIT(w, "\" height=\"");
	out_num(w, g->fh - 1, 2);
	OUT_LIT(w, "\" fill=\"");
	out_fill(c, cls, in);
	OUT_LIT(w, "\" rx=\"2\" ry=\"2\"/><text x=\"");
	out_num(w, x1 + 3, 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, y1 + (g->fh - 1) / 2 + 3, 2);
	if (dark_fill(c, cls, in))
		OUT_LIT(w, "\" fill=\"rgb(255,255,255)");
	OUT_LIT(w, "\">");
	chars = floor(wpx / (g->fs * FONT_WIDTH));
	if (chars >= 3) {
		size_t n = shown <= (size_t)chars ? shown : count_chars(name, shown);

		if (n <= (size_t)chars) {
			out_text(w, name, shown, 0);
		} else {
			out_text(w, name, shown, (size_t)chars - 2);
			OUT_LIT(w, "..");
		}
	}
	OUT_LIT(w, "</text></g>\n");
}

static void text_at(struct ctx *c, const char *id, double x, double y, const char *anchor)
{
	OUT_LIT(&c->w, "<text");
	if (id) {
		OUT_LIT(&c->w, " id=\"");
		out_str(&c->w, id);
		OUT_LIT(&c->w, "\"");
	}
	if (anchor) {
		OUT_LIT(&c->w, " text-anchor=\"");
		out_str(&c->w, anchor);
		OUT_LIT(&c->w, "\"");
	}
	OUT_LIT(&c->w, " x=\"");
	out_num(&c->w, x, 2);
	OUT_LIT(&c->w, "\" y=\"");
	out_num(&c->w, y, 2);
	OUT_LIT(&c->w, "\">");
}

static void out_pct(struct out *w, double sat, const char *sign)
{
	char num[48];

	out_str(w, sign);
	out_add(w, num, fmt_fixed(num, 100 * (sat > 0 ? sat : 1), 1, 1, 0));
	OUT_LIT(w, "%");
}

static void swatch(struct ctx *c, double x, double y, const char *fill, const char *label)
{
	OUT_LIT(&c->w, "<rect x=\"");
	out_num(&c->w, x, 2);
	OUT_LIT(&c->w, "\" y=\"");
	out_num(&c->w, y - c->g.fs + 2, 2);
	OUT_LIT(&c->w, "\" width=\"14\" height=\"");
	out_num(&c->w, c->g.fs, 2);
	OUT_LIT(&c->w, "\" stroke=\"rgb(136,136,136)\" fill=\"");
	out_cstr_text(&c->w, fill);
	OUT_LIT(&c->w, "\"/>");
	text_at(c, NULL, x + 18, y, NULL);
	out_str(&c->w, label);
	OUT_LIT(&c->w, "</text>\n");
}

/* Title, what was compared, and the legend, one line each. */
static void headings(struct ctx *c, double y)
{
	const struct tk_diff_render_opts *o = c->o;
	double mid = floor(c->g.W / 2), x = c->g.xpad, fs = c->g.fs;

	text_at(c, "title", mid, fs * 2, NULL);
	out_cstr_text(&c->w, o->render.title && *o->render.title ? o->render.title :
			     "Differential Flame Graph");
	OUT_LIT(&c->w, "</text>\n");
	if (o->render.subtitle && *o->render.subtitle) {
		text_at(c, "subtitle", mid, y, NULL);
		out_cstr_text(&c->w, o->render.subtitle);
		OUT_LIT(&c->w, "</text>\n");
		y += fs * 2;
	}
	text_at(c, "compared", mid, y, NULL);
	out_cstr_text(&c->w, o->new_label ? o->new_label : "new");
	OUT_LIT(&c->w, " compared with the baseline ");
	out_cstr_text(&c->w, o->base_label ? o->base_label : "base");
	if (c->d->nr_base > 1) {
		OUT_LIT(&c->w, " (mean of ");
		out_num(&c->w, (double)c->d->nr_base, 0);
		OUT_LIT(&c->w, " runs)");
	}
	out_str(&c->w, o->mode == TK_DIFF_CUMULATIVE ? "; colour: cumulative change" :
						 "; colour: self change");
	out_str(&c->w, o->width_by_base ? "; width: baseline" : "; width: new");
	out_str(&c->w, c->dopts->norm == TK_DIFF_NORM_NONE ? "; not normalized" :
		       c->dopts->norm == TK_DIFF_NORM_WALLTIME ? "; normalized by walltime" :
								  "; normalized to the same total");
	OUT_LIT(&c->w, "</text>\n");
	y += fs * 2;
	OUT_LIT(&c->w, "<g id=\"legend\">");
	text_at(c, NULL, x, y, NULL);
	out_pct(&c->w, c->dopts->saturation, "-");
	OUT_LIT(&c->w, "</text><rect x=\"");
	out_num(&c->w, x + fs * 4, 2);
	OUT_LIT(&c->w, "\" y=\"");
	out_num(&c->w, y - fs + 2, 2);
	OUT_LIT(&c->w, "\" width=\"160\" height=\"");
	out_num(&c->w, fs, 2);
	OUT_LIT(&c->w, "\" fill=\"url(#ramp)\"/>");
	text_at(c, NULL, x + fs * 4 + 166, y, NULL);
	out_pct(&c->w, c->dopts->saturation, "+");
	OUT_LIT(&c->w, "</text>\n");
	x += fs * 4 + 166 + fs * 5;
	swatch(c, x, y, o->new_color && *o->new_color ? o->new_color : "#000000",
	       "new (not in baseline)");
	x += 18 + fs * FONT_WIDTH * 22;
	swatch(c, x, y, "url(#vanished)", "vanished");
	x += 18 + fs * FONT_WIDTH * 10;
	swatch(c, x, y, "rgb(200,200,200)", "noise");
	OUT_LIT(&c->w, "</g>\n");
}

static void header(struct ctx *c, double head_y)
{
	struct out *w = &c->w;
	const struct geom *g = &c->g;

	OUT_LIT(w, "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"");
	out_num(w, g->W, 2);
	OUT_LIT(w, "\" height=\"");
	out_num(w, g->H, 2);
	OUT_LIT(w, "\" onload=\"init(evt)\" viewBox=\"0 0 ");
	out_num(w, g->W, 2);
	OUT_LIT(w, " ");
	out_num(w, g->H, 2);
	OUT_LIT(w, "\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
		"<!-- Differential flame graph drawn by tracker: click a frame to zoom, "
		"Ctrl-F to search. -->\n"
		"<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
		"\t\t<stop stop-color=\"#eeeeee\" offset=\"5%\"/>\n"
		"\t\t<stop stop-color=\"#e8e8f4\" offset=\"95%\"/>\n\t</linearGradient>\n"
		"\t<linearGradient id=\"ramp\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">\n"
		"\t\t<stop stop-color=\"rgb(30,30,255)\" offset=\"0\"/>\n"
		"\t\t<stop stop-color=\"rgb(220,220,255)\" offset=\"0.499\"/>\n"
		"\t\t<stop stop-color=\"rgb(255,220,220)\" offset=\"0.501\"/>\n"
		"\t\t<stop stop-color=\"rgb(255,30,30)\" offset=\"1\"/>\n\t</linearGradient>\n"
		"\t<pattern id=\"vanished\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
		"patternTransform=\"rotate(45)\">\n"
		"\t\t<rect width=\"6\" height=\"6\" fill=\"rgb(225,225,235)\"/>"
		"<rect width=\"2\" height=\"6\" fill=\"rgb(60,60,255)\"/>\n\t</pattern>\n"
		"</defs>\n<style type=\"text/css\">\n"
		"\ttext { font-family:Verdana, sans-serif; font-size:");
	out_num(w, g->fs, 2);
	OUT_LIT(w, "px; fill:rgb(0,0,0); }\n"
		"\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		"\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		"\t#subtitle, #compared { text-anchor:middle; fill:rgb(96,96,96); }\n"
		"\t#title { text-anchor:middle; font-size:");
	out_num(w, g->fs + 5, 2);
	OUT_LIT(w, "px; }\n"
		"\t#unzoom { cursor:pointer; }\n"
		"\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		"\t.hide { display:none; }\n"
		"\t.parent { opacity:0.5; }\n"
		"</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\nvar C = { W: ");
	out_num(w, g->W, 4);
	OUT_LIT(w, ", xpad: ");
	out_num(w, g->xpad, 4);
	OUT_LIT(w, ", fh: ");
	out_num(w, g->fh, 4);
	OUT_LIT(w, ", fs: ");
	out_num(w, g->fs, 4);
	OUT_LIT(w, ", fw: 0.59, inv: 0, top: ");
	out_num(w, g->top, 4);
	OUT_LIT(w, ", bottom: ");
	out_num(w, g->bottom, 4);
	OUT_LIT(w, ", searchcolor: \"rgb(230,0,230)\" };\n");
	OUT_LIT(w, script);
	OUT_LIT(w, "]]></script>\n<rect x=\"0\" y=\"0\" width=\"");
	out_num(w, g->W, 2);
	OUT_LIT(w, "\" height=\"");
	out_num(w, g->H, 2);
	OUT_LIT(w, "\" fill=\"url(#background)\"/>\n");
	headings(c, head_y);
	text_at(c, "details", g->xpad, g->H - g->ypad2 / 2, NULL);
	OUT_LIT(w, " </text>\n<text id=\"unzoom\" class=\"hide\" x=\"");
	out_num(w, g->xpad, 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, g->fs * 2, 2);
	OUT_LIT(w, "\">Reset Zoom</text>\n<text id=\"search\" x=\"");
	out_num(w, g->W - g->xpad - 100, 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, g->fs * 2, 2);
	OUT_LIT(w, "\">Search</text>\n<text id=\"ignorecase\" x=\"");
	out_num(w, g->W - g->xpad - 16, 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, g->fs * 2, 2);
	OUT_LIT(w, "\">ic</text>\n<text id=\"matched\" class=\"hide\" x=\"");
	out_num(w, g->W - g->xpad - 100, 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, g->H - g->ypad2 / 2, 2);
	OUT_LIT(w, "\"> </text>\n<g id=\"frames\">\n");
}

static int svg_render(const struct tk_diff *d, const struct tk_diff_opts *dopts,
		      const struct tk_diff_render_opts *o, FILE *outf, struct tk_err *err)
{
	struct tk_diff_opts dflt;
	struct tk_flame_opts fo;
	struct tk_flame fl;
	struct ctx c;
	struct geom *g = &c.g;
	double lines;
	size_t i;
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
	c.w.f = outf;
	c.w.alloc = 2 * FLUSH_AT;
	c.w.buf = tk_xmalloc(c.w.alloc);
	g->W = fo.image_width;
	g->fh = o->render.frame_height >= 2 ? o->render.frame_height : 16;
	g->fs = o->render.font_size > 0 ? o->render.font_size : 12;
	g->xpad = TK_FLAME_XPAD;
	g->ypad2 = g->fs * 2 + 10;
	/* title, [subtitle], compared, legend */
	lines = o->render.subtitle && *o->render.subtitle ? 3 : 2;
	g->top = g->fs * 3 + lines * g->fs * 2;
	g->H = (fl.max_depth + 1) * g->fh + g->top + g->ypad2;
	g->bottom = g->H - g->ypad2 - g->fh + 1;
	g->wpt = fl.total > 0 ? (g->W - 2 * g->xpad) / fl.total : 0;

	header(&c, g->fs * 4);
	for (i = 0; i < fl.nr; i++) {
		frame(&c, &fl.frames[i]);
		if (c.w.len >= FLUSH_AT)
			out_flush(&c.w);
	}
	OUT_LIT(&c.w, "</g>\n</svg>\n");
	out_flush(&c.w);
	free(c.w.buf);
	tk_flame_release(&fl);
	if (c.w.failed || fflush(outf) || ferror(outf))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the svg: %s",
				  errno ? strerror(errno) : "write error");
	return 0;
}

const struct tk_diff_renderer tk_diffrender_svg = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "svg",
	.ext = ".svg",
	.render = svg_render,
};
