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
 * \u003c, \u003e and \u0026 (so "</script>" and "<!--" are inert), control
 * characters and U+2028/U+2029 as \u escapes, and bytes that are not
 * valid UTF-8 as U+FFFD; the page's script puts names in the document
 * with textContent or on the canvas only. The page also carries a
 * Content-Security-Policy that allows no network access and runs only
 * the one script whose hash it names, so even an escaping mistake could
 * not run injected script.
 *
 * When page_script changes, SCRIPT_SHA256 must become the base64 SHA-256
 * of its text, or browsers will not run it: tests/t3002-flame-browser.sh
 * checks it and prints the right value when it is wrong (and the browser
 * tests fail meanwhile).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/render.h"
#include "core/utf8.h"
#include "core/banned.h"

#define FLUSH_AT (1u << 16)

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
	"</style>\n";

static const char page_script[] =
	"(function () {\n"
	"'use strict';\n"
	"var D = JSON.parse(document.getElementById('tk-data').textContent);\n"
	"var names = D.names, total = D.total, fh = D.frame_height, font = D.font_size;\n"
	"var inverted = !!D.inverted, xpad = 10, ypad = 4;\n"
	"var nlev = D.levels.length, n = D.name.length;\n"
	"var lev = new Uint32Array(nlev + 1);\n"
	"var start = new Float64Array(n), width = new Float64Array(n);\n"
	"var nidx = new Uint32Array(D.name), depthOf = new Uint32Array(n);\n"
	"var unit = D.unit, countName = D.count_name, svgW = D.image_width;\n"
	"var hasSubtitle = D.subtitle !== null;\n"
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
	"\tfills[i] = '#' + (0x1000000 | D.colors[i]).toString(16).slice(1);\n"
	"D = null;\n"
	"\n"
	"var $ = function (id) { return document.getElementById(id); };\n"
	"var canvas = $('flame'), wrap = $('wrap'), details = $('details'), head = $('head');\n"
	"var searchBox = $('search'), matchedEl = $('matched'), unzoomBtn = $('unzoom');\n"
	"var icBox = $('ignorecase');\n"
	"var ctx = canvas.getContext('2d');\n"
	"var zoom = 0, hover = -1, cw = 0, ch = 0, graphH = nlev * fh + 2 * ypad, queued = false;\n"
	"var charW = 7;\n"
	"\n"
	"function frameY(dep) {\n"
	"\treturn inverted ? ypad + dep * fh : graphH - ypad - (dep + 1) * fh;\n"
	"}\n"
	"function viewX0() { return start[zoom]; }\n"
	"function viewW() { return width[zoom] > 0 ? width[zoom] : 1; }\n"
	"function scale() { return (cw - 2 * xpad) / viewW(); }\n"
	"/* The graph's rows above the canvas: the header stays on top and the\n"
	" * canvas sticks below it, showing the rows scrolled to. */\n"
	"function scrollTop() {\n"
	"\tvar t = head.offsetHeight - wrap.getBoundingClientRect().top;\n"
	"\treturn Math.max(0, Math.min(t, graphH - ch));\n"
	"}\n"
	"/* v >= 0 with dec decimals, rounded half up, as the SVG renderer writes\n"
	" * numbers (trim: no trailing zeros; commas: thousands separators). */\n"
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
	"}\n"
	"/* \"1,234 samples\", \"12.50 ms\", \"3.20 MiB\": the SVG's format. */\n"
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
	"\t}\n"
	"\treturn fmtFixed(v, v === Math.floor(v) ? 0 : 2, false, true) + ' ' + (countName || unit);\n"
	"}\n"
	"function pct(w, of) {\n"
	"\treturn fmtFixed(of > 0 ? 100 * w / of : 0, 2, false, false);\n"
	"}\n"
	"\n"
	"/* The first frame of level dep whose right edge is past x (binary search). */\n"
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
	"}\n"
	"\n"
	"function label(name, w) {\n"
	"\tvar fit = Math.floor((w - 6) / charW);\n"
	"\tif (fit < 3)\n"
	"\t\treturn null;\n"
	"\tif (name.length <= fit)\n"
	"\t\treturn name;\n"
	"\treturn name.slice(0, fit - 2) + '..';\n"
	"}\n"
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
	"\tvar top = scrollTop(), x0 = viewX0(), vw = viewW(), sc = scale();\n"
	"\tvar zd = depthOf[zoom], lo = x0, hi = x0 + vw;\n"
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
	"\t\t\t\tfw = cw - xpad - x;\n"
	"\t\t\tvar nm = nidx[j];\n"
	"\t\t\tctx.globalAlpha = dep < zd ? 0.5 : 1;\n"
	"\t\t\tctx.fillStyle = matchedName && matchedName[nm] ? 'rgb(230,0,230)' : fills[nm];\n"
	"\t\t\tctx.fillRect(x, y, fw > 1 ? fw - 0.5 : fw, fh - 1);\n"
	"\t\t\tif (j === hover) {\n"
	"\t\t\t\tctx.strokeStyle = 'black';\n"
	"\t\t\t\tctx.lineWidth = 1;\n"
	"\t\t\t\tctx.strokeRect(x + 0.5, y + 0.5, Math.max(fw - 1.5, 0), fh - 2);\n"
	"\t\t\t}\n"
	"\t\t\tvar t = label(names[nm], fw);\n"
	"\t\t\tif (t !== null) {\n"
	"\t\t\t\tctx.fillStyle = 'black';\n"
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
	"}\n"
	"\n"
	"/* The frame under a point of the canvas (CSS pixels), or -1. */\n"
	"function frameAt(px, py) {\n"
	"\tvar gy = py + scrollTop(), dep;\n"
	"\tdep = inverted ? Math.floor((gy - ypad) / fh) : Math.floor((graphH - ypad - gy) / fh);\n"
	"\tif (dep < 0 || dep >= nlev || px < xpad || px > cw - xpad)\n"
	"\t\treturn -1;\n"
	"\tvar x = viewX0() + (px - xpad) / scale();\n"
	"\tvar j = firstAt(dep, x);\n"
	"\tif (j < lev[dep + 1] && start[j] <= x && width[j] * scale() >= 0.5)\n"
	"\t\treturn j;\n"
	"\treturn -1;\n"
	"}\n"
	"\n"
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
	"var svgFh = fh >= 2 ? fh : 16, svgTop = font * 3 + (hasSubtitle ? font * 2 : 0);\n"
	"var svgBottom = svgTop + nlev * svgFh - svgFh + 1;\n"
	"var svgWpt = total > 0 ? (svgW - 2 * xpad) / total : 0;\n"
	"function svgX(j) {\n"
	"\treturn fmtFixed(Math.floor((xpad + start[j] * svgWpt) * 10000 + 0.5) / 10000, 4, true, false);\n"
	"}\n"
	"function svgY(j) {\n"
	"\tvar dep = depthOf[j];\n"
	"\treturn fmtFixed(inverted ? svgTop + dep * svgFh : svgBottom - dep * svgFh, 2, true, false);\n"
	"}\n"
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
	"\tvar p = getParams(), q = [];\n"
	"\tdelete p.x;\n"
	"\tdelete p.y;\n"
	"\tdelete p.s;\n"
	"\tif (zoom > 0) {\n"
	"\t\tp.x = svgX(zoom);\n"
	"\t\tp.y = svgY(zoom);\n"
	"\t}\n"
	"\tif (searchBox.value)\n"
	"\t\tp.s = searchBox.value;\n"
	"\tfor (var k in p)\n"
	"\t\tq.push(encodeURIComponent(k) + '=' + encodeURIComponent(p[k]));\n"
	"\tvar url = window.location.pathname + (q.length ? '?' + q.join('&') : '') +\n"
	"\t\twindow.location.hash;\n"
	"\ttry {\n"
	"\t\thistory.replaceState(null, '', url);\n"
	"\t} catch (err) {}\n"
	"}\n"
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
	"\n"
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
	"}\n"
	"\n"
	"/*\n"
	" * \"Matched\" is the SVG's: the share of the zoomed frame's weight (the\n"
	" * root's when not zoomed) that lies in matching frames, counting the\n"
	" * zoomed frame and its descendants only, a matching frame inside another\n"
	" * counted once. Frames nest, so sorting the matching frames by start\n"
	" * (wider first on ties) puts every frame after the frames containing\n"
	" * it, and one sweep counts the outermost ones.\n"
	" */\n"
	"function updateMatched() {\n"
	"\tvar x0 = start[zoom], x1 = x0 + width[zoom], eps = (x1 - x0) * 1e-9;\n"
	"\tvar sum = 0, hits = [], dep, j, end = -Infinity;\n"
	"\tif (!re)\n"
	"\t\treturn;\n"
	"\tfor (dep = depthOf[zoom]; dep < nlev; dep++)\n"
	"\t\tfor (j = firstAt(dep, x0 + eps); j < lev[dep + 1] && start[j] < x1 - eps; j++)\n"
	"\t\t\tif (matchedName[nidx[j]])\n"
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
	"}\n"
	"\n"
	"function setZoom(j) {\n"
	"\tzoom = j > 0 && j < n ? j : 0;\n"
	"\tunzoomBtn.disabled = zoom === 0;\n"
	"\tunzoomBtn.classList.toggle('hide', zoom === 0);\n"
	"\tif (matchedName)\n"
	"\t\tupdateMatched();\n"
	"}\n"
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
	"});\n"
	"unzoomBtn.addEventListener('click', function () {\n"
	"\tsetZoom(0);\n"
	"\tsaveState();\n"
	"\tredraw();\n"
	"});\n"
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
	"wrap.style.height = graphH + 'px';\n"
	"loadState();\n"
	"showDetails(-1);\n"
	"draw();\n"
	"window.tkFlame = {\n"
	"\tframes: n,\n"
	"\t/* The first frame named `name` drawn on the canvas, as its box in CSS\n"
	"\t * pixels relative to the canvas, or null: for scripts and tests. */\n"
	"\tfind: function (name) {\n"
	"\t\tvar sc = scale(), x0 = viewX0(), top = scrollTop();\n"
	"\t\tfor (var j = 0; j < n; j++) {\n"
	"\t\t\tif (names[nidx[j]] !== name)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\tvar x = xpad + (start[j] - x0) * sc, fw = width[j] * sc;\n"
	"\t\t\tvar l = Math.max(x, xpad), r = Math.min(x + fw, cw - xpad);\n"
	"\t\t\tif (r - l < 0.5)\n"
	"\t\t\t\tcontinue;\n"
	"\t\t\treturn { x: l, y: frameY(depthOf[j]) - top, width: r - l, height: fh - 1,\n"
	"\t\t\t\t depth: depthOf[j], weight: width[j] };\n"
	"\t\t}\n"
	"\t\treturn null;\n"
	"\t},\n"
	"\tzoomed: function () { return names[nidx[zoom]]; }\n"
	"};\n"
	"})();\n";

