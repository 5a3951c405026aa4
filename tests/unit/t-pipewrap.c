/*
 * core/ci/pipewrap: wrapper detection, the wrapped text of each kind of
 * command, matrix steps' keys and tags, aliases, errors and limits.
 */
#include <stdlib.h>
#include <string.h>

#include "core/ci/pipewrap.h"
#include "tests/unit/tap.h"

static int nr_warnings;
static char last_warning[1024];

static void count_warning(void *arg, const char *msg)
{
	nr_warnings++;
	snprintf(last_warning, sizeof(last_warning), "%s", msg);
}

/* Wraps text with opts (NULL: defaults); returns the output or the error
 * message, "ERR: " first. */
static const char *wrap(const char *text, const struct tk_pipewrap_opts *opts,
			struct tk_pipewrap_stats *st)
{
	static struct tk_buf out = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_pipewrap_opts o = { NULL, 0, 0, count_warning, NULL };

	tk_buf_reset(&out);
	nr_warnings = 0;
	if (tk_pipewrap("p.yml", text, strlen(text), opts ? opts : &o, &out, st, &err)) {
		tk_buf_addf(&out, "ERR: %s", err.msg);
		if (err.code != TK_EDATA)
			tk_buf_adds(&out, " (not TK_EDATA)");
	}
	return out.buf;
}

static int rt(const char *s)
{
	return tk_pipewrap_runs_tracker(s, strlen(s));
}

static void test_detect(void)
{
	ok(tk_pipewrap_runs_tracker("tracker run -- x", 16), "tracker run at the start");
	ok(tk_pipewrap_runs_tracker("cd x && /opt/bin/tracker  run --key k -- y", 42),
	   "a path, after &&, two blanks");
	ok(tk_pipewrap_runs_tracker("srun tracker run --per-rank -- x", 32), "under srun");
	ok(!tk_pipewrap_runs_tracker("echo tracker runs", 17), "'runs' is not run");
	ok(!tk_pipewrap_runs_tracker("mytracker run", 13), "'mytracker' is not tracker");
	ok(!tk_pipewrap_runs_tracker("tracker", 7), "tracker alone");
	ok(tk_pipewrap_runs_tracker("tracker report --upload", 24), "another subcommand");
	ok(!tk_pipewrap_runs_tracker("echo tracker-artifacts", 22), "a word that starts with tracker");
	ok(!rt("echo tracker run is mentioned"), "an argument of echo is not tracker running");
	ok(!rt("make tracker run"), "nor a make target");
	ok(!rt("# tracker run\necho hi"), "nor a comment");
	ok(!rt("echo 'x; tracker run'"), "nor words in quotes");
	ok(!rt("echo x # ; tracker run"), "nor a comment after a command");
	ok(rt("echo hi\n  tracker run --key k -- make"), "the start of a later line");
	ok(rt("FOO=1 BAR='a b' tracker run -- x"), "after assignments");
	ok(rt("srun -n 2 --mpi=pmix ./tracker run --per-rank -- x"), "after srun's options");
	ok(rt("make; tracker check"), "after ;");
	ok(rt("(tracker report)"), "in a subshell");
	ok(rt("exec tracker run -- x"), "after exec");
}

