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
 *   allocpattern stress THREADS ITERS FORKS
 *                               THREADS threads malloc/calloc/realloc/
 *                               posix_memalign/free at random (seeded) and
 *                               check every block's contents; the first
 *                               two fork FORKS times each, the children
 *                               allocating then exiting, _exiting or
 *                               exec'ing "allocpattern pattern"; exits 1
 *                               on any corruption or failed child
 *   allocpattern edge           the malloc family's corner cases (bad
 *                               alignments, overflows, size 0, errno kept
 *                               by successful calls), one result a line;
 *                               the failing calls made in edge_fail_site
 *   allocpattern tiny N         N malloc(1) in tiny_site
 *   allocpattern manylive N ROUNDS  ROUNDS times: N blocks of 16 bytes
 *                               live at once (manylive_site), then freed
 *   allocpattern rawfork        _Fork (no atfork handlers): the child
 *                               allocates at rawfork_child_site (and frees
 *                               a block of the parent's), the parent at
 *                               rawfork_parent_site
 *   allocpattern vforkreset SECONDS  a vfork child sets SIGPROF to SIG_DFL
 *                               and exits; then a thread burns SECONDS of
 *                               CPU in vfork_spinner
 *   allocpattern sigexec        a SIGALRM handler execs "allocpattern
 *                               pattern" while the program loops over
 *                               dlopen, dlclose and malloc
 *   allocpattern sigintr        siginterrupt(SIGALRM, 1), signal(): a read
 *                               of an empty pipe ends with EINTR
 *   allocpattern closefds       closes descriptors 3..1023, writes "hello"
 *                               to closefds.out left open, maps memory
 *   allocpattern execveat       execveat of "allocpattern pattern"
 *   allocpattern fault          allocate, then write through NULL
 *   allocpattern threadexec SECONDS PROG ARGS...  4 threads burn CPU and
 *                               allocate; after SECONDS main execs PROG
 *   allocpattern segvcatch      its own SIGSEGV handler (printing the
 *                               disposition it replaced) recovers from a
 *                               fault with siglongjmp
 *   allocpattern ownprof SECONDS  its own SIGPROF handler and ITIMER_PROF;
 *                               burns SECONDS of CPU, prints the ticks
 *                               and how many SIGPROFs came from elsewhere
 *   allocpattern nomalloc [STATUS]  memory from mmap and sbrk only, output
 *                               with write (stdio would malloc a buffer):
 *                               never calls the malloc family; exits
 *                               STATUS (default 0)
 *   allocpattern pool N         N objects from its own pool allocator (a
 *                               bump allocator over one mmap), as custom
 *                               allocators and language runtimes do; no
 *                               malloc call either
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
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
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

/* NULL, opaquely: a write through it is a real fault, not UB the
 * compiler may remove. */
static void *volatile null_ptr;

static void *sink_null(void)
{
	return null_ptr;
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

/* ---- stress: threads, random allocations, forks from threads ---- */

#define STRESS_SLOTS 64

struct stress_arg {
	unsigned idx;
	unsigned long iters;
	unsigned forks;
	int failed;
};

struct stress_block {
	unsigned char *p;
	size_t n;
	unsigned char tag;
};

static uint64_t stress_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t stress_size(uint64_t *r)
{
	uint64_t v = stress_rand(r);

	switch (v % 16) {
	case 0:
		return 0;
	case 1:
		return (size_t)(v >> 8) % (1024 * 1024) + 1;
	case 2: case 3: case 4:
		return (size_t)(v >> 8) % 65536 + 1;
	default:
		return (size_t)(v >> 8) % 512 + 1;
	}
}

static int stress_check(const struct stress_block *b)
{
	size_t i;

	for (i = 0; i < b->n && i < 64; i++) {
		if (b->p[i] != b->tag)
			return -1;
	}
	if (b->n > 64 && b->p[b->n - 1] != b->tag)
		return -1;
	return 0;
}

static void stress_fill(struct stress_block *b, unsigned char tag)
{
	b->tag = tag;
	if (b->n)
		memset(b->p, tag, b->n < 64 ? b->n : 64);
	if (b->n > 64)
		b->p[b->n - 1] = tag;
}

/* One random operation on a random block, at one of several stack depths. */
SITE static int stress_op(struct stress_block *blk, uint64_t *r, int depth)
{
	struct stress_block *b = &blk[stress_rand(r) % STRESS_SLOTS];
	unsigned char tag = (unsigned char)stress_rand(r);
	size_t n = stress_size(r);
	void *q = NULL;

	if (depth > 0)
		return stress_op(blk, r, depth - 1) | (int)(sink = NULL, 0);
	if (b->p && stress_check(b))
		return -1;
	switch (stress_rand(r) % 6) {
	case 0:
		free(b->p);
		b->p = NULL;
		b->n = 0;
		return 0;
	case 1:
		q = realloc(b->p, n);
		if (!q && n)
			return -1;
		if (b->p && q) {
			/* the first bytes moved: at most 64, so no tagged last byte */
			size_t keep = n < b->n ? n : b->n;
			struct stress_block t = { q, keep < 64 ? keep : 64, b->tag };

			if (stress_check(&t))
				return -1;
		}
		if (!n) {
			/* realloc(p, 0) freed p; q is NULL or a new block */
			free(q);
			q = NULL;
		}
		break;
	case 2:
		free(b->p);
		q = calloc(1, n);
		if (!q && n)
			return -1;
		if (q && n && ((unsigned char *)q)[n - 1])
			return -1;
		break;
	case 3:
		free(b->p);
		if (posix_memalign(&q, (size_t)16 << (stress_rand(r) % 8), n))
			return -1;
		break;
	default:
		free(b->p);
		q = malloc(n);
		if (!q && n)
			return -1;
		break;
	}
	b->p = q;
	b->n = q ? n : 0;
	if (q)
		stress_fill(b, tag);
	sink = q;
	return 0;
}

static int stress_child(uint64_t *r, int how)
{
	struct stress_block blk[STRESS_SLOTS];
	int i;

	memset(blk, 0, sizeof(blk));
	for (i = 0; i < 200; i++) {
		if (stress_op(blk, r, (int)(stress_rand(r) % 32)))
			return 1;
	}
	for (i = 0; i < STRESS_SLOTS; i++)
		free(blk[i].p);
	if (how == 1)
		_exit(0);
	if (how == 2) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(1);
		execl("/proc/self/exe", "allocpattern", "pattern", (char *)NULL);
		_exit(1);
	}
	return 0;
}

static void *stress_thread(void *p)
{
	struct stress_arg *a = p;
	struct stress_block blk[STRESS_SLOTS];
	uint64_t r = 0x9e3779b97f4a7c15ull * (a->idx + 1);
	unsigned long i, every = a->forks ? a->iters / a->forks + 1 : 0;
	unsigned forked = 0;
	int j;

	memset(blk, 0, sizeof(blk));
	for (i = 0; i < a->iters; i++) {
		if (stress_op(blk, &r, (int)(stress_rand(&r) % 32))) {
			a->failed = 1;
			break;
		}
		if (every && i % every == every - 1 && forked < a->forks) {
			pid_t pid = fork();
			int st;

			forked++;
			if (pid < 0) {
				a->failed = 1;
				break;
			}
			if (!pid)
				exit(stress_child(&r, (int)(forked % 3)));
			if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
				a->failed = 1;
				break;
			}
		}
	}
	for (j = 0; j < STRESS_SLOTS; j++) {
		if (blk[j].p && stress_check(&blk[j]))
			a->failed = 1;
		free(blk[j].p);
	}
	return NULL;
}

