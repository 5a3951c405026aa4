#ifndef TK_DIFFRENDER_H
#define TK_DIFFRENDER_H
/*
 * Renderers of differential profiles (core/analyze/diff.h), picked by the output
 * file's extension (tk_diff_renderer_for_path): .html, .svg, .png,
 * .folded (three columns "stack base new", flamegraph.pl's differential
 * input; with TK_DIFF_NORM_NONE exactly the union of the two inputs),
 * .pb.gz (NEW, and the baseline beside it, for pprof -diff_base),
 * .txt (the top self increases and decreases).
 *
 * Colours: red = increased, blue = decreased, intensity from
 * tk_diff_classify; frames absent from the baseline in `new_color`
 * (default black), noise neutral (grey). Names are untrusted: escape them
 * for the output format, as the flame renderers do.
 */
#include <stdio.h>

#include "core/analyze/diff.h"
#include "core/base/err.h"
#include "core/draw/render.h"

struct tk_diff_render_opts {
	struct tk_render_opts render; /* title, subtitle, widths, top_n ... */
	enum tk_diff_mode mode;       /* colour by self (default) or cumulative */
	int width_by_base;            /* widths from the baseline, not new */
	const char *base_label;       /* "staging #412 3f2a9c1e", for legends */
	const char *new_label;
	const char *new_color;        /* frames absent from the baseline, "#000000" */
	const char *quantity;         /* what the totals line calls the weights,
					 "allocations"; NULL: from the unit
					 (tk_diff_quantity, core/analyze/diffsum.h) */
};

void tk_diff_render_opts_init(struct tk_diff_render_opts *o);

/*
 * Diffs are laid out before they are rendered, as flame graphs are: a
 * renderer says which layout it draws, tk_diff_render makes it, and the
 * renderer only draws.
 *   TK_DIFF_LAYOUT_NONE    text outputs (.folded, .txt): no layout
 *   TK_DIFF_LAYOUT_WIDTH   the union tree with widths from the baseline
 *                          or from new (o->width_by_base)
 *   TK_DIFF_LAYOUT_EITHER  every frame that is wide enough in either
 *                          profile, laid out by the larger of its two
 *                          shares: a page that switches between the two
 *                          widths loses only what neither could draw
 * Either layout is at the image width of tk_diff_image_width(o).
 */
enum tk_diff_layout_kind {
	TK_DIFF_LAYOUT_NONE,
	TK_DIFF_LAYOUT_WIDTH,
	TK_DIFF_LAYOUT_EITHER,
};

/* The image width the layouts use: o's, else the flame default (1200). */
double tk_diff_image_width(const struct tk_diff_render_opts *o);

/* Lays d out for a kind of layout (not NONE); release out with
 * tk_flame_release. The EITHER layout always has the root. */
int tk_diff_layout(const struct tk_diff *d, const struct tk_diff_render_opts *o,
		   enum tk_diff_layout_kind kind, struct tk_flame *out, struct tk_err *err);

#define TK_DIFF_RENDERER_VERSION 2

struct tk_diff_renderer {
	int version; /* TK_DIFF_RENDERER_VERSION */
	const char *name;
	const char *ext;
	enum tk_diff_layout_kind layout; /* what render's fl is */
	/* fl: the layout asked for, NULL for TK_DIFF_LAYOUT_NONE */
	int (*render)(const struct tk_diff *d, const struct tk_flame *fl,
		      const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		      FILE *out, struct tk_err *err);
	/* Optional (NULL: none): a second file, the baseline, that
	 * tk_diff_render_path writes beside the output (tk_diff_base_path),
	 * for formats that compare two files (pprof -diff_base). */
	int (*render_base)(const struct tk_diff *d, FILE *out, struct tk_err *err);
};

/* Where the baseline of a renderer with render_base goes: path with
 * ".base" before ext ("d.pb.gz" -> "d.base.pb.gz"). */
void tk_diff_base_path(const char *path, const char *ext, struct tk_buf *out);

/* Lays d out as r asks, and renders it with r to out. */
int tk_diff_render(const struct tk_diff_renderer *r, const struct tk_diff *d,
		   const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		   FILE *out, struct tk_err *err);

/* The lookups of the diff renderers' table (plugins/diffrender/renderers.c): the renderer for path's
 * extension (case-insensitive), the i-th renderer; NULL when none. */
const struct tk_diff_renderer *tk_diff_renderer_for_path(const char *path);

/*
 * d rendered by the renderer path's extension picks, written to path as
 * every output is (tk_write_file_stream, core/base/fsutil.h; flags its
 * TK_WRITE_* flags), the baseline first when the renderer writes one. TK_EUSAGE for an extension no renderer has; the
 * renderer's and the writer's errors otherwise.
 */
int tk_diff_render_path(const struct tk_diff *d, const struct tk_diff_opts *dopts,
			const struct tk_diff_render_opts *o, const char *path, unsigned flags,
			struct tk_err *err);
const struct tk_diff_renderer *tk_diff_renderer_at(size_t i);

#endif
