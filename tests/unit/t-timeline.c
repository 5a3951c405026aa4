/*
 * core/model/timeline and core/measure/memsampler: a run's memory
 * timeline, its compact form read back and refused when it is not sound,
 * and the sampler that keeps it bounded without losing its peak.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/measure/memsampler.h"
#include "core/model/timeline.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

#define MiB (1024LL * 1024)

static void test_round_trip(void)
{
	struct tk_timeline tl, back;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	size_t i;
	int same = 1;

	tk_timeline_init(&tl);
	tk_timeline_init(&back);
	tl.has_cgroup = 1;
	tk_timeline_add(&tl, 10, 2 * MiB, 3 * MiB);
	tk_timeline_add(&tl, 20, 400 * MiB, 410 * MiB);
	tk_timeline_add(&tl, 35, 1 * MiB, 5 * MiB);
	tk_timeline_encode(&tl, &b);
	is_str(b.buf, "10,2048,3072 10,407552,416768 15,-408576,-414720",
	       "the compact form: time and KiB deltas");
	is_int(tk_timeline_decode(b.buf, b.len, &back, &err), 0, "it reads back");
	is_int(back.nr, 3, "three points");
	ok(back.has_cgroup, "with the cgroup figures");
	for (i = 0; i < back.nr && i < 3; i++)
		same &= back.p[i].t_ms == tl.p[i].t_ms && back.p[i].rss_bytes == tl.p[i].rss_bytes &&
			back.p[i].cgroup_bytes == tl.p[i].cgroup_bytes;
	ok(same, "every point as written");
	is_int(tk_timeline_peak(&back), 1, "the peak is the 400 MiB point");

	tl.has_cgroup = 0;
	tk_buf_reset(&b);
	tk_timeline_encode(&tl, &b);
	is_str(b.buf, "10,2048 10,407552 15,-408576", "without a cgroup: two fields a point");
	is_int(tk_timeline_decode(b.buf, b.len, &back, &err), 0, "it reads back");
	ok(!back.has_cgroup && back.p[0].cgroup_bytes == -1, "without cgroup figures");
	is_int(tk_timeline_decode("", 0, &back, &err), 0, "an empty form is no points");
	is_int(back.nr, 0, "none");
	tk_timeline_release(&tl);
	tk_timeline_release(&back);
	tk_buf_release(&b);
}

static void test_refused(void)
{
	static const char *const bad[] = {
		"10",              /* one field */
		"10,1,2,3",        /* four */
		"10,1 20,1,1",     /* fields change */
		"-5,1",            /* time goes back */
		"10,-1",           /* RSS below 0 */
		"10,1  20,1",      /* two spaces */
		"10,1;20,1",       /* another separator */
		"10,99999999999999999", /* over 16 digits */
		"10,1125899906842625",  /* over 2^50 KiB */
		"10,1 ",           /* a trailing space */
		"1e3,1",
		"10,1\n",
	};
	struct tk_timeline tl;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf big = TK_BUF_INIT;
	size_t i;

	tk_timeline_init(&tl);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = tk_timeline_decode(bad[i], strlen(bad[i]), &tl, &err);

		ok(ret == TK_EDATA && tl.nr == 0 && strstr(err.msg, "memory timeline"),
		   "refused: case %zu (%s)", i, err.msg);
	}
	for (i = 0; i <= TK_TIMELINE_POINTS_MAX; i++)
		tk_buf_adds(&big, i ? " 1,0" : "1,0");
	is_int(tk_timeline_decode(big.buf, big.len, &tl, &err), TK_EDATA,
	       "more than %d points: refused", TK_TIMELINE_POINTS_MAX);
	ok(strstr(err.msg, "more than 4096 points") != NULL, "saying so: %s", err.msg);
	tk_buf_reset(&big);
	for (i = 0; i < TK_TIMELINE_TEXT_MAX + 1; i++)
		tk_buf_addch(&big, '0');
	is_int(tk_timeline_decode(big.buf, big.len, &tl, &err), TK_EDATA,
	       "more than the byte bound: refused before parsing");
	tk_buf_release(&big);
	tk_timeline_release(&tl);
}

/* Ten hours sampled as a job would (each sample when the sampler asks):
 * the points stay bounded, spread over the run, the spike kept. */
