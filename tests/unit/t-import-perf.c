/*
 * The perf script importer: exact stacks and weights on hand-written
 * fixtures (fixtures/perf/), stackcollapse-perf.pl's own outputs on the
 * shared real data (skipped when ../shared is absent), content probes,
 * and bad input.
 */
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "plugins/import/importers.h"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

static int import_file(const char *path, const struct tk_import_opts *o, struct tk_profile *p,
		       struct tk_err *err)
{
	tk_profile_init(p, TK_UNIT_SAMPLES);
	return tk_import_file(path, "perf", o, p, err);
}

/* Imports a fixture and compares its folded dump with want. */
static void check_fixture(const char *rel, const struct tk_import_opts *o, const char *want,
			  enum tk_unit unit, const char *what)
{
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	char *path = dump_fixture(rel), *got;
	int ret = import_file(path, o, &p, &err);

	is_int(ret, 0, "%s: imports (%s)", what, err.msg);
	got = dump_folded(&p);
	is_str(got, want, "%s: stacks and weights", what);
	is_int(p.unit, unit, "%s: unit %s", what, tk_unit_name(unit));
	free(got);
	free(path);
	tk_profile_release(&p);
}

/* Real data against a golden made by stackcollapse-perf.pl. */
static void check_golden(const char *input, const char *golden, int golden_shared,
			 const struct tk_import_opts *o)
{
	char *in = dump_shared(input);
	char *gpath = golden_shared ? dump_shared(golden) : dump_fixture(golden);
	char *gtext, *want, *got;
	struct tk_import_opts raw = o ? *o : (struct tk_import_opts){ 0 };
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	/* stackcollapse-perf.pl keeps names as perf prints them
	 * (name@@GLIBC_2.3.2): so does tracker with no_demangle */
	raw.no_demangle = 1;
	if (!in || !gpath) {
		skip(1, "%s: ../shared/real-data is absent", input);
		free(in);
		free(gpath);
		return;
	}
	gtext = dump_read(gpath);
	ret = import_file(in, &raw, &p, &err);
	is_int(ret, 0, "%s imports (%s)", input, err.msg);
	got = dump_folded(&p);
	want = dump_sort_lines(gtext ? gtext : "");
	is_str(got, want, "%s gives exactly %s", input, golden);
	free(got);
	free(want);
	free(gtext);
	free(in);
	free(gpath);
	tk_profile_release(&p);
}

/* The name of the importer whose probe takes the file, or NULL. */
static const char *probed(const char *path)
{
	char *text = dump_read(path);
	size_t len;
	const char *name = NULL;

	if (!text)
		return NULL;
	len = strlen(text);
	if (len > 4096)
		len = 4096;
	if (tk_importer_probe(text, len))
		name = tk_importer_probe(text, len)->name;
	free(text);
	return name;
}

static void check_probe(const char *path, const char *want, int shared)
{
	char *full = shared ? dump_shared(path) : dump_fixture(path);

	if (!full) {
		skip(1, "%s: ../shared/real-data is absent", path);
		return;
	}
	is_str(probed(full), want, "%s is probed as %s", path, want);
	free(full);
}

static const char mixed_default[] =
	"V8_Worker;void std::vector<int, std::allocator<int> >::emplace_back<int>;"
	"std::function<void ;LazyCompile:~run /app.js:1_[j] 500000\n"
	"app;[unknown];[app];native_safe_halt_[k] 250000\n"
	"app;__libc_start_main;main;compute 500000\n"
	"app;main;inner_fn;outer_fn_[i];net/http.(*Client).Do 250000\n";

static const char mixed_plain_samples[] =
	"V8_Worker;void std::vector<int, std::allocator<int> >::emplace_back<int>;"
	"std::function<void ;LazyCompile:~run /app.js:1 1\n"
	"app;[unknown];[app];native_safe_halt 1\n"
	"app;__libc_start_main;main;compute 2\n"
	"app;main;inner_fn;outer_fn_[i];net/http.(*Client).Do 1\n";

