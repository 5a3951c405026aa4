/*
 * Readable names (core/model/demangle.c): C++ and Rust symbols demangled by
 * libiberty, symbol versions dropped, other languages' names and readable
 * ones left alone, and the profile pass that merges the frames that end
 * up with one name.
 */
#include <stdlib.h>
#include <string.h>

#include "core/model/demangle.h"
#include "core/model/import.h"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

static void name_is(const char *in, const char *want)
{
	struct tk_buf out = TK_BUF_INIT;
	int changed = tk_demangle_name(in, strlen(in), 0, &out);

	if (!want) {
		is_int(changed, 0, "'%s' is kept", in);
	} else {
		is_int(changed, 1, "'%s' is rewritten", in);
		is_str(out.buf, want, "  as '%s'", want);
	}
	tk_buf_release(&out);
}

static void names(void)
{
	/* C++ (Itanium ABI): namespaces, templates, parameters */
	name_is("_ZN7climate4GridIdE6refineEi", "climate::Grid<double>::refine(int)");
	name_is("_Z1fIiEvT_", "void f<int>(int)");
	name_is("_ZNSt6vectorIiSaIiEE9push_backERKi",
		"std::vector<int, std::allocator<int> >::push_back(int const&)");
	name_is("_ZN3foo3barEv.constprop.0", "foo::bar() [clone .constprop.0]");
	name_is("_ZTV3Foo", "vtable for Foo");
	/* Rust v0 (RFC 2603; rustc-demangle and Linux perf test cases) */
	name_is("_RNvCs15kBYyAo9fc_7mycrate7example", "mycrate::example");
	name_is("_RNvMsr_NtCs3ssYzQotkvD_3std4pathNtB5_7PathBuf3newCs15kBYyAo9fc_7mycrate",
		"<std::path::PathBuf>::new");
	name_is("_RNvMs_Cs4Cv8Wi1oAIB_7mycrateNtB4_7Example3foo", "<mycrate::Example>::foo");
	name_is("_RNvC6_123foo3bar", "123foo::bar");
	/* Rust legacy: the hash goes */
	name_is("_ZN5alloc3oom3oom17h722648b727b8bcd0E", "alloc::oom::oom");
	name_is("_ZN4core3fmt5Write10write_char17hcc5144a9a84f2b15E",
		"core::fmt::Write::write_char");
	/* symbol versions */
	name_is("__libc_start_main@@GLIBC_2.34", "__libc_start_main");
	name_is("memcpy@GLIBC_2.2.5", "memcpy");
	name_is("pthread_cond_signal@@GLIBC_2.3.2", "pthread_cond_signal");
	name_is("__libc_dlopen_mode@@GLIBC_PRIVATE", "__libc_dlopen_mode");
	name_is("_ZNSt6thread6_StateD2Ev@@GLIBCXX_3.4.22", "std::thread::_State::~_State()");
	name_is("memcpy@plt", NULL);
	name_is("f@Base", NULL);
	name_is("user@example.com", NULL);
	name_is("a@GLIBC_2.2.5x", NULL);
	/* what follows the symbol is kept */
	name_is("_ZN7climate4GridIdE6refineEi grid.cpp:42", "climate::Grid<double>::refine(int) grid.cpp:42");
	name_is("_ZN7climate4GridIdE6refineEi_[k]", "climate::Grid<double>::refine(int)_[k]");
	name_is("_ZN7climate4GridIdE6refineEi_[i]", "climate::Grid<double>::refine(int)_[i]");
	name_is("memcpy@@GLIBC_2.14_[k]", "memcpy_[k]");
	name_is("libapp.so`_ZN7climate4GridIdE6refineEi", "libapp.so`climate::Grid<double>::refine(int)");
	name_is("libc.so.1`memcpy@@GLIBC_2.14", "libc.so.1`memcpy");
	name_is("app`main", NULL);
	/* readable already, or other languages: untouched */
	name_is("climate::Grid<double>::refine(int)", NULL);
	name_is("alloc::oom::oom", NULL);
	name_is("main", NULL);
	name_is("", NULL);
	name_is("_Z", NULL);
	name_is("_Zone (zone.py:10)", NULL);
	name_is("_Run (worker.py:3)", NULL);
	name_is("_Rfoo", NULL);
	name_is("_ZN3foo3barE.cold", NULL);
	name_is("julia_getindex_cache!_19036 (cache.jl)", NULL);
	name_is("#_Zfoo#12 (run.jl:3)", NULL);
	name_is("_ZN7climate4GridIdE6refineEiXYZ", NULL);

	/* without parameters, as perf script and DTrace names read */
	{
		struct tk_buf out = TK_BUF_INIT;

		ok(tk_demangle_name("_ZN7climate4GridIdE6refineEi", 28, TK_DEMANGLE_NO_PARAMS, &out) &&
		   !strcmp(out.buf, "climate::Grid<double>::refine"),
		   "TK_DEMANGLE_NO_PARAMS: '%s'", out.buf);
		ok(tk_demangle_name("_RNvCs15kBYyAo9fc_7mycrate7example", 34, TK_DEMANGLE_NO_PARAMS,
				    &out) && !strcmp(out.buf, "mycrate::example"),
		   "TK_DEMANGLE_NO_PARAMS, Rust: '%s'", out.buf);
		tk_buf_release(&out);
	}
}

static void import_folded(const char *text, int no_demangle, struct tk_profile *p)
{
	struct tk_import_opts o = { 0 };
	struct tk_err err = TK_ERR_INIT;

	o.no_demangle = no_demangle;
	tk_profile_init(p, TK_UNIT_SAMPLES);
	is_int(tk_import_mem("t.folded", text, strlen(text), "folded", &o, p, &err), 0,
	       "imports (%s)", err.msg);
}

