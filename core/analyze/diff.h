#ifndef TK_DIFF_H
#define TK_DIFF_H
/*
 * Differential profiles: NEW against a BASE, node by node.
 *
 * The diff is the union of the two call trees matched by call path: a
 * frame is the same frame in both when the whole path from the root to it
 * is the same after name normalization (core/analyze/normalize.h) — never by
 * function name alone, so recursion and a function reached on several
 * paths keep their own values. The union is a struct tk_profile (names
 * interned, node 0 the root) whose own self and total weights are
 * new's (tk_diff_new_self, tk_diff_new_total); per node, parallel arrays
 * hold the baseline's.
 *
 * Normalization makes the two comparable before subtracting: every
 * weight w of a baseline becomes w * num / den (float, never truncated;
 * multiplied first, so an exact integer result stays exact):
 *   TK_DIFF_NORM_TOTAL     num / den = new total / that baseline's total,
 *                          so its total equals new's (1 when either total
 *                          is 0: there is nothing to scale);
 *   TK_DIFF_NORM_WALLTIME  new_walltime_s / base_walltime_s (the same
 *                          factor for every baseline: for N > 1 pass the
 *                          baselines' mean walltime);
 *   TK_DIFF_NORM_NONE      raw weights (the default: a diff compares what
 *                          was measured, bytes with bytes, nanoseconds
 *                          with nanoseconds).
 * With TK_DIFF_NORM_NONE the inputs must have one unit: a profile in
 * samples and one in nanoseconds cannot be subtracted (TK_EDATA, which
 * names --normalize total, the comparison of shapes).
 *
 * A baseline of N > 1 profiles is their mean per node (after each is
 * normalized), with the sample standard deviation of each node's total
 * and self across them (0 for N = 1), so that changes within the
 * baseline's own spread are noise. Sampled profiles are noisier where a
 * frame has few samples than one frame's N values can show, so N > 1
 * also gives a pooled dispersion: the median, over the frames with base
 * self weight, of spread^2 / base (for Poisson-like sampling noise the
 * variance of a weight w is dispersion * w), and at least the largest
 * dispersion the inputs know (struct tk_profile; a baseline's scaled by
 * its normalization factor). A node's noise sd is then
 *   sd = max(spread, sqrt(dispersion * max(base, new)))
 * and its noise band  spread_k * sd * sqrt(1 + 1/N)  (a new run against
 * the mean of N). A frame missing from a baseline counts
 * as 0 in it. A baseline whose total is 0 (an empty profile) carries no
 * information: it is left out of the mean when another baseline has
 * weight. When every baseline is empty the baseline is all zeros and
 * every frame of new is TK_DIFF_NEW; nothing is divided by zero.
 *
 * Top-level frames (the built-in profiler's processes) match by role
 * when match_roots is set (tracker diff --key sets it; files keep exact
 * matching, their top frames may be functions): if a baseline has exactly one
 * top-level frame that new lacks, and new exactly one that the baseline
 * lacks, the two are one frame, under new's name: the job's program
 * renamed between builds (climate-staging, climate-feature) is still
 * the job's program, and its children stay matched below it.
 *
 * Frame names are matched after tk_normalize_name with normalize_flags
 * (each distinct name normalized once); the union's names are the
 * normalized ones, and frames of one input that normalize to the same
 * path are added up.
 *
 * Classification of a node for a mode (self or cumulative), with
 * delta = new - base:
 *   TK_DIFF_NEW       absent from the baseline (base total 0, new > 0)
 *   TK_DIFF_VANISHED  absent from new (new total 0, base > 0)
 *                     (either one is NOISE instead when its weight w is
 *                     within the band of a frame of base w: a frame of
 *                     one or two samples that one run happened to catch)
 *   TK_DIFF_NOISE     |delta| < min_delta, or |delta| <= the noise band
 *                     above (so delta == 0 is always noise)
 *   TK_DIFF_UP / DOWN otherwise, with intensity
 *                     min(1, |delta| / (base * saturation)), saturation
 *                     default 1.0 = +-100% (1 when base is 0: a frame
 *                     gaining self weight from nothing).
 * NEW and VANISHED are decided on totals whatever the mode, and have
 * intensity 1; NOISE has 0. See docs/diff-model.md.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"
#include "core/analyze/normalize.h"
#include "core/model/profile.h"
#include "core/model/stacktx.h"

enum tk_diff_norm {
	TK_DIFF_NORM_TOTAL,
	TK_DIFF_NORM_WALLTIME,
	TK_DIFF_NORM_NONE,
};

enum tk_diff_mode {
	TK_DIFF_SELF,
	TK_DIFF_CUMULATIVE,
};

enum tk_diff_class {
	TK_DIFF_UP,
	TK_DIFF_DOWN,
	TK_DIFF_NOISE,
	TK_DIFF_NEW,
	TK_DIFF_VANISHED,
};

struct tk_diff_opts {
	enum tk_diff_norm norm;
	unsigned normalize_flags; /* TK_NORM_* of core/analyze/normalize.h, 0: none */
	double base_walltime_s;   /* TK_DIFF_NORM_WALLTIME */
	double new_walltime_s;
	double min_delta;         /* in weight units, default 0 */
	double spread_k;          /* noise band in standard deviations, default 3 */
	double saturation;        /* fractional change of full colour, default 1 */
	int match_roots;          /* default 0: see "Top-level frames" above */
	/* Stack transforms applied to every input before the union is made,
	 * by the loaders of core/analyze/diffstore.h (tk_diff_build itself
	 * takes its inputs as they are); NULL: none. Borrowed. */
	const struct tk_stacktx *tx;
	/* "What changed" (core/analyze/diffsum.h) lists only frames of this
	 * category (core/model/profile.h); TK_CAT_NONE: all frames. */
	enum tk_category category;
};

