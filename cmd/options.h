#ifndef CMD_OPTIONS_H
#define CMD_OPTIONS_H
/*
 * Options are data: each command declares its options once, in a const
 * table, and the parsing, the "Options:" section of its -h and the test
 * that its docs page lists every option all come from that table.
 *
 * An entry names the option (a long name, maybe a short one), the name of
 * its value in -h, its help text, its type, and where the value goes: a
 * field of the command's options struct, given as an offset, so that the
 * table is static and the dispatcher can print -h without running the
 * command. The OPT_* macros fill entries and check at compile time that
 * the field has the type the option writes:
 *
 *	struct flame_opts { const char *out; int inverted; long width; ... };
 *	#define O struct flame_opts
 *	static const struct cmd_option flame_options[] = {
 *		OPT_STRING('o', "output", O, out, "OUT", "the output file"),
 *		OPT_FLAG(0, "inverted", O, inverted, "icicle graph: the root at the top"),
 *		OPT_LONG(0, "width", O, width, "PX", 100, 20000, "image width"),
 *		OPT_END(),
 *	};
 *
 * Types, and what they write:
 *
 *   OPT_FLAG          int, set to 1
 *   OPT_STRING        const char *, the argument itself (argv's, not copied)
 *   OPT_STRING_LIST   struct cmd_strlist, the argument appended (repeatable;
 *                     an empty value is refused)
 *   OPT_LONG          long, a whole number from min to max
 *   OPT_DOUBLE        double, a number from min to max (OPT_DOUBLE_ABOVE:
 *                     above min, not min itself); HUGE_VAL for no maximum
 *   OPT_DURATION      double seconds, as tk_parse_duration reads them (90,
 *                     90s, 5m, 1h30m); OPT_POSITIVE_DURATION: above 0
 *   OPT_CHOICE        int, the value paired with the name given among a
 *                     table of struct cmd_choice ending with a NULL name
 *   OPT_CALLBACK      whatever fn does with the argument; fn gets the whole
 *                     options struct and returns 0, or a negative code
 *                     with a message in err (lower-case, what is wrong)
 *
 * Every usage error has one form, with the option named as it was typed
 * (the long name in full, or the short one):
 *
 *   unknown option '--frob'
 *   option '--ba' is ambiguous: --baseline-branch or --baselines
 *   option '--key' needs a value
 *   option '--ranks' takes no value
 *   option '--key' needs a non-empty value             (a list)
 *   option '--limit' wants a whole number of at least 1, not '0'
 *   option '--width' wants a number from 100 to 1000000, not 'x'
 *   option '--timeout' wants a duration such as 90, 90s, 1.5m, 2h or 1h30m, not 'soon'
 *   option '--mode' wants self or cumulative, not 'both'
 *   option '--since': THE CALLBACK'S MESSAGE
 *
 * The caller prints it as a usage error (cmd_parse_options does), which
 * the command's synopsis follows.
 *
 * Parsing follows getopt_long's habits: --name VALUE, --name=VALUE, an
 * unambiguous start of a long name, -x VALUE, -xVALUE, -qv for two flags,
 * "--" ends the options and "-" is an argument. Options and arguments may
 * mix; the arguments are left in argv, in their order, for the command.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "core/base/err.h"

enum cmd_option_type {
	CMD_OPT_END,
	CMD_OPT_FLAG,
	CMD_OPT_STRING,
	CMD_OPT_STRING_LIST,
	CMD_OPT_LONG,
	CMD_OPT_DOUBLE,
	CMD_OPT_DURATION,
	CMD_OPT_CHOICE,
	CMD_OPT_CALLBACK,
};

/* cmd_option.flags */
#define CMD_OPT_ABOVE_MIN (1u << 0) /* DOUBLE, DURATION: min itself is refused */

struct cmd_choice {
	const char *name;
	int value;
};

struct cmd_option {
	enum cmd_option_type type;
	int short_name;         /* 0: none */
	const char *long_name;
	const char *arg;        /* the value's name in -h; NULL: takes none */
	const char *help;       /* one text, wrapped by -h; '\n' breaks a line */
	size_t offset;          /* of the field written, in the options struct */
	unsigned flags;
	long lmin, lmax;        /* LONG */
	double dmin, dmax;      /* DOUBLE, DURATION */
	const struct cmd_choice *choices; /* CHOICE */
	int (*fn)(void *opts, const char *arg, struct tk_err *err); /* CALLBACK */
};

/* A repeatable option's values, in the order given, NULL-terminated (v is
 * NULL while nr is 0). The strings are argv's; cmd_strlist_release frees
 * the array only. */
struct cmd_strlist {
	const char **v;
	size_t nr, alloc;
};

void cmd_strlist_release(struct cmd_strlist *l);

/*
 * The offset of field f of struct type T, which must have type type: a
 * generic selection with no association for the field's type does not
 * compile, and it never evaluates the field.
 */
#define CMD_FIELD(T, f, type) _Generic(((T *)0)->f, type: offsetof(T, f))

#define OPT_FLAG(s, l, T, f, h) \
	{ CMD_OPT_FLAG, (s), (l), NULL, (h), CMD_FIELD(T, f, int), 0, 0, 0, 0, 0, NULL, NULL }
#define OPT_STRING(s, l, T, f, a, h) \
	{ CMD_OPT_STRING, (s), (l), (a), (h), CMD_FIELD(T, f, const char *), 0, 0, 0, 0, 0, \
	  NULL, NULL }
#define OPT_STRING_LIST(s, l, T, f, a, h) \
	{ CMD_OPT_STRING_LIST, (s), (l), (a), (h), CMD_FIELD(T, f, struct cmd_strlist), 0, \
	  0, 0, 0, 0, NULL, NULL }