static const char mixed_tid[] =
	"V8_Worker-100/103;void std::vector<int, std::allocator<int> >::emplace_back<int>;"
	"std::function<void ;LazyCompile:~run /app.js:1_[j] 500000\n"
	"app-100/101;__libc_start_main;main;compute 500000\n"
	"app-100/101;main;inner_fn;outer_fn_[i];net/http.(*Client).Do 250000\n"
	"app-100/102;[unknown];[app];native_safe_halt_[k] 250000\n";

/* The last (java) sample has no blank line after it: dropped. */
static const char two_first[] = "noploop;__libc_start_main;main 2\n";
static const char two_cycles_pid[] = "noploop-?;main 1\n";

static void fixtures(void)
{
	struct tk_import_opts o = { 0 };
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	char *path;

	check_fixture("fixtures/perf/mixed.perf-script", &o, mixed_default, TK_UNIT_NANOSECONDS,
		      "mixed (periods, kernel, jit, inline, Go, C++, [unknown])");
	o.kind = "plain,samples";
	check_fixture("fixtures/perf/mixed.perf-script", &o, mixed_plain_samples,
		      TK_UNIT_SAMPLES, "mixed with kind plain,samples");
	o.kind = NULL;
	o.tid_frames = 1;
	check_fixture("fixtures/perf/mixed.perf-script", &o, mixed_tid, TK_UNIT_NANOSECONDS,
		      "mixed with tid frames");
	o.tid_frames = 0;
	check_fixture("fixtures/perf/two-events.perf-script", &o, two_first, TK_UNIT_SAMPLES,
		      "two events: the first is kept");
	o.event = "cycles";
	o.pid_frames = 1;
	check_fixture("fixtures/perf/two-events.perf-script", &o, two_cycles_pid,
		      TK_UNIT_SAMPLES, "two events: --event cycles, pid frames");

	o.event = NULL;
	o.pid_frames = 0;
	path = dump_fixture("fixtures/perf/two-events.perf-script");
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file(path, "perf", &o, &p, &err), 0, "two events import");
	ok(strstr(p.warning, "kept the 2 sample(s) of event 'instructions', skipped 1 of other") &&
	   strstr(p.warning, "dropped the last sample (line 12)"),
	   "the warning names the event kept and the dropped last sample: %s", p.warning);
	tk_profile_release(&p);
	o.event = "nosuchevent";
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file(path, "perf", &o, &p, &err), TK_EDATA, "an event with no samples is an error");
	ok(strstr(err.msg, "no samples of event 'nosuchevent'") != NULL, "saying so: %s", err.msg);
	tk_profile_release(&p);
	free(path);

	o.event = NULL;
	o.kind = "fancy";
	path = dump_fixture("fixtures/perf/mixed.perf-script");
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file(path, "perf", &o, &p, &err), TK_EUSAGE, "an unknown kind is a usage error");
	ok(strstr(err.msg, "fancy") != NULL, "naming it: %s", err.msg);
	tk_profile_release(&p);
	free(path);
}

static void real_data(void)
{
	struct tk_import_opts o = { 0 };

	check_golden("real-data/perf-script/fg_perf-vertx-stacks-01.txt",
		     "real-data/folded/fg_perf-vertx-stacks-01-collapsed-all.txt", 1, &o);
	check_golden("real-data/perf-script/fg_perf-cycles-instructions-01.txt",
		     "real-data/folded/fg_perf-cycles-instructions-01-collapsed-all.txt", 1, &o);
	check_golden("real-data/perf-script/fg_perf-rust-Yamakaky-dcpu.txt",
		     "fixtures/perf/golden/fg_perf-rust-Yamakaky-dcpu.all.folded", 0, &o);
	check_golden("real-data/perf-script/inferno_go-stacks.txt",
		     "fixtures/perf/golden/inferno_go-stacks.all.folded", 0, &o);
	check_golden("real-data/perf-script/inferno_cpp-stacks-std-function.txt",
		     "fixtures/perf/golden/inferno_cpp-stacks-std-function.all.folded", 0, &o);
	check_golden("real-data/perf-script/speedscope_forks.linux-perf.txt",
		     "fixtures/perf/golden/speedscope_forks.linux-perf.all.folded", 0, &o);
	check_golden("real-data/perf-script/speedscope_system-wide.linux-perf.txt",
		     "fixtures/perf/golden/speedscope_system-wide.linux-perf.all.folded", 0, &o);
	o.kind = "plain";
	check_golden("real-data/perf-script/inferno_go-stacks.txt",
		     "fixtures/perf/golden/inferno_go-stacks.plain.folded", 0, &o);
	check_golden("real-data/perf-script/inferno_cpp-stacks-std-function.txt",
		     "fixtures/perf/golden/inferno_cpp-stacks-std-function.plain.folded", 0, &o);
	o.kind = NULL;
	o.pid_frames = 1;
	check_golden("real-data/perf-script/fg_perf-iperf-stacks-pidtid-01.txt",
		     "fixtures/perf/golden/fg_perf-iperf-stacks-pidtid-01.pid.folded", 0, &o);
	o.pid_frames = 0;
	o.tid_frames = 1;
	check_golden("real-data/perf-script/fg_perf-iperf-stacks-pidtid-01.txt",
		     "fixtures/perf/golden/fg_perf-iperf-stacks-pidtid-01.tid.folded", 0, &o);
	o.tid_frames = 0;
	o.event = "cycles";
	check_golden("real-data/perf-script/fg_perf-cycles-instructions-01.txt",
		     "fixtures/perf/golden/fg_perf-cycles-instructions-01.event-cycles.folded", 0, &o);
}

