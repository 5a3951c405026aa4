/*
 * The interactive SVG renderer: flamegraph.pl's picture and behaviour
 * (hover details, click to zoom with the ancestors kept greyed, Ctrl-F
 * regex search with "Matched: x%", zoom and search in the URL), written
 * from scratch and fast on big graphs.
 *
 * Safety: frame names are untrusted. They only ever appear as XML text
 * (in <title> and <text>), escaped, with invalid UTF-8 and characters XML
 * forbids replaced by U+FFFD, so the file is well-formed whatever the
 * names. The <script> holds only our own code and numbers; it reads names
 * back from the DOM.
 *
 * Speed: everything goes through one large buffer written in big chunks;
 * numbers are formatted by hand (the frame loop formats five per frame).
 *
 * Geometry is flamegraph.pl's: frames span image_width - 2 * xpad pixels,
 * each frame_height tall (1 px gap), the root at the bottom (at the top
 * when inverted). x and width carry 4 decimals (flamegraph.pl: 1) so
 * that zooming deep into a narrow frame stays exact.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/render.h"
#include "core/buf.h"
#include "core/banned.h"

#define FLUSH_AT (1u << 20)
#define FONT_WIDTH 0.59 /* average glyph width relative to the font size */

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

/* Formats v >= 0 with `dec` decimals into p (>= 40 bytes); returns length. */
static size_t fmt_fixed(char *p, double v, int dec, int trim, int commas)
{
	static const double pow10[] = { 1, 10, 100, 1000, 10000 };
	char tmp[32];
	size_t n = 0, len = 0, digits;
	uint64_t scaled, ip, fp;
	int neg = v < 0, i;

	if (neg)
		v = -v;
	if (!(v < 1e15)) {
		/* huge or NaN: rare, let printf do it */
		int r = snprintf(p, 40, "%.*f", dec, neg ? -v : v);

		return r > 0 && r < 40 ? (size_t)r : 0;
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
	digits = n;
	while (n) {
		p[len++] = tmp[--n];
		if (commas && n && n % 3 == 0)
			p[len++] = ',';
	}
	(void)digits;
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

/*
 * XML text: escapes & < >, replaces invalid UTF-8 and code points XML 1.0
 * forbids (C0 controls but tab/LF/CR, U+FFFE, U+FFFF) with U+FFFD. Writes
 * at most max_chars characters (0: all), the last two of them "..", when
 * the text is longer. Returns the number of characters in s.
 */
static const unsigned char plain[256] = {
	['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
	[' '] = 1, ['!'] = 1, ['"'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['\''] = 1,
	['('] = 1, [')'] = 1, ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1,
	['/'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1, [';'] = 1, ['='] = 1,
	['?'] = 1, ['@'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1,
	['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1,
	['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['['] = 1, ['\\'] = 1, [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['a'] = 1,
	['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1,
	['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1,
	['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['{'] = 1, ['|'] = 1, ['}'] = 1,
	['~'] = 1,
};

/* Length of the valid, XML-allowed UTF-8 sequence at s (0: replace one byte). */
static size_t utf8_seq(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	uint32_t cp;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0) {
		if (avail < 2 || (s[1] & 0xc0) != 0x80)
			return 0;
		return 2;
	}
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
	if (cp < 0x10000 || cp > 0x10ffff)
		return 0;
	return 4;
}

/* Characters in s[0..len) as the escaper counts them. */
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
		if (plain[c]) {
			*d = (char)c;
			w->len++;
			i++;
			continue;
		}
		if (c == '&') {
			memcpy(d, "&amp;", 5);
			w->len += 5;
			i++;
			continue;
		}
		if (c == '<' || c == '>') {
			memcpy(d, c == '<' ? "&lt;" : "&gt;", 4);
			w->len += 4;
			i++;
			continue;
		}
		k = c < 0x80 ? 0 : utf8_seq(u + i, len - i);
		if (k) {
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

/* A name as shown: flamegraph.pl strips the _[k] _[j] _[i] _[w] annotations. */
static size_t shown_len(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kwij", name[len - 2]) && name[len - 2])
		return len - 4;
	return len;
}

/* "1,234 samples", "12.50 ms", "3.20 MiB"... */
static void out_weight(struct out *w, const struct tk_profile *p,
		       const struct tk_render_opts *o, double v)
{
	char num[48];
	size_t n;

	if (!o->count_name && p->unit == TK_UNIT_NANOSECONDS) {
		static const char *const u[] = { " ns", " \xc2\xb5s", " ms", " s" };
		int i = 0;

		while (i < 3 && v >= 1000) {
			v /= 1000;
			i++;
		}
		n = fmt_fixed(num, v, i ? 2 : 0, 0, 0);
		out_add(w, num, n);
		out_str(w, u[i]);
		return;
	}
	if (!o->count_name && p->unit == TK_UNIT_BYTES) {
		static const char *const u[] = { " bytes", " KiB", " MiB", " GiB", " TiB" };
		int i = 0;

		while (i < 4 && v >= 1024) {
			v /= 1024;
			i++;
		}
		n = fmt_fixed(num, v, i ? 2 : 0, 0, 0);
		out_add(w, num, n);
		out_str(w, u[i]);
		return;
	}
	n = fmt_fixed(num, v, v == floor(v) ? 0 : 2, 0, 1);
	out_add(w, num, n);
	out_add(w, " ", 1);
	out_text(w, o->count_name ? o->count_name : tk_unit_name(p->unit),
		 strlen(o->count_name ? o->count_name : tk_unit_name(p->unit)), 0);
}

static void background(const char *palette, const char **c1, const char **c2)
{
	static const char *const grey[] = { "red", "green", "blue", "aqua", "yellow",
					    "purple", "orange" };
	size_t i;

	*c1 = "#eeeeee";
	*c2 = "#eeeeb0";
	if (!strcmp(palette, "mem")) {
		*c1 = "#eef2ee";
		*c2 = "#e0ffe0";
	} else if (!strcmp(palette, "io") || !strcmp(palette, "wakeup")) {
		*c2 = "#e0e0ff";
	}
	for (i = 0; i < sizeof(grey) / sizeof(grey[0]); i++)
		if (!strcmp(palette, grey[i])) {
			*c1 = "#f8f8f8";
			*c2 = "#e8e8e8";
		}
}

/*
 * The page's script. It holds no data: it reads the frames from the DOM
 * (title = "name (weight, pct%)", rect geometry) and relies on the frames
 * being written in depth-first order, so a frame's subtree is the run of
 * deeper frames after it and its ancestors are found walking back.
 *
 * "Matched" is the share of the zoomed frame's weight (the root's when
 * not zoomed) that lies in matching frames, counting the zoomed frame and
 * its descendants only, a matching frame inside another counted once.
 */
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
	"\t\t\tdepth: Math.round(C.inv ? (y - C.top) / C.fh : (C.bottom - y) / C.fh), hl: false });\n"
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
	double W, H, fh, fs, xpad, ypad1, ypad2, ypad3, top, bottom;
	double wpt; /* pixels per weight unit */
};

static void header(struct out *w, const struct tk_profile *p, const struct tk_flame *f,
		   const struct tk_render_opts *o, const struct geom *g)
{
	const char *bg1, *bg2;

	background(o->palette ? o->palette : "hot", &bg1, &bg2);
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
		"<!-- Flame graph drawn by tracker: click a frame to zoom, Ctrl-F to search. -->\n"
		"<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
		"\t\t<stop stop-color=\"");
	out_str(w, bg1);
	OUT_LIT(w, "\" offset=\"5%\"/>\n\t\t<stop stop-color=\"");
	out_str(w, bg2);
	OUT_LIT(w, "\" offset=\"95%\"/>\n\t</linearGradient>\n</defs>\n"
		"<style type=\"text/css\">\n"
		"\ttext { font-family:Verdana, sans-serif; font-size:");
	out_num(w, g->fs, 2);
	OUT_LIT(w, "px; fill:rgb(0,0,0); }\n"
		"\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		"\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n"
		"\t#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
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
	OUT_LIT(w, ", fw: 0.59, inv: ");
	OUT_LIT(w, "0");
	if (o->inverted)
		w->buf[w->len - 1] = '1';
	OUT_LIT(w, ", top: ");
	out_num(w, g->top, 4);
	OUT_LIT(w, ", bottom: ");
	out_num(w, g->bottom, 4);
	OUT_LIT(w, ", searchcolor: \"rgb(230,0,230)\" };\n");
	OUT_LIT(w, script);
	OUT_LIT(w, "]]></script>\n<rect x=\"0\" y=\"0\" width=\"");
	out_num(w, g->W, 2);
	OUT_LIT(w, "\" height=\"");
	out_num(w, g->H, 2);
	OUT_LIT(w, "\" fill=\"url(#background)\"/>\n<text id=\"title\" x=\"");
	out_num(w, floor(g->W / 2), 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, g->fs * 2, 2);
	OUT_LIT(w, "\">");
	out_text(w, o->title, strlen(o->title), 0);
	OUT_LIT(w, "</text>\n");
	if (o->subtitle && *o->subtitle) {
		OUT_LIT(w, "<text id=\"subtitle\" x=\"");
		out_num(w, floor(g->W / 2), 2);
		OUT_LIT(w, "\" y=\"");
		out_num(w, g->fs * 4, 2);
		OUT_LIT(w, "\">");
		out_text(w, o->subtitle, strlen(o->subtitle), 0);
		OUT_LIT(w, "</text>\n");
	}
	OUT_LIT(w, "<text id=\"details\" x=\"");
	out_num(w, g->xpad, 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, g->H - g->ypad2 / 2, 2);
	OUT_LIT(w, "\"> </text>\n<text id=\"unzoom\" class=\"hide\" x=\"");
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
	(void)p;
	(void)f;
}

static void frame(struct out *w, const struct tk_profile *p, const struct tk_flame *fl,
		  const struct tk_render_opts *o, const struct geom *g,
		  const struct tk_flame_frame *fr)
{
	const char *name = fr->node == TK_PROFILE_ROOT ? "all" : tk_profile_name(p, fr->node);
	size_t len = fr->node == TK_PROFILE_ROOT ? 3 : p->name_lens[p->nodes[fr->node].name];
	size_t shown = fr->node == TK_PROFILE_ROOT ? 3 : shown_len(name, len);
	double x1 = g->xpad + fr->start * g->wpt, x2 = g->xpad + (fr->start + fr->width) * g->wpt;
	double y1, wpx, chars;
	int r, gr, b;

	if (o->inverted)
		y1 = g->top + fr->depth * g->fh;
	else
		y1 = g->bottom - fr->depth * g->fh;
	x1 = floor(x1 * 10000 + 0.5) / 10000;
	x2 = floor(x2 * 10000 + 0.5) / 10000;
	wpx = x2 - x1;
	OUT_LIT(w, "<g class=\"func_g\"><title>");
	out_text(w, name, shown, 0);
	OUT_LIT(w, " (");
	out_weight(w, p, o, fr->width);
	if (fr->node == TK_PROFILE_ROOT) {
		OUT_LIT(w, ", 100%)");
	} else {
		OUT_LIT(w, ", ");
		out_reserve(w, 48);
		w->len += fmt_fixed(w->buf + w->len, fl->total > 0 ? 100 * fr->width / fl->total : 0,
				    2, 0, 0);
		OUT_LIT(w, "%)");
	}
	OUT_LIT(w, "</title><rect x=\"");
	out_num(w, x1, 4);
	OUT_LIT(w, "\" y=\"");
	out_num(w, y1, 2);
	OUT_LIT(w, "\" width=\"");
	out_num(w, wpx, 4);
	OUT_LIT(w, "\" height=\"");
	out_num(w, g->fh - 1, 2);
	OUT_LIT(w, "\" fill=\"");
	if (fr->node != TK_PROFILE_ROOT && len == 1 && name[0] == '-') {
		OUT_LIT(w, "rgb(200,200,200)");
	} else if (fr->node != TK_PROFILE_ROOT && len == 2 && name[0] == '-' && name[1] == '-') {
		OUT_LIT(w, "rgb(160,160,160)");
	} else {
		tk_palette_color(o->palette, fr->node == TK_PROFILE_ROOT ? "" : name, &r, &gr, &b);
		OUT_LIT(w, "rgb(");
		out_num(w, r, 0);
		OUT_LIT(w, ",");
		out_num(w, gr, 0);
		OUT_LIT(w, ",");
		out_num(w, b, 0);
		OUT_LIT(w, ")");
	}
	OUT_LIT(w, "\" rx=\"2\" ry=\"2\"/><text x=\"");
	out_num(w, x1 + 3, 2);
	OUT_LIT(w, "\" y=\"");
	out_num(w, y1 + (g->fh - 1) / 2 + 3, 2);
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

static int svg_render(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *outf, struct tk_err *err)
{
	struct out w;
	struct geom g;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.f = outf;
	w.alloc = 2 * FLUSH_AT;
	w.buf = tk_xmalloc(w.alloc);

	g.W = o->image_width > 2 * TK_FLAME_XPAD ? o->image_width : 1200;
	g.fh = o->frame_height >= 2 ? o->frame_height : 16;
	g.fs = o->font_size > 0 ? o->font_size : 12;
	g.xpad = TK_FLAME_XPAD;
	g.ypad1 = g.fs * 3;
	g.ypad2 = g.fs * 2 + 10;
	g.ypad3 = o->subtitle && *o->subtitle ? g.fs * 2 : 0;
	g.H = (f->max_depth + 1) * g.fh + g.ypad1 + g.ypad2 + g.ypad3;
	/* top edge of depth 0 when inverted; of depth 0 otherwise */
	g.top = g.ypad1 + g.ypad3;
	g.bottom = g.H - g.ypad2 - g.fh + 1;
	g.wpt = f->total > 0 ? (g.W - 2 * g.xpad) / f->total : 0;

	header(&w, p, f, o, &g);
	for (i = 0; i < f->nr; i++) {
		frame(&w, p, f, o, &g, &f->frames[i]);
		if (w.len >= FLUSH_AT)
			out_flush(&w);
	}
	OUT_LIT(&w, "</g>\n</svg>\n");
	out_flush(&w);
	free(w.buf);
	if (w.failed || ferror(outf))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the svg: %s",
				  errno ? strerror(errno) : "write error");
	return 0;
}

const struct tk_renderer tk_render_svg = {
	.version = TK_RENDERER_VERSION,
	.name = "svg",
	.ext = ".svg",
	.render = svg_render,
};
