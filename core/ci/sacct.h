#ifndef TK_SACCT_H
#define TK_SACCT_H
/*
 * Asking SLURM's accounting about a run's job: runs sacct on an argv
 * (core/base/subproc.h) and reads its answer into the run's `slurm`
 * object (core/model/slurm.h), waiting while slurmdbd lags behind.
 */
#include "core/base/buf.h"
#include "core/base/env.h"
#include "core/base/err.h"
#include "core/model/run.h"
#include "core/model/slurm.h"

/*
 * Runs sacct (program: "sacct", or another name for tests) for job_id,
 * parsing its output; retries while the accounting is not settled (empty,
 * or a step of the run's own, started within [from_s, to_s], still
 * running: slurmdbd lags the step's end; other steps are never waited
 * for), sleeping 0.1 s, then 0.2, 0.4 and 0.8 s, then 1 s between tries, until wait_s
 * has passed. Keeps the last answer, all of its rows. Returns 0 with
 * *out filled (possibly unsettled); TK_EUNAVAIL when sacct cannot be run,
 * fails ("sacct exited 1: <its first line of stderr>"), does not answer
 * within the call's bound (wait_s, at least 2 s and at most 15 s: "sacct
 * did not answer within 2.0 s: slurmdbd is not answering (hung or
 * overloaded?)") or has no row for the job after wait_s; TK_EDATA when
 * its output cannot be parsed.
 */
struct tk_sacct_query {
	const char *program;  /* NULL: "sacct" */
	const char *job_id;
	const char *own_step; /* SLURM_STEP_ID of tracker's own step; may be NULL */
	double wait_s;        /* total time to wait for the accounting */
	int64_t from_s, to_s; /* the run's window, seconds since the epoch */
};

int tk_sacct_query(const struct tk_sacct_query *q, struct tk_sacct *out, struct tk_err *err);

/*
 * tracker run's part, after the job: inside an allocation (the run's
 * ci.slurm_job_id) or when forced, queries sacct for the job (waiting up
 * to $TRACKER_SACCT_WAIT seconds, default 5, for the accounting of the
 * run's own steps to settle) and keeps in run->slurm the srun steps the
 * run launched (tk_sacct_keep_own: started between the run's start and
 * end, not tracker's own step), judging whether their MaxRSS is only a
 * lower bound (tk_sacct_judge, with SLURM's JobAcctGatherFrequency from
 * `scontrol show config` when a step was short). Returns 0 when steps
 * were stored or nothing was asked for; otherwise a negative code with
 * note (emptied first) saying why in a sentence for the user ("no SLURM
 * accounting for job 812: cannot run 'sacct': not found"). A run that
 * launched no srun step keeps none and returns 0, with a note when
 * forced. Never touches the run's measurements or status.
 */
int tk_sacct_for_run(struct tk_run *run, int forced, const struct tk_env *env,
		     struct tk_buf *note);

/*
 * The job's submit time as squeue prints it ("2026-11-27T11:07:53"),
 * appended to out: one call to slurmctld, bounded to 2 s. Returns 0, or
 * -1 (out untouched) when squeue cannot say.
 */
int tk_slurm_submit_time(const char *job_id, struct tk_buf *out);

/*
 * 1 when slurmctld is ending the job for its time limit (squeue's reason
 * "TimeLimit": while the job is COMPLETING after the limit, its steps
 * get TERM), 0 otherwise or when squeue cannot say (bounded to 2 s).
 */
int tk_slurm_timed_out(const char *job_id);

#endif
