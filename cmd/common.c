/*
 * Lookups shared by the commands: where the database and the artifacts are.
 */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "core/banned.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

void cmd_resolve_db(const struct cmd_ctx *ctx, const char *opt, struct tk_buf *out)
{
	const char *v = nonempty(opt);
	const char *home;

	if (!v)
		v = nonempty(getenv("TRACKER_DB"));
	if (!v)
		v = nonempty(ctx->config.db);
	if (v) {
		tk_buf_adds(out, v);
		return;
	}
	home = nonempty(getenv("XDG_DATA_HOME"));
	if (home) {
		tk_buf_addf(out, "%s/tracker/history.db", home);
		return;
	}
	home = nonempty(getenv("HOME"));
	tk_buf_addf(out, "%s/.local/share/tracker/history.db", home ? home : ".");
}

void cmd_resolve_artifacts(const struct cmd_ctx *ctx, const char *opt, struct tk_buf *out)
{
	const char *v = nonempty(opt);

	if (!v)
		v = nonempty(getenv("TRACKER_ARTIFACTS"));
	if (!v)
		v = nonempty(ctx->config.artifacts);
	tk_buf_adds(out, v ? v : "tracker-artifacts");
}