static int run_stress(int n, unsigned long iters, unsigned forks)
{
	pthread_t t[64];
	struct stress_arg a[64];
	int i, failed = 0;

	if (n < 1 || n > 64)
		die("stress: 1..64 threads");
	for (i = 0; i < n; i++) {
		a[i].idx = (unsigned)i;
		a[i].iters = iters;
		a[i].forks = i < 2 ? forks : 0;
		a[i].failed = 0;
		if (pthread_create(&t[i], NULL, stress_thread, &a[i]))
			die("pthread_create");
	}
	for (i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		failed |= a[i].failed;
	}
	printf("stress %s\n", failed ? "failed" : "ok");
	return failed;
}

/* ---- edge: the malloc family's corner cases ---- */

static const char *errname(int e)
{
	return e == EINVAL ? "EINVAL" : e == ENOMEM ? "ENOMEM" : e == EDOM ? "EDOM" : e ? "other" : "0";
}

/* A size the compiler cannot see (it rejects the huge ones). */
static volatile size_t opaque;

static size_t opaque_size(size_t n)
{
	opaque = n;
	return opaque;
}

/* Every call here fails: none may count as an allocation. */
SITE static void edge_fail_site(void)
{
	void *p = (void *)&sink;
	size_t big = opaque_size((size_t)-1 / 2), huge = opaque_size((size_t)-1 - 4096);
	int r;

	errno = 0;
	sink = memalign(opaque_size((size_t)-1), 0);
	printf("edge memalign_huge_align null=%d errno=%s\n", !sink, errname(errno));
	errno = 0;
	sink = aligned_alloc(opaque_size((size_t)-1), 0);
	printf("edge aligned_alloc_huge_align null=%d errno=%s\n", !sink, errname(errno));
	r = posix_memalign(&p, 3, 16);
	printf("edge posix_memalign_3 r=%s untouched=%d\n", errname(r), p == (void *)&sink);
	r = posix_memalign(&p, 0, 16);
	printf("edge posix_memalign_0 r=%s untouched=%d\n", errname(r), p == (void *)&sink);
	r = posix_memalign(&p, 3 * sizeof(void *), 16);
	printf("edge posix_memalign_24 r=%s untouched=%d\n", errname(r), p == (void *)&sink);
	errno = 0;
	sink = calloc(big, 3);
	printf("edge calloc_overflow null=%d errno=%s\n", !sink, errname(errno));
	errno = 0;
	sink = reallocarray(NULL, big, 3);
	printf("edge reallocarray_overflow null=%d errno=%s\n", !sink, errname(errno));
	errno = 0;
	sink = malloc(huge);
	printf("edge malloc_huge null=%d errno=%s\n", !sink, errname(errno));
	errno = 0;
	sink = realloc(NULL, huge);
	printf("edge realloc_huge null=%d errno=%s\n", !sink, errname(errno));
	errno = 0;
	sink = pvalloc(huge + 4000);
	printf("edge pvalloc_huge null=%d errno=%s\n", !sink, errname(errno));
}