struct tk_diff {
	struct tk_profile tree;   /* the union; its self and total weights
				     are new's */
	double *base_self, *base_total; /* per node, after normalization */
	double *spread_self, *spread_total; /* baseline std deviation, 0 if N=1 */
	size_t nr_base;           /* baseline profiles aggregated (non-empty ones) */
	double base_scale;        /* the factor applied to the baseline (N > 1:
				     the mean of the baselines' factors) */
	double base_sum, new_sum; /* totals after normalization */
	double base_raw_sum;      /* the baselines' mean total before scaling */
	double dispersion;        /* pooled (or known) variance per unit of
				     weight; 0: N < 2 */
};

void tk_diff_opts_init(struct tk_diff_opts *o);

/* New's self and total weight of node n of the union. */
static inline double tk_diff_new_self(const struct tk_diff *d, uint32_t n)
{
	return d->tree.nodes[n].self;
}

static inline double tk_diff_new_total(const struct tk_diff *d, uint32_t n)
{
	return d->tree.nodes[n].total;
}

/*
 * Builds the diff of `new` against the mean of bases[0..nr_bases). The
 * inputs must be finished profiles and are not changed; o NULL means the
 * defaults. The time is linear in the inputs' nodes (plus one pass over
 * the union per baseline when N > 1). Returns 0, or TK_EUSAGE (no
 * baseline, or WALLTIME without two walltimes above 0), TK_EDATA (the
 * union passes TK_PROFILE_MAX_NODES), TK_EINTERNAL (an unfinished
 * input); out is then empty. Release out with tk_diff_release.
 */
int tk_diff_build(const struct tk_profile *const *bases, size_t nr_bases,
		  const struct tk_profile *new, const struct tk_diff_opts *o,
		  struct tk_diff *out, struct tk_err *err);
void tk_diff_release(struct tk_diff *d);

/*
 * tk_diff_build of profiles the caller gives up (bases[0..nr_bases) and
 * new), with the same result node for node: new's tree becomes the
 * union when names are not normalized (moved, not copied), and each
 * input is released as soon as it is matched, so that the diff of two
 * large profiles holds one input tree besides the union at its peak
 * instead of all of them and a copy. On return, whatever it returns,
 * every input is an empty profile of its unit (still to be released).
 */
int tk_diff_build_owned(struct tk_profile *bases, size_t nr_bases, struct tk_profile *new,
			const struct tk_diff_opts *o, struct tk_diff *out, struct tk_err *err);

/* The class of node n for mode, and its colour intensity in [0, 1]. */
enum tk_diff_class tk_diff_classify(const struct tk_diff *d, uint32_t n,
				    enum tk_diff_mode mode, const struct tk_diff_opts *o,
				    double *intensity);

/*
 * The noise band of a node whose baseline value is base with spread
 * spread (see the top): 0 when the diff has fewer than two baselines.
 */
double tk_diff_noise_band(const struct tk_diff *d, double base, double spread,
			  const struct tk_diff_opts *o);

#endif
