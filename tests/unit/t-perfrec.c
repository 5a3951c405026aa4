/*
 * core/measure/perfrec: CPU samples of a job recorded from outside with
 * perf_event_open, through the before_exec and tick hooks of core/measure/job.
 *
 * The jobs are this binary itself in a child mode (nested noinline
 * functions with frame pointers, a fork, an exec) and examples/workload.
 * CPU totals are checked against the CPU the children measured, in a wide
 * band; never against wall time. Skipped with a reason when the system
 * does not allow perf_event_open.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/measure/job.h"
#include "core/measure/perfrec.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

/* The kernel walks user stacks along frame pointers. clang has no
 * optimize attribute: the Makefile builds this test with
 * -fno-omit-frame-pointer instead. */
#if defined(__GNUC__) && !defined(__clang__)
#define FP __attribute__((noinline, optimize("no-omit-frame-pointer")))
#else
#define FP __attribute__((noinline))
#endif

static char self[PATH_MAX], workload[PATH_MAX + 32];

/* ---- the child modes ---- */

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile double sink;

FP static int inner_burn(double seconds)
{
	double until = cpu_now() + seconds;
	long i;

	while (cpu_now() < until)
		for (i = 0; i < 200000; i++)
			sink += (double)i * 1e-9;
	return (int)sink & 1;
}

FP static int middle(double seconds)
{
	return inner_burn(seconds) + (int)sink;
}

FP static int outer(double seconds)
{
	return middle(seconds) + 1;
}

FP static int fork_side(double seconds)
{
	return inner_burn(seconds) + 2;
}

FP static int pre_exec_burn(double seconds)
{
	return inner_burn(seconds) + 3;
}

FP static int deep(int depth, double seconds);
/* through a volatile pointer, so the recursion stays a recursion */
static int (*volatile deep_call)(int, double) = deep;

FP static int deep(int depth, double seconds)
{
	if (depth <= 0)
		return inner_burn(seconds);
	return deep_call(depth - 1, seconds) + 1;
}

/* t-perfrec tree WORKLOAD FILE: burn in outer/middle/inner, fork a child
 * that burns in fork_side and then execs `workload cpu 0.8 FILE`. */
FP static int child_tree(char **argv)
{
	pid_t c;
	int status;

	outer(0.4);
	c = fork();
	if (c < 0)
		return 3;
	if (c == 0) {
		char *wargv[] = { argv[2], (char *)"cpu", (char *)"0.8", argv[3], NULL };

		fork_side(0.4);
		execv(argv[2], wargv);
		_exit(127);
	}
	waitpid(c, &status, 0);
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : 4;
}

static int child_main(int argc, char **argv)
{
	if (!strcmp(argv[1], "tree") && argc == 4)
		return child_tree(argv);
	if (!strcmp(argv[1], "deep") && argc == 4)
		return deep((int)strtol(argv[2], NULL, 10), strtod(argv[3], NULL)) > 0 ? 0 : 0;
	return 2;
}

/* ---- helpers ---- */

struct hooks {
	struct tk_perfrec *rec;
	unsigned hz;
	long stack;             /* tk_perfrec_opts.stack_bytes */
	int rc;
	struct tk_err err;
	int ticks;
	int calls;
	pid_t child;
};

static int hook_before_exec(pid_t child, void *data)
{
	struct hooks *h = data;

	h->child = child;
	h->calls++;
	if (!h->hz)
		return -1;
	if (h->stack) {
		struct tk_perfrec_opts po;

		memset(&po, 0, sizeof(po));
		po.hz = h->hz;
		po.stack_bytes = h->stack;
		h->rc = tk_perfrec_open_opts(&h->rec, child, &po, &h->err);
	} else {
		h->rc = tk_perfrec_open(&h->rec, child, h->hz, &h->err);
	}
	return h->rc;
}

static void hook_tick(void *data)
{
	struct hooks *h = data;

	h->ticks++;
	if (h->rec)
		tk_perfrec_drain(h->rec);
}

static long record_stack;       /* stack_bytes for the next record() */
static struct tk_buf record_note = TK_BUF_INIT; /* its tk_perfrec_note */

/* Runs argv under the recorder; 0 on success, -1 when perf is unavailable
 * (reason in why), 1 on another failure. */
