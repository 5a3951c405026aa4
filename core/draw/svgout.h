#ifndef TK_SVGOUT_H
#define TK_SVGOUT_H
/*
 * What the two interactive SVGs share: plugins/render/svg.c (the flame
 * graph) and plugins/diffrender/svg.c (the differential one) draw the same
 * page, flamegraph.pl's picture and behaviour (hover details, click to
 * zoom with the ancestors kept greyed, Ctrl-F regex search with
 * "Matched: x%", zoom and search kept in the URL as ?x=&y=&s=), and differ
 * in the colours, the <defs>, the headings and each frame's details.
 *
 * Writer (tk_svgout_*). Everything goes into one large buffer written with
 * fwrite in big chunks: a write that does not fit flushes the buffer
 * first, and a frame loop calls tk_svgout_flush once len passes
 * TK_SVGOUT_FLUSH_AT. The buffer grows only for a single write larger
 * than it (a name of megabytes). Allocation failure aborts, as in tk_buf.
 * A failed fwrite sets `failed`: from then on nothing more reaches the
 * FILE (buffered output is dropped), the calls still return normally, and
 * tk_svgout_finish reports the failure. Nothing here prints or exits.
 *
 * Text (tk_svgout_text): frame names are untrusted, so they only ever
 * appear as XML character data (in <title> and <text>) written by
 * tk_svgout_text, by the xml rule of core/base/escape.h (quotes as they
 * are): any byte string comes out well-formed XML, with & < > escaped
 * and "\xNN" for each byte of invalid UTF-8, of the controls and of the
 * characters XML forbids, as a terminal shows them. Names never reach an
 * attribute or the
 * <script>: the script holds only our own code and numbers and reads the
 * names back from the DOM.
 *
 * The page, in the order a renderer writes it:
 *
 *     tk_svg_open        <?xml ...?><svg ...>, the comment, <defs> with the
 *                        "background" gradient; <defs> is left open
 *     (the plugin)       more gradients or patterns, if any
 *     tk_svg_prologue    </defs>, the <style>, the <script>, the background
 *     (the plugin)       title and headings (tk_svg_text)
 *     tk_svg_controls    details, Reset Zoom, Search, ic, Matched, and
 *                        opens <g id="frames">
 *     frames             one per frame, depth first, root first:
 *                        tk_svg_frame_begin, (details), tk_svg_frame_rect,
 *                        (fill), tk_svg_frame_text, (attributes),
 *                        tk_svg_frame_end
 *     tk_svg_close       </g></svg>
 *
 * What the script expects from the page:
 *  - the <svg> element calls init(evt) on load (tk_svg_open);
 *  - a global C (tk_svg_prologue, from struct tk_svg_page): W, xpad, fh,
 *    fs, fw (TK_SVG_FONT_WIDTH), inv, top, bottom, searchcolor;
 *  - the ids "details", "search", "unzoom", "matched", "ignorecase" on
 *    <text> elements whose first child is a text node (tk_svg_controls),
 *    and the classes hide, parent and show styled (tk_svg_prologue);
 *  - "frames": a <g> whose children are the frames in depth-first order,
 *    the root first, so that a frame's subtree is the run of deeper frames
 *    after it and its ancestors are found walking back; each frame a
 *    <g class="func_g"> with three children: a <title> "name (details)"
 *    whose details never contain " (" (the name is read up to the last
 *    " ("), a <rect> with x, y, width and fill (the depth is computed from
 *    y, zoom and search rewrite x, width and fill), and the label <text>.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/base/err.h"
#include "core/model/profile.h"

#define TK_SVGOUT_FLUSH_AT (1u << 20)

/* Average glyph width relative to the font size, flamegraph.pl's; the
 * script's C.fw is the same number. */
#define TK_SVG_FONT_WIDTH 0.59

struct tk_svgout {
	char *buf;
	size_t len, alloc;
	FILE *f;
	int failed;     /* an fwrite failed: output is lost */
};

/* A buffer of 2 * TK_SVGOUT_FLUSH_AT for writing to f. */
void tk_svgout_init(struct tk_svgout *w, FILE *f);

/* Writes out what is buffered (unless a write failed before). */
void tk_svgout_flush(struct tk_svgout *w);

/*
 * Flushes, frees the buffer, and returns 0, or TK_EUNAVAIL with "cannot
 * write the svg: ..." in err when a write failed or f has its error flag
 * set. Does not fflush f.
 */
int tk_svgout_finish(struct tk_svgout *w, struct tk_err *err);

/* Flushes, and grows the buffer when n is more than it holds. */
void tk_svgout_make_room(struct tk_svgout *w, size_t n);

/* Makes room for n more bytes at buf + len. */
static inline void tk_svgout_reserve(struct tk_svgout *w, size_t n)
{
	if (w->len + n > w->alloc)
		tk_svgout_make_room(w, n);
}

