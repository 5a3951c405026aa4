/*
 * The one option parser of the commands (cmd/options.h): a loop of its
 * own rather than getopt_long, which would need a struct option array
 * made per table, keeps its state in globals (optind), and reports
 * problems as bare characters for each caller to word.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"
#include "cmd/cmd.h"
#include "core/base/buf.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

/* -h's layout: the help column is at most this far in; option forms
 * longer than that put their help on the next line. */
#define HELP_COLUMN_MAX 24
#define HELP_WIDTH 79

void cmd_strlist_release(struct cmd_strlist *l)
{
	free(l->v);
	l->v = NULL;
	l->nr = l->alloc = 0;
}

static void *field(void *opts, const struct cmd_option *o)
{
	return (char *)opts + o->offset;
}

/* The option as the user typed it: "--name" in full, or "-x". */
static void name_of(const struct cmd_option *o, int as_short, struct tk_buf *out)
{
	tk_buf_reset(out);
	if (as_short)
		tk_buf_addf(out, "-%c", o->short_name);
	else
		tk_buf_addf(out, "--%s", o->long_name);
}

/* "a, b or c" */
static void add_alternatives(struct tk_buf *b, const char *const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (i)
			tk_buf_adds(b, i + 1 == nr ? " or " : ", ");
		tk_buf_adds(b, names[i]);
	}
}

static void describe_long_range(const struct cmd_option *o, struct tk_buf *b)
{
	if (o->lmin == LONG_MIN && o->lmax == LONG_MAX)
		tk_buf_adds(b, "a whole number");
	else if (o->lmax == LONG_MAX)
		tk_buf_addf(b, "a whole number of at least %ld", o->lmin);
	else
		tk_buf_addf(b, "a whole number from %ld to %ld", o->lmin, o->lmax);
}

static void describe_double_range(const struct cmd_option *o, const char *what,
				  struct tk_buf *b)
{
	int above = !!(o->flags & CMD_OPT_ABOVE_MIN);

	tk_buf_addf(b, "%s %s %.15g", what, above ? "above" : o->dmax < HUGE_VAL ? "from" :
		    "of at least", o->dmin);
	if (o->dmax < HUGE_VAL)
		tk_buf_addf(b, "%s %.15g", above ? ", at most" : " to", o->dmax);
}

static int in_range(const struct cmd_option *o, double v)
{
	if (o->flags & CMD_OPT_ABOVE_MIN ? !(v > o->dmin) : !(v >= o->dmin))
		return 0;
	return v <= o->dmax;
}

static int wants(struct tk_err *err, const char *name, const struct tk_buf *what,
		 const char *arg)
{
	return tk_err_set(err, TK_EUSAGE, "option '%s' wants %s, not '%s'", name, what->buf, arg);
}

/* Stores arg as o's value; name is the option as typed. */
static int take_value(const struct cmd_option *o, void *opts, const char *name,
		      const char *arg, struct tk_err *err)
{
	struct tk_buf what = TK_BUF_INIT;
	struct cmd_strlist *list;
	double d;
	long n;
	size_t i;
	int ret = 0;

	switch (o->type) {
	case CMD_OPT_FLAG:
		*(int *)field(opts, o) = 1;
		break;
	case CMD_OPT_STRING:
		*(const char **)field(opts, o) = arg;
		break;
	case CMD_OPT_STRING_LIST:
		if (!*arg)
			return tk_err_set(err, TK_EUSAGE, "option '%s' needs a non-empty value",
					  name);
		list = field(opts, o);
		TK_ALLOC_GROW(list->v, list->nr + 2, list->alloc);
		list->v[list->nr++] = arg;
		list->v[list->nr] = NULL;
		break;
	case CMD_OPT_LONG:
		if (tk_parse_long(arg, &n) || n < o->lmin || n > o->lmax) {
			describe_long_range(o, &what);
			ret = wants(err, name, &what, arg);
			break;
		}
		*(long *)field(opts, o) = n;
		break;
	case CMD_OPT_DOUBLE:
		if (tk_parse_double(arg, &d) || !in_range(o, d)) {
			describe_double_range(o, "a number", &what);
			ret = wants(err, name, &what, arg);
			break;
		}
		*(double *)field(opts, o) = d;
		break;
	case CMD_OPT_DURATION:
		if (tk_parse_duration(arg, &d, NULL)) {
			tk_buf_adds(&what, "a duration such as 90, 90s, 1.5m, 2h or 1h30m");
			ret = wants(err, name, &what, arg);
			break;
		}
		if (!in_range(o, d)) {
			describe_double_range(o, "a duration", &what);
			ret = wants(err, name, &what, arg);
			break;
		}
		*(double *)field(opts, o) = d;
		break;
	case CMD_OPT_CHOICE:
		for (i = 0; o->choices[i].name; i++)
			if (!strcmp(o->choices[i].name, arg))
				break;
		if (!o->choices[i].name) {
			const char *names[32];
			size_t nr = 0;

			for (i = 0; o->choices[i].name && nr < 32; i++)
				names[nr++] = o->choices[i].name;
			add_alternatives(&what, names, nr);
			ret = wants(err, name, &what, arg);
			break;
		}
		*(int *)field(opts, o) = o->choices[i].value;
		break;
	case CMD_OPT_CALLBACK:
		err->msg[0] = '\0';
		if (!o->fn(opts, arg, err))
			break;
		if (!err->msg[0])
			tk_err_set(err, TK_EUSAGE, "bad value '%s'", arg);
		tk_err_prefix(err, "option '%s'", name);
		ret = err->code = TK_EUSAGE;
		break;
	case CMD_OPT_END:
		break;
	}
	tk_buf_release(&what);
	return ret;
}

