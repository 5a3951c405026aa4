/*
 * The process environment as a struct tk_env.
 */
#include "core/base/env.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

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