static int record(char **argv, unsigned hz, struct tk_rawset *set, struct tk_job_result *res,
		  struct tk_perfrec_stats *st, struct tk_buf *why)
{
	struct tk_job_opts o;
	struct hooks h;
	struct tk_err err = TK_ERR_INIT;
	int xerr, rc;

	memset(&h, 0, sizeof(h));
	memset(&o, 0, sizeof(o));
	tk_rawset_init(set);
	h.hz = hz;
	h.stack = record_stack;
	o.argv = argv;
	o.grace_s = 1;
	o.orphan_wait_s = 1;
	o.before_exec = hook_before_exec;
	o.tick = hook_tick;
	o.hook_data = &h;
	rc = tk_job_run(&o, res, &xerr, &err);
	if (rc) {
		tk_buf_addf(why, "job: %s", err.msg);
		tk_perfrec_free(h.rec);
		return 1;
	}
	if (h.rc) {
		tk_buf_addf(why, "%s", h.err.msg);
		return h.rc == TK_EUNAVAIL ? -1 : 1;
	}
	if (h.ticks < 1) {
		tk_buf_addf(why, "tick was never called");
		tk_perfrec_free(h.rec);
		return 1;
	}
	rc = tk_perfrec_finish(h.rec, set, &err);
	if (st)
		tk_perfrec_stats(h.rec, st);
	tk_buf_reset(&record_note);
	tk_perfrec_note(h.rec, &record_note);
	tk_perfrec_free(h.rec);
	if (rc) {
		tk_buf_addf(why, "finish: %s", err.msg);
		return 1;
	}
	return 0;
}

static double image_cpu_s(const struct tk_rawimage *im)
{
	double t = 0;
	size_t k;

	for (k = 0; k < im->nr_stacks; k++)
		t += im->stacks[k].v[TK_RAW_CPU_NS];
	return t / 1e9;
}

static double set_cpu_s(const struct tk_rawset *s)
{
	double t = 0;
	size_t i;

	for (i = 0; i < s->nr_images; i++)
		t += image_cpu_s(&s->images[i]);
	return t;
}

static const struct tk_rawmap *map_of(const struct tk_rawimage *im, uint64_t a)
{
	size_t i;

	for (i = 0; i < im->nr_maps; i++)
		if (a >= im->maps[i].start && a < im->maps[i].end)
			return &im->maps[i];
	return NULL;
}

static int maps_file(const struct tk_rawimage *im, const char *path)
{
	size_t i;

	for (i = 0; i < im->nr_maps; i++)
		if (im->maps[i].path && !strcmp(im->maps[i].path, path))
			return 1;
	return 0;
}

static const char *base(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "";
}

static int in_band(double got, double want)
{
	return got >= 0.5 * want && got <= 1.5 * want;
}

static double read_cpu_file(const char *path)
{
	FILE *f = fopen(path, "r");
	double v = -1;

	if (f) {
		if (fscanf(f, "%lf", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* File offset of one of our own functions, from /proc/self/maps. */
static long long own_offset(const void *fn)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 128];
	long long off = -1;
	uintptr_t a = (uintptr_t)fn;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, pg;

		if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &pg) == 3 && a >= s && a < e) {
			off = (long long)(a - s + pg);
			break;
		}
	}
	fclose(f);
	return off;
}

struct fn {
	const char *name;
	const void *addr;
	long long off;
};

