/*
 * The history plot as a self-contained HTML page (core/pages/plothtml.h):
 * the charts as inline SVG (core/pages/chartsvg.c paints them), the runs
 * as JSON, and a script for tooltips, series toggles and zooming the
 * time axis.
 *
 * When plot_script changes, PLOT_SCRIPT_SHA256 must become the base64
 * SHA-256 of its text: tests/t2203-history-plot-browser.sh checks it and
 * prints the right value.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/pages/chart.h"
#include "core/pages/chartsvg.h"
#include "core/pages/histplot.h"
#include "core/pages/plothtml.h"
#include "core/draw/htmlout.h"
#include "core/draw/svgout.h"
#include "core/base/banned.h"

#define PLOT_SCRIPT_SHA256 "uP6EJSUDm/kjVBrdB3Jjp4Y73wSg1YSFb1jfLD3lOLg="

static const char plot_style[] =
	"<style>\n"
	"body { margin: 0; font: 13px Verdana, 'DejaVu Sans', sans-serif; background: #f6f7f9; }\n"
	"#head { padding: 8px 14px; background: #fff; border-bottom: 1px solid #ddd; }\n"
	"#head h1 { font-size: 17px; margin: 2px 0; overflow-wrap: anywhere; }\n"
	"#subtitle { margin: 2px 0; color: #555; overflow-wrap: anywhere; }\n"
	".bar { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin-top: 6px; }\n"
	".bar label { cursor: pointer; user-select: none; }\n"
	"#hint { color: #777; }\n"
	"main { padding: 10px; overflow-x: auto; }\n"
	"#plot { background: #fff; box-shadow: 0 1px 3px #0002; cursor: crosshair; }\n"
	"#tip { position: absolute; background: #fff; border: 1px solid #888; border-radius: 4px;"
	" padding: 6px 8px; box-shadow: 0 2px 6px #0003; max-width: 420px; overflow-wrap: anywhere;"
	" font-size: 12px; line-height: 1.45; z-index: 5; }\n"
	"#tip b { font-size: 13px; }\n"
	"#tip .st { color: #c00; font-weight: bold; }\n"
	"#sel { fill: #1f77b4; fill-opacity: 0.12; stroke: #1f77b4; }\n"
	"</style>\n";

static const char plot_script[] =
	"(function () {\n"
	"'use strict';\n"
	"var D = JSON.parse(document.getElementById('tk-data').textContent);\n"
	"var $ = function (id) { return document.getElementById(id); };\n"
	"var svg = $('plot'), tip = $('tip'), unzoomBtn = $('unzoom');\n"
	"var NS = 'http://www.w3.org/2000/svg';\n"
	"var CLS = ['base', 'other', 'current'];\n"
	"var MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];\n"
	"var hidden = {}, zoom = null, pinned = false, drag = null, sel = null;\n"
	"var charts = D.charts;\n"
	"charts.forEach(function (c, i) {\n"
	"  c.g = $('chart' + i);\n"
	"  c.zg = c.g.querySelector('.zoom');\n"
	"  c.xt = c.g.querySelector('.xt');\n"
	"  c.xt0 = c.xt.cloneNode(true);\n"
	"});\n"
	"function pad2(n) { return (n < 10 ? '0' : '') + n; }\n"
	"function fmtVal(m, v) {\n"
	"  if (v === null || v === undefined) return '-';\n"
	"  if (D.units[m] === 's') {\n"
	"    if (v * 1000 < 999.5) return (v * 1000).toFixed(0) + ' ms';\n"
	"    if (Math.round(v * 100) / 100 < 60) return v.toFixed(2) + ' s';\n"
	"    var t = Math.round(v);\n"
	"    if (t < 3600) return Math.floor(t / 60) + 'm ' + pad2(t % 60) + 's';\n"
	"    return Math.floor(t / 3600) + 'h ' + pad2(Math.floor(t / 60) % 60) + 'm';\n"
	"  }\n"
	"  if (D.units[m] === 'n') {\n"
	"    if (v < 1e6) return Math.round(v).toString().replace(/\\B(?=(\\d{3})+(?!\\d))/g, ',');\n"
	"    var k = ['', ' k', ' M', ' G', ' T'], j = 0;\n"
	"    while (v >= 1000 && j < 4) { v /= 1000; j++; }\n"
	"    return v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) + k[j];\n"
	"  }\n"
	"  var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], i = 0;\n"
	"  while (v >= 1024 && i < 5) { v /= 1024; i++; }\n"
	"  if (!i) return v + ' B';\n"
	"  return v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) + ' ' + u[i];\n"
	"}\n"
	"function dlabel(t, how) {\n"
	"  var d = new Date(t * 1000), s = MON[d.getUTCMonth()];\n"
	"  if (how === 4) return pad2(d.getUTCHours()) + ':' + pad2(d.getUTCMinutes()) + ':' +\n"
	"    pad2(d.getUTCSeconds());\n"
	"  if (how === 3) return String(d.getUTCFullYear());\n"
	"  if (how === 2) return s + ' ' + d.getUTCFullYear();\n"
	"  s += ' ' + d.getUTCDate();\n"
	"  if (how === 1) s += ' ' + pad2(d.getUTCHours()) + ':' + pad2(d.getUTCMinutes());\n"
	"  return s;\n"
	"}\n"
	"function dateTicks(lo, hi, max) {\n"
	"  var fixed = [1, 2, 5, 10, 15, 30, 60, 300, 900, 1800, 3600, 10800, 21600, 43200, 86400,\n"
	"    172800, 604800, 1209600];\n"
	"  var out = [], i, v;\n"
	"  for (i = 0; i < fixed.length; i++) {\n"
	"    var st = fixed[i], off = st >= 604800 ? 345600 : 0;\n"
	"    if ((hi - lo) / st + 1 > max) continue;\n"
	"    for (v = Math.ceil((lo - off) / st) * st + off; v <= hi && out.length < max; v += st)\n"
	"      out.push([v, dlabel(v, st < 60 ? 4 : st < 86400 ? 1 : 0)]);\n"
	"    return out;\n"
	"  }\n"
	"  var ms = [1, 2, 3, 6, 12, 24, 60, 120];\n"
	"  for (i = 0; i < ms.length; i++) {\n"
	"    var k = ms[i];\n"
	"    if ((hi - lo) / (k * 30.44 * 86400) + 1 > max) continue;\n"
	"    var d = new Date(lo * 1000), m = (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();\n"
	"    for (m = Math.ceil(m / k) * k; out.length < max; m += k) {\n"
	"      v = Date.UTC(1970 + Math.floor(m / 12), m % 12, 1) / 1000;\n"
	"      if (v < lo) continue;\n"
	"      if (v > hi) break;\n"
	"      out.push([v, dlabel(v, k < 12 ? 2 : 3)]);\n"
	"    }\n"
	"    return out;\n"
	"  }\n"
	"  return out;\n"
	"}\n"
	"function buildTicks(lo, hi, max) {\n"
	"  var raw = (hi - lo) / Math.max(max - 1, 1), p = Math.pow(10, Math.floor(Math.log10(raw)));\n"
	"  var st = [1, 2, 5, 10].map(function (f) { return f * p; }).filter(function (s) {\n"
	"    return s >= raw; })[0];\n"
	"  if (st < 1) st = 1;\n"
	"  var out = [];\n"
	"  for (var v = Math.ceil(lo / st) * st; v <= hi && out.length < max; v += st)\n"
	"    out.push([v, '#' + v.toFixed(0)]);\n"
	"  return out;\n"
	"}\n"
	"function view(c) {\n"
	"  if (!zoom) return { pa: c.x0, k: 1 };\n"
	"  var f = (c.x1 - c.x0) / (c.xhi - c.xlo);\n"
	"  var pa = c.x0 + (zoom[0] - c.xlo) * f, pb = c.x0 + (zoom[1] - c.xlo) * f;\n"
	"  return { pa: pa, k: (c.x1 - c.x0) / (pb - pa) };\n"
	"}\n"
	"function toSvg(ev) {\n"
	"  var p = svg.createSVGPoint();\n"
	"  p.x = ev.clientX; p.y = ev.clientY;\n"
	"  return p.matrixTransform(svg.getScreenCTM().inverse());\n"
	"}\n"
	"function chartAt(p) {\n"
	"  for (var i = 0; i < charts.length; i++) {\n"
	"    var c = charts[i];\n"
	"    if (p.x >= c.x0 && p.x <= c.x1 && p.y >= c.y0 - 8 && p.y <= c.y1) return c;\n"
	"  }\n"
	"  return null;\n"
	"}\n"
	"function setTicks(c) {\n"
	"  var g = c.xt;\n"
	"  while (g.firstChild) g.removeChild(g.firstChild);\n"
	"  if (!zoom) { g.parentNode.replaceChild(c.xt0.cloneNode(true), g);\n"
	"    c.xt = c.g.querySelector('.xt'); return; }\n"
	"  var max = Math.floor((c.x1 - c.x0) / 100), v = view(c);\n"
	"  var t = D.x === 'build' ? buildTicks(zoom[0], zoom[1], max) : dateTicks(zoom[0], zoom[1], max);\n"
	"  t.forEach(function (tk) {\n"
	"    var px = c.x0 + (c.x0 + (tk[0] - c.xlo) * (c.x1 - c.x0) / (c.xhi - c.xlo) - v.pa) * v.k;\n"
	"    var x = Math.floor(px) + 0.5;\n"
	"    var l = document.createElementNS(NS, 'path');\n"
	"    l.setAttribute('d', 'M' + x + ' ' + c.y1 + 'v5');\n"
	"    l.setAttribute('stroke', '#000000');\n"
	"    var s = document.createElementNS(NS, 'text');\n"
	"    s.setAttribute('x', x); s.setAttribute('y', c.y1 + 19);\n"
	"    s.setAttribute('text-anchor', 'middle');\n"
	"    s.textContent = tk[1];\n"
	"    g.appendChild(l); g.appendChild(s);\n"
	"  });\n"
	"}\n"
	"function setZoom(z) {\n"
	"  zoom = z;\n"
	"  charts.forEach(function (c) {\n"
	"    var v = view(c);\n"
	"    if (z) c.zg.setAttribute('transform', 'translate(' + (c.x0 - v.pa * v.k) + ',0) scale(' + v.k + ',1)');\n"
	"    else c.zg.removeAttribute('transform');\n"
	"    c.g.querySelectorAll('.zx').forEach(function (e) {\n"
	"      var px = c.x0 + (parseFloat(e.getAttribute('data-x')) - v.pa) * v.k;\n"
	"      var right = e.getAttribute('text-anchor') === 'end';\n"
	"      e.setAttribute('x', px + (right ? -4 : 4));\n"
	"      e.setAttribute('visibility', px < c.x0 || px > c.x1 ? 'hidden' : 'visible');\n"
	"    });\n"
	"    setTicks(c);\n"
	"  });\n"
	"  unzoomBtn.disabled = !z;\n"
	"}\n"
	"function nearest(c, p) {\n"
	"  var v = view(c), a = c.p, n = a.length / 3, best = -1, bd = 144;\n"
	"  var pu = v.pa + (p.x - c.x0) / v.k, r = 12 / v.k, lo = 0, hi = n, runs = D.keys[c.k].runs;\n"
	"  while (lo < hi) { var mid = (lo + hi) >> 1; if (a[mid * 3] < pu - r) lo = mid + 1; else hi = mid; }\n"
	"  for (var i = lo; i < n && a[i * 3] <= pu + r; i++) {\n"
	"    var run = runs[a[i * 3 + 2]];\n"
	"    if (hidden[CLS[run[6]]]) continue;\n"
	"    if (c.ms && run[6] === 0 && hidden['mc' + mclass(run)]) continue;\n"
	"    var dx = (a[i * 3] - pu) * v.k, dy = a[i * 3 + 1] - p.y, d = dx * dx + dy * dy;\n"
	"    if (d < bd || (d === bd && run[6] === 2)) { bd = d; best = i; }\n"
	"  }\n"
	"  return best;\n"
	"}\n"
	"function mclass(run) {\n"
	"  return run.length > 8 + D.metrics.length ? run[8 + D.metrics.length] : D.classes.indexOf(null);\n"
	"}\n"
	"function line(parent, label, text, cls) {\n"
	"  var div = document.createElement('div');\n"
	"  if (label) { var l = document.createElement('span'); l.textContent = label + ': ';\n"
	"    div.appendChild(l); }\n"
	"  var s = document.createElement(cls === 'b' ? 'b' : 'span');\n"
	"  if (cls && cls !== 'b') s.className = cls;\n"
	"  s.textContent = text;\n"
	"  div.appendChild(s);\n"
	"  parent.appendChild(div);\n"
	"}\n"
	"function showTip(c, i, ev) {\n"
	"  var key = D.keys[c.k], run = key.runs[c.p[i * 3 + 2]];\n"
	"  while (tip.firstChild) tip.removeChild(tip.firstChild);\n"
	"  line(tip, '', run[1] !== null ? 'build #' + run[1] : 'run ' + run[7], 'b');\n"
	"  line(tip, 'key', key.name);\n"
	"  line(tip, 'branch', run[2] !== null ? D.branches[run[2]] : '-');\n"
	"  line(tip, 'commit', run[3] !== null ? run[3] : '-');\n"
	"  line(tip, 'started', new Date(run[0] * 1000).toISOString().replace('.000Z', 'Z'));\n"
	"  line(tip, D.titles[c.m], fmtVal(c.m, run[8 + c.m]), 'b');\n"
	"  for (var m = 0; m < D.metrics.length; m++)\n"
	"    if (m !== c.m && run[8 + m] !== null) line(tip, D.titles[m], fmtVal(m, run[8 + m]));\n"
	"  if (run[5] & 1) line(tip, 'status', 'failed', 'st');\n"
	"  if (run[5] & 2) line(tip, 'status', 'partial (stopped while recording)', 'st');\n"
	"  var mc = mclass(run);\n"
	"  if (mc >= 0 && D.classes[mc] !== null) line(tip, 'machine class', D.classes[mc]);\n"
	"  line(tip, '', ['baseline', 'other branch', 'current'][run[6]]);\n"
	"  if (run[4] !== null && /^https?:\\/\\//i.test(run[4])) {\n"
	"    var div = document.createElement('div'), a = document.createElement('a');\n"
	"    a.href = run[4]; a.textContent = 'open the build'; a.target = '_blank';\n"
	"    a.rel = 'noopener noreferrer'; a.className = 'buildlink';\n"
	"    div.appendChild(a); tip.appendChild(div);\n"
	"  }\n"
	"  tip.hidden = false;\n"
	"  var x = ev.pageX + 14, y = ev.pageY + 14;\n"
	"  if (x + tip.offsetWidth > window.scrollX + document.documentElement.clientWidth)\n"
	"    x = Math.max(0, ev.pageX - 14 - tip.offsetWidth);\n"
	"  tip.style.left = x + 'px'; tip.style.top = y + 'px';\n"
	"}\n"
	"svg.addEventListener('mousemove', function (ev) {\n"
	"  var p = toSvg(ev);\n"
	"  if (drag) {\n"
	"    var c0 = drag.c, x = Math.max(c0.x0, Math.min(c0.x1, p.x));\n"
	"    sel.setAttribute('x', Math.min(x, drag.x)); sel.setAttribute('width', Math.abs(x - drag.x));\n"
	"    return;\n"
	"  }\n"
	"  if (pinned) return;\n"
	"  var c = chartAt(p), i = c ? nearest(c, p) : -1;\n"
	"  if (i < 0) { tip.hidden = true; return; }\n"
	"  showTip(c, i, ev);\n"
	"});\n"
	"svg.addEventListener('mouseleave', function () { if (!pinned && !drag) tip.hidden = true; });\n"
	"svg.addEventListener('mousedown', function (ev) {\n"
	"  var p = toSvg(ev), c = chartAt(p);\n"
	"  if (!c || ev.button !== 0) return;\n"
	"  ev.preventDefault();\n"
	"  drag = { c: c, x: p.x, cx: ev.clientX };\n"
	"  sel = document.createElementNS(NS, 'rect');\n"
	"  sel.id = 'sel';\n"
	"  sel.setAttribute('x', p.x); sel.setAttribute('y', c.y0);\n"
	"  sel.setAttribute('width', 0); sel.setAttribute('height', c.y1 - c.y0);\n"
	"  svg.appendChild(sel);\n"
	"});\n"
	"window.addEventListener('mouseup', function (ev) {\n"
	"  if (!drag) return;\n"
	"  var c = drag.c, p = toSvg(ev), moved = Math.abs(ev.clientX - drag.cx) > 5;\n"
	"  var a = drag.x, b = Math.max(c.x0, Math.min(c.x1, p.x));\n"
	"  drag = null; svg.removeChild(sel); sel = null;\n"
	"  if (moved) {\n"
	"    var v = view(c), f = (c.xhi - c.xlo) / (c.x1 - c.x0);\n"
	"    var ua = v.pa + (Math.min(a, b) - c.x0) / v.k, ub = v.pa + (Math.max(a, b) - c.x0) / v.k;\n"
	"    setZoom([c.xlo + (ua - c.x0) * f, c.xlo + (ub - c.x0) * f]);\n"
	"    pinned = false; tip.hidden = true;\n"
	"    return;\n"
	"  }\n"
	"  var i = nearest(c, p);\n"
	"  if (i >= 0) { showTip(c, i, ev); pinned = true; } else { pinned = false; tip.hidden = true; }\n"
	"});\n"
	"svg.addEventListener('dblclick', function () { setZoom(null); });\n"
	"unzoomBtn.addEventListener('click', function () { setZoom(null); });\n"
	"document.addEventListener('keydown', function (ev) {\n"
	"  if (ev.key === 'Escape') { pinned = false; tip.hidden = true; }\n"
	"});\n"
	"document.querySelectorAll('input[data-s]').forEach(function (box) {\n"
	"  box.addEventListener('change', function () {\n"
	"    var s = box.getAttribute('data-s');\n"
	"    hidden[s] = !box.checked;\n"
	"    document.querySelectorAll('.s-' + s).forEach(function (e) {\n"
	"      var off = false;\n"
	"      if (e.classList.contains('li')) return;\n"
	"      e.classList.forEach(function (k) { if (k.slice(0, 2) === 's-' && hidden[k.slice(2)]) off = true; });\n"
	"      e.style.display = off ? 'none' : '';\n"
	"    });\n"
	"    if (!pinned) tip.hidden = true;\n"
	"  });\n"
	"});\n"
	"window.tkPlot = {\n"
	"  charts: charts.length,\n"
	"  find: function (ci, build, cls) {\n"
	"    var c = charts[ci], runs = D.keys[c.k].runs;\n"
	"    for (var i = 0; i < c.p.length / 3; i++) {\n"
	"      var r = runs[c.p[i * 3 + 2]];\n"
	"      if (r[1] === String(build) && (cls === undefined || r[6] === cls)) return i;\n"
	"    }\n"
	"    return -1;\n"
	"  },\n"
	"  point: function (ci, i) {\n"
	"    var c = charts[ci], v = view(c), p = svg.createSVGPoint();\n"
	"    p.x = c.x0 + (c.p[i * 3] - v.pa) * v.k; p.y = c.p[i * 3 + 1];\n"
	"    p = p.matrixTransform(svg.getScreenCTM());\n"
	"    return { x: p.x, y: p.y };\n"
	"  },\n"
	"  area: function (ci) {\n"
	"    var c = charts[ci], m = svg.getScreenCTM();\n"
	"    return { x0: c.x0 * m.a + m.e, x1: c.x1 * m.a + m.e, y0: c.y0 * m.d + m.f, y1: c.y1 * m.d + m.f };\n"
	"  },\n"
	"  zoom: function () { return zoom; },\n"
	"  classes: function () { return D.classes; },\n"
	"  ticks: function (ci) {\n"
	"    return Array.prototype.map.call(charts[ci].g.querySelectorAll('.xt text'),\n"
	"      function (e) { return e.textContent; });\n"
	"  }\n"
	"};\n"
	"})();\n";

static void toggle(struct tk_buf *b, const char *s, const char *text)
{
	tk_buf_addf(b, "<label><input type=\"checkbox\" data-s=\"%s\" id=\"t-%s\" checked> %s</label>",
		    s, s, text);
}

/* A toggle per machine class that is a baseline series of a chart with
 * several: it hides that series (dots, line, band, median, changes). */
