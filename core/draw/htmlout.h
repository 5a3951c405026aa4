#ifndef TK_HTMLOUT_H
#define TK_HTMLOUT_H
/*
 * What the self-contained HTML pages share: the flame page
 * (plugins/render/html.c) and the diff page (plugins/diffrender/html.c).
 * A buffered writer, escaping of untrusted text for the page's JSON and
 * HTML, JSON numbers, the page's frame (the head with its
 * Content-Security-Policy, the header, the canvas, the data and script
 * elements) and the JavaScript both pages run.
 *
 * A page is written in this order:
 *
 *   tk_htmlout_init(&w, out);
 *   tk_htmlout_begin(&w, SCRIPT_SHA256, style, title, subtitle);
 *   ... the page's own header content, appended to w.b ...
 *   tk_htmlout_search_bar(&w);
 *   tk_htmlout_begin_data(&w);
 *   ... one JSON value, appended with tk_html_json_*, calling
 *       tk_htmlout_flush(&w) every element or so ...
 *   return tk_htmlout_end(&w, script, err);
 *
 * Nothing here prints, exits or keeps global state.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/base/buf.h"

struct tk_err;

/*
 * The writer: the page is built in b and written to f in chunks of about
 * 64 KiB, so a page of any size needs little memory. Callers append to b
 * directly (tk_buf_* or the functions below) and call tk_htmlout_flush
 * often enough that b stays small.
 *
 * Errors: a failed write sets `failed` and is otherwise silent (later
 * chunks are still written); tk_htmlout_end reports it. The writer never
 * closes f.
 */
struct tk_htmlout {
	struct tk_buf b;
	FILE *f;
	int failed;
};

void tk_htmlout_init(struct tk_htmlout *w, FILE *f);

/* Writes b out when it holds a chunk's worth. */
void tk_htmlout_flush(struct tk_htmlout *w);

/*
 * Starts the page: doctype, <head> with a Content-Security-Policy that
 * allows no network access, inline styles, and only the script whose
 * base64 SHA-256 is script_sha256 (the hash of the concatenated pieces
 * later passed to tk_htmlout_end; see the SCRIPT_SHA256 notes in the two
 * plugins), the <title>, `style` (a trusted <style> element, written as
 * is), then <body>, <header id="head"> with <h1 id="title"> and, when
 * subtitle is non-empty, <p id="subtitle">. title and subtitle are
 * untrusted and escaped by the xml rule (core/base/escape.h; quotes
 * too, TAB, LF and CR as a space). The header is left open.
 */
void tk_htmlout_begin(struct tk_htmlout *w, const char *script_sha256, const char *style,
		      const char *title, const char *subtitle);

/* The bar both pages have in their header: #unzoom (Reset Zoom),
 * #details, #matched, the #ignorecase box and the #search field. */
void tk_htmlout_search_bar(struct tk_htmlout *w);

/* Closes the header, writes the #wrap element with the #flame canvas
 * and a <noscript> note, and opens <script type="application/json"
 * id="tk-data">, which the caller fills with one JSON value. */
void tk_htmlout_begin_data(struct tk_htmlout *w);

/*
 * Closes the data element, writes one <script> element holding the
 * concatenation of script[] (NULL-terminated; the bytes its hash must
 * cover), ends the page, writes out the rest and flushes f, and releases
 * the writer's buffer. Returns 0, or TK_EUNAVAIL ("cannot write the html
 * page") when any write failed, fflush failed, or f has its error flag.
 */
int tk_htmlout_end(struct tk_htmlout *w, const char *const *script, struct tk_err *err);

/*
 * Names in the pages' data are untrusted: any bytes, NUL included (their
 * HTML text goes through the xml rule of core/base/escape.h).
 *
 * tk_html_json_str appends s[0..len) as a JSON string literal, quotes
 * included, that is valid JSON, valid UTF-8, a valid JavaScript string
 * literal, and inert inside any <script> element, including
 * <script type="application/json">: '<', '>' and '&' are written as
 * \u003c, \u003e and \u0026, so neither "</script" nor "<!--" can
 * appear; '"' and '\' are backslash-escaped; U+2028 and U+2029 as
 * \u2028 and \u2029. The characters the one rule of core/base/escape.h
 * hides (controls, bidirectional controls, U+FFFE, U+FFFF, bytes of no
 * valid UTF-8 sequence) become the text "\xNN" per byte (in JSON
 * "\\xNN"), so a page shows a name as the terminal and the SVG do. Other
 * characters are copied. tk_html_json_cstr does the same for a C string
 * and writes null for NULL.
 *
 * tk_html_json_data is for JSON that is data, not a page (a speedscope
 * file another tool reads back): the same, but controls as \u00XX and
 * the others as they are, so they read back as the same characters, and
 * each byte of no valid UTF-8 sequence as \ufffd.
 */
void tk_html_json_str(struct tk_buf *b, const char *s, size_t len);
void tk_html_json_data(struct tk_buf *b, const char *s, size_t len);
void tk_html_json_cstr(struct tk_buf *b, const char *s);

