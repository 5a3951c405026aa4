/*
 * allocpattern: a fixture for the built-in allocation and CPU profiler,
 * with a known pattern of allocations at functions of distinct names.
 *
 *   allocpattern pattern        the reference pattern (see below)
 *   allocpattern threads N      N threads, each in thread_worker
 *   allocpattern fork           parent and child allocate at their own sites
 *   allocpattern forkexec       the child execs "allocpattern pattern"
 *   allocpattern realloc        a realloc chain growing then shrinking
 *   allocpattern aligned        every aligned allocation variant
 *   allocpattern big            GiBs at three sites (sampling accuracy)
 *   allocpattern killself SIG   allocate, then raise SIG (KILL, SEGV, ...)
 *   allocpattern spin SECONDS   burn CPU in spin_outer > spin_middle > spin_inner
 *   allocpattern syscalls SECONDS  pipe reads/writes and nanosleeps while
 *                               burning CPU; exits 1 if one fails (EINTR)
 *
 * On stdout, one line per allocation site: "site <function> <bytes>
 * <count>", where <function> is the function that called the allocator
 * and <bytes> the size requested (pvalloc: rounded up to a page), then
 * "total <bytes> <count>" over the sites printed by the process. Other
 * lines: "pid <pid>" (fork modes, one per process), "cpu_ns <n>" (spin,
 * syscalls: CPU time the process used), "syscalls <n>" (syscalls done).
 * Everything it allocates it frees.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__GNUC__) && !defined(__clang__)
#define SITE __attribute__((noipa))
#else
#define SITE __attribute__((noinline))
#endif

#define MiB (1024u * 1024u)

/* Escapes every block so the compiler cannot elide malloc/free pairs. */
static void *volatile sink;
static unsigned long long total_bytes, total_count;

static void site_line(const char *name, unsigned long long bytes, unsigned long long count)
{
	printf("site %s %llu %llu\n", name, bytes, count);
	total_bytes += bytes;
	total_count += count;
}

static void total_line(void)
{
	printf("total %llu %llu\n", total_bytes, total_count);
	fflush(stdout);
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void *touch(void *p, size_t n)
{
	if (!p && n)
		die("allocation");
	if (p && n)
		memset(p, 1, n < 4096 ? n : 4096);
	sink = p;
	return p;
}

/* ---- pattern ---- */

#define NSMALL 300

SITE static void pattern_small_blocks(void **out, unsigned long long *bytes)
{
	int i;

	*bytes = 0;
	for (i = 0; i < NSMALL; i++) {
		size_t n = 16 + (size_t)(i % 7) * 24;

		out[i] = touch(malloc(n), n);
		*bytes += n;
	}
}

SITE static void *pattern_mib_leaf(size_t n)
{
	void *p = malloc(n);

	touch(p, n);
	return p;
}

SITE static void pattern_mib_mid(void **out, unsigned long long *bytes)
{
	int i;

	*bytes = 0;
	for (i = 0; i < 4; i++) {
		out[i] = pattern_mib_leaf((size_t)(i + 1) * MiB);
		*bytes += (unsigned long long)(i + 1) * MiB;
	}
	sink = out;
}

SITE static void *pattern_calloc_site(void)
{
	void *p = calloc(1000, 24);

	touch(p, 24000);
	return p;
}

SITE static void *pattern_memalign_site(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, 3 * 4096))
		die("posix_memalign");
	touch(p, 3 * 4096);
	return p;
}

SITE static void run_pattern(void)
{
	void *small[NSMALL], *mib[4], *c, *a;
	unsigned long long sb, mb;
	int i;

	pattern_small_blocks(small, &sb);
	pattern_mib_mid(mib, &mb);
	c = pattern_calloc_site();
	a = pattern_memalign_site();
	site_line("pattern_small_blocks", sb, NSMALL);
	site_line("pattern_mib_leaf", mb, 4);
	site_line("pattern_calloc_site", 24000, 1);
	site_line("pattern_memalign_site", 3 * 4096, 1);
	for (i = 0; i < NSMALL; i++)
		free(small[i]);
	for (i = 0; i < 4; i++)
		free(mib[i]);
	free(c);
	free(a);
	sink = NULL;
}

/* ---- threads ---- */