static void class_toggles(struct tk_buf *b, const struct tk_plot_layout *l)
{
	const char **names;
	size_t n = tk_chart_classes(l, &names), j, i, s;

	for (j = 0; j < n; j++) {
		int used = 0;

		for (i = 0; i < l->nr && !used; i++)
			for (s = 0; l->charts[i].nseries > 1 && s < l->charts[i].nseries; s++)
				if (l->charts[i].series[s].machine_class == names[j] ||
				    (names[j] && l->charts[i].series[s].machine_class &&
				     !strcmp(names[j], l->charts[i].series[s].machine_class)))
					used = 1;
		if (!used)
			continue;
		tk_buf_addf(b, "<label><input type=\"checkbox\" data-s=\"mc%zu\" id=\"t-mc%zu\" "
			    "checked> ", j, j);
		tk_xml_text(b, names[j] ? names[j] : "no class", TK_XML_QUOTES, 60);
		tk_buf_adds(b, "</label>");
	}
	free(names);
}

/* A value as the tooltip needs it: seconds to the microsecond, bytes
 * whole; without printf (a page holds a value per run and metric). */
static void json_value(struct tk_buf *b, enum tk_metric m, double v)
{
	char tmp[TK_SVG_NUM_MAX];

	if (!isfinite(v) || v < 0 || v >= 1e15)
		tk_buf_adds(b, "null");
	else if (tk_metric_unit(m) == TK_METRIC_SECONDS)
		tk_buf_add(b, tmp, tk_svg_fmt_fixed(tmp, v, 4, 1, 0));
	else
		tk_html_json_int(b, (int64_t)(v + 0.5));
}

