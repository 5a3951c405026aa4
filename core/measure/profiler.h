#ifndef TK_PROFILER_H
#define TK_PROFILER_H
/*
 * The built-in profiler as `tracker run --profile` drives it:
 *
 * - allocations: the preload library (plugins/preload) goes into the
 *   job's LD_PRELOAD and writes raw tables into a private directory;
 * - CPU: perf_event_open on the job from the wrapper when the system
 *   allows it, else the preload library's per-thread CPU-time timers.
 *
 * After the job, the raw stacks are symbolized here, outside the job, and
 * become profiles of the kinds alloc, alloc_count, heap_peak and cpu.
 * Nothing here can change the job's exit status: every problem after the
 * job has started is a warning.
 *
 * Nothing here prints or exits: every warning goes, as one line of text
 * without "warning:", to warn(warn_data, msg) when warn is set. What the
 * module does outside its struct, and why:
 *
 * - tk_profiler_start builds the job's environment, a copy of this
 *   process's with LD_PRELOAD and TK_RAW_ENV_* set (tk_profiler_env, for
 *   struct tk_job_opts envp); this process's own is left alone.
 * - tk_profiler_finish unsets DEBUGINFOD_URLS in this process: libdw
 *   reads it when frames are named, and naming must never wait on the
 *   network. It is the one change to process state, made after the job.
 * - The preload library is looked for next to the running program
 *   (/proc/self/exe), in ../lib/tracker beside it, then in libdir (the
 *   install's, which the program was built with; NULL: not looked for).
 * - The raw files go into a private directory under $TMPDIR (else /tmp),
 *   removed by tk_profiler_release.
 *
 * Memory: tk_profiler_release frees the profiles, the perf recorder and
 * the preload path, and removes the raw files' directory; init again to
 * reuse the struct.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "core/model/profile.h"
#include "core/measure/rawprof.h"

#define TK_PROFILER_ALLOC 1u
#define TK_PROFILER_CPU 2u

enum tk_cpu_sampler { TK_CPU_SAMPLER_AUTO, TK_CPU_SAMPLER_PERF, TK_CPU_SAMPLER_TIMER };

struct tk_profiler {
	/* options */
	unsigned what;              /* TK_PROFILER_* */
	uint64_t sample_bytes;      /* mean sampling interval; 1 exact */
	unsigned cpu_hz;
	enum tk_cpu_sampler sampler;
	const char *unwind;         /* auto, fp, libunwind */
	int lines;                  /* file:line in frame names */
	int no_demangle;            /* keep mangled names (--no-demangle) */
	int quiet;
	const char *libdir;         /* where an install keeps the preload library */
	void (*warn)(void *data, const char *msg); /* NULL: warnings are dropped */
	void *warn_data;
	/* state */
	const char *prog;           /* the job's command, argv[0] */
	char *dir;                  /* the raw files' directory */
	char *preload;              /* the library's path */
	struct tk_perfrec *perf;
	int perf_failed;
	int timer_cpu;               /* CPU samples come from the preload's timers */
	int no_alloc;               /* the job cannot be reached by LD_PRELOAD */
	char **env;                 /* the job's environment, NULL-terminated; */
	size_t nr_env, alloc_env;   /* NULL while tracker's own will do */
	/* results */
	struct tk_profile profiles[TK_RAW_NVALUES];
	int have[TK_RAW_NVALUES];
};

void tk_profiler_init(struct tk_profiler *p);
void tk_profiler_release(struct tk_profiler *p);

/* "alloc", "cpu", "alloc,cpu" (or "all"); 0, or -1 naming nothing known. */
int tk_profiler_parse_what(const char *spec, unsigned *what);
/* "auto", "perf" or "timer"; 0, or -1 for anything else. */
int tk_profiler_parse_sampler(const char *s, enum tk_cpu_sampler *out);
/* "auto", "fp" or "libunwind" (*out points at s); 0, or -1. */
int tk_profiler_parse_unwind(const char *s, const char **out);
/* "512KiB", "1", "4M"...: a positive byte count; 0 or -1 on error. */
int tk_profiler_parse_bytes(const char *s, uint64_t *out);

/*
 * Prepares the job's environment for argv: tracker's own with LD_PRELOAD
 * and the TRACKER_PROFILE_* variables set, which tk_profiler_env returns.
 * Problems are warnings: the job runs without the part of the profile
 * that cannot be had. Returns 0.
 */
int tk_profiler_start(struct tk_profiler *p, char *const *argv);

/* The job's environment (struct tk_job_opts envp), or NULL when the
 * profiler needs none of its own: the job then gets tracker's. Owned by
 * p until tk_profiler_release. */
char *const *tk_profiler_env(const struct tk_profiler *p);

/* Puts the profiler into the job's options, after tk_profiler_start: its
 * environment, and when it profiles anything its before_exec and tick
 * hooks with p as their data. */
struct tk_job_opts;
void tk_profiler_hook(struct tk_profiler *p, struct tk_job_opts *jo);

/* The job's hooks (struct tk_job_opts before_exec and tick). */
int tk_profiler_before_exec(pid_t child, void *data);
void tk_profiler_tick(void *data);

/* Collects and symbolizes; fills profiles[] and have[]. Warnings only. */
void tk_profiler_finish(struct tk_profiler *p);

#endif
