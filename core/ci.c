/*
 * The CI context: the process environment as a struct tk_env, the walk
 * over the providers, and the run key.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/ci.h"
#include "plugins/plugins.h"
#include "core/banned.h"

extern char **environ;

static const char *process_get(void *data, const char *name)
{
	return getenv(name);
}

static int process_each(void *data,
			int (*fn)(const char *name, const char *value, void *arg),
			void *arg)
{
	char **e;

	for (e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;
		int ret;

		/* Entries without '=' can be planted with execve; skip them. */
		if (!eq || eq == *e)
			continue;
		name = tk_xstrndup(*e, (size_t)(eq - *e));
		ret = fn(name, eq + 1, arg);
		free(name);
		if (ret)
			return ret;
	}
	return 0;
}

const struct tk_env tk_env_process = {
	.get = process_get,
	.data = NULL,
	.workdir = NULL,
	.each = process_each,
};

int tk_ci_is_sha(const char *s)
{
	size_t n = 0;

	if (!s)
		return 0;
	for (; s[n]; n++)
		if (!isxdigit((unsigned char)s[n]))
			return 0;
	return n == 40 || n == 64;
}

static void fill_host(struct tk_ci_context *ctx)
{
	char name[HOST_NAME_MAX + 1];

	if (ctx->host)
		return;
	if (gethostname(name, sizeof(name)))
		return;
	name[sizeof(name) - 1] = '\0';
	tk_set_once(&ctx->host, name);
}

int tk_ci_collect(const struct tk_env *env, struct tk_ci_context *ctx,
		  struct tk_err *err)
{
	const struct tk_ci_provider *const *p;
	struct tk_err one = TK_ERR_INIT;
	int first = 0;

	for (p = tk_ci_providers; *p; p++) {
		int ret;

		if (!(*p)->detect(env))
			continue;
		tk_set_once(&ctx->provider, (*p)->name);
		ret = (*p)->collect(env, ctx, first ? &one : err);
		if (ret && !first)
			first = ret;
	}
	fill_host(ctx);
	return first;
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

const char *tk_ci_key(const struct tk_env *env, const char *explicit_key)
{
	const char *k;

	k = nonempty(explicit_key);
	if (k)
		return k;
	k = nonempty(tk_env_get(env, "TRACKER_KEY"));
	if (k)
		return k;
	return nonempty(tk_env_get(env, "BUILDKITE_STEP_KEY"));
}
