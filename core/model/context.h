#ifndef TK_CONTEXT_H
#define TK_CONTEXT_H
/*
 * The CI context of a run: where it happened (CI system, pipeline,
 * branch, commit, build, SLURM allocation, host). Part of the run record
 * (core/model/run.h); filled by the CI providers (core/ci/ci.h), read by
 * every stage that needs to know which build is current.
 */
#include "core/base/kvlist.h"

/*
 * Where a run happened. Filled by the CI providers (plugins/ci/); every
 * field may be NULL. `provider` is the first provider that detected itself
 * ("buildkite", "github", "gitlab", "slurm" or "local").
 */
struct tk_ci_context {
	char *provider;
	char *organization;
	char *pipeline;
	char *branch;
	char *commit;
	char *build_number;
	char *build_url;
	char *job_id;
	char *step_key;
	char *step_label;
	char *base_branch;   /* PR/MR target branch */
	char *base_commit;   /* PR/MR base commit, when the CI names one */
	char *head_commit;   /* PR head commit when it differs from `commit` */
	char *default_branch; /* the pipeline's default branch */
	char *host;
	struct tk_kvlist agent_tags;
	/* SLURM */
	char *slurm_job_id;
	char *slurm_step_id;
	char *slurm_procid;
	int slurm_ntasks;        /* -1 unknown */
	int slurm_cpus_per_task; /* -1 unknown */
	char *slurm_nodelist;
	char *slurm_partition;
};

void tk_ci_context_init(struct tk_ci_context *c);
void tk_ci_context_release(struct tk_ci_context *c);

/* Sets *field to a copy of value unless it is already set or value is NULL
 * or empty. Providers use it so the first provider to know a fact wins.
 * Bytes of value that are not valid UTF-8 become U+FFFD in the copy: the
 * record (JSON, which has only UTF-8) and the stores' columns (PostgreSQL's
 * text too) then hold the same string, and a query finds it in both. */
void tk_set_once(char **field, const char *value);

#endif
