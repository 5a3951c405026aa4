/*
 * The legacy gperftools CPU profile importer: the same profile written
 * in all four word layouts, pprof's clean-ups of the signal handler's
 * frames, the fixtures, damaged copies (every truncation, wrong and huge
 * depths, bad maps) and the probe.
 */
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "plugins/import/importers.h"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

struct img {
	struct tk_buf b;
	unsigned word;
	int big;
};

static void put(struct img *m, uint64_t v)
{
	unsigned char w[8];
	unsigned i;

	for (i = 0; i < m->word; i++) {
		unsigned shift = 8 * (m->big ? m->word - 1 - i : i);

		w[i] = (unsigned char)(v >> shift);
	}
	tk_buf_add(&m->b, w, m->word);
}

static void header(struct img *m, unsigned word, int big, uint64_t period)
{
	tk_buf_init(&m->b, 256);
	m->word = word;
	m->big = big;
	put(m, 0);
	put(m, 3);
	put(m, 0);
	put(m, period);
	put(m, 0);
}

static void rec(struct img *m, uint64_t count, size_t n, const uint64_t *pcs)
{
	size_t i;

	put(m, count);
	put(m, n);
	for (i = 0; i < n; i++)
		put(m, pcs[i]);
}

static void trailer(struct img *m, const char *maps)
{
	put(m, 0);
	put(m, 1);
	put(m, 0);
	tk_buf_adds(&m->b, maps);
}

static int import(const char *data, size_t len, struct tk_profile *p, struct tk_err *err)
{
	tk_profile_init(p, TK_UNIT_SAMPLES);
	tk_err_clear(err);
	return tk_import_mem("t.prof", data, len, NULL, NULL, p, err);
}

static const char maps[] =
	"00400000-00410000 r-xp 00000000 08:01 1234 /usr/bin/app\n"
	"00600000-00601000 rw-p 00010000 08:01 1234 /usr/bin/app\n"
	"build=1234\n"
	"\n"
	"70000000-70100000 r-xp 00028000 08:01 99   /lib/libc.so.6\n";

/* Leaf first; 0x70010500 is the signal handler's frame in every record. */
static void sample_profile(struct img *m, unsigned word, int big)
{
	static const uint64_t r1[] = { 0x400100, 0x70010500, 0x400205, 0x400305 };
	static const uint64_t r2[] = { 0x70020000, 0x70010500, 0x400405, 0x400305 };
	static const uint64_t r3[] = { 0x400500, 0x70010500, 0x400500, 0x400305 };
	static const uint64_t r4[] = { 0x600010, 0x70010500, 0x400305 };

	header(m, word, big, 10000);
	rec(m, 5, 4, r1);
	rec(m, 2, 4, r2);
	rec(m, 4, 4, r3);
	rec(m, 1, 3, r4);
	rec(m, 1, 4, r1);
	trailer(m, maps);
}

static const char sample_want[] =
	"app+0x304;0x600010 10000000\n"
	"app+0x304;app+0x204;app+0x100 60000000\n"
	"app+0x304;app+0x404;libc.so.6+0x48000 20000000\n"
	"app+0x304;app+0x500 40000000\n";

static void layouts(void)
{
	static const struct { unsigned word; int big; const char *what; } l[] = {
		{ 4, 0, "32-bit little-endian" }, { 4, 1, "32-bit big-endian" },
		{ 8, 0, "64-bit little-endian" }, { 8, 1, "64-bit big-endian" },
	};
	size_t i;

	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
		struct img m;
		struct tk_profile p;
		struct tk_err err = TK_ERR_INIT;
		char *got;

		sample_profile(&m, l[i].word, l[i].big);
		ok(tk_import_gperf_cpu.probe(m.b.buf, m.b.len), "%s: probed", l[i].what);
		is_int(import(m.b.buf, m.b.len, &p, &err), 0, "%s: imports (%s)", l[i].what, err.msg);
		got = dump_folded(&p);
		is_str(got, sample_want, "%s: frames from the maps, the leaf as sampled, callers "
		       "one byte back, the handler's frame and the doubled leaf dropped", l[i].what);
		is_int(p.unit, TK_UNIT_NANOSECONDS, "%s: CPU time in nanoseconds", l[i].what);
		free(got);
		tk_profile_release(&p);
		tk_buf_release(&m.b);
	}
}

