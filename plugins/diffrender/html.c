/*
 * .html for diffs: one self-contained page (no network, no external
 * assets) drawing the differential flame graph on a <canvas>, like the
 * flame page (plugins/render/html.c), with what a diff needs on top:
 * colour by self or cumulative change (#mode-self, #mode-cumulative),
 * width by the new profile or by the baseline (#width-new, #width-base),
 * a view of the frames that vanished (#vanished), a legend (#legend),
 * and details (#details) with base, new, delta and delta% of a frame.
 * Search, click to zoom and reset behave as on the flame page.
 * docs/diff-pages.md is the user's view.
 *
 * The data is one JSON object inside <script type="application/json">.
 * The union tree comes laid out (TK_DIFF_LAYOUT_EITHER, core/draw/diffrender.h),
 * only to pick the frames worth sending and their order: a frame is kept
 * when it is at least minwidth pixels wide in either the new or the
 * baseline layout (the layout is run on the larger of its two shares),
 * so both views lose only what neither could draw. The frames go out in depth-first order with
 * their depth, name index, new total and self, and baseline total and
 * self (divided by the normalization factor, so that integer inputs stay
 * short integers; the page multiplies back by base_scale); the page lays
 * out either view from those in one pass. Where pruned siblings were,
 * the page leaves their width at the end of their parent.
 *
 * Colour classes are tk_diff_classify's, one small integer per frame and
 * mode, so the page and the static renderers never disagree: 0 noise,
 * +-1..100 an increase or decrease with that intensity in percent,
 * 101 new (absent from the baseline), -101 vanished.
 *
 * Names are untrusted: the same escaping as the flame page (\u003c and
 * friends in the JSON, HTML entities in the header, "\xNN" for controls
 * and invalid UTF-8; core/draw/htmlout.h, which also holds the page's frame and the
 * script it shares with the flame page), names reach the document only
 * through textContent and the canvas, and a Content-Security-Policy runs
 * only the script whose hash it names. When page_script or the shared
 * pieces in core/draw/htmlout.c change, SCRIPT_SHA256 must be updated:
 * tests/t4002-diff-browser.sh checks it and prints the right value.
 */
#include "plugins/diffrender/renderers.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/buf.h"
#include "core/draw/diffrender.h"
#include "core/analyze/diffsum.h"
#include "core/draw/flame.h"
#include "core/draw/htmlout.h"
#include "core/base/banned.h"

static const char page_style[] =
	"<style>\n"
	"body { margin: 0; font: 13px Verdana, sans-serif; background: #fff; color: #000; }\n"
	"header { position: sticky; top: 0; z-index: 1; padding: 6px 10px 2px; background: linear-gradient(#eeeeee, #e8e8f4); }\n"
	"h1 { font-size: 17px; font-weight: normal; text-align: center; margin: 2px 0; }\n"
	"#subtitle, #compared { text-align: center; color: #606060; margin: 0 0 2px; }\n"
	".bar { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: center; min-height: 26px; }\n"
	".grp { white-space: nowrap; }\n"
	"#details { flex: 1; min-width: 20em; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }\n"
	"#matched { white-space: nowrap; }\n"
	"#search { width: 14em; }\n"
	"#search.bad { outline: 2px solid #c00; }\n"
	".hide { visibility: hidden; }\n"
	"#legend { display: flex; gap: 12px; align-items: center; font-size: 12px; }\n"
	"#legend .ramp { display: inline-block; width: 160px; height: 12px; vertical-align: middle;\n"
	"  background: linear-gradient(to right, rgb(30,30,255), rgb(220,220,255) 49.9%, rgb(255,220,220) 50.1%, rgb(255,30,30)); }\n"
	"#legend .sw { display: inline-block; width: 14px; height: 12px; vertical-align: middle; border: 1px solid #888; }\n"
	"#legend .vsw { background: repeating-linear-gradient(45deg, rgb(60,60,255) 0 3px, rgb(225,225,235) 3px 6px); }\n"
	"#totals { text-align: center; font-size: 15px; font-weight: bold; margin: 2px 0; }\n"
	"#changes { margin: 2px 0; font-size: 12px; }\n"
	"#changes summary { cursor: pointer; }\n"
	/* Self beside cumulative, increases above decreases, each half the
	 * width (one column on a narrow window): a list never shrinks to
	 * the width of its caption; a long path ends in an ellipsis. */
	"#changes .lists { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); grid-auto-flow: column; grid-template-rows: auto auto; gap: 4px 18px; max-height: 16em; overflow: auto; }\n"
	"@media (max-width: 760px) { #changes .lists { grid-template-columns: minmax(0, 1fr); grid-auto-flow: row; } }\n"
	"#changes table { border-collapse: collapse; width: 100%; table-layout: fixed; align-self: start; }\n"
	"#changes col.v { width: 5.5em; }\n"
	"#changes caption { text-align: left; font-weight: bold; }\n"
	"#changes td { padding: 0 6px 0 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }\n"
	"#changes td.v { text-align: right; }\n"
	"#changes td.up { color: #b00000; }\n"
	"#changes td.down { color: #0000b0; }\n"
	"#vanished-list { max-height: 9em; overflow: auto; margin: 2px 0; font-size: 12px; }\n"
	"#vanished-list button { font: inherit; border: none; background: none; padding: 0; cursor: pointer; text-align: left; }\n"
	"#vanished-list button:hover { text-decoration: underline; }\n"
	"#wrap { position: relative; background: linear-gradient(#eeeeee, #e8e8f4); }\n"
	"#flame { position: sticky; top: 0; display: block; }\n"
	"</style>\n";

