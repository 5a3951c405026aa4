#ifndef TK_DIFFRENDER_H
#define TK_DIFFRENDER_H
/*
 * Renderers of differential profiles (core/diff.h), picked by the output
 * file's extension (tk_diff_renderer_for_path): .html, .svg, .png,
 * .folded (three columns "stack base new", flamegraph.pl's differential
 * input; with TK_DIFF_NORM_NONE exactly the union of the two inputs),
 * .txt (the top self increases and decreases).
 *
 * Colours: red = increased, blue = decreased, intensity from
 * tk_diff_classify; frames absent from the baseline in `new_color`
 * (default black), noise neutral (grey). Names are untrusted: escape them
 * for the output format, as the flame renderers do.
 */
#include <stdio.h>

#include "core/diff.h"
#include "core/err.h"
#include "core/render.h"

struct tk_diff_render_opts {
	struct tk_render_opts render; /* title, subtitle, widths, top_n ... */
	enum tk_diff_mode mode;       /* colour by self (default) or cumulative */
	int width_by_base;            /* widths from the baseline, not new */
	const char *base_label;       /* "staging #412 3f2a9c1e", for legends */
	const char *new_label;
	const char *new_color;        /* frames absent from the baseline, "#000000" */
	const char *quantity;         /* what the totals line calls the weights,
					 "allocations"; NULL: from the unit
					 (tk_diff_quantity, core/diffsum.h) */
};

void tk_diff_render_opts_init(struct tk_diff_render_opts *o);

/*
 * The layout the graphical diff renderers draw: the union tree with widths
 * from the baseline or from new (o->width_by_base) at o's image width.
 * Fills *image_width with the width used.
 */
int tk_diff_layout(const struct tk_diff *d, const struct tk_diff_render_opts *o,
		   struct tk_flame *out, double *image_width, struct tk_err *err);

#define TK_DIFF_RENDERER_VERSION 1

struct tk_diff_renderer {
	int version; /* TK_DIFF_RENDERER_VERSION */
	const char *name;
	const char *ext;
	int (*render)(const struct tk_diff *d, const struct tk_diff_opts *dopts,
		      const struct tk_diff_render_opts *o, FILE *out, struct tk_err *err);
};

/* The registry's lookups (plugins/registry.c): the renderer for path's
 * extension (case-insensitive), the i-th renderer; NULL when none. */
const struct tk_diff_renderer *tk_diff_renderer_for_path(const char *path);
const struct tk_diff_renderer *tk_diff_renderer_at(size_t i);

#endif