/* pprof drops a shared second frame when at most one record in 32 lacks it. */
static void handler_margin(void)
{
	uint64_t with[] = { 0x400100, 0x400905, 0x400305 };
	uint64_t without[] = { 0x400100, 0x400a05, 0x400305 };
	struct img m;
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	char *got;
	int i;

	header(&m, 8, 0, 1000);
	for (i = 0; i < 63; i++) {
		with[0] = 0x400100 + (uint64_t)i;
		rec(&m, 1, 3, with);
	}
	rec(&m, 1, 3, without);
	trailer(&m, maps);
	is_int(import(m.b.buf, m.b.len, &p, &err), 0, "64 records import (%s)", err.msg);
	got = dump_folded(&p);
	ok(got && !strstr(got, "app+0x904") && strstr(got, "app+0x304;app+0xa04;app+0x100 "),
	   "63 of 64 records share a second frame: it is the handler's, dropped");
	free(got);
	tk_profile_release(&p);
	tk_buf_release(&m.b);

	header(&m, 8, 0, 1000);
	for (i = 0; i < 60; i++) {
		with[0] = 0x400100 + (uint64_t)i;
		rec(&m, 1, 3, with);
	}
	for (i = 0; i < 4; i++)
		rec(&m, 1, 3, without);
	trailer(&m, maps);
	is_int(import(m.b.buf, m.b.len, &p, &err), 0, "64 records import (%s)", err.msg);
	got = dump_folded(&p);
	ok(got && strstr(got, "app+0x304;app+0x904;app+0x100 1000000\n"),
	   "60 of 64 is not nearly all: the frame stays");
	free(got);
	tk_profile_release(&p);
	tk_buf_release(&m.b);
}

/* unmapped: the address outside every executable mapping */
static void fixture(const char *name, const char *unmapped)
{
	char *path = dump_fixture(name), *got;
	struct tk_buf want = TK_BUF_INIT;
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file(path, NULL, NULL, &p, &err), 0, "%s imports, format probed (%s)",
	       name, err.msg);
	got = dump_folded(&p);
	tk_buf_addf(&want, "app+0x304;%s 10000000\n", unmapped);
	tk_buf_adds(&want,
	       "app+0x304;[anon]+0x10 10000000\n"
	       "app+0x304;app+0x204;app+0x100 50000000\n"
	       "app+0x304;app+0x204;app+0x150 30000000\n"
	       "app+0x304;app+0x404;libc.so.6+0x48000 20000000\n"
	       "app+0x304;app+0x500 40000000\n");
	is_str(got, want.buf, "%s: its stacks", name);
	tk_buf_release(&want);
	free(got);
	free(path);
	tk_profile_release(&p);
}

static void expect_error(const char *data, size_t len, const char *what, const char *needle)
{
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	int ret = import(data, len, &p, &err);

	is_int(ret, TK_EDATA, "%s is an error", what);
	ok(strstr(err.msg, "'t.prof'") && strstr(err.msg, needle), "%s: %s", what, err.msg);
	tk_profile_release(&p);
}

