/*
 * The gperftools heap profile importer: exact stacks for every kind on
 * fixtures/gperftools-heap/, pprof's own decoding of the shared real
 * profile (pprof_cppbench.heap.string, skipped when ../shared is absent),
 * probes and bad input.
 */
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "plugins/import/importers.h"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

static void check(const char *rel, const char *kind, const char *want, enum tk_unit unit)
{
	struct tk_import_opts o = { 0 };
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	char *path = dump_fixture(rel), *got;
	int ret;

	o.kind = kind;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_import_file(path, "gperftools-heap", &o, &p, &err);
	is_int(ret, 0, "%s kind %s imports (%s)", rel, kind ? kind : "default", err.msg);
	got = dump_folded(&p);
	is_str(got, want, "%s kind %s: stacks and values", rel, kind ? kind : "default");
	is_int(p.unit, unit, "unit %s", tk_unit_name(unit));
	free(got);
	free(path);
	tk_profile_release(&p);
}

static void fixtures(void)
{
	static const char *const small = "fixtures/gperftools-heap/small.heap";

	check(small, NULL,
	      "libc.so.6+0x110ff;app+0x200f;app+0x1004 200\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1104 100\n", TK_UNIT_BYTES);
	check(small, "inuse_objects",
	      "libc.so.6+0x110ff;app+0x200f;app+0x1004 2\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1104 1\n", TK_UNIT_COUNT);
	check(small, "alloc_space",
	      "libc.so.6+0x110ff;app+0x200f;0x500000 1000\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1004 2000\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1104 2000\n", TK_UNIT_BYTES);
	check(small, "alloc",
	      "libc.so.6+0x110ff;app+0x200f;0x500000 1000\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1004 2000\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1104 2000\n", TK_UNIT_BYTES);
	check(small, "alloc_objects",
	      "libc.so.6+0x110ff;app+0x200f;0x500000 1\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1004 5\n"
	      "libc.so.6+0x110ff;app+0x200f;app+0x1104 4\n", TK_UNIT_COUNT);
	/* heap_v2/524288: pprof's unsampling, "--- Memory map: ---", $source */
	check("fixtures/gperftools-heap/sampled-v2.heap", NULL,
	      "libpthread-2.15.so+0x70fd;server_main+0x2ecc2;server_main+0x8635c7 4256567\n",
	      TK_UNIT_BYTES);
	check("fixtures/gperftools-heap/sampled-v2.heap", "inuse_objects",
	      "libpthread-2.15.so+0x70fd;server_main+0x2ecc2;server_main+0x8635c7 284\n",
	      TK_UNIT_COUNT);
}

/* Skips spaces; returns the rest of the line. */
static const char *next_line(const char *s)
{
	const char *nl = strchr(s, '\n');

	return nl ? nl + 1 : s + strlen(s);
}

struct golden_map {
	unsigned long long start, limit, offset;
	char file[256];
};

/*
 * Builds the expected profile from pprof's text decoding: Samples (values
 * then location ids, leaf first), Locations (id: address M=mapping) and
 * Mappings (id: start/limit/offset file).
 */