SITE static void *edge_errno_depth(int depth, size_t n)
{
	void *p;

	if (depth)
		p = edge_errno_depth(depth - 1, n);
	else
		p = malloc(n);
	sink = p;
	return p;
}

static int edge_run(void)
{
	void *p, *q;
	int i, kept = 0, calls = 0;

	edge_fail_site();
	p = malloc(0);
	printf("edge malloc0 nonnull=%d usable=%zu\n", !!p, malloc_usable_size(p));
	free(p);
	errno = EDOM;
	free(NULL);
	printf("edge free_null errno=%s\n", errname(errno));
	p = realloc(NULL, 100);
	printf("edge realloc_null nonnull=%d usable=%zu\n", !!p, malloc_usable_size(p));
	errno = 0;
	q = realloc(p, 0);
	printf("edge realloc_zero null=%d errno=%s\n", !q, errname(errno));
	free(q);
	p = memalign(opaque_size(3), 10);
	printf("edge memalign_3 nonnull=%d aligned4=%d\n", !!p, !((uintptr_t)p & 3));
	free(p);
	p = memalign(opaque_size(48), 10);
	printf("edge memalign_48 nonnull=%d aligned64=%d\n", !!p, !((uintptr_t)p & 63));
	free(p);
	p = aligned_alloc(opaque_size(3), 10);
	printf("edge aligned_alloc_3 nonnull=%d\n", !!p);
	free(p);
	p = pvalloc(0);
	printf("edge pvalloc0 nonnull=%d usable=%zu\n", !!p, malloc_usable_size(p));
	free(p);
	p = pvalloc(1);
	printf("edge pvalloc1 usable=%zu\n", malloc_usable_size(p));
	free(p);
	p = valloc(0);
	printf("edge valloc0 nonnull=%d usable=%zu\n", !!p, malloc_usable_size(p));
	free(p);
	p = calloc(0, 5);
	printf("edge calloc0 nonnull=%d\n", !!p);
	free(p);
	/* successful calls keep errno, at many distinct stacks */
	for (i = 0; i < 400; i++) {
		errno = EDOM;
		p = edge_errno_depth(i % 40, 16 + (size_t)i * 8);
		kept += errno == EDOM;
		errno = EDOM;
		p = realloc(p, 5000 + (size_t)i);
		kept += errno == EDOM;
		errno = EDOM;
		free(p);
		kept += errno == EDOM;
		errno = EDOM;
		p = calloc(3, 7 + (size_t)i);
		kept += errno == EDOM;
		errno = EDOM;
		free(p);
		kept += errno == EDOM;
		calls += 5;
	}
	printf("edge errno_kept %d/%d\n", kept, calls);
	return 0;
}

