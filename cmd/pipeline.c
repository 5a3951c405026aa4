/*
 * tracker pipeline wrap: a Buildkite pipeline with its steps' commands
 * wrapped in `tracker run` (the work is core/ci/pipewrap.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/base/buf.h"
#include "core/ci/pipewrap.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker pipeline wrap FILE [--keys K1,K2...] [--derive-keys] [-o OUT]\n"
	"\n"
	"Prints the Buildkite pipeline FILE (- for standard input) with the command\n"
	"of each step that has a key wrapped as\n"
	"  tracker run --key KEY -- bash -e -c 'COMMAND'\n"
	"the way the agent runs it (a commands: list joined by newlines, one\n"
	"script). Everything else is copied byte for byte: comments, anchors,\n"
	"groups, plugins, env, agents. Wait, block, input and trigger steps,\n"
	"steps without a key, steps using the tracker plugin and commands that\n"
	"already run tracker are left as they are, so wrapping twice changes\n"
	"nothing. A command shared through an alias or merge key is wrapped where\n"
	"it is written only when every step that reads it is wrapped. The jobs of\n"
	"a matrix step get keys of their own, KEY[{{matrix}}] or\n"
	"KEY[a={{matrix.a}},...], and their values as tags.\n";

static const char more[] =
	"\n"
	"Steps left as they are, and why, are listed on standard error, with a\n"
	"count of the wrapped steps.\n"
	"\n"
	"Exit status: 0 ok; 65 FILE is not YAML (FILE:LINE:COLUMN: what) or\n"
	"too large; 69 FILE cannot be read or OUT written; 2 usage error.\n"
	"\n"
	"Example:\n"
	"  tracker pipeline wrap .buildkite/pipeline.yml | buildkite-agent pipeline upload\n"
	"  tracker pipeline wrap --keys amip,aquaplanet .buildkite/pipeline.yml -o wrapped.yml\n";

struct wrap_job {
	const char *name;
	struct tk_buf in;
	struct tk_pipewrap_opts opts;
	struct tk_pipewrap_stats stats;
	const char *output;
	char *keys_text; /* --keys, split in place into keys */
	char **keys;
};

/* Splits "a,b,,c" into its non-empty parts. */
static char **split_keys(char *list, size_t *nr)
{
	char **keys = NULL, *p = list;
	size_t alloc = 0;

	*nr = 0;
	while (p) {
		char *comma = strchr(p, ',');

		if (comma)
			*comma = '\0';
		if (*p) {
			TK_ALLOC_GROW(keys, *nr + 1, alloc);
			keys[(*nr)++] = p;
		}
		p = comma ? comma + 1 : NULL;
	}
	return keys;
}

static int parse_keys(void *data, const char *arg, struct tk_err *err)
{
	struct wrap_job *job = data;

	free(job->keys);
	free(job->keys_text);
	job->keys_text = tk_xstrdup(arg);
	job->keys = split_keys(job->keys_text, &job->opts.nr_keys);
	job->opts.keys = (const char *const *)job->keys;
	if (!job->opts.nr_keys)
		return tk_err_set(err, TK_EUSAGE, "no key in '%s'", arg);
	return 0;
}

#define O struct wrap_job
static const struct cmd_option options[] = {
	OPT_CALLBACK(0, "keys", "K1,K2", parse_keys, "wrap only the steps with these keys"),
	OPT_FLAG(0, "derive-keys", O, opts.derive_keys, "give steps without a key the one "
		 "tracker run would derive from their label"),
	OPT_STRING('o', "output", O, output, "OUT", "write to OUT (atomically) instead of "
		   "standard output"),
	OPT_END(),
};

const struct cmd_help cmd_pipeline_help = { usage, options, more };

static void print_warning(void *arg, const char *msg)
{
	cmd_warning("%s", msg);
}

static void print_summary(const struct wrap_job *job)
{
	const struct tk_pipewrap_stats *st = &job->stats;

	fprintf(stderr, "tracker: %zu of %zu command step(s) wrapped", st->wrapped, st->steps);
	if (st->already)
		fprintf(stderr, "; %zu already run tracker", st->already);
	if (st->no_key)
		fprintf(stderr, "; %zu without a key%s", st->no_key,
			job->opts.derive_keys ? " or label" : "");
	if (st->not_listed)
		fprintf(stderr, "; %zu not in --keys", st->not_listed);
	if (st->left)
		fprintf(stderr, "; %zu left as they are (see above)", st->left);
	fputc('\n', stderr);
}

static int write_wrapped(FILE *out, void *data, struct tk_err *err)
{
	struct wrap_job *job = data;
	struct tk_buf text = TK_BUF_INIT;
	int ret;

	ret = tk_pipewrap(job->name, job->in.buf, job->in.len, &job->opts, &text,
			  &job->stats, err);
	if (!ret && fwrite(text.buf, 1, text.len, out) != text.len)
		ret = tk_err_set(err, TK_EUNAVAIL, "write error");
	tk_buf_release(&text);
	return ret;
}

static int read_input(const char *file, struct tk_buf *in)
{
	struct tk_err err = TK_ERR_INIT;
	char chunk[65536];
	size_t n;

	in->cap = TK_PIPEWRAP_MAX_BYTES + 1;
	if (strcmp(file, "-")) {
		if (tk_buf_read_file(in, file, &err) && err.code != TK_EDATA)
			return cmd_fail(&err);
	} else {
		for (;;) {
			n = fread(chunk, 1, sizeof(chunk), stdin);
			if (!n || tk_buf_add(in, chunk, n))
				break;
		}
		if (ferror(stdin)) {
			cmd_error("cannot read standard input");
			return EXIT_UNAVAILABLE;
		}
	}
	if (in->len > TK_PIPEWRAP_MAX_BYTES || err.code == TK_EDATA) {
		cmd_error("%s: larger than %u bytes", strcmp(file, "-") ? file : "<stdin>",
			  TK_PIPEWRAP_MAX_BYTES);
		return EXIT_DATA;
	}
	return 0;
}

static int cmd_wrap(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct wrap_job job;
	struct tk_err err = TK_ERR_INIT;
	int nr_args, ret;

	memset(&job, 0, sizeof(job));
	tk_buf_init(&job.in, 0);
	job.opts.warn = print_warning;
	nr_args = cmd_parse_options(ctx, options, &job, argc, argv, 0);
	if (nr_args != 1) {
		free(job.keys);
		free(job.keys_text);
		if (nr_args < 0)
			return EXIT_USAGE;
		return cmd_usage_error(ctx, "wrap takes one FILE (- for standard input)");
	}
	job.name = strcmp(argv[0], "-") ? argv[0] : "<stdin>";
	ret = read_input(argv[0], &job.in);
	if (!ret) {
		if (job.output) {
			ret = cmd_write_output(job.output, write_wrapped, &job);
		} else {
			ret = write_wrapped(stdout, &job, &err);
			if (ret)
				ret = cmd_fail(&err);
		}
	}
	if (!ret)
		print_summary(&job);
	free(job.keys);
	free(job.keys_text);
	tk_buf_release(&job.in);
	return ret;
}

int cmd_pipeline(int argc, char **argv, struct cmd_ctx *ctx)
{
	if (argc < 2)
		return cmd_usage_error(ctx, "which action? (wrap)");
	if (strcmp(argv[1], "wrap"))
		return cmd_usage_error(ctx, "unknown action '%s' (wrap)", argv[1]);
	return cmd_wrap(argc - 1, argv + 1, ctx);
}
