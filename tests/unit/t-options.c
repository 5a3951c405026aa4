/*
 * cmd/options: the commands' option parser and their -h's "Options:"
 * section, compiled in here with a stand-in for cmd_usage_error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.c"
#include "tests/unit/tap.h"

static char usage_msg[TK_ERR_MSG_MAX];

int cmd_usage_error(const struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(usage_msg, sizeof(usage_msg), fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

struct opts {
	int flag, other;
	const char *str;
	struct cmd_strlist list;
	long n;
	double x, y;
	double dur, pos_dur;
	int mode;
	const char *cb;
};

static const struct cmd_choice modes[] = {
	{ "self", 1 }, { "cumulative", 2 }, { "both", 3 }, { NULL, 0 },
};

static int even_cb(void *data, const char *arg, struct tk_err *err)
{
	struct opts *o = data;

	if (strlen(arg) % 2)
		return tk_err_set(err, TK_EDATA, "'%s' has an odd length", arg);
	o->cb = arg;
	return 0;
}

#define O struct opts
static const struct cmd_option table[] = {
	OPT_FLAG('q', "quiet", O, flag, "no summary"),
	OPT_FLAG('v', "verbose", O, other, "more words"),
	OPT_STRING('o', "output", O, str, "OUT", "the output file"),
	OPT_STRING_LIST(0, "key", O, list, "K", "a key (repeatable)"),
	OPT_LONG('j', "jobs", O, n, "N", 1, 256, "workers"),
	OPT_DOUBLE(0, "width", O, x, "PX", 100, 1e6, "the width"),
	OPT_DOUBLE_ABOVE(0, "threshold", O, y, "X", 0, HUGE_VAL, "the threshold"),
	OPT_DURATION(0, "timeout", O, dur, "DUR", "the timeout"),
	OPT_POSITIVE_DURATION(0, "wait", O, pos_dur, "DUR", "the wait"),
	OPT_CHOICE(0, "mode", O, mode, "M", modes, "the mode"),
	OPT_CALLBACK(0, "even", "S", even_cb, "a string of even length"),
	OPT_FLAG(0, "baseline-branch", O, other, "a name that starts like another"),
	OPT_FLAG(0, "baselines", O, other, "a name that starts like another"),
	OPT_END(),
};

static const struct cmd_option limits[] = {
	OPT_LONG(0, "limit", O, n, "N", 1, LONG_MAX, "at most N"),
	OPT_LONG(0, "any", O, n, "N", LONG_MIN, LONG_MAX, "any number"),
	OPT_DOUBLE(0, "delta", O, x, "N", 0, HUGE_VAL, "a delta"),
	OPT_DOUBLE_ABOVE(0, "size", O, x, "PX", 20, 1e6, "a size"),
	OPT_END(),
};

#define MAX_ARGS 16

/* Parses the words of line (space-separated; argv[0] is "cmd") into o;
 * returns what cmd_options_parse returns, args the arguments left. */
static int parse_with(const struct cmd_option *t, const char *line, struct opts *o,
		      const struct cmd_parse *how, struct tk_err *err, char *args, size_t size)
{
	static char buf[1024];
	char *argv[MAX_ARGS + 1], *p = buf, *save;
	int argc = 0, n, i;

	snprintf(buf, sizeof(buf), "cmd %s", line);
	memset(o, 0, sizeof(*o));
	tk_err_clear(err);
	for (p = strtok_r(buf, " ", &save); p && argc < MAX_ARGS; p = strtok_r(NULL, " ", &save))
		argv[argc++] = p;
	argv[argc] = NULL;
	n = cmd_options_parse(t, o, argc, argv, how, err);
	args[0] = '\0';
	for (i = 0; n >= 0 && i < n; i++)
		snprintf(args + strlen(args), size - strlen(args), "%s%s", i ? " " : "", argv[i]);
	if (n >= 0 && argv[n])
		snprintf(args, size, "argv[%d] is not NULL", n);
	return n;
}

