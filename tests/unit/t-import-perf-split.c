/*
 * The perf script importer read in segments on two threads gives what one
 * pass over the input gives: the same stacks and weights, the same names
 * and nodes in the same order (every export and the stored form follow
 * it), the same unit, warning and error, whatever the segments' size and
 * whichever thread read what. Segments are made tiny here, so that the
 * fixtures and the shared real data (skipped when absent) are cut in
 * hundreds of places, samples are cut in the middle (no sample boundary
 * within the largest segment: the rest is read alone), and the event, the
 * line numbers and the first error have to be carried across cuts.
 */
#include <stdlib.h>
#include <string.h>

#include "plugins/import/perf.c"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

struct result {
	int ret;
	char *msg, *warning, *folded, *order;
	enum tk_unit unit;
};

/* Names in id order, then nodes (parent, name, self) in id order. */
static char *dump_order(const struct tk_profile *p)
{
	struct tk_buf b = TK_BUF_INIT;
	uint32_t i;

	for (i = 0; i < p->nr_names; i++)
		tk_buf_addf(&b, "%s\n", p->names[i]);
	for (i = 0; i < p->nr_nodes; i++)
		tk_buf_addf(&b, "%u %u %.17g\n", p->nodes[i].parent, p->nodes[i].name,
			    p->nodes[i].self);
	return tk_buf_detach(&b, NULL);
}

static void run(struct result *r, const char *text, size_t len, const struct tk_import_opts *o,
		size_t seg, size_t max, int threads, size_t max_line)
{
	struct tk_reader in;
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;

	tk_reader_from_mem(&in, "in.txt", text, len);
	if (max_line)
		in.max_line = max_line;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	r->ret = parse_split(&in, &p, o, &err, seg, max, threads);
	r->msg = tk_xstrdup(r->ret ? err.msg : "");
	r->warning = tk_xstrdup(p.warning);
	r->folded = r->ret ? tk_xstrdup("") : dump_folded(&p);
	r->order = r->ret ? tk_xstrdup("") : dump_order(&p);
	r->unit = p.unit;
	tk_profile_release(&p);
	tk_reader_close(&in);
}

static void result_release(struct result *r)
{
	free(r->msg);
	free(r->warning);
	free(r->folded);
	free(r->order);
}

static int same(const struct result *a, const struct result *b)
{
	return a->ret == b->ret && !strcmp(a->msg, b->msg) && !strcmp(a->warning, b->warning) &&
	       !strcmp(a->folded, b->folded) && !strcmp(a->order, b->order) &&
	       (a->ret || a->unit == b->unit);
}

/*
 * One pass (one segment holding everything, one thread) against small
 * segments on one and two threads: one test per input, naming the first
 * setting that differs.
 */
static void check_splits(const char *what, const char *text, size_t len,
			 const struct tk_import_opts *o, size_t max_line)
{
	static const size_t segs[] = { 64, 700, 4096, 65536 };
	struct result one, cut;
	size_t i;
	int threads, bad = 0;
	char where[128] = "";

	run(&one, text, len, o, len + 1, (size_t)-1, 1, max_line);
	for (i = 0; !bad && i < sizeof(segs) / sizeof(segs[0]); i++)
		for (threads = 1; !bad && threads <= 2; threads++) {
			run(&cut, text, len, o, segs[i], segs[i] * 4, threads, max_line);
			if (!same(&one, &cut)) {
				bad = 1;
				snprintf(where, sizeof(where), " (differs with %zu-byte segments on %d "
					 "thread(s): '%s' against '%s')", segs[i], threads, cut.msg,
					 one.msg);
			}
			result_release(&cut);
		}
	ok(!bad, "%s: as one pass gives it, ret %d%s", what, one.ret, where);
	result_release(&one);
}

static void check_file(const char *what, const char *path, const struct tk_import_opts *o)
{
	char *text = path ? dump_read(path) : NULL;

	if (!text) {
		skip(1, "%s: ../shared/real-data is absent", what);
		return;
	}
	check_splits(what, text, strlen(text), o, 0);
	free(text);
}

