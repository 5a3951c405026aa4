#ifndef TK_FLAME_H
#define TK_FLAME_H
/*
 * Flame graph layout: turns a finished profile into the list of frames to
 * draw, with flamegraph.pl's geometry so that the same input gives the
 * same frames (name, depth, start, width in weight units).
 *
 * Frame 0 is the root ("all", depth 0, the whole width). Children are
 * placed left to right in the order flamegraph.pl's sorted input gives:
 * by name bytes, a name comparing as if followed by ';' (so "a" < "a!"
 * is decided the way sorting the folded lines decides it). A frame
 * narrower than `minwidth` pixels at `image_width` is dropped with its
 * subtree, like flamegraph.pl's --minwidth (default 0.1 px).
 *
 * `reverse` (merge by leaf, flamegraph.pl --reverse) is a different
 * tree: build it with tk_profile_reverse first. `inverted` (icicle) is a
 * drawing choice and lives in the renderer options.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"
#include "core/model/profile.h"

struct tk_flame_frame {
	uint32_t node;   /* profile node id; TK_PROFILE_ROOT for "all" */
	uint32_t depth;  /* 0 for the root */
	double start;    /* weight units from the left edge */
	double width;    /* weight units: the node's total */
};

/* Pixels left and right of the frames (flamegraph.pl's xpad): frames
 * span image_width - 2 * TK_FLAME_XPAD pixels, and minwidth is measured
 * on that scale. */
#define TK_FLAME_XPAD 10

struct tk_flame_opts {
	double image_width; /* pixels, default 1200 */
	double minwidth;    /* pixels, default 0.1 */
};

struct tk_flame {
	struct tk_flame_frame *frames;
	size_t nr, alloc;
	double total;
	uint32_t max_depth;
};

void tk_flame_opts_init(struct tk_flame_opts *o);
/* A size in pixels: a decimal number from 0 to 1e9; 0, or -1. */
int tk_flame_parse_size(const char *s, double *out);
/*
 * --minwidth: "0.5" pixels (into *px, *pct = -1) or "0.1%" of the
 * frames' width (0 to 100, into *pct; the caller turns it into pixels
 * once the width is known); 0, or -1 with neither changed.
 */
int tk_flame_parse_minwidth(const char *arg, double *px, double *pct);
int tk_flame_layout(const struct tk_profile *p, const struct tk_flame_opts *o,
		    struct tk_flame *out, struct tk_err *err);

/*
 * The same with each node's width taken from total[node] (and its own
 * weight from total minus its children's) instead of the profile's
 * totals: diff graphs lay the union tree out by the new or the baseline
 * weights. Nodes with a zero total are left out.
 */
int tk_flame_layout_weights(const struct tk_profile *p, const double *total,
			    const struct tk_flame_opts *o, struct tk_flame *out,
			    struct tk_err *err);
void tk_flame_release(struct tk_flame *f);

/* A new profile with every stack reversed (leaf first), in out. */
int tk_profile_reverse(const struct tk_profile *in, struct tk_profile *out,
		       struct tk_err *err);

#endif
