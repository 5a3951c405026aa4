/*
 * .html: one self-contained page (no network, no external assets) that
 * draws the flame graph on a <canvas>, with the interactive SVG's
 * interactions: click to zoom (ancestors kept), reset (#unzoom), regex
 * search (#search, "Matched: x%" in #matched), hover details (#details),
 * zoom and search kept in the URL. docs/flame-html.md is the user's view.
 *
 * Why a canvas: an SVG with a million <g> elements makes the browser
 * build and restyle a million DOM nodes; here the frames are a few
 * numeric arrays and every redraw paints only the frames wider than half
 * a pixel in the visible rows, so big profiles stay smooth.
 *
 * The data is one JSON object inside <script type="application/json">:
 * a names table, one colour per name (precomputed with tk_palette_color,
 * so a name gets the colour it gets in the SVG), the number of frames per
 * depth, and three parallel arrays over the frames sorted by (depth,
 * start): the gap from the end of the previous frame of the same depth,
 * the width, and the name index. Gaps are mostly 0 and widths are short
 * integers, so a frame costs about 10-15 bytes.
 *
 * Names are untrusted. In the JSON, '<', '>' and '&' are written as
 * \u003c, \u003e and \u0026 (so "</script>" and "<!--" are inert),
 * U+2028/U+2029 as \u escapes, and controls and bytes that are not valid
 * UTF-8 as the text "\xNN" (tk_html_json_str, core/draw/htmlout.h, which also
 * holds the page's frame and the script it shares with the diff page);
 * the page's script puts names in the document with textContent or on
 * the canvas only. The page also carries a Content-Security-Policy that
 * allows no network access and runs only the one script whose hash it
 * names, so even an escaping mistake could not run injected script.
 *
 * When page_script or the shared pieces in core/draw/htmlout.c change,
 * SCRIPT_SHA256 must become the base64 SHA-256 of the script's text, or
 * browsers will not run it: tests/t3002-flame-browser.sh checks it and
 * prints the right value when it is wrong (and the browser tests fail
 * meanwhile).
 */
#include "plugins/render/renderers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/draw/htmlout.h"
#include "core/draw/render.h"
#include "core/base/banned.h"

static const char page_style[] =
	"<style>\n"
	"body { margin: 0; font: 13px Verdana, sans-serif; background: #fff; color: #000; }\n"
	"header { position: sticky; top: 0; z-index: 1; padding: 6px 10px 2px; background: linear-gradient(#eeeeee, #eeeeb0); }\n"
	"h1 { font-size: 17px; font-weight: normal; text-align: center; margin: 2px 0; }\n"
	"#subtitle { text-align: center; color: #a0a0a0; margin: 0 0 2px; }\n"
	".bar { display: flex; gap: 10px; align-items: center; min-height: 26px; }\n"
	"#details { flex: 1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }\n"
	"#matched { white-space: nowrap; }\n"
	"#search { width: 16em; }\n"
	"#search.bad { outline: 2px solid #c00; }\n"
	".hide { visibility: hidden; }\n"
	"#wrap { position: relative; background: linear-gradient(#eeeeee, #eeeeb0); }\n"
	"#flame { position: sticky; top: 0; display: block; }\n"
	"#legend { text-align: center; margin: 0 0 2px; }\n"
	"#legend .swatch { display: inline-block; width: 11px; height: 11px; margin: 0 4px 0 14px; vertical-align: -1px; }\n"
	"#views { display: flex; flex-wrap: wrap; gap: 16px; padding: 10px; }\n"
	"#views .box { flex: 2 1 480px; min-width: 0; }\n"
	"#views #top { flex: 3 1 640px; }\n"
	"#views h2 { font-size: 15px; font-weight: normal; margin: 4px 0; }\n"
	"#views h3 { font-size: 13px; font-weight: normal; color: #606060; margin: 6px 0 2px; }\n"
	"#views .note { color: #606060; margin: 2px 0 6px; }\n"
	"#top table { border-collapse: collapse; width: 100%; table-layout: fixed; }\n"
	"#top th, #top td { padding: 1px 6px; border-bottom: 1px solid #e4e4e4; }\n"
	"#top th { cursor: pointer; text-align: right; background: #f4f4f4; user-select: none; white-space: nowrap; }\n"
	"#top th:first-child, #top td.fn { text-align: left; }\n"
	"#top th:first-child { width: auto; }\n"
	"#top th:not(:first-child) { width: 7.5em; }\n"
	"#top th.sorted { background: #e4e4f4; }\n"
	"#top td.fn { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }\n"
	"#top td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }\n"
	"#top tbody tr { cursor: pointer; }\n"
	"#top tbody tr:hover { background: #ffffe0; }\n"
	"#top tbody tr.sel { background: #f0d0f0; }\n"
	"#sandwich .tree { position: relative; }\n"
	"#sandwich .row { position: relative; height: 17px; }\n"
	"#sandwich .frame { position: absolute; top: 0; height: 16px; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; font-size: 12px; line-height: 16px; padding: 0 2px; box-sizing: border-box; border-right: 1px solid #fff; cursor: pointer; }\n"
	"</style>\n";