static void merging(void)
{
	static const char in[] =
		"main;_ZN5alloc3oom3oom17h722648b727b8bcd0E;_ZN4core3fmt5Write10write_char17hcc5144a9a84f2b15E 3\n"
		"main;_ZN5alloc3oom3oom17h9f8e7d6c5b4a3921E;work 4\n"
		"main;_ZN5alloc3oom3oom17h9f8e7d6c5b4a3921E;_ZN4core3fmt5Write10write_char17hcc5144a9a84f2b15E 2\n"
		"main;memcpy@GLIBC_2.2.5 1\n"
		"main;memcpy 2\n"
		"main;_ZN7climate4GridIdE6refineEi 5\n";
	struct tk_profile p;
	char *got;

	import_folded(in, 0, &p);
	got = dump_folded(&p);
	is_str(got,
	       "main;alloc::oom::oom;core::fmt::Write::write_char 5\n"
	       "main;alloc::oom::oom;work 4\n"
	       "main;climate::Grid<double>::refine(int) 5\n"
	       "main;memcpy 3\n",
	       "two hashes of one Rust function are one frame, their subtrees merged; "
	       "a versioned symbol joins its plain self");
	ok(tk_profile_total(&p) == 17, "the total is kept");
	is_int(p.nr_nodes, 7, "one node per distinct path, plus the root");
	free(got);
	tk_profile_release(&p);

	/* the profile rebuilt with merged frames keeps its sampling noise */
	import_folded(in, 1, &p);
	p.dispersion = 5000;
	ok(tk_profile_demangle(&p, 0) > 0 && p.nr_nodes == 7 && p.dispersion == 5000,
	   "merging frames keeps the profile's sampling dispersion (%g)", p.dispersion);
	tk_profile_release(&p);

	import_folded(in, 1, &p);
	got = dump_folded(&p);
	ok(strstr(got, "main;_ZN5alloc3oom3oom17h722648b727b8bcd0E;") &&
	   strstr(got, "main;memcpy@GLIBC_2.2.5 1\n"), "no_demangle keeps the raw names");
	is_int(p.nr_nodes, 10, "and every raw frame");
	free(got);
	tk_profile_release(&p);
}

static void untouched(void)
{
	static const char in[] = "main;a;b 3\nmain;c 1\nmain;a 2\n";
	struct tk_profile p, q;
	uint32_t i;
	int same = 1;

	import_folded(in, 1, &p);
	import_folded(in, 0, &q);
	is_int(tk_profile_demangle(&p, 0), 0, "a profile with nothing to rewrite: no name changes");
	same = p.nr_nodes == q.nr_nodes && p.nr_names == q.nr_names;
	for (i = 0; same && i < p.nr_nodes; i++)
		same = !memcmp(&p.nodes[i], &q.nodes[i], sizeof(p.nodes[i]));
	ok(same, "and its nodes stay exactly as they were");
	tk_profile_release(&p);
	tk_profile_release(&q);

	/* idempotent: a second pass finds nothing */
	import_folded("main;_ZN7climate4GridIdE6refineEi;x@@GLIBC_2.34 1\n", 0, &p);
	is_int(tk_profile_demangle(&p, 0), 0, "demangling a demangled profile changes nothing");
	is_str(tk_profile_name(&p, p.nodes[p.nodes[0].first_child].first_child),
	       "climate::Grid<double>::refine(int)", "the name stays readable");
	tk_profile_release(&p);
}

/* Renamed without merges: the tree is kept, and still searchable. */
static void renamed(void)
{
	static const char in[] =
		"main;_ZN7climate4GridIdE6refineEi;a 3\n"
		"main;_ZN7climate4GridIdE6refineEi;b 1\n"
		"main;x@@GLIBC_2.34 2\n";
	struct tk_profile p;
	uint32_t path[3];
	char *got;

	import_folded(in, 1, &p);
	is_int(tk_profile_demangle(&p, 0), 2, "two names rewritten, none merged");
	is_int(p.nr_nodes, 6, "every node kept");
	path[0] = tk_profile_intern(&p, "main", 4);
	path[1] = tk_profile_intern(&p, "climate::Grid<double>::refine(int)", 34);
	path[2] = tk_profile_intern(&p, "a", 1);
	is_int(tk_profile_add_stack(&p, path, 3, 10), 0, "a stack added after the rename");
	tk_profile_finish(&p);
	is_int(p.nr_nodes, 6, "finds the renamed nodes instead of making new ones");
	got = dump_folded(&p);
	is_str(got,
	       "main;climate::Grid<double>::refine(int);a 13\n"
	       "main;climate::Grid<double>::refine(int);b 1\n"
	       "main;x 2\n", "the renamed tree");
	free(got);
	tk_profile_release(&p);
}

/* Symbols past the cap are kept: the demangler's stack use grows with them. */
static void long_symbol(void)
{
	struct tk_buf in = TK_BUF_INIT, out = TK_BUF_INIT;
	size_t i;

	tk_buf_adds(&in, "_ZN");
	for (i = 0; i < TK_DEMANGLE_MAX_SYMBOL / 4; i++)
		tk_buf_adds(&in, "3foo");
	tk_buf_adds(&in, "Ev");
	is_int(tk_demangle_name(in.buf, in.len, 0, &out), 0, "a %zu-byte symbol is kept", in.len);
	tk_buf_release(&in);
	tk_buf_release(&out);
}

int main(void)
{
	names();
	merging();
	untouched();
	renamed();
	long_symbol();
	return done_testing();
}
