#ifndef TK_RANK_H
#define TK_RANK_H
/*
 * One rank of a parallel job: `srun tracker run --per-rank` records one
 * run per rank (SLURM_PROCID) of a job step ("<job id>.<step id>", the
 * run's rank_group); core/analyze/ranks.h puts a job's ranks back
 * together. Nothing here prints; errors are TK_EUSAGE with err filled.
 */
#include "core/base/buf.h"
#include "core/base/env.h"
#include "core/base/err.h"
#include "core/model/run.h"

/* The "rank" of a batch script: SLURM sets SLURM_PROCID=0 there too. */
#define TK_RANK_BATCH (-2)

/*
 * 1 in a SLURM batch script (or salloc's shell): SLURM_JOB_ID is set and
 * SLURM_STEP_ID is not. SLURM sets SLURM_PROCID=0 in a batch script, so
 * SLURM_PROCID alone does not make an srun task.
 */
int tk_ranks_in_batch(const struct tk_env *env);

/*
 * The rank of this task: run->rank under --per-rank, else TK_RANK_BATCH
 * in a batch script (tk_ranks_in_batch), else $SLURM_PROCID when it is a
 * rank (a number from 0), else -1.
 */
int tk_ranks_task_rank(const struct tk_run *run);

/*
 * Expands --profile-file's placeholders in tmpl into out (reset first):
 * "%r" is rank ("batch" for TK_RANK_BATCH), "%%" a literal %, any other %
 * stays as it is (paths written before placeholders existed keep their
 * meaning). A %r with rank -1 is TK_EUSAGE, naming tmpl.
 */
int tk_ranks_path(const char *tmpl, int rank, struct tk_buf *out, struct tk_err *err);

/*
 * Marks run, whose CI context is collected, as one rank of a SLURM job
 * step: run->rank = SLURM_PROCID, run->rank_group =
 * "[<cluster>:]<SLURM_JOB_ID>.<SLURM_STEP_ID>[@<submit>]": job ids restart
 * with each new cluster (and its state), so the cluster's name
 * (SLURM_CLUSTER_NAME; NULL or "" leaves it out) and the job's submit
 * time ("2026-11-27T11:07:53", as squeue prints it; NULL or "" leaves it
 * out) keep two jobs of one id apart. Just the job id outside a step.
 * TK_EUSAGE, saying what is missing, when SLURM_JOB_ID or SLURM_PROCID is
 * not set or not a number-like id, or cluster or submit is not a name.
 */
int tk_ranks_setup(struct tk_run *run, const char *cluster, const char *submit,
		   struct tk_err *err);

#endif
