#include "core/draw/svgout.h"

#include <errno.h>
#include <stdlib.h>

#include "core/base/buf.h"
#include "core/draw/render.h"
#include "core/base/escape.h"
#include "core/base/banned.h"

void tk_svgout_init(struct tk_svgout *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->alloc = 2 * TK_SVGOUT_FLUSH_AT;
	w->buf = tk_xmalloc(w->alloc);
}

void tk_svgout_flush(struct tk_svgout *w)
{
	if (w->len && !w->failed && fwrite(w->buf, 1, w->len, w->f) != w->len)
		w->failed = 1;
	w->len = 0;
}

void tk_svgout_make_room(struct tk_svgout *w, size_t n)
{
	tk_svgout_flush(w);
	if (n > w->alloc) {
		w->buf = tk_realloc_array(w->buf, n, 1);
		w->alloc = n;
	}
}

int tk_svgout_finish(struct tk_svgout *w, struct tk_err *err)
{
	tk_svgout_flush(w);
	free(w->buf);
	w->buf = NULL;
	w->alloc = 0;
	if (w->failed || ferror(w->f))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the svg: %s",
				  errno ? strerror(errno) : "write error");
	return 0;
}

size_t tk_svg_fmt_fixed(char *p, double v, int dec, int trim, int commas)
{
	static const double pow10[] = { 1, 10, 100, 1000, 10000 };
	char tmp[32];
	size_t n = 0, len = 0;
	uint64_t scaled, ip, fp;
	int neg = v < 0, i;

	if (neg)
		v = -v;
	if (!(v < 1e15)) {
		/* huge or NaN: rare, let printf do it */
		int r = snprintf(p, TK_SVG_NUM_MAX, "%.*f", dec, neg ? -v : v);

		return r > 0 && r < TK_SVG_NUM_MAX ? (size_t)r : 0;
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

void tk_svgout_rgb(struct tk_svgout *w, int r, int g, int b)
{
	TK_SVGOUT_LIT(w, "rgb(");
	tk_svgout_num(w, r, 0);
	TK_SVGOUT_LIT(w, ",");
	tk_svgout_num(w, g, 0);
	TK_SVGOUT_LIT(w, ",");
	tk_svgout_num(w, b, 0);
	TK_SVGOUT_LIT(w, ")");
}

/* At most max_chars characters (0: all) of s[0..len) as XML text: the
 * xml rule of core/base/escape.h, quotes as they are (element content
 * only). */
static void out_text(struct tk_svgout *w, const char *s, size_t len, size_t max_chars)
{
	tk_svgout_reserve(w, TK_XML_ESCAPED_MAX(len) + 8);
	w->len += tk_xml_escape_raw(w->buf + w->len, s, len, 0, max_chars, NULL);
}

void tk_svgout_text(struct tk_svgout *w, const char *s, size_t len)
{
	out_text(w, s, len, 0);
}

void tk_svgout_text_fit(struct tk_svgout *w, const char *s, size_t len, size_t max_chars)
{
	/* a name of no more bytes than fit, 4 characters for a byte shown
	 * as "\xNN", has no more characters either */
	size_t n = len <= max_chars / 4 ? len : tk_xml_chars(s, len);

	if (n <= max_chars) {
		out_text(w, s, len, 0);
	} else {
		out_text(w, s, len, max_chars - 2);
		TK_SVGOUT_LIT(w, "..");
	}
}

void tk_svgout_weight(struct tk_svgout *w, double v, enum tk_unit unit,
		      const char *count_name)
{
	char num[TK_SVG_NUM_MAX];
	int i = 0;

	if (!count_name && unit == TK_UNIT_NANOSECONDS) {
		static const char *const u[] = { " ns", " \xc2\xb5s", " ms", " s" };

		for (; i < 3 && v >= 1000; i++)
			v /= 1000;
		tk_svgout_add(w, num, tk_svg_fmt_fixed(num, v, i ? 2 : 0, 0, 0));
		tk_svgout_str(w, u[i]);
		return;
	}
	if (!count_name && unit == TK_UNIT_BYTES) {
		static const char *const u[] = { " bytes", " KiB", " MiB", " GiB", " TiB" };

		for (; i < 4 && v >= 1024; i++)
			v /= 1024;
		tk_svgout_add(w, num, tk_svg_fmt_fixed(num, v, i ? 2 : 0, 0, 0));
		tk_svgout_str(w, u[i]);
		return;
	}
	tk_svgout_add(w, num, tk_svg_fmt_fixed(num, v, v == floor(v) ? 0 : 2, 0, 1));
	TK_SVGOUT_LIT(w, " ");
	tk_svgout_cstr(w, count_name ? count_name : tk_unit_name(unit));
}

const char *tk_svg_frame_name(const struct tk_profile *p, uint32_t node, size_t *len,
			      size_t *shown)
{
	const char *name;
	size_t n;

	if (node == TK_PROFILE_ROOT) {
		*len = *shown = 3;
		return "all";
	}
	name = tk_profile_name(p, node);
	n = p->name_lens[p->nodes[node].name];
	*len = n;
	*shown = tk_render_shown_len(name, n);
	return name;
}

void tk_svg_open(struct tk_svgout *w, const struct tk_svg_page *pg, const char *what,
		 const char *bg1, const char *bg2)
{
	TK_SVGOUT_LIT(w, "<?xml version=\"1.0\" standalone=\"no\"?>\n<svg version=\"1.1\" width=\"");
	tk_svgout_num(w, pg->width, 2);
	TK_SVGOUT_LIT(w, "\" height=\"");
	tk_svgout_num(w, pg->height, 2);
	TK_SVGOUT_LIT(w, "\" onload=\"init(evt)\" viewBox=\"0 0 ");
	tk_svgout_num(w, pg->width, 2);
	TK_SVGOUT_LIT(w, " ");
	tk_svgout_num(w, pg->height, 2);
	TK_SVGOUT_LIT(w, "\" xmlns=\"http://www.w3.org/2000/svg\" "
		      "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n<!-- ");
	tk_svgout_str(w, what);
	TK_SVGOUT_LIT(w, " drawn by tracker: click a frame to zoom, Ctrl-F to search. -->\n"
		      "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">\n"
		      "\t\t<stop stop-color=\"");
	tk_svgout_str(w, bg1);
	TK_SVGOUT_LIT(w, "\" offset=\"5%\"/>\n\t\t<stop stop-color=\"");
	tk_svgout_str(w, bg2);
	TK_SVGOUT_LIT(w, "\" offset=\"95%\"/>\n\t</linearGradient>\n");
}

/*
 * The page's script. It holds no data: it reads the frames from the DOM
 * (see the header) and the geometry from C.
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

void tk_svg_prologue(struct tk_svgout *w, const struct tk_svg_page *pg, const char *css)
{
	TK_SVGOUT_LIT(w, "</defs>\n<style type=\"text/css\">\n"
		      "\ttext { font-family:Verdana, sans-serif; font-size:");
	tk_svgout_num(w, pg->font_size, 2);
	TK_SVGOUT_LIT(w, "px; fill:rgb(0,0,0); }\n"
		      "\t#search, #ignorecase { opacity:0.1; cursor:pointer; }\n"
		      "\t#search:hover, #search.show, #ignorecase:hover, #ignorecase.show { opacity:1; }\n");
	tk_svgout_str(w, css);
	TK_SVGOUT_LIT(w, "\t#title { text-anchor:middle; font-size:");
	tk_svgout_num(w, pg->font_size + 5, 2);
	TK_SVGOUT_LIT(w, "px; }\n"
		      "\t#unzoom { cursor:pointer; }\n"
		      "\t#frames > *:hover { stroke:black; stroke-width:0.5; cursor:pointer; }\n"
		      "\t.hide { display:none; }\n"
		      "\t.parent { opacity:0.5; }\n"
		      "</style>\n"
		      "<script type=\"text/ecmascript\"><![CDATA[\nvar C = { W: ");
	tk_svgout_num(w, pg->width, 4);
	TK_SVGOUT_LIT(w, ", xpad: ");
	tk_svgout_num(w, pg->xpad, 4);
	TK_SVGOUT_LIT(w, ", fh: ");
	tk_svgout_num(w, pg->frame_height, 4);
	TK_SVGOUT_LIT(w, ", fs: ");
	tk_svgout_num(w, pg->font_size, 4);
	/* fw: TK_SVG_FONT_WIDTH */
	TK_SVGOUT_LIT(w, ", fw: 0.59, inv: ");
	tk_svgout_str(w, pg->inverted ? "1" : "0");
	TK_SVGOUT_LIT(w, ", top: ");
	tk_svgout_num(w, pg->top, 4);
	TK_SVGOUT_LIT(w, ", bottom: ");
	tk_svgout_num(w, pg->bottom, 4);
	TK_SVGOUT_LIT(w, ", searchcolor: \"rgb(230,0,230)\" };\n");
	TK_SVGOUT_LIT(w, script);
	TK_SVGOUT_LIT(w, "]]></script>\n<rect x=\"0\" y=\"0\" width=\"");
	tk_svgout_num(w, pg->width, 2);
	TK_SVGOUT_LIT(w, "\" height=\"");
	tk_svgout_num(w, pg->height, 2);
	TK_SVGOUT_LIT(w, "\" fill=\"url(#background)\"/>\n");
}

void tk_svg_text_open(struct tk_svgout *w, const char *id, double x, double y)
{
	TK_SVGOUT_LIT(w, "<text");
	if (id) {
		TK_SVGOUT_LIT(w, " id=\"");
		tk_svgout_str(w, id);
		TK_SVGOUT_LIT(w, "\"");
	}
	TK_SVGOUT_LIT(w, " x=\"");
	tk_svgout_num(w, x, 2);
	TK_SVGOUT_LIT(w, "\" y=\"");
	tk_svgout_num(w, y, 2);
	TK_SVGOUT_LIT(w, "\">");
}

void tk_svg_text(struct tk_svgout *w, const char *id, double x, double y, const char *s)
{
	tk_svg_text_open(w, id, x, y);
	tk_svgout_cstr(w, s);
	TK_SVGOUT_LIT(w, "</text>\n");
}

/* A control with its text, and a newline. */
static void control(struct tk_svgout *w, const char *id, int hidden, double x, double y,
		    const char *s)
{
	TK_SVGOUT_LIT(w, "<text id=\"");
	tk_svgout_str(w, id);
	TK_SVGOUT_LIT(w, "\"");
	if (hidden)
		TK_SVGOUT_LIT(w, " class=\"hide\"");
	TK_SVGOUT_LIT(w, " x=\"");
	tk_svgout_num(w, x, 2);
	TK_SVGOUT_LIT(w, "\" y=\"");
	tk_svgout_num(w, y, 2);
	TK_SVGOUT_LIT(w, "\">");
	tk_svgout_str(w, s);
	TK_SVGOUT_LIT(w, "</text>\n");
}

void tk_svg_controls(struct tk_svgout *w, const struct tk_svg_page *pg)
{
	double right = pg->width - pg->xpad, head = pg->font_size * 2;

	control(w, "details", 0, pg->xpad, pg->foot_y, " ");
	control(w, "unzoom", 1, pg->xpad, head, "Reset Zoom");
	control(w, "search", 0, right - 100, head, "Search");
	control(w, "ignorecase", 0, right - 16, head, "ic");
	control(w, "matched", 1, right - 100, pg->foot_y, " ");
	TK_SVGOUT_LIT(w, "<g id=\"frames\">\n");
}

void tk_svg_frame_begin(struct tk_svgout *w, const char *name, size_t shown)
{
	TK_SVGOUT_LIT(w, "<g class=\"func_g\"><title>");
	tk_svgout_text(w, name, shown);
}

void tk_svg_frame_rect(struct tk_svgout *w, const struct tk_svg_page *pg, double x, double y,
		       double width)
{
	TK_SVGOUT_LIT(w, "</title><rect x=\"");
	tk_svgout_num(w, x, 4);
	TK_SVGOUT_LIT(w, "\" y=\"");
	tk_svgout_num(w, y, 2);
	TK_SVGOUT_LIT(w, "\" width=\"");
	tk_svgout_num(w, width, 4);
	TK_SVGOUT_LIT(w, "\" height=\"");
	tk_svgout_num(w, pg->frame_height - 1, 2);
	TK_SVGOUT_LIT(w, "\" fill=\"");
}

void tk_svg_frame_text(struct tk_svgout *w, const struct tk_svg_page *pg, double x, double y)
{
	TK_SVGOUT_LIT(w, "\" rx=\"2\" ry=\"2\"/><text x=\"");
	tk_svgout_num(w, x + 3, 2);
	TK_SVGOUT_LIT(w, "\" y=\"");
	tk_svgout_num(w, y + (pg->frame_height - 1) / 2 + 3, 2);
	TK_SVGOUT_LIT(w, "\"");
}

void tk_svg_frame_end(struct tk_svgout *w, const struct tk_svg_page *pg, const char *name,
		      size_t shown, double width)
{
	double chars = floor(width / (pg->font_size * TK_SVG_FONT_WIDTH));

	TK_SVGOUT_LIT(w, ">");
	if (chars >= 3)
		tk_svgout_text_fit(w, name, shown, (size_t)chars);
	TK_SVGOUT_LIT(w, "</text></g>\n");
}

void tk_svg_close(struct tk_svgout *w)
{
	TK_SVGOUT_LIT(w, "</g>\n</svg>\n");
}
