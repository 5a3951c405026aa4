/* Frame-name normalizers: real-looking names from perf, gdb, pprof, Julia, V8. */
#include <string.h>

#include "core/analyze/normalize.h"
#include "tests/unit/tap.h"

static const char *norm(const char *in, unsigned flags)
{
	static struct tk_buf out = TK_BUF_INIT;

	tk_buf_reset(&out);
	tk_normalize_name(in, strlen(in), flags, &out);
	return out.buf;
}

static const struct {
	unsigned flags;
	const char *in, *want;
} cases[] = {
	/* hex */
	{ TK_NORM_HEX, "0x7f3a1200beef", "0x..." },
	{ TK_NORM_HEX, "dd;[unknown];0x234f2abc", "dd;[unknown];0x..." },
	{ TK_NORM_HEX, "[libc.so.6+0x1a2b3]", "[libc.so.6]" },
	{ TK_NORM_HEX, "do_syscall_64+0x5b/0x1a0", "do_syscall_64" },
	{ TK_NORM_HEX, "runtime.goexit+0x1", "runtime.goexit" },
	{ TK_NORM_HEX, "core::ptr::drop_in_place::h1a2b3c4d5e6f7081",
	  "core::ptr::drop_in_place" },
	{ TK_NORM_HEX, "std::rt::lang_start::{{closure}}::h0123456789abcdef (main.rs:5)",
	  "std::rt::lang_start::{{closure}} (main.rs:5)" },
	{ TK_NORM_HEX, "hash_0x12", "hash_0x12" },
	{ TK_NORM_HEX, "sha::h123", "sha::h123" },
	{ TK_NORM_HEX, "f(0x10)", "f(0x...)" },
	{ TK_NORM_HEX, "0xzz", "0xzz" },
	/* templates */
	{ TK_NORM_TEMPLATES, "std::vector<int, std::allocator<int> >::push_back(int const&)",
	  "std::vector<>::push_back(int const&)" },
	{ TK_NORM_TEMPLATES, "foo<int, bar<x>>", "foo<>" },
	{ TK_NORM_TEMPLATES, "std::_Function_handler<void (), main::{lambda()#1}>::_M_invoke",
	  "std::_Function_handler<>::_M_invoke" },
	{ TK_NORM_TEMPLATES, "bool operator< <Key>(Key const&, Key const&)",
	  "bool operator< <>(Key const&, Key const&)" },
	{ TK_NORM_TEMPLATES, "std::ostream& operator<< <char>(std::ostream&, char const*)",
	  "std::ostream& operator<< <>(std::ostream&, char const*)" },
	{ TK_NORM_TEMPLATES, "operator<=>", "operator<=>" },
	{ TK_NORM_TEMPLATES, "Foo::operator<(Foo const&)", "Foo::operator<(Foo const&)" },
	{ TK_NORM_TEMPLATES, "<module>", "<module>" },
	{ TK_NORM_TEMPLATES, "<genexpr> (app.py:12)", "<genexpr> (app.py:12)" },
	{ TK_NORM_TEMPLATES, "std::map<K, std::function<int (int)->bool>>::at",
	  "std::map<>::at" },
	{ TK_NORM_TEMPLATES, "java.util.HashMap<K,V>.get", "java.util.HashMap<>.get" },
	{ TK_NORM_TEMPLATES, "broken<unclosed", "broken<unclosed" },
	{ TK_NORM_TEMPLATES, "a<b>::c<d>", "a<>::c<>" },
	/* lambdas */
	{ TK_NORM_LAMBDAS, "main::{lambda()#3}::operator()() const",
	  "main::{lambda()#N}::operator()() const" },
	{ TK_NORM_LAMBDAS, "Foo::run()::{lambda(int, char const*)#12}::operator()",
	  "Foo::run()::{lambda(int, char const*)#N}::operator()" },
	{ TK_NORM_LAMBDAS, "std::thread::_State_impl<{unnamed type#2}>",
	  "std::thread::_State_impl<{unnamed type#N}>" },
	{ TK_NORM_LAMBDAS, "main::$_12::operator()() const", "main::$_N::operator()() const" },
	{ TK_NORM_LAMBDAS, "app::run::{{closure}}", "app::run::{{closure}}" },
	{ TK_NORM_LAMBDAS, "app::run::{closure#0}", "app::run::{closure#N}" },
	{ TK_NORM_LAMBDAS, "com.example.Main.lambda$main$0", "com.example.Main.lambda$main$N" },
	{ TK_NORM_LAMBDAS, "com.example.Outer$1.run", "com.example.Outer$N.run" },
	{ TK_NORM_LAMBDAS, "main.main.func1.2", "main.main.funcN.N" },
	{ TK_NORM_LAMBDAS, "net/http.(*Server).Serve.func3", "net/http.(*Server).Serve.funcN" },
	{ TK_NORM_LAMBDAS, "main.funcname", "main.funcname" },
	{ TK_NORM_LAMBDAS, "price$USD", "price$USD" },
	/* julia */
	{ TK_NORM_JULIA, "#foo#12", "#foo#N" },
	{ TK_NORM_JULIA, "#12", "#N" },
	{ TK_NORM_JULIA, "#13#14", "#N#N" },
	{ TK_NORM_JULIA, "var\"#step!#27\"", "var\"#step!#N\"" },
	{ TK_NORM_JULIA, "var\"#f##kw\"", "var\"#f##kw\"" },
	{ TK_NORM_JULIA, "##sum#123 (reduce.jl:5)", "##sum#N (reduce.jl:5)" },
	{ TK_NORM_JULIA, "julia_mapreduce_impl_1234", "julia_mapreduce_impl_N" },
	{ TK_NORM_JULIA, "jfptr_step!_5678", "jfptr_step!_N" },
	{ TK_NORM_JULIA, "japi1_setindex!_911;j_foo_12", "japi1_setindex!_N;j_foo_N" },
	{ TK_NORM_JULIA, "tojlinvoke12345", "tojlinvokeN" },
	{ TK_NORM_JULIA, "julia_foo", "julia_foo" },
	{ TK_NORM_JULIA, "majulia_foo_12", "majulia_foo_12" },
	{ TK_NORM_JULIA, "step_u! (ode.jl:33)", "step_u! (ode.jl:33)" },
	/* lines */
	{ TK_NORM_LINES, "step! (ode.jl:33)", "step! (ode.jl)" },
	{ TK_NORM_LINES, "foo at /src/Foo.jl:123", "foo at /src/Foo.jl" },
	{ TK_NORM_LINES, "render (app/views.py:45:7)", "render (app/views.py)" },
	{ TK_NORM_LINES, "main (file:///app/index.js:10)", "main (file:///app/index.js)" },
	{ TK_NORM_LINES, "std::foo::bar:12", "std::foo::bar:12" },
	{ TK_NORM_LINES, "time 12:30", "time 12:30" },
	{ TK_NORM_LINES, "a.c:12x", "a.c:12x" },
	{ TK_NORM_LINES, "x.hpp:1;y.cc:2", "x.hpp;y.cc" },
	/* combinations */
	{ TK_NORM_ALL, "julia_#foo#12_345", "julia_#foo#N_N" },
	{ TK_NORM_ALL, "std::vector<T>::f()::{lambda()#2} (vec.cpp:88)+0x1f",
	  "std::vector<>::f()::{lambda()#N} (vec.cpp)" },
	{ TK_NORM_ALL, "#solve!#45 (/home/ci/.julia/packages/ODE/abc/src/ode.jl:120)",
	  "#solve!#N (/home/ci/.julia/packages/ODE/abc/src/ode.jl)" },
	{ TK_NORM_ALL, "", "" },
	{ TK_NORM_ALL, "<script>&\"", "<script>&\"" },
	{ 0, "foo<int>:12 #3 0x1", "foo<int>:12 #3 0x1" },
	/* the examples of docs/normalize.md */
	{ TK_NORM_JULIA | TK_NORM_LINES | TK_NORM_HEX, "#solve!#45 (ode.jl:120)", "#solve!#N (ode.jl)" },
	{ TK_NORM_JULIA | TK_NORM_LINES | TK_NORM_HEX, "julia_step!_5678", "julia_step!_N" },
	{ TK_NORM_JULIA, "julia_#solve!#45_1234", "julia_#solve!#N_N" },
	{ TK_NORM_TEMPLATES | TK_NORM_LAMBDAS | TK_NORM_HEX,
	  "std::_Function_handler<void (), main::{lambda()#1}>::_M_invoke+0x1f",
	  "std::_Function_handler<>::_M_invoke" },
	{ TK_NORM_HEX, "core::ptr::drop::h1a2b3c4d5e6f7081", "core::ptr::drop" },
};

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf out = TK_BUF_INIT;
	unsigned flags;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(norm(cases[i].in, cases[i].flags), cases[i].want, "%#x: %s", cases[i].flags,
		       cases[i].in);

	/* invalid UTF-8 and NUL bytes are copied */
	tk_normalize_name("a\xff\0<b>", 7, TK_NORM_ALL, &out);
	ok(out.len == 7 && !memcmp(out.buf, "a\xff\0<b>", 7), "raw bytes pass through (len %zu)",
	   out.len);
	tk_buf_release(&out);

	/* a cap on out */
	tk_buf_init(&out, 0);
	out.cap = 4;
	ret = tk_normalize_name("0123456789", 10, 0, &out);
	is_int(ret, TK_EDATA, "the output cap is honoured");
	tk_buf_release(&out);

	/* a 100 KB name of nested templates (no quadratic blow-up, no stack) */
	{
		struct tk_buf big = TK_BUF_INIT;

		for (i = 0; i < 50000; i++)
			tk_buf_adds(&big, "a<");
		for (i = 0; i < 50000; i++)
			tk_buf_addch(&big, '>');
		is_str(norm(big.buf, TK_NORM_TEMPLATES), "a<>", "150 KB of nested templates");
		tk_buf_release(&big);
	}

	ret = tk_normalize_parse("hex,templates", &flags, &err);
	ok(!ret && flags == (TK_NORM_HEX | TK_NORM_TEMPLATES), "parse hex,templates");
	ret = tk_normalize_parse("all", &flags, &err);
	ok(!ret && flags == TK_NORM_ALL, "parse all");
	ret = tk_normalize_parse("none", &flags, &err);
	ok(!ret && flags == 0, "parse none");
	ret = tk_normalize_parse("julia,lines,lambdas", &flags, &err);
	ok(!ret && flags == (TK_NORM_JULIA | TK_NORM_LINES | TK_NORM_LAMBDAS), "parse three");
	ret = tk_normalize_parse("hex,bogus", &flags, &err);
	ok(ret == TK_EUSAGE && strstr(err.msg, "'bogus'"), "unknown word: %s", err.msg);
	ret = tk_normalize_parse("hexx", &flags, &err);
	is_int(ret, TK_EUSAGE, "prefix words are not accepted");
	return done_testing();
}
