#ifndef TK_RANK_H
#define TK_RANK_H
/*
 * One rank of a parallel job: `srun tracker run --per-rank` records one
 * run per rank (SLURM_PROCID) of a job step ("<job id>.<step id>", the
 * run's rank_group); core/analyze/ranks.h puts a job's ranks back
 * together. Nothing here prints; errors are TK_EUSAGE with err filled.
 */
#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/run.h"

/*
 * The rank of this task: run->rank under --per-rank, else $SLURM_PROCID
 * when it is a rank (a number from 0), else -1.
 */
int tk_ranks_task_rank(const struct tk_run *run);

/*
 * Expands --profile-file's placeholders in tmpl into out (reset first):
 * "%r" is rank, "%%" a literal %, any other % stays as it is (paths
 * written before placeholders existed keep their meaning). A %r with
 * rank < 0 is TK_EUSAGE, naming tmpl.
 */
int tk_ranks_path(const char *tmpl, int rank, struct tk_buf *out, struct tk_err *err);

/*
 * Marks run, whose CI context is collected, as one rank of a SLURM job
 * step: run->rank = SLURM_PROCID, run->rank_group =
 * "<SLURM_JOB_ID>.<SLURM_STEP_ID>" (just the job id outside a step).
 * TK_EUSAGE, saying what is missing, when SLURM_JOB_ID or SLURM_PROCID is
 * not set or not a number-like id.
 */
int tk_ranks_setup(struct tk_run *run, struct tk_err *err);

#endif
