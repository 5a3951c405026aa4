/*
 * tracker config check: validate a .tracker.yml, for a CI lint step.
 *
 * Every other command reports the same warnings and errors when it reads
 * the file; this one exits non-zero on any of them, and names the file it
 * checked when all is well.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/base/escape.h"
#include "core/ci/ci.h"
#include "core/model/config.h"
#include "core/base/table.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker config check [FILE]\n"
	"\n"
	"Validates a configuration file: FILE, else the one tracker would use\n"
	"($TRACKER_CONFIG, else .tracker.yml here or in the nearest parent\n"
	"directory). Prints each problem as FILE:LINE:COLUMN: what, on stderr,\n"
	"and \"FILE: ok\" on stdout when there is none.\n"
	"\n"
	"Exit status: 0 the file is valid; 65 it has an error or a warning (an\n"
	"unknown field, a value of the wrong type, a duplicate key), or no\n"
	"file was found; 2 usage error.\n"
	"\n"
	"Example:\n"
	"  tracker config check                 # in a CI lint step\n"
	"  tracker config check ci/other.yml\n";

static int check(const char *file)
{
	struct tk_buf path = TK_BUF_INIT, shown = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_config c;
	size_t i;
	int ret = 0;

	tk_config_init(&c);
	if (file) {
		tk_buf_adds(&path, file);
	} else if (!tk_config_find(&tk_env_process, &path)) {
		cmd_error("no configuration file: no $TRACKER_CONFIG, and no .tracker.yml "
			  "here or in a parent directory");
		tk_buf_release(&path);
		return EXIT_DATA;
	}
	if (tk_config_load(path.buf, &c, &err)) {
		ret = cmd_fail(&err);
	} else {
		for (i = 0; i < c.nr_warnings; i++)
			cmd_error("%s", c.warnings[i]);
		if (c.nr_warnings)
			ret = EXIT_DATA;
		else
			printf("%s: ok\n", tk_text_shown(&shown, path.buf));
	}
	tk_config_release(&c);
	tk_buf_release(&path);
	tk_buf_release(&shown);
	return ret;
}

static const struct cmd_option options[] = {
	OPT_END(),
};

const struct cmd_help cmd_config_help = { usage, options, NULL };

int cmd_config(int argc, char **argv, struct cmd_ctx *ctx)
{
	int nr_args = cmd_parse_options(ctx, options, NULL, argc, argv, CMD_PARSE_STOP_AT_ARG);

	if (nr_args < 0)
		return EXIT_USAGE;
	if (!nr_args)
		return cmd_usage_error(ctx, "which action? (check)");
	if (strcmp(argv[0], "check"))
		return cmd_usage_error(ctx, "unknown action '%s' (check)", argv[0]);
	if (nr_args > 2)
		return cmd_usage_error(ctx, "check takes at most one FILE");
	return check(nr_args == 2 ? argv[1] : NULL);
}
