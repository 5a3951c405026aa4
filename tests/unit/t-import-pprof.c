/* The pprof importer: fixtures made by fixtures/pprof/gen.py, real data, bad input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/model/import.h"
#include "tests/unit/profile-dump.h"
#include "tests/unit/tap.h"

static char *import_file(const char *path, const char *format, const char *sample_type,
			 enum tk_unit *unit, int *ret, struct tk_err *err)
{
	struct tk_import_opts opts;
	struct tk_profile p;
	char *s;

	memset(&opts, 0, sizeof(opts));
	opts.sample_type = sample_type;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	*ret = tk_import_file(path, format, &opts, &p, err);
	s = *ret ? NULL : dump_folded(&p);
	if (unit)
		*unit = p.unit;
	tk_profile_release(&p);
	return s;
}

static int import_mem(const char *data, size_t len, const char *format, struct tk_err *err)
{
	struct tk_profile p;
	int ret;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_import_mem("bad.pb", data, len, format, NULL, &p, err);
	tk_profile_release(&p);
	return ret;
}

static void bad_input(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf raw = TK_BUF_INIT;
	char deep[64];
	int ret, i;
	size_t cut;

	ret = import_mem("\x0a\x05\x08\x01", 4, "pprof", &err);
	is_int(ret, TK_EDATA, "a length past the end is corrupt");
	ok(strstr(err.msg, "'bad.pb'") && strstr(err.msg, "byte 2"), "names the offset: %s",
	   err.msg);

	ret = import_mem("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, "pprof", &err);
	is_int(ret, TK_EDATA, "an 11-byte varint is corrupt");
	ok(strstr(err.msg, "varint") != NULL, "says varint: %s", err.msg);

	ret = import_mem("\x0b\x00", 2, "pprof", &err);
	is_int(ret, TK_EDATA, "a group wire type is refused: %s", err.msg);

	ret = import_mem("\x32\x00\x0a\x04\x08\x00\x10\x00\x12\x04\x0a\x01\x07\x10", 14, "pprof",
			 &err);
	is_int(ret, TK_EDATA, "a truncated packed sample: %s", err.msg);

	ret = import_mem("\x32\x00\x0a\x04\x08\x00\x10\x00\x12\x06\x0a\x01\x07\x12\x01\x05", 16,
			 "pprof", &err);
	is_int(ret, TK_EDATA, "an unknown location id");
	ok(strstr(err.msg, "unknown location 7") && strstr(err.msg, "byte 10"), "names it: %s",
	   err.msg);

	ret = import_mem("\x32\x00\x0a\x04\x08\x00\x10\x00\x12\x02\x12\x00", 12, "pprof", &err);
	is_int(ret, TK_EDATA, "a sample with the wrong number of values: %s", err.msg);

	ret = import_mem("\x32\x01x", 3, "pprof", &err);
	is_int(ret, TK_EDATA, "a string table not starting with \"\": %s", err.msg);

	/* binary garbage */
	for (i = 0; i < (int)sizeof(deep); i++)
		deep[i] = (char)(i * 97 + 13);
	ret = import_mem(deep, sizeof(deep), "pprof", &err);
	is_int(ret, TK_EDATA, "garbage is corrupt: %s", err.msg);
	ret = import_mem(deep, sizeof(deep), NULL, &err);
	is_int(ret, TK_EDATA, "garbage is not probed as anything: %s", err.msg);

	/* a truncated gzip stream from memory */
	tk_buf_read_file(&raw, "fixtures/pprof/cpu.pb.gz", &err);
	ok(raw.len > 40, "read the gzip fixture");
	ret = import_mem(raw.buf, raw.len, NULL, &err);
	is_int(ret, 0, "gzip from memory is probed and inflated: %s", err.msg);
	for (cut = 10; cut < raw.len; cut += 37) {
		ret = import_mem(raw.buf, cut, "pprof", &err);
		if (ret != TK_EDATA)
			break;
	}
	ok(cut >= raw.len, "every truncation of the gzip data is TK_EDATA (cut %zu)", cut);
	ret = import_mem(raw.buf, raw.len / 2, "pprof", &err);
	ok(ret == TK_EDATA && strstr(err.msg, "truncated gzip"), "says truncated gzip: %s",
	   err.msg);
	tk_buf_release(&raw);
}

