/*
 * GitHub Actions: https://docs.github.com/en/actions/reference/variables-reference
 *
 * On pull_request and pull_request_target events GITHUB_SHA is not the
 * commit the author pushed (a merge commit into the base, or the base's
 * tip), so the PR head and base commits are read from the event payload at
 * GITHUB_EVENT_PATH. The payload is optional: when it is missing, too big,
 * not a regular file (a FIFO would block the job's start), a symbolic
 * link, or not what we expect, GITHUB_SHA stands and nothing fails.
 */
#include "plugins/ci/providers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "core/base/fsutil.h"
#include "core/base/banned.h"

/* PR payloads are tens of KiB; anything this large is not worth reading. */
#define EVENT_MAX (8u << 20)

static int detect(const struct tk_env *env)
{
	const char *v = tk_env_get(env, "GITHUB_ACTIONS");

	return v && !strcmp(v, "true");
}

static int is_pull_request(const char *event)
{
	return event && (!strcmp(event, "pull_request") ||
			 !strcmp(event, "pull_request_target"));
}

static const char *json_path_str(json_t *root, const char *a, const char *b,
				 const char *c)
{
	json_t *v = json_object_get(root, a);

	if (b)
		v = json_object_get(v, b);
	if (c)
		v = json_object_get(v, c);
	return json_string_value(v);
}

/* NULL when there is no usable payload; the caller json_decref()s it. */
static json_t *load_event(const char *path)
{
	struct tk_buf b = TK_BUF_INIT;
	json_error_t jerr;
	json_t *root;

	if (!path || !*path)
		return NULL;
	b.cap = EVENT_MAX;
	/* a FIFO or a link there must not block the job or be read through */
	if (tk_read_shared_file(&b, path, NULL)) {
		tk_buf_release(&b);
		return NULL;
	}
	root = json_loadb(b.buf, b.len, 0, &jerr);
	tk_buf_release(&b);
	if (root && !json_is_object(root)) {
		json_decref(root);
		return NULL;
	}
	return root;
}

static void collect_event(const struct tk_env *env, struct tk_ci_context *ctx,
			  int pr)
{
	json_t *ev = load_event(tk_env_get(env, "GITHUB_EVENT_PATH"));
	const char *s;

	if (!ev)
		return;
	if (pr) {
		s = json_path_str(ev, "pull_request", "head", "sha");
		if (tk_ci_is_sha(s))
			tk_set_once(&ctx->commit, s);
		s = json_path_str(ev, "pull_request", "base", "sha");
		if (tk_ci_is_sha(s))
			tk_set_once(&ctx->base_commit, s);
	}
	tk_set_once(&ctx->default_branch,
		    json_path_str(ev, "repository", "default_branch", NULL));
	json_decref(ev);
}

static void set_build_url(const struct tk_env *env, struct tk_ci_context *ctx)
{
	const char *server = tk_env_get(env, "GITHUB_SERVER_URL");
	const char *repo = tk_env_get(env, "GITHUB_REPOSITORY");
	const char *run = tk_env_get(env, "GITHUB_RUN_ID");
	struct tk_buf b = TK_BUF_INIT;

	if (ctx->build_url || !server || !*server || !repo || !*repo ||
	    !run || !*run)
		return;
	tk_buf_addf(&b, "%s/%s/actions/runs/%s", server, repo, run);
	ctx->build_url = tk_buf_detach(&b, NULL);
}

/*
 * The runner, as agent tags (lower-cased names), when GitHub says what
 * kind it is: a GitHub-hosted runner is a fresh VM with its own host name
 * each job, and these name its kind (core/model/machine.c makes them a class).
 */