static void test_known_answers(void)
{
	struct tk_pipewrap_stats st;

	is_str(wrap("steps:\n  - key: k\n    command: echo hi # c\n", NULL, &st),
	       "steps:\n  - key: k\n    command: \"tracker run --key k -- bash -e -c 'echo hi'\" # c\n",
	       "a plain command becomes a double-quoted scalar, the comment kept");
	is_int(st.wrapped, 1, "one wrapped");
	is_str(wrap("steps:\n  - key: k\n    commands:\n      - cd /x\n      # why\n      - make\n  - wait\n",
		    NULL, &st),
	       "steps:\n  - key: k\n    commands:\n      - |-\n"
	       "        tracker run --key k -- bash -e -c 'cd /x\n        make'\n"
	       "      # why\n  - wait\n",
	       "a list becomes one literal item, its comments below it");
	is_str(wrap("steps:\n  - key: k\n    command: |\n      echo 'a'\n\n  - key: j\n"
		    "    command: \"x\\u0001\\\"\"\n", NULL, &st),
	       "steps:\n  - key: k\n    command: |-\n"
	       "      tracker run --key k -- bash -e -c 'echo '\\''a'\\''\n      '\n\n"
	       "  - key: j\n    command: \"tracker run --key j -- bash -e -c 'x\\x01\\\"'\"\n",
	       "a literal block stays one, blank lines kept; control characters escaped");
	is_int(st.wrapped, 2, "two wrapped");
	is_str(wrap("steps:\n  - {identifier: i, command: x}\n  - {id: j, command: y}\n"
		    "  - {id: n, key: k, command: z}\n", NULL, &st),
	       "steps:\n  - {identifier: i, command: \"tracker run --key i -- bash -e -c 'x'\"}\n"
	       "  - {id: j, command: \"tracker run --key j -- bash -e -c 'y'\"}\n"
	       "  - {id: n, key: k, command: \"tracker run --key k -- bash -e -c 'z'\"}\n",
	       "identifier and id name a step too; key comes first");
	is_str(wrap("steps:\n  - label: no key\n    command: make\n", NULL, &st),
	       "steps:\n  - label: no key\n    command: make\n", "no key: left");
	is_int(st.no_key, 1, "counted as without a key");
	{
		struct tk_pipewrap_opts o = { NULL, 0, 1, count_warning, NULL };

		is_str(wrap("steps:\n  - label: \":rocket: Big Run\"\n    command: make\n", &o, &st),
		       "steps:\n  - label: \":rocket: Big Run\"\n"
		       "    command: \"tracker run --key big-run -- bash -e -c 'make'\"\n",
		       "--derive-keys: the slug of the label");
	}
	{
		static const char *const keys[] = { "b", "zz" };
		struct tk_pipewrap_opts o = { keys, 2, 0, count_warning, NULL };
		const char *got = wrap("steps:\n  - {key: a, command: x}\n  - {key: b, command: y}\n",
				       &o, &st);

		is_str(got, "steps:\n  - {key: a, command: x}\n"
		       "  - {key: b, command: \"tracker run --key b -- bash -e -c 'y'\"}\n",
		       "--keys: only the listed, in a flow mapping");
		is_int(st.not_listed, 1, "one not listed");
		is_int(nr_warnings, 1, "one warning: a listed key no step has");
		ok(strstr(last_warning, "'zz'") != NULL, "it names the key");
	}
}

/* Wraps a one-step pipeline whose step has key k, command `make` and the
 * matrix written after "matrix:"; returns the output's command value or
 * the whole output when it has none. */
static const char *wrap_matrix(const char *matrix, struct tk_pipewrap_stats *st)
{
	static struct tk_buf in = TK_BUF_INIT;
	const char *got, *cmd;

	tk_buf_reset(&in);
	tk_buf_addf(&in, "steps:\n  - key: k\n    command: make\n    matrix:%s\n", matrix);
	got = wrap(in.buf, NULL, st);
	cmd = strstr(got, "command: ");
	if (!cmd)
		return got;
	cmd += strlen("command: ");
	tk_buf_reset(&in);
	tk_buf_add(&in, cmd, strcspn(cmd, "\n"));
	return in.buf;
}

