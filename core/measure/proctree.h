#ifndef TK_PROCTREE_H
#define TK_PROCTREE_H
/*
 * Sampling the resident memory of a process tree from /proc.
 *
 * The tree is every descendant of `root` (the wrapper), not root itself.
 * A sample walks the tree through /proc/PID/task/TID/children (one small
 * read per thread) and reads /proc/PID/statm for each process: statm's
 * resident field is cheap because the kernel keeps the counter, where
 * smaps_rollup walks every page table. When the kernel lacks the children
 * files (CONFIG_PROC_CHILDREN off), it falls back to reading the parent pid
 * of every process in /proc.
 *
 * Summed RSS counts a page shared by several processes (shared libraries,
 * copy-on-write pages after fork) once per process, the same convention as
 * `ps` and SLURM's jobacct_gather/linux. docs/measurements.md says so.
 *
 * Processes may come and go while a sample is taken; those that vanish are
 * skipped. Not thread-safe; one struct per sampler.
 */
#include <stdint.h>
#include <sys/types.h>

#include "core/base/buf.h"

struct tk_tree_sample {
	int64_t rss_bytes;          /* sum over the tree */
	int64_t max_proc_rss_bytes; /* the largest single process */
	int nprocs;
};

struct tk_proctree {
	pid_t root;
	long page_size;
	int use_children; /* 1: children files work; 0: scan /proc */
	pid_t *pids;
	size_t nr, alloc;
	struct tk_buf line;
};

void tk_proctree_init(struct tk_proctree *t, pid_t root);
void tk_proctree_release(struct tk_proctree *t);

/* Takes one sample. Returns 0, or TK_EUNAVAIL when /proc is unreadable. */
int tk_proctree_sample(struct tk_proctree *t, struct tk_tree_sample *out);

/* Lists the descendants of root into t->pids / t->nr (used for signalling). */
int tk_proctree_list(struct tk_proctree *t);

/* RSS of one process in bytes from /proc/PID/statm, -1 when gone. */
int64_t tk_proc_rss_bytes(pid_t pid, long page_size);

#endif