#define THREAD_BLOCKS 200
#define THREAD_BLOCK 1000

SITE static void *thread_worker(void *arg)
{
	void *p[THREAD_BLOCKS];
	int i;

	for (i = 0; i < THREAD_BLOCKS; i++)
		p[i] = touch(malloc(THREAD_BLOCK), THREAD_BLOCK);
	for (i = 0; i < THREAD_BLOCKS; i++)
		free(p[i]);
	return arg;
}

static void run_threads(int n)
{
	pthread_t t[64];
	int i;

	if (n < 1 || n > 64)
		die("threads: 1..64");
	for (i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, thread_worker, NULL))
			die("pthread_create");
	}
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	site_line("thread_worker", (unsigned long long)n * THREAD_BLOCKS * THREAD_BLOCK,
		  (unsigned long long)n * THREAD_BLOCKS);
}

/* ---- fork, fork+exec ---- */

SITE static void fork_parent_site(void)
{
	free(touch(malloc(70000), 70000));
}

SITE static void fork_child_site(void)
{
	free(touch(malloc(50000), 50000));
}

static void wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child failed");
}

static void run_fork(int do_exec)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		printf("pid %d\n", (int)getpid());
		if (do_exec) {
			fflush(stdout);
			execl("/proc/self/exe", "allocpattern", "pattern", (char *)NULL);
			die("exec");
		}
		fork_child_site();
		site_line("fork_child_site", 50000, 1);
		total_line();
		exit(0);
	}
	wait_child(pid);
	printf("pid %d\n", (int)getpid());
	fork_parent_site();
	site_line("fork_parent_site", 70000, 1);
}

/* ---- realloc ---- */

SITE static void realloc_chain(unsigned long long *bytes, unsigned long long *count)
{
	void *p = NULL, *q;
	size_t n;

	*bytes = *count = 0;
	for (n = 100; n <= 102400; n *= 2) {
		q = realloc(p, n);
		p = touch(q, n);
		*bytes += n;
		(*count)++;
	}
	for (n = 51200; n >= 100; n /= 2) {
		q = realloc(p, n);
		p = touch(q, n);
		*bytes += n;
		(*count)++;
	}
	free(p);
}

static void run_realloc(void)
{
	unsigned long long b, c;

	realloc_chain(&b, &c);
	site_line("realloc_chain", b, c);
}

/* ---- aligned variants ---- */

SITE static void *aligned_posix_memalign(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, 1000))
		die("posix_memalign");
	return touch(p, 1000);
}

SITE static void *aligned_aligned_alloc(void)
{
	void *p = aligned_alloc(128, 2048);

	return touch(p, 2048);
}

SITE static void *aligned_memalign(void)
{
	void *p = memalign(256, 3000);

	return touch(p, 3000);
}

SITE static void *aligned_valloc(void)
{
	void *p = valloc(5000);

	return touch(p, 5000);
}

SITE static void *aligned_pvalloc(void)
{
	void *p = pvalloc(5000);

	return touch(p, 5000);
}

SITE static void *aligned_reallocarray(void)
{
	void *p = reallocarray(NULL, 10, 100);

	return touch(p, 1000);
}

static void run_aligned(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p[6];
	int i;

	p[0] = aligned_posix_memalign();
	p[1] = aligned_aligned_alloc();
	p[2] = aligned_memalign();
	p[3] = aligned_valloc();
	p[4] = aligned_pvalloc();
	p[5] = aligned_reallocarray();
	site_line("aligned_posix_memalign", 1000, 1);
	site_line("aligned_aligned_alloc", 2048, 1);
	site_line("aligned_memalign", 3000, 1);
	site_line("aligned_valloc", 5000, 1);
	site_line("aligned_pvalloc", (5000 + page - 1) / page * page, 1);
	site_line("aligned_reallocarray", 1000, 1);
	for (i = 0; i < 6; i++)
		free(p[i]);
}

/* ---- big: sampling accuracy ---- */

SITE static void big_site(const char *name, size_t block, unsigned long long total)
{
	unsigned long long i, n = total / block;

	for (i = 0; i < n; i++) {
		void *p = malloc(block);

		if (!p)
			die("malloc");
		sink = p;
		free(p);
	}
	site_line(name, n * block, n);
}