static void probes(void)
{
	static const char *const perf_files[] = {
		"fg_perf-cycles-instructions-01.txt", "fg_perf-iperf-stacks-pidtid-01.txt",
		"fg_perf-rust-Yamakaky-dcpu.txt", "fg_perf-vertx-stacks-01.txt",
		"inferno_cpp-stacks-std-function.txt", "inferno_go-stacks.txt",
		"speedscope_forks.linux-perf.txt", "speedscope_system-wide.linux-perf.txt", NULL,
	};
	size_t i;

	for (i = 0; perf_files[i]; i++) {
		struct tk_buf b = TK_BUF_INIT;

		tk_buf_addf(&b, "real-data/perf-script/%s", perf_files[i]);
		check_probe(b.buf, "perf", 1);
		tk_buf_release(&b);
	}
	check_probe("real-data/folded/fg_perf-vertx-stacks-01-collapsed-all.txt", "folded", 1);
	check_probe("real-data/folded/fg_perf-cycles-instructions-01-collapsed-all.txt", "folded", 1);
	check_probe("fixtures/perf/golden/inferno_go-stacks.all.folded", "folded", 0);
	check_probe("fixtures/folded/simple.folded", "folded", 0);
	check_probe("fixtures/folded/diff.folded", "folded", 0);
	check_probe("fixtures/perf/mixed.perf-script", "perf", 0);
	check_probe("fixtures/perf/two-events.perf-script", "perf", 0);
	ok(!tk_import_perf.probe("a;b 1 2\nc;d 3 4\n", 16), "diff folded lines are not perf");
	ok(!tk_import_perf.probe("main;f 1\n", 9), "folded is not perf");
}

static int import_text(const char *name, const char *text, size_t len,
		       const struct tk_import_opts *o, struct tk_profile *p, struct tk_err *err)
{
	tk_profile_init(p, TK_UNIT_SAMPLES);
	return tk_import_mem(name, text, len, "perf", o, p, err);
}