/* ---- tiny, manylive: sampling weights, the live table's limits ---- */

SITE static void tiny_site(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		void *p = malloc(1);

		if (!p)
			die("malloc");
		sink = p;
		free(p);
	}
	site_line("tiny_site", n, n);
}

SITE static void manylive_site(void **v, unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		v[i] = malloc(16);
		if (!v[i])
			die("malloc");
	}
}

static void run_manylive(unsigned long n, int rounds)
{
	void **v = malloc(n * sizeof(*v));
	unsigned long i;
	int r;

	if (!v)
		die("malloc");
	for (r = 0; r < rounds; r++) {
		manylive_site(v, n);
		for (i = 0; i < n; i++)
			free(v[i]);
	}
	free(v);
	site_line("manylive_site", (unsigned long long)n * 16 * (unsigned)rounds,
		  (unsigned long long)n * (unsigned)rounds);
}

/* ---- processes: _Fork, vfork, exec from a handler, execveat ---- */

SITE static void *rawfork_parent_site(void)
{
	return touch(malloc(60000), 60000);
}

SITE static void rawfork_child_site(void)
{
	free(touch(malloc(40000), 40000));
}

static void run_rawfork(void)
{
	void *p = rawfork_parent_site();
	pid_t pid;

	fflush(stdout);
	pid = _Fork();
	if (pid < 0)
		die("_Fork");
	if (!pid) {
		rawfork_child_site();
		free(p);
		printf("pid %d\n", (int)getpid());
		site_line("rawfork_child_site", 40000, 1);
		total_line();
		_exit(0);
	}
	wait_child(pid);
	free(p);
	printf("pid %d\n", (int)getpid());
	site_line("rawfork_parent_site", 60000, 1);
}

static double thread_cpu_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double spinner_seconds;

SITE static void *vfork_spinner(void *arg)
{
	while (thread_cpu_seconds() < spinner_seconds)
		spin_middle();
	spin_acc += 1;
	return arg;
}

static void run_vforkreset(double seconds)
{
	pthread_t t;
	pid_t pid = vfork();

	if (pid < 0)
		die("vfork");
	if (!pid) {
		signal(SIGPROF, SIG_DFL);
		_exit(0);
	}
	wait_child(pid);
	spinner_seconds = seconds;
	if (pthread_create(&t, NULL, vfork_spinner, NULL))
		die("pthread_create");
	pthread_join(t, NULL);
	printf("cpu_ns %.0f\n", cpu_seconds() * 1e9);
}

/* dlopen, found at run time: a direct reference makes the static build
 * of this file warn. NULL in a static binary. */
static void *dyn_open(const char *name)
{
	void *(*fn)(const char *, int);
	void *sym = dlsym(RTLD_DEFAULT, "dlopen");

	if (!sym)
		return NULL;
	memcpy(&fn, &sym, sizeof(fn));
	return fn(name, RTLD_NOW);
}

static void sigexec_handler(int sig)
{
	(void)sig;
	execl("/proc/self/exe", "allocpattern", "pattern", (char *)NULL);
	_exit(3);
}

