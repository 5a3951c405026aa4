#ifndef TK_CI_H
#define TK_CI_H
/*
 * CI providers: each detects whether it is running under its CI system and
 * fills the facts it knows into a struct tk_ci_context. They read the
 * environment only through a struct tk_env, so tests can hand them a
 * fixture instead of the process environment.
 *
 * tk_ci_collect runs every provider in registry order (buildkite, github,
 * gitlab, slurm, local): the first that detects itself names the provider,
 * and each fills only fields still empty (tk_set_once), so a Buildkite job
 * on a SLURM node gets both its build and its allocation, and the local git
 * checkout fills a branch or commit that no CI variable gave.
 */
#include "core/err.h"
#include "core/run.h"

struct tk_env {
	/* Returns the value of name, or NULL when unset. */
	const char *(*get)(void *data, const char *name);
	void *data;
	/* Working directory for the local git provider; NULL: the process's. */
	const char *workdir;
};

/* The process environment (getenv). */
extern const struct tk_env tk_env_process;

static inline const char *tk_env_get(const struct tk_env *env, const char *name)
{
	return env->get(env->data, name);
}

#define TK_CI_PROVIDER_VERSION 1

struct tk_ci_provider {
	int version; /* TK_CI_PROVIDER_VERSION */
	const char *name;
	/* 1 when this provider's CI system is present in env. */
	int (*detect)(const struct tk_env *env);
	/* Fills the fields it knows and are still empty. */
	int (*collect)(const struct tk_env *env, struct tk_ci_context *ctx,
		       struct tk_err *err);
};

int tk_ci_collect(const struct tk_env *env, struct tk_ci_context *ctx,
		  struct tk_err *err);

/*
 * The run key: --key (explicit, may be NULL), else $TRACKER_KEY, else
 * BUILDKITE_STEP_KEY. Returns NULL when none is set.
 */
const char *tk_ci_key(const struct tk_env *env, const char *explicit_key);

#endif
