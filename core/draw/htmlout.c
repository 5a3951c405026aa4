/*
 * The HTML pages' shared parts: see core/draw/htmlout.h. The escaping is the
 * page's defence against hostile frame names; the page's CSP (only the
 * hashed script runs) is the second line.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/base/escape.h"
#include "core/draw/htmlout.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

#define FLUSH_AT (1u << 16)

void tk_htmlout_init(struct tk_htmlout *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	/* room for a chunk and the element that passes it */
	tk_buf_init(&w->b, FLUSH_AT + 4096);
	w->f = f;
}

static void write_out(struct tk_htmlout *w)
{
	if (fwrite(w->b.buf, 1, w->b.len, w->f) != w->b.len)
		w->failed = 1;
	tk_buf_reset(&w->b);
}

void tk_htmlout_flush(struct tk_htmlout *w)
{
	if (w->b.len >= FLUSH_AT)
		write_out(w);
}

void tk_htmlout_begin(struct tk_htmlout *w, const char *script_sha256, const char *style,
		      const char *title, const char *subtitle)
{
	struct tk_buf *b = &w->b;

	tk_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "script-src 'sha256-");
	tk_buf_adds(b, script_sha256);
	tk_buf_adds(b, "'; style-src 'unsafe-inline'; "
		    "img-src data:; base-uri 'none'; form-action 'none'\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"tracker\">\n<title>");
	tk_xml_text(b, title, TK_XML_QUOTES, 0);
	tk_buf_adds(b, "</title>\n");
	tk_buf_adds(b, style);
	tk_buf_adds(b, "</head>\n<body>\n<header id=\"head\">\n<h1 id=\"title\">");
	tk_xml_text(b, title, TK_XML_QUOTES, 0);
	tk_buf_adds(b, "</h1>\n");
	if (subtitle && *subtitle) {
		tk_buf_adds(b, "<p id=\"subtitle\">");
		tk_xml_text(b, subtitle, TK_XML_QUOTES, 0);
		tk_buf_adds(b, "</p>\n");
	}
}

void tk_htmlout_search_bar(struct tk_htmlout *w)
{
	tk_buf_adds(&w->b,
		    "<div class=\"bar\"><button id=\"unzoom\" type=\"button\" class=\"hide\" disabled>"
		    "Reset Zoom</button><div id=\"details\">&nbsp;</div>"
		    "<span id=\"matched\" hidden></span>"
		    "<label title=\"Ignore case when searching\"><input id=\"ignorecase\" "
		    "type=\"checkbox\"> ic</label>"
		    "<input id=\"search\" type=\"search\" placeholder=\"Search (regex)\" "
		    "title=\"Search frame names with a JavaScript regular expression (Ctrl-F)\" "
		    "autocomplete=\"off\" spellcheck=\"false\"></div>\n");
}

void tk_htmlout_begin_data(struct tk_htmlout *w)
{
	tk_buf_adds(&w->b, "</header>\n"
		    "<div id=\"wrap\"><canvas id=\"flame\"></canvas></div>\n"
		    "<noscript><p>This flame graph needs JavaScript.</p></noscript>\n"
		    "<script type=\"application/json\" id=\"tk-data\">");
}

int tk_htmlout_end(struct tk_htmlout *w, const char *const *script, struct tk_err *err)
{
	tk_buf_adds(&w->b, "</script>\n<script>");
	for (; *script; script++)
		tk_buf_adds(&w->b, *script);
	tk_buf_adds(&w->b, "</script>\n</body>\n</html>\n");
	if (w->b.len)
		write_out(w);
	tk_buf_release(&w->b);
	if (w->failed || fflush(w->f) || ferror(w->f))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the html page");
	return 0;
}

/*
 * s[0..len) as a JSON string. shown: as the pages show names, the
 * characters of core/base/escape.h's one rule as the text "\xNN" (a JSON
 * "\\xNN"); else as data, controls as \u00XX and each stray byte as
 * \ufffd.
 */