static void files(void)
{
	static const char *const fixtures[] = {
		"fixtures/perf/mangled.perf-script",
		"fixtures/perf/mixed.perf-script",
		"fixtures/perf/two-events.perf-script",
	};
	static const char *const shared[] = {
		"real-data/perf-script/fg_perf-cycles-instructions-01.txt",
		"real-data/perf-script/fg_perf-iperf-stacks-pidtid-01.txt",
		"real-data/perf-script/fg_perf-rust-Yamakaky-dcpu.txt",
		"real-data/perf-script/fg_perf-vertx-stacks-01.txt",
		"real-data/perf-script/inferno_cpp-stacks-std-function.txt",
		"real-data/perf-script/inferno_go-stacks.txt",
		"real-data/perf-script/speedscope_forks.linux-perf.txt",
		"real-data/perf-script/speedscope_system-wide.linux-perf.txt",
	};
	struct tk_import_opts o = { 0 }, tid = { 0 }, plain = { 0 }, ev = { 0 };
	size_t i;

	tid.tid_frames = 1;
	plain.kind = "plain,samples";
	ev.event = "cycles";
	for (i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		char *path = dump_fixture(fixtures[i]);

		check_file(fixtures[i], path, &o);
		free(path);
	}
	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		char *path = dump_shared(shared[i]);

		check_file(shared[i], path, &o);
		if (i < 2) {
			check_file(shared[i], path, &tid);
			check_file(shared[i], path, &plain);
			check_file(shared[i], path, &ev);
		}
		free(path);
	}
}

static const char sample[] = "app 1 1.0: 1 cycles:\n\tff f (x)\n\tfe main (x)\n\n";

