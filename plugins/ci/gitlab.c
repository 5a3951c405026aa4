/*
 * GitLab CI: https://docs.gitlab.com/ci/variables/predefined_variables/
 *
 * In merge request pipelines the CI_MERGE_REQUEST_* variables name the
 * source and target; in merged results pipelines CI_COMMIT_SHA is the
 * merge commit GitLab made, and CI_MERGE_REQUEST_SOURCE_BRANCH_SHA the
 * commit the author pushed, which is the one we record (as on GitHub).
 */
#include "plugins/ci/providers.h"

#include <stdio.h>
#include <string.h>

#include "core/base/banned.h"

static int detect(const struct tk_env *env)
{
	const char *v = tk_env_get(env, "GITLAB_CI");

	return v && !strcmp(v, "true");
}

static int collect(const struct tk_env *env, struct tk_ci_context *ctx,
		   struct tk_err *err)
{
	const char *tag = tk_env_get(env, "CI_COMMIT_TAG");

	tk_set_once(&ctx->organization, tk_env_get(env, "CI_PROJECT_NAMESPACE"));
	tk_set_once(&ctx->pipeline, tk_env_get(env, "CI_PROJECT_PATH"));
	tk_set_once(&ctx->branch,
		    tk_env_get(env, "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"));
	tk_set_once(&ctx->branch, tk_env_get(env, "CI_COMMIT_BRANCH"));
	/* CI_COMMIT_REF_NAME is the tag name in tag pipelines. */
	if (!tag || !*tag)
		tk_set_once(&ctx->branch, tk_env_get(env, "CI_COMMIT_REF_NAME"));
	if (tk_ci_is_sha(tk_env_get(env, "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA")))
		tk_set_once(&ctx->commit,
			    tk_env_get(env, "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"));
	tk_set_once(&ctx->commit, tk_env_get(env, "CI_COMMIT_SHA"));
	tk_set_once(&ctx->build_number, tk_env_get(env, "CI_PIPELINE_IID"));
	tk_set_once(&ctx->build_url, tk_env_get(env, "CI_PIPELINE_URL"));
	tk_set_once(&ctx->job_id, tk_env_get(env, "CI_JOB_ID"));
	tk_set_once(&ctx->step_key, tk_env_get(env, "CI_JOB_NAME"));
	tk_set_once(&ctx->step_label, tk_env_get(env, "CI_JOB_NAME"));
	tk_set_once(&ctx->base_branch,
		    tk_env_get(env, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"));
	tk_set_once(&ctx->base_commit,
		    tk_env_get(env, "CI_MERGE_REQUEST_DIFF_BASE_SHA"));
	tk_set_once(&ctx->default_branch, tk_env_get(env, "CI_DEFAULT_BRANCH"));
	return 0;
}

/*
 * GitLab shows what a job declares in .gitlab-ci.yml: its artifacts
 * (artifacts: paths:) and a metrics report (artifacts: reports: metrics:),
 * which merge requests compare with the target branch's. The report
 * directory has both; this says how to declare them.
 */
static int publish(const struct tk_env *env, const struct tk_ci_report *rep, FILE *log,
		   struct tk_err *err)
{
	if (rep->upload)
		fprintf(log, "GitLab CI uploads what the job declares: add %s to artifacts: "
			"paths:\n", rep->dir);
	if (rep->annotate)
		fprintf(log, "GitLab CI shows the metrics report %s/metrics.txt when the job "
			"declares it under artifacts: reports: metrics:\n", rep->dir);
	return TK_CI_PUBLISH_DRY;
}

const struct tk_ci_provider tk_ci_gitlab = {
	.version = TK_CI_PROVIDER_VERSION,
	.name = "gitlab",
	.detect = detect,
	.collect = collect,
	.step_var = "CI_JOB_NAME",
	.step_what = "the GitLab job name",
	.publish = publish,
};
