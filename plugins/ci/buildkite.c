/*
 * Buildkite: https://buildkite.com/docs/pipelines/environment-variables
 *
 * The agent exports every agent tag as BUILDKITE_AGENT_META_DATA_<KEY>
 * (upper-cased); we keep them as agent_tags with the key lower-cased, so a
 * queue tag reads back as queue=... and a slurm_ntasks tag as slurm_ntasks.
 */
#include "plugins/ci/providers.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/subproc.h"
#include "core/base/banned.h"

#define META_PREFIX "BUILDKITE_AGENT_META_DATA_"

/*
 * Agent settings that share the tag prefix but are switches of the agent
 * itself (meta-data-ec2 and friends), not tags; they reach the job when the
 * agent was configured through its environment.
 */
static const char *const not_tags[] = {
	"EC2", "EC2_TAGS", "GCP", "GCP_LABELS", NULL,
};

static int detect(const struct tk_env *env)
{
	const char *v = tk_env_get(env, "BUILDKITE");

	return v && !strcmp(v, "true");
}

static int is_setting(const char *key)
{
	const char *const *n;

	for (n = not_tags; *n; n++)
		if (!strcmp(*n, key))
			return 1;
	return 0;
}

static int add_tag(const char *name, const char *value, void *arg)
{
	struct tk_ci_context *ctx = arg;
	const char *key;
	char *lower;
	size_t i;

	if (strncmp(name, META_PREFIX, strlen(META_PREFIX)))
		return 0;
	key = name + strlen(META_PREFIX);
	if (!*key || is_setting(key))
		return 0;
	lower = tk_xstrdup(key);
	for (i = 0; lower[i]; i++)
		lower[i] = (char)tolower((unsigned char)lower[i]);
	/* Like tk_set_once: a tag the caller already set is kept. */
	if (!tk_kvlist_get(&ctx->agent_tags, lower))
		tk_kvlist_set(&ctx->agent_tags, lower, value);
	free(lower);
	return 0;
}

static int is_pull_request(const char *v)
{
	return v && *v && strcmp(v, "false");
}

static int collect(const struct tk_env *env, struct tk_ci_context *ctx,
		   struct tk_err *err)
{
	const char *commit = tk_env_get(env, "BUILDKITE_COMMIT");

	tk_set_once(&ctx->organization, tk_env_get(env, "BUILDKITE_ORGANIZATION_SLUG"));
	tk_set_once(&ctx->pipeline, tk_env_get(env, "BUILDKITE_PIPELINE_SLUG"));
	tk_set_once(&ctx->branch, tk_env_get(env, "BUILDKITE_BRANCH"));
	/*
	 * BUILDKITE_COMMIT may be a symbolic name ("HEAD") when a build was
	 * started without a commit; the checkout then knows the real one,
	 * so leave the field to the local provider.
	 */
	if (tk_ci_is_sha(commit))
		tk_set_once(&ctx->commit, commit);
	tk_set_once(&ctx->build_number, tk_env_get(env, "BUILDKITE_BUILD_NUMBER"));
	tk_set_once(&ctx->build_url, tk_env_get(env, "BUILDKITE_BUILD_URL"));
	tk_set_once(&ctx->job_id, tk_env_get(env, "BUILDKITE_JOB_ID"));
	tk_set_once(&ctx->step_key, tk_env_get(env, "BUILDKITE_STEP_KEY"));
	tk_set_once(&ctx->step_label, tk_env_get(env, "BUILDKITE_LABEL"));
	/* BUILDKITE_PULL_REQUEST is the PR number, or "false" outside PRs. */
	if (is_pull_request(tk_env_get(env, "BUILDKITE_PULL_REQUEST")))
		tk_set_once(&ctx->base_branch,
			    tk_env_get(env, "BUILDKITE_PULL_REQUEST_BASE_BRANCH"));
	tk_set_once(&ctx->default_branch,
		    tk_env_get(env, "BUILDKITE_PIPELINE_DEFAULT_BRANCH"));
	tk_env_each(env, add_tag, ctx);
	return 0;
}

#define AGENT "buildkite-agent"
#define AGENT_TIMEOUT_S 300.0

/* Runs the agent on argv, body on its standard input; its failure in err. */
static int agent(const char *const *argv, const char *body, struct tk_err *err)
{
	struct tk_subproc p;
	struct tk_buf out = TK_BUF_INIT, errout = TK_BUF_INIT;
	int status, ret;

	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.in = body;
	p.in_len = body ? strlen(body) : 0;
	p.out_cap = 64 * 1024;
	p.timeout_s = AGENT_TIMEOUT_S;
	ret = tk_subproc_run(&p, &out, &errout, &status, err);
	if (!ret && status) {
		const struct tk_buf *said = errout.len ? &errout : &out;
		size_t n = 0;

		while (n < said->len && n < 200 && said->buf[n] != '\n' &&
		       isprint((unsigned char)said->buf[n]))
			n++;
		ret = tk_err_set(err, TK_EUNAVAIL, "'%s %s' exited %d%s%.*s", AGENT, argv[1],
				 status, n ? ": " : "", (int)n, said->buf);
	}
	tk_buf_release(&out);
	tk_buf_release(&errout);
	return ret;
}

/*
 * The report's files as artifacts (the annotation's artifact:// links
 * point at them, so they go first), then the annotation, its body on
 * standard input. Without the agent, what would have been run.
 */
static int publish(const struct tk_env *env, const struct tk_ci_report *rep, FILE *log,
		   struct tk_err *err)
{
	struct tk_buf glob = TK_BUF_INIT;
	size_t len = strlen(rep->dir);
	int ret = 0;

	while (len > 1 && rep->dir[len - 1] == '/')
		len--;
	tk_buf_add(&glob, rep->dir, len);
	tk_buf_adds(&glob, "/**/*");
	if (!tk_subproc_on_path(AGENT)) {
		if (rep->upload)
			fprintf(log, "%s is not on PATH; would run: %s artifact upload '%s'\n",
				AGENT, AGENT, glob.buf);
		if (rep->annotate)
			fprintf(log, "%s is not on PATH; would run: %s annotate --context tracker "
				"--style %s, with %s/annotation.md (%zu bytes) on its input\n",
				AGENT, AGENT, rep->style, rep->dir, strlen(rep->annotation));
		tk_buf_release(&glob);
		return TK_CI_PUBLISH_DRY;
	}
	if (rep->upload) {
		const char *argv[] = { AGENT, "artifact", "upload", glob.buf, NULL };

		ret = agent(argv, NULL, err);
		if (!ret)
			fprintf(log, "uploaded '%s' as artifacts\n", glob.buf);
	}
	if (!ret && rep->annotate) {
		const char *argv[] = { AGENT, "annotate", "--context", "tracker", "--style",
				       rep->style, NULL };

		ret = agent(argv, rep->annotation, err);
		if (!ret)
			fprintf(log, "annotated the build (style %s, %zu bytes)\n", rep->style,
				strlen(rep->annotation));
	}
	tk_buf_release(&glob);
	return ret;
}

const struct tk_ci_provider tk_ci_buildkite = {
	.version = TK_CI_PROVIDER_VERSION,
	.name = "buildkite",
	.detect = detect,
	.collect = collect,
	.step_var = "BUILDKITE_LABEL",
	.step_what = "the Buildkite label",
	.publish = publish,
};