static void json_str(struct tk_buf *b, const char *s, size_t len, int shown)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + len;

	tk_buf_addch(b, '"');
	while (p < e) {
		const unsigned char *run = p;
		unsigned c;
		size_t n, k;
		int hex;

		/* Most names are plain ASCII: copy runs in one go. */
		while (p < e && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\' &&
		       *p != '<' && *p != '>' && *p != '&')
			p++;
		if (p > run)
			tk_buf_add(b, run, p - run);
		if (p == e)
			break;
		c = *p;
		if (c == '"' || c == '\\') {
			tk_buf_addch(b, '\\');
			tk_buf_addch(b, (char)c);
			p++;
			continue;
		}
		if (c == '<' || c == '>' || c == '&') { /* C++ templates: common */
			tk_buf_adds(b, c == '<' ? "\\u003c" : c == '>' ? "\\u003e" : "\\u0026");
			p++;
			continue;
		}
		n = tk_escape_char((const char *)p, e - p, &hex);
		if (hex && shown) {
			for (k = 0; k < n; k++)
				tk_buf_addf(b, "\\\\x%02x", p[k]);
		} else if (c < 0x80) {
			tk_buf_addf(b, "\\u%04x", c); /* controls, as data */
		} else if (hex && !tk_utf8_seqlen(p, e - p)) {
			tk_buf_adds(b, "\\ufffd");
		} else if (n == 3 && c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			/* line terminators in JavaScript before ES2019 */
			tk_buf_adds(b, p[2] == 0xa8 ? "\\u2028" : "\\u2029");
		} else {
			tk_buf_add(b, p, n);
		}
		p += n;
	}
	tk_buf_addch(b, '"');
}

void tk_html_json_str(struct tk_buf *b, const char *s, size_t len)
{
	json_str(b, s, len, 1);
}

void tk_html_json_data(struct tk_buf *b, const char *s, size_t len)
{
	json_str(b, s, len, 0);
}

void tk_html_json_cstr(struct tk_buf *b, const char *s)
{
	if (s)
		tk_html_json_str(b, s, strlen(s));
	else
		tk_buf_adds(b, "null");
}


void tk_html_json_int(struct tk_buf *b, int64_t v)
{
	char tmp[24];
	/* via unsigned: -INT64_MIN overflows int64_t */
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	size_t i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		tmp[--i] = '-';
	tk_buf_add(b, tmp + i, sizeof(tmp) - i);
}

void tk_html_json_num(struct tk_buf *b, double v)
{
	char tmp[40];
	int len;

	if (!isfinite(v) || v == 0) {
		tk_buf_addch(b, '0');
		return;
	}
	if (v == floor(v) && fabs(v) < 9e15) {
		tk_html_json_int(b, (int64_t)v);
		return;
	}
	len = snprintf(tmp, sizeof(tmp), "%.15g", v);
	if (strtod(tmp, NULL) != v)
		len = snprintf(tmp, sizeof(tmp), "%.17g", v);
	tk_buf_add(b, tmp, (size_t)len);
}

/*
 * The shared JavaScript (see the header for what each piece expects).
 * Both pages' SCRIPT_SHA256 cover these bytes: change them together.
 */
const char tk_html_js_begin[] =
	"(function () {\n"
	"'use strict';\n"
	"var D = JSON.parse(document.getElementById('tk-data').textContent);\n";

const char tk_html_js_elements[] =
	"D = null;\n"
	"\n"
	"var $ = function (id) { return document.getElementById(id); };\n"
	"var canvas = $('flame'), wrap = $('wrap'), details = $('details'), head = $('head');\n";

const char tk_html_js_view[] =
	"function viewX0() { return start[zoom]; }\n"
	"function viewW() { return width[zoom] > 0 ? width[zoom] : 1; }\n"
	"function scale() { return (cw - 2 * xpad) / viewW(); }\n";

const char tk_html_js_scroll_top[] =
	"function scrollTop() {\n"
	"\tvar t = head.offsetHeight - wrap.getBoundingClientRect().top;\n"
	"\treturn Math.max(0, Math.min(t, graphH - ch));\n"
	"}\n";

const char tk_html_js_fmt_fixed[] =
	"function fmtFixed(v, dec, trim, commas) {\n"
	"\tvar p = Math.pow(10, dec), sc = Math.floor(v * p + 0.5);\n"
	"\tvar ip = String(Math.floor(sc / p)), fp = String(sc % p);\n"
	"\tif (commas)\n"
	"\t\tip = ip.replace(/\\B(?=(\\d{3})+(?!\\d))/g, ',');\n"
	"\tif (!dec)\n"
	"\t\treturn ip;\n"
	"\twhile (fp.length < dec)\n"
	"\t\tfp = '0' + fp;\n"
	"\tif (trim)\n"
	"\t\tfp = fp.replace(/0+$/, '');\n"
	"\treturn fp.length ? ip + '.' + fp : ip;\n"
	"}\n";

