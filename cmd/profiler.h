#ifndef TK_CMD_PROFILER_H
#define TK_CMD_PROFILER_H
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
 */
#include <stdint.h>
#include <sys/types.h>

#include "core/profile.h"
#include "core/rawprof.h"

#define CMD_PROFILE_ALLOC 1u
#define CMD_PROFILE_CPU 2u

enum cmd_cpu_sampler { CMD_CPU_AUTO, CMD_CPU_PERF, CMD_CPU_TIMER };

struct cmd_profiler {
	/* options */
	unsigned what;              /* CMD_PROFILE_* */
	uint64_t sample_bytes;      /* mean sampling interval; 1 exact */
	unsigned cpu_hz;
	enum cmd_cpu_sampler sampler;
	const char *unwind;         /* auto, fp, libunwind */
	int lines;                  /* file:line in frame names */
	int no_demangle;            /* keep mangled names (--no-demangle) */
	int quiet;
	/* state */
	const char *prog;           /* the job's command, argv[0] */
	char *dir;                  /* the raw files' directory */
	char *preload;              /* the library's path */
	struct tk_perfrec *perf;
	int perf_failed;
	int timer_cpu;               /* CPU samples come from the preload's timers */
	int no_alloc;               /* the job cannot be reached by LD_PRELOAD */
	/* results */
	struct tk_profile profiles[TK_RAW_NVALUES];
	int have[TK_RAW_NVALUES];
};

void cmd_profiler_init(struct cmd_profiler *p);
void cmd_profiler_release(struct cmd_profiler *p);

/* "alloc", "cpu", "alloc,cpu" (or "all"); 0, or -1 naming nothing known. */
int cmd_profiler_parse_what(const char *spec, unsigned *what);
/* "512KiB", "1", "4M"...: a positive byte count; 0 or -1 on error. */
int cmd_profiler_parse_bytes(const char *s, uint64_t *out);

/*
 * Prepares the job's environment (LD_PRELOAD and the TRACKER_PROFILE_*
 * variables of this process, which the job inherits) for argv. Problems
 * are warnings: the job runs without the part of the profile that cannot
 * be had. Returns 0.
 */
int cmd_profiler_start(struct cmd_profiler *p, char *const *argv);

/* The job's hooks (struct tk_job_opts before_exec and tick). */
int cmd_profiler_before_exec(pid_t child, void *data);
void cmd_profiler_tick(void *data);

/* Collects and symbolizes; fills profiles[] and have[]. Warnings only. */
void cmd_profiler_finish(struct cmd_profiler *p);

#endif