static char *expected_from_pprof(const char *text)
{
	static unsigned long long loc_addr[4096];
	static int loc_map[4096];
	static struct golden_map maps[64];
	struct tk_profile p;
	const char *s;
	char *out;

	memset(loc_map, 0, sizeof(loc_map));
	s = strstr(text, "\nLocations\n");
	for (s = s ? next_line(s + 1) : ""; *s == ' ' || (*s >= '0' && *s <= '9'); s = next_line(s)) {
		unsigned id;
		unsigned long long a;
		int m;

		if (sscanf(s, " %u: %llx M=%d", &id, &a, &m) == 3 && id < 4096) {
			loc_addr[id] = a;
			loc_map[id] = m;
		}
	}
	s = strstr(text, "\nMappings\n");
	for (s = s ? next_line(s + 1) : ""; *s >= '0' && *s <= '9'; s = next_line(s)) {
		unsigned id;
		unsigned long long a, b, c;
		char file[256];

		if (sscanf(s, "%u: %llx/%llx/%llx %255s", &id, &a, &b, &c, file) == 5 && id < 64) {
			const char *slash = strrchr(file, '/');

			maps[id].start = a;
			maps[id].limit = b;
			maps[id].offset = c;
			snprintf(maps[id].file, sizeof(maps[id].file), "%s", slash ? slash + 1 : file);
		}
	}
	tk_profile_init(&p, TK_UNIT_BYTES);
	s = strstr(text, "\nSamples:\n");
	s = s ? next_line(next_line(s + 1)) : "";
	while (*s == ' ') {
		unsigned long long count, bytes;
		uint32_t ids[256];
		size_t n = 0, i;
		int used;

		if (strstr(s, "bytes:[") && strstr(s, "bytes:[") < next_line(s)) {
			s = next_line(s);
			continue;
		}
		if (sscanf(s, " %llu %llu:%n", &count, &bytes, &used) != 2)
			break;
		{
			const char *q = s + used, *end = next_line(s);
			unsigned id;
			int k;

			while (q < end && n < 256 && sscanf(q, " %u%n", &id, &k) == 1) {
				struct tk_buf name = TK_BUF_INIT;
				const struct golden_map *m = &maps[loc_map[id]];

				tk_buf_addf(&name, "%s+0x%llx", m->file, loc_addr[id] - m->start + m->offset);
				ids[n++] = tk_profile_intern(&p, name.buf, name.len);
				tk_buf_release(&name);
				q += k;
			}
		}
		for (i = 0; i < n / 2; i++) {
			uint32_t t = ids[i];

			ids[i] = ids[n - 1 - i];
			ids[n - 1 - i] = t;
		}
		tk_profile_add_stack(&p, ids, n, (double)bytes);
		s = next_line(s);
	}
	out = dump_folded(&p);
	tk_profile_release(&p);
	return out;
}

static void real_data(void)
{
	char *in = dump_shared("real-data/pprof/pprof_cppbench.heap.legacy.txt");
	char *golden = dump_shared("real-data/pprof/pprof_cppbench.heap.string");
	char *text, *want, *got;
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;

	if (!in || !golden) {
		skip(3, "../shared/real-data is absent");
		free(in);
		free(golden);
		return;
	}
	text = dump_read(golden);
	want = expected_from_pprof(text ? text : "");
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file(in, NULL, NULL, &p, &err), 0, "the cppbench heap profile imports (%s)",
	       err.msg);
	got = dump_folded(&p);
	ok(strlen(want) > 1000, "pprof's golden decodes to stacks");
	is_str(got, want, "stacks and in-use bytes equal pprof's decoding");
	free(got);
	free(want);
	free(text);
	free(in);
	free(golden);
	tk_profile_release(&p);
}

static void probes(void)
{
	char *path = dump_shared("real-data/pprof/pprof_cppbench.heap.legacy.txt");
	const char *fixtures_heap[] = { "fixtures/gperftools-heap/small.heap",
					"fixtures/gperftools-heap/sampled-v2.heap", NULL };
	size_t i;

	for (i = 0; fixtures_heap[i] || path; i++) {
		char *p = fixtures_heap[i] ? dump_fixture(fixtures_heap[i]) : path;
		char *text = dump_read(p);
		const char *name = NULL;

		{
			const struct tk_importer *imp = text ? tk_importer_probe(text,
					strlen(text) < 4096 ? strlen(text) : 4096) : NULL;

			name = imp ? imp->name : NULL;
		}
		is_str(name, "gperftools-heap", "%s is probed as gperftools-heap", p);
		free(text);
		free(p);
		if (!fixtures_heap[i])
			break;
	}
	if (!path)
		skip(1, "../shared/real-data is absent");
	ok(!tk_import_gperf_heap.probe("main;f 1\n", 9), "folded is not a heap profile");
	ok(!tk_import_gperf_heap.probe("heap profile: nonsense\n", 23), "nor a loose header");
}