/* The page's script: its own parts between the shared pieces. */
static const char *const page_script[] = {
	tk_html_js_begin,
	"var names = D.names, fh = D.frame_height, font = D.font_size, xpad = 10, ypad = 4;\n"
	"var unit = D.unit, countName = D.count_name, bscale = D.base_scale;\n"	"/* Frames of a coloured category (a Julia profile's) are outlined in\n"
	" * the category's colour: catCol[name index], -1 for none. */\n"
	"var catCol = D.catcol || null;\n"
	"var n = D.depth.length, nlev = 0, i, d, k;\n"
	"for (i = 0; i < n; i++)\n"
	"\tif (D.depth[i] + 1 > nlev)\n"
	"\t\tnlev = D.depth[i] + 1;\n"
	"/* Frames come depth-first; the page keeps them by level (left to right\n"
	" * in each), so a level is a sorted run for binary searches. */\n"
	"var lev = new Uint32Array(nlev + 1), pos = new Uint32Array(n), fill = new Uint32Array(nlev + 1);\n"
	"for (i = 0; i < n; i++)\n"
	"\tlev[D.depth[i] + 1]++;\n"
	"for (d = 0; d < nlev; d++)\n"
	"\tlev[d + 1] += lev[d];\n"
	"for (i = 0; i < n; i++) {\n"
	"\td = D.depth[i];\n"
	"\tpos[i] = lev[d] + fill[d]++;\n"
	"}\n"
	"var depthOf = new Uint32Array(n), nidx = new Uint32Array(n), parentOf = new Int32Array(n);\n"
	"var nt = new Float64Array(n), ns = new Float64Array(n), bt = new Float64Array(n), bs = new Float64Array(n);\n"
	"var code = { self: new Int16Array(n), cumulative: new Int16Array(n) };\n"
	"var sN = new Float64Array(n), wN = new Float64Array(n), sB = new Float64Array(n), wB = new Float64Array(n);\n"
	"var curN = new Float64Array(nlev + 1), curB = new Float64Array(nlev + 1), last = new Int32Array(nlev + 1);\n"
	"for (i = 0; i < n; i++) {\n"
	"\tk = pos[i];\n"
	"\td = D.depth[i];\n"
	"\tdepthOf[k] = d;\n"
	"\tnidx[k] = D.name[i];\n"
	"\tnt[k] = D.nt[i];\n"
	"\tns[k] = D.ns[i];\n"
	"\tbt[k] = D.bt[i] * bscale;\n"
	"\tbs[k] = D.bs[i] * bscale;\n"
	"\tcode.self[k] = D.cs[i];\n"
	"\tcode.cumulative[k] = D.cc[i];\n"
	"\tparentOf[k] = d ? last[d - 1] : -1;\n"
	"\tlast[d] = k;\n"
	"\t/* A frame starts where its parent's cursor is; the parent's own\n"
	"\t * weight comes first, then its children left to right. */\n"
	"\tsN[k] = d ? curN[d - 1] : 0;\n"
	"\tsB[k] = d ? curB[d - 1] : 0;\n"
	"\twN[k] = nt[k];\n"
	"\twB[k] = bt[k];\n"
	"\tif (d) {\n"
	"\t\tcurN[d - 1] += nt[k];\n"
	"\t\tcurB[d - 1] += bt[k];\n"
	"\t}\n"
	"\tcurN[d] = sN[k] + ns[k];\n"
	"\tcurB[d] = sB[k] + bs[k];\n"
	"}\n"
	"var meta = D;\n",
	tk_html_js_elements,
	"var searchBox = $('search'), matchedEl = $('matched'), unzoomBtn = $('unzoom'), icBox = $('ignorecase');\n"
	"var vanBox = $('vanished'), vanList = $('vanished-list');\n"
	"var ctx = canvas.getContext('2d');\n"
	"var mode = meta.mode, byBase = meta.width === 'base', vanView = false;\n"
	"var start = sN, width = wN, total = wN[0];\n"
	"var zoom = 0, hover = -1, cw = 0, ch = 0, graphH = nlev * fh + 2 * ypad, queued = false;\n"
	"var charW = 7, matchedName = null, re = null;\n"
	"\n"
	"/* Colours: code -> fill, see plugins/diffrender/html.c. */\n"
	"var NOISE = 'rgb(200,200,200)', fills = {}, textFills = {};\n"
	"var hatch = (function () {\n"
	"\tvar c = document.createElement('canvas'), x = c.getContext('2d');\n"
	"\tc.width = c.height = 6;\n"
	"\tx.fillStyle = 'rgb(225,225,235)';\n"
	"\tx.fillRect(0, 0, 6, 6);\n"
	"\tx.strokeStyle = 'rgb(60,60,255)';\n"
	"\tx.lineWidth = 2;\n"
	"\tx.beginPath();\n"
	"\tx.moveTo(-1, 7);\n"
	"\tx.lineTo(7, -1);\n"
	"\tx.stroke();\n"
	"\treturn ctx.createPattern(c, 'repeat');\n"
	"})();\n"
	"for (k = -100; k <= 100; k++) {\n"
	"\tvar v = Math.round(220 - 190 * Math.abs(k) / 100);\n"
	"\tfills[k] = k > 0 ? 'rgb(255,' + v + ',' + v + ')' : k < 0 ? 'rgb(' + v + ',' + v + ',255)' : NOISE;\n"
	"\ttextFills[k] = Math.abs(k) > 80 ? 'white' : 'black';\n"
	"}\n"
	"fills[101] = meta.new_color;\n"
	"textFills[101] = (function (c) {\n"
	"\tvar m = /^#([0-9a-f]{6})$/i.exec(c);\n"
	"\tif (!m)\n"
	"\t\treturn 'white';\n"
	"\tvar x = parseInt(m[1], 16);\n"
	"\treturn ((x >> 16) * 299 + (x >> 8 & 255) * 587 + (x & 255) * 114) / 1000 < 128 ? 'white' : 'black';\n"
	"})(meta.new_color);\n"
	"fills[-101] = hatch;\n"
	"textFills[-101] = 'black';\n"
	"\n"
	"function frameY(dep) { return graphH - ypad - (dep + 1) * fh; }\n",
	tk_html_js_view,
	tk_html_js_scroll_top,
	tk_html_js_fmt_fixed,
	"/* \"1,234 samples\", \"12.50 ms\", \"3.20 MiB\", as on the flame page. */\n",
	tk_html_js_fmt_weight_begin,
	"\tif (Math.abs(v - Math.round(v)) < 1e-9 * Math.max(1, v))\n"
	"\t\tv = Math.round(v);\n"
	"\treturn fmtFixed(v, v === Math.floor(v) ? 0 : 2, false, true) + ' ' + (countName || unit);\n"
	"}\n"
	"function fmtSigned(v) {\n"
	"\treturn (v < 0 ? '-' : '+') + fmtWeight(Math.abs(v));\n"
	"}\n"
	"\n",
	tk_html_js_first_at,
	tk_html_js_label,
	"var decorate = catCol === null ? null : function (j, x, y, fw) {\n"
	"\tvar col = catCol[nidx[j]];\n"
	"\tif (col < 0 || fw < 3)\n"
	"\t\treturn;\n"
	"\tctx.strokeStyle = '#' + (0x1000000 | col).toString(16).slice(1);\n"
	"\tctx.lineWidth = 2;\n"
	"\tctx.strokeRect(x + 1, y + 1, fw - 2.5, fh - 3);\n"
	"};\n",
	tk_html_js_draw_begin,
	"\tvar zd = depthOf[zoom], lo = x0, hi = x0 + vw, cd = code[mode];\n",
	tk_html_js_draw_visible,
	"\t\t\tvar c = cd[j], nm = nidx[j], hit = matchedName && matchedName[nm];\n"
	"\t\t\tctx.globalAlpha = dep < zd ? 0.5 : vanView && c !== -101 ? 0.3 : 1;\n"
	"\t\t\tctx.fillStyle = hit ? 'rgb(230,0,230)' : fills[c];\n",
	tk_html_js_draw_box,
	"\t\t\t\tctx.fillStyle = hit ? 'black' : textFills[c];\n",
	tk_html_js_draw_end,
	"function frameAt(px, py) {\n"
	"\tvar gy = py + scrollTop(), dep = Math.floor((graphH - ypad - gy) / fh);\n",
	tk_html_js_frame_at_end,
	"/* \"name (self: base 10 samples, new 15 samples, \\u0394 +5 samples, +50.00%)\" */\n"
	"function info(j) {\n"
	"\tvar self = mode === 'self', b = self ? bs[j] : bt[j], nw = self ? ns[j] : nt[j];\n"
	"\tvar dl = nw - b, c = code[mode][j];\n"
	"\tvar s = names[nidx[j]] + ' (' + (self ? 'self' : 'total') + ': base ' + fmtWeight(b) +\n"
	"\t\t', new ' + fmtWeight(nw) + ', \\u0394 ' + fmtSigned(dl) + ', ';\n"
	"\tif (b > 0)\n"
	"\t\ts += (dl < 0 ? '-' : '+') + fmtFixed(Math.abs(100 * dl / b), 2, false, false) + '%';\n"
	"\telse\n"
	"\t\ts += nw > 0 ? '+\\u221e%' : '+0.00%';\n"
	"\tif (c === 101)\n"
	"\t\ts += ', new';\n"
	"\telse if (c === -101)\n"
	"\t\ts += ', vanished';\n"
	"\telse if (c === 0)\n"
	"\t\ts += ', within noise';\n"
	"\tif (meta.norm !== 'none')\n"
	"\t\ts += ', base scaled \\u00d7' + fmtFixed(bscale, 4, false, false) + ' by ' + meta.norm;\n"
	"\treturn s + ')';\n"
	"}\n"
	"function showDetails(j) {\n"
	"\tdetails.textContent = j < 0 ? '\\u00a0' : info(j);\n"
	"}\n"
	"\n",
	tk_html_js_apply_search,
	"/* The flame page's \"Matched\": the share of the zoomed frame's width in\n"
	" * matching frames (outermost ones), in the widths shown. */\n",
	tk_html_js_matched_begin,
	"\t\t\tif (matchedName[nidx[j]] && width[j] > 0)\n",
	tk_html_js_matched_end,
	"function setZoom(j) {\n"
	"\tzoom = j > 0 && j < n && width[j] > 0 ? j : 0;\n",
	tk_html_js_set_zoom_end,
	"function setWidth(base) {\n"
	"\tbyBase = base;\n"
	"\tstart = base ? sB : sN;\n"
	"\twidth = base ? wB : wN;\n"
	"\ttotal = width[0];\n"
	"\t$('width-base').checked = base;\n"
	"\t$('width-new').checked = !base;\n"
	"\tsetZoom(zoom);\n"
	"}\n"
	"function setMode(m) {\n"
	"\tmode = m === 'cumulative' ? 'cumulative' : 'self';\n"
	"\t$('mode-self').checked = mode === 'self';\n"
	"\t$('mode-cumulative').checked = mode === 'cumulative';\n"
	"}\n"
	"/* The vanished view: widths from the baseline, everything but the\n"
	" * vanished frames faded, and a list of the outermost vanished frames. */\n"
	"var vanRoots = null;\n"
	"function setVanished(on) {\n"
	"\tvanView = on;\n"
	"\tvanBox.checked = on;\n"
	"\tif (on)\n"
	"\t\tsetWidth(true);\n"
	"\t$('width-new').disabled = on;\n"
	"\t$('width-base').disabled = on;\n"
	"\tvanList.hidden = !on;\n"
	"\tif (!on || vanRoots)\n"
	"\t\treturn;\n"
	"\tvar cd = code.cumulative, sum = 0, j, li, btn;\n"
	"\tvanRoots = [];\n"
	"\tfor (j = 0; j < n; j++)\n"
	"\t\tif (cd[j] === -101 && (parentOf[j] < 0 || cd[parentOf[j]] !== -101)) {\n"
	"\t\t\tvanRoots.push(j);\n"
	"\t\t\tsum += bt[j];\n"
	"\t\t}\n"
	"\tvanRoots.sort(function (a, b) { return bt[b] - bt[a]; });\n"
	"\tvar hd = document.createElement('div');\n"
	"\thd.textContent = vanRoots.length ? vanRoots.length + ' vanished frame' +\n"
	"\t\t(vanRoots.length > 1 ? 's' : '') + ' (not in the new profile), ' + fmtWeight(sum) +\n"
	"\t\t' of the baseline; click one to zoom:' : 'No frame vanished.';\n"
	"\tvanList.appendChild(hd);\n"
	"\tvar ul = document.createElement('ul');\n"
	"\tul.style.margin = '0';\n"
	"\tfor (j = 0; j < vanRoots.length && j < 200; j++) {\n"
	"\t\tli = document.createElement('li');\n"
	"\t\tbtn = document.createElement('button');\n"
	"\t\tbtn.type = 'button';\n"
	"\t\tbtn.className = 'vanished-frame';\n"
	"\t\tbtn.textContent = names[nidx[vanRoots[j]]] + ' (' + fmtWeight(bt[vanRoots[j]]) + ')';\n"
	"\t\tbtn.addEventListener('click', (function (f) {\n"
	"\t\t\treturn function () {\n"
	"\t\t\t\tsetZoom(f);\n"
	"\t\t\t\tsaveState();\n"
	"\t\t\t\tredraw();\n"
	"\t\t\t};\n"
	"\t\t})(vanRoots[j]));\n"
	"\t\tli.appendChild(btn);\n"
	"\t\tul.appendChild(li);\n"
	"\t}\n"
	"\tvanList.appendChild(ul);\n"
	"}\n"
	"\n"
	"/* URL state: mode=self|cumulative, width=new|base, view=vanished,\n"
	" * z=frame (an index into this page's frames), s=search. Other\n"
	" * parameters are kept. */\n",
	tk_html_js_state_begin,
	"\tdelete p.z;\n"
	"\tdelete p.s;\n"
	"\tdelete p.mode;\n"
	"\tdelete p.width;\n"
	"\tdelete p.view;\n"
	"\tif (mode !== meta.mode)\n"
	"\t\tp.mode = mode;\n"
	"\tif (byBase !== (meta.width === 'base') && !vanView)\n"
	"\t\tp.width = byBase ? 'base' : 'new';\n"
	"\tif (vanView)\n"
	"\t\tp.view = 'vanished';\n"
	"\tif (zoom > 0)\n"
	"\t\tp.z = String(zoom);\n",
	tk_html_js_state_end,
	"function loadState() {\n"
	"\tvar p = getParams();\n"
	"\tsetMode(p.mode || meta.mode);\n"
	"\tsetWidth(p.width ? p.width === 'base' : meta.width === 'base');\n"
	"\tsetVanished(p.view === 'vanished');\n"
	"\tsetZoom(p.z !== undefined ? parseInt(p.z, 10) || 0 : 0);\n"
	"\tsearchBox.value = p.s !== undefined ? p.s : '';\n"
	"\tapplySearch(searchBox.value);\n"
	"}\n",
	tk_html_js_canvas_events,
	"function changed() {\n"
	"\tif (hover >= 0)\n"
	"\t\tshowDetails(hover);\n"
	"\tsaveState();\n"
	"\tredraw();\n"
	"}\n"
	"unzoomBtn.addEventListener('click', function () {\n"
	"\tsetZoom(0);\n"
	"\tchanged();\n"
	"});\n"
	"$('mode-self').addEventListener('change', function () { setMode('self'); changed(); });\n"
	"$('mode-cumulative').addEventListener('change', function () { setMode('cumulative'); changed(); });\n"
	"$('width-new').addEventListener('change', function () { setWidth(false); changed(); });\n"
	"$('width-base').addEventListener('change', function () { setWidth(true); changed(); });\n"
	"vanBox.addEventListener('change', function () {\n"
	"\tsetVanished(vanBox.checked);\n"
	"\tif (!vanBox.checked)\n"
	"\t\tsetWidth(meta.width === 'base');\n"
	"\tchanged();\n"
	"});\n",
	tk_html_js_search_events,
	"/* The \"what changed\" rows zoom to their frame, in their mode. */\n"
	"Array.prototype.forEach.call(document.querySelectorAll('#changes a[data-z]'), function (a) {\n"
	"\ta.addEventListener('click', function (e) {\n"
	"\t\te.preventDefault();\n"
	"\t\tsetMode(a.getAttribute('data-mode'));\n"
	"\t\tif (a.hasAttribute('data-vanished'))\n"
	"\t\t\tsetVanished(true);\n"
	"\t\telse if (vanView) {\n"
	"\t\t\tsetVanished(false);\n"
	"\t\t\tsetWidth(meta.width === 'base');\n"
	"\t\t}\n"
	"\t\tsetZoom(parseInt(a.getAttribute('data-z'), 10) || 0);\n"
	"\t\tchanged();\n"
	"\t});\n"
	"});\n"
	"$('new-swatch').style.background = meta.new_color;\n"
	"loadState();\n"
	"showDetails(-1);\n"
	"draw();\n"
	"window.tkDiff = {\n"
	"\tframes: n,\n"
	"\t/* The first frame named `name` drawn on the canvas: its box in CSS\n"
	"\t * pixels relative to the canvas, its fill and class code in the\n"
	"\t * current mode and its details text; or null. For scripts and tests. */\n",
	tk_html_js_find_begin,
	"\t\t\tif (r - l < 0.5 || (zoom && depthOf[j] >= depthOf[zoom] && (start[j] < x0 || start[j] >= x0 + viewW())))\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\tvar c = code[mode][j];\n"
	"\t\t\treturn { x: l, y: frameY(depthOf[j]) - top, width: r - l, height: fh - 1,\n"
	"\t\t\t\t depth: depthOf[j], weight: width[j], code: c,\n"
	"\t\t\t\t fill: c === -101 ? 'hatched' : fills[c], info: info(j) };\n"
	"\t\t}\n"
	"\t\treturn null;\n"
	"\t},\n"
	"\tstate: function () {\n"
	"\t\treturn { mode: mode, width: byBase ? 'base' : 'new', vanished: vanView,\n"
	"\t\t\t zoomed: names[nidx[zoom]] };\n"
	"\t}\n"
	"};\n"
	"})();\n",
	NULL,
};

