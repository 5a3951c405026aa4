/*
 * SLURM: https://slurm.schedmd.com/sbatch.html#SECTION_OUTPUT-ENVIRONMENT-VARIABLES
 * and srun's. Present in sbatch scripts and srun tasks; SLURM_JOB_ID marks
 * an allocation (SLURM_JOBID is the older spelling of the same thing).
 */
#include "plugins/ci/providers.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "core/base/banned.h"

static const char *first_set(const struct tk_env *env, const char *a, const char *b)
{
	const char *v = tk_env_get(env, a);

	if (v && *v)
		return v;
	return tk_env_get(env, b);
}

static int detect(const struct tk_env *env)
{
	const char *v = first_set(env, "SLURM_JOB_ID", "SLURM_JOBID");

	return v && *v;
}

/* A whole non-negative decimal int, or -1: garbage is "unknown", not an error. */
static int parse_count(const char *s)
{
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return -1;
	return (int)v;
}

static void set_int_once(int *field, const char *value)
{
	if (*field < 0)
		*field = parse_count(value);
}

static int collect(const struct tk_env *env, struct tk_ci_context *ctx,
		   struct tk_err *err)
{
	const char *job = first_set(env, "SLURM_JOB_ID", "SLURM_JOBID");

	tk_set_once(&ctx->slurm_job_id, job);
	tk_set_once(&ctx->slurm_step_id, tk_env_get(env, "SLURM_STEP_ID"));
	tk_set_once(&ctx->slurm_procid, tk_env_get(env, "SLURM_PROCID"));
	set_int_once(&ctx->slurm_ntasks, first_set(env, "SLURM_NTASKS", "SLURM_NPROCS"));
	set_int_once(&ctx->slurm_cpus_per_task, tk_env_get(env, "SLURM_CPUS_PER_TASK"));
	tk_set_once(&ctx->slurm_nodelist,
		    first_set(env, "SLURM_JOB_NODELIST", "SLURM_NODELIST"));
	tk_set_once(&ctx->slurm_partition, tk_env_get(env, "SLURM_JOB_PARTITION"));
	/* Outside a CI system the allocation is the job. */
	tk_set_once(&ctx->job_id, job);
	tk_set_once(&ctx->host, tk_env_get(env, "SLURMD_NODENAME"));
	return 0;
}

const struct tk_ci_provider tk_ci_slurm = {
	.version = TK_CI_PROVIDER_VERSION,
	.name = "slurm",
	.detect = detect,
	.collect = collect,
	.step_var = "SLURM_JOB_NAME",
	.step_what = "the SLURM job name",
};