static void test_matrix(void)
{
	struct tk_pipewrap_stats st;
	const char *got;
	char *once;

	is_str(wrap_matrix(" [low, high]", &st),
	       "\"tracker run --key 'k[{{matrix}}]' --tag 'matrix={{matrix}}' -- bash -e -c 'make'\"",
	       "a list of values: {{matrix}} in the key and a tag");
	is_int(st.wrapped, 1, "wrapped");
	is_str(wrap_matrix("\n      setup:\n        res: [low, high]\n        os: [linux]\n"
			   "      adjustments:\n        - with: {os: mac, res: mid}\n", &st),
	       "\"tracker run --key 'k[res={{matrix.res}},os={{matrix.os}}]' "
	       "--tag 'matrix.res={{matrix.res}}' --tag 'matrix.os={{matrix.os}}' "
	       "-- bash -e -c 'make'\"",
	       "setup: dimensions in the order written, whatever adjustments say");
	is_str(wrap_matrix(" {setup: [a, 1, true], adjustments: [{with: c, soft_fail: true}]}", &st),
	       "\"tracker run --key 'k[{{matrix}}]' --tag 'matrix={{matrix}}' -- bash -e -c 'make'\"",
	       "setup: as a list is one dimension too; numbers and booleans are values");
	is_str(wrap_matrix(" ~", &st), "\"tracker run --key k -- bash -e -c 'make'\"",
	       "a null matrix is none");
	is_str(wrap_matrix(" [\"$(touch pwned)\", \"`id`\", \"$$HOME\", \"\\\\$HOME\", \"a b;c\", \"\"]",
			   &st),
	       "\"tracker run --key 'k[{{matrix}}]' --tag 'matrix={{matrix}}' -- bash -e -c 'make'\"",
	       "values the single quotes keep as they are: $( ), backquotes, $$, \\$, blanks, ;");

	/* values that would break the quotes, the key or the tag: left */
	got = wrap_matrix(" [ok, \"it's\"]", &st);
	is_str(got, "make", "a value with a single quote: the step is left as it is");
	is_int(st.left, 1, "counted as left");
	is_int(nr_warnings, 1, "with a warning");
	ok(strstr(last_warning, "p.yml:4: step 'k': its matrix value 'it's' holds a single quote") != NULL,
	   "naming the value and its line: %s", last_warning);
	is_str(wrap_matrix(" [\"a\\nb\"]", &st), "make", "a value with a newline: left");
	ok(strstr(last_warning, "invalid tag 'matrix=a\\x0ab'") != NULL, "the newline shown: %s",
	   last_warning);
	is_str(wrap_matrix(" [\"a\\0b\"]", &st), "make", "a value with a NUL: left");
	is_str(wrap_matrix(" [\"${BRANCH}\"]", &st), "make", "a value the upload interpolates: left");
	ok(strstr(last_warning, "interpolated at upload") != NULL, "said so: %s", last_warning);
	is_str(wrap_matrix(" [\"x$HOME\"]", &st), "make", "$NAME too");
	is_str(wrap_matrix("\n      setup: {os: [linux]}\n      adjustments:\n"
			   "        - with: {os: \"it's\"}\n", &st),
	       "make", "a bad value in an adjustment: left");
	ok(strstr(last_warning, "p.yml:7:") != NULL, "its line: %s", last_warning);
	is_str(wrap_matrix(" [[a, b]]", &st), "make", "a value that is a list: left");
	is_str(wrap_matrix(" {setup: {\"o s\": [a]}}", &st), "make", "a dimension name with a blank: left");
	is_str(wrap_matrix(" {setup: {os: a}}", &st), "make", "a dimension that is no list: left");
	is_str(wrap_matrix(" {adjustments: []}", &st), "make", "no setup: left");
	is_str(wrap_matrix(" {setup: {os: [a]}, adjustments: [{with: b}]}", &st), "make",
	       "an adjustment without dimension names for a setup with them: left");
	is_str(wrap_matrix(" scalar", &st), "make", "a matrix that is a string: left");
	{
		struct tk_buf m = TK_BUF_INIT;
		int i;

		/* k[ + 197 + ] is 200 bytes: a key; one more is not */
		tk_buf_adds(&m, " [\"");
		for (i = 0; i < 197; i++)
			tk_buf_addch(&m, 'v');
		tk_buf_adds(&m, "\", x]");
		ok(strstr(wrap_matrix(m.buf, &st), "tracker run") != NULL,
		   "a key of 200 bytes with the longest value: wrapped");
		tk_buf_setlen(&m, m.len - 5);
		tk_buf_adds(&m, "v\"]");
		is_str(wrap_matrix(m.buf, &st), "make", "one byte more: left");
		ok(strstr(last_warning, "its key with its longest matrix values is 201 bytes, "
			  "more than 200") != NULL, "said so: %s", last_warning);
		tk_buf_release(&m);
	}

	/* wrapping twice changes nothing; the shared command of two keys */
	once = strdup(wrap("steps:\n  - key: k\n    command: make\n    matrix: [a, b]\n", NULL, NULL));
	is_str(wrap(once, NULL, &st), once, "wrapping a matrix step again changes nothing");
	is_int(st.already, 1, "it already runs tracker");
	free(once);
	got = wrap("d: &d {command: make, matrix: [a, b]}\n"
		   "steps:\n  - {key: a, <<: *d}\n  - {key: b, <<: *d}\n", NULL, &st);
	ok(!strstr(got, "tracker run"), "a matrix command shared by two keys is left");
	is_int(st.left, 2, "both steps left");
	ok(strstr(last_warning, "a matrix step's command must be its own") != NULL, "said so: %s",
	   last_warning);
	{
		struct tk_pipewrap_opts o = { NULL, 0, 1, count_warning, NULL };

		is_str(wrap("steps:\n  - label: \"Big Run\"\n    command: make\n    matrix: [x]\n",
			    &o, &st),
		       "steps:\n  - label: \"Big Run\"\n    command: \"tracker run --key "
		       "'big-run[{{matrix}}]' --tag 'matrix={{matrix}}' -- bash -e -c 'make'\"\n"
		       "    matrix: [x]\n",
		       "--derive-keys: the label's slug, then the matrix");
	}
}