/*
 * JSON numbers. tk_html_json_int writes v in decimal. tk_html_json_num
 * writes integers below 9e15 in magnitude as integers (without printf:
 * sample counts are most of a page) and other values with the fewest of
 * 15 or 17 significant digits that read back exactly; NaN, infinities
 * (not JSON) and -0 as 0.
 */
void tk_html_json_int(struct tk_buf *b, int64_t v);
void tk_html_json_num(struct tk_buf *b, double v);

/*
 * The JavaScript both pages run, in pieces; each page's script is its
 * own text between them (a NULL-terminated array for tk_htmlout_end), so
 * a change here changes both pages' scripts and both SCRIPT_SHA256
 * values (tests/t3002-flame-browser.sh and tests/t4002-diff-browser.sh
 * print the right ones).
 *
 * The pieces run inside the page's one function and share its names.
 * The page defines, before the pieces that use them: the data D (parsed
 * by tk_html_js_begin) and what it derives from it: names (the names
 * table), n frames in nlev levels, frame j of level d at lev[d] <= j <
 * lev[d + 1] sorted by start, start[], width[], depthOf[], nidx[] (name
 * index), fh, font, xpad, ypad, unit, countName; and its state: ctx (the
 * canvas's 2d context), searchBox, matchedEl, unzoomBtn, icBox, zoom,
 * hover, cw, ch, graphH, queued, charW, re, matchedName, and the
 * functions frameY(dep), showDetails(j), setZoom(j), saveState(),
 * loadState(). Some pieces open a function or a block that the page's
 * next text continues or closes; each says so.
 */
/* "(function () {", 'use strict' and D, the parsed #tk-data. */
extern const char tk_html_js_begin[];
/* Drops D; $(id), canvas, wrap, details, head. */
extern const char tk_html_js_elements[];
/* viewX0(), viewW(), scale(): the zoomed frame's span on the canvas. */
extern const char tk_html_js_view[];
/* scrollTop(): the graph's rows above the canvas (it sticks under the
 * header, showing the rows scrolled to). */
extern const char tk_html_js_scroll_top[];
/* fmtFixed(v, dec, trim, commas): v >= 0 rounded half up to dec
 * decimals, as the SVG renderers write numbers. */
extern const char tk_html_js_fmt_fixed[];
/* Opens fmtWeight(v) with its nanoseconds and bytes cases; the page
 * writes the other units and the closing brace. */
extern const char tk_html_js_fmt_weight_begin[];
/* firstAt(dep, x): the first frame of level dep whose right edge is
 * past x (binary search). */
extern const char tk_html_js_first_at[];
/* label(name, w): the text that fits w pixels ("ab.." cut), or null. */
extern const char tk_html_js_label[];
/* Opens draw(): sizes the canvas, sets the font and charW, and defines
 * top, x0, vw and sc; the page defines zd, lo and hi (the zoomed depth
 * and the span drawn). */
extern const char tk_html_js_draw_begin[];
/* Loops over the visible frames j at depth dep, with their box x, y, fw
 * clipped to the margins; the page then sets nm (the name index),
 * ctx.globalAlpha and ctx.fillStyle. */
extern const char tk_html_js_draw_visible[];
/* Fills the box, calls the page's decorate(j, x, y, fw) unless it is
 * null (the diff page outlines frame categories with it), outlines the
 * hovered frame, and opens "if (t !== null)" for label t; the page sets
 * the text's ctx.fillStyle. */
extern const char tk_html_js_draw_box[];
/* Writes the label, ends draw(); redraw() queues a draw. */
extern const char tk_html_js_draw_end[];
/* The rest of frameAt(px, py) once the page has computed dep (the level
 * under py): the frame under the point, or -1. */
extern const char tk_html_js_frame_at_end[];
/* applySearch(term): compiles the regex (the #search box turns red when
 * it is invalid), marks matchedName[] and calls updateMatched(). */
extern const char tk_html_js_apply_search[];
/* Opens updateMatched() ("Matched: x%", the share of the zoomed frame's
 * width in the outermost matching frames) and its loop over the frames
 * j inside the zoomed one; the page writes the condition selecting a
 * hit, tk_html_js_matched_end the rest. */
extern const char tk_html_js_matched_begin[];
extern const char tk_html_js_matched_end[];
/* The rest of setZoom(j) once the page has set zoom: the Reset Zoom
 * button, and "Matched" for the new zoom. */
extern const char tk_html_js_set_zoom_end[];
/* getParams() (the URL's query) and the start of saveState(), with p
 * the parameters and q the query; the page sets its parameters in p,
 * tk_html_js_state_end adds s (the search) and replaces the URL. */
extern const char tk_html_js_state_begin[];
extern const char tk_html_js_state_end[];
/* Hover, leave and click (zoom) on the canvas. */
extern const char tk_html_js_canvas_events[];
/* The ic box, typing in #search, Ctrl-F and Escape, redraws on resize
 * and scroll, and the height of #wrap. */
extern const char tk_html_js_search_events[];
/* Opens the find(name) member of the page's object for scripts and
 * tests, up to l and r, the visible span of a frame named name. */
extern const char tk_html_js_find_begin[];

#endif