/*
 * The views below the graph: the top table (self and total per function,
 * from the whole profile: D.fself and D.ftotal per name, a recursive
 * function's total counted once; sortable by any column; a click on a
 * row highlights the function in the graph through the search and opens
 * its sandwich) and the sandwich (the function's callers and callees,
 * each merged by call path, as two small flame graphs around it: callers
 * above, the function's own row between, callees below). The sandwich is
 * made from the frames the graph draws (those wider than --minwidth).
 * Names go in with textContent and title only.
 */
static const char page_views[] =
	"/* The frame categories' legend, under the title (as the SVG's). */\n"
	"if (legendItems.length) {\n"
	"\tvar lg = document.createElement('p');\n"
	"\tlg.id = 'legend';\n"
	"\tlegendItems.forEach(function (it) {\n"
	"\t\tvar sw = document.createElement('span');\n"
	"\t\tsw.className = 'swatch';\n"
	"\t\tsw.style.background = '#' + (0x1000000 | it[1]).toString(16).slice(1);\n"
	"\t\tlg.appendChild(sw);\n"
	"\t\tlg.appendChild(document.createTextNode(it[0]));\n"
	"\t});\n"
	"\thead.insertBefore(lg, head.querySelector('.bar'));\n"
	"}\n"
	"var views = document.createElement('section');\n"
	"views.id = 'views';\n"
	"document.body.appendChild(views);\n"
	"function el(tag, cls, text) {\n"
	"\tvar e = document.createElement(tag);\n"
	"\tif (cls)\n"
	"\t\te.className = cls;\n"
	"\tif (text !== undefined)\n"
	"\t\te.textContent = text;\n"
	"\treturn e;\n"
	"}\n"
	"var TOP_ROWS = 200, sortKey = 'total', sortDown = true, shownRows = [], selected = 0;\n"
	"var topBox = el('div', 'box'), sandBox = el('div', 'box');\n"
	"topBox.id = 'top';\n"
	"sandBox.id = 'sandwich';\n"
	"views.appendChild(topBox);\n"
	"views.appendChild(sandBox);\n"
	"var cols = [['name', 'Function'], ['self', 'Self'], ['selfpct', 'Self %'],\n"
	"\t['total', 'Total'], ['totalpct', 'Total %']];\n"
	"function colValue(key, q) {\n"
	"\treturn key === 'self' || key === 'selfpct' ? fself[q] : ftotal[q];\n"
	"}\n"
	"function renderTable() {\n"
	"\tvar all = [], q;\n"
	"\tfor (q = 1; q < names.length; q++)\n"
	"\t\tall.push(q);\n"
	"\tall.sort(function (a, b) {\n"
	"\t\tvar r = sortKey === 'name' ? (names[a] < names[b] ? -1 : names[a] > names[b] ? 1 : 0) :\n"
	"\t\t\tcolValue(sortKey, a) - colValue(sortKey, b);\n"
	"\t\treturn (sortDown ? -r : r) || a - b;\n"
	"\t});\n"
	"\tshownRows = all.slice(0, TOP_ROWS);\n"
	"\ttopBox.textContent = '';\n"
	"\tvar h = el('h2', null, 'Top functions');\n"
	"\ttopBox.appendChild(h);\n"
	"\tvar table = el('table'), thead = el('thead'), tr = el('tr'), tbody = el('tbody');\n"
	"\tcols.forEach(function (c) {\n"
	"\t\tvar th = el('th', c[0] === sortKey ? 'sorted' : null,\n"
	"\t\t\tc[1] + (c[0] === sortKey ? (sortDown ? ' \\u25bc' : ' \\u25b2') : ''));\n"
	"\t\tth.dataset.key = c[0];\n"
	"\t\tth.title = 'Sort by ' + c[1];\n"
	"\t\ttr.appendChild(th);\n"
	"\t});\n"
	"\tthead.appendChild(tr);\n"
	"\ttable.appendChild(thead);\n"
	"\tshownRows.forEach(function (q) {\n"
	"\t\tvar row = el('tr', q === selected ? 'sel' : null);\n"
	"\t\trow.dataset.q = q;\n"
	"\t\trow.appendChild(el('td', 'fn', names[q]));\n"
	"\t\trow.appendChild(el('td', 'num', fmtWeight(fself[q])));\n"
	"\t\trow.appendChild(el('td', 'num', pct(fself[q], total) + '%'));\n"
	"\t\trow.appendChild(el('td', 'num', fmtWeight(ftotal[q])));\n"
	"\t\trow.appendChild(el('td', 'num', pct(ftotal[q], total) + '%'));\n"
	"\t\trow.title = names[q];\n"
	"\t\ttbody.appendChild(row);\n"
	"\t});\n"
	"\ttable.appendChild(tbody);\n"
	"\ttopBox.appendChild(table);\n"
	"\tif (all.length > shownRows.length)\n"
	"\t\ttopBox.appendChild(el('p', 'note', 'The first ' + shownRows.length + ' of ' +\n"
	"\t\t\tall.length + ' functions; sort by another column for others.'));\n"
	"\tthead.addEventListener('click', function (e) {\n"
	"\t\tvar key = e.target.dataset && e.target.dataset.key;\n"
	"\t\tif (!key)\n"
	"\t\t\treturn;\n"
	"\t\tsortDown = key === sortKey ? !sortDown : key !== 'name';\n"
	"\t\tsortKey = key;\n"
	"\t\trenderTable();\n"
	"\t});\n"
	"\ttbody.addEventListener('click', function (e) {\n"
	"\t\tvar row = e.target.closest('tr');\n"
	"\t\tif (row)\n"
	"\t\t\tselectFunction(+row.dataset.q);\n"
	"\t});\n"
	"}\n"
	"function reEscape(t) {\n"
	"\treturn t.replace(/[.*+?^${}()|[\\]\\\\\\/]/g, '\\\\$&');\n"
	"}\n"
	"function selectFunction(q) {\n"
	"\tselected = q;\n"
	"\tsearchBox.value = '^' + reEscape(names[q]) + '$';\n"
	"\ticBox.checked = false;\n"
	"\tapplySearch(searchBox.value);\n"
	"\tsaveState();\n"
	"\tredraw();\n"
	"\trenderTable();\n"
	"\trenderSandwich();\n"
	"}\n"
	"\n"
	"/* The graph's frames as a tree: each frame's parent is the frame of the\n"
	" * level below that contains its middle. */\n"
	"var parentOf = null, kidsOf = null;\n"
	"function frameTree() {\n"
	"\tif (parentOf)\n"
	"\t\treturn;\n"
	"\tparentOf = new Int32Array(n).fill(-1);\n"
	"\tkidsOf = [];\n"
	"\tfor (var j = 0; j < n; j++)\n"
	"\t\tkidsOf.push([]);\n"
	"\tfor (var dep = 1; dep < nlev; dep++)\n"
	"\t\tfor (j = lev[dep]; j < lev[dep + 1]; j++) {\n"
	"\t\t\tvar up = firstAt(dep - 1, start[j] + width[j] / 2);\n"
	"\t\t\tif (up < lev[dep]) {\n"
	"\t\t\t\tparentOf[j] = up;\n"
	"\t\t\t\tkidsOf[up].push(j);\n"
	"\t\t\t}\n"
	"\t\t}\n"
	"}\n"
	"function newNode(q) {\n"
	"\treturn { q: q, w: 0, kids: new Map() };\n"
	"}\n"
	"function kid(t, q) {\n"
	"\tvar c = t.kids.get(q);\n"
	"\tif (!c) {\n"
	"\t\tc = newNode(q);\n"
	"\t\tt.kids.set(q, c);\n"
	"\t}\n"
	"\treturn c;\n"
	"}\n"
	"/* Callers and callees of name q, each frame of q counted once: the\n"
	" * outermost (a recursion's inner frames are inside its outer ones). */\n"
	"function sandwichTrees(q) {\n"
	"\tframeTree();\n"
	"\tvar callers = newNode(q), callees = newNode(q);\n"
	"\tfunction addBelow(t, j) {\n"
	"\t\tkidsOf[j].forEach(function (c) {\n"
	"\t\t\tvar k = kid(t, nidx[c]);\n"
	"\t\t\tk.w += width[c];\n"
	"\t\t\taddBelow(k, c);\n"
	"\t\t});\n"
	"\t}\n"
	"\tfor (var j = 1; j < n; j++) {\n"
	"\t\tif (nidx[j] !== q)\n"
	"\t\t\tcontinue;\n"
	"\t\tvar up = parentOf[j], inner = false;\n"
	"\t\tfor (; up > 0; up = parentOf[up])\n"
	"\t\t\tif (nidx[up] === q)\n"
	"\t\t\t\tinner = true;\n"
	"\t\tif (inner)\n"
	"\t\t\tcontinue;\n"
	"\t\tcallers.w += width[j];\n"
	"\t\tcallees.w += width[j];\n"
	"\t\tvar t = callers;\n"
	"\t\tfor (up = parentOf[j]; up > 0; up = parentOf[up]) {\n"
	"\t\t\tt = kid(t, nidx[up]);\n"
	"\t\t\tt.w += width[j];\n"
	"\t\t}\n"
	"\t\taddBelow(callees, j);\n"
	"\t}\n"
	"\treturn { callers: callers, callees: callees };\n"
	"}\n"
	"function foldedOf(t) {\n"
	"\tvar out = [];\n"
	"\tfunction walk(t, path) {\n"
	"\t\tvar p = path.concat([names[t.q]]), below = 0;\n"
	"\t\tt.kids.forEach(function (c) { below += c.w; });\n"
	"\t\tif (t.w - below > 1e-9 * t.w)\n"
	"\t\t\tout.push(p.join(';') + ' ' + +(t.w - below).toPrecision(12));\n"
	"\t\tt.kids.forEach(function (c) { walk(c, p); });\n"
	"\t}\n"
	"\twalk(t, []);\n"
	"\treturn out.sort();\n"
	"}\n"
	"/* A merged tree as rows of boxes: the root row first (down) or last\n"
	" * (up, for callers), children left to right by weight. */\n"
	"var MAX_BOXES = 3000;\n"
	"function drawTree(box, t, up) {\n"
	"\tvar rows = [], boxes = 0;\n"
	"\tfunction place(t, left, dep) {\n"
	"\t\tif (boxes >= MAX_BOXES || t.w / rootW < 0.002)\n"
	"\t\t\treturn;\n"
	"\t\tboxes++;\n"
	"\t\t(rows[dep] = rows[dep] || []).push([t, left]);\n"
	"\t\tvar kids = Array.from(t.kids.values()).sort(function (a, b) { return b.w - a.w; });\n"
	"\t\tkids.forEach(function (c) {\n"
	"\t\t\tplace(c, left, dep + 1);\n"
	"\t\t\tleft += c.w;\n"
	"\t\t});\n"
	"\t}\n"
	"\tvar rootW = t.w > 0 ? t.w : 1;\n"
	"\tplace(t, 0, 0);\n"
	"\tif (up)\n"
	"\t\trows.reverse();\n"
	"\trows.forEach(function (r) {\n"
	"\t\tvar row = el('div', 'row');\n"
	"\t\tr.forEach(function (b) {\n"
	"\t\t\tvar f = el('div', 'frame', names[b[0].q]);\n"
	"\t\t\tf.style.left = (100 * b[1] / rootW) + '%';\n"
	"\t\t\tf.style.width = (100 * b[0].w / rootW) + '%';\n"
	"\t\t\tf.style.background = fills[b[0].q];\n"
	"\t\t\tf.title = names[b[0].q] + ' (' + fmtWeight(b[0].w) + ', ' + pct(b[0].w, total) + '%)';\n"
	"\t\t\tf.dataset.q = b[0].q;\n"
	"\t\t\trow.appendChild(f);\n"
	"\t\t});\n"
	"\t\tbox.appendChild(row);\n"
	"\t});\n"
	"}\n"
	"function renderSandwich() {\n"
	"\tsandBox.textContent = '';\n"
	"\tif (!selected) {\n"
	"\t\tsandBox.appendChild(el('h2', null, 'Sandwich'));\n"
	"\t\tsandBox.appendChild(el('p', 'note', 'Click a function in the table for its callers ' +\n"
	"\t\t\t'and callees.'));\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tvar t = sandwichTrees(selected);\n"
	"\tsandBox.appendChild(el('h2', null, 'Sandwich: ' + names[selected]));\n"
	"\tsandBox.appendChild(el('p', 'note', fmtWeight(t.callees.w) + ' in ' + names[selected] +\n"
	"\t\t' and below (' + pct(t.callees.w, total) + '%). Callers above it, callees below; ' +\n"
	"\t\t'click a frame to see its sandwich.'));\n"
	"\tvar c1 = el('div', 'tree'), c2 = el('div', 'tree');\n"
	"\tc1.id = 'callers';\n"
	"\tc2.id = 'callees';\n"
	"\tsandBox.appendChild(el('h3', null, 'Callers'));\n"
	"\tsandBox.appendChild(c1);\n"
	"\tsandBox.appendChild(el('h3', null, 'Callees'));\n"
	"\tsandBox.appendChild(c2);\n"
	"\tdrawTree(c1, t.callers, true);\n"
	"\tdrawTree(c2, t.callees, false);\n"
	"}\n"
	"sandBox.addEventListener('click', function (e) {\n"
	"\tvar q = e.target.dataset && e.target.dataset.q;\n"
	"\tif (q !== undefined && +q > 0)\n"
	"\t\tselectFunction(+q);\n"
	"});\n"
	"renderTable();\n"
	"renderSandwich();\n";

