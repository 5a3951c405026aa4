/*
 * tracker: the entry point and the one dispatch table of subcommands.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/base/escape.h"
#include "core/ci/ci.h"
#include "core/model/config.h"
#include "core/base/suggest.h"
#include "core/base/table.h"
#include "core/measure/unwind.h"
#include "core/base/banned.h"

static const struct cmd_help help_help = {
	"usage: tracker help [COMMAND]\n"
	"\n"
	"Shows the list of commands, or the full help of COMMAND.\n",
	NULL, NULL,
};

static const struct cmd_help version_help = {
	"usage: tracker version\n"
	"\n"
	"Prints tracker's version (also: tracker --version), and a line for each\n"
	"optional library the build was made without.\n",
	NULL, NULL,
};

static const struct cmd_entry commands[] = {
	{ "run", cmd_run, CMD_CONFIG_WARN | CMD_OWN_XFSZ, "wrap a job step, measure it and record the run",
	  &cmd_run_help },
	{ "history", cmd_history, 0, "list recorded runs, newest first",
	  &cmd_history_help },
	{ "push", cmd_push, 0, "store run record files in the database",
	  &cmd_push_help },
	{ "backfill", cmd_backfill, 0, "store the frame totals of profiles stored without them",
	  &cmd_backfill_help },
	{ "flame", cmd_flame, 0, "render a profile as a flame graph", &cmd_flame_help },
	{ "import", cmd_import, 0, "attach a profile file to a recorded run",
	  &cmd_import_help },
	{ "diff", cmd_diff, 0, "render a profile against its baseline", &cmd_diff_help },
	{ "pipeline", cmd_pipeline, CMD_NO_CONFIG,
	  "wrap a Buildkite pipeline's step commands in tracker run", &cmd_pipeline_help },
	{ "dashboard", cmd_dashboard, 0, "write one page of every key's history and verdict",
	  &cmd_dashboard_help },
	{ "check", cmd_check, 0, "judge this build's runs against their baseline",
	  &cmd_check_help },
	{ "fetch", cmd_fetch, 0, "fill the history with the records of Buildkite builds",
	  &cmd_fetch_help },
	{ "report", cmd_report, 0, "write this build's charts, diffs and verdicts, and publish them",
	  &cmd_report_help },
	{ "config", cmd_config, CMD_NO_CONFIG, "check a .tracker.yml file",
	  &cmd_config_help },
	{ "help", cmd_help, CMD_NO_CONFIG, "show help for tracker or one command", &help_help },
	{ "version", cmd_version, CMD_NO_CONFIG, "print the version", &version_help },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char main_usage_head[] =
	"usage: tracker [--version] [--help] COMMAND [ARGS]\n"
	"\n"
	"Makes performance regressions of CI and batch jobs visible: wraps job\n"
	"steps, records walltime and memory in a history database, and lists it.\n"
	"\n"
	"Commands:\n";

static const char main_usage_tail[] =
	"\n"
	"Run 'tracker help COMMAND' or 'tracker COMMAND -h' for a command's options.\n"
	"Exit codes: 0 ok, 2 usage error, 65 bad input data, 69 service\n"
	"unavailable, 70 internal error; 'run' exits with the job's status.\n";

static void vreport(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Messages quote keys, branches, paths and names: one line each, with
 * no control character reaching the terminal (core/base/table.h). */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	struct tk_buf msg = TK_BUF_INIT, shown = TK_BUF_INIT;

	tk_buf_vaddf(&msg, fmt, ap);
	tk_text_escape(&shown, msg.buf, msg.len);
	fflush(stdout);
	fprintf(stderr, "tracker: %s%s\n", prefix, shown.buf);
	tk_buf_release(&msg);
	tk_buf_release(&shown);
}

void cmd_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error: ", fmt, ap);
	va_end(ap);
}

void cmd_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void cmd_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
}

int cmd_fail(const struct tk_err *err)
{
	cmd_error("%s", err->msg[0] ? err->msg : "unknown error");
	return tk_err_exit_code(err->code ? err->code : TK_EINTERNAL);
}

void cmd_since_hint(struct tk_store *store, const struct tk_run_query *q, struct tk_err *err)
{
	char msg[TK_ERR_MSG_MAX];
	struct tk_run_query all = *q;
	struct tk_err qerr = TK_ERR_INIT;

	/* only when runs the default --since left out would have matched */
	all.since_us = 0;
	if (tk_store_any_run(store, &all, &qerr) != 1)
		return;
	snprintf(msg, sizeof(msg), "%s", err->msg);
	tk_err_set(err, err->code, "%s; --since defaults to 1y: older runs need an earlier "
		   "--since (e.g. --since 2000-01-01)", msg);
}

static const struct cmd_entry *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* The synopsis: the usage text up to its first blank line. */
static void print_synopsis(FILE *f, const struct cmd_entry *c)
{
	const char *usage = c->help->usage;
	const char *end = strstr(usage, "\n\n");
	int len = end ? (int)(end - usage + 1) : (int)strlen(usage);

	fprintf(f, "%.*s", len, usage);
}

/* The full -h: usage, the options of the table, the rest. */
static void print_help(FILE *f, const struct cmd_entry *c)
{
	const struct cmd_help *h = c->help;

	fputs(h->usage, f);
	if (h->options && h->options->type != CMD_OPT_END) {
		fputs("\nOptions:\n", f);
		cmd_options_help(f, h->options);
	}
	if (h->more)
		fputs(h->more, f);
}