static void run_sigexec(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 0 }, { 0, 3000 } };
	unsigned long i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sigexec_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		die("sigexec setup");
	for (i = 0;; i++) {
		void *h = dyn_open("libc.so.6");

		if (h)
			dlclose(h);
		free(touch(malloc(64 + i % 4096), 64));
	}
}

static void sigintr_handler(int sig)
{
	(void)sig;
}

static int run_sigintr(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 200000 } };
	int fds[2];
	char c;
	ssize_t r;

	if (pipe(fds))
		die("pipe");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	siginterrupt(SIGALRM, 1);
#pragma GCC diagnostic pop
	if (signal(SIGALRM, sigintr_handler) == SIG_ERR || setitimer(ITIMER_REAL, &it, NULL))
		die("sigintr setup");
	r = read(fds[0], &c, 1);
	printf("read %zd %s\n", r, r < 0 ? (errno == EINTR ? "EINTR" : "other") : "data");
	return 0;
}

/* Closes every descriptor but 0..2, opens closefds.out and leaves it open;
 * maps new memory (so that the profiler has a new maps snapshot to write
 * at exit), and exits. closefds.out must hold "hello" alone. */
static int run_closefds(void)
{
	void *m;
	int fd;

	for (fd = 3; fd < 1024; fd++)
		close(fd);
	fd = open("closefds.out", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "hello\n", 6) != 6)
		die("closefds.out");
	m = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		die("mmap");
	sink = m;
	return 0;
}

static void run_execveat(void)
{
	char *argv[] = { "allocpattern", "pattern", NULL };
	extern char **environ;

	fflush(stdout);
	execveat(AT_FDCWD, "/proc/self/exe", argv, environ, 0);
	die("execveat");
}

static void run_fault(void)
{
	(void)killself_site();
	site_line("killself_site", 123456, 1);
	total_line();
	*(volatile int *)(uintptr_t)sink_null() = 1;
}

SITE static void *threadexec_worker(void *arg)
{
	unsigned long i;

	for (i = 0;; i++) {
		spin_inner();
		free(touch(malloc(32 + i % 1024), 32));
	}
	return arg;
}

static void run_threadexec(double seconds, char **argv)
{
	pthread_t t;
	int i;

	for (i = 0; i < 4; i++) {
		if (pthread_create(&t, NULL, threadexec_worker, NULL))
			die("pthread_create");
	}
	spin_outer(seconds);
	fflush(stdout);
	execv(argv[0], argv);
	die("execv");
}

/* ---- the program's own SIGSEGV and SIGPROF handlers ---- */

static sigjmp_buf segv_jmp;

static void segv_handler(int sig)
{
	(void)sig;
	siglongjmp(segv_jmp, 1);
}

static int run_segvcatch(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = segv_handler;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old))
		die("sigaction");
	printf("old %s\n", old.sa_handler == SIG_DFL ? "SIG_DFL" :
			   old.sa_handler == SIG_IGN ? "SIG_IGN" : "handler");
	if (!sigsetjmp(segv_jmp, 1)) {
		free(touch(malloc(1000), 1000));
		*(volatile int *)(uintptr_t)sink_null() = 1;
		printf("no fault\n");
		return 1;
	}
	printf("recovered\n");
	free(touch(malloc(1000), 1000));
	return 0;
}

static volatile sig_atomic_t prof_ticks, prof_foreign;

static void prof_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	if (si->si_code == SI_KERNEL)
		prof_ticks++;
	else
		prof_foreign++;
}

static int run_ownprof(double seconds)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = prof_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &it, NULL))
		die("ownprof setup");
	spin_outer(seconds);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_PROF, &it, NULL);
	printf("ticks %s foreign %d\n", prof_ticks > 0 ? "some" : "none", (int)prof_foreign);
	return 0;
}

/* ---- memory that never comes from malloc ---- */