/* The page's script: its own parts between the shared pieces. */
static const char *const page_script[] = {
	tk_html_js_begin,
	"var names = D.names, total = D.total, fh = D.frame_height, font = D.font_size;\n"
	"var inverted = !!D.inverted, xpad = 10, ypad = 4;\n"
	"var nlev = D.levels.length, n = D.name.length;\n"
	"var lev = new Uint32Array(nlev + 1);\n"
	"var start = new Float64Array(n), width = new Float64Array(n);\n"
	"var nidx = new Uint32Array(D.name), depthOf = new Uint32Array(n);\n"
	"var unit = D.unit, countName = D.count_name, svgW = D.image_width;\n"
	"var hasSubtitle = D.subtitle !== null;\n"
	"var fself = D.fself || [], ftotal = D.ftotal || [], legendItems = D.legend || [];\n"	"var decorate = null;\n"
	"var fills = [], matchedName = null, re = null;\n"
	"var i, d, k, end;\n"
	"for (d = 0, k = 0; d < nlev; d++) {\n"
	"\tlev[d] = k;\n"
	"\tend = 0;\n"
	"\tfor (i = 0; i < D.levels[d]; i++, k++) {\n"
	"\t\tstart[k] = end + D.gap[k];\n"
	"\t\twidth[k] = D.width[k];\n"
	"\t\tend = start[k] + width[k];\n"
	"\t\tdepthOf[k] = d;\n"
	"\t}\n"
	"}\n"
	"lev[nlev] = k;\n"
	"for (i = 0; i < names.length; i++)\n"
	"\tfills[i] = '#' + (0x1000000 | D.colors[i]).toString(16).slice(1);\n",
	tk_html_js_elements,
	"var searchBox = $('search'), matchedEl = $('matched'), unzoomBtn = $('unzoom');\n"
	"var icBox = $('ignorecase');\n"
	"var ctx = canvas.getContext('2d');\n"
	"var zoom = 0, hover = -1, cw = 0, ch = 0, graphH = nlev * fh + 2 * ypad, queued = false;\n"
	"var charW = 7;\n"
	"\n"
	"function frameY(dep) {\n"
	"\treturn inverted ? ypad + dep * fh : graphH - ypad - (dep + 1) * fh;\n"
	"}\n",
	tk_html_js_view,
	"/* The graph's rows above the canvas: the header stays on top and the\n"
	" * canvas sticks below it, showing the rows scrolled to. */\n",
	tk_html_js_scroll_top,
	"/* v >= 0 with dec decimals, rounded half up, as the SVG renderer writes\n"
	" * numbers (trim: no trailing zeros; commas: thousands separators). */\n",
	tk_html_js_fmt_fixed,
	"/* \"1,234 samples\", \"12.50 ms\", \"3.20 MiB\": the SVG's format. */\n",
	tk_html_js_fmt_weight_begin,
	"\treturn fmtFixed(v, v === Math.floor(v) ? 0 : 2, false, true) + ' ' + (countName || unit);\n"
	"}\n"
	"function pct(w, of) {\n"
	"\treturn fmtFixed(of > 0 ? 100 * w / of : 0, 2, false, false);\n"
	"}\n"
	"\n"
	"/* The first frame of level dep whose right edge is past x (binary search). */\n",
	tk_html_js_first_at,
	"\n",
	tk_html_js_label,
	tk_html_js_draw_begin,
	"\tvar zd = depthOf[zoom], lo = x0, hi = x0 + vw;\n",
	tk_html_js_draw_visible,
	"\t\t\tvar nm = nidx[j];\n"
	"\t\t\tctx.globalAlpha = dep < zd ? 0.5 : 1;\n"
	"\t\t\tctx.fillStyle = matchedName && matchedName[nm] ? 'rgb(230,0,230)' : fills[nm];\n",
	tk_html_js_draw_box,
	"\t\t\t\tctx.fillStyle = 'black';\n",
	tk_html_js_draw_end,
	"\n"
	"/* The frame under a point of the canvas (CSS pixels), or -1. */\n"
	"function frameAt(px, py) {\n"
	"\tvar gy = py + scrollTop(), dep;\n"
	"\tdep = inverted ? Math.floor((gy - ypad) / fh) : Math.floor((graphH - ypad - gy) / fh);\n",
	tk_html_js_frame_at_end,
	"function showDetails(j) {\n"
	"\tif (j < 0) {\n"
	"\t\tdetails.textContent = '\\u00a0';\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tdetails.textContent = names[nidx[j]] + ' (' + fmtWeight(width[j]) + ', ' +\n"
	"\t\t(j === 0 ? '100' : pct(width[j], total)) + '%)';\n"
	"}\n"
	"\n"
	"/*\n"
	" * URL state, the SVG's scheme: ?x=X&y=Y&s=REGEX, where X and Y are the\n"
	" * zoomed frame's x and y in the SVG drawing of the same profile with the\n"
	" * same options (so one query string works on both files), and s the\n"
	" * search. Other parameters are kept. Reading accepts any X within a\n"
	" * hundredth of a pixel of a frame's left edge.\n"
	" */\n"
	"var svgFh = fh >= 2 ? fh : 16, svgTop = font * 3 + (hasSubtitle ? font * 2 : 0) +\n"
	"\t(legendItems.length ? font * 2 : 0);\n"
	"var svgBottom = svgTop + nlev * svgFh - svgFh + 1;\n"
	"var svgWpt = total > 0 ? (svgW - 2 * xpad) / total : 0;\n"
	"function svgX(j) {\n"
	"\treturn fmtFixed(Math.floor((xpad + start[j] * svgWpt) * 10000 + 0.5) / 10000, 4, true, false);\n"
	"}\n"
	"function svgY(j) {\n"
	"\tvar dep = depthOf[j];\n"
	"\treturn fmtFixed(inverted ? svgTop + dep * svgFh : svgBottom - dep * svgFh, 2, true, false);\n"
	"}\n",
	tk_html_js_state_begin,
	"\tdelete p.x;\n"
	"\tdelete p.y;\n"
	"\tdelete p.s;\n"
	"\tif (zoom > 0) {\n"
	"\t\tp.x = svgX(zoom);\n"
	"\t\tp.y = svgY(zoom);\n"
	"\t}\n",
	tk_html_js_state_end,
	"/* The frame an SVG (x, y) names, or 0. */\n"
	"function frameOfXY(x, y) {\n"
	"\tvar dep = Math.round(inverted ? (y - svgTop) / svgFh : (svgBottom - y) / svgFh);\n"
	"\tif (!(dep >= 0 && dep < nlev) || !(svgWpt > 0))\n"
	"\t\treturn 0;\n"
	"\tvar pos = (x - xpad) / svgWpt, best = 0, bestd = Infinity;\n"
	"\tvar j = firstAt(dep, pos);\n"
	"\tfor (var c = Math.max(j - 1, lev[dep]); c <= j + 1 && c < lev[dep + 1]; c++) {\n"
	"\t\tvar dist = Math.abs(start[c] - pos) * svgWpt;\n"
	"\t\tif (dist < bestd) {\n"
	"\t\t\tbestd = dist;\n"
	"\t\t\tbest = c;\n"
	"\t\t}\n"
	"\t}\n"
	"\treturn bestd <= 0.01 ? best : 0;\n"
	"}\n"
	"function loadState() {\n"
	"\tvar p = getParams();\n"
	"\tsetZoom(p.x !== undefined && p.y !== undefined ?\n"
	"\t\tframeOfXY(parseFloat(p.x), parseFloat(p.y)) : 0);\n"
	"\tsearchBox.value = p.s !== undefined ? p.s : '';\n"
	"\tapplySearch(searchBox.value);\n"
	"}\n"
	"\n",
	tk_html_js_apply_search,
	"\n"
	"/*\n"
	" * \"Matched\" is the SVG's: the share of the zoomed frame's weight (the\n"
	" * root's when not zoomed) that lies in matching frames, counting the\n"
	" * zoomed frame and its descendants only, a matching frame inside another\n"
	" * counted once. Frames nest, so sorting the matching frames by start\n"
	" * (wider first on ties) puts every frame after the frames containing\n"
	" * it, and one sweep counts the outermost ones.\n"
	" */\n",
	tk_html_js_matched_begin,
	"\t\t\tif (matchedName[nidx[j]])\n",
	tk_html_js_matched_end,
	"\n"
	"function setZoom(j) {\n"
	"\tzoom = j > 0 && j < n ? j : 0;\n",
	tk_html_js_set_zoom_end,
	tk_html_js_canvas_events,
	"unzoomBtn.addEventListener('click', function () {\n"
	"\tsetZoom(0);\n"
	"\tsaveState();\n"
	"\tredraw();\n"
	"});\n",
	tk_html_js_search_events,
	page_views,
	"loadState();\n"
	"showDetails(-1);\n"
	"draw();\n"
	"window.tkFlame = {\n"
	"\tframes: n,\n"
	"\t/* The first frame named `name` drawn on the canvas, as its box in CSS\n"
	"\t * pixels relative to the canvas, or null: for scripts and tests. */\n",
	tk_html_js_find_begin,
	"\t\t\tif (r - l < 0.5)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\treturn { x: l, y: frameY(depthOf[j]) - top, width: r - l, height: fh - 1,\n"
	"\t\t\t\t depth: depthOf[j], weight: width[j] };\n"
	"\t\t}\n"
	"\t\treturn null;\n"
	"\t},\n"
	"\tzoomed: function () { return names[nidx[zoom]]; },\n"
	"\t/* The top table's rows as shown: [name, self, total]. */\n"
	"\ttable: function () {\n"
	"\t\treturn shownRows.map(function (q) { return [names[q], fself[q], ftotal[q]]; });\n"
	"\t},\n"
	"\t/* The sandwich of a name: its callers and callees as folded\n"
	"\t * lines 'a;b;c weight', the function first in both. */\n"
	"\tsandwich: function (name) {\n"
	"\t\tvar q = names.indexOf(name);\n"
	"\t\tif (q < 1)\n"
	"\t\t\treturn null;\n"
	"\t\tvar t = sandwichTrees(q);\n"
	"\t\treturn { callers: foldedOf(t.callers), callees: foldedOf(t.callees) };\n"
	"\t}\n"
	"};\n"
	"})();\n",
	NULL,
};