#define SCRIPT_SHA256 "evHu8Ly/PekufPrAveV9ioS6Tl8Ih0I5iQJNPmQB6x0="

/*
 * A baseline weight divided back by the normalization factor: the raw
 * (or mean) count. Integers that the division and multiplication moved
 * by an ulp come out as integers again; other values keep 9 digits,
 * more than a picture or a two-decimal details line can show.
 */
static void add_raw(struct tk_buf *b, double v, double scale)
{
	char tmp[40];
	double r = v / scale, ri = floor(r + 0.5);
	int len;

	if (!isfinite(r) || r == 0) {
		tk_buf_addch(b, '0');
		return;
	}
	if (fabs(r - ri) <= 1e-9 * (fabs(r) > 1 ? fabs(r) : 1) && fabs(ri) < 9e15) {
		tk_html_json_int(b, (int64_t)ri);
		return;
	}
	len = snprintf(tmp, sizeof(tmp), "%.9g", r);
	tk_buf_add(b, tmp, (size_t)len);
}

/* The class of node n as the page codes it (see the top of this file). */
static int class_code(const struct tk_diff *d, uint32_t n, enum tk_diff_mode mode,
		      const struct tk_diff_opts *dopts)
{
	double in = 0;
	enum tk_diff_class cls = tk_diff_classify(d, n, mode, dopts, &in);
	int pct;

	switch (cls) {
	case TK_DIFF_NEW:
		return 101;
	case TK_DIFF_VANISHED:
		return -101;
	case TK_DIFF_UP:
	case TK_DIFF_DOWN:
		break;
	default:
		return 0;
	}
	pct = (int)ceil((in > 0 ? (in < 1 ? in : 1) : 0) * 100 - 1e-9);
	if (pct < 1)
		pct = 1;
	return cls == TK_DIFF_UP ? pct : -pct;
}

