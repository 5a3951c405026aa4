#ifndef TK_MEMSAMPLER_H
#define TK_MEMSAMPLER_H
/*
 * The memory timeline of a running job (core/model/timeline.h), kept
 * bounded whatever the job's length.
 *
 * tk_job_run (core/measure/job.h) hands every sample of the process
 * tree's RSS to tk_memsampler_add, which reads the cgroup's
 * memory.current beside it (where the job has a cgroup of its own, or
 * runs in one that held only tracker) and appends a point. Points are
 * taken every TK_MEMSAMPLER_FIRST_MS at first; when the timeline holds
 * TK_MEMSAMPLER_POINTS points, neighbours are merged in pairs (the one
 * with the larger RSS stays, so the peak is never lost; the cgroup
 * figure is the pair's larger) and the interval doubles. A run of any
 * length thus keeps between half and all of TK_MEMSAMPLER_POINTS points
 * spread evenly over it: a 3 s job one every 10 ms, an hour's one every
 * 2.6 s or so, a day's one every 82 s.
 *
 * tk_memsampler_add returns the interval the job should sample at next;
 * a sample that comes sooner than half of it after the point before is
 * merged into that point the same way. Nothing here prints; the struct
 * borrows tl and owns nothing else.
 */
#include <stdint.h>

#include "core/model/timeline.h"

#define TK_MEMSAMPLER_FIRST_MS 10
#define TK_MEMSAMPLER_POINTS 2048
/* the longest cgroup path, plus memory.current */
#define TK_MEMSAMPLER_PATH 4096

struct tk_memsampler {
	struct tk_timeline *tl; /* NULL: no timeline is kept */
	int64_t interval_ms;
	char current[TK_MEMSAMPLER_PATH]; /* DIR/memory.current; "" when none */
};

/* cgroup_dir: the cgroup v2 directory whose memory.current to read, NULL
 * or "" for none. Clears tl. */
void tk_memsampler_init(struct tk_memsampler *m, struct tk_timeline *tl, const char *cgroup_dir);
/* A sample t_s seconds after the job started; rss_bytes < 0 when the tree
 * could not be read (nothing is kept). Returns the next interval, s. */
double tk_memsampler_add(struct tk_memsampler *m, double t_s, int64_t rss_bytes);
/* The cgroup's memory.current in bytes, -1 when it cannot be read. */
int64_t tk_memsampler_cgroup(const struct tk_memsampler *m);

#endif