static void damaged(void)
{
	struct img m;
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	size_t cut, header_len, maps_at, bad = 0;
	static const uint64_t one[] = { 0x400100 };
	int ret;

	sample_profile(&m, 8, 0);
	header_len = 40;
	maps_at = m.b.len - strlen(maps);
	/* every cut inside the binary part */
	for (cut = header_len; cut < maps_at; cut++) {
		tk_err_clear(&err);
		ret = import(m.b.buf, cut, &p, &err);
		if (ret != TK_EDATA || !strstr(err.msg, "byte offset") || !strstr(err.msg, "cut short"))
			bad++;
		tk_profile_release(&p);
	}
	is_int(bad, 0, "each of the %zu cuts in the records is an error naming the byte offset",
	       maps_at - header_len);
	expect_error(m.b.buf, 43, "a file cut in the first record header",
		     "byte offset 40: the file ends inside a record header");
	tk_buf_release(&m.b);

	header(&m, 8, 0, 10000);
	rec(&m, 1, 1, one);
	put(&m, 1);
	put(&m, 0);
	trailer(&m, maps);
	expect_error(m.b.buf, m.b.len, "a depth of 0", "byte offset 64: a record with depth 0");
	tk_buf_release(&m.b);

	header(&m, 8, 0, 10000);
	put(&m, 1);
	put(&m, 1ull << 40);
	put(&m, 0x400100);
	trailer(&m, maps);
	expect_error(m.b.buf, m.b.len, "a huge depth", "byte offset 40: a record of depth 1099511627776");
	tk_buf_release(&m.b);

	/* a depth one too many: the record swallows the trailer */
	header(&m, 8, 0, 10000);
	put(&m, 1);
	put(&m, 2);
	put(&m, 0x400100);
	trailer(&m, "");
	expect_error(m.b.buf, m.b.len, "a wrong depth", "byte offset");
	tk_buf_release(&m.b);

	header(&m, 8, 0, 10000);
	rec(&m, 1, 1, one);
	trailer(&m, "00400000-00410000 r-xp 00000000 08:01 1234 /usr/bin/app\n\x01\x02garbage\n");
	expect_error(m.b.buf, m.b.len, "a memory map line of garbage",
		     "byte offset 144: line 2 of the memory map");
	tk_buf_release(&m.b);

	header(&m, 8, 0, 10000);
	rec(&m, 1, 1, one);
	trailer(&m, "00400000-00410000 r-xp 00000000 08:01 1234 /usr/bin/app\n");
	tk_buf_addch(&m.b, 0);
	tk_buf_addch(&m.b, 0x0a);
	expect_error(m.b.buf, m.b.len, "a NUL in the memory map", "line 2 of the memory map is not");
	tk_buf_release(&m.b);

	header(&m, 8, 0, 10000);
	rec(&m, 1, 1, one);
	trailer(&m, "00410000-00400000 r-xp 00000000 08:01 1234 /usr/bin/app\n");
	expect_error(m.b.buf, m.b.len, "a mapping that ends before it starts",
		     "line 1 of the memory map");
	tk_buf_release(&m.b);

	header(&m, 8, 0, 10000);
	rec(&m, 1, 1, one);
	trailer(&m, "00400000-00410000 r-xp 00000000 08:01 1234 /usr/bin/app\n00600000-006");
	expect_error(m.b.buf, m.b.len, "a memory map cut in a line",
		     "byte offset 144: the memory map ends inside line 2: cut short?");
	tk_buf_release(&m.b);

	/* Java CPU profiles (header version 1) */
	tk_buf_init(&m.b, 64);
	m.word = 8;
	m.big = 0;
	put(&m, 0);
	put(&m, 3);
	put(&m, 1);
	put(&m, 10000);
	put(&m, 0);
	ret = import(m.b.buf, m.b.len, &p, &err);
	is_int(ret, TK_EUNSUPPORTED, "a Java CPU profile is an unsupported variant");
	ok(strstr(err.msg, "Java") != NULL, "saying so: %s", err.msg);
	tk_profile_release(&p);
	tk_buf_release(&m.b);
}

static void probes(void)
{
	static const char zero_period[40] = { 0, 0, 0, 0, 0, 0, 0, 0, 3 };

	ok(!tk_import_gperf_cpu.probe("main;f 1\n", 9), "folded is not a CPU profile");
	ok(!tk_import_gperf_cpu.probe(zero_period, sizeof(zero_period)),
	   "nor a header with a period of 0");
	ok(!tk_import_gperf_cpu.probe("\0\0\0\0\3\0\0\0", 8), "nor a cut header");
}

int main(void)
{
	layouts();
	handler_margin();
	fixture("fixtures/gperftools-cpu/small-64le.prof", "0x600010");
	fixture("fixtures/gperftools-cpu/small-32be.prof", "0x8100010");
	damaged();
	probes();
	return done_testing();
}
