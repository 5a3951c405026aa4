/*
 * A run's rank in a parallel job: which task of a SLURM job step it is,
 * and the step that groups the ranks ("<job id>.<step id>", what sacct
 * and sstat take), because every srun of one allocation is a job of its
 * own: the same key run twice in one sbatch script is two groups.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/env.h"
#include "core/model/rank.h"
#include "core/base/banned.h"

/* SLURM's ids are numbers; anything else in a group name is refused so
 * the group stays printable and comparable. */
static int valid_id(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || *s == '_' || *s == '-' || *s == '+'))
			return 0;
	return n > 0 && n <= 64;
}

static int parse_rank(const char *s, int *out)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

/* A cluster name or a submit time: printable, no separator of the group's. */
static int valid_part(const char *s)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z') || *s == '_' || *s == '-' || *s == ':'))
			return 0;
	return n > 0 && n <= 64;
}

int tk_ranks_setup(struct tk_run *run, const char *cluster, const char *submit,
		   struct tk_err *err)
{
	const char *job = run->ci.slurm_job_id, *step = run->ci.slurm_step_id;
	const char *procid = run->ci.slurm_procid;
	struct tk_buf group = TK_BUF_INIT;
	int rank;

	if (!job || !*job || !procid || !*procid)
		return tk_err_set(err, TK_EUSAGE, "--per-rank needs SLURM_JOB_ID and "
				  "SLURM_PROCID (%s not set): run it as a task of srun, "
				  "e.g. srun tracker run --per-rank --key K -- CMD",
				  !job || !*job ? "SLURM_JOB_ID is" : "SLURM_PROCID is");
	if (parse_rank(procid, &rank))
		return tk_err_set(err, TK_EUSAGE, "--per-rank: SLURM_PROCID '%s' is not a "
				  "rank (a number from 0)", procid);
	if (!valid_id(job))
		return tk_err_set(err, TK_EUSAGE, "--per-rank: SLURM_JOB_ID '%s' is not a "
				  "job id", job);
	if (step && *step && !valid_id(step))
		return tk_err_set(err, TK_EUSAGE, "--per-rank: SLURM_STEP_ID '%s' is not a "
				  "step id", step);
	if (cluster && *cluster && (!valid_part(cluster) || strchr(cluster, ':')))
		return tk_err_set(err, TK_EUSAGE, "--per-rank: SLURM_CLUSTER_NAME '%s' is not "
				  "a cluster name", cluster);
	if (submit && *submit && !valid_part(submit))
		return tk_err_set(err, TK_EUSAGE, "--per-rank: the job's submit time '%s' is "
				  "not a time", submit);
	if (cluster && *cluster)
		tk_buf_addf(&group, "%s:", cluster);
	tk_buf_adds(&group, job);
	if (step && *step)
		tk_buf_addf(&group, ".%s", step);
	if (submit && *submit)
		tk_buf_addf(&group, "@%s", submit);
	run->rank = rank;
	free(run->rank_group);
	run->rank_group = tk_buf_detach(&group, NULL);
	return 0;
}

int tk_ranks_in_batch(const struct tk_env *env)
{
	const char *job = tk_env_get(env, "SLURM_JOB_ID");
	const char *step = tk_env_get(env, "SLURM_STEP_ID");

	return job && *job && (!step || !*step);
}

int tk_ranks_task_rank(const struct tk_run *run)
{
	const char *procid = tk_env_get(&tk_env_process, "SLURM_PROCID");
	int rank;

	if (run->rank >= 0)
		return run->rank;
	if (tk_ranks_in_batch(&tk_env_process))
		return TK_RANK_BATCH;
	if (!procid || parse_rank(procid, &rank))
		return -1;
	return rank;
}

int tk_ranks_path(const char *tmpl, int rank, struct tk_buf *out, struct tk_err *err)
{
	const char *p;

	tk_buf_reset(out);
	for (p = tmpl; *p; p++) {
		if (*p != '%' || (p[1] != 'r' && p[1] != '%')) {
			tk_buf_addch(out, *p);
			continue;
		}
		p++;
		if (*p == '%') {
			tk_buf_addch(out, '%');
		} else if (rank == TK_RANK_BATCH) {
			tk_buf_adds(out, "batch");
		} else if (rank < 0) {
			return tk_err_set(err, TK_EUSAGE, "--profile-file '%s': %%r stands for "
					  "the rank, and SLURM_PROCID is not set or not a rank",
					  tmpl);
		} else {
			tk_buf_addf(out, "%d", rank);
		}
	}
	return 0;
}