static const char *norm_name(enum tk_diff_norm n)
{
	switch (n) {
	case TK_DIFF_NORM_WALLTIME:
		return "walltime";
	case TK_DIFF_NORM_NONE:
		return "none";
	default:
		return "total";
	}
}

/* "catcol": per entry of the names table, its category's colour, -1 for
 * none (tk_render_categories). */
static void add_category_colors(struct tk_htmlout *pg, const struct tk_profile *p,
				const uint32_t *name_map, uint32_t nr_names)
{
	int32_t *col = tk_xcalloc(nr_names, sizeof(*col));
	struct tk_buf *b = &pg->b;
	uint32_t id, i;
	int r, g, bl;

	for (i = 0; i < nr_names; i++)
		col[i] = -1;
	for (id = 1; id < p->nr_names; id++) {
		enum tk_category c = tk_profile_category(p, id);

		if (!name_map[id] || !tk_category_colored(c))
			continue;
		tk_category_rgb(c, &r, &g, &bl);
		col[name_map[id]] = r << 16 | g << 8 | bl;
	}
	tk_buf_adds(b, ",\n\"catcol\":[");
	for (i = 0; i < nr_names; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_int(b, col[i]);
		tk_htmlout_flush(pg);
	}
	tk_buf_addch(b, ']');
	free(col);
}