const char tk_html_js_fmt_weight_begin[] =
	"function fmtWeight(v) {\n"
	"\tvar u, k = 0;\n"
	"\tif (!countName && unit === 'nanoseconds') {\n"
	"\t\tu = [' ns', ' \\u00b5s', ' ms', ' s'];\n"
	"\t\tfor (; k < 3 && v >= 1000; k++)\n"
	"\t\t\tv /= 1000;\n"
	"\t\treturn fmtFixed(v, k ? 2 : 0, false, false) + u[k];\n"
	"\t}\n"
	"\tif (!countName && unit === 'bytes') {\n"
	"\t\tu = [' bytes', ' KiB', ' MiB', ' GiB', ' TiB'];\n"
	"\t\tfor (; k < 4 && v >= 1024; k++)\n"
	"\t\t\tv /= 1024;\n"
	"\t\treturn fmtFixed(v, k ? 2 : 0, false, false) + u[k];\n"
	"\t}\n";

const char tk_html_js_first_at[] =
	"function firstAt(dep, x) {\n"
	"\tvar lo = lev[dep], hi = lev[dep + 1];\n"
	"\twhile (lo < hi) {\n"
	"\t\tvar mid = (lo + hi) >>> 1;\n"
	"\t\tif (start[mid] + width[mid] <= x)\n"
	"\t\t\tlo = mid + 1;\n"
	"\t\telse\n"
	"\t\t\thi = mid;\n"
	"\t}\n"
	"\treturn lo;\n"
	"}\n";

const char tk_html_js_label[] =
	"function label(name, w) {\n"
	"\tvar fit = Math.floor((w - 6) / charW);\n"
	"\tif (fit < 3)\n"
	"\t\treturn null;\n"
	"\tif (name.length <= fit)\n"
	"\t\treturn name;\n"
	"\treturn name.slice(0, fit - 2) + '..';\n"
	"}\n";

const char tk_html_js_draw_begin[] =
	"\n"
	"function draw() {\n"
	"\tqueued = false;\n"
	"\tvar dpr = window.devicePixelRatio || 1;\n"
	"\tvar hh = head.offsetHeight;\n"
	"\tvar w = wrap.clientWidth, h = Math.min(graphH, Math.max(window.innerHeight - hh, 100));\n"
	"\tcanvas.style.top = hh + 'px';\n"
	"\tif (w !== cw || h !== ch || canvas.width !== Math.round(w * dpr)) {\n"
	"\t\tcw = w;\n"
	"\t\tch = h;\n"
	"\t\tcanvas.width = Math.round(w * dpr);\n"
	"\t\tcanvas.height = Math.round(h * dpr);\n"
	"\t\tcanvas.style.width = w + 'px';\n"
	"\t\tcanvas.style.height = h + 'px';\n"
	"\t}\n"
	"\tctx.setTransform(dpr, 0, 0, dpr, 0, 0);\n"
	"\tctx.clearRect(0, 0, cw, ch);\n"
	"\tctx.font = font + 'px Verdana, sans-serif';\n"
	"\tcharW = ctx.measureText('abcdefghijklmnopqrstuvwxyz').width / 26 || 7;\n"
	"\tctx.textBaseline = 'middle';\n"
	"\tvar top = scrollTop(), x0 = viewX0(), vw = viewW(), sc = scale();\n";

const char tk_html_js_draw_visible[] =
	"\tfor (var dep = 0; dep < nlev; dep++) {\n"
	"\t\tvar y = frameY(dep) - top;\n"
	"\t\tif (y + fh < 0 || y > ch)\n"
	"\t\t\tcontinue;\n"
	"\t\tfor (var j = firstAt(dep, lo + vw * 1e-12); j < lev[dep + 1]; j++) {\n"
	"\t\t\tvar s = start[j];\n"
	"\t\t\tif (s >= hi - vw * 1e-12)\n"
	"\t\t\t\tbreak;\n"
	"\t\t\tvar x = xpad + (s - x0) * sc, fw = width[j] * sc;\n"
	"\t\t\tif (fw < 0.5)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\tif (x < xpad) {\n"
	"\t\t\t\tfw -= xpad - x;\n"
	"\t\t\t\tx = xpad;\n"
	"\t\t\t}\n"
	"\t\t\tif (x + fw > cw - xpad)\n"
	"\t\t\t\tfw = cw - xpad - x;\n";