/* Inputs made for the cuts: each against one pass. */
static void made(void)
{
	struct tk_import_opts o = { 0 };
	struct tk_buf b = TK_BUF_INIT;
	struct result one, cut;
	int i;

	/* Carriage returns, comments, blank runs and an unended last sample. */
	for (i = 0; i < 200; i++)
		tk_buf_adds(&b, i % 7 ? "# comment\r\napp 1 1.0: 3 cycles:\r\n\tff g (x)\r\n\r\n\r\n"
			    : "app 2/3 1.0: 2 cycles:\n\tff h (y)\n\tfe main (y)\n");
	check_splits("CRLF, comments, samples without a blank line", b.buf, b.len, &o, 0);

	/* The event known only far into the input. */
	tk_buf_reset(&b);
	for (i = 0; i < 300; i++)
		tk_buf_adds(&b, "app 1 1.0:\n\tff early (x)\n\n");
	for (i = 0; i < 300; i++)
		tk_buf_adds(&b, i % 3 == 1 ? sample : "app 1 1.0: 5 instructions:\n\tff g (x)\n\n");
	check_splits("the first event after many samples without one", b.buf, b.len, &o, 0);
	run(&one, b.buf, b.len, &o, 64, 256, 2, 0);
	ok(strstr(one.warning, "kept the 500 sample(s) of event 'instructions'") != NULL,
	   "the first event named is kept: %s", one.warning);
	result_release(&one);

	/* Unrecognized lines in late segments: the first is named by its line. */
	tk_buf_reset(&b);
	for (i = 0; i < 400; i++)
		tk_buf_adds(&b, i == 250 || i == 390 ? "app 1 1.0: 1 cycles:\n\tff f (x)\n?? junk\n\n"
			    : sample);
	check_splits("unrecognized lines far in", b.buf, b.len, &o, 0);
	run(&cut, b.buf, b.len, &o, 128, 512, 2, 0);
	ok(strstr(cut.warning, "skipped 2 unrecognized line(s) (first: line 1003)") != NULL,
	   "the first one's line counts every segment before it: %s", cut.warning);
	result_release(&cut);

	/* Two bad lines: the first in the file is the error. */
	tk_buf_reset(&b);
	for (i = 0; i < 400; i++) {
		tk_buf_adds(&b, sample);
		if (i == 200 || i == 300) {
			int k;

			tk_buf_adds(&b, "app 1 1.0: 1 cycles:\n\tff ");
			for (k = 0; k < 100; k++)
				tk_buf_adds(&b, "long");
			tk_buf_adds(&b, " (x)\n\n");
		}
	}
	check_splits("a line over the limit, twice", b.buf, b.len, &o, 256);
	run(&cut, b.buf, b.len, &o, 100, 400, 2, 256);
	is_int(cut.ret, TK_EDATA, "a line over the limit is an error");
	ok(strstr(cut.msg, "'in.txt' line 806 is longer than 256 bytes") != NULL,
	   "naming the first such line: %s", cut.msg);
	result_release(&cut);

	/* A sample no segment holds: read alone to the end, still in order. */
	tk_buf_reset(&b);
	for (i = 0; i < 50; i++)
		tk_buf_adds(&b, sample);
	tk_buf_adds(&b, "app 1 1.0: 7 cycles:\n");
	for (i = 0; i < 3000; i++)
		tk_buf_addf(&b, "\tff f%d (x)\n", i % 40);
	tk_buf_adds(&b, "\n");
	for (i = 0; i < 50; i++)
		tk_buf_adds(&b, "app 9 1.0: 2 cycles:\n\tff late (x)\n\n");
	check_splits("a sample larger than a segment", b.buf, b.len, &o, 0);

	/* A stack too deep in a late segment, and in a sample read alone. */
	tk_buf_reset(&b);
	for (i = 0; i < 100; i++)
		tk_buf_adds(&b, sample);
	tk_buf_adds(&b, "app 1 1.0: 1 cycles:\n");
	for (i = 0; i < TK_PROFILE_MAX_DEPTH + 5; i++)
		tk_buf_adds(&b, "\tff f (x)\n");
	tk_buf_adds(&b, "\n");
	run(&one, b.buf, b.len, &o, b.len + 1, (size_t)-1, 1, 0);
	run(&cut, b.buf, b.len, &o, 4096, 16384, 2, 0);
	ok(one.ret == TK_EDATA && !strcmp(one.msg, cut.msg),
	   "too deep: the same error cut or not: %s", cut.msg);
	result_release(&one);
	result_release(&cut);

	/* An event named with a NUL byte matches itself (the fuzzer found
	 * one pass keeping the first such sample, cut input none). */
	tk_buf_reset(&b);
	for (i = 0; i < 60; i++) {
		tk_buf_adds(&b, "app 1 1.0: 1 cpu-");
		tk_buf_add(&b, "\0k:\n\tff f (x)\n\n", 15);
	}
	check_splits("an event name with a NUL byte", b.buf, b.len, &o, 0);
	run(&cut, b.buf, b.len, &o, 64, 256, 2, 0);
	ok(!cut.ret && !strstr(cut.warning, "skipped"), "all of its samples are kept: %s",
	   cut.warning);
	result_release(&cut);

	/*
	 * Periods that add up past the cap only over several segments: each
	 * thread's own tree stays under it when the two share the work, so
	 * the sum is checked in file order from the segments' sums. The
	 * error is the same on one thread and two, however the segments
	 * fall to the threads (the reviewer's case: 6e299 at both ends).
	 */
	tk_buf_reset(&b);
	{
		int k, differ = 0;
		char big[301];

		/* 6e299 as perf script writes a period: digits */
		memset(big, '0', 300);
		big[0] = '6';
		big[300] = 0;
		tk_buf_addf(&b, "app 1 1.0: %s cycles:\n\tff first (x)\n\n", big);
		for (i = 0; i < 3000; i++)
			tk_buf_adds(&b, sample);
		tk_buf_addf(&b, "app 1 1.0: %s cycles:\n\tff last (x)\n\n", big);

		run(&one, b.buf, b.len, &o, 4096, 16384, 1, 0);
		for (k = 0; k < 20; k++) {
			run(&cut, b.buf, b.len, &o, 4096, 16384, 2, 0);
			differ += cut.ret != one.ret || strcmp(cut.msg, one.msg) != 0;
			result_release(&cut);
		}
		ok(one.ret == TK_EDATA && strstr(one.msg, "the periods add up to more than 1e+300"),
		   "a sum past the cap over many segments is refused: %s", one.msg);
		ok(!differ, "with the same message on two threads in 20 runs of 20 (%d differ)",
		   differ);
		result_release(&one);
	}

	/* No samples at all, in many segments. */
	tk_buf_reset(&b);
	for (i = 0; i < 2000; i++)
		tk_buf_adds(&b, "not perf script at all\n");
	check_splits("no samples", b.buf, b.len, &o, 0);
	tk_buf_release(&b);
}