static void add_data(struct tk_htmlout *pg, const struct tk_diff *d,
		     const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		     const struct tk_flame *fl, const char *title)
{
	struct tk_buf *b = &pg->b;
	const struct tk_profile *p = &d->tree;
	uint32_t *name_map, nr_names = 1;
	double scale = d->base_scale > 0 && isfinite(d->base_scale) ? d->base_scale : 1;
	size_t i;

	name_map = tk_xcalloc(p->nr_names ? p->nr_names : 1, sizeof(*name_map));
	tk_buf_adds(b, "{\"version\":1,\"title\":");
	tk_html_json_cstr(b, title);
	tk_buf_adds(b, ",\"subtitle\":");
	tk_html_json_cstr(b, o->render.subtitle && *o->render.subtitle ? o->render.subtitle : NULL);
	tk_buf_adds(b, ",\"base_label\":");
	tk_html_json_cstr(b, o->base_label ? o->base_label : "base");
	tk_buf_adds(b, ",\"new_label\":");
	tk_html_json_cstr(b, o->new_label ? o->new_label : "new");
	tk_buf_adds(b, ",\"norm\":");
	tk_html_json_cstr(b, norm_name(dopts->norm));
	tk_buf_adds(b, ",\"base_scale\":");
	tk_html_json_num(b, scale);
	tk_buf_adds(b, ",\"nr_base\":");
	tk_html_json_num(b, (double)d->nr_base);
	tk_buf_adds(b, ",\"unit\":");
	tk_html_json_cstr(b, tk_unit_name(p->unit));
	tk_buf_adds(b, ",\"count_name\":");
	tk_html_json_cstr(b, o->render.count_name);
	tk_buf_adds(b, ",\"mode\":");
	tk_html_json_cstr(b, o->mode == TK_DIFF_CUMULATIVE ? "cumulative" : "self");
	tk_buf_adds(b, ",\"width\":");
	tk_html_json_cstr(b, o->width_by_base ? "base" : "new");
	tk_buf_adds(b, ",\"new_color\":");
	tk_html_json_cstr(b, o->new_color && *o->new_color ? o->new_color : "#000000");
	tk_buf_adds(b, ",\"saturation\":");
	tk_html_json_num(b, dopts->saturation);
	tk_buf_adds(b, ",\"min_delta\":");
	tk_html_json_num(b, dopts->min_delta);
	tk_buf_adds(b, ",\"spread_k\":");
	tk_html_json_num(b, dopts->spread_k);
	tk_buf_adds(b, ",\"frame_height\":");
	tk_html_json_num(b, o->render.frame_height >= 2 ? o->render.frame_height : 16);
	tk_buf_adds(b, ",\"font_size\":");
	tk_html_json_num(b, o->render.font_size > 0 ? o->render.font_size : 12);

	tk_buf_adds(b, ",\n\"names\":[\"all\"");
	for (i = 0; i < fl->nr; i++) {
		uint32_t node = fl->frames[i].node, id;

		if (node == TK_PROFILE_ROOT)
			continue;
		id = p->nodes[node].name;
		if (!name_map[id]) {
			name_map[id] = nr_names++;
			tk_buf_addch(b, ',');
			tk_html_json_str(b, p->names[id],
					 tk_render_shown_len(p->names[id], p->name_lens[id]));
			tk_htmlout_flush(pg);
		}
	}
	tk_buf_addch(b, ']');
	if (tk_render_categories(p, &o->render))
		add_category_colors(pg, p, name_map, nr_names);
	/* One array at a time: runs of small numbers compress and parse well. */
	tk_buf_adds(b, ",\n\"depth\":[");
	for (i = 0; i < fl->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_int(b, fl->frames[i].depth);
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"name\":[");
	for (i = 0; i < fl->nr; i++) {
		uint32_t node = fl->frames[i].node;

		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_int(b, node == TK_PROFILE_ROOT ? 0 : name_map[p->nodes[node].name]);
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"nt\":[");
	for (i = 0; i < fl->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_num(b, tk_diff_new_total(d, fl->frames[i].node));
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"ns\":[");
	for (i = 0; i < fl->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_num(b, tk_diff_new_self(d, fl->frames[i].node));
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"bt\":[");
	for (i = 0; i < fl->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		add_raw(b, d->base_total[fl->frames[i].node], scale);
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"bs\":[");
	for (i = 0; i < fl->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		add_raw(b, d->base_self[fl->frames[i].node], scale);
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"cs\":[");
	for (i = 0; i < fl->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_int(b, class_code(d, fl->frames[i].node, TK_DIFF_SELF, dopts));
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "],\n\"cc\":[");
	for (i = 0; i < fl->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		tk_html_json_int(b, class_code(d, fl->frames[i].node, TK_DIFF_CUMULATIVE, dopts));
		tk_htmlout_flush(pg);
	}
	tk_buf_adds(b, "]}");
	free(name_map);
}