static int parse(const char *line, struct opts *o, struct tk_err *err, char *args, size_t size)
{
	return parse_with(table, line, o, NULL, err, args, size);
}

/* The message of the usage error line makes. */
static const char *error_of(const struct cmd_option *t, const char *line)
{
	static struct tk_err err;
	struct opts o;
	char args[256];

	if (parse_with(t, line, &o, NULL, &err, args, sizeof(args)) != TK_EUSAGE)
		return "(no error)";
	cmd_strlist_release(&o.list);
	return err.msg;
}

static void test_types(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct opts o;
	char args[256];
	int n;

	n = parse("-q --output out.svg a --key x b --key=y -j 8 --width 120.5", &o, &err, args,
		  sizeof(args));
	is_int(n, 2, "two arguments among the options");
	is_str(args, "a b", "the arguments kept in order, argv ends with NULL");
	is_int(o.flag, 1, "flag: -q sets its int");
	is_str(o.str, "out.svg", "string: --output OUT");
	is_int(o.list.nr, 2, "string list: --key twice");
	ok(o.list.nr == 2 && !strcmp(o.list.v[0], "x") && !strcmp(o.list.v[1], "y") &&
	   !o.list.v[2], "string list: in order, --key=y, NULL-terminated");
	is_int(o.n, 8, "whole number: -j 8");
	ok(o.x == 120.5, "number: --width 120.5");
	cmd_strlist_release(&o.list);

	parse("-qv -oout.png -j8", &o, &err, args, sizeof(args));
	ok(o.flag && o.other, "-qv: two flags at once");
	is_str(o.str, "out.png", "-oOUT: the value in the same word");
	is_int(o.n, 8, "-j8");

	parse("--timeout 1h30m --wait=90s --mode cumulative --threshold 0.005", &o, &err, args,
	      sizeof(args));
	ok(o.dur == 5400, "duration: 1h30m");
	ok(o.pos_dur == 90, "positive duration: 90s");
	is_int(o.mode, 2, "choice: the value paired with the name");
	ok(o.y == 0.005, "number above 0");

	n = parse("--even abcd x", &o, &err, args, sizeof(args));
	is_str(o.cb, "abcd", "callback: given the options struct and the value");
	is_int(n, 1, "callback: the argument after it stays");

	parse("--out a.svg --time 5", &o, &err, args, sizeof(args));
	is_str(o.str, "a.svg", "the start of a long name names it");
	ok(o.dur == 5, "--time for --timeout");
	parse("--baselines", &o, &err, args, sizeof(args));
	is_int(o.other, 1, "a whole name that is also the start of another is itself");

	parse("--output x --output y", &o, &err, args, sizeof(args));
	is_str(o.str, "y", "a string given twice: the last wins");
}

static void test_arguments(void)
{
	struct cmd_parse stop = { CMD_PARSE_STOP_AT_ARG, NULL, NULL };
	struct tk_err err = TK_ERR_INIT;
	struct opts o;
	char args[256];
	int n;

	n = parse("-q -- -v --output x", &o, &err, args, sizeof(args));
	is_int(n, 3, "-- ends the options");
	is_str(args, "-v --output x", "what follows -- is arguments");
	ok(!o.other && !o.str, "options after -- are not parsed");

	n = parse("- -q", &o, &err, args, sizeof(args));
	is_str(args, "-", "- alone is an argument (standard input)");
	is_int(o.flag, 1, "and options go on after it");

	n = parse_with(table, "-q make -v --output x", &o, &stop, &err, args, sizeof(args));
	is_int(n, 4, "stop at the first argument");
	is_str(args, "make -v --output x", "what follows it is the command's");
	ok(o.flag && !o.other, "options before it are parsed, those after are not");

	n = parse_with(table, "-q -- make -v", &o, &stop, &err, args, sizeof(args));
	is_str(args, "make -v", "stop at --: the command after it");

	n = parse("--key -x", &o, &err, args, sizeof(args));
	ok(n == 0 && o.list.nr == 1 && !strcmp(o.list.v[0], "-x"),
	   "a value that starts with - is the value");
	cmd_strlist_release(&o.list);

	n = parse("", &o, &err, args, sizeof(args));
	is_int(n, 0, "no arguments at all");
}