/*
 * How many runs some chart of l shows as a point; with shown non-NULL,
 * *shown[k] marks key k's runs so (the caller frees each and the array).
 */
static size_t shown_runs(const struct tk_plot_layout *l, unsigned char ***shown)
{
	const struct tk_plot_data *d = l->data;
	unsigned char **mark = tk_xcalloc(d->nr ? d->nr : 1, sizeof(*mark));
	size_t i, j, n = 0;

	for (i = 0; i < d->nr; i++)
		mark[i] = tk_xcalloc(d->keys[i].nr ? d->keys[i].nr : 1, 1);
	for (i = 0; i < l->nr; i++) {
		const struct tk_plot_chart *c = &l->charts[i];
		unsigned char *m = mark[c->key - d->keys];

		for (j = 0; j < c->npts; j++) {
			n += !m[c->pts[j].run];
			m[c->pts[j].run] = 1;
		}
	}
	if (shown) {
		*shown = mark;
	} else {
		for (i = 0; i < d->nr; i++)
			free(mark[i]);
		free(mark);
	}
	return n;
}

/* The page's data: keys with their runs, the charts with their points;
 * in a thinned layout, a run no chart shows is 0, to keep the page small. */
static void write_data(struct tk_htmlout *w, const struct tk_plot_layout *l)
{
	const struct tk_plot_data *d = l->data;
	struct tk_buf *b = &w->b;
	const char **branches = NULL, **classes = NULL, *last_class = NULL;
	unsigned char **shown = NULL;
	size_t nbr = 0, alloc = 0, i, j, m, nclasses, ci = 0;

	if (l->thinned)
		shown_runs(l, &shown);
	nclasses = tk_chart_classes(l, &classes);

	tk_buf_adds(b, "{\"x\":");
	tk_buf_adds(b, l->x == TK_PLOT_X_BUILD ? "\"build\"" : "\"time\"");
	tk_buf_adds(b, ",\"metrics\":[");
	for (m = 0; m < TK_METRIC_COUNT; m++) {
		if (m)
			tk_buf_addch(b, ',');
		tk_html_json_cstr(b, tk_metric_name((enum tk_metric)m));
	}
	tk_buf_adds(b, "],\"titles\":[");
	for (m = 0; m < TK_METRIC_COUNT; m++) {
		if (m)
			tk_buf_addch(b, ',');
		tk_html_json_cstr(b, tk_plot_metric_title((enum tk_metric)m));
	}
	tk_buf_adds(b, "],\"units\":[");
	for (m = 0; m < TK_METRIC_COUNT; m++) {
		enum tk_metric_unit u = tk_metric_unit((enum tk_metric)m);

		if (m)
			tk_buf_addch(b, ',');
		tk_buf_adds(b, u == TK_METRIC_SECONDS ? "\"s\"" : u == TK_METRIC_BYTES ? "\"B\"" : "\"n\"");
	}
	tk_buf_adds(b, "],\"keys\":[");
	for (i = 0; i < d->nr; i++) {
		const struct tk_plot_key *k = &d->keys[i];

		tk_buf_adds(b, i ? ",{\"name\":" : "{\"name\":");
		tk_html_json_cstr(b, k->key);
		tk_buf_adds(b, ",\"runs\":[");
		for (j = 0; j < k->nr; j++) {
			const struct tk_plot_run *r = &k->runs[j];
			size_t bi;

			if (shown && !shown[i][j]) {
				tk_buf_adds(b, j ? ",0" : "0");
				continue;
			}
			/* [t, build, branch, commit, url, flags, class, run id, values...] */
			tk_buf_adds(b, j ? ",[" : "[");
			tk_html_json_int(b, r->started_at_us / 1000000);
			tk_buf_addch(b, ',');
			tk_html_json_cstr(b, r->build_number);
			tk_buf_addch(b, ',');
			if (r->branch) {
				for (bi = nbr; bi-- > 0;)
					if (branches[bi] == r->branch || !strcmp(branches[bi], r->branch))
						break;
				if (bi == (size_t)-1) {
					TK_ALLOC_GROW(branches, nbr + 1, alloc);
					branches[nbr] = r->branch;
					bi = nbr++;
				}
				tk_html_json_int(b, (int64_t)bi);
			} else {
				tk_buf_adds(b, "null");
			}
			tk_buf_addch(b, ',');
			tk_html_json_cstr(b, r->commit);
			tk_buf_addch(b, ',');
			tk_html_json_cstr(b, r->build_url);
			tk_buf_addch(b, ',');
			tk_html_json_int(b, r->flags);
			tk_buf_addch(b, ',');
			tk_html_json_int(b, r->cls);
			tk_buf_addch(b, ',');
			/* the run id names a run only when it has no build number */
			tk_html_json_cstr(b, r->build_number ? NULL : r->run_id);
			for (m = 0; m < TK_METRIC_COUNT; m++) {
				tk_buf_addch(b, ',');
				json_value(b, (enum tk_metric)m, r->v[m]);
			}
			/* then the run's machine class, when it has one: an index
			 * into the page's classes */
			if (r->machine_class) {
				if (r->machine_class != last_class)
					for (ci = 0; ci + 1 < nclasses && classes[ci] != r->machine_class &&
						     (!classes[ci] || strcmp(classes[ci], r->machine_class)); ci++)
						;
				last_class = r->machine_class;
				tk_buf_addch(b, ',');
				tk_html_json_int(b, (int64_t)ci);
			}
			tk_buf_addch(b, ']');
			tk_htmlout_flush(w);
		}
		tk_buf_adds(b, "]}");
		if (shown)
			free(shown[i]);
	}
	free(shown);
	tk_buf_adds(b, "],\"branches\":[");
	for (i = 0; i < nbr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_cstr(b, branches[i]);
	}
	free(branches);
	tk_buf_adds(b, "],\"classes\":[");
	for (i = 0; i < nclasses; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_cstr(b, classes[i]);
	}
	free(classes);
	tk_buf_adds(b, "],\"charts\":[");
	for (i = 0; i < l->nr; i++) {
		const struct tk_plot_chart *c = &l->charts[i];

		tk_buf_addf(b, "%s{\"k\":%zu,\"m\":%d,%s\"x0\":", i ? "," : "",
			    (size_t)(c->key - d->keys), (int)c->metric, c->nseries > 1 ? "\"ms\":1," : "");
		tk_chartsvg_num(b, c->x0);
		tk_buf_adds(b, ",\"x1\":");
		tk_chartsvg_num(b, c->x1);
		tk_buf_adds(b, ",\"y0\":");
		tk_chartsvg_num(b, c->y0);
		tk_buf_adds(b, ",\"y1\":");
		tk_chartsvg_num(b, c->y1);
		tk_buf_adds(b, ",\"xlo\":");
		tk_html_json_num(b, c->xlo);
		tk_buf_adds(b, ",\"xhi\":");
		tk_html_json_num(b, c->xhi);
		tk_buf_adds(b, ",\"p\":[");
		for (j = 0; j < c->npts; j++) {
			if (j)
				tk_buf_addch(b, ',');
			tk_chartsvg_num(b, c->pts[j].px);
			tk_buf_addch(b, ',');
			tk_chartsvg_num(b, c->pts[j].py);
			tk_buf_addch(b, ',');
			tk_html_json_int(b, c->pts[j].run);
			tk_htmlout_flush(w);
		}
		tk_buf_adds(b, "]}");
	}
	tk_buf_adds(b, "]}");
}

