/* Stack transforms on known trees (core/model/stacktx.h). */
#include <stdlib.h>
#include <string.h>

#include "core/model/stacktx.h"
#include "tap.h"
#include "folded-dump.h"

/* A profile from folded lines "a;b;c 12\n...". */
static void build(struct tk_profile *p, const char *folded)
{
	char *copy = tk_xstrdup(folded), *line = copy;

	tk_profile_init(p, TK_UNIT_SAMPLES);
	while (line && *line) {
		char *nl = strchr(line, '\n'), *sp, *f;
		uint32_t ids[256];
		size_t depth = 0;

		if (nl)
			*nl = 0;
		sp = strrchr(line, ' ');
		*sp = 0;
		for (f = line; f; ) {
			char *semi = strchr(f, ';');
			size_t len = semi ? (size_t)(semi - f) : strlen(f);

			ids[depth++] = tk_profile_intern(p, f, len);
			f = semi ? semi + 1 : NULL;
		}
		tk_profile_add_stack(p, ids, depth, strtod(sp + 1, NULL));
		line = nl ? nl + 1 : NULL;
	}
	free(copy);
	tk_profile_finish(p);
}

static const char tree[] =
	"main;parse;read 10\n"
	"main;parse 5\n"
	"main;solve;gc_collect 7\n"
	"main;solve;step;gc_collect 3\n"
	"main;solve;step 20\n"
	"main;io;write 4\n";

/* The transform of tree with t set by the caller, as sorted folded text. */
static char *run(struct tk_stacktx *t, const char *in_text, double *total)
{
	struct tk_profile in, out;
	struct tk_err err = TK_ERR_INIT;
	char *s;

	build(&in, in_text);
	if (tk_stacktx_compile(t, &err) || tk_stacktx_apply(t, &in, &out, &err)) {
		diag(err.msg);
		tk_profile_release(&in);
		return tk_xstrdup("error");
	}
	s = dump_folded(&out);
	*total = tk_profile_total(&out);
	tk_profile_release(&in);
	tk_profile_release(&out);
	tk_stacktx_release(t);
	return s;
}

static void check(const char *what, int which, const char *re, int collapse, const char *in,
		  const char *want, double want_total)
{
	struct tk_stacktx t;
	double total = -1;
	char *got, *sorted = dump_sort_lines(want);

	tk_stacktx_init(&t);
	if (which >= 0)
		t.regex[which] = re;
	t.collapse_recursion = collapse;
	got = run(&t, in, &total);
	is_str(got, sorted, "%s: the stacks", what);
	ok(total == want_total, "%s: total %g (want %g)", what, total, want_total);
	free(got);
	free(sorted);
}

int main(void)
{
	struct tk_stacktx t;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf desc = TK_BUF_INIT;
	struct tk_buf deep = TK_BUF_INIT, deep_want = TK_BUF_INIT;
	int i;

	check("nothing", -1, NULL, 0, tree, tree, 49);
	check("focus", TK_STACKTX_FOCUS, "^step$", 0, tree,
	      "main;solve;step;gc_collect 3\nmain;solve;step 20\n", 23);
	/* a sample that stops above the match does not go through it */
	check("focus keeps whole stacks", TK_STACKTX_FOCUS, "read", 0, tree,
	      "main;parse;read 10\n", 10);
	check("ignore", TK_STACKTX_IGNORE, "gc_", 0, tree,
	      "main;parse;read 10\nmain;parse 5\nmain;solve;step 20\nmain;io;write 4\n", 39);
	check("hide", TK_STACKTX_HIDE, "^gc_collect$", 0, tree,
	      "main;parse;read 10\nmain;parse 5\nmain;solve 7\nmain;solve;step 23\n"
	      "main;io;write 4\n", 49);
	check("hide a middle frame", TK_STACKTX_HIDE, "^(solve|parse)$", 0, tree,
	      "main;read 10\nmain 5\nmain;gc_collect 7\nmain;step;gc_collect 3\n"
	      "main;step 20\nmain;io;write 4\n", 49);
	check("hide a top frame", TK_STACKTX_HIDE, "^main$", 0, "main 2\nmain;a 3\n",
	      "a 3\n", 5);
	check("prune-from", TK_STACKTX_PRUNE_FROM, "^(solve|parse)$", 0, tree,
	      "main;parse 15\nmain;solve 30\nmain;io;write 4\n", 49);
	check("collapse-recursion", -1, NULL, 1,
	      "main;fib;fib;fib 3\nmain;fib;fib;fib;add 2\nmain;fib 1\nmain;fib;x;fib 4\n",
	      "main;fib 4\nmain;fib;add 2\nmain;fib;x;fib 4\n", 10);

	/* a 100-deep recursion folds to one frame with the same total */
	tk_buf_adds(&deep, "main");
	for (i = 0; i < 100; i++) {
		tk_buf_adds(&deep, ";walk");
	}
	tk_buf_adds(&deep, ";leaf 7\n");
	{
		struct tk_buf in = TK_BUF_INIT;

		tk_buf_addf(&in, "%smain;walk 5\n", deep.buf);
		check("100-deep recursion", -1, NULL, 1, in.buf, "main;walk;leaf 7\nmain;walk 5\n",
		      12);
		tk_buf_release(&in);
	}

	/* hide then collapse: repeats that meet once a frame is hidden fold */
	{
		struct tk_stacktx both;
		double total;
		char *got;

		tk_stacktx_init(&both);
		both.regex[TK_STACKTX_HIDE] = "^dispatch$";
		both.collapse_recursion = 1;
		got = run(&both, "f;dispatch;f;dispatch;f 6\n", &total);
		is_str(got, "f 6\n", "hide and collapse: f;dispatch;f;dispatch;f is f");
		free(got);
	}

	/* categories survive the rewrite */
	{
		struct tk_profile in, out;
		struct tk_stacktx c;

		build(&in, "main;jl_gc_collect;jl_gc_collect 4\nmain;x 1\n");
		tk_profile_set_category(&in, tk_profile_intern(&in, "jl_gc_collect", 13), TK_CAT_GC);
		tk_stacktx_init(&c);
		c.collapse_recursion = 1;
		tk_stacktx_compile(&c, &err);
		tk_stacktx_apply(&c, &in, &out, &err);
		is_int(tk_profile_category(&out, tk_profile_intern(&out, "jl_gc_collect", 13)),
		       TK_CAT_GC, "a frame's category is kept through the transforms");
		tk_profile_release(&in);
		tk_profile_release(&out);
		tk_stacktx_release(&c);
	}

	tk_stacktx_init(&t);
	t.regex[TK_STACKTX_FOCUS] = "(";
	ok(tk_stacktx_compile(&t, &err) == TK_EUSAGE, "a bad regex is a usage error");
	ok(strstr(err.msg, "--focus") != NULL, "it names the option: %s", err.msg);
	tk_stacktx_release(&t);

	tk_stacktx_init(&t);
	ok(!tk_stacktx_active(&t), "nothing set: inactive");
	ok(!tk_stacktx_active(NULL), "NULL: inactive");
	t.regex[TK_STACKTX_FOCUS] = "solve";
	t.regex[TK_STACKTX_HIDE] = "gc";
	t.collapse_recursion = 1;
	tk_stacktx_compile(&t, &err);
	ok(tk_stacktx_active(&t), "set: active");
	tk_stacktx_describe(&t, &desc);
	is_str(desc.buf, "focus 'solve', hide 'gc', recursion collapsed", "the description");
	tk_stacktx_release(&t);

	tk_buf_release(&desc);
	tk_buf_release(&deep);
	tk_buf_release(&deep_want);
	return done_testing();
}