int cmd_usage_error(const struct cmd_ctx *ctx, const char *fmt, ...)
{
	const struct cmd_entry *c = find_command(ctx->name);
	va_list ap;

	va_start(ap, fmt);
	vreport("", fmt, ap);
	va_end(ap);
	if (c) {
		print_synopsis(stderr, c);
		fprintf(stderr, "Run 'tracker %s -h' for the full help.\n", c->name);
	}
	return EXIT_USAGE;
}

static void print_main_usage(FILE *f)
{
	size_t i;

	fputs(main_usage_head, f);
	for (i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "   %-10s %s\n", commands[i].name, commands[i].summary);
	fputs(main_usage_tail, f);
}

static int unknown_command(const char *name)
{
	const struct cmd_entry *best = NULL;
	size_t i, best_d = 99;

	for (i = 0; i < NR_COMMANDS; i++) {
		size_t d = tk_edit_distance(name, commands[i].name);

		if (!strncmp(name, commands[i].name, strlen(name)) && *name)
			d = 1;
		if (d < best_d) {
			best_d = d;
			best = &commands[i];
		}
	}
	cmd_error("'%s' is not a tracker command; see 'tracker --help'", name);
	if (best && best_d <= 3)
		fprintf(stderr, "\nThe most similar command is\n\t%s\n", best->name);
	return EXIT_USAGE;
}

int cmd_help(int argc, char **argv, struct cmd_ctx *ctx)
{
	const struct cmd_entry *c;

	if (argc < 2) {
		print_main_usage(stdout);
		return 0;
	}
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	print_help(stdout, c);
	return 0;
}

int cmd_version(int argc, char **argv, struct cmd_ctx *ctx)
{
	printf("tracker %s\n", TRACKER_VERSION);
	/* what a build left out (the Makefile's pkg-config probes) */
	if (tk_unwind_missing())
		printf("built without libdw: the built-in profiler records no profiles\n");
#ifndef TK_WITH_LIBUNWIND
	printf("built without libunwind: allocation stacks follow frame pointers only\n");
#endif
#ifndef TK_WITH_LIBPQ
	printf("built without libpq: postgresql:// databases are unavailable\n");
#endif
#ifndef TK_WITH_ISAL
	printf("built without ISA-L: stored profiles are inflated with zlib, at half the speed\n");
#endif
	return 0;
}

/* -h/--help anywhere before "--" asks for help. */
static int wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

/*
 * A .tracker.yml that cannot be read fails most commands, but `run` only
 * warns: the job must run and keep its exit status whatever state the
 * config is in. A mistake in one setting is a warning for every command,
 * and the rest of the file applies.
 */
static int load_config(struct cmd_ctx *ctx, unsigned flags)
{
	struct tk_buf path = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	size_t i;
	int ret = 0;

	if (tk_config_find(&tk_env_process, &path) &&
	    tk_config_load(path.buf, &ctx->config, &err)) {
		if (flags & CMD_CONFIG_WARN) {
			cmd_warning("ignoring the configuration: %s", err.msg);
			tk_config_release(&ctx->config);
			tk_config_init(&ctx->config);
			/* its db: too: the database line says why it is not used */
			ctx->config.db_problem = tk_xstrdup(err.msg);
		} else {
			ret = cmd_fail(&err);
		}
	}
	for (i = 0; i < ctx->config.nr_warnings; i++)
		cmd_warning("%s", ctx->config.warnings[i]);
	tk_buf_release(&path);
	return ret;
}

/* tracker --list-options CMD: the long names of CMD's options, for the
 * test that finds each in CMD's -h and docs page. */
static int list_options(int argc, char **argv)
{
	const struct cmd_entry *c = argc == 3 ? find_command(argv[2]) : NULL;

	if (argc != 3) {
		cmd_error("--list-options takes one command");
		return EXIT_USAGE;
	}
	if (!c)
		return unknown_command(argv[2]);
	if (c->help->options)
		cmd_options_list(stdout, c->help->options);
	return 0;
}

static int finish_stdout(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		if (errno == EPIPE)
			return ret;
		fprintf(stderr, "tracker: error: cannot write to standard output: %s\n",
			strerror(errno));
		return ret ? ret : EXIT_INTERNAL;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct cmd_ctx ctx;
	const struct cmd_entry *c;
	int ret;

	memset(&ctx, 0, sizeof(ctx));
	tk_config_init(&ctx.config);
	if (argc < 2) {
		print_main_usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return finish_stdout(cmd_help(1, argv, &ctx));
	if (!strcmp(argv[1], "--version"))
		return finish_stdout(cmd_version(1, argv, &ctx));
	if (!strcmp(argv[1], "--list-commands")) {
		size_t i;

		for (i = 0; i < NR_COMMANDS; i++)
			printf("%s\n", commands[i].name);
		return finish_stdout(0);
	}
	if (!strcmp(argv[1], "--list-options"))
		return finish_stdout(list_options(argc, argv));
	if (argv[1][0] == '-') {
		cmd_error("unknown option '%s'", argv[1]);
		print_main_usage(stderr);
		return EXIT_USAGE;
	}
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	ctx.name = c->name;
	if (wants_help(argc - 1, argv + 1)) {
		print_help(stdout, c);
		return finish_stdout(0);
	}
	/* a write past `ulimit -f` is an ordinary write error (EFBIG): the
	 * writer removes its temporary file and says so (exit 69), where
	 * SIGXFSZ would kill it with the file left; run keeps the job's */
	if (!(c->flags & CMD_OWN_XFSZ))
		signal(SIGXFSZ, SIG_IGN);
	ret = c->flags & CMD_NO_CONFIG ? 0 : load_config(&ctx, c->flags);
	if (!ret)
		ret = c->fn(argc - 1, argv + 1, &ctx);
	tk_config_release(&ctx.config);
	return finish_stdout(ret);
}