const char tk_html_js_draw_box[] =
	"\t\t\tctx.fillRect(x, y, fw > 1 ? fw - 0.5 : fw, fh - 1);\n"
	"\t\t\tif (decorate !== null)\n"
	"\t\t\t\tdecorate(j, x, y, fw);\n"
	"\t\t\tif (j === hover) {\n"
	"\t\t\t\tctx.strokeStyle = 'black';\n"
	"\t\t\t\tctx.lineWidth = 1;\n"
	"\t\t\t\tctx.strokeRect(x + 0.5, y + 0.5, Math.max(fw - 1.5, 0), fh - 2);\n"
	"\t\t\t}\n"
	"\t\t\tvar t = label(names[nm], fw);\n"
	"\t\t\tif (t !== null) {\n";

const char tk_html_js_draw_end[] =
	"\t\t\t\tctx.fillText(t, x + 3, y + fh / 2);\n"
	"\t\t\t}\n"
	"\t\t}\n"
	"\t}\n"
	"\tctx.globalAlpha = 1;\n"
	"}\n"
	"function redraw() {\n"
	"\tif (!queued) {\n"
	"\t\tqueued = true;\n"
	"\t\twindow.requestAnimationFrame(draw);\n"
	"\t}\n"
	"}\n";

const char tk_html_js_frame_at_end[] =
	"\tif (dep < 0 || dep >= nlev || px < xpad || px > cw - xpad)\n"
	"\t\treturn -1;\n"
	"\tvar x = viewX0() + (px - xpad) / scale();\n"
	"\tvar j = firstAt(dep, x);\n"
	"\tif (j < lev[dep + 1] && start[j] <= x && width[j] * scale() >= 0.5)\n"
	"\t\treturn j;\n"
	"\treturn -1;\n"
	"}\n"
	"\n";

const char tk_html_js_state_begin[] =
	"function getParams() {\n"
	"\tvar p = {}, a = window.location.search.substr(1).split('&');\n"
	"\tfor (var q = 0; q < a.length; q++) {\n"
	"\t\tvar k = a[q].indexOf('=');\n"
	"\t\tif (k <= 0)\n"
	"\t\t\tcontinue;\n"
	"\t\ttry {\n"
	"\t\t\tp[a[q].substr(0, k)] = decodeURIComponent(a[q].substr(k + 1));\n"
	"\t\t} catch (err) {}\n"
	"\t}\n"
	"\treturn p;\n"
	"}\n"
	"function saveState() {\n"
	"\tvar p = getParams(), q = [];\n";

const char tk_html_js_state_end[] =
	"\tif (searchBox.value)\n"
	"\t\tp.s = searchBox.value;\n"
	"\tfor (var k in p)\n"
	"\t\tq.push(encodeURIComponent(k) + '=' + encodeURIComponent(p[k]));\n"
	"\tvar url = window.location.pathname + (q.length ? '?' + q.join('&') : '') +\n"
	"\t\twindow.location.hash;\n"
	"\ttry {\n"
	"\t\thistory.replaceState(null, '', url);\n"
	"\t} catch (err) {}\n"
	"}\n";

const char tk_html_js_apply_search[] =
	"function applySearch(term) {\n"
	"\tsearchBox.classList.remove('bad');\n"
	"\tif (!term) {\n"
	"\t\tre = null;\n"
	"\t\tmatchedName = null;\n"
	"\t\tmatchedEl.textContent = '';\n"
	"\t\tmatchedEl.hidden = true;\n"
	"\t\treturn;\n"
	"\t}\n"
	"\ttry {\n"
	"\t\tre = new RegExp(term, icBox.checked ? 'i' : '');\n"
	"\t} catch (e) {\n"
	"\t\tre = null;\n"
	"\t\tmatchedName = null;\n"
	"\t\tsearchBox.classList.add('bad');\n"
	"\t\tmatchedEl.textContent = 'Invalid search: ' + term;\n"
	"\t\tmatchedEl.hidden = false;\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tmatchedName = new Uint8Array(names.length);\n"
	"\tfor (var q = 0; q < names.length; q++)\n"
	"\t\tmatchedName[q] = re.test(names[q]) ? 1 : 0;\n"
	"\tupdateMatched();\n"
	"}\n";

