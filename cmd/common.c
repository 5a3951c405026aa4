/*
 * Lookups shared by the commands: where the database and the artifacts are.
 */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/base/env.h"
#include "core/base/fsutil.h"
#include "core/base/banned.h"

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

void cmd_keep_heap(void)
{
	/* the largest mmap threshold glibc takes on 64 bits; trim past 1 GiB */
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
}

void cmd_resolve_db(const struct cmd_ctx *ctx, const char *opt, struct tk_buf *out)
{
	struct tk_db_choice how;
	struct tk_buf shown = TK_BUF_INIT, url = TK_BUF_INIT;

	tk_config_db(&ctx->config, &tk_env_process, opt, &url, &how);
	/* a broken db: must not send the runs elsewhere in silence */
	if (how.problem) {
		tk_store_redact_url(url.buf, &shown);
		if (how.from == TK_DB_FROM_CONFIG)
			cmd_note("using the database %s (db: in %s): %s", shown.buf,
				 ctx->config.path ? ctx->config.path : ".tracker.yml", how.problem);
		else
			cmd_note("using the database %s (the default): %s", shown.buf, how.problem);
	}
	tk_buf_add(out, url.buf, url.len);
	tk_buf_release(&url);
	tk_buf_release(&shown);
}

int cmd_resolve_run_id(struct tk_store *s, const char *key, const char **id,
		       char buf[TK_RUN_ID_LEN + 1], struct tk_err *err)
{
	const char *keys[2] = { key, NULL };
	struct tk_buf whole = TK_BUF_INIT;
	int ret;

	if (!*id || strlen(*id) >= TK_RUN_ID_LEN)
		return 0;
	ret = tk_store_resolve_run_id(s, *id, key ? keys : NULL, &whole, err);
	if (!ret && whole.len == TK_RUN_ID_LEN) {
		memcpy(buf, whole.buf, TK_RUN_ID_LEN + 1);
		*id = buf;
	}
	tk_buf_release(&whole);
	return ret;
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

int cmd_write_output(const char *path, tk_write_fn fn, void *data)
{
	struct tk_err err = TK_ERR_INIT;

	if (!tk_write_file_stream(path, fn, data, TK_WRITE_NO_FSYNC, &err))
		return 0;
	return cmd_fail(&err);
}

static volatile sig_atomic_t cancel_flag;

static void on_cancel_signal(int sig)
{
	(void)sig;
	cancel_flag = 1;
}

const volatile sig_atomic_t *cmd_catch_cancel(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction sa, cur;
	sigset_t set;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&set);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &cur) && cur.sa_handler != SIG_IGN) {
			sigaction(sigs[i], &sa, NULL);
			sigaddset(&set, sigs[i]);
		}
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	return &cancel_flag;
}

void cmd_store_close(struct tk_store *s)
{
	if (s && s->skipped)
		cmd_warning("skipped %zu stored run(s) with a figure no run can have, "
			    "which a check or chart would not survive (first: %s)",
			    s->skipped, s->skipped_first);
	tk_store_close(s);
}