SITE static void big_small_blocks(void)
{
	big_site("big_small_blocks", 4096, 4096ull * MiB);
	sink = NULL;  /* not a tail call: keep this frame */
}

SITE static void big_medium_blocks(void)
{
	big_site("big_medium_blocks", 65536, 2048ull * MiB);
	sink = NULL;  /* not a tail call: keep this frame */
}

SITE static void big_large_blocks(void)
{
	big_site("big_large_blocks", MiB, 1024ull * MiB);
	sink = NULL;  /* not a tail call: keep this frame */
}

/* ---- killself ---- */

SITE static void *killself_site(void)
{
	return touch(malloc(123456), 123456);
}

static void run_killself(const char *name)
{
	static const struct {
		const char *name;
		int sig;
	} sigs[] = {
		{ "KILL", SIGKILL }, { "SEGV", SIGSEGV }, { "TERM", SIGTERM },
		{ "ABRT", SIGABRT }, { "INT", SIGINT }, { "BUS", SIGBUS },
	};
	size_t i;
	void *p;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (!strcmp(name, sigs[i].name))
			break;
	}
	if (i == sizeof(sigs) / sizeof(sigs[0]))
		die("killself: unknown signal");
	p = killself_site();
	site_line("killself_site", 123456, 1);
	total_line();
	raise(sigs[i].sig);
	free(p);
}

/* ---- CPU ---- */

static double cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static volatile double spin_acc;

SITE static void spin_inner(void)
{
	double x = spin_acc;
	int i;

	for (i = 0; i < 200000; i++)
		x = x * 1.0000001 + 1e-9;
	spin_acc = x;
}

SITE static void spin_middle(void)
{
	spin_inner();
	spin_acc += 1;
}

SITE static void spin_outer(double seconds)
{
	while (cpu_seconds() < seconds)
		spin_middle();
	spin_acc += 1;
}

static void run_spin(double seconds)
{
	spin_outer(seconds);
	printf("cpu_ns %.0f\n", cpu_seconds() * 1e9);
}

SITE static int syscall_loop(double seconds, unsigned long long *n)
{
	int fds[2];
	char buf[64];
	struct timespec ts = { 0, 1000 };

	if (pipe(fds))
		return -1;
	*n = 0;
	while (cpu_seconds() < seconds) {
		memset(buf, (int)(*n & 0x7f), sizeof(buf));
		if (write(fds[1], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
		if (read(fds[0], buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
		if (buf[0] != (char)(*n & 0x7f))
			return -1;
		if (!(*n % 64) && nanosleep(&ts, NULL))
			return -1;
		if (getppid() <= 0)
			return -1;
		spin_inner();
		(*n)++;
	}
	close(fds[0]);
	close(fds[1]);
	return 0;
}

static int run_syscalls(double seconds)
{
	unsigned long long n;

	if (syscall_loop(seconds, &n)) {
		perror("syscall_loop");
		return 1;
	}
	printf("syscalls %llu\n", n);
	printf("cpu_ns %.0f\n", cpu_seconds() * 1e9);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: allocpattern pattern|threads N|fork|forkexec|realloc|aligned|big|"
			"killself SIG|spin SECONDS|syscalls SECONDS\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "pattern")) {
		run_pattern();
	} else if (!strcmp(mode, "threads") && argc > 2) {
		run_threads((int)strtol(argv[2], NULL, 10));
	} else if (!strcmp(mode, "fork")) {
		run_fork(0);
	} else if (!strcmp(mode, "forkexec")) {
		run_fork(1);
	} else if (!strcmp(mode, "realloc")) {
		run_realloc();
	} else if (!strcmp(mode, "aligned")) {
		run_aligned();
	} else if (!strcmp(mode, "big")) {
		big_small_blocks();
		big_medium_blocks();
		big_large_blocks();
	} else if (!strcmp(mode, "killself") && argc > 2) {
		run_killself(argv[2]);
		return 1;
	} else if (!strcmp(mode, "spin") && argc > 2) {
		run_spin(strtod(argv[2], NULL));
		return 0;
	} else if (!strcmp(mode, "syscalls") && argc > 2) {
		return run_syscalls(strtod(argv[2], NULL));
	} else {
		return usage();
	}
	total_line();
	return 0;
}