static const struct cmd_option *find_short(const struct cmd_option *table, int c)
{
	for (; table->type != CMD_OPT_END; table++)
		if (table->short_name && table->short_name == c)
			return table;
	return NULL;
}

/*
 * The option --name (len bytes of it) names: the one so called, else the
 * one it is the start of. NULL, with err filled, for none or several.
 */
static const struct cmd_option *find_long(const struct cmd_option *table, const char *name,
					  size_t len, struct tk_err *err)
{
	const struct cmd_option *o, *found = NULL;
	const char *names[64];
	size_t nr = 0;

	for (o = table; o->type != CMD_OPT_END; o++)
		if (strlen(o->long_name) == len && !memcmp(o->long_name, name, len))
			return o;
	for (o = table; o->type != CMD_OPT_END; o++) {
		if (strncmp(o->long_name, name, len))
			continue;
		found = o;
		if (nr < 64)
			names[nr++] = o->long_name;
	}
	if (nr == 1)
		return found;
	if (!nr) {
		tk_err_set(err, TK_EUSAGE, "unknown option '--%.*s'", (int)len, name);
	} else {
		struct tk_buf list = TK_BUF_INIT;
		size_t i;

		for (i = 0; i < nr; i++) {
			if (i)
				tk_buf_adds(&list, i + 1 == nr ? " or " : ", ");
			tk_buf_addf(&list, "--%s", names[i]);
		}
		tk_err_set(err, TK_EUSAGE, "option '--%.*s' is ambiguous: %s", (int)len, name,
			   list.buf);
		tk_buf_release(&list);
	}
	return NULL;
}

struct parser {
	const struct cmd_option *table;
	void *opts;
	int argc;
	char **argv;
	int i;           /* the next argument to read */
	int nr_args;     /* arguments kept, in argv[0..nr_args) */
	int unknown;     /* an unknown option was met (keep going) */
	const struct cmd_parse *how;
	struct tk_buf name;
};

/* A problem: the end of parsing, or (how->problem) a report and on. */
static int problem(struct parser *p, struct tk_err *err)
{
	if (!p->how || !p->how->problem)
		return TK_EUSAGE;
	p->how->problem(p->how->data, err->msg);
	tk_err_clear(err);
	return 0;
}

static int has_separator(const struct parser *p, int from)
{
	int i;

	for (i = from; i < p->argc; i++)
		if (!strcmp(p->argv[i], "--"))
			return 1;
	return 0;
}

/* "--frob 3 -- make" when --frob is unknown: 3 is taken as its value. */
static void skip_unknown_value(struct parser *p, const char *arg)
{
	if (!p->how || !p->how->problem || strchr(arg, '=') || p->i >= p->argc)
		return;
	if (p->argv[p->i][0] != '-' && has_separator(p, p->i + 1))
		p->i++;
}

static int parse_long(struct parser *p, const char *arg, struct tk_err *err)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct cmd_option *o = find_long(p->table, name, len, err);
	const char *value = eq ? eq + 1 : NULL;

	if (!o) {
		p->unknown = 1;
		skip_unknown_value(p, arg);
		return problem(p, err);
	}
	name_of(o, 0, &p->name);
	if (!o->arg && value) {
		tk_err_set(err, TK_EUSAGE, "option '%s' takes no value", p->name.buf);
		return problem(p, err);
	}
	if (o->arg && !value) {
		if (p->i >= p->argc) {
			tk_err_set(err, TK_EUSAGE, "option '%s' needs a value", p->name.buf);
			return problem(p, err);
		}
		value = p->argv[p->i++];
	}
	if (take_value(o, p->opts, p->name.buf, value, err))
		return problem(p, err);
	return 0;
}

/* "-q", "-qv", "-oOUT", "-o OUT". */
static int parse_short(struct parser *p, const char *arg, struct tk_err *err)
{
	const char *c;

	for (c = arg + 1; *c; c++) {
		const struct cmd_option *o = find_short(p->table, (unsigned char)*c);
		const char *value = NULL;

		if (!o) {
			tk_err_set(err, TK_EUSAGE, "unknown option '-%c'", *c);
			p->unknown = 1;
			return problem(p, err);
		}
		name_of(o, 1, &p->name);
		if (o->arg) {
			if (c[1]) {
				value = c + 1;
			} else if (p->i < p->argc) {
				value = p->argv[p->i++];
			} else {
				tk_err_set(err, TK_EUSAGE, "option '%s' needs a value", p->name.buf);
				return problem(p, err);
			}
		}
		if (take_value(o, p->opts, p->name.buf, value, err))
			return problem(p, err);
		if (value)
			break;
	}
	return 0;
}

