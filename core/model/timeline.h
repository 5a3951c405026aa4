#ifndef TK_TIMELINE_H
#define TK_TIMELINE_H
/*
 * A run's memory timeline: the process tree's RSS (and the memory of
 * the job's cgroup, where it has one) over the run, as tracker run's
 * sampler (core/measure/memsampler.h) kept it, and its compact text
 * form, which the record file and the stores hold.
 *
 * A point is a time in milliseconds since the job started and what was
 * resident then, in bytes; cgroup_bytes is -1 in every point of a
 * timeline without a cgroup (has_cgroup 0). Points are in time order.
 *
 * The compact form ("tl1") is one line of ASCII: the points separated by
 * spaces, each "T,R" or "T,R,C": T the milliseconds since the point
 * before (the first: since the start), R and C the KiB resident minus
 * those of the point before (signed). About 8 bytes a point: the
 * sampler's 2048 points are some 16 KiB.
 *
 * tk_timeline_decode takes untrusted text: at most TK_TIMELINE_TEXT_MAX
 * bytes and TK_TIMELINE_POINTS_MAX points, times that never go back,
 * sizes that stay within 0..2^50 KiB; anything else is TK_EDATA naming
 * the offset of the first bad byte.
 *
 * Ownership: the points are the struct's (heap); tk_timeline_release
 * frees them and leaves the struct as tk_timeline_init does.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"

#define TK_TIMELINE_POINTS_MAX 4096
#define TK_TIMELINE_TEXT_MAX (TK_TIMELINE_POINTS_MAX * 48)
#define TK_TIMELINE_ENCODING "tl1"

struct tk_timeline_point {
	int64_t t_ms;
	int64_t rss_bytes;
	int64_t cgroup_bytes; /* -1: none */
};

struct tk_timeline {
	struct tk_timeline_point *p;
	size_t nr, alloc;
	int64_t interval_ms; /* the sampling interval at the end; 0 unknown */
	int has_cgroup;
};

void tk_timeline_init(struct tk_timeline *tl);
void tk_timeline_release(struct tk_timeline *tl);
/* Appends a point (no check of its order: the caller's). */
void tk_timeline_add(struct tk_timeline *tl, int64_t t_ms, int64_t rss_bytes,
		     int64_t cgroup_bytes);
/* Replaces dst's points with copies of src's. */
void tk_timeline_copy(struct tk_timeline *dst, const struct tk_timeline *src);

/* The index of the point with the largest rss_bytes (the first of
 * equals); 0 when empty. */
size_t tk_timeline_peak(const struct tk_timeline *tl);

/* Appends the compact form of tl's points to out. */
void tk_timeline_encode(const struct tk_timeline *tl, struct tk_buf *out);
/* Replaces tl's points with those of text[0..len) (has_cgroup from
 * whether the points carry C); interval_ms is left as it was. */
int tk_timeline_decode(const char *text, size_t len, struct tk_timeline *tl,
		       struct tk_err *err);

#endif