static void test_sampler_long(void)
{
	struct tk_memsampler m;
	struct tk_timeline tl;
	double t = 0.005, next;
	size_t samples = 0, i, peak;
	int ordered = 1;

	tk_timeline_init(&tl);
	tk_memsampler_init(&m, &tl, NULL);
	ok(!tl.has_cgroup, "no cgroup: no cgroup figures");
	while (t < 36000) {
		int64_t rss = 100 * MiB;

		/* one sample at 5 h 0 m 0.0x s sees the spike */
		if (t >= 18000 && t < 18000 + m.interval_ms / 1000.0)
			rss = 900 * MiB;
		next = tk_memsampler_add(&m, t, rss);
		samples++;
		t += next;
	}
	ok(tl.nr <= TK_MEMSAMPLER_POINTS && tl.nr >= TK_MEMSAMPLER_POINTS / 2,
	   "10 h: %zu points (at most %d, at least half)", tl.nr, TK_MEMSAMPLER_POINTS);
	ok(samples < 20000, "after %zu samples", samples);
	for (i = 1; i < tl.nr; i++)
		ordered &= tl.p[i].t_ms > tl.p[i - 1].t_ms;
	ok(ordered, "in time order");
	peak = tk_timeline_peak(&tl);
	is_int(tl.p[peak].rss_bytes, 900 * MiB, "the one sample of the spike is the peak");
	ok(tl.p[peak].t_ms >= 18000000 && tl.p[peak].t_ms < 18100000, "at its own time (%lld ms)",
	   (long long)tl.p[peak].t_ms);
	ok(tl.interval_ms >= 16000 && tl.interval_ms <= 40000,
	   "the interval doubled to %lld ms", (long long)tl.interval_ms);
	ok(tl.p[tl.nr - 1].t_ms > 35000000 && tl.p[0].t_ms < 1000000,
	   "the points span the run");
	tk_timeline_release(&tl);
}

/* A 3 s job keeps every 10 ms sample. */
static void test_sampler_short(void)
{
	struct tk_memsampler m;
	struct tk_timeline tl;
	double t = 0.005;

	tk_timeline_init(&tl);
	tk_memsampler_init(&m, &tl, NULL);
	while (t < 3)
		t += tk_memsampler_add(&m, t, (int64_t)(t * 100 * MiB));
	ok(tl.nr >= 299 && tl.nr <= 301, "3 s: %zu points, every 10 ms", tl.nr);
	is_int(tl.interval_ms, 10, "at the first interval");
	/* a sample sooner than half the interval merges into the point before */
	tk_memsampler_add(&m, t + 0.001, 999 * MiB);
	ok(tl.p[tl.nr - 1].rss_bytes == 999 * MiB && tl.nr <= 301,
	   "an early sample merges, its larger RSS kept");
	tk_memsampler_add(&m, t + 0.5, -1);
	ok(tl.p[tl.nr - 1].rss_bytes == 999 * MiB, "an unreadable tree adds nothing");
	tk_timeline_release(&tl);
}

static void test_cgroup(void)
{
	char dir[] = "/tmp/t-timeline.XXXXXX", path[64];
	struct tk_memsampler m;
	struct tk_timeline tl;
	FILE *f;

	if (!mkdtemp(dir)) {
		skip(4, "no temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/memory.current", dir);
	f = fopen(path, "w");
	fputs("123456789\n", f);
	fclose(f);
	tk_timeline_init(&tl);
	tk_memsampler_init(&m, &tl, dir);
	ok(tl.has_cgroup, "a cgroup with memory.current: its figures are kept");
	tk_memsampler_add(&m, 0.01, 5 * MiB);
	is_int(tl.p[0].cgroup_bytes, 123456789, "memory.current beside the tree's RSS");
	unlink(path);
	tk_memsampler_add(&m, 0.03, 5 * MiB);
	is_int(tl.p[1].cgroup_bytes, 0, "a vanished cgroup reads as nothing, not as unknown");
	tk_memsampler_init(&m, &tl, "/nonexistent/cgroup");
	ok(!tl.has_cgroup, "a cgroup without memory.current: none");
	rmdir(dir);
	tk_timeline_release(&tl);
}

int main(void)
{
	test_round_trip();
	test_refused();
	test_sampler_long();
	test_sampler_short();
	test_cgroup();
	return done_testing();
}