/* "-100%" .. "+100%" for a saturation of 1. */
static void add_pct_label(struct tk_buf *b, double saturation, int sign)
{
	double v = 100 * (saturation > 0 ? saturation : 1);

	tk_buf_addch(b, sign < 0 ? '-' : '+');
	if (v == floor(v) && v < 1e9)
		tk_html_json_int(b, (int64_t)v);
	else
		tk_buf_addf(b, "%.1f", v);
	tk_buf_addch(b, '%');
}

#define CHANGES_SHOWN 5

/* One list of the "what changed" table: a row per change, its frame a
 * link that zooms the graph to it (to its nearest sent ancestor when the
 * frame was too narrow to send). */
static void add_change_list(struct tk_buf *b, const struct tk_diff *d,
			    const struct tk_diff_list *l, enum tk_diff_mode mode, int up,
			    const uint32_t *page_index, const char *id, const char *caption)
{
	struct tk_buf t = TK_BUF_INIT;
	size_t i;

	tk_buf_addf(b, "<table id=\"%s\"><caption>%s</caption>"
		    "<colgroup><col><col class=\"v\"><col class=\"v\"></colgroup>", id, caption);
	if (!l->nr)
		tk_buf_adds(b, "<tr><td colspan=\"3\">(none)</td></tr>");
	for (i = 0; i < l->nr && i < CHANGES_SHOWN; i++) {
		const struct tk_diff_change *c = &l->rows[i];
		uint32_t n = c->node;

		while (n != TK_PROFILE_ROOT && !page_index[n])
			n = d->tree.nodes[n].parent;
		/* the whole path on hover, the cell showing what fits */
		tk_buf_reset(&t);
		tk_diff_add_path(&t, &d->tree, c->node, 12);
		tk_buf_adds(b, "<tr><td title=\"");
		tk_xml_text(b, t.buf, TK_XML_QUOTES, 0);
		tk_buf_adds(b, "\">");
		tk_buf_reset(&t);
		tk_diff_add_path(&t, &d->tree, c->node, 3);
		tk_buf_addf(b, "<a href=\"?z=%u\" data-z=\"%u\" data-mode=\"%s\"%s>",
			    page_index[n] ? page_index[n] - 1 : 0, page_index[n] ? page_index[n] - 1 : 0,
			    mode == TK_DIFF_CUMULATIVE ? "cumulative" : "self",
			    c->cls == TK_DIFF_VANISHED ? " data-vanished" : "");
		tk_xml_text(b, t.buf, TK_XML_QUOTES, 0);
		tk_buf_adds(b, "</a></td><td class=\"v ");
		tk_buf_adds(b, up ? "up" : "down");
		tk_buf_adds(b, "\">");
		tk_buf_reset(&t);
		tk_diff_add_value(&t, d->tree.unit, c->now - c->base, 1);
		tk_xml_text(b, t.buf, TK_XML_QUOTES, 0);
		tk_buf_adds(b, "</td><td class=\"v\">");
		tk_buf_reset(&t);
		if (c->cls == TK_DIFF_VANISHED)
			tk_buf_adds(&t, "vanished");
		else
			tk_diff_add_percent(&t, c->base, c->now);
		tk_xml_text(b, t.buf, TK_XML_QUOTES, 0);
		tk_buf_adds(b, "</td></tr>");
	}
	tk_buf_adds(b, "</table>");
	tk_buf_release(&t);
}

