#ifndef TK_JOBCG_H
#define TK_JOBCG_H
/*
 * A cgroup v2 of the job's own, where one is delegated to us.
 *
 * tk_jobcg_create finds the cgroup v2 mount (fstype cgroup2 in
 * /proc/self/mountinfo: /sys/fs/cgroup, or /sys/fs/cgroup/unified in a
 * hybrid setup) and our cgroup there (the "0::" line of
 * /proc/self/cgroup). When we may create a child there and move
 * processes into it, and the kernel has cgroup.kill (5.14+), it creates
 * the child "tracker-job-<pid>-<random>" and returns 0 (first removing
 * the empty "tracker-job-*" siblings whose tracker is gone: SLURM KILLs
 * tracker and its watchdog together when a cancelled batch script's
 * shell dies, leaving theirs; at most 4096 entries are looked at);
 * otherwise -1 and
 * cg->dir is empty (the caller falls back to the watchdog alone; nothing
 * is printed).
 *
 * The job's main process calls tk_jobcg_enter between fork and exec (it
 * uses open/write/close only, on paths prepared beforehand); all its
 * descendants are then in the cgroup, daemons that left its process group
 * and session included, and tk_jobcg_kill (or the watchdog, told the
 * path) kills every one of them at once through cgroup.kill.
 *
 * tk_jobcg_release ends it: processes still in the cgroup (orphans left
 * running on purpose) are moved back to our own cgroup, and the
 * directory is removed. tk_jobcg_remove removes a cgroup directory,
 * retrying for up to wait_s while it is populated (the watchdog uses it
 * after cgroup.kill).
 */
#include <stdint.h>
#include <sys/types.h>

/* the longest cgroup directory path, plus one */
#define TK_JOBCG_PATH 4000

struct tk_jobcg {
	char dir[TK_JOBCG_PATH];         /* the job's cgroup; "" when none */
	char parent[TK_JOBCG_PATH];      /* our own cgroup */
	char procs[TK_JOBCG_PATH + 32];  /* dir/cgroup.procs, for tk_jobcg_enter */
};

int tk_jobcg_create(struct tk_jobcg *cg);
/*
 * fork(), but with a cgroup the child starts in it (clone3 with
 * CLONE_INTO_CGROUP, Linux 5.7+), which costs nothing, where moving a
 * process by writing cgroup.procs waits for an RCU grace period (18 ms
 * measured on one machine). A probe child that only exits is cloned
 * into the cgroup first: some kernels KILL such a child when the
 * cgroup's kill count differs from ours; then the plain fork is used.
 * *placed says whether it did; when not (no cgroup, or clone3
 * refused), the child calls tk_jobcg_enter itself. The child must then
 * do only what is safe after fork in a process that may have threads,
 * and no atfork handlers run.
 */
pid_t tk_jobcg_fork(const struct tk_jobcg *cg, int *placed);
/* Async-signal-safe: moves the calling process into cg (if any). */
void tk_jobcg_enter(const struct tk_jobcg *cg);
/* Kills every process in cgroup dir; 0 when cgroup.kill took it. */
int tk_jobcg_kill_dir(const char *dir);
int tk_jobcg_kill(const struct tk_jobcg *cg);
/* 0 when dir is gone. */
int tk_jobcg_remove(const char *dir, double wait_s);
void tk_jobcg_release(struct tk_jobcg *cg);

/*
 * How many processes the OOM killer has killed in our memory cgroup:
 * "oom_kill N" of memory.events in our cgroup v2 (hierarchical: our job
 * cgroup's kills are in it) plus that of memory.oom_control in our cgroup
 * v1 memory controller under /sys/fs/cgroup/memory (a SLURM step's task
 * cgroup on a hybrid machine). -1 when neither says. Taken before and
 * after the job, a difference means the OOM killer killed one of ours.
 */
int64_t tk_jobcg_oom_kills(void);

#endif