int tk_plot_html(const struct tk_plot_layout *l, const char *back, FILE *out, struct tk_err *err)
{
	static const char *const script[] = { plot_script, NULL };
	const struct tk_plot_data *d = l->data;
	struct tk_htmlout w;
	struct tk_buf title = TK_BUF_INIT, sub = TK_BUF_INIT;
	size_t i, runs = 0;

	tk_buf_adds(&title, "tracker history: ");
	for (i = 0; i < d->nr && i < 8; i++) {
		if (i)
			tk_buf_adds(&title, ", ");
		tk_buf_adds(&title, d->keys[i].key);
	}
	if (d->nr > 8)
		tk_buf_addf(&title, " and %zu more", d->nr - 8);
	for (i = 0; i < d->nr; i++)
		runs += d->keys[i].nr;
	if (l->thinned)
		tk_buf_addf(&sub, "%zu runs shown of %zu (of the baseline's successful runs, "
			    "each pixel column's lowest, median and highest)", shown_runs(l, NULL),
			    runs);
	else
		tk_buf_addf(&sub, "%zu runs", runs);
	if (l->nr && l->charts[0].baseline[0])
		tk_buf_addf(&sub, "; baseline branch %s", l->charts[0].baseline);
	tk_buf_addf(&sub, "; current: %s", l->current);
	if (l->skipped)
		tk_buf_addf(&sub, "; %zu runs without a build number left out", l->skipped);

	tk_htmlout_init(&w, out);
	tk_htmlout_begin(&w, PLOT_SCRIPT_SHA256, plot_style, title.buf, sub.buf);
	tk_buf_adds(&w.b, "<div class=\"bar\">");
	if (back) {
		tk_buf_adds(&w.b, "<a id=\"back\" href=\"");
		tk_xml_text(&w.b, back, TK_XML_QUOTES, 200);
		tk_buf_adds(&w.b, "\">&larr; all keys</a>");
	}
	toggle(&w.b, "base", "baseline");
	toggle(&w.b, "band", "median &plusmn; spread");
	class_toggles(&w.b, l);
	toggle(&w.b, "other", "other branches");
	toggle(&w.b, "current", "current");
	toggle(&w.b, "failed", "failed");
	toggle(&w.b, "partial", "partial");
	toggle(&w.b, "change", "change points");
	tk_buf_adds(&w.b, "<button id=\"unzoom\" type=\"button\" disabled>Reset zoom</button>"
		    "<span id=\"hint\">drag across a chart to zoom in time; "
		    "click a point to keep its details</span></div>\n</header>\n<main>\n");
	tk_chartsvg_write(&w, l, 0);
	if (l->appendix)
		tk_buf_adds(&w.b, l->appendix);
	tk_buf_adds(&w.b, "</main>\n<div id=\"tip\" hidden></div>\n"
		    "<script type=\"application/json\" id=\"tk-data\">");
	write_data(&w, l);
	tk_buf_release(&title);
	tk_buf_release(&sub);
	return tk_htmlout_end(&w, script, err);
}