#define SCRIPT_SHA256 "SPeoOAGRILZoBWg0m2911h092eswF5/QmMnv17/9sL8="

struct page {
	struct tk_buf b;
	FILE *f;
	int failed;
};

static void page_flush(struct page *pg, int force)
{
	if (pg->b.len && (force || pg->b.len >= FLUSH_AT)) {
		if (fwrite(pg->b.buf, 1, pg->b.len, pg->f) != pg->b.len)
			pg->failed = 1;
		tk_buf_reset(&pg->b);
	}
}

/* A JSON string that is also inert inside an HTML <script> element. */
static void add_json_str(struct tk_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + len;

	tk_buf_addch(b, '"');
	while (p < e) {
		const unsigned char *run = p;
		unsigned c;
		size_t n;

		while (p < e && *p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\' &&
		       *p != '<' && *p != '>' && *p != '&')
			p++;
		if (p > run)
			tk_buf_add(b, run, p - run);
		if (p == e)
			break;
		c = *p;
		if (c < 0x80) {
			if (c == '"')
				tk_buf_adds(b, "\\\"");
			else if (c == '\\')
				tk_buf_adds(b, "\\\\");
			else
				tk_buf_addf(b, "\\u%04x", c);
			p++;
			continue;
		}
		n = tk_utf8_seqlen(p, e - p);
		if (!n) {
			tk_buf_adds(b, "\\ufffd");
			p++;
		} else if (n == 3 && c == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)) {
			tk_buf_adds(b, p[2] == 0xa8 ? "\\u2028" : "\\u2029");
			p += n;
		} else {
			tk_buf_add(b, p, n);
			p += n;
		}
	}
	tk_buf_addch(b, '"');
}

