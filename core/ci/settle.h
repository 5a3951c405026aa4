#ifndef TK_SETTLE_H
#define TK_SETTLE_H
/*
 * Settling the runs SLURM killed with tracker: a run left "started" by a
 * tracker that never saw its end.
 *
 * With `tracker run -- srun ...` in a batch script, scancel and the time
 * limit send TERM to the batch shell only; the shell dies at once, and
 * slurmstepd KILLs everything else of the batch step (tracker, its
 * watchdog) about a millisecond later. Nothing in the step outlives it,
 * so the run stays as tracker wrote it when the job started. SLURM's
 * accounting knows how the job ended; the next `tracker run` of the same
 * key in any SLURM job reads it and finishes the record.
 *
 * tk_settle_slurm_runs opens the store at db, takes the key's newest
 * TK_SETTLE_RUNS_MAX runs and, for each one still "started" with a SLURM
 * job id other than this_job, asks sacct (one call for all, -X: the jobs'
 * own rows) how its job ended. A job that has ended CANCELLED, TIMEOUT or
 * OUT_OF_MEMORY, and that was running when the run started (its Start at
 * or before the run's start, its End after it: job ids restart with each
 * new cluster, so an id alone could name another job), makes the run
 * cancelled, timeout or oom, still partial, with the walltime from its
 * start to the job's End. That record replaces the started one in the
 * store (put_run). A job still running, or one that ended otherwise, is
 * left alone.
 *
 * Returns the number of runs settled (0 or more), or a negative code
 * with err filled when the store or sacct could not be asked. sacct is
 * bounded as tk_sacct_query's calls are (wait_s, 2 to 15 s). Nothing here
 * prints.
 */
#include "core/base/err.h"

#define TK_SETTLE_RUNS_MAX 20

struct tk_settle {
	const char *db;        /* the store's URL */
	const char *key;
	const char *this_job;  /* SLURM_JOB_ID of the calling run; NULL none */
	const char *program;   /* NULL: "sacct" */
	double wait_s;
};

int tk_settle_slurm_runs(const struct tk_settle *o, struct tk_err *err);

#endif