#define OPT_LONG(s, l, T, f, a, min, max, h) \
	{ CMD_OPT_LONG, (s), (l), (a), (h), CMD_FIELD(T, f, long), 0, (min), (max), 0, 0, \
	  NULL, NULL }
#define OPT_DOUBLE(s, l, T, f, a, min, max, h) \
	{ CMD_OPT_DOUBLE, (s), (l), (a), (h), CMD_FIELD(T, f, double), 0, 0, 0, (min), (max), \
	  NULL, NULL }
#define OPT_DOUBLE_ABOVE(s, l, T, f, a, min, max, h) \
	{ CMD_OPT_DOUBLE, (s), (l), (a), (h), CMD_FIELD(T, f, double), CMD_OPT_ABOVE_MIN, 0, 0, \
	  (min), (max), NULL, NULL }
#define OPT_DURATION(s, l, T, f, a, h) \
	{ CMD_OPT_DURATION, (s), (l), (a), (h), CMD_FIELD(T, f, double), 0, 0, 0, 0, HUGE_VAL, \
	  NULL, NULL }
#define OPT_POSITIVE_DURATION(s, l, T, f, a, h) \
	{ CMD_OPT_DURATION, (s), (l), (a), (h), CMD_FIELD(T, f, double), CMD_OPT_ABOVE_MIN, 0, \
	  0, 0, HUGE_VAL, NULL, NULL }
#define OPT_CHOICE(s, l, T, f, a, choices, h) \
	{ CMD_OPT_CHOICE, (s), (l), (a), (h), CMD_FIELD(T, f, int), 0, 0, 0, 0, 0, (choices), \
	  NULL }
#define OPT_CALLBACK(s, l, a, fn, h) \
	{ CMD_OPT_CALLBACK, (s), (l), (a), (h), 0, 0, 0, 0, 0, 0, NULL, (fn) }
#define OPT_END() \
	{ CMD_OPT_END, 0, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, NULL, NULL }

/*
 * --db URL, one text for every command that opens a database: the URLs of
 * both stores, and where the database is when none is given
 * (cmd_resolve_db).
 */
#define CMD_DB_HELP \
	"the database: a path or sqlite:PATH (SQLite), or postgresql://... (PostgreSQL); " \
	"default $TRACKER_DB, else db: in .tracker.yml, else " \
	"$XDG_DATA_HOME/tracker/history.db (~/.local/share/tracker/history.db)"
#define OPT_DB(T, f) OPT_STRING(0, "db", T, f, "URL", CMD_DB_HELP)

/* The stack transforms (core/model/stacktx.h) of a struct tk_stacktx
 * field f, the same five options for flame and diff. */
#define OPT_STACKTX(T, f) \
	OPT_STRING(0, "focus", T, f.regex[TK_STACKTX_FOCUS], "REGEX", "keep only stacks " \
		   "through a frame matching REGEX (POSIX extended, searched in the name)"), \
	OPT_STRING(0, "ignore", T, f.regex[TK_STACKTX_IGNORE], "REGEX", "drop the stacks " \
		   "through a frame matching REGEX"), \
	OPT_STRING(0, "hide", T, f.regex[TK_STACKTX_HIDE], "REGEX", "take frames matching " \
		   "REGEX out of the stacks, their weight going to the parent"), \
	OPT_STRING(0, "prune-from", T, f.regex[TK_STACKTX_PRUNE_FROM], "REGEX", "cut the " \
		   "stacks below a frame matching REGEX, their weight going to it"), \
	OPT_FLAG(0, "collapse-recursion", T, f.collapse_recursion, "fold consecutive " \
		 "repeats of a frame into one (a deep recursion becomes one frame)")

/* cmd_parse.flags */
/* The options end at the first argument: what follows is the command's
 * (tracker run's job, tracker config's action). */
#define CMD_PARSE_STOP_AT_ARG (1u << 0)

struct cmd_parse {
	unsigned flags;
	/*
	 * NULL: parsing stops at the first problem. Else each problem goes
	 * here and parsing goes on, the option ignored (tracker run under
	 * CI, where nothing typed may keep the job from running). Past an
	 * unknown option, its value cannot be told from the next argument:
	 * "--frob 3 -- make" takes 3 as --frob's value, and when a "--"
	 * follows, the arguments are what follows the first "--".
	 */
	void (*problem)(void *data, const char *msg);
	void *data;
};

/*
 * Parses the options in argv[1..argc) (argv[0] is the command's name) by
 * table into opts, the command's options struct. The arguments that are
 * not options are moved to argv[0..n), argv[n] set to NULL, and n
 * returned. On a usage error returns TK_EUSAGE with err filled, in the
 * form above; opts may have been written in part. how may be NULL.
 */
int cmd_options_parse(const struct cmd_option *table, void *opts, int argc, char **argv,
		      const struct cmd_parse *how, struct tk_err *err);

/*
 * The lines of the "Options:" section of -h: each option's forms and
 * value ("  -o, --output OUT"), its help beside them, aligned at one
 * column per table, wrapped to fit 80 columns.
 */
void cmd_options_help(FILE *out, const struct cmd_option *table);

/* The long names, "--name", one a line (tracker --list-options CMD). */
void cmd_options_list(FILE *out, const struct cmd_option *table);

/*
 * For commands: cmd_options_parse, stopping at the first problem, which
 * is printed as a usage error (cmd_usage_error: the message, then the
 * command's synopsis). Returns the number of arguments left in argv, or
 * -1 after a usage error: the command then exits EXIT_USAGE.
 */
struct cmd_ctx;
int cmd_parse_options(const struct cmd_ctx *ctx, const struct cmd_option *table, void *opts,
		      int argc, char **argv, unsigned flags);

#endif