static void collect_runner(const struct tk_env *env, struct tk_ci_context *ctx)
{
	static const char *const vars[][2] = {
		{ "RUNNER_ENVIRONMENT", "runner_environment" }, { "ImageOS", "image_os" },
		{ "RUNNER_OS", "runner_os" }, { "RUNNER_ARCH", "runner_arch" },
	};
	size_t i;
	const char *v = tk_env_get(env, "RUNNER_ENVIRONMENT");

	if (!v || !*v)
		return;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		v = tk_env_get(env, vars[i][0]);
		if (v && *v && !tk_kvlist_get(&ctx->agent_tags, vars[i][1]))
			tk_kvlist_set(&ctx->agent_tags, vars[i][1], v);
	}
}

static int collect(const struct tk_env *env, struct tk_ci_context *ctx,
		   struct tk_err *err)
{
	const char *ref_type = tk_env_get(env, "GITHUB_REF_TYPE");
	int pr = is_pull_request(tk_env_get(env, "GITHUB_EVENT_NAME"));

	tk_set_once(&ctx->organization, tk_env_get(env, "GITHUB_REPOSITORY_OWNER"));
	tk_set_once(&ctx->pipeline, tk_env_get(env, "GITHUB_REPOSITORY"));
	/*
	 * GITHUB_HEAD_REF is set only on PR events, where GITHUB_REF_NAME is
	 * "<n>/merge", never a branch. A tag push is on no branch either.
	 */
	tk_set_once(&ctx->branch, tk_env_get(env, "GITHUB_HEAD_REF"));
	if (!pr && (!ref_type || strcmp(ref_type, "tag")))
		tk_set_once(&ctx->branch, tk_env_get(env, "GITHUB_REF_NAME"));
	collect_event(env, ctx, pr);
	tk_set_once(&ctx->commit, tk_env_get(env, "GITHUB_SHA"));
	tk_set_once(&ctx->build_number, tk_env_get(env, "GITHUB_RUN_NUMBER"));
	set_build_url(env, ctx);
	tk_set_once(&ctx->job_id, tk_env_get(env, "GITHUB_JOB"));
	tk_set_once(&ctx->step_key, tk_env_get(env, "GITHUB_JOB"));
	tk_set_once(&ctx->step_label, tk_env_get(env, "GITHUB_WORKFLOW"));
	if (pr)
		tk_set_once(&ctx->base_branch, tk_env_get(env, "GITHUB_BASE_REF"));
	collect_runner(env, ctx);
	return 0;
}

/*
 * The summary goes to the job's step summary, a markdown file GitHub shows
 * on the run's page; it is appended to, as every step of a job shares
 * it. Artifacts are uploaded by the workflow (actions/upload-artifact),
 * not by a tool a step can call.
 */
static int publish(const struct tk_env *env, const struct tk_ci_report *rep, FILE *log,
		   struct tk_err *err)
{
	const char *path = tk_env_get(env, "GITHUB_STEP_SUMMARY");
	FILE *f;
	int ret = TK_CI_PUBLISH_DRY;

	if (rep->upload)
		fprintf(log, "GitHub Actions uploads artifacts with actions/upload-artifact: "
			"give it path: %s\n", rep->dir);
	if (!rep->annotate)
		return ret;
	if (!path || !*path)
		return tk_err_set(err, TK_EUNAVAIL, "GITHUB_STEP_SUMMARY is not set: "
				  "no step summary to write to");
	f = fopen(path, "a");
	if (!f)
		return tk_err_set(err, TK_EUNAVAIL, "cannot open the step summary '%s': %s",
				  path, strerror(errno));
	fputs(rep->summary, f);
	if (ferror(f) | fclose(f))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the step summary '%s'", path);
	fprintf(log, "wrote the summary to the step summary (%zu bytes)\n", strlen(rep->summary));
	return 0;
}

const struct tk_ci_provider tk_ci_github = {
	.version = TK_CI_PROVIDER_VERSION,
	.name = "github",
	.detect = detect,
	.collect = collect,
	.step_var = "GITHUB_JOB",
	.step_what = "the GitHub job",
	.publish = publish,
};
