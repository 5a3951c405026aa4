/* The ProfileCanvas.jl HTML importer: fixture pages (both variants), hostile pages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "tests/unit/profile-dump.h"
#include "tests/unit/tap.h"

#define CPU_ALL \
	"eval_user_input (REPL.jl:150) 1\n" \
	"eval_user_input (REPL.jl:150);#foo#12 (foo.jl:5) 2\n" \
	"eval_user_input (REPL.jl:150);#foo#12 (foo.jl:5);jl_gc_collect (gc.c) 1\n" \
	"eval_user_input (REPL.jl:150);#foo#12 (foo.jl:5);sum (reduce.jl:532) 4\n" \
	"eval_user_input (REPL.jl:150);bar (bar.jl:3) 2\n"
#define ALLOC_SIZE \
	"main (run.jl:1);Dict{Symbol, Any} 1024\n" \
	"main (run.jl:1);alloc_vec (v.jl:2);Vector{Float64} 3072\n"
#define ALLOC_COUNT \
	"main (run.jl:1);Dict{Symbol, Any} 1\n" \
	"main (run.jl:1);alloc_vec (v.jl:2);Vector{Float64} 3\n"

static void check(const char *path, const char *kind, const char *want, enum tk_unit want_unit,
		  const char *what)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_unit unit;
	int ret;
	char *s = dump_import(path, NULL, kind, NULL, &unit, &ret, &err);

	is_int(ret, 0, "%s: imports (%s)", what, err.msg);
	is_str(s, want, "%s: stacks and self weights", what);
	is_int(unit, want_unit, "%s: unit %s", what, tk_unit_name(want_unit));
	free(s);
}

static void hostile(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;
	size_t len;
	char *deep;
	int ret;

	deep = dump_deep_json(100000, &len);
	deep[0] = '{';
	tk_buf_adds(&b, "<html>\n<script>\nconst v = new ProfileCanvas.ProfileViewer(\"#x\", ");
	tk_buf_adds(&b, "{\"all\":");
	tk_buf_add(&b, deep, len);
	free(deep);
	ret = dump_import_mem("deep.html", b.buf, b.len, NULL, &err);
	is_int(ret, TK_EDATA, "deeply nested embedded JSON is TK_EDATA: %s", err.msg);
	ok(strstr(err.msg, "'deep.html' line 3 column") != NULL,
	   "the position is on the page's line 3");
	tk_buf_reset(&b);

	tk_buf_adds(&b, "<div>ProfileCanvas</div><script>new ProfileCanvas.ProfileViewer(\"#x\", "
		    "{\"all\":{\"func\":\"root\",\"count\":1,\"children\":[{\"func\":\"f\",\"count\":1,"
		    "\"children\":[");
	ret = dump_import_mem("trunc.html", b.buf, b.len, NULL, &err);
	ok(ret == TK_EDATA && strstr(err.msg, "line 1 column"), "truncated data: %s", err.msg);
	tk_buf_reset(&b);

	tk_buf_adds(&b, "<html>ProfileCanvas but no viewer call</html>");
	ret = dump_import_mem("none.html", b.buf, b.len, NULL, &err);
	ok(ret == TK_EDATA && strstr(err.msg, "no ProfileCanvas"), "a page without data: %s", err.msg);
	tk_buf_reset(&b);

	tk_buf_adds(&b, "<script>ProfileCanvas.ProfileViewer(\"#x\", {\"all\":{\"func\":\"root\","
		    "\"count\":1,\"children\":[{\"count\":1}]}}, \"Thread\")</script>");
	ret = dump_import_mem("nofunc.html", b.buf, b.len, NULL, &err);
	ok(ret == TK_EDATA && strstr(err.msg, "func"), "a node without func: %s", err.msg);
	tk_buf_release(&b);
}

/* The category of the frame named name in p, or -1 when there is none. */
static int category_of(const struct tk_profile *p, const char *name)
{
	uint32_t i;

	for (i = 1; i < p->nr_names; i++)
		if (!strcmp(p->names[i], name))
			return (int)tk_profile_category(p, i);
	return -1;
}

/* ProfileCanvas's frame flags become categories (julia.html has each). */
static void categories(void)
{
	static const struct {
		const char *name;
		enum tk_category cat;
	} want[] = {
		{ "jl_apply_generic (gf.c:2940)", TK_CAT_DISPATCH },
		{ "jl_gc_collect (gc.c:3378)", TK_CAT_GC },
		{ "gc_mark_loop (gc.c:2630)", TK_CAT_GC },
		{ "gc_sweep (gc.c:2630)", TK_CAT_GC },
		{ "typeinf_ext_toplevel (typeinfer.jl:1078)", TK_CAT_COMPILATION },
		{ "abstract_call (abstractinterpretation.jl:2100)", TK_CAT_COMPILATION },
		{ "wait (task.jl:931)", TK_CAT_TASK },
		/* REPL (flag 4) is no category; unflagged frames have none */
		{ "eval_user_input (REPL.jl:150)", TK_CAT_NONE },
		{ "tendency! (tendency.jl:12)", TK_CAT_NONE },
		{ "materialize! (broadcast.jl:903)", TK_CAT_NONE },
	};
	struct tk_import_opts io;
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	size_t i;

	memset(&io, 0, sizeof(io));
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file("fixtures/profilecanvas/julia.html", NULL, &io, &p, &err), 0,
	       "julia.html imports (%s)", err.msg);
	ok(tk_profile_has_categories(&p), "julia.html has categories");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		is_int(category_of(&p, want[i].name), want[i].cat, "%s is %s", want[i].name,
		       want[i].cat ? tk_category_name(want[i].cat) : "no category");
	tk_profile_release(&p);
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	tk_import_file("fixtures/profilecanvas/alloc.html", NULL, &io, &p, &err);
	is_int(category_of(&p, "Vector{Float64}"), TK_CAT_GC,
	       "allocation pages flag the allocated types as GC, and so does tracker");
	tk_profile_release(&p);
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_unit unit;
	int ret;
	char *s;

	check("fixtures/profilecanvas/cpu.html", NULL, CPU_ALL, TK_UNIT_SAMPLES, "cpu.html");
	check("fixtures/profilecanvas/cpu.html", "cpu", CPU_ALL, TK_UNIT_SAMPLES, "cpu.html --kind cpu");
	check("fixtures/profilecanvas/cpu.html", "1", "bar (bar.jl:3) 3\n", TK_UNIT_SAMPLES,
	      "cpu.html thread 1");
	check("fixtures/profilecanvas/alloc.html", NULL, ALLOC_SIZE, TK_UNIT_BYTES, "alloc.html");
	check("fixtures/profilecanvas/alloc.html", "alloc-count", ALLOC_COUNT, TK_UNIT_COUNT,
	      "alloc.html --kind alloc-count");
	check("fixtures/profilecanvas/both.html", NULL, ALLOC_SIZE, TK_UNIT_BYTES,
	      "both.html: the first viewer");
	check("fixtures/profilecanvas/both.html", "cpu", CPU_ALL, TK_UNIT_SAMPLES, "both.html --kind cpu");
	check("fixtures/profilecanvas/both.html", "alloc", ALLOC_SIZE, TK_UNIT_BYTES,
	      "both.html --kind alloc");

	s = dump_import("fixtures/profilecanvas/cpu.html", NULL, "alloc", NULL, &unit, &ret, &err);
	is_int(ret, TK_EUSAGE, "--kind alloc on a CPU page is a usage error");
	ok(strstr(err.msg, "no alloc profile") != NULL, "saying so: %s", err.msg);
	free(s);
	hostile();
	categories();
	return done_testing();
}