static void test_errors(void)
{
	is_str(error_of(table, "--frob"), "unknown option '--frob'", "unknown long option");
	is_str(error_of(table, "--frob=3"), "unknown option '--frob'",
	       "unknown long option with a value");
	is_str(error_of(table, "-qx"), "unknown option '-x'", "unknown short option");
	is_str(error_of(table, "--base"),
	       "option '--base' is ambiguous: --baseline-branch or --baselines",
	       "the start of several names");
	is_str(error_of(table, "--output"), "option '--output' needs a value",
	       "missing value, long");
	is_str(error_of(table, "-o"), "option '-o' needs a value", "missing value, short");
	is_str(error_of(table, "--quiet=yes"), "option '--quiet' takes no value",
	       "a flag given a value");
	is_str(error_of(table, "--key="), "option '--key' needs a non-empty value",
	       "an empty value in a list");
	is_str(error_of(table, "--jobs 0"),
	       "option '--jobs' wants a whole number from 1 to 256, not '0'",
	       "whole number below its range");
	is_str(error_of(table, "-j 1.5"),
	       "option '-j' wants a whole number from 1 to 256, not '1.5'",
	       "not a whole number, named as typed");
	is_str(error_of(limits, "--limit 0"),
	       "option '--limit' wants a whole number of at least 1, not '0'",
	       "whole number without a maximum");
	is_str(error_of(limits, "--any x"), "option '--any' wants a whole number, not 'x'",
	       "whole number without a range");
	is_str(error_of(table, "--width 99"),
	       "option '--width' wants a number from 100 to 1000000, not '99'",
	       "number out of its range");
	is_str(error_of(table, "--width 1e7"),
	       "option '--width' wants a number from 100 to 1000000, not '1e7'",
	       "number above its range");
	is_str(error_of(table, "--width wide"),
	       "option '--width' wants a number from 100 to 1000000, not 'wide'",
	       "not a number");
	is_str(error_of(table, "--threshold 0"),
	       "option '--threshold' wants a number above 0, not '0'",
	       "number above a minimum: the minimum itself is refused");
	is_str(error_of(limits, "--delta -1"),
	       "option '--delta' wants a number of at least 0, not '-1'",
	       "number without a maximum");
	is_str(error_of(limits, "--size 20"),
	       "option '--size' wants a number above 20, at most 1000000, not '20'",
	       "number above a minimum, with a maximum");
	is_str(error_of(table, "--timeout soon"),
	       "option '--timeout' wants a duration such as 90, 90s, 1.5m, 2h or 1h30m, "
	       "not 'soon'", "duration that does not parse");
	is_str(error_of(table, "--wait 0"),
	       "option '--wait' wants a duration above 0, not '0'", "positive duration of 0");
	is_str(error_of(table, "--mode none"),
	       "option '--mode' wants self, cumulative or both, not 'none'",
	       "unknown choice, naming the choices");
	is_str(error_of(table, "--even abc"), "option '--even': 'abc' has an odd length",
	       "the callback's own message");
}

static void warn_cb(void *data, const char *msg)
{
	struct tk_buf *b = data;

	tk_buf_addf(b, "[%s]", msg);
}

