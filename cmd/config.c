/*
 * tracker config check: validate a .tracker.yml, for a CI lint step.
 *
 * Every other command reports the same warnings and errors when it reads
 * the file; this one exits non-zero on any of them, and names the file it
 * checked when all is well.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/base/escape.h"
#include "core/ci/ci.h"
#include "core/model/config.h"
#include "core/base/table.h"
#include "core/base/banned.h"

const char cmd_config_usage[] =
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

int cmd_config(int argc, char **argv, struct cmd_ctx *ctx)
{
	static const struct option opts[] = { { NULL, 0, NULL, 0 } };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1)
		return cmd_usage_error(ctx, "unknown option '%s'", argv[optind - 1]);
	if (optind >= argc)
		return cmd_usage_error(ctx, "which action? (check)");
	if (strcmp(argv[optind], "check"))
		return cmd_usage_error(ctx, "unknown action '%s' (check)", argv[optind]);
	if (argc - optind > 2)
		return cmd_usage_error(ctx, "check takes at most one FILE");
	return check(argc - optind == 2 ? argv[optind + 1] : NULL);
}