static struct fn fns[] = {
	{ "inner_burn", (const void *)inner_burn, -1 },
	{ "middle", (const void *)middle, -1 },
	{ "outer", (const void *)outer, -1 },
	{ "fork_side", (const void *)fork_side, -1 },
	{ "pre_exec_burn", (const void *)pre_exec_burn, -1 },
	{ "deep", (const void *)deep, -1 },
	{ "child_tree", (const void *)child_tree, -1 },
	{ "child_main", (const void *)child_main, -1 },
	{ "cpu_now", (const void *)cpu_now, -1 },
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

/* Which of our functions addr (in image im) is in: the nearest start at
 * or below its offset in our binary, within 2 KiB; NULL when outside. */
static const char *fn_at(const struct tk_rawimage *im, uint64_t addr)
{
	const struct tk_rawmap *m = map_of(im, addr);
	long long off, best = -1;
	const char *name = NULL;
	size_t i;

	if (!m || !m->path || strcmp(m->path, self))
		return NULL;
	off = (long long)(addr - m->start + m->pgoff);
	for (i = 0; i < NFNS; i++)
		if (fns[i].off >= 0 && fns[i].off <= off && fns[i].off > best) {
			best = fns[i].off;
			name = fns[i].name;
		}
	return best >= 0 && off - best < 2048 ? name : NULL;
}

/* The CPU share (0..1) of im's stacks whose frames, innermost first,
 * contain the functions of path in this order (gaps allowed). */
static double share_with_path(const struct tk_rawimage *im, const char *const *path, size_t n)
{
	double hit = 0, all = 0;
	size_t k;

	for (k = 0; k < im->nr_stacks; k++) {
		const struct tk_rawstack *s = &im->stacks[k];
		size_t want = 0;
		uint32_t f;

		all += s->v[TK_RAW_CPU_NS];
		for (f = 0; f < s->nframes && want < n; f++) {
			const char *fn = fn_at(im, s->frames[f]);

			if (fn && !strcmp(fn, path[want]))
				want++;
		}
		if (want == n)
			hit += s->v[TK_RAW_CPU_NS];
	}
	return all > 0 ? hit / all : 0;
}

static const struct tk_rawimage *find_image(const struct tk_rawset *s, int pid, const char *name)
{
	size_t i;

	for (i = 0; i < s->nr_images; i++)
		if ((pid < 0 || s->images[i].pid == pid) &&
		    (!name || !strcmp(s->images[i].name, name)))
			return &s->images[i];
	return NULL;
}

/* The share of im's CPU whose sampled instruction lies in a mapping of a
 * file with basename name. */
static double leaf_share_in(const struct tk_rawimage *im, const char *name)
{
	double hit = 0, all = 0;
	size_t k;

	for (k = 0; k < im->nr_stacks; k++) {
		const struct tk_rawmap *m = map_of(im, im->stacks[k].frames[0]);

		all += im->stacks[k].v[TK_RAW_CPU_NS];
		if (m && m->path && !strcmp(base(m->path), name))
			hit += im->stacks[k].v[TK_RAW_CPU_NS];
	}
	return all > 0 ? hit / all : 0;
}

static void show_set(const struct tk_rawset *s)
{
	size_t i;

	for (i = 0; i < s->nr_images; i++)
		printf("#   image pid %d seq %u %s: %zu maps, %zu stacks, %.3f s\n", s->images[i].pid,
		       s->images[i].seq, s->images[i].name, s->images[i].nr_maps,
		       s->images[i].nr_stacks, image_cpu_s(&s->images[i]));
	printf("#   lost %llu, truncated %llu\n", (unsigned long long)s->cpu_lost,
	       (unsigned long long)s->truncated);
}

/* Under CI (CI=true) what CI builds must be there: a skip for it fails. */
static int skip_all(const char *why)
{
	const char *ci = getenv("CI");

	if (ci && !strcmp(ci, "true")) {
		printf("1..1\nnot ok 1 - under CI this must run, not skip: %s\n", why);
		return 1;
	}
	printf("1..0 # SKIP %s\n", why);
	return 0;
}

/* ---- the tests ---- */

static void test_workload(void)
{
	char file[] = "/tmp/t-perfrec-cpu-XXXXXX";
	char *argv[] = { workload, (char *)"cpu", (char *)"1.0", file, NULL };
	struct tk_rawset set;
	struct tk_job_result res;
	struct tk_buf why = TK_BUF_INIT;
	const struct tk_rawimage *im;
	double measured, got;
	size_t i, busy;
	int fd = mkstemp(file);

	if (fd >= 0)
		close(fd);
	if (!ok(record(argv, 199, &set, &res, NULL, &why) == 0, "workload cpu 1.0 recorded at 199 Hz"))
		printf("#   %s\n", why.buf);
	measured = read_cpu_file(file);
	unlink(file);
	got = set_cpu_s(&set);
	if (!ok(in_band(got, measured), "sampled CPU %.3f s within 0.5x..1.5x of the measured %.3f s",
		got, measured))
		show_set(&set);
	im = find_image(&set, -1, "workload");
	/* (not counting images with almost no CPU: a sanitizer build's leak
	 * checker clones a tracer task at exit, as in test_tree) */
	busy = 0;
	for (i = 0; i < set.nr_images; i++)
		busy += image_cpu_s(&set.images[i]) >= 0.05;
	if (!ok(im != NULL && busy == 1, "one image, named workload"))
		show_set(&set);
	ok(im && leaf_share_in(im, "workload") > 0.8,
	   "over 80%% of its samples are in the workload binary's mapping (%.2f)",
	   im ? leaf_share_in(im, "workload") : 0);
	ok(im && im->nr_maps >= 2, "its maps include the binary and libc (%zu)", im ? im->nr_maps : 0);
	tk_rawset_release(&set);
	tk_buf_release(&why);
}

static void test_tree(void)
{
	static const char *const p_path[] = { "inner_burn", "middle", "outer", "child_tree" };
	static const char *const c_path[] = { "inner_burn", "fork_side", "child_tree" };
	char file[] = "/tmp/t-perfrec-tree-XXXXXX";
	char *argv[] = { self, (char *)"tree", workload, file, NULL };
	struct tk_rawset set;
	struct tk_job_result res;
	struct tk_buf why = TK_BUF_INIT;
	const struct tk_rawimage *p = NULL, *c = NULL, *w = NULL;
	const char *me = base(self);
	double measured;
	size_t i, busy;
	int fd = mkstemp(file);

	if (fd >= 0)
		close(fd);
	if (!ok(record(argv, 499, &set, &res, NULL, &why) == 0 && res.exit_code == 0,
		"fork+exec tree recorded at 499 Hz"))
		printf("#   %s (exit %d)\n", why.buf, res.exit_code);
	measured = read_cpu_file(file);
	unlink(file);
	/*
	 * Images with almost no CPU are not the test's: a sanitizer build's
	 * leak checker clones a tracer task at exit, which is sampled too.
	 */
	busy = 0;
	for (i = 0; i < set.nr_images; i++) {
		const struct tk_rawimage *im = &set.images[i];

		if (image_cpu_s(im) < 0.05)
			continue;
		busy++;
		if (!strcmp(im->name, "workload"))
			w = im;
	}
	for (i = 0; i < set.nr_images; i++) {
		const struct tk_rawimage *im = &set.images[i];

		if (strcmp(im->name, me) || image_cpu_s(im) < 0.05)
			continue;
		if (w && im->pid == w->pid)
			c = im;
		else
			p = im;
	}
	if (!ok(p && c && w && busy == 3, "three images: the job, its fork child, the exec"))
		show_set(&set);
	ok(c && w && c->seq + 1 == w->seq, "the exec'ed image is the fork child's next seq");
	ok(p && in_band(image_cpu_s(p), 0.4), "the job: %.3f s sampled, 0.4 s burnt",
	   p ? image_cpu_s(p) : 0);
	ok(c && in_band(image_cpu_s(c), 0.4), "the fork child: %.3f s sampled, 0.4 s burnt",
	   c ? image_cpu_s(c) : 0);
	/* workload cpu 0.8 counts the 0.4 s its process burnt before exec */
	ok(w && measured > 0 && in_band(image_cpu_s(w), measured - 0.4),
	   "the workload: %.3f s sampled, %.3f s burnt after exec", w ? image_cpu_s(w) : 0,
	   measured - 0.4);
	ok(p && share_with_path(p, p_path, 4) > 0.7,
	   "the job's stacks: inner_burn < middle < outer < child_tree, in our binary (%.2f)",
	   p ? share_with_path(p, p_path, 4) : 0);
	ok(c && share_with_path(c, c_path, 3) > 0.7,
	   "the fork child's stacks: inner_burn < fork_side < child_tree (%.2f)",
	   c ? share_with_path(c, c_path, 3) : 0);
	ok(c && share_with_path(c, p_path, 3) < 0.1, "and not through middle/outer");
	ok(w && leaf_share_in(w, "workload") > 0.8, "the workload image samples the workload binary");
	ok(w && !maps_file(w, self), "the exec reset the maps: none of our binary in the workload image");
	tk_rawset_release(&set);
	tk_buf_release(&why);
}

static void test_deep(void)
{
	char *argv[] = { self, (char *)"deep", (char *)"300", (char *)"0.8", NULL };
	struct tk_rawset set;
	struct tk_job_result res;
	struct tk_perfrec_stats st;
	struct tk_buf why = TK_BUF_INIT;
	const struct tk_rawimage *im;
	uint32_t maxn = 0;
	size_t k;
	double got;

	if (!ok(record(argv, 999, &set, &res, &st, &why) == 0, "300 frames deep at 999 Hz"))
		printf("#   %s\n", why.buf);
	im = find_image(&set, -1, base(self));
	for (k = 0; im && k < im->nr_stacks; k++)
		if (im->stacks[k].nframes > maxn)
			maxn = im->stacks[k].nframes;
	got = set_cpu_s(&set);
	printf("#   %llu records (%llu bytes), %llu samples, %llu lost, ring %zu bytes x %u\n",
	       st.records, st.bytes, st.samples, st.lost, st.ring_bytes, st.ncpus);
	ok(st.bytes > 2 * st.ring_bytes, "more than twice the ring went through it (wraparound)");
	ok(in_band(got, 0.8), "sampled %.3f s, 0.8 s burnt", got);
	ok(maxn > 100 && maxn <= TK_RAW_MAX_FRAMES, "stacks cut at %u frames (<= %d)", maxn,
	   TK_RAW_MAX_FRAMES);
	ok(set.truncated > 0, "the cut stacks are counted as truncated (%llu)",
	   (unsigned long long)set.truncated);
	ok(im && share_with_path(im, (const char *const[]){ "inner_burn", "deep", "deep" }, 3) > 0.7,
	   "innermost frames kept: inner_burn < deep < deep");
	tk_rawset_release(&set);
	tk_buf_release(&why);
}

/*
 * Stack copies: by default the samples carry them and unwind with CFI to
 * the first frame; a size the kernel refuses (not a multiple of 8) leaves
 * frame-pointer chains and a note saying so; -1 asks for none.
 */
static void test_stack_copies(void)
{
	static const char *const p_path[] = { "inner_burn", "middle", "outer", "child_tree" };
	char file[] = "/tmp/t-perfrec-stk-XXXXXX";
	char *argv[] = { self, (char *)"tree", workload, file, NULL };
	struct tk_rawset set;
	struct tk_job_result res;
	struct tk_perfrec_stats st;
	struct tk_buf why = TK_BUF_INIT;
	const struct tk_rawimage *im;
	int fd = mkstemp(file);

	if (fd >= 0)
		close(fd);
	record_stack = 0;
	if (!ok(record(argv, 199, &set, &res, &st, &why) == 0, "default: stack copies"))
		printf("#   %s\n", why.buf);
	printf("#   %u-byte copies, ring %zu; %llu samples: %llu complete, %llu spliced, "
	       "%llu partial, %llu chain; %.1f us each\n", st.stack_bytes, st.ring_bytes,
	       st.samples, st.complete, st.spliced, st.partial, st.chain,
	       st.samples ? (double)st.unwind_ns / 1e3 / (double)st.samples : 0);
	ok(st.stack_bytes >= 1024 && st.stack_bytes <= 8192 && st.stack_bytes % 8 == 0,
	   "a copy of 1 to 8 KiB per sample at 199 Hz (%u)", st.stack_bytes);
	/* (a sanitizer build's frames are large: its walks outgrow the copy
	 * and are completed by the frame-pointer chain) */
	ok(st.samples > 0 && (st.complete + st.spliced) * 10 >= st.samples * 9,
	   "at least 90%% of the walks reach the first frame, or meet the kernel's chain "
	   "(%llu and %llu of %llu)", st.complete, st.spliced, st.samples);
	ok(record_note.len == 0, "no note: the paths are whole (%s)", record_note.buf);
	im = find_image(&set, -1, base(self));
	ok(im && share_with_path(im, p_path, 4) > 0.7, "inner_burn < middle < outer < child_tree");
	tk_rawset_release(&set);

	record_stack = 1001;
	ok(record(argv, 199, &set, &res, &st, &why) == 0,
	   "a copy size the kernel refuses: still recorded");
	ok(st.stack_bytes == 0 && st.stack_refused != 0 && st.complete == 0,
	   "with frame-pointer chains only (the kernel said: %s)", strerror(st.stack_refused));
	ok(strstr(record_note.buf, "refused user stack copies") &&
	   strstr(record_note.buf, "-fno-omit-frame-pointer"),
	   "and a note that says so and what helps: %s", record_note.buf);
	im = find_image(&set, -1, base(self));
	ok(im && share_with_path(im, p_path, 4) > 0.7, "frame pointers still give the paths");
	tk_rawset_release(&set);

	record_stack = -1;
	ok(record(argv, 199, &set, &res, &st, &why) == 0 && st.stack_bytes == 0 &&
	   st.stack_refused == 0 && record_note.len == 0,
	   "no copies asked: frame-pointer chains, no note");
	tk_rawset_release(&set);
	record_stack = 0;
	unlink(file);
	tk_buf_release(&why);
}

/* The job hooks alone: a job shorter than a tick still gets one after
 * its end, and a failing before_exec does not stop the job. */
static void test_hooks(void)
{
	char *argv[] = { workload, (char *)"exit", (char *)"3", NULL };
	struct tk_job_opts o;
	struct tk_job_result res;
	struct tk_err err = TK_ERR_INIT;
	struct hooks h;
	int xerr, rc;

	memset(&o, 0, sizeof(o));
	memset(&h, 0, sizeof(h));
	o.argv = argv;
	o.grace_s = 1;
	o.before_exec = hook_before_exec;
	o.tick = hook_tick;
	o.hook_data = &h;
	rc = tk_job_run(&o, &res, &xerr, &err);
	ok(rc == 0 && res.exit_code == 3, "a job whose before_exec fails still runs (exit %d)",
	   res.exit_code);
	ok(h.calls == 1 && h.child > 0, "before_exec was called once, with the child");
	ok(h.ticks >= 1, "tick was called after a job shorter than a tick (%d)", h.ticks);
}

/* enable_on_exec: what the child runs before exec is not sampled. */
static void test_not_before_exec(void)
{
	char file[] = "/tmp/t-perfrec-pre-XXXXXX";
	struct tk_perfrec *rec = NULL;
	struct tk_err err = TK_ERR_INIT;
	struct tk_rawset set;
	int go[2], fd = mkstemp(file), status = 0, rc;
	double measured, got;
	pid_t c;

	if (fd >= 0)
		close(fd);
	tk_rawset_init(&set);
	if (pipe(go)) {
		ok(0, "pipe");
		return;
	}
	c = fork();
	if (c == 0) {
		char *wargv[] = { workload, (char *)"cpu", (char *)"0.8", file, NULL };
		char ch;

		close(go[1]);
		if (read(go[0], &ch, 1) < 0)
			_exit(3);
		pre_exec_burn(0.4);
		execv(workload, wargv);
		_exit(127);
	}
	close(go[0]);
	rc = tk_perfrec_open(&rec, c, 999, &err);
	ok(rc == 0, "opened on a forked child before its exec");
	close(go[1]);
	while (waitpid(c, &status, WNOHANG) == 0) {
		tk_perfrec_drain(rec);
		usleep(50000);
	}
	if (rec)
		tk_perfrec_finish(rec, &set, &err);
	tk_perfrec_free(rec);
	measured = read_cpu_file(file);
	unlink(file);
	got = set_cpu_s(&set);
	if (!ok(!find_image(&set, -1, base(self)), "no image of the code before exec"))
		show_set(&set);
	ok(measured > 0 && in_band(got, measured - 0.4),
	   "sampled %.3f s: the %.3f s after exec, not the 0.4 s before", got, measured - 0.4);
	tk_rawset_release(&set);
}

/* What a container's seccomp profile does (Docker's default refuses
 * perf_event_open with EPERM), in a child of ours only. */
static void test_seccomp(void)
{
	int p[2], status;
	pid_t c;
	char buf[2 * TK_ERR_MSG_MAX + 32];
	ssize_t n;

	if (pipe(p)) {
		ok(0, "pipe");
		return;
	}
	c = fork();
	if (c == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
		struct tk_perfrec *rec = NULL;
		struct tk_err e1 = TK_ERR_INIT, e2 = TK_ERR_INIT;
		struct tk_buf msg = TK_BUF_INIT;
		int r1, r2;

		close(p[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			_exit(3);
		r1 = tk_perfrec_probe(&e1);
		r2 = tk_perfrec_open(&rec, getppid(), 99, &e2);
		tk_buf_addf(&msg, "%d %d %s\n%s", r1, r2, e1.msg, e2.msg);
		if (write(p[1], msg.buf, msg.len) < 0 || rec)
			_exit(4);
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(p[0]);
	waitpid(c, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		printf("ok %d # SKIP cannot install a seccomp filter\n", ++tap_n);
		return;
	}
	{
		char *end;
		long r1 = strtol(buf, &end, 10), r2 = strtol(end, NULL, 10);

		ok(r1 == TK_EUNAVAIL && r2 == TK_EUNAVAIL,
		   "under a seccomp filter, probe and open give TK_EUNAVAIL");
		ok(strstr(buf, "seccomp") != NULL, "naming seccomp as a likely cause");
		for (end = buf; *end; end++)
			if (*end == '\n')
				*end = ' ';
		printf("#   %s\n", buf);
	}
}

static void test_unavailable(void)
{
	struct tk_perfrec *rec = (struct tk_perfrec *)&rec;
	struct tk_err err = TK_ERR_INIT;
	int rc, p[2], go[2];
	pid_t target, prober;

	rc = tk_perfrec_open(&rec, 0x3ffffff0, 99, &err);
	is_int(rc, TK_EUNAVAIL, "no such process: TK_EUNAVAIL (%s)", err.msg);
	ok(rec == NULL, "and no recorder");
	rc = tk_perfrec_open(&rec, getpid(), 0, &err);
	is_int(rc, TK_EUSAGE, "0 Hz: TK_EUSAGE");

	/* A user who may not trace the process gets EACCES from the kernel,
	 * the same refusal as a seccomp filter or a high paranoid level. */
	if (geteuid() != 0) {
		printf("ok %d # SKIP needs root to run a prober as another user\n", ++tap_n);
		return;
	}
	if (pipe(p) || pipe(go)) {
		ok(0, "pipe");
		return;
	}
	target = fork();
	if (target == 0) {
		char ch;

		close(go[1]);
		if (read(go[0], &ch, 1) < 0)
			_exit(1);
		_exit(0);
	}
	prober = fork();
	if (prober == 0) {
		struct tk_buf msg = TK_BUF_INIT;

		close(p[0]);
		if (setgid(65534) || setuid(65534))
			_exit(3);
		rc = tk_perfrec_open(&rec, target, 99, &err);
		tk_buf_addf(&msg, "%d %s", rc, rc ? err.msg : "opened");
		if (write(p[1], msg.buf, msg.len) < 0)
			_exit(4);
		_exit(0);
	}
	close(p[1]);
	{
		char buf[TK_ERR_MSG_MAX + 16];
		ssize_t n = read(p[0], buf, sizeof(buf) - 1);
		int status;

		buf[n > 0 ? n : 0] = '\0';
		close(p[0]);
		close(go[1]);
		close(go[0]);
		waitpid(prober, &status, 0);
		waitpid(target, &status, 0);
		ok(strtol(buf, NULL, 10) == TK_EUNAVAIL, "refused by the kernel: TK_EUNAVAIL (%s)",
		   buf);
		ok(strstr(buf, "not permitted") != NULL, "with a reason");
	}
}

int main(int argc, char **argv)
{
	struct tk_perfrec *probe = NULL;
	struct tk_err err = TK_ERR_INIT;
	char *slash;
	ssize_t n;
	size_t i;
	pid_t c;
	int status;

	if (argc > 1)
		return child_main(argc, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return skip_all("cannot read /proc/self/exe");
	self[n] = '\0';
	snprintf(workload, sizeof(workload), "%s", self);
	slash = strrchr(workload, '/');
	if (slash)
		snprintf(slash, sizeof(workload) - (size_t)(slash - workload), "/../../examples/workload");
	if (access(workload, X_OK))
		return skip_all("examples/workload is not built");
	for (i = 0; i < NFNS; i++)
		fns[i].off = own_offset(fns[i].addr);

	/* Can this system sample at all? */
	c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	if (tk_perfrec_open(&probe, c, 99, &err)) {
		kill(c, SIGKILL);
		waitpid(c, &status, 0);
		test_unavailable();
		test_seccomp();
		printf("# perf_event_open unavailable: %s\n", err.msg);
		printf("ok %d # SKIP recording: %s\n", ++tap_n, err.msg);
		return done_testing();
	}
	tk_perfrec_free(probe);
	kill(c, SIGKILL);
	waitpid(c, &status, 0);

	ok(tk_perfrec_probe(&err) == 0, "probe: perf_event_open works here");
	test_unavailable();
	test_seccomp();
	test_hooks();
	test_not_before_exec();
	test_workload();
	test_tree();
	test_deep();
	test_stack_copies();
	tk_buf_release(&record_note);
	return done_testing();
}
