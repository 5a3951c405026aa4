#ifndef TK_CI_H
#define TK_CI_H
/*
 * CI providers: each detects whether it is running under its CI system and
 * fills the facts it knows into a struct tk_ci_context. They read the
 * environment only through a struct tk_env, so tests can hand them a
 * fixture instead of the process environment.
 *
 * tk_ci_collect runs every provider in table order (buildkite, github,
 * gitlab, slurm, local): the first that detects itself names the provider,
 * and each fills only fields still empty (tk_set_once), so a Buildkite job
 * on a SLURM node gets both its build and its allocation, and the local git
 * checkout fills a branch or commit that no CI variable gave.
 */
#include <stddef.h>
#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/env.h"
#include "core/base/err.h"
#include "core/model/context.h"
#include "core/model/run.h"

/* 2: step_var and step_what; 3: publish */
#define TK_CI_PROVIDER_VERSION 3

/*
 * What tracker report hands a CI provider to publish: the report's
 * directory and the texts made of it (core/pages/report.h). The provider puts
 * them where its CI shows them.
 */
struct tk_ci_report {
	const char *dir;         /* the report directory, as given */
	const char *annotation;  /* markdown for a build page, links as
				    artifact:// URLs (Buildkite) */
	const char *summary;     /* the same table without links (a step
				    summary that cannot reach artifacts) */
	const char *style;       /* "success", "warning" or "error" */
	int upload;              /* upload the directory's files */
	int annotate;            /* show the summary on the build's page */
};

/* publish returns this when it did nothing but say on log what it would
 * have done (its tool is not there): not an error. */
#define TK_CI_PUBLISH_DRY 1

struct tk_ci_provider {
	int version; /* TK_CI_PROVIDER_VERSION */
	const char *name;
	/* 1 when this provider's CI system is present in env. */
	int (*detect)(const struct tk_env *env);
	/* Fills the fields it knows and are still empty. */
	int (*collect)(const struct tk_env *env, struct tk_ci_context *ctx,
		       struct tk_err *err);
	/*
	 * The variable naming the step the job runs in, as people know it
	 * (BUILDKITE_LABEL, GITHUB_JOB...), and what it is in words ("the
	 * Buildkite label"), for tk_ci_derive_key; NULL for providers that
	 * are no CI system (local).
	 */
	const char *step_var;
	const char *step_what;
	/*
	 * Optional (NULL: the CI system has no place for a report): publishes
	 * rep as asked (upload, annotate), saying on log what it does, one
	 * line each ("uploaded ..."). Programs it runs are exec'd on an argv.
	 * Returns 0, TK_CI_PUBLISH_DRY, or TK_EUNAVAIL when its tool fails
	 * (err names the command and what it said).
	 */
	int (*publish)(const struct tk_env *env, const struct tk_ci_report *rep, FILE *log,
		       struct tk_err *err);
};

/*
 * Walks the providers in order (tk_ci_provider_at): the first whose
 * detect() is true names ctx->provider (unless the caller set it), and every provider
 * that detects itself fills the fields still empty. local always detects
 * and comes last, so it only adds what git knows and no CI variable said;
 * finally ctx->host comes from gethostname() when still empty.
 * Providers do not fail on missing or odd variables; when one does fail,
 * the others still run and the first error is returned (the context keeps
 * whatever was collected).
 */
int tk_ci_collect(const struct tk_env *env, struct tk_ci_context *ctx,
		  struct tk_err *err);

/*
 * The run key: --key (explicit, may be NULL), else $TRACKER_KEY, else
 * BUILDKITE_STEP_KEY; an empty string counts as unset. Returns NULL when
 * none is set. In a job of a Buildkite step with parallelism
 * (BUILDKITE_PARALLEL_JOB_COUNT of 2 or more), the key gets the job's
 * index and the count appended, "tests[2/4]": each job runs its own
 * share of the work, so each is its own series. The result points into
 * explicit_key, the environment or buf.
 */
const char *tk_ci_key(const struct tk_env *env, const char *explicit_key, struct tk_buf *buf);

/*
 * 1 when the job runs under a CI or batch system: a provider other than
 * local detects itself, or $CI is set to something other than "", "0" or
 * "false" (most CI systems export CI=true).
 */
int tk_ci_detected(const struct tk_env *env);

/*
 * A key for a run that was given none (tk_ci_key returned NULL), so that a
 * wrapped CI step always runs: the slug (tk_ci_slug) of the step name of
 * the first provider, in table order, that detects itself and whose
 * step name slugs to something non-empty -- the Buildkite label, the
 * GitHub job, the GitLab job name, the SLURM job name -- else, under CI
 * (tk_ci_detected), the slug of the base name of command (may be NULL).
 *
 * In a job of a Buildkite step with parallelism it gets "[JOB/COUNT]"
 * appended, as tk_ci_key's do.
 *
 * Appends the key to key and, when from is not NULL, a phrase naming
 * where it came from ("the Buildkite label ':earth_africa: AMIP'") to
 * from. Returns 0, or TK_EUSAGE with a message saying how to name a key
 * when nothing gives one (outside CI).
 */
int tk_ci_derive_key(const struct tk_env *env, const char *command,
		     struct tk_buf *key, struct tk_buf *from, struct tk_err *err);

/*
 * Appends to out a key made of name: Buildkite emoji shortcodes
 * (":earth_africa:" standing as a word of their own) removed, ASCII
 * letters lower-cased, runs of anything but [a-z0-9._] made one '-', no
 * '-', '.' or '_' at either end, at most TK_CI_SLUG_MAX bytes. Appends
 * nothing when nothing is left (":rocket:").
 */
#define TK_CI_SLUG_MAX 64
void tk_ci_slug(const char *name, struct tk_buf *out);

/* 1 when s is a full hexadecimal object name (40: SHA-1, 64: SHA-256). */
int tk_ci_is_sha(const char *s);

/* The first provider of a CI system (one with a step_var) that detects
 * itself in env, the one that publishes reports; NULL outside CI. */
const struct tk_ci_provider *tk_ci_system(const struct tk_env *env);

/* The lookup of the providers' table (plugins/ci/providers.c): the i-th provider in
 * detection order (the first to detect itself names the CI), NULL past
 * the last. */
const struct tk_ci_provider *tk_ci_provider_at(size_t i);

#endif
