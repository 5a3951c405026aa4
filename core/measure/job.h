#ifndef TK_JOB_H
#define TK_JOB_H
/*
 * Running and measuring one job: the heart of `tracker run`.
 *
 * tk_job_run forks and execs argv (execvp, no shell) in its own process
 * group, makes the calling process a child subreaper so orphaned and
 * daemonized descendants are reparented to it and still reaped and
 * counted, and supervises it until it and its descendants are gone:
 *
 * - SIGTERM, SIGINT and SIGHUP sent to the caller are forwarded to the
 *   job's process group. The first one calls on_cancel (the caller writes
 *   a partial record there, before the grace period ends); if the job is
 *   still alive `grace_s` later, the group and every descendant get KILL.
 * - timeout_s > 0: when it expires, TERM, then KILL after grace_s.
 * - After the job's main process exits, descendants it left behind are
 *   waited for up to orphan_wait_s (then left running, and counted in
 *   orphans_left).
 *
 * Measurements (docs/measurements.md has the details):
 * - walltime on the monotonic clock, from just before fork to the reaping
 *   of the main process;
 * - user/sys CPU summed over every process reaped (wait4), which covers
 *   the whole tree;
 * - maxrss_bytes: the largest ru_maxrss among reaped processes. The
 *   kernel starts a forked child's high-water mark at the RSS fork copied
 *   into it (at most the wrapper's RSS at fork) and carries it across
 *   exec, so a value at or below the wrapper's RSS at fork may not be the
 *   job's own: then the largest single-process RSS seen by the sampler is
 *   used (source "sampled") when the tree was sampled at least 3 times
 *   (a single early sample may catch the job in the middle of its exec,
 *   with a fraction of its pages), else the value is kept and marked
 *   "upper-bound";
 * - tree_rss_bytes: the peak over samples of the RSS summed over the tree,
 *   and at least maxrss_bytes (the tree was at least that large when its
 *   largest process peaked). Samples are taken every 10 ms at first; the
 *   interval grows with the job's age to 5% of it (at most 1 s) and is
 *   never shorter than 200 times the last sample's cost;
 * - cgroup_peak_bytes: memory.peak of the cgroup v2 the job runs in, when
 *   that cgroup holds nothing but the wrapper at start (SLURM step, systemd
 *   scope); -1 otherwise.
 *
 * It blocks SIGCHLD, SIGTERM, SIGINT and SIGHUP (those of the three that
 * did not arrive ignored: under nohup a hangup is not for the job) and
 * leaves them blocked when it returns, so that a late TERM cannot
 * interrupt the recording of the run; the caller exits without unblocking
 * them (pending signals die with the process) or unblocks only the signal
 * it re-raises. It sets SIGCHLD to its default and ignores SIGPIPE and
 * SIGXFSZ from then on (a vanished log reader or a file size limit must
 * not kill tracker: a write past `ulimit -f` fails with EFBIG instead);
 * the job gets the dispositions the caller had. A stopped job (Ctrl-Z) stops tracker too
 * when the job has the terminal, and is continued with it. The job gets
 * Killed outright, tracker takes the job's tree along: the watchdog
 * (core/measure/watchdog.h) kills it (through the job's own cgroup, core/measure/jobcg.h,
 * where one is delegated: the job is forked into it, a KILL after
 * --timeout or --grace uses its cgroup.kill too, and at the end orphans
 * left running go back to our cgroup and the job's is removed), or, when no watchdog could be started, the
 * job's main process has PR_SET_PDEATHSIG = SIGKILL.
 * Not reentrant: it owns SIGCHLD and the subreaper flag of the process.
 */
#include <stdint.h>
#include <sys/types.h>

#include "core/base/err.h"
#include "core/model/run.h"
#include "core/model/timeline.h"
#include "core/measure/watchdog.h"

struct tk_job_result {
	int64_t started_at_us;
	double walltime_s;
	double user_s;
	double sys_s;
	int64_t maxrss_bytes;
	const char *maxrss_source; /* static: "wait4", "sampled", "upper-bound" */
	int64_t tree_rss_bytes;
	int64_t tree_samples;
	double sample_cost_s;       /* mean cost of one tree sample */
	int64_t cgroup_peak_bytes;
	int64_t wrapper_rss_at_fork;
	int exit_code;     /* -1 when it died by a signal */
	int term_signal;   /* 0 when it exited */
	int cancel_signal; /* the first TERM/INT/HUP the caller received, 0 */
	int timed_out;
	int orphans_left;
	int running;       /* 1 inside on_cancel: the job has not ended yet */
};

struct tk_job_opts {
	char *const *argv;
	char *const *envp;    /* the job's environment; NULL: tracker's own */
	double timeout_s;     /* 0: none */
	double grace_s;       /* TERM -> KILL */
	double orphan_wait_s;
	/* Called once when the job's exec has succeeded, before its
	 * supervision starts (started_at_us is set): keep it short, the
	 * job's signals and samples wait for it. */
	void (*on_start)(const struct tk_job_result *so_far, void *data);
	/* Called once, on the first forwarded TERM/INT/HUP, with the
	 * measurements so far. */
	void (*on_cancel)(const struct tk_job_result *so_far, void *data);
	void *data;
	/*
	 * Optional hooks for a recorder that watches the job from outside
	 * (core/measure/perfrec); both get hook_data. Unset, the job runs as without
	 * them.
	 *
	 * before_exec: called in tracker after fork, before the child may
	 * exec: the child waits on a close-on-exec pipe until the hook has
	 * returned. child is the job's main process (already in its own
	 * process group). A nonzero return is the caller's business (it may
	 * warn); the job runs either way. When the exec then fails,
	 * tk_job_run returns TK_EUNAVAIL as usual and the caller cleans up
	 * what the hook set up.
	 *
	 * tick: called every TK_JOB_TICK_S or sooner while the job or its
	 * descendants are supervised, and once right after the main process
	 * has been reaped (its last records are complete then).
	 */
	int (*before_exec)(pid_t child, void *hook_data);
	/*
	 * A watchdog the caller started early (tk_watchdog_start), so that
	 * its start overlaps the caller's own setup; tk_job_run makes it
	 * ready and says goodbye to it. NULL: tk_job_run starts one.
	 */
	struct tk_watchdog *watchdog;
	void (*tick)(void *hook_data);
	void *hook_data;
	/*
	 * The memory timeline to keep (core/measure/memsampler.h): cleared,
	 * then filled while the job runs, and the tree is sampled at least
	 * as often as it asks. NULL: none, and the samples are as sparse as
	 * the peaks alone need.
	 */
	struct tk_timeline *timeline;
};

#define TK_JOB_TICK_S 0.1


/*
 * Returns 0 when the job ran (whatever its status); TK_EUNAVAIL when it
 * could not be started, failing as bash does: err says why ("cannot run
 * 'x': command not found"), exec_errno holds the errno, and r holds the
 * start time, the walltime until the failure, maxrss_bytes and
 * tree_rss_bytes -1 (unknown: the job never ran) and exit_code 127 (not
 * found: no such file, not in PATH, or a #! interpreter that does not
 * exist) or 126 (found but not runnable: no permission, a directory, a
 * binary file of the wrong format). PATH is searched as bash does
 * (directories and unsearchable PATH entries are skipped), and a text
 * file without a #! line is run by /bin/sh. TK_EINTERNAL when fork or
 * signal setup failed.
 */
int tk_job_run(const struct tk_job_opts *o, struct tk_job_result *r,
	       int *exec_errno, struct tk_err *err);

#endif