static void bad_input(void)
{
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_reader r;
	char garbage[4096];
	char *text, *got;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)((i * 7919u + 13u) >> 3);
	ret = import_text("garbage.bin", garbage, sizeof(garbage), NULL, &p, &err);
	is_int(ret, TK_EDATA, "binary garbage is rejected");
	ok(strstr(err.msg, "'garbage.bin'") != NULL, "naming the input: %s", err.msg);
	tk_profile_release(&p);

	ret = import_text("empty", "", 0, NULL, &p, &err);
	is_int(ret, TK_EDATA, "empty input is rejected");
	tk_profile_release(&p);

	/* Truncated in the middle of a stack line: what is complete is kept. */
	{
		char *path = dump_fixture("fixtures/perf/mixed.perf-script");

		text = dump_read(path);
		free(path);
	}
	ok(text != NULL, "read the mixed fixture");
	if (text) {
		const char *cut = strstr(text, "[unknown] (/usr/bin/app)");

		ret = import_text("cut.txt", text, (size_t)(cut - text) + 10, NULL, &p, &err);
		is_int(ret, 0, "a file cut inside a frame line imports (%s)", err.msg);
		got = dump_folded(&p);
		is_str(got, "app;__libc_start_main;main;compute 250000\n",
		       "the cut sample is dropped, the complete one kept");
		ok(strstr(p.warning, "dropped the last sample (line 10)") != NULL, "with a warning: %s",
		   p.warning);
		free(got);
		tk_profile_release(&p);
		ret = import_text("cut.txt", text, (size_t)(strstr(text, "main+0x30") - text), NULL,
				  &p, &err);
		is_int(ret, TK_EDATA, "a file cut inside its only sample is an error");
		ok(strstr(err.msg, "'cut.txt' line 5") != NULL, "naming the sample's line: %s", err.msg);
		tk_profile_release(&p);
		free(text);
	}

	/* A line over the reader's limit: TK_EDATA naming file and line. */
	tk_buf_adds(&b, "app 1 1.0: 1 cycles:\n\t");
	for (i = 0; i < 5000; i++)
		tk_buf_adds(&b, "abcdef");
	tk_buf_adds(&b, " (x)\n\n");
	tk_reader_from_mem(&r, "long.txt", b.buf, b.len);
	r.max_line = 4096;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	{
		static const struct tk_import_opts none;

		ret = tk_import_perf.parse(&r, &p, &none, &err);
	}
	is_int(ret, TK_EDATA, "a line longer than the limit is an error");
	ok(strstr(err.msg, "'long.txt' line 2") != NULL, "naming file and line: %s", err.msg);
	tk_reader_close(&r);
	tk_profile_release(&p);

	/* Frame names are kept byte for byte (renderers escape them). */
	tk_buf_reset(&b);
	tk_buf_adds(&b, "app 1 1.0: 1 cycles:\n\tff <script>alert(1)</script>&amp;]]>\xff\xfe (x)\n\n");
	ret = import_text("markup.txt", b.buf, b.len, NULL, &p, &err);
	is_int(ret, 0, "hostile names import");
	got = dump_folded(&p);
	is_str(got, "app;<script>alert 1\n", "up to the first '(' like stackcollapse-perf");
	free(got);
	tk_profile_release(&p);
	tk_buf_reset(&b);
	tk_buf_adds(&b, "app 1 1.0: 1 cycles:\n\tff ]]>&\"<b>\xff\xfe+0x10 (x)\n\n");
	ret = import_text("markup.txt", b.buf, b.len, NULL, &p, &err);
	got = dump_folded(&p);
	is_str(got, "app;]]>&<b>\xff\xfe 1\n", "invalid UTF-8 and markup kept, quotes dropped");
	free(got);
	tk_profile_release(&p);

	/* A long run of blanks after a word: the header scan stays linear. */
	tk_buf_reset(&b);
	tk_buf_adds(&b, "comm");
	for (i = 0; i < (4u << 20); i++)
		tk_buf_addch(&b, ' ');
	tk_buf_adds(&b, "x\n");
	ret = import_text("blanks.txt", b.buf, b.len, NULL, &p, &err);
	is_int(ret, TK_EDATA, "4 MB of blanks in a line is not perf script (and returns)");
	tk_profile_release(&p);

	/* Deeper than the profile allows. */
	tk_buf_reset(&b);
	tk_buf_adds(&b, "app 1 1.0: 1 cycles:\n");
	for (i = 0; i < TK_PROFILE_MAX_DEPTH + 10; i++)
		tk_buf_adds(&b, "\tff f (x)\n");
	ret = import_text("deep.txt", b.buf, b.len, NULL, &p, &err);
	is_int(ret, TK_EDATA, "a stack deeper than the limit is an error");
	ok(strstr(err.msg, "'deep.txt' line") && strstr(err.msg, "deeper"), "saying so: %s", err.msg);
	tk_profile_release(&p);
	tk_buf_release(&b);
}

int main(void)
{
	fixtures();
	real_data();
	probes();
	bad_input();
	return done_testing();
}
