#ifndef TK_PERFREC_H
#define TK_PERFREC_H
/*
 * CPU samples of a job, recorded from outside it with perf_event_open:
 * the wrapper side of `tracker run --profile cpu`.
 *
 * The recorder opens one software task-clock event per online CPU on the
 * job's main process, inherited by every process and thread it starts,
 * counting user space only (so it works at perf_event_paranoid=2 without
 * privileges), disabled until the process execs (enable_on_exec: the
 * wrapper's own code between fork and exec is never sampled). Each sample
 * carries the user-space call chain the kernel walks along the frame
 * pointers, the user registers and a copy of the top of the user stack
 * (8 KiB by default), and the period it stands for (task-clock
 * nanoseconds). At drain time the recorder unwinds each sample from its
 * registers through the stack copy with the modules' CFI (core/measure/unwind),
 * which finds the callers of functions built without frame pointers, and
 * splices in the kernel's chain where the copy ends. The
 * MMAP2, COMM and FORK records the kernel adds tell which process image
 * (pid, exec generation) a sample belongs to and how to name its
 * addresses later.
 *
 * Usage, with core/measure/job (tk_job_opts.before_exec and .tick):
 *
 *   before_exec(child):  tk_perfrec_open(&rec, child, hz, &err)
 *   tick():              tk_perfrec_drain(rec)
 *   after tk_job_run:    tk_perfrec_finish(rec, &set, &err); tk_perfrec_free(rec)
 *
 * The kernel writes into one ring buffer per CPU; when a ring fills up
 * between two drains, the samples that did not fit are counted as lost
 * (struct tk_rawset.cpu_lost). Draining every 100 ms keeps up with 999 Hz
 * on stacks of the deepest kind; the stack copies are sized so that two
 * drains' worth fit in a ring at the rate asked (docs/profiler.md has the
 * numbers).
 *
 * What finish appends to a tk_rawset, per process image that has samples:
 * pid, seq (0 for the first image the recorder saw of that pid, +1 per
 * exec), name (basename of the executable), its executable mappings
 * sorted by start (path NULL for anonymous memory) and one tk_rawstack per
 * distinct call chain with v[TK_RAW_CPU_NS] set, frames innermost first,
 * frames[0] the sampled instruction (flag TK_RAW_SLOT_LEAF_IP). It
 * appends with the tk_rawset helpers of core/measure/rawprof.h, so the set may be
 * filled further (tk_rawset_read_dir) and freed with tk_rawset_release.
 *
 * Not thread-safe; one recorder per job. Only the calling process may use
 * it (no fork in between).
 */
#include <sys/types.h>

#include "core/base/err.h"
#include "core/measure/rawprof.h"

struct tk_perfrec;

/*
 * Opens the events on child, a process that has not exec'd yet (it is
 * sampled from its exec on). hz: samples per second of CPU time (1 to
 * 100000). Returns 0; TK_EUSAGE for a bad hz; TK_EUNAVAIL when the system
 * does not allow it, the message saying why (perf_event_paranoid, a
 * seccomp filter, no perf events in the kernel, no such process, the
 * locked-memory limit); TK_EINTERNAL otherwise. On error *out is NULL.
 */
int tk_perfrec_open(struct tk_perfrec **out, pid_t child, unsigned hz, struct tk_err *err);

/*
 * tk_perfrec_open with options. stack_bytes: the user stack copied with
 * each sample for unwinding with CFI; 0 picks 8 KiB, or less when the rate
 * leaves no room for it in the rings (below 1 KiB: none); negative: none,
 * the kernel's frame-pointer chains only; a positive value goes to the
 * kernel as is (a multiple of 8 below 65528, else the kernel refuses it
 * and the recorder keeps frame-pointer chains, as on a kernel that
 * refuses stack copies: tk_perfrec_note says so).
 */
struct tk_perfrec_opts {
	unsigned hz;
	long stack_bytes;
};
int tk_perfrec_open_opts(struct tk_perfrec **out, pid_t child, const struct tk_perfrec_opts *o,
			 struct tk_err *err);

/*
 * Whether tk_perfrec_open can work here, asked before the job is started
 * (to choose another CPU sampler): opens the same event on the calling
 * process, without enabling it, maps its ring and closes it. Returns 0,
 * or TK_EUNAVAIL with the same reasons as tk_perfrec_open.
 */
int tk_perfrec_probe(struct tk_err *err);

/*
 * Moves what the kernel wrote into the recorder's tables and reads
 * /proc/<pid>/maps for processes whose code was mapped before their
 * events were enabled. Cheap when nothing arrived. Call it at least every
 * 100 ms while the job runs, and once when its main process has ended.
 */
void tk_perfrec_drain(struct tk_perfrec *r);

/*
 * The last drain; closes the events and appends the recorded images to
 * out (and adds to out->cpu_lost, out->truncated and out->unwinders).
 * Returns 0, or TK_EINTERNAL. The recorder is spent afterwards: free it.
 */
int tk_perfrec_finish(struct tk_perfrec *r, struct tk_rawset *out, struct tk_err *err);

/* Statistics, for tests and the benchmark. */
struct tk_perfrec_stats {
	unsigned ncpus;           /* events (and rings) opened */
	unsigned long long records;  /* records read from the rings */
	unsigned long long bytes;    /* their size */
	unsigned long long samples;  /* samples among them */
	unsigned long long lost;     /* samples the kernel could not write */
	unsigned long long proc_maps_reads; /* /proc/<pid>/maps fallbacks */
	size_t ring_bytes;        /* data area of each ring */
	/* unwinding with CFI */
	unsigned stack_bytes;     /* copied per sample; 0: frame-pointer chains only */
	int stack_refused;        /* errno the kernel refused stack copies with; 0 */
	unsigned long long complete;  /* samples unwound to the thread's first frame */
	unsigned long long spliced;   /* through the copy, then the kernel's chain */
	unsigned long long partial;   /* stopped early, nothing to splice */
	unsigned long long chain;     /* the kernel's chain alone (no module at all) */
	unsigned long long past_copy; /* samples whose walk reached the copy's end */
	unsigned long long no_cfi;    /* walks that stopped early in code without CFI */
	unsigned long long unwind_ns; /* CPU time spent unwinding */
	unsigned long long space_ns;  /* ... and opening modules for it */
	size_t stack_used_max;    /* most bytes of a copy a walk read */
	/* walks by the stack they needed: need[k] counts complete walks
	 * (also those cut at the frame limit) that read at most 512 << k
	 * bytes (k < 7), need[7] the others and those that wanted more than
	 * the copy */
	unsigned long long need[8];
};
void tk_perfrec_stats(const struct tk_perfrec *r, struct tk_perfrec_stats *st);

/*
 * One line for the user when the CPU call paths of this recording are
 * partial: more than 5% of the samples ended early (the stack copy was too
 * short or the code had no unwind tables, and the kernel's frame-pointer
 * chain did not continue them), or the kernel refused stack copies. It
 * says how many and what would fix it. Appends it to msg (no newline) and
 * returns 1; returns 0 and appends nothing when the paths are whole.
 */
struct tk_buf;
int tk_perfrec_note(const struct tk_perfrec *r, struct tk_buf *msg);

/* Closes whatever is still open and frees r. r may be NULL. */
void tk_perfrec_free(struct tk_perfrec *r);

#endif