/* The totals, and the "what changed" table: the top regressions and
 * improvements by self and by cumulative value (core/analyze/diffsum.h). */
static void add_summary(struct tk_buf *b, const struct tk_diff *d,
			const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
			const struct tk_flame *fl)
{
	struct tk_diff_summary s;
	struct tk_buf t = TK_BUF_INIT;
	uint32_t *page_index = tk_xcalloc(d->tree.nr_nodes ? d->tree.nr_nodes : 1,
					  sizeof(*page_index));
	size_t i;

	uint32_t *lev = tk_xcalloc((size_t)fl->max_depth + 2, sizeof(*lev));

	/* The page stores frames level by level (its pos[]): frame i of the
	 * data goes to the frames of lower depth, plus its rank among its
	 * own depth's. */
	for (i = 0; i < fl->nr; i++)
		lev[fl->frames[i].depth + 1]++;
	for (i = 1; i <= fl->max_depth + 1; i++)
		lev[i] += lev[i - 1];
	for (i = 0; i < fl->nr; i++)
		page_index[fl->frames[i].node] = lev[fl->frames[i].depth]++ + 1;
	free(lev);
	tk_diff_add_totals(&t, d, dopts, o->quantity);
	tk_buf_adds(b, "<p id=\"totals\">");
	tk_xml_text(b, t.buf, TK_XML_QUOTES, 0);
	tk_buf_adds(b, "</p>\n");
	tk_diff_summarize(d, dopts, CHANGES_SHOWN, &s);
	tk_buf_adds(b, "<details id=\"changes\" open><summary>What changed</summary>"
		    "<div class=\"lists\">");
	add_change_list(b, d, &s.up[TK_DIFF_SELF], TK_DIFF_SELF, 1, page_index,
			"changes-self-up", "Self increases");
	add_change_list(b, d, &s.down[TK_DIFF_SELF], TK_DIFF_SELF, 0, page_index,
			"changes-self-down", "Self decreases");
	add_change_list(b, d, &s.up[TK_DIFF_CUMULATIVE], TK_DIFF_CUMULATIVE, 1, page_index,
			"changes-cum-up", "Cumulative increases");
	add_change_list(b, d, &s.down[TK_DIFF_CUMULATIVE], TK_DIFF_CUMULATIVE, 0, page_index,
			"changes-cum-down", "Cumulative decreases");
	tk_buf_addf(b, "</div></details>\n");
	tk_diff_summary_release(&s);
	tk_buf_release(&t);
	free(page_index);
}

/* The header under the title: the totals, what changed, what is
 * compared, and the diff's controls and legend. */