static void test_keep_going(void)
{
	struct tk_buf said = TK_BUF_INIT;
	struct cmd_parse how = { CMD_PARSE_STOP_AT_ARG, warn_cb, &said };
	struct tk_err err = TK_ERR_INIT;
	struct opts o;
	char args[256];
	int n;

	n = parse_with(table, "--jobs 0 -q --frob 3 -- make -k", &o, &how, &err, args,
		       sizeof(args));
	is_int(n, 2, "keep going: the problems are reported, the command found");
	is_str(args, "make -k", "an unknown option's value before -- is skipped");
	is_str(said.buf, "[option '--jobs' wants a whole number from 1 to 256, not '0']"
	       "[unknown option '--frob']", "each problem reported once, in order");
	ok(o.flag && !o.n, "the options around them are taken, the bad one ignored");

	tk_buf_reset(&said);
	n = parse_with(table, "--frob 3 4 -- make", &o, &how, &err, args, sizeof(args));
	is_str(args, "make", "past an unknown option, the command is what follows --");

	tk_buf_reset(&said);
	n = parse_with(table, "--frob make", &o, &how, &err, args, sizeof(args));
	is_str(args, "make", "without --, the word after an unknown option is the command");
	tk_buf_release(&said);
}

/* -h of a table, in a string. */
static char *help_of(const struct cmd_option *t)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);

	cmd_options_help(f, t);
	fclose(f);
	return mem;
}

static void test_help(void)
{
	static const struct cmd_option t[] = {
		OPT_STRING('o', "output", O, str, "OUT", "the output file"),
		OPT_FLAG(0, "inverted", O, flag, "icicle graph: the root at the top"),
		OPT_STRING(0, "profile-file", O, str, "PATH[:FORMAT]",
			   "after the job, import the profile it wrote to PATH and store it "
			   "with the run (repeatable); a missing or unreadable file is a "
			   "warning, the run is still recorded"),
		OPT_STRING(0, "palette", O, str, "P", "hot (default), mem, io\nor red"),
		OPT_END(),
	};
	char *h = help_of(t), *line, *save;
	int widest = 0;

	is_str(h,
	       "  -o, --output OUT  the output file\n"
	       "  --inverted        icicle graph: the root at the top\n"
	       "  --profile-file PATH[:FORMAT]\n"
	       "                    after the job, import the profile it wrote to PATH and\n"
	       "                    store it with the run (repeatable); a missing or unreadable\n"
	       "                    file is a warning, the run is still recorded\n"
	       "  --palette P       hot (default), mem, io\n"
	       "                    or red\n",
	       "-h: aligned at one column, a long form on its own line, wrapped, \\n kept");
	for (line = strtok_r(h, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if ((int)strlen(line) > widest)
			widest = (int)strlen(line);
	ok(widest <= 79, "no line is wider than 79 columns (%d)", widest);
	free(h);

	{
		char *mem = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&mem, &len);

		cmd_options_list(f, t);
		fclose(f);
		is_str(mem, "--output\n--inverted\n--profile-file\n--palette\n",
		       "--list-options: the long names, one a line");
		free(mem);
	}
}

static void test_cmd_wrapper(void)
{
	char a0[] = "cmd", a1[] = "--jobs", a2[] = "x", a3[] = "-q", a4[] = "file";
	char *argv[] = { a0, a1, a2, NULL };
	char *argv2[] = { a0, a3, a4, NULL };
	struct opts o;

	memset(&o, 0, sizeof(o));
	is_int(cmd_parse_options(NULL, table, &o, 3, argv, 0), -1,
	       "cmd_parse_options: -1 on a usage error");
	is_str(usage_msg, "option '--jobs' wants a whole number from 1 to 256, not 'x'",
	       "and the message went to cmd_usage_error");
	is_int(cmd_parse_options(NULL, table, &o, 3, argv2, 0), 1,
	       "cmd_parse_options: the number of arguments");
	is_str(argv2[0], "file", "moved to argv[0]");
}

int main(void)
{
	test_types();
	test_arguments();
	test_errors();
	test_keep_going();
	test_help();
	test_cmd_wrapper();
	return done_testing();
}
