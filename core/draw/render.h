#ifndef TK_RENDER_H
#define TK_RENDER_H
/*
 * Renderers draw a laid-out flame graph (core/draw/flame.h) to a FILE *. One
 * is picked by the output file's extension (tk_renderer_for_path):
 * .svg, .html, .png, .pdf, .folded, .txt. Every renderer escapes frame
 * names for its output (XML, HTML, JSON inside <script>, ...): names are
 * untrusted.
 *
 * To add a renderer, see the checklist in plugins/README.md.
 */
#include <stdint.h>
#include <stdio.h>

#include "core/base/buf.h"

#include "core/base/err.h"
#include "core/draw/flame.h"
#include "core/model/profile.h"

struct tk_render_opts {
	const char *title;     /* NULL (default): the headline, what the graph
				  shows and its total (tk_render_headline) */
	const char *subtitle;  /* NULL: none */
	const char *kind;      /* what the weights measure: a stored profile's
				  kind ("cpu", "alloc", "alloc_count",
				  "heap_peak") or an import variant; NULL: the
				  unit says */
	const char *palette;   /* NULL (default): by kind, hot for time and
				  samples, mem for bytes and counts; or hot,
				  mem, io, java, js, perl, red, green, blue,
				  aqua, yellow, purple, orange */
	const char *count_name; /* "samples" (default from the unit) */
	int inverted;          /* icicle: root at the top */
	double image_width;    /* pixels, default 1200 */
	double frame_height;   /* pixels, default 16 */
	double font_size;      /* default 12 */
	size_t top_n;          /* .txt: rows, default 30 */
	int no_categories;     /* colour by the palette even where the profile
				  has frame categories (tk_render_categories) */
	enum tk_category category; /* .txt: only frames of this category
				      (TK_CAT_NONE: all) */
};

void tk_render_opts_init(struct tk_render_opts *o);

#define TK_RENDERER_VERSION 1

struct tk_renderer {
	int version; /* TK_RENDERER_VERSION */
	const char *name;
	const char *ext;  /* ".svg" */
	int (*render)(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *out, struct tk_err *err);
};

/*
 * What a profile's weights measure, for people: "CPU time" (nanoseconds),
 * "CPU" (samples), "Allocated bytes", "Peak heap", "Heap in use", "Bytes"
 * (of an unknown kind), "Allocations", "Profile" (samples of something
 * unknown), from the
 * unit and, when known, the kind (NULL: the unit alone says).
 */
const char *tk_render_kind_label(enum tk_unit unit, const char *kind);
/*
 * Appends the headline of a picture of weights in unit summing to total:
 * the kind and the total in human units, "CPU time — 341 ms",
 * "Allocated bytes — 203 MiB", "Allocations — 5,612 allocations",
 * "CPU — 1,234 samples" (count_name, when set, names what a sample
 * counts instead).
 */
void tk_render_headline(struct tk_buf *out, enum tk_unit unit, const char *kind,
			const char *count_name, double total);
/* The palette a kind is drawn in unless one is asked for: "mem" for bytes
 * and counts (as flamegraph.pl's --colors=mem), "hot" for time and samples. */
const char *tk_render_default_palette(enum tk_unit unit);
/*
 * o with its defaults resolved for p into *res: the title (the headline
 * when o->title is NULL; else o->title, the headline then leading the
 * subtitle so the kind and total are always shown) and the palette.
 * The strings live in buf, which the caller releases after rendering.
 */
void tk_render_opts_resolve(const struct tk_render_opts *o, const struct tk_profile *p,
			    struct tk_render_opts *res, struct tk_buf *buf);

/* The renderer for path's extension, or NULL. */
/* The lookups of the renderers' table (plugins/render/renderers.c): the renderer for path's
 * extension (case-insensitive), the i-th renderer; NULL when none. */
const struct tk_renderer *tk_renderer_for_path(const char *path);
const struct tk_renderer *tk_renderer_at(size_t i);

/*
 * A flame graph of p, whole: laid out with lo (tk_flame_layout) and
 * rendered by r to out with ro, its defaults resolved
 * (tk_render_opts_resolve). The layout lives for the call only.
 * Returns 0, or the layout's or the renderer's error.
 */
int tk_render_flame(const struct tk_renderer *r, const struct tk_profile *p,
		    const struct tk_flame_opts *lo, const struct tk_render_opts *ro,
		    FILE *out, struct tk_err *err);

/*
 * A colour for a frame name, flamegraph.pl-style: the same name gets the
 * same colour in every graph (hashed from the name), within the palette's
 * range. r, g, b in 0..255.
 */
void tk_palette_color(const char *palette, const char *name, int *r, int *g, int *b);
/* The background gradient a palette is drawn on, top and bottom colour
 * (0xRRGGBB), as flamegraph.pl's: yellow for hot, green for mem, blue
 * for io and wakeup, grey for the flat palettes. */
void tk_palette_background(const char *palette, uint32_t *top, uint32_t *bottom);
/* 1 when name is a palette: hot, mem, io, wakeup, java, js, perl, red,
 * green, blue, aqua, yellow, purple, orange. */
int tk_palette_known(const char *name);
/*
 * Frame categories in pictures (core/model/profile.h). Where a profile
 * has stored categories (a Julia profile: runtime dispatch, GC,
 * compilation, task) and o->no_categories is not set, the pictures show
 * them as ProfileView.jl and ProfileCanvas do: those frames in a colour
 * per category, every other frame in a pale blue-grey from its name (so
 * the categories stand out), and a legend naming the colours present.
 * Profiles without stored categories are drawn exactly as before.
 *
 * tk_render_categories: 1 when p's pictures colour by category.
 * tk_render_name_rgb: the colour of name id `name` of p (the root: 0),
 * its category's when `on`, else the palette's as tk_palette_color.
 * tk_render_legend: the coloured categories p has, in legend order, into
 * cats (TK_CAT_NR entries); returns how many.
 * tk_category_rgb: a category's colour.
 *
 * Diff pictures keep their change colours (red, blue, grey) and outline a
 * frame of a coloured category in the category's colour, with the same
 * legend.
 */
int tk_render_categories(const struct tk_profile *p, const struct tk_render_opts *o);
void tk_render_name_rgb(const struct tk_profile *p, uint32_t name, const struct tk_render_opts *o,
			int on, int *r, int *g, int *b);
size_t tk_render_legend(const struct tk_profile *p, enum tk_category *cats);
void tk_category_rgb(enum tk_category c, int *r, int *g, int *b);
/* 1 for the categories pictures colour (dispatch, GC, compilation, task). */
int tk_category_colored(enum tk_category c);

/* Appends the renderers' extensions, ", " between them, in table order. */
void tk_renderer_list_exts(struct tk_buf *out);

/*
 * How much of a frame name is shown: without a trailing "_[k]", "_[w]",
 * "_[i]" or "_[j]" annotation (kernel, waker, inlined, JIT), which picks
 * the colour but is not part of the name, as in flamegraph.pl.
 */
size_t tk_render_shown_len(const char *name, size_t len);

#endif