static inline void tk_svgout_add(struct tk_svgout *w, const char *s, size_t n)
{
	tk_svgout_reserve(w, n);
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* Raw bytes, not escaped: our own markup only. */
static inline void tk_svgout_str(struct tk_svgout *w, const char *s)
{
	tk_svgout_add(w, s, strlen(s));
}

#define TK_SVGOUT_LIT(w, lit) tk_svgout_add((w), (lit), sizeof(lit) - 1)

/*
 * Formats v with dec (0..4) decimals into p, which holds at least
 * TK_SVG_NUM_MAX bytes, not NUL-terminated; returns the length. trim
 * drops trailing zeros of the fraction (and the point), commas groups
 * the integer part by thousands. |v| >= 1e15, infinities and NaN go
 * through snprintf ("%.*f"); one that does not fit is written as nothing.
 * Rounds half up, by hand: the frame loop formats several per frame.
 */
#define TK_SVG_NUM_MAX 48
size_t tk_svg_fmt_fixed(char *p, double v, int dec, int trim, int commas);

/* A number as attribute values and the script want it: trimmed. */
static inline void tk_svgout_num(struct tk_svgout *w, double v, int dec)
{
	tk_svgout_reserve(w, TK_SVG_NUM_MAX);
	w->len += tk_svg_fmt_fixed(w->buf + w->len, v, dec, 1, 0);
}

/* "rgb(r,g,b)", components 0..255. */
void tk_svgout_rgb(struct tk_svgout *w, int r, int g, int b);

/* s[0..len) as XML text (see the top of the file). */
void tk_svgout_text(struct tk_svgout *w, const char *s, size_t len);

/* A C string as XML text. */
static inline void tk_svgout_cstr(struct tk_svgout *w, const char *s)
{
	tk_svgout_text(w, s, strlen(s));
}

/*
 * s[0..len) as XML text in at most max_chars characters (max_chars >= 3),
 * as flamegraph.pl does: whole when it fits, else its first max_chars - 2
 * characters and "..". Characters count as tk_xml_chars counts them.
 */
void tk_svgout_text_fit(struct tk_svgout *w, const char *s, size_t len, size_t max_chars);

/*
 * A weight (v >= 0) with its unit: with no count_name, nanoseconds as
 * "12 ns", "3.50 ms" (scaled to ns, µs, ms, s) and bytes as
 * "300 bytes", "3.20 MiB" (up to TiB); otherwise "1,234 samples" or
 * "2.50 samples", the count being count_name (escaped) or the unit's name.
 */
void tk_svgout_weight(struct tk_svgout *w, double v, enum tk_unit unit,
		      const char *count_name);

/*
 * A frame's name as shown: "all" for the root; flamegraph.pl's
 * annotations _[k] _[j] _[i] _[w] left out. *len gets the name's length,
 * *shown the length shown.
 */
const char *tk_svg_frame_name(const struct tk_profile *p, uint32_t node, size_t *len,
			      size_t *shown);

/* x rounded to the 4 decimals the page writes, so that zooming deep into
 * a narrow frame stays exact and frames abut. */
static inline double tk_svg_round4(double x)
{
	return floor(x * 10000 + 0.5) / 10000;
}

/* The geometry the page is written with and the script is told. */
struct tk_svg_page {
	double width, height;   /* the image, pixels */
	double font_size;
	double frame_height;    /* a frame row, 1 px gap included */
	double xpad;            /* left and right margins */
	double top;             /* inverted: y of the root's row */
	double bottom;          /* otherwise: y of the root's row */
	double foot_y;          /* baseline of the details and Matched lines */
	int inverted;           /* the root at the top */
};

/* what: the comment's subject, "Flame graph"; bg1, bg2: the background
 * gradient's top and bottom colours, our own (not escaped). */
void tk_svg_open(struct tk_svgout *w, const struct tk_svg_page *pg, const char *what,
		 const char *bg1, const char *bg2);

/* css: the plugin's own rules, tab-indented lines (#subtitle's at least). */
void tk_svg_prologue(struct tk_svgout *w, const struct tk_svg_page *pg, const char *css);

/* <text id="id" x="x" y="y"> (id NULL: no id), left open. */
void tk_svg_text_open(struct tk_svgout *w, const char *id, double x, double y);

/* A whole <text> holding s as XML text, and a newline. */
void tk_svg_text(struct tk_svgout *w, const char *id, double x, double y, const char *s);

void tk_svg_controls(struct tk_svgout *w, const struct tk_svg_page *pg);

/* <g class="func_g"><title>name: the caller adds " (details)". */
void tk_svg_frame_begin(struct tk_svgout *w, const char *name, size_t shown);

/* </title><rect ...: the frame's box (x and width rounded by the caller
 * with tk_svg_round4), ending in fill=" for the caller's colour. */
void tk_svg_frame_rect(struct tk_svgout *w, const struct tk_svg_page *pg, double x, double y,
		       double width);

/* Closes the fill and the <rect>, and opens the label's <text> at the
 * frame's x and y, left open for more attributes (a fill). */
void tk_svg_frame_text(struct tk_svgout *w, const struct tk_svg_page *pg, double x, double y);

/* >label</text></g>: the name fitted to the frame's width (nothing when
 * fewer than 3 characters fit), as the script fits it when zooming. */
void tk_svg_frame_end(struct tk_svgout *w, const struct tk_svg_page *pg, const char *name,
		      size_t shown, double width);

/* </g></svg>: the end of the frames and of the page. */
void tk_svg_close(struct tk_svgout *w);

#endif