static int import_text(const char *text, size_t len, const char *kind, struct tk_profile *p,
		       struct tk_err *err)
{
	struct tk_import_opts o = { 0 };

	o.kind = kind;
	tk_profile_init(p, TK_UNIT_SAMPLES);
	return tk_import_mem("bad.heap", text, len, "gperftools-heap", &o, p, err);
}

static void bad_input(void)
{
	static const char hdr[] = "heap profile: 1: 2 [ 1: 2] @ heapprofile\n";
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_reader r;
	char garbage[2048];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)((i * 2654435761u) >> 13);
	ret = import_text(garbage, sizeof(garbage), NULL, &p, &err);
	is_int(ret, TK_EDATA, "binary garbage is rejected");
	ok(strstr(err.msg, "'bad.heap'") != NULL, "naming the input: %s", err.msg);
	tk_profile_release(&p);

	tk_buf_addf(&b, "%s   1: 2 [ 1: 2] @ 0x1234 0x\n", hdr);
	ret = import_text(b.buf, b.len, NULL, &p, &err);
	is_int(ret, TK_EDATA, "a truncated address is an error");
	ok(strstr(err.msg, "'bad.heap' line 2") != NULL, "naming file and line: %s", err.msg);
	tk_profile_release(&p);

	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s   1: 2 [ 1: 2] @ 0x1234\n  1: 2 [ 1:", hdr);
	ret = import_text(b.buf, b.len, NULL, &p, &err);
	is_int(ret, TK_EDATA, "a record cut in the middle is an error");
	ok(strstr(err.msg, "line 3") != NULL, "naming its line: %s", err.msg);
	tk_profile_release(&p);

	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s   0: 20 [ 1: 2] @ 0x1234\n", hdr);
	ret = import_text(b.buf, b.len, NULL, &p, &err);
	is_int(ret, TK_EDATA, "bytes with a count of 0 are an error");
	tk_profile_release(&p);

	tk_buf_reset(&b);
	tk_buf_adds(&b, "heap profile: 1: 2 [ 1: 2] @ cpuprofile\n");
	ret = import_text(b.buf, b.len, NULL, &p, &err);
	is_int(ret, TK_EUNSUPPORTED, "an unknown profile kind is unsupported");
	ok(strstr(err.msg, "cpuprofile") != NULL, "naming it: %s", err.msg);
	tk_profile_release(&p);

	ret = import_text(hdr, strlen(hdr), "leaks", &p, &err);
	is_int(ret, TK_EUSAGE, "an unknown kind option is a usage error");
	tk_profile_release(&p);

	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s   1: 2 [ 1: 2] @", hdr);
	for (i = 0; i < 2000; i++)
		tk_buf_adds(&b, " 0x1234");
	tk_buf_addch(&b, '\n');
	tk_reader_from_mem(&r, "long.heap", b.buf, b.len);
	r.max_line = 4096;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	{
		static const struct tk_import_opts none;

		ret = tk_import_gperf_heap.parse(&r, &p, &none, &err);
	}
	is_int(ret, TK_EDATA, "a line longer than the limit is an error");
	ok(strstr(err.msg, "'long.heap' line 2") != NULL, "naming file and line: %s", err.msg);
	tk_reader_close(&r);
	tk_profile_release(&p);

	/* Deeper than the profile allows. */
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s   1: 2 [ 1: 2] @", hdr);
	for (i = 0; i < TK_PROFILE_MAX_DEPTH + 5; i++)
		tk_buf_adds(&b, " 0x1");
	ret = import_text(b.buf, b.len, NULL, &p, &err);
	is_int(ret, TK_EDATA, "a stack deeper than the limit is an error");
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