static void test_line_ends(void)
{
	is_str(wrap("steps:\r\n  - key: a\r\n    command: |\r\n      echo a\r\n    label: x\r\n"
		    "  - key: b\r\n    commands:\r\n      - a\r\n      - b # c\r\n", NULL, NULL),
	       "steps:\r\n  - key: a\r\n    command: |-\n"
	       "      tracker run --key a -- bash -e -c 'echo a\n      '\n    label: x\r\n"
	       "  - key: b\r\n    commands:\r\n      - |-\n"
	       "        tracker run --key b -- bash -e -c 'a\n        b'\n      # c\r\n",
	       "CRLF lines: the new lines end in LF, the others are kept");
	is_str(wrap("steps:\n- key: a\n  commands:\n  - x\n  - y\n  label: z\n- key: n\n  command: ~\n",
		    NULL, NULL),
	       "steps:\n- key: a\n  commands:\n  - |-\n    tracker run --key a -- bash -e -c 'x\n    y'\n"
	       "  label: z\n- key: n\n  command: ~\n",
	       "a list as indented as its key; a null command is none");
}

static void test_idempotent(void)
{
	const char *in = "steps:\n  - key: k\n    commands: [a, 'b c']\n  - key: j\n    command: >\n"
			 "      folded\n      text\n";
	char *once = strdup(wrap(in, NULL, NULL));

	ok(strstr(once, "tracker run --key k") && strstr(once, "tracker run --key j"), "wrapped once");
	is_str(wrap(once, NULL, NULL), once, "wrapping again changes nothing");
	free(once);
}