const char tk_html_js_matched_begin[] =
	"function updateMatched() {\n"
	"\tvar x0 = start[zoom], x1 = x0 + width[zoom], eps = (x1 - x0) * 1e-9;\n"
	"\tvar sum = 0, hits = [], dep, j, end = -Infinity;\n"
	"\tif (!re)\n"
	"\t\treturn;\n"
	"\tfor (dep = depthOf[zoom]; dep < nlev; dep++)\n"
	"\t\tfor (j = firstAt(dep, x0 + eps); j < lev[dep + 1] && start[j] < x1 - eps; j++)\n";

const char tk_html_js_matched_end[] =
	"\t\t\t\thits.push(j);\n"
	"\thits.sort(function (a, b) {\n"
	"\t\treturn start[a] - start[b] || width[b] - width[a];\n"
	"\t});\n"
	"\tfor (j = 0; j < hits.length; j++) {\n"
	"\t\tif (start[hits[j]] < end - eps)\n"
	"\t\t\tcontinue;\n"
	"\t\tsum += width[hits[j]];\n"
	"\t\tend = start[hits[j]] + width[hits[j]];\n"
	"\t}\n"
	"\tmatchedEl.textContent = 'Matched: ' +\n"
	"\t\t(width[zoom] > 0 ? 100 * sum / width[zoom] : 0).toFixed(1) + '%';\n"
	"\tmatchedEl.hidden = false;\n"
	"}\n";

const char tk_html_js_set_zoom_end[] =
	"\tunzoomBtn.disabled = zoom === 0;\n"
	"\tunzoomBtn.classList.toggle('hide', zoom === 0);\n"
	"\tif (matchedName)\n"
	"\t\tupdateMatched();\n"
	"}\n";

const char tk_html_js_canvas_events[] =
	"\n"
	"canvas.addEventListener('mousemove', function (e) {\n"
	"\tvar j = frameAt(e.offsetX, e.offsetY);\n"
	"\tcanvas.style.cursor = j >= 0 ? 'pointer' : 'default';\n"
	"\tif (j !== hover) {\n"
	"\t\thover = j;\n"
	"\t\tshowDetails(j);\n"
	"\t\tredraw();\n"
	"\t}\n"
	"});\n"
	"canvas.addEventListener('mouseleave', function () {\n"
	"\thover = -1;\n"
	"\tshowDetails(-1);\n"
	"\tredraw();\n"
	"});\n"
	"canvas.addEventListener('click', function (e) {\n"
	"\tvar j = frameAt(e.offsetX, e.offsetY);\n"
	"\tif (j < 0)\n"
	"\t\treturn;\n"
	"\tsetZoom(j);\n"
	"\tsaveState();\n"
	"\tredraw();\n"
	"});\n";

const char tk_html_js_search_events[] =
	"icBox.addEventListener('change', function () {\n"
	"\tapplySearch(searchBox.value);\n"
	"\tredraw();\n"
	"});\n"
	"searchBox.addEventListener('input', function () {\n"
	"\tapplySearch(searchBox.value);\n"
	"\tsaveState();\n"
	"\tredraw();\n"
	"});\n"
	"window.addEventListener('keydown', function (e) {\n"
	"\tif ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) {\n"
	"\t\te.preventDefault();\n"
	"\t\tsearchBox.focus();\n"
	"\t\tsearchBox.select();\n"
	"\t} else if (e.key === 'Escape' && document.activeElement === searchBox) {\n"
	"\t\tsearchBox.value = '';\n"
	"\t\tapplySearch('');\n"
	"\t\tsaveState();\n"
	"\t\tredraw();\n"
	"\t}\n"
	"});\n"
	"window.addEventListener('resize', redraw);\n"
	"window.addEventListener('scroll', redraw, { passive: true });\n"
	"\n"
	"wrap.style.height = graphH + 'px';\n";

const char tk_html_js_find_begin[] =
	"\tfind: function (name) {\n"
	"\t\tvar sc = scale(), x0 = viewX0(), top = scrollTop();\n"
	"\t\tfor (var j = 0; j < n; j++) {\n"
	"\t\t\tif (names[nidx[j]] !== name)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\tvar x = xpad + (start[j] - x0) * sc, fw = width[j] * sc;\n"
	"\t\t\tvar l = Math.max(x, xpad), r = Math.min(x + fw, cw - xpad);\n";