/* The frame cache empties when full and gives the same frames after. */
static void cache(void)
{
	struct perf_shared sh;
	struct perf_state st;
	struct tk_profile p;
	struct tk_buf line = TK_BUF_INIT;
	uint32_t first = 0;
	int i, ret = 0, same_ids = 1;

	memset(&sh, 0, sizeof(sh));
	sh.annotate = 1;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	state_init(&st, &sh, &p);
	st.in_sample = 1;
	for (i = 0; !ret && i < 3 * (int)(CACHE_BYTES / 4000); i++) {
		tk_buf_reset(&line);
		tk_buf_addf(&line, "\tff sym%d+0x1 (", i % 5);
		while (line.len < 3990)
			tk_buf_adds(&line, "/lib");
		tk_buf_addf(&line, "%d)", i);
		st.nr_frames = 0;
		ret = stack_line(&st, line.buf, line.len) != 1;
		if (!i)
			first = st.frames[0];
		if (i % 5 == 0 && st.frames[0] != first)
			same_ids = 0;
	}
	ok(!ret, "stack lines of 4000 bytes parse");
	ok(st.cache.keys.len <= CACHE_BYTES, "the cache stays within %u bytes (%zu)", CACHE_BYTES,
	   st.cache.keys.len);
	ok(same_ids, "a name cached, dropped and seen again has the same id");
	state_release(&st);
	tk_profile_release(&p);

	/* Lines that never repeat turn the cache off; repeating ones keep it. */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	state_init(&st, &sh, &p);
	st.in_sample = 1;
	for (i = 0; !ret && i < 2 * CACHE_TRIAL + 10; i++) {
		tk_buf_reset(&line);
		tk_buf_addf(&line, "\tff f%d+0x%x (/lib/x.so)", i % 7, i);
		st.nr_frames = 0;
		ret = stack_line(&st, line.buf, line.len) != 1;
	}
	ok(!ret && st.cache.off && !st.cache.used, "a cache that finds nothing is given up");
	{
		char want[16];

		snprintf(want, sizeof(want), "f%d", (i - 1) % 7);
		ok(st.nr_frames == 1 && !strcmp(p.names[st.frames[0]], want),
		   "frames still come right (%s)", want);
	}
	state_release(&st);
	tk_profile_release(&p);
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	state_init(&st, &sh, &p);
	st.in_sample = 1;
	for (i = 0; !ret && i < 2 * CACHE_TRIAL + 10; i++) {
		tk_buf_reset(&line);
		tk_buf_addf(&line, "\tff f%d+0x%x (/lib/x.so)", i % 7, i % 1000);
		st.nr_frames = 0;
		ret = stack_line(&st, line.buf, line.len) != 1;
	}
	ok(!ret && !st.cache.off && st.cache.hits > st.cache.lookups / 2,
	   "one that finds most lines is kept (%llu of %llu)", (unsigned long long)st.cache.hits,
	   (unsigned long long)st.cache.lookups);
	state_release(&st);
	tk_profile_release(&p);
	tk_buf_release(&line);
}

int main(void)
{
	files();
	made();
	cache();
	return done_testing();
}
