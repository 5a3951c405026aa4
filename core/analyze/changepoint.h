#ifndef TK_CHANGEPOINT_H
#define TK_CHANGEPOINT_H
/*
 * Change points of a series of measurements (oldest first): the places
 * where its level shifts and stays shifted.
 *
 * Method: seeded binary segmentation with a robust cost on log values, so
 * one slow run is not a change and a 10% shift means the same on a 1 s
 * key as on a 1 h key. The cost of a run is its absolute deviation from
 * its segment's median (Laplace), capped at 2.5 sigma, so outliers and a
 * machine whose runs are sometimes 1.3x slower cost the same in every
 * segment and pay for no split. The noise level sigma is estimated
 * robustly from successive differences (1.4826 x the median absolute
 * successive difference / sqrt 2), which a level shift barely moves.
 *
 * The best split of each seeded interval (layers of half-overlapping
 * intervals, n / 2^j long, down to 2 x o->min_segment points) that lowers
 * its cost, in units of sigma, by more than the penalty (o->penalty x
 * log n) is a candidate; candidates are taken largest gain first, each
 * ruling out the intervals it lies inside. Short intervals see a level
 * that a split of the whole series does not: a regression reverted 25
 * builds later moves the median of neither half. Every split kept must
 * then lower the cost between its neighbours by more than the penalty,
 * or the weakest is dropped and the rest looked at again; each is moved
 * to its best place between its neighbours, and no two are closer than
 * o->min_segment points. When the run costs around the segments found
 * vary more than 1.5 times what normal noise gives (0.347 sigma^2; a
 * machine whose slow runs cluster by chance), the penalty is multiplied
 * by the square root of that ratio and the series is segmented again.
 * Values <= 0 make the whole series be taken as is rather than as logs.
 *
 * A series with no noise at all (sigma 0) takes sigma from the smallest
 * non-zero successive difference, or has no change point when it is
 * constant.
 *
 * Cost: O(n log^2 n): each layer of intervals is read forward from each
 * start and backward from each end (about 2n runs) through Fenwick trees
 * of log n steps; about 1.4 ms of CPU for 1000 runs. Memory: O(n log n)
 * doubles, the costs of those passes.
 */
#include <stddef.h>

#include "core/base/err.h"

struct tk_changepoint {
	size_t index;        /* first point of the new segment, in the series (oldest first) */
	double before, after; /* medians of the segments either side */
};

struct tk_changepoint_opts {
	size_t min_segment; /* points on each side; 0: 4 */
	double penalty;     /* per change, x log(n), in units of sigma; 0: 3 */
	double min_effect;  /* a change smaller than this relative shift
			       (0.02: 2%) is not reported; 0: 0.02, <0: none */
	size_t max_changes; /* 0: no limit; else at most that many, the
			       weakest dropped (each still pays between
			       its neighbours) */
};

/* The defaults above, filled in. */
struct tk_changepoint_opts tk_changepoint_opts_default(void);

/*
 * Finds the change points of x[0..n-1], oldest first. *out is a
 * malloc'd array of *nout entries in index order (NULL when none); the
 * caller frees it. Non-finite values are TK_EDATA. Fewer than
 * 2 x min_segment points have no change point.
 */
int tk_changepoints(const double *x, size_t n, const struct tk_changepoint_opts *o,
		    struct tk_changepoint **out, size_t *nout, struct tk_err *err);

/*
 * How many of the newest points of x[0..n-1] (oldest first) stand at a
 * level of their own, too few for tk_changepoints to pay for: the largest
 * k of at least min_points (and at most 16) whose points all lie on one side of the median
 * of the points before them, farther than `sigmas` times their robust
 * sigma (1.4826 MAD, on logs as above) and than min_effect (0.02: 2%),
 * and beyond every one of them, with at least 5 points before them. 0
 * when there is none. A key whose last 3 builds run 10% slower than its
 * quiet history is a new level there; one slow run, or the slow mode of
 * a key whose runs are sometimes slow, is not.
 */
size_t tk_changepoint_newest_level(const double *x, size_t n, size_t min_points,
				   double sigmas, double min_effect);

#endif