static void truncations(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf raw = TK_BUF_INIT;
	size_t cut;
	int fails = 0;

	tk_buf_read_file(&raw, "fixtures/pprof/heap.pb", &err);
	for (cut = 1; cut < raw.len; cut++) {
		int ret = import_mem(raw.buf, cut, "pprof", &err);

		if (ret != TK_EDATA && ret != 0)
			fails++;
		else if (ret == TK_EDATA && !strstr(err.msg, "'bad.pb'"))
			fails++;
	}
	is_int(fails, 0, "every prefix of heap.pb imports or fails cleanly with TK_EDATA");
	tk_buf_release(&raw);
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_unit unit;
	char *s;
	int ret;

	s = import_file("fixtures/pprof/cpu.pb.gz", NULL, NULL, &unit, &ret, &err);
	is_int(ret, 0, "cpu.pb.gz is probed as pprof and imports: %s", err.msg);
	is_str(s,
	       "main;0x7f00dead 10000000\n"
	       "main;handle;parse;read_line 30000000\n"
	       "main;handle;parse;std::ostream& operator<< <char>(std::ostream&, char const*) 10000000\n"
	       "main;server+0x1b2b0 30000000\n",
	       "stacks root first, inlined frames expanded, addresses named; the last type (cpu)");
	is_int(unit, TK_UNIT_NANOSECONDS, "unit nanoseconds");
	free(s);

	s = import_file("fixtures/pprof/cpu.pb.gz", "pprof", "samples", &unit, &ret, &err);
	is_int(ret, 0, "sample_type samples");
	is_str(s,
	       "main;0x7f00dead 1\n"
	       "main;handle;parse;read_line 3\n"
	       "main;handle;parse;std::ostream& operator<< <char>(std::ostream&, char const*) 1\n"
	       "main;server+0x1b2b0 3\n",
	       "picked by name");
	is_int(unit, TK_UNIT_SAMPLES, "samples in the unit count are samples");
	free(s);

	s = import_file("fixtures/pprof/cpu.pb.gz", "pprof", "alloc_space", &unit, &ret, &err);
	is_int(ret, TK_EUSAGE, "an unknown sample type is a usage error");
	ok(strstr(err.msg, "alloc_space") && strstr(err.msg, "samples, cpu"),
	   "naming the types there are: %s", err.msg);

	s = import_file("fixtures/pprof/heap.pb", NULL, NULL, &unit, &ret, &err);
	is_int(ret, 0, "raw heap.pb is probed and imports: %s", err.msg);
	is_str(s, "main.main;bytes.(*Buffer).grow 4096\nmain.main;main.alloc<script>&\" 66048\n",
	       "default_sample_type alloc_space wins over the last type");
	is_int(unit, TK_UNIT_BYTES, "unit bytes");
	free(s);

	s = import_file("fixtures/pprof/heap.pb", NULL, "inuse_objects", &unit, &ret, &err);
	is_str(s, "main.main;bytes.(*Buffer).grow 1\nmain.main;main.alloc<script>&\" 2\n",
	       "inuse_objects: zero-valued samples dropped");
	free(s);

	if (access("../shared/real-data/pprof/speedscope_simple.prof", R_OK)) {
		skip(1, "../shared/real-data is absent");
	} else {
		s = import_file("../shared/real-data/pprof/speedscope_simple.prof", NULL, NULL, &unit,
				&ret, &err);
		is_int(ret, 0, "real speedscope_simple.prof imports: %s", err.msg);
		is_str(s,
		       "runtime.main;main.main;main.alpha 260000000\n"
		       "runtime.main;main.main;main.beta 250000000\n"
		       "runtime.main;main.main;main.delta 220000000\n"
		       "runtime.main;main.main;main.delta;main.alpha 220000000\n"
		       "runtime.main;main.main;main.delta;main.beta 140000000\n"
		       "runtime.main;main.main;main.gamma 270000000\n"
		       "runtime.morestack;runtime.newstack;runtime.duffcopy 110000000\n"
		       "runtime.mstart;runtime.mstart1;runtime.sysmon;runtime.usleep 20000000\n"
		       "runtime.timerproc;runtime.goroutineReady;runtime.goready;"
		       "runtime.systemstack;runtime.goready.func1;runtime.ready;runtime.wakep;"
		       "runtime.startm;runtime.notewakeup;runtime.semawakeup;"
		       "runtime.mach_semrelease;runtime.mach_semaphore_signal 10000000\n",
		       "the Go profile's stacks, cpu nanoseconds");
		is_int(unit, TK_UNIT_NANOSECONDS, "unit nanoseconds");
		free(s);
	}
	bad_input();
	truncations();
	return done_testing();
}