static void add_header(struct tk_buf *b, const struct tk_diff *d, const struct tk_diff_opts *dopts,
		       const struct tk_diff_render_opts *o, const struct tk_flame *fl)
{
	const char *norm;

	add_summary(b, d, dopts, o, fl);
	tk_buf_adds(b, "<p id=\"compared\"><b id=\"new-label\">");
	tk_xml_text(b, o->new_label ? o->new_label : "new", TK_XML_QUOTES, 0);
	tk_buf_adds(b, "</b> compared with the baseline <b id=\"base-label\">");
	tk_xml_text(b, o->base_label ? o->base_label : "base", TK_XML_QUOTES, 0);
	tk_buf_adds(b, "</b>");
	if (d->nr_base < 2)
		tk_buf_adds(b, " (one run: no noise floor)");
	switch (dopts->norm) {
	case TK_DIFF_NORM_TOTAL:
		norm = "baseline scaled to the same total";
		break;
	case TK_DIFF_NORM_WALLTIME:
		norm = "baseline scaled by the walltimes";
		break;
	default:
		norm = "not normalized";
		break;
	}
	tk_buf_adds(b, "; <span id=\"norm\">normalization: ");
	tk_buf_adds(b, norm_name(dopts->norm));
	tk_buf_adds(b, ", ");
	tk_buf_adds(b, norm);
	if (dopts->norm != TK_DIFF_NORM_NONE)
		tk_buf_addf(b, " (\xc3\x97%.4g)", d->base_scale);
	tk_buf_adds(b, "</span></p>\n");

	tk_buf_adds(b,
		    "<div class=\"bar\">"
		    "<span class=\"grp\">Colour by <label><input type=\"radio\" name=\"mode\" "
		    "id=\"mode-self\"> self</label> <label><input type=\"radio\" name=\"mode\" "
		    "id=\"mode-cumulative\"> cumulative</label></span>"
		    "<span class=\"grp\">Width by <label><input type=\"radio\" name=\"width\" "
		    "id=\"width-new\"> new</label> <label><input type=\"radio\" name=\"width\" "
		    "id=\"width-base\"> baseline</label></span>"
		    "<label class=\"grp\" title=\"Lay out by the baseline and show the frames "
		    "absent from the new profile\"><input type=\"checkbox\" id=\"vanished\"> "
		    "vanished frames</label>"
		    "<div id=\"legend\"><span>");
	add_pct_label(b, dopts->saturation, -1);
	tk_buf_adds(b, " <span class=\"ramp\" title=\"blue: decreased, red: increased, "
		    "relative to the frame's baseline value\"></span> ");
	add_pct_label(b, dopts->saturation, 1);
	tk_buf_adds(b, "</span><span><span class=\"sw\" id=\"new-swatch\"></span> new (not in "
		    "baseline)</span><span><span class=\"sw vsw\"></span> vanished</span>"
		    "<span><span class=\"sw\" style=\"background: rgb(200,200,200)\"></span> "
		    "noise (");
	if (dopts->min_delta > 0) {
		tk_buf_adds(b, "|\xce\x94| &lt; ");
		tk_buf_addf(b, "%.6g", dopts->min_delta);
		if (d->nr_base > 1)
			tk_buf_adds(b, " or ");
	}
	if (d->nr_base > 1)
		tk_buf_addf(b, "within %.3g standard deviations of the baseline runs", dopts->spread_k);
	if (!(dopts->min_delta > 0) && d->nr_base <= 1)
		tk_buf_adds(b, "no change");
	tk_buf_adds(b, ")</span>");
	if (tk_render_categories(&d->tree, &o->render)) {
		enum tk_category cats[TK_CAT_NR];
		size_t nr = tk_render_legend(&d->tree, cats), i;
		int r, g, bl;

		for (i = 0; i < nr; i++) {
			tk_category_rgb(cats[i], &r, &g, &bl);
			tk_buf_addf(b, "<span class=\"category\"><span class=\"sw\" style=\"background: "
				    "rgb(200,200,200); outline: 2px solid rgb(%d,%d,%d); "
				    "outline-offset: -2px\"></span> %s</span>", r, g, bl,
				    tk_category_name(cats[i]));
		}
	}
	tk_buf_adds(b, "</div></div>\n");
}

static int render_html(const struct tk_diff *d, const struct tk_flame *fl,
		       const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		       FILE *out, struct tk_err *err)
{
	struct tk_diff_opts dflt;
	struct tk_htmlout pg;
	const char *title = o->render.title;

	if (!dopts) {
		tk_diff_opts_init(&dflt);
		dopts = &dflt;
	}
	if (!title || !*title || !strcmp(title, "Flame Graph"))
		title = "Differential Flame Graph";
	tk_htmlout_init(&pg, out);
	tk_htmlout_begin(&pg, SCRIPT_SHA256, page_style, title, o->render.subtitle);
	add_header(&pg.b, d, dopts, o, fl);
	tk_htmlout_search_bar(&pg);
	tk_buf_adds(&pg.b, "<div id=\"vanished-list\" hidden></div>\n");
	tk_htmlout_begin_data(&pg);
	add_data(&pg, d, dopts, o, fl, title);
	return tk_htmlout_end(&pg, page_script, err);
}

const struct tk_diff_renderer tk_diffrender_html = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "html",
	.ext = ".html",
	.layout = TK_DIFF_LAYOUT_EITHER,
	.render = render_html,
};
