/*
 * The profiler's orchestration (core/measure/profiler): its option values, and
 * that what it cannot do reaches the caller as a warning through the
 * callback (a static program, which LD_PRELOAD cannot reach).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/measure/profiler.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

struct warnings {
	struct tk_buf all;
	int n;
};

static void collect(void *data, const char *msg)
{
	struct warnings *w = data;

	tk_buf_addf(&w->all, "%s\n", msg);
	w->n++;
}

static void test_options(void)
{
	unsigned what;
	uint64_t bytes;

	is_int(tk_profiler_parse_what("alloc", &what), 0, "alloc");
	is_int(what, TK_PROFILER_ALLOC, "is the allocation profile");
	tk_profiler_parse_what("alloc,cpu", &what);
	is_int(what, TK_PROFILER_ALLOC | TK_PROFILER_CPU, "alloc,cpu is both");
	tk_profiler_parse_what("all", &what);
	is_int(what, TK_PROFILER_ALLOC | TK_PROFILER_CPU, "all is both");
	is_int(tk_profiler_parse_what("heap", &what), -1, "heap is not a profile");
	is_int(tk_profiler_parse_what("", &what), -1, "nothing is not a profile");
	is_int(tk_profiler_parse_bytes("512KiB", &bytes), 0, "512KiB");
	is_int(bytes, 512 * 1024, "is 524288 bytes");
	tk_profiler_parse_bytes("1", &bytes);
	is_int(bytes, 1, "1 is exact mode");
	is_int(tk_profiler_parse_bytes("0", &bytes), -1, "0 is refused");
	is_int(tk_profiler_parse_bytes("4X", &bytes), -1, "an unknown unit is refused");
}

static void test_parse_settings(void)
{
	enum tk_cpu_sampler sampler = TK_CPU_SAMPLER_AUTO;
	const char *unwind = NULL;

	is_int(tk_profiler_parse_sampler("timer", &sampler), 0, "sampler timer");
	ok(sampler == TK_CPU_SAMPLER_TIMER, "is set");
	is_int(tk_profiler_parse_sampler("dwarf", &sampler), -1, "sampler dwarf is not one");
	is_int(tk_profiler_parse_unwind("libunwind", &unwind), 0, "unwind libunwind");
	is_str(unwind, "libunwind", "is set");
	is_int(tk_profiler_parse_unwind("dwarf", &unwind), -1, "unwind dwarf is not one");
}

static void test_static_program(void)
{
	const char *prog = "examples/allocpattern-static";
	char *argv[2] = { (char *)prog, NULL };
	struct warnings w = { TK_BUF_INIT, 0 };
	struct tk_profiler p;

	if (access(prog, X_OK)) {
		skip(3, "%s is not built (make examples/allocpattern-static, from the "
		     "top of the tree)", prog);
		return;
	}
	tk_profiler_init(&p);
	p.what = TK_PROFILER_ALLOC;
	p.warn = collect;
	p.warn_data = &w;
	is_int(tk_profiler_start(&p, argv), 0, "starting on a static program is no error");
	is_int(w.n, 1, "but one warning");
	ok(strstr(w.all.buf, "LD_PRELOAD cannot reach it") &&
	   strstr(w.all.buf, "without an allocation profile"),
	   "saying what is lost");
	tk_profiler_release(&p);
	tk_buf_release(&w.all);
}

/* The job's environment is built for it; tracker's own stays as it was. */
static void test_job_environment(void)
{
	const char *prog = "examples/allocpattern";
	char *argv[2] = { (char *)prog, NULL };
	struct warnings w = { TK_BUF_INIT, 0 };
	struct tk_profiler p;
	char *const *e, top[4096];
	int preload = 0, dir = 0, kept = 0;

	if (access(prog, X_OK) || access("libtracker-preload.so", R_OK)) {
		skip(4, "%s or libtracker-preload.so is not built (make, from the top of the "
		     "tree)", prog);
		return;
	}
	setenv("T_PROFILER_KEEP", "yes", 1);
	unsetenv("LD_PRELOAD");
	tk_profiler_init(&p);
	/* the library is at the top of the tree, where the tests run */
	p.libdir = getcwd(top, sizeof(top));
	p.what = TK_PROFILER_ALLOC;
	p.warn = collect;
	p.warn_data = &w;
	is_int(tk_profiler_start(&p, argv), 0, "the profiler starts on a dynamic program");
	ok(!getenv("LD_PRELOAD") && !getenv("TRACKER_PROFILE_DIR"),
	   "tracker's own environment is unchanged");
	for (e = tk_profiler_env(&p); e && *e; e++) {
		preload += !strncmp(*e, "LD_PRELOAD=", 11) && strstr(*e, "libtracker-preload.so");
		dir += !strncmp(*e, "TRACKER_PROFILE_DIR=", 20);
		kept += !strcmp(*e, "T_PROFILER_KEEP=yes");
	}
	ok(preload == 1 && dir == 1, "the job's has LD_PRELOAD and the profile directory, once");
	ok(kept == 1, "and the rest of tracker's");
	tk_profiler_release(&p);
	tk_buf_release(&w.all);
}

int main(void)
{
	test_options();
	test_parse_settings();
	test_static_program();
	test_job_environment();
	return done_testing();
}