static void keep_arg(struct parser *p, char *arg)
{
	/* nr_args < i always: argv[0] is the command's name, never kept */
	p->argv[p->nr_args++] = arg;
}

int cmd_options_parse(const struct cmd_option *table, void *opts, int argc, char **argv,
		      const struct cmd_parse *how, struct tk_err *err)
{
	struct parser p;
	unsigned flags = how ? how->flags : 0;
	int ret = 0;

	memset(&p, 0, sizeof(p));
	p.table = table;
	p.opts = opts;
	p.argc = argc;
	p.argv = argv;
	p.how = how;
	tk_buf_init(&p.name, 0);
	p.i = 1;
	while (!ret && p.i < argc) {
		char *arg = argv[p.i++];

		if (!strcmp(arg, "--"))
			break;
		if (arg[0] != '-' || !arg[1]) {
			keep_arg(&p, arg);
			if (flags & CMD_PARSE_STOP_AT_ARG)
				break;
			continue;
		}
		if (arg[1] == '-')
			ret = parse_long(&p, arg, err);
		else
			ret = parse_short(&p, arg, err);
	}
	tk_buf_release(&p.name);
	if (ret)
		return ret;
	/* an unknown option's value may have been taken for an argument */
	if (p.unknown && has_separator(&p, 1)) {
		for (p.i = 1; strcmp(argv[p.i], "--"); p.i++)
			;
		p.i++;
		p.nr_args = 0;
	}
	while (p.i < argc)
		keep_arg(&p, argv[p.i++]);
	argv[p.nr_args] = NULL;
	return p.nr_args;
}

/* ---- -h ---- */

/* "-o, --output OUT" */
static void head_of(const struct cmd_option *o, struct tk_buf *out)
{
	tk_buf_reset(out);
	if (o->short_name)
		tk_buf_addf(out, "-%c, ", o->short_name);
	tk_buf_addf(out, "--%s", o->long_name);
	if (o->arg)
		tk_buf_addf(out, " %s", o->arg);
}

/* Writes text from column col on, wrapped at HELP_WIDTH; the first line
 * continues the current one, which is at column at. */
static void write_wrapped(FILE *out, const char *text, size_t at, size_t col)
{
	const char *p = text;

	if (!*p)
		fputc('\n', out);
	while (*p) {
		size_t room = HELP_WIDTH > col ? HELP_WIDTH - col : 1;
		size_t len = strcspn(p, "\n"), cut = len;

		if (at < col)
			fprintf(out, "%*s", (int)(col - at), "");
		if (len > room) {
			/* the last space that fits, else the first after */
			for (cut = room; cut > 0 && p[cut] != ' '; cut--)
				;
			if (!cut)
				cut = strcspn(p, " \n");
		}
		fprintf(out, "%.*s\n", (int)cut, p);
		p += cut;
		while (*p == ' ')
			p++;
		if (*p == '\n')
			p++;
		at = 0;
	}
}

void cmd_options_help(FILE *out, const struct cmd_option *table)
{
	const struct cmd_option *o;
	struct tk_buf head = TK_BUF_INIT;
	size_t col = 0;

	/* the help column: past the widest form that fits before the cap */
	for (o = table; o->type != CMD_OPT_END; o++) {
		head_of(o, &head);
		if (2 + head.len + 2 <= HELP_COLUMN_MAX && 2 + head.len + 2 > col)
			col = 2 + head.len + 2;
	}
	if (!col)
		col = HELP_COLUMN_MAX;
	for (o = table; o->type != CMD_OPT_END; o++) {
		head_of(o, &head);
		fprintf(out, "  %s", head.buf);
		if (2 + head.len + 2 > col) {
			fputc('\n', out);
			write_wrapped(out, o->help, 0, col);
		} else {
			write_wrapped(out, o->help, 2 + head.len, col);
		}
	}
	tk_buf_release(&head);
}

void cmd_options_list(FILE *out, const struct cmd_option *table)
{
	for (; table->type != CMD_OPT_END; table++)
		fprintf(out, "--%s\n", table->long_name);
}

int cmd_parse_options(const struct cmd_ctx *ctx, const struct cmd_option *table, void *opts,
		      int argc, char **argv, unsigned flags)
{
	struct cmd_parse how = { flags, NULL, NULL };
	struct tk_err err = TK_ERR_INIT;
	int n = cmd_options_parse(table, opts, argc, argv, &how, &err);

	if (n >= 0)
		return n;
	cmd_usage_error(ctx, "%s", err.msg);
	return -1;
}