static void test_aliases(void)
{
	struct tk_pipewrap_stats st;
	const char *got;

	got = wrap("x: &c make\nsteps:\n  - {key: a, command: *c}\n  - {label: b, command: *c}\n",
		   NULL, &st);
	ok(!strstr(got, "tracker run"), "a command shared with an unwrapped step is left");
	is_int(st.left, 1, "counted as left");
	is_int(nr_warnings, 1, "with a warning");
	got = wrap("x: &c make\nsteps:\n  - {key: a, command: *c}\n  - {key: b, command: *c}\n",
		   NULL, &st);
	is_str(got, "x: &c \"tracker run -- bash -e -c 'make'\"\n"
	       "steps:\n  - {key: a, command: *c}\n  - {key: b, command: *c}\n",
	       "shared by two keyed steps: wrapped where written, key left to tracker run");
	is_int(st.wrapped, 2, "both counted");
	got = wrap("d: &d {command: make}\nsteps:\n  - {key: a, <<: *d}\n  - {key: b, <<: *d, command: own}\n",
		   NULL, &st);
	is_str(got, "d: &d {command: \"tracker run --key a -- bash -e -c 'make'\"}\nsteps:\n"
	       "  - {key: a, <<: *d}\n  - {key: b, <<: *d, command: \"tracker run --key b -- bash -e -c 'own'\"}\n",
	       "a merge key: the merged command is the step's unless overridden");
	is_str(wrap("x: &a:echo hi\nsteps:\n  - {key: k, command: *a}\n", NULL, NULL),
	       "x: &a \"tracker run --key k -- bash -e -c ':echo hi'\"\n"
	       "steps:\n  - {key: k, command: *a}\n",
	       "an anchor right before a scalar gets a blank (found by the fuzzer)");
	got = wrap("steps:\n  - key: a\n    commands: [&i make, x]\n  - key: b\n    command: *i\n",
		   NULL, &st);
	ok(strstr(got, "[&i make, x]") && strstr(got, "command: *i"),
	   "a list defining an anchor used elsewhere is left");
	is_int(st.left, 2, "both left");
}

static void test_errors(void)
{
	const char *got;
	char *deep;
	struct tk_buf b = TK_BUF_INIT;
	int i;

	is_str(wrap("steps: [a\n", NULL, NULL),
	       "ERR: p.yml:2:1: did not find expected ',' or ']' while parsing a flow sequence at 1:8",
	       "a syntax error names line and column");
	is_str(wrap("steps:\n  - command: *nope\n", NULL, NULL),
	       "ERR: p.yml:2:14: undefined alias '*nope'", "an undefined alias");
	is_str(wrap("a: 1\n\tb: 2\n", NULL, NULL),
	       "ERR: p.yml:2:1: found a tab character that violates indentation while scanning a plain scalar at 1:4 (a tab: YAML is indented with spaces only)",
	       "a tab says so");
	got = wrap("\xff\xfes\x00", NULL, NULL);
	ok(!strncmp(got, "ERR: p.yml: UTF-16", 18), "UTF-16 is refused: %s", got);
	is_str(wrap("\xef\xbb\xbfsteps:\n  - {key: \xc3\xa9, command: \"\xc3\xa9\"}\n", NULL, NULL),
	       "\xef\xbb\xbfsteps:\n  - {key: \xc3\xa9, command: \"tracker run --key '\xc3\xa9' -- bash -e -c '\xc3\xa9'\"}\n",
	       "a byte order mark and UTF-8 before the command");
	for (i = 0; i < 300; i++)
		tk_buf_addch(&b, '[');
	deep = tk_buf_detach(&b, NULL);
	got = wrap(deep, NULL, NULL);
	ok(strstr(got, "nesting deeper than 256 levels") != NULL, "nesting is bounded: %s", got);
	free(deep);
	tk_buf_adds(&b, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
	for (i = 'b'; i <= 'k'; i++)
		tk_buf_addf(&b, "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n", i, i,
			    i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	tk_buf_adds(&b, "steps: *k\nenv: *k\n");
	got = wrap(b.buf, NULL, NULL);
	ok(strstr(got, "too many aliases") != NULL, "a billion laughs is refused: %s", got);
	tk_buf_release(&b);
}

int main(void)
{
	test_detect();
	test_known_answers();
	test_matrix();
	test_line_ends();
	test_idempotent();
	test_aliases();
	test_errors();
	return done_testing();
}