/* HTML text (element content or a quoted attribute value). */
static void add_html_text(struct tk_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);

	while (len) {
		size_t n = tk_utf8_seqlen(p, len);

		if (!n) {
			tk_buf_adds(b, "\xef\xbf\xbd");
			n = 1;
		} else if (*p == '&') {
			tk_buf_adds(b, "&amp;");
		} else if (*p == '<') {
			tk_buf_adds(b, "&lt;");
		} else if (*p == '>') {
			tk_buf_adds(b, "&gt;");
		} else if (*p == '"') {
			tk_buf_adds(b, "&quot;");
		} else if (*p == '\'') {
			tk_buf_adds(b, "&#39;");
		} else if (*p < 0x20 || *p == 0x7f) {
			tk_buf_addch(b, ' ');
		} else {
			tk_buf_add(b, p, n);
		}
		p += n;
		len -= n;
	}
}

/*
 * A number as JSON: integers (the common case: sample counts) without
 * printf, others with the fewest of 15 or 17 significant digits that
 * read back exactly. JSON has no NaN or infinity: those become 0.
 */
static void add_num(struct tk_buf *b, double v)
{
	char tmp[40];
	int len;

	if (!isfinite(v) || v == 0) {
		tk_buf_addch(b, '0');
		return;
	}
	if (v == floor(v) && fabs(v) < 9e15) {
		uint64_t u = (uint64_t)fabs(v);
		size_t i = sizeof(tmp);

		do {
			tmp[--i] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (v < 0)
			tmp[--i] = '-';
		tk_buf_add(b, tmp + i, sizeof(tmp) - i);
		return;
	}
	len = snprintf(tmp, sizeof(tmp), "%.15g", v);
	if (strtod(tmp, NULL) != v)
		len = snprintf(tmp, sizeof(tmp), "%.17g", v);
	tk_buf_add(b, tmp, (size_t)len);
}

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

/* A name as shown (like the SVG): without the _[k] _[j] _[i] _[w]
 * annotations flamegraph.pl strips; they still pick the colour. */
static size_t shown_len(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    name[len - 2] && strchr("kwij", name[len - 2]))
		return len - 4;
	return len;
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

static void add_data(struct page *pg, const struct tk_profile *p, const struct tk_flame *f,
		     const struct tk_render_opts *o, const char *title)
{
	struct tk_buf *b = &pg->b;
	uint32_t *order, *levels, *name_map, nr_names = 1;
	const char *palette = o->palette ? o->palette : "hot";
	size_t nl, i, lv, at;
	double end;

	order = order_frames(f, &levels, &nl);
	/* name_map[name id] = 1 + index in the page's names table; the root's
	 * "all" is index 0. */
	name_map = tk_xcalloc(p->nr_names ? p->nr_names : 1, sizeof(*name_map));

	tk_buf_adds(b, "{\"version\":1,\"title\":");
	add_json_str(b, title, strlen(title));
	tk_buf_adds(b, ",\"subtitle\":");
	if (o->subtitle && *o->subtitle)
		add_json_str(b, o->subtitle, strlen(o->subtitle));
	else
		tk_buf_adds(b, "null");
	tk_buf_adds(b, ",\"unit\":");
	add_json_str(b, tk_unit_name(p->unit), strlen(tk_unit_name(p->unit)));
	tk_buf_adds(b, ",\"count_name\":");
	if (o->count_name)
		add_json_str(b, o->count_name, strlen(o->count_name));
	else
		tk_buf_adds(b, "null");
	tk_buf_adds(b, ",\"total\":");
	add_num(b, f->total);
	tk_buf_addf(b, ",\"inverted\":%s,\"frame_height\":", o->inverted ? "true" : "false");
	add_num(b, o->frame_height >= 2 ? o->frame_height : 16);
	tk_buf_adds(b, ",\"font_size\":");
	add_num(b, o->font_size > 0 ? o->font_size : 12);
	tk_buf_adds(b, ",\"image_width\":");
	add_num(b, o->image_width > 2 * TK_FLAME_XPAD ? o->image_width : 1200);

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
			len = shown_len(s, p->name_lens[id]);
			tk_buf_addch(b, ',');
			add_json_str(b, s, len);
			page_flush(pg, 0);
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
			if (id)
				add_num(b, name_color(palette, p->names[nm], p->name_lens[nm]));
			else
				add_num(b, name_color(palette, "", 0));
		}
		free(by_index);
	}
	tk_buf_adds(b, "],\n\"levels\":[");
	for (lv = 0; lv < nl; lv++) {
		if (lv)
			tk_buf_addch(b, ',');
		add_num(b, levels[lv]);
	}
	tk_buf_adds(b, "],\n\"gap\":[");
	for (lv = 0, at = 0; lv < nl; lv++) {
		size_t k;

		end = 0;
		for (k = 0; k < levels[lv]; k++, at++) {
			const struct tk_flame_frame *fr = &f->frames[order[at]];

			if (at)
				tk_buf_addch(b, ',');
			add_num(b, fr->start - end);
			end = fr->start + fr->width;
			page_flush(pg, 0);
		}
	}
	tk_buf_adds(b, "],\n\"width\":[");
	for (i = 0; i < f->nr; i++) {
		if (i)
			tk_buf_addch(b, ',');
		add_num(b, f->frames[order[i]].width);
		page_flush(pg, 0);
	}
	tk_buf_adds(b, "],\n\"name\":[");
	for (i = 0; i < f->nr; i++) {
		uint32_t node = f->frames[order[i]].node;

		if (i)
			tk_buf_addch(b, ',');
		add_num(b, node == TK_PROFILE_ROOT ? 0 : name_map[p->nodes[node].name]);
		page_flush(pg, 0);
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
	struct page pg;
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
	memset(&pg, 0, sizeof(pg));
	tk_buf_init(&pg.b, FLUSH_AT + 4096);
	pg.f = out;

	tk_buf_adds(&pg.b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "script-src 'sha256-" SCRIPT_SHA256 "'; style-src 'unsafe-inline'; "
		    "img-src data:; base-uri 'none'; form-action 'none'\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		    "<meta name=\"generator\" content=\"tracker\">\n<title>");
	add_html_text(&pg.b, title);
	tk_buf_adds(&pg.b, "</title>\n");
	tk_buf_adds(&pg.b, page_style);
	tk_buf_adds(&pg.b, "</head>\n<body>\n<header id=\"head\">\n<h1 id=\"title\">");
	add_html_text(&pg.b, title);
	tk_buf_adds(&pg.b, "</h1>\n");
	if (o->subtitle && *o->subtitle) {
		tk_buf_adds(&pg.b, "<p id=\"subtitle\">");
		add_html_text(&pg.b, o->subtitle);
		tk_buf_adds(&pg.b, "</p>\n");
	}
	tk_buf_adds(&pg.b,
		    "<div class=\"bar\"><button id=\"unzoom\" type=\"button\" class=\"hide\" disabled>"
		    "Reset Zoom</button><div id=\"details\">&nbsp;</div>"
		    "<span id=\"matched\" hidden></span>"
		    "<label title=\"Ignore case when searching\"><input id=\"ignorecase\" "
		    "type=\"checkbox\"> ic</label>"
		    "<input id=\"search\" type=\"search\" placeholder=\"Search (regex)\" "
		    "title=\"Search frame names with a JavaScript regular expression (Ctrl-F)\" "
		    "autocomplete=\"off\" spellcheck=\"false\"></div>\n</header>\n"
		    "<div id=\"wrap\"><canvas id=\"flame\"></canvas></div>\n"
		    "<noscript><p>This flame graph needs JavaScript.</p></noscript>\n"
		    "<script type=\"application/json\" id=\"tk-data\">");
	add_data(&pg, p, f, o, title);
	tk_buf_adds(&pg.b, "</script>\n<script>");
	tk_buf_adds(&pg.b, page_script);
	tk_buf_adds(&pg.b, "</script>\n</body>\n</html>\n");
	page_flush(&pg, 1);
	tk_buf_release(&pg.b);
	if (pg.failed || fflush(out) || ferror(out))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the html page");
	return 0;
}

const struct tk_renderer tk_render_html = {
	TK_RENDERER_VERSION,
	"html",
	".html",
	render_html,
};