/* "name value\n" with write: stdio would malloc its buffer. */
static void write_line(const char *name, uint64_t v)
{
	char buf[64], digits[24];
	size_t n = 0, d = 0;

	while (*name && n < 32)
		buf[n++] = *name++;
	buf[n++] = ' ';
	do {
		digits[d++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (d)
		buf[n++] = digits[--d];
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		_exit(1);
}

static int run_nomalloc(int status)
{
	size_t len = 1 << 20, i;
	unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *b = sbrk(4096);
	uint64_t sum = 0;

	if (m == MAP_FAILED || b == (void *)-1)
		return 1;
	for (i = 0; i < len; i++)
		m[i] = (unsigned char)i;
	for (i = 0; i < 4096; i++)
		b[i] = m[i * 7];
	for (i = 0; i < 4096; i++)
		sum += b[i];
	munmap(m, len);
	write_line("nomalloc", sum);
	return status;
}

struct pool {
	char *base;
	size_t used, cap;
};

static __attribute__((noinline)) void *pool_alloc(struct pool *p, size_t n)
{
	void *r;

	n = (n + 15) & ~(size_t)15;
	if (p->cap - p->used < n)
		return NULL;
	r = p->base + p->used;
	p->used += n;
	return r;
}

static int run_pool(unsigned long n)
{
	struct pool p = { NULL, 0, (size_t)64 << 20 };
	uint64_t sum = 0;
	unsigned long i;

	p.base = mmap(NULL, p.cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p.base == MAP_FAILED)
		return 1;
	for (i = 0; i < n; i++) {
		uint64_t *o = pool_alloc(&p, 16 + i % 48);

		if (!o)
			break;
		o[0] = i;
		o[1] = i * 3;
		sum += o[0] + o[1];
	}
	write_line("pool_objects", i);
	write_line("pool_sum", sum);
	munmap(p.base, p.cap);
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: allocpattern pattern|threads N|fork|forkexec|realloc|aligned|big|"
			"killself SIG|spin SECONDS|syscalls SECONDS|stress THREADS ITERS FORKS|edge|\n"
			"       tiny N|manylive N ROUNDS|rawfork|vforkreset SECONDS|sigexec|sigintr|\n"
			"       closefds|execveat|fault|threadexec SECONDS PROG ARGS...|segvcatch|\n"
			"       ownprof SECONDS|nomalloc [STATUS]|pool N\n");
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
	} else if (!strcmp(mode, "edge")) {
		return edge_run();
	} else if (!strcmp(mode, "tiny") && argc > 2) {
		tiny_site(strtoul(argv[2], NULL, 10));
	} else if (!strcmp(mode, "manylive") && argc > 3) {
		run_manylive(strtoul(argv[2], NULL, 10), (int)strtol(argv[3], NULL, 10));
	} else if (!strcmp(mode, "rawfork")) {
		run_rawfork();
	} else if (!strcmp(mode, "vforkreset") && argc > 2) {
		run_vforkreset(strtod(argv[2], NULL));
		return 0;
	} else if (!strcmp(mode, "sigexec")) {
		run_sigexec();
	} else if (!strcmp(mode, "sigintr")) {
		return run_sigintr();
	} else if (!strcmp(mode, "closefds")) {
		return run_closefds();
	} else if (!strcmp(mode, "execveat")) {
		run_execveat();
	} else if (!strcmp(mode, "fault")) {
		run_fault();
		return 1;
	} else if (!strcmp(mode, "threadexec") && argc > 3) {
		run_threadexec(strtod(argv[2], NULL), argv + 3);
	} else if (!strcmp(mode, "segvcatch")) {
		return run_segvcatch();
	} else if (!strcmp(mode, "ownprof") && argc > 2) {
		return run_ownprof(strtod(argv[2], NULL));
	} else if (!strcmp(mode, "nomalloc")) {
		return run_nomalloc(argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0);
	} else if (!strcmp(mode, "pool") && argc > 2) {
		return run_pool(strtoul(argv[2], NULL, 10));
	} else if (!strcmp(mode, "stress") && argc > 4) {
		return run_stress((int)strtol(argv[2], NULL, 10), strtoul(argv[3], NULL, 10),
				  (unsigned)strtoul(argv[4], NULL, 10));
	} else {
		return usage();
	}
	total_line();
	return 0;
}
