#ifndef TK_WATCHDOG_H
#define TK_WATCHDOG_H
/*
 * The watchdog: a small process that kills the job's process tree when
 * tracker dies without ending the job (kill -9, the OOM killer, a CI's
 * KILL before tracker's --grace ran out).
 *
 * PR_SET_PDEATHSIG takes only the job's main process along, and the
 * job's descendants, reparented to init once tracker is gone, would run
 * on. So tk_job_run starts, before the job, a process that is no
 * descendant of tracker (forked twice, in a session of its own, holding
 * no descriptor but the read end of a pipe) and tells it through the
 * pipe the job's process group and, after each tree sample, the pids of
 * the tree (at most TK_WATCHDOG_MAX_PIDS; the watchdog notes each one's
 * start time, so a pid reused later is never taken for the job's).
 *
 * When the pipe reaches end-of-file without a goodbye, tracker has
 * died: the watchdog stops (SIGSTOP) the job's process group, the
 * processes it was told of, and every process whose parent it stopped or
 * that is in the group (found in /proc, repeatedly, so that nothing
 * forks away meanwhile), then kills them all with SIGKILL, and exits.
 * After tk_watchdog_done (the job and what it left are finished, or left
 * running on purpose after --orphan-wait) it exits doing nothing.
 *
 * When the job has a cgroup of its own (core/measure/jobcg.h, told with
 * tk_watchdog_cgroup), the watchdog first kills everything in it through
 * cgroup.kill, and removes the directory after the kill. Without one, a
 * descendant that left the job's process group (setsid) and started
 * after the last tree sample (10 ms into the job, at most 1 s later on)
 * escapes. Writes to the pipe never block tracker: an update the pipe
 * has no room for is skipped. Nothing here prints.
 */
#include <stddef.h>
#include <sys/types.h>

#include "core/base/err.h"

#define TK_WATCHDOG_MAX_PIDS 1000

struct tk_watchdog {
	int fd;    /* the write end; -1 when there is no watchdog */
	pid_t mid; /* the first fork, until tk_watchdog_ready reaps it */
	pid_t *sent;
	size_t nr_sent, alloc_sent;
};

/*
 * Starts the watchdog; TK_EINTERNAL when it cannot (w->fd is then -1 and
 * the other calls do nothing). It returns at once: the caller may do
 * other work while the watchdog gets going, and must call
 * tk_watchdog_ready before becoming a child subreaper (or the watchdog
 * would be its child) and before reaping children of its own.
 */
int tk_watchdog_start(struct tk_watchdog *w, struct tk_err *err);
/* Reaps the first fork: from now on the watchdog is no child of ours. */
void tk_watchdog_ready(struct tk_watchdog *w);
/* The job's process group. */
void tk_watchdog_group(struct tk_watchdog *w, pid_t pgid);
/* The job's cgroup directory (core/measure/jobcg.h): on tracker's death the
 * watchdog first writes 1 to its cgroup.kill, and last removes it. */
void tk_watchdog_cgroup(struct tk_watchdog *w, const char *dir);
/* The tree's pids as last sampled; sent only when they changed. */
void tk_watchdog_pids(struct tk_watchdog *w, const pid_t *pids, size_t n);
/* Goodbye: the watchdog exits without killing anything (ready is
 * implied). */
void tk_watchdog_done(struct tk_watchdog *w);

#endif