#define SCRIPT_SHA256 "iti1hmPnEi2qkopuGWJApSd7tUJTAHBPFw27JlZOfkU="

static int cmp_frames(const void *x, const void *y, void *arg)
{
	const struct tk_flame *f = arg;
	const struct tk_flame_frame *a = &f->frames[*(const uint32_t *)x];
	const struct tk_flame_frame *b = &f->frames[*(const uint32_t *)y];

	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

/*
 * The frames in (depth, start) order, and the number per depth. The
 * layout emits them depth-first left to right, so a stable counting sort
 * by depth is enough; the check after it keeps this correct for any
 * order the layout may use one day.
 */
static uint32_t *order_frames(const struct tk_flame *f, uint32_t **levels_out,
			      size_t *nr_levels)
{
	size_t nl = 0, i;
	uint32_t *levels, *next, *order;

	for (i = 0; i < f->nr; i++)
		if (f->frames[i].depth + 1 > nl)
			nl = f->frames[i].depth + 1;
	levels = tk_xcalloc(nl + 1, sizeof(*levels));
	next = tk_xcalloc(nl + 1, sizeof(*next));
	order = tk_realloc_array(NULL, f->nr ? f->nr : 1, sizeof(*order));
	for (i = 0; i < f->nr; i++)
		levels[f->frames[i].depth]++;
	for (i = 1; i < nl; i++)
		next[i] = next[i - 1] + levels[i - 1];
	for (i = 0; i < f->nr; i++)
		order[next[f->frames[i].depth]++] = (uint32_t)i;
	free(next);
	for (i = 1; i < f->nr; i++) {
		const struct tk_flame_frame *a = &f->frames[order[i - 1]];
		const struct tk_flame_frame *b = &f->frames[order[i]];

		if (a->depth == b->depth && b->start < a->start) {
			qsort_r(order, f->nr, sizeof(*order), cmp_frames, (void *)f);
			break;
		}
	}
	*levels_out = levels;
	*nr_levels = nl;
	return order;
}

/* The SVG's colour for a name: grey for "-" and "--" (flamegraph.pl's
 * separators), the palette's otherwise; the root is coloured as "". */
static uint32_t name_color(const char *palette, const char *name, size_t len)
{
	int r, g, b;

	if (len == 1 && name[0] == '-')
		return 0xc8c8c8;
	if (len == 2 && name[0] == '-' && name[1] == '-')
		return 0xa0a0a0;
	tk_palette_color(palette, name, &r, &g, &b);
	return (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

/* With frame categories (tk_render_categories): the category's colour or
 * the pale neutral, as the SVG draws them. */
static uint32_t category_color(const struct tk_profile *p, uint32_t name,
			       const struct tk_render_opts *o)
{
	int r, g, b;

	tk_render_name_rgb(p, name, o, 1, &r, &g, &b);
	return (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
}

/* The legend of the categories drawn: [["GC", rgb], ...]. */
static void add_legend(struct tk_buf *b, const struct tk_profile *p)
{
	enum tk_category cats[TK_CAT_NR];
	size_t nr = tk_render_legend(p, cats), i;
	int r, g, bl;

	tk_buf_adds(b, ",\n\"legend\":[");
	for (i = 0; i < nr; i++) {
		tk_category_rgb(cats[i], &r, &g, &bl);
		tk_buf_adds(b, i ? ",[" : "[");
		tk_html_json_cstr(b, tk_category_name(cats[i]));
		tk_buf_addch(b, ',');
		tk_html_json_num(b, (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)bl);
		tk_buf_addch(b, ']');
	}
	tk_buf_addch(b, ']');
}

/*
 * Per name id, the self weight of its frames and their total, a frame
 * inside another frame of the same name left out of the total (a
 * recursion's time counts once): one depth-first walk that counts how
 * many frames of each name are open.
 */
static void function_totals(const struct tk_profile *p, double *self, double *total)
{
	uint32_t *open = tk_xcalloc(p->nr_names ? p->nr_names : 1, sizeof(*open));
	uint32_t n = p->nr_nodes > 1 ? p->nodes[TK_PROFILE_ROOT].first_child : 0;

	while (n) {
		const struct tk_profile_node *node = &p->nodes[n];

		self[node->name] += node->self;
		if (!open[node->name]++)
			total[node->name] += node->total;
		if (node->first_child) {
			n = node->first_child;
			continue;
		}
		/* leave n and its finished ancestors, to the next sibling */
		while (n != TK_PROFILE_ROOT) {
			open[p->nodes[n].name]--;
			if (p->nodes[n].next_sibling) {
				n = p->nodes[n].next_sibling;
				break;
			}
			n = p->nodes[n].parent;
		}
		if (n == TK_PROFILE_ROOT)
			break;
	}
	free(open);
}

/* The top table's numbers, per entry of the page's names table. */
static void add_function_totals(struct tk_htmlout *pg, const struct tk_profile *p,
				const uint32_t *by_index, uint32_t nr_names)
{
	struct tk_buf *b = &pg->b;
	double *self = tk_xcalloc(p->nr_names ? p->nr_names : 1, sizeof(*self));
	double *total = tk_xcalloc(p->nr_names ? p->nr_names : 1, sizeof(*total));
	uint32_t i;
	int pass;

	function_totals(p, self, total);
	for (pass = 0; pass < 2; pass++) {
		const double *v = pass ? total : self;

		tk_buf_adds(b, pass ? "],\n\"ftotal\":[" : ",\n\"fself\":[");
		for (i = 0; i < nr_names; i++) {
			if (i)
				tk_buf_addch(b, ',');
			if (i)
				tk_html_json_num(b, v[by_index[i]]);
			else
				tk_html_json_num(b, pass ? tk_profile_total(p) :
						 p->nodes[TK_PROFILE_ROOT].self);
			tk_htmlout_flush(pg);
		}
	}
	tk_buf_addch(b, ']');
	free(self);
	free(total);
}

static void add_data(struct tk_htmlout *pg, const struct tk_profile *p, const struct tk_flame *f,
		     const struct tk_render_opts *o, const char *title)
{
	struct tk_buf *b = &pg->b;
	uint32_t *order, *levels, *name_map, nr_names = 1;
	const char *palette = o->palette ? o->palette : "hot";
	int cats = tk_render_categories(p, o);
	size_t nl, i, lv, at;
	double end;

	order = order_frames(f, &levels, &nl);
	/* name_map[name id] = 1 + index in the page's names table; the root's
	 * "all" is index 0. */
	name_map = tk_xcalloc(p->nr_names ? p->nr_names : 1, sizeof(*name_map));

	tk_buf_adds(b, "{\"version\":1,\"title\":");
	tk_html_json_cstr(b, title);
	tk_buf_adds(b, ",\"subtitle\":");
	tk_html_json_cstr(b, o->subtitle && *o->subtitle ? o->subtitle : NULL);
	tk_buf_adds(b, ",\"unit\":");
	tk_html_json_cstr(b, tk_unit_name(p->unit));
	tk_buf_adds(b, ",\"count_name\":");
	tk_html_json_cstr(b, o->count_name);
	tk_buf_adds(b, ",\"total\":");
	tk_html_json_num(b, f->total);
	tk_buf_addf(b, ",\"inverted\":%s,\"frame_height\":", o->inverted ? "true" : "false");
	tk_html_json_num(b, o->frame_height >= 2 ? o->frame_height : 16);
	tk_buf_adds(b, ",\"font_size\":");
	tk_html_json_num(b, o->font_size > 0 ? o->font_size : 12);
	tk_buf_adds(b, ",\"image_width\":");
	tk_html_json_num(b, o->image_width > 2 * TK_FLAME_XPAD ? o->image_width : 1200);

	tk_buf_adds(b, ",\n\"names\":[\"all\"");
	for (i = 0; i < f->nr; i++) {
		uint32_t node = f->frames[order[i]].node, id;
		const char *s;
		size_t len;

		if (node == TK_PROFILE_ROOT)
			continue;
		id = p->nodes[node].name;
		if (!name_map[id]) {
			name_map[id] = nr_names++;
			s = p->names[id];
			len = tk_render_shown_len(s, p->name_lens[id]);
			tk_buf_addch(b, ',');
			tk_html_json_str(b, s, len);
			tk_htmlout_flush(pg);
		}
	}
	tk_buf_adds(b, "],\n\"colors\":[");
	/* Colours per name, in names-table order. */
	{
		uint32_t *by_index = tk_realloc_array(NULL, nr_names, sizeof(*by_index));
		uint32_t id;

		by_index[0] = 0;
		for (id = 0; id < p->nr_names; id++)
			if (name_map[id])
				by_index[name_map[id]] = id;
		for (id = 0; id < nr_names; id++) {
			uint32_t nm = by_index[id];

			if (id)
				tk_buf_addch(b, ',');
			if (cats)
				tk_html_json_num(b, category_color(p, nm, o));
			else if (id)
				tk_html_json_num(b, name_color(palette, p->names[nm], p->name_lens[nm]));
			else
				tk_html_json_num(b, name_color(palette, "", 0));
		}
		tk_buf_addch(b, ']');
		if (cats)
			add_legend(b, p);
		add_function_totals(pg, p, by_index, nr_names);
		free(by_index);
	}
	tk_buf_adds(b, ",\n\"levels\":[");
	for (lv = 0; lv < nl; lv++) {
		if (lv)
			tk_buf_addch(b, ',');
		tk_html_json_num(b, levels[lv]);
	}
	tk_buf_adds(b, "],\n\"gap\":[");
	for (lv = 0, at = 0; lv < nl; lv++) {
		size_t k;

		end = 0;
		for (k = 0; k < levels[lv]; k++, at++) {
			const struct tk_flame_frame *fr = &f->frames[order[at]];

			if (at)
				tk_buf_addch(b, ',');
			tk_html_json_num(b, fr->start - end);
			end = fr->start + fr->width;
			tk_htmlout_flush(pg);
		}
	}
	tk_buf_adds(b, "],\n\"width\":[");
	for (i = 0; i < f->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_num(b, f->frames[order[i]].width);
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"name\":[");
	for (i = 0; i < f->nr; i++) {
		uint32_t node = f->frames[order[i]].node;

		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_num(b, node == TK_PROFILE_ROOT ? 0 : name_map[p->nodes[node].name]);
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "]}");
	free(order);
	free(levels);
	free(name_map);
}

static int render_html(const struct tk_profile *p, const struct tk_flame *f,
		       const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	static const struct tk_flame_frame empty_root = { TK_PROFILE_ROOT, 0, 0, 0 };
	struct tk_flame only_root;
	struct tk_htmlout pg;
	const char *title = o->title ? o->title : "Flame Graph";

	/* flamegraph.pl names an inverted graph an icicle graph. */
	if (o->inverted && !strcmp(title, "Flame Graph"))
		title = "Icicle Graph";
	/* The page always has a root frame to zoom out to. */
	if (!f->nr) {
		memset(&only_root, 0, sizeof(only_root));
		only_root.frames = (struct tk_flame_frame *)&empty_root;
		only_root.nr = 1;
		f = &only_root;
	}
	tk_htmlout_init(&pg, out);
	tk_htmlout_begin(&pg, SCRIPT_SHA256, page_style, title, o->subtitle);
	tk_htmlout_search_bar(&pg);
	tk_htmlout_begin_data(&pg);
	add_data(&pg, p, f, o, title);
	return tk_htmlout_end(&pg, page_script, err);
}

const struct tk_renderer tk_render_html = {
	TK_RENDERER_VERSION,
	"html",
	".html",
	render_html,
};
