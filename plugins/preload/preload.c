/*
 * libtracker-preload.so: the allocation and CPU profiler tracker injects
 * into a job with LD_PRELOAD. It interposes the malloc family, samples
 * allocations by bytes, unwinds the sampled stacks and adds them to the
 * raw table file described in core/measure/rawprof.h, which it maps MAP_SHARED so
 * that whatever it recorded survives any end of the process.
 *
 * This is the one place in tracker with process-global mutable state: a
 * malloc replacement has nowhere else to keep it. It uses nothing from
 * libtracker.a (only the layout in core/measure/rawprof.h) and never calls the
 * malloc it replaces while it works: code that runs with the per-thread
 * guard set goes straight to the real functions.
 *
 * Unwinding (TRACKER_PROFILE_UNWIND):
 *   fp         frame pointers only;
 *   libunwind  libunwind (DWARF CFI) for every sample;
 *   auto       frame pointers first. A walk is trusted when it ends
 *              cleanly: a saved frame pointer of 0, the frame limit, or a
 *              last return address known to be a thread's root (learned
 *              once per address with libunwind: at most 3 frames follow it,
 *              as after main or a thread's start routine). Any other end
 *              (a frame pointer leaving the stack, a return address outside
 *              executable memory) falls back to libunwind. A trusted walk
 *              is also checked once against libunwind when its stack is
 *              first inserted in the table, which catches frames that code
 *              without frame pointers (libc) made the walk skip: the slot
 *              keeps libunwind's frames under the walk's hash.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifdef TK_WITH_LIBUNWIND
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#endif

#include "core/measure/rawprof.h"
#include "core/base/banned.h"

#define EXPORT __attribute__((visibility("default")))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define LIKELY(x) __builtin_expect(!!(x), 1)

#define NSLOTS (1u << 18)
#define FRAMES_CAP (8u << 20)
#define SLOT_PROBES 4096
#define LIVE_BITS 21
#define LIVE_PROBES 64
#define LIVE_SLOT_BITS 20
#define MAX_RANGES 4096
#define MAX_ROOTS 256
#define MAX_TIMERS 4096
#define BOOT_SIZE (256 * 1024)
#define MAPS_BUF_MAX (64u << 20)
#define DEFAULT_SAMPLE_BYTES 524288
#define EXECL_STACK_ARGS 256
#define FORK_WAIT_NS 2000000000u  /* longest a fork waits for unwinders */

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

enum unwind_mode { UNW_MODE_AUTO, UNW_MODE_FP, UNW_MODE_LIBUNWIND };

/* ---- the real functions ---- */

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static int (*real_execve)(const char *, char *const[], char *const[]);
static int (*real_execv)(const char *, char *const[]);
static int (*real_execvp)(const char *, char *const[]);
static int (*real_execvpe)(const char *, char *const[], char *const[]);
static int (*real_fexecve)(int, char *const[], char *const[]);
static int (*real_execveat)(int, const char *, char *const[], char *const[], int);
static void (*real__exit)(int) __attribute__((noreturn));
static void (*real__Exit)(int) __attribute__((noreturn));
static int (*real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static void *(*real_dlopen)(const char *, int);
static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);
static sighandler_t (*real_signal)(int, sighandler_t);
static sighandler_t (*real_sysv_signal)(int, sighandler_t);
static sighandler_t (*real_sigset)(int, sighandler_t);

static int resolving;
static int resolved;

/* dlsym allocates while we resolve: serve it from here, never free it. */
static char boot_buf[BOOT_SIZE] __attribute__((aligned(64)));
static size_t boot_used;

/* ---- profiler state ---- */

static int active;            /* profiling files are set up */
static int alloc_on;          /* sample_bytes > 0 */
static uint64_t sample_bytes;
static double sample_mean;
static uint64_t cpu_period_ns;
static int unwind_mode;
static int have_seed;
static uint64_t seed;
static char out_dir[PATH_MAX];
static pid_t my_pid;

static struct tk_raw_header *hdr;
static struct tk_raw_slot *slots;
static uint64_t *frames_region;
static size_t map_size;
static uint32_t slots_used;
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;

/* The maps file is opened for each snapshot: a descriptor kept open
 * would be closed by a program that closes every descriptor, and its
 * number reused for one of the program's files. */
static char maps_path[PATH_MAX + 64];
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;
static char *maps_buf;
static uint64_t maps_last_hash;
static uint64_t maps_last_refresh_ns;

/* Executable mappings, read under a sequence lock (writers hold maps_lock). */
struct range {
	uint64_t lo, hi;
};
static struct range ranges[MAX_RANGES];
static unsigned nranges;
static unsigned ranges_seq;
static uint64_t self_lo, self_hi;  /* our own text: never a frame */

/* Return addresses after which only a thread's start code follows. */
struct root {
	uint64_t addr;
	int is_root;
};
static struct root roots[MAX_ROOTS];
static unsigned nroots;

/*
 * Live sampled allocations, for peak live heap per stack: the address,
 * then the stack's slot and the block's size packed in one word (its
 * weight is recomputed from the size), four entries to a cache line.
 */
struct live_ent {
	uint64_t ptr;       /* 0 empty, 1 removed */
	uint64_t meta;      /* size << LIVE_SLOT_BITS | slot */
};
static struct live_ent *live;
static int live_all;          /* exact mode: every block is in the table */

/*
 * CPU timers of the threads, so exec can disarm them all. The table is
 * the only record of a timer's id (a thread's exit deletes the timer its
 * tid has here), so that an id deleted by exec or by the program taking
 * SIGPROF is never deleted again: the kernel may have given it to a timer
 * of the program's. While frozen (an exec in progress) no timer is armed;
 * threads starting then are registered unarmed, for a failed exec to arm.
 */
struct timer_ent {
	pid_t tid;
	int used;
	int armed;
	timer_t id;
};
static struct timer_ent timers[MAX_TIMERS];
static pthread_mutex_t timers_lock = PTHREAD_MUTEX_INITIALIZER;
static int timers_frozen;
static int cpu_on;
static pthread_key_t timer_key;
static unsigned thread_counter;

/*
 * libunwind keeps locks of its own (its caches, its memory pools). A fork
 * while another thread holds one would leave the child's libunwind locked
 * for good, so a fork closes this gate and waits for the threads inside
 * libunwind to leave (lu_walk is the only way in).
 */
static unsigned unw_active;
static int unw_closed;

/*
 * A page the kernel zeroes in the child of every fork, atfork handlers or
 * not (MADV_WIPEONFORK). Zero means: a child that did not go through
 * atfork_child (the fork system call, _Fork, clone without CLONE_VM), and
 * that still maps its parent's table MAP_SHARED. vfork and posix_spawn
 * children share our memory and keep the token.
 */
static int fork_token_fallback = 1;
static volatile int *fork_token = &fork_token_fallback;

struct tstate {
	int guard;
	int init;
	int allocated;        /* the thread's first allocation was seen */
	int has_timer;
	int fork_locked;      /* atfork_prepare: the locks it took */
	int fork_unsafe;      /* atfork_prepare: the child cannot trust libunwind */
	int64_t remaining;
	uint64_t rng;
	uint64_t stk_lo, stk_hi;
};
static __thread struct tstate ts __attribute__((tls_model("initial-exec")));

/* ---- small helpers ---- */

static uint64_t load_u64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void add_u64(uint64_t *p, uint64_t v)
{
	__atomic_add_fetch(p, v, __ATOMIC_RELAXED);
}

static double add_double(double *p, double v)
{
	double old, new;

	__atomic_load(p, &old, __ATOMIC_RELAXED);
	do {
		new = old + v;
	} while (!__atomic_compare_exchange(p, &old, &new, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return new;
}

static void max_double(double *p, double v)
{
	double old;

	__atomic_load(p, &old, __ATOMIC_RELAXED);
	while (v > old) {
		if (__atomic_compare_exchange(p, &old, &v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	}
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t mix_ptr(uint64_t p)
{
	p ^= p >> 33;
	p *= 0xff51afd7ed558ccdull;
	p ^= p >> 33;
	return p;
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Locks m; with try (our own code may hold it on this very thread: a
 * signal handler's exec or fork) only if free. 1 when locked. */
static int lock_maybe(pthread_mutex_t *m, int try)
{
	if (try)
		return !pthread_mutex_trylock(m);
	pthread_mutex_lock(m);
	return 1;
}

static int __attribute__((unused)) unw_enter(int in_signal)
{
	for (;;) {
		while (__atomic_load_n(&unw_closed, __ATOMIC_SEQ_CST)) {
			if (in_signal)
				return -1;
			sched_yield();
		}
		__atomic_add_fetch(&unw_active, 1, __ATOMIC_SEQ_CST);
		if (!__atomic_load_n(&unw_closed, __ATOMIC_SEQ_CST))
			return 0;
		__atomic_sub_fetch(&unw_active, 1, __ATOMIC_SEQ_CST);
	}
}

static void __attribute__((unused)) unw_leave(void)
{
	__atomic_sub_fetch(&unw_active, 1, __ATOMIC_SEQ_CST);
}

/* Closes the gate (the caller holds timers_lock, which makes it the only
 * closer); 0 once no thread is inside, -1 after FORK_WAIT_NS without. */
static int unw_close(void)
{
	uint64_t t0 = 0;

	__atomic_store_n(&unw_closed, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&unw_active, __ATOMIC_SEQ_CST)) {
		struct timespec t;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!t0)
			t0 = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
		else if ((uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec - t0 > FORK_WAIT_NS)
			return -1;
		sched_yield();
	}
	return 0;
}

static void unw_open(void)
{
	__atomic_store_n(&unw_closed, 0, __ATOMIC_SEQ_CST);
}

static void fork_token_setup(void)
{
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m != MAP_FAILED && madvise(m, 4096, MADV_WIPEONFORK)) {
		munmap(m, 4096);
		m = MAP_FAILED;
	}
	if (m != MAP_FAILED)
		fork_token = m;
	*fork_token = 1;
}

/* Decimal and text without stdio: used where malloc must not run. */
static size_t put_str(char *dst, size_t at, size_t cap, const char *s)
{
	while (*s && at + 1 < cap)
		dst[at++] = *s++;
	dst[at] = '\0';
	return at;
}

static size_t put_uint(char *dst, size_t at, size_t cap, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n && at + 1 < cap)
		dst[at++] = tmp[--n];
	dst[at] = '\0';
	return at;
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* ---- bootstrap ---- */

static void *boot_alloc(size_t n)
{
	size_t at, need = (n + 15) & ~(size_t)15;
	char *p;

	at = __atomic_fetch_add(&boot_used, need + 16, __ATOMIC_RELAXED);
	if (at + need + 16 > BOOT_SIZE)
		return NULL;
	p = boot_buf + at;
	memcpy(p, &n, sizeof(n));
	return p + 16;
}

/* Aligned, for the aligned variants should dlsym ever use them. */
static void *boot_memalign(size_t align, size_t n)
{
	size_t at, need;
	char *p;

	if (align < 16)
		align = 16;
	if (align & (align - 1) || align > BOOT_SIZE || n > BOOT_SIZE)
		return NULL;
	need = (n + align + 16 + 15) & ~(size_t)15;
	at = __atomic_fetch_add(&boot_used, need, __ATOMIC_RELAXED);
	if (at + need > BOOT_SIZE)
		return NULL;
	p = (char *)(((uintptr_t)(boot_buf + at) + 16 + align - 1) & ~(uintptr_t)(align - 1));
	memcpy(p - 16, &n, sizeof(n));
	return p;
}

static int in_boot(const void *p)
{
	return (const char *)p >= boot_buf && (const char *)p < boot_buf + BOOT_SIZE;
}

static size_t boot_size(const void *p)
{
	size_t n;

	memcpy(&n, (const char *)p - 16, sizeof(n));
	return n;
}

#define RESOLVE(name) (*(void **)&real_##name = dlsym(RTLD_NEXT, #name))

static void resolve(void)
{
	if (resolved)
		return;
	resolving = 1;
	RESOLVE(malloc);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(free);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(valloc);
	RESOLVE(pvalloc);
	RESOLVE(execve);
	RESOLVE(execv);
	RESOLVE(execvp);
	RESOLVE(execvpe);
	RESOLVE(fexecve);
	RESOLVE(execveat);
	RESOLVE(_exit);
	RESOLVE(_Exit);
	RESOLVE(pthread_create);
	RESOLVE(dlopen);
	RESOLVE(sigaction);
	RESOLVE(signal);
	RESOLVE(sysv_signal);
	RESOLVE(sigset);
	resolving = 0;
	resolved = 1;
}

/* ---- executable ranges and maps snapshots ---- */

/* The start of the executable range holding a, or 0. */
static uint64_t exec_range(uint64_t a)
{
	int tries;

	for (tries = 0; tries < 100; tries++) {
		unsigned seq = __atomic_load_n(&ranges_seq, __ATOMIC_ACQUIRE);
		unsigned lo = 0, hi, n;
		uint64_t found = 0;

		if (seq & 1)
			continue;
		n = __atomic_load_n(&nranges, __ATOMIC_RELAXED);
		hi = n > MAX_RANGES ? MAX_RANGES : n;
		while (lo < hi) {
			unsigned mid = lo + (hi - lo) / 2;

			if (a < ranges[mid].lo) {
				hi = mid;
			} else if (a >= ranges[mid].hi) {
				lo = mid + 1;
			} else {
				found = ranges[mid].lo;
				break;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&ranges_seq, __ATOMIC_RELAXED) == seq)
			return found;
	}
	return 0;
}

/*
 * A per-thread cache of return addresses already found executable, with
 * their range: a frame-pointer walk checks every frame, and the same
 * return addresses come back all the time. Emptied when the ranges change.
 */
#define RET_CACHE 512
struct ret_cache {
	unsigned seq;
	uint64_t ret[RET_CACHE];
	uint64_t lo[RET_CACHE];
};
static __thread struct ret_cache rc __attribute__((tls_model("initial-exec")));

static uint64_t cached_range(uint64_t a)
{
	unsigned seq = __atomic_load_n(&ranges_seq, __ATOMIC_ACQUIRE);
	unsigned i = (unsigned)((a >> 2) ^ (a >> 11)) & (RET_CACHE - 1);
	uint64_t lo;

	if (rc.seq != seq) {
		memset(rc.ret, 0, sizeof(rc.ret));
		rc.seq = seq;
	}
	if (rc.ret[i] == a)
		return rc.lo[i];
	lo = exec_range(a);
	if (lo && !(seq & 1)) {
		rc.ret[i] = a;
		rc.lo[i] = lo;
	}
	return lo;
}

static uint64_t parse_hex(const char **pp, const char *end)
{
	const char *p = *pp;
	uint64_t v = 0;

	while (p < end) {
		char c = *p;

		if (c >= '0' && c <= '9')
			v = v * 16 + (uint64_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uint64_t)(c - 'a' + 10);
		else
			break;
		p++;
	}
	*pp = p;
	return v;
}

/* Appends to the maps file; never past RLIMIT_FSIZE, where the write
 * would raise SIGXFSZ and kill the program. */
static void maps_write(const char *p, size_t n)
{
	struct rlimit rl;
	struct stat st;
	int fd;

	if (!maps_path[0])
		return;
	fd = open(maps_path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	if (getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    (!fstat(fd, &st) && (uint64_t)st.st_size + n <= rl.rlim_cur))
		write_all(fd, p, n);
	close(fd);
}

/* Reads /proc/self/maps (called with maps_lock held and the guard set),
 * refreshes the executable ranges and appends a snapshot when the maps
 * changed since the last one (or always when force is set). */
static void maps_refresh(int force)
{
	static const char head[] = "# snapshot\n";
	size_t len = sizeof(head) - 1, cap = MAPS_BUF_MAX;
	uint64_t h = 0xcbf29ce484222325ull, self = (uint64_t)(uintptr_t)&maps_refresh;
	unsigned n = 0;
	const char *p, *end;
	int fd;

	if (!maps_buf) {
		void *m = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (m == MAP_FAILED)
			return;
		maps_buf = m;
	}
	fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	memcpy(maps_buf, head, len);
	for (;;) {
		ssize_t r = read(fd, maps_buf + len, cap - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
		if (len == cap)
			break;
	}
	close(fd);

	__atomic_add_fetch(&ranges_seq, 1, __ATOMIC_ACQ_REL);
	p = maps_buf + sizeof(head) - 1;
	end = maps_buf + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;
		uint64_t lo, hi;

		if (!eol)
			eol = end;
		for (; p < eol; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
		lo = parse_hex(&q, eol);
		if (q < eol && *q == '-')
			q++;
		hi = parse_hex(&q, eol);
		if (q + 4 < eol && q[3] == 'x' && n < MAX_RANGES) {
			ranges[n].lo = lo;
			ranges[n].hi = hi;
			n++;
			if (self >= lo && self < hi) {
				self_lo = lo;
				self_hi = hi;
			}
		}
		p = eol + 1;
	}
	__atomic_store_n(&nranges, n, __ATOMIC_RELAXED);
	__atomic_add_fetch(&ranges_seq, 1, __ATOMIC_ACQ_REL);

	if (force || h != maps_last_hash)
		maps_write(maps_buf, len);
	maps_last_hash = h;
	maps_last_refresh_ns = mono_ns();
}

static void maps_snapshot(int force, int trylock)
{
	if (!lock_maybe(&maps_lock, trylock))
		return;
	maps_refresh(force);
	pthread_mutex_unlock(&maps_lock);
}

/* An address outside the known executable ranges: code mapped since the
 * last look (a JIT, a library loaded without dlopen), or a bad frame. */
/* The range of a (see cached_range), reading the maps again (at most
 * every 50 ms) when a is in none. */
static uint64_t range_or_refresh(uint64_t a, int in_signal)
{
	uint64_t lo = in_signal ? exec_range(a) : cached_range(a);

	if (lo)
		return lo;
	if (mono_ns() - __atomic_load_n(&maps_last_refresh_ns, __ATOMIC_RELAXED) < 50000000u)
		return 0;
	maps_snapshot(0, in_signal);
	return exec_range(a);
}

/* ---- the table ---- */

static uint64_t stack_hash(const uint64_t *f, uint32_t n, uint32_t flags)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ flags;
	uint32_t i;

	for (i = 0; i < n; i++) {
		h = (h ^ f[i]) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	h ^= n;
	return h ? h : 1;
}

static struct tk_raw_slot *slot_find(uint64_t h, uint32_t *at)
{
	uint32_t i = (uint32_t)h & (NSLOTS - 1), k;

	for (k = 0; k < SLOT_PROBES; k++) {
		uint64_t v = load_u64(&slots[i].hash);

		if (v == h)
			return &slots[i];
		if (!v)
			break;
		i = (i + 1) & (NSLOTS - 1);
	}
	*at = k < SLOT_PROBES ? i : UINT32_MAX;
	return NULL;
}

/* Looks the stack up by its hash; inserts it (frames first, hash last)
 * when new. NULL when the table is full or, with trylock, busy. */
static struct tk_raw_slot *slot_insert(uint64_t h, const uint64_t *f, uint32_t n, uint32_t flags,
				       int trylock, int *busy)
{
	struct tk_raw_slot *s;
	uint32_t at;
	uint64_t used;

	if (!lock_maybe(&insert_lock, trylock)) {
		*busy = 1;
		return NULL;
	}
	s = slot_find(h, &at);
	if (s)
		goto out;
	if (at == UINT32_MAX || slots_used >= NSLOTS / 4 * 3)
		goto out;
	used = hdr->frames_used;
	if (used + n > hdr->frames_cap)
		goto out;
	memcpy(frames_region + used, f, n * sizeof(*f));
	__atomic_store_n(&hdr->frames_used, used + n, __ATOMIC_RELEASE);
	s = &slots[at];
	s->frames = used;
	s->nframes = n;
	s->flags = flags;
	slots_used++;
	__atomic_store_n(&s->hash, h, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&insert_lock);
	return s;
}

/* ---- unwinding ---- */

static int is_self(uint64_t a)
{
	return a >= self_lo && a < self_hi;
}

static void thread_stack_bounds(void)
{
	pthread_attr_t a;
	void *addr;
	size_t size;

	if (ts.stk_hi)
		return;
	if (pthread_getattr_np(pthread_self(), &a))
		return;
	if (!pthread_attr_getstack(&a, &addr, &size)) {
		ts.stk_lo = (uint64_t)(uintptr_t)addr;
		ts.stk_hi = ts.stk_lo + size;
	}
	pthread_attr_destroy(&a);
}

enum walk_end { WALK_CLEAN, WALK_TRUNCATED, WALK_UNCLEAN };

/* Walks saved frame pointers from fp. out gets the return addresses
 * outside our own text, innermost first, after an optional leaf. *last is
 * the last return address read (to judge an unclean end). */
static int fp_walk(uint64_t fp, uint64_t *out, uint64_t *outlo, uint32_t *nout, uint64_t *last,
		   int in_signal)
{
	uint64_t lo = ts.stk_lo, hi = ts.stk_hi;
	uint32_t n = *nout;

	*last = 0;
	if (!hi)
		return WALK_UNCLEAN;
	for (;;) {
		uint64_t next, ret, rlo;

		if ((fp & 7) || fp < lo || fp + 16 > hi)
			return WALK_UNCLEAN;
		next = ((const uint64_t *)(uintptr_t)fp)[0];
		ret = ((const uint64_t *)(uintptr_t)fp)[1];
		rlo = range_or_refresh(ret, in_signal);
		if (!rlo)
			break;
		*last = ret;
		if (!is_self(ret)) {
			if (n == TK_RAW_MAX_FRAMES) {
				*nout = n;
				return WALK_TRUNCATED;
			}
			outlo[n] = rlo;
			out[n++] = ret;
		}
		if (!next) {
			*nout = n;
			return WALK_CLEAN;
		}
		if (next <= fp)
			break;
		fp = next;
	}
	*nout = n;
	return WALK_UNCLEAN;
}

/* libunwind from the current point (uc NULL) or from a signal context.
 * *busy is set (and nothing walked) when a signal handler finds the gate
 * closed by a fork. */
static uint32_t lu_walk(ucontext_t *uc, uint64_t *out, int *truncated, int *busy)
{
#ifndef TK_WITH_LIBUNWIND
	/* built without libunwind: the mode is always fp, nothing calls this */
	(void)uc;
	(void)out;
	(void)busy;
	*truncated = 0;
	return 0;
#else
	unw_cursor_t c;
	unw_context_t ctx;
	uint32_t n = 0;
	int r;

	*truncated = 0;
	if (unw_enter(uc != NULL)) {
		*busy = 1;
		return 0;
	}
	if (uc)
		r = unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME);
	else
		r = unw_getcontext(&ctx) ? -1 : unw_init_local(&c, &ctx);
	if (r < 0) {
		unw_leave();
		return 0;
	}
	do {
		unw_word_t ip;

		if (unw_get_reg(&c, UNW_REG_IP, &ip) < 0 || !ip)
			break;
		if (is_self(ip))
			continue;
		if (n == TK_RAW_MAX_FRAMES) {
			*truncated = 1;
			break;
		}
		out[n++] = ip;
	} while (unw_step(&c) > 0);
	unw_leave();
	return n;
#endif
}

static int root_lookup(uint64_t a)
{
	unsigned i, n = __atomic_load_n(&nroots, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < MAX_ROOTS; i++) {
		if (__atomic_load_n(&roots[i].addr, __ATOMIC_ACQUIRE) == a)
			return roots[i].is_root ? 1 : 2;
	}
	return 0;
}

static void root_learn(uint64_t a, const uint64_t *lu, uint32_t nlu)
{
	uint32_t j;
	unsigned at;
	int is_root = 0;

	for (j = 0; j < nlu; j++) {
		if (lu[j] == a) {
			is_root = nlu - j - 1 <= 3;
			break;
		}
	}
	at = __atomic_fetch_add(&nroots, 0, __ATOMIC_RELAXED);
	if (at >= MAX_ROOTS)
		return;
	if (pthread_mutex_trylock(&maps_lock))
		return;
	at = nroots;
	if (at < MAX_ROOTS && !root_lookup(a)) {
		roots[at].is_root = is_root;
		__atomic_store_n(&roots[at].addr, a, __ATOMIC_RELEASE);
		__atomic_store_n(&nroots, at + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&maps_lock);
}

/*
 * Finds (or inserts) the slot of the current stack. From an interposer
 * uc is NULL and the walk starts at our own frame; from the CPU signal
 * handler it starts at the interrupted context and frames[0] is its IP.
 */
/*
 * Trust in frame-pointer walks, per executable range (a module's text):
 * each new stack a walk finds is checked against libunwind, until every
 * range it passes through has agreed TRUST_AFTER times and never
 * disagreed. Code built without frame pointers (libc's printf path) keeps
 * being checked; code built with them stops paying for libunwind.
 */
#define TRUST_SLOTS 128
#define TRUST_AFTER 32
struct trust {
	uint64_t lo;
	uint32_t agree, bad;
};
static struct trust trusts[TRUST_SLOTS];

static struct trust *trust_of(uint64_t lo, int create)
{
	unsigned i = (unsigned)(lo >> 12), k;

	for (k = 0; k < TRUST_SLOTS; k++) {
		struct trust *t = &trusts[(i + k) & (TRUST_SLOTS - 1)];
		uint64_t v = __atomic_load_n(&t->lo, __ATOMIC_ACQUIRE);

		if (v == lo)
			return t;
		if (v)
			continue;
		if (!create)
			return NULL;
		if (__atomic_compare_exchange_n(&t->lo, &v, lo, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE) || v == lo)
			return t;
	}
	return NULL;
}

static int walk_trusted(const uint64_t *lo, uint32_t n)
{
	uint64_t prev = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		struct trust *t;

		if (lo[i] == prev)
			continue;
		prev = lo[i];
		t = trust_of(lo[i], 0);
		if (!t || __atomic_load_n(&t->bad, __ATOMIC_RELAXED) ||
		    __atomic_load_n(&t->agree, __ATOMIC_RELAXED) < TRUST_AFTER)
			return 0;
	}
	return 1;
}

/* A walk of n frames (ranges lo) was checked against libunwind's. */
static void walk_learn(const uint64_t *f, const uint64_t *lo, uint32_t n,
		       const uint64_t *luf, uint32_t nlu)
{
	uint32_t i, same = n < nlu ? n : nlu;
	uint64_t prev = 0;
	struct trust *t;

	/* libunwind goes on past the thread's first frame (into _start):
	 * agreeing is having the walk's frames as its first ones. */
	for (i = 0; i < same && f[i] == luf[i]; i++)
		;
	if (i < n) {
		/* The frame above the first difference ran code that kept no
		 * frame pointer: its caller was skipped. */
		if (n && (t = trust_of(lo[i ? i - 1 : 0], 1)))
			__atomic_add_fetch(&t->bad, 1, __ATOMIC_RELAXED);
		return;
	}
	for (i = 0; i < n; i++) {
		if (lo[i] == prev)
			continue;
		prev = lo[i];
		t = trust_of(lo[i], 1);
		if (t)
			__atomic_add_fetch(&t->agree, 1, __ATOMIC_RELAXED);
	}
}

static struct tk_raw_slot *stack_slot(ucontext_t *uc, int *busy)
{
	uint64_t fpf[TK_RAW_MAX_FRAMES], fplo[TK_RAW_MAX_FRAMES];
	uint64_t luf[TK_RAW_MAX_FRAMES], last, h, fp;
	uint32_t nfp = 0, nlu = 0, flags = 0, at;
	struct tk_raw_slot *s;
	int end = WALK_UNCLEAN, lu_trunc = 0, in_signal = uc != NULL;

	if (uc) {
		/* Interrupted in our own code (a wrapper's fast path): its
		 * frames are left out, frames[0] is then a return address. */
		fp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
		if (!is_self((uint64_t)uc->uc_mcontext.gregs[REG_RIP])) {
			flags = TK_RAW_SLOT_LEAF_IP;
			fplo[nfp] = exec_range((uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
			fpf[nfp++] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
		}
	} else {
		fp = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	}

	if (unwind_mode != UNW_MODE_LIBUNWIND) {
		end = fp_walk(fp, fpf, fplo, &nfp, &last, in_signal);
		if (end == WALK_TRUNCATED)
			add_u64(&hdr->truncated, 1);
		if (unwind_mode == UNW_MODE_FP)
			end = WALK_CLEAN;
		if (end == WALK_UNCLEAN && last) {
			int r = root_lookup(last);

			if (r == 1) {
				end = WALK_CLEAN;
			} else if (!r) {
				nlu = lu_walk(uc, luf, &lu_trunc, busy);
				if (*busy)
					return NULL;
				root_learn(last, luf, nlu);
				if (root_lookup(last) == 1)
					end = WALK_CLEAN;
			}
		}
		if (end != WALK_UNCLEAN) {
			h = stack_hash(fpf, nfp, flags);
			s = slot_find(h, &at);
			if (s)
				return s;
			/* The outermost frame is where the thread started
			 * (libc's, without frame pointers): not in question. */
			if (unwind_mode == UNW_MODE_FP || (nfp && walk_trusted(fplo, nfp - 1)))
				return slot_insert(h, fpf, nfp, flags, in_signal, busy);
			/* First sight of this walk: check it against libunwind. */
			if (!nlu)
				nlu = lu_walk(uc, luf, &lu_trunc, busy);
			if (*busy)
				return NULL;
			if (end == WALK_CLEAN)
				walk_learn(fpf, fplo, nfp, luf, nlu);
			if (nlu >= nfp)
				return slot_insert(h, luf, nlu, flags, in_signal, busy);
			return slot_insert(h, fpf, nfp, flags, in_signal, busy);
		}
	}
	if (!nlu)
		nlu = lu_walk(uc, luf, &lu_trunc, busy);
	if (*busy)
		return NULL;
	if (lu_trunc)
		add_u64(&hdr->truncated, 1);
	h = stack_hash(luf, nlu, flags | 0x100);
	s = slot_find(h, &at);
	if (s)
		return s;
	return slot_insert(h, luf, nlu, flags, in_signal, busy);
}

/* ---- live allocations ---- */

_Static_assert(NSLOTS <= 1u << LIVE_SLOT_BITS, "a slot index fits in a live entry");

/*
 * Counts of live sampled blocks by a hash of their address, and a bit
 * per count that is set while the count is not zero: free() reads only
 * the bit, and looks in the live table only when it is set. At the
 * default rate few blocks are live, so the bits (4 KiB, which stay in
 * the L1 cache) are nearly all clear; the counts (64 KiB) and the table
 * are touched only by sampled blocks. In exact mode every block is live,
 * and neither is kept.
 */
#define LIVE_FILTER_BITS 15
static uint16_t live_filter[1u << LIVE_FILTER_BITS];
static uint64_t live_bits[(1u << LIVE_FILTER_BITS) / 64];

static uint32_t filter_index(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - LIVE_FILTER_BITS));
}

static void filter_add(uint64_t key)
{
	uint32_t i = filter_index(key);

	__atomic_add_fetch(&live_filter[i], 1, __ATOMIC_RELAXED);
	__atomic_or_fetch(&live_bits[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
}

/*
 * A thread that takes the count to zero clears the bit, then sets it
 * again if another thread's block came in meanwhile (its count went up
 * before its bit was set, so one of the two sets the bit last).
 */
static void filter_sub(uint64_t key)
{
	uint32_t i = filter_index(key);

	if (__atomic_sub_fetch(&live_filter[i], 1, __ATOMIC_RELAXED))
		return;
	__atomic_and_fetch(&live_bits[i / 64], ~(1ull << (i % 64)), __ATOMIC_RELAXED);
	if (__atomic_load_n(&live_filter[i], __ATOMIC_RELAXED))
		__atomic_or_fetch(&live_bits[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
}

/* Whether p may be in the live table: one load on the path of free. */
static inline int live_maybe(const void *p)
{
	uint32_t i;

	if (live_all)
		return 1;
	i = filter_index((uint64_t)(uintptr_t)p);
	return (int)((__atomic_load_n(&live_bits[i / 64], __ATOMIC_RELAXED) >> (i % 64)) & 1);
}

/*
 * Where an address's probe starts. A hash would scatter neighbouring
 * blocks over the whole table, and exact mode then paid a cache miss on
 * nearly every malloc and free (half the run on alloc-heavy). Instead
 * the table mirrors the heap: one entry per 32 bytes (glibc's smallest
 * chunk) of a 32 MiB region, the region placed by a hash of its number.
 * Blocks the program allocates together, and frees soon after, share the
 * table's cache lines as they share the heap's.
 */
static uint64_t live_home(uint64_t key)
{
	return (key >> 5) + mix_ptr(key >> (4 + LIVE_BITS));
}

static struct live_ent *live_at(uint64_t i)
{
	return &live[i & ((1u << LIVE_BITS) - 1)];
}

/* The bytes a block of size bytes counts for when sampled: the same
 * double every time, so that a free takes away what the malloc added. */
static double weight_bytes(uint64_t size)
{
	if (sample_bytes == 1)
		return (double)size;
	return (double)size / -expm1(-(double)size / sample_mean);
}

/* 0 when the table has no room for p: then it is not tracked at all. */
static int live_add(void *p, uint32_t slot, uint64_t size)
{
	uint64_t key = (uint64_t)(uintptr_t)p;
	uint64_t i = live_home(key), k;

	if (!live || size > UINT64_MAX >> LIVE_SLOT_BITS || key < 2)
		return 0;
	for (k = 0; k < LIVE_PROBES; k++) {
		struct live_ent *e = live_at(i + k);
		uint64_t v = __atomic_load_n(&e->ptr, __ATOMIC_RELAXED);

		if ((v == 0 || v == 1) &&
		    __atomic_compare_exchange_n(&e->ptr, &v, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			e->meta = size << LIVE_SLOT_BITS | slot;
			if (!live_all)
				filter_add(key);
			return 1;
		}
	}
	return 0;
}

/* Takes p out of the table: 1 and its entry's meta when it was there. */
static int live_take(void *p, uint64_t *meta)
{
	uint64_t key = (uint64_t)(uintptr_t)p;
	uint64_t i, k;

	if (!live || !live_maybe(p))
		return 0;
	i = live_home(key);
	for (k = 0; k < LIVE_PROBES; k++) {
		struct live_ent *e = live_at(i + k);
		uint64_t v = __atomic_load_n(&e->ptr, __ATOMIC_ACQUIRE);

		if (v == key) {
			*meta = e->meta;
			__atomic_store_n(&e->ptr, 1, __ATOMIC_RELEASE);
			if (!live_all)
				filter_sub(key);
			return 1;
		}
		if (!v)
			return 0;
	}
	return 0;
}

static uint32_t meta_slot(uint64_t meta)
{
	return (uint32_t)(meta & ((1u << LIVE_SLOT_BITS) - 1));
}

static void live_remove(void *p)
{
	uint64_t meta;

	if (live_take(p, &meta))
		add_double(&slots[meta_slot(meta)].live_bytes,
			   -weight_bytes(meta >> LIVE_SLOT_BITS));
}

/* ---- sampling ---- */

/*
 * The bytes to the next sample point, X ~ Exp(mean S), as ceil(X): an
 * allocation of s bytes reached with r bytes left is sampled when
 * s >= r, that is when X <= s, with probability 1-exp(-s/S) exactly (a
 * floor would sample it when X < s+1, and small S would overcount).
 * u is in (0, 1), so X > 0 and the interval is at least 1.
 */
static int64_t draw_interval(void)
{
	double u = ((double)(splitmix(&ts.rng) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
	double d = ceil(-log(u) * sample_mean);

	if (d < 1)
		d = 1;
	if (d > 9e18)
		d = 9e18;
	return (int64_t)d;
}

static void thread_init(void)
{
	unsigned idx;

	if (ts.init)
		return;
	ts.init = 1;
	idx = __atomic_fetch_add(&thread_counter, 1, __ATOMIC_RELAXED);
	if (have_seed)
		ts.rng = seed * 0x100000001b3ull + idx;
	else
		ts.rng = mono_ns() ^ ((uint64_t)my_tid() << 32) ^ (uint64_t)getpid() ^
			 (uint64_t)(uintptr_t)&ts;
	splitmix(&ts.rng);
	ts.remaining = 0;  /* its first allocation draws the interval */
	thread_stack_bounds();
}

static __attribute__((noinline)) void record_alloc(void *p, size_t size)
{
	struct tk_raw_slot *s;
	double wb, wc;
	int busy = 0;

	if (!p)
		return;  /* failed: no allocation, whatever its size */
	wb = weight_bytes(size);
	wc = sample_bytes == 1 ? 1 : 1 / -expm1(-(double)size / sample_mean);
	s = stack_slot(NULL, &busy);
	if (!s) {
		add_u64(&hdr->dropped, 1);
		return;
	}
	add_double(&s->alloc_bytes, wb);
	add_double(&s->alloc_count, wc);
	if (size) {
		double now;

		/* A block the live table has no room for is never seen freed:
		 * it counts in the peak of the moment, not in live_bytes for
		 * good (which would inflate every later peak). */
		if (live_add(p, (uint32_t)(s - slots), size)) {
			now = add_double(&s->live_bytes, wb);
		} else {
			__atomic_load(&s->live_bytes, &now, __ATOMIC_RELAXED);
			now += wb;
		}
		max_double(&s->peak_live_bytes, now);
	}
}

static void child_reinit(int safe);

/* With the guard set, before touching the table: 1 when this is the
 * child of a fork that bypassed atfork_child (it gets its own table now,
 * or stops profiling) and the caller must leave the table alone. */
static int fork_unseen(void)
{
	if (LIKELY(*fork_token))
		return 0;
	child_reinit(!__atomic_load_n(&unw_active, __ATOMIC_RELAXED));
	return 1;
}

/* errno is the program's: a successful allocation leaves it as it was. */
static __attribute__((noinline)) void on_alloc_slow(void *p, size_t size)
{
	int saved = errno;

	ts.guard = 1;
	if (fork_unseen() && !active)
		goto out;
	if (UNLIKELY(!ts.allocated)) {
		/* The table says the process allocated at all: a job with
		 * no sample is then one whose allocations were too few, not
		 * one that never called malloc. */
		thread_init();
		ts.allocated = 1;
		__atomic_or_fetch(&hdr->flags, TK_RAW_F_MALLOC, __ATOMIC_RELAXED);
		if (sample_bytes != 1) {
			ts.remaining = draw_interval() - (int64_t)size;
			if (ts.remaining > 0)
				goto out;
		}
	}
	if (sample_bytes != 1)
		ts.remaining = draw_interval();
	record_alloc(p, size);
out:
	ts.guard = 0;
	errno = saved;
}

/* The hot path: one subtraction unless the interval ran out. */
static inline void on_alloc(void *p, size_t size)
{
	if (!active || !alloc_on || ts.guard)
		return;
	if (sample_bytes != 1) {
		ts.remaining -= (int64_t)size;
		if (LIKELY(ts.remaining > 0) || !size)
			return;
	}
	on_alloc_slow(p, size);
}

static inline void on_free(void *p)
{
	if (!p || !active || ts.guard || !live_maybe(p))
		return;
	ts.guard = 1;
	if (!fork_unseen())
		live_remove(p);
	ts.guard = 0;
}

/* ---- the malloc family ---- */

EXPORT void *malloc(size_t n)
{
	void *p;

	if (UNLIKELY(!real_malloc)) {
		if (resolving)
			return boot_alloc(n);
		resolve();
	}
	p = real_malloc(n);
	on_alloc(p, n);
	return p;
}

EXPORT void *calloc(size_t n, size_t m)
{
	void *p;
	size_t size;

	if (UNLIKELY(!real_calloc)) {
		if (resolving) {
			if (__builtin_mul_overflow(n, m, &size)) {
				errno = ENOMEM;
				return NULL;
			}
			return boot_alloc(size);  /* static memory: zeroed */
		}
		resolve();
	}
	p = real_calloc(n, m);
	if (!__builtin_mul_overflow(n, m, &size))
		on_alloc(p, size);
	return p;
}

static __attribute__((noinline)) void free_slow(void *p)
{
	if (!p || in_boot(p))
		return;
	if (!real_free) {
		if (resolving)
			return;
		resolve();
	}
	on_free(p);
	real_free(p);
}

/*
 * Half the calls of an allocation-heavy program: the common case (no
 * sampled block can be at p) is a few loads and a jump to glibc's free,
 * with no frame of its own; anything else is free_slow's.
 */
EXPORT void free(void *p)
{
	if (UNLIKELY(in_boot(p) || !real_free || (active && live_maybe(p) && !ts.guard))) {
		free_slow(p);
		return;
	}
	real_free(p);
}

/* A block of the bootstrap buffer handed to realloc: moved to the heap
 * (the buffer is never freed). */
static void *boot_realloc(void *old, size_t n)
{
	size_t keep = boot_size(old);
	void *p;

	if (!n && !resolving)
		return NULL;  /* glibc's realloc(p, 0): a free */
	p = resolving ? boot_alloc(n) : malloc(n);
	if (p)
		memcpy(p, old, keep < n ? keep : n);
	return p;
}

/* realloc is a free of the old block and an allocation of the new size. */
EXPORT void *realloc(void *old, size_t n)
{
	void *p;
	uint64_t meta = 0;
	int had = 0;

	if (UNLIKELY(in_boot(old)))
		return boot_realloc(old, n);
	if (UNLIKELY(!real_realloc)) {
		if (resolving)
			return old ? NULL : boot_alloc(n);
		resolve();
	}
	if (old && active && !ts.guard && live_maybe(old)) {
		/* Removed before the real call, which may hand the block to
		 * another thread; put back if realloc fails. */
		ts.guard = 1;
		if (!fork_unseen() && live_take(old, &meta)) {
			had = 1;
			add_double(&slots[meta_slot(meta)].live_bytes,
				   -weight_bytes(meta >> LIVE_SLOT_BITS));
		}
		ts.guard = 0;
	}
	p = real_realloc(old, n);
	if (!p && n && had) {
		ts.guard = 1;
		if (live_add(old, meta_slot(meta), meta >> LIVE_SLOT_BITS))
			add_double(&slots[meta_slot(meta)].live_bytes,
				   weight_bytes(meta >> LIVE_SLOT_BITS));
		ts.guard = 0;
	}
	if (p || !old)
		on_alloc(p, n);
	return p;
}

EXPORT void *reallocarray(void *old, size_t n, size_t m)
{
	size_t size;

	if (__builtin_mul_overflow(n, m, &size)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(old, size);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int r;

	if (UNLIKELY(!real_posix_memalign)) {
		if (resolving) {
			void *p;

			if (align < sizeof(void *) || (align & (align - 1)))
				return EINVAL;
			p = boot_memalign(align, n);
			if (!p)
				return ENOMEM;
			*out = p;
			return 0;
		}
		resolve();
	}
	r = real_posix_memalign(out, align, n);
	if (!r)
		on_alloc(*out, n);
	return r;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (UNLIKELY(!real_aligned_alloc)) {
		if (resolving)
			return boot_memalign(align, n);
		resolve();
	}
	p = real_aligned_alloc(align, n);
	on_alloc(p, n);
	return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (UNLIKELY(!real_memalign)) {
		if (resolving)
			return boot_memalign(align, n);
		resolve();
	}
	p = real_memalign(align, n);
	on_alloc(p, n);
	return p;
}

/* valloc and pvalloc: glibc's own, for its exact behaviour (pvalloc(0),
 * errors); accounted at the size rounded up to a page for pvalloc. */
EXPORT void *valloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	if (UNLIKELY(!real_memalign)) {
		if (resolving)
			return boot_memalign(page, n);
		resolve();
	}
	p = real_valloc ? real_valloc(n) : real_memalign(page, n);
	on_alloc(p, n);
	return p;
}

EXPORT void *pvalloc(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), size;
	void *p;

	if (UNLIKELY(!real_memalign)) {
		if (resolving)
			return boot_memalign(page, n);
		resolve();
	}
	if (__builtin_add_overflow(n, page - 1, &size)) {
		errno = ENOMEM;
		return NULL;
	}
	size &= ~(page - 1);
	p = real_pvalloc ? real_pvalloc(n) : real_memalign(page, size ? size : page);
	on_alloc(p, size);
	return p;
}

/* ---- CPU sampling ---- */

static void cpu_handler(int sig, siginfo_t *si, void *ucv)
{
	int saved = errno, busy = 0;
	struct tk_raw_slot *s;
	uint64_t n = 1;

	(void)sig;
	if (!active || !hdr || !*fork_token)
		goto out;
	if (si && si->si_code == SI_TIMER && si->si_overrun > 0)
		n += (uint64_t)si->si_overrun;
	if (ts.guard) {
		add_u64(&hdr->cpu_lost, n);
		goto out;
	}
	ts.guard = 1;
	s = stack_slot(ucv, &busy);
	if (s)
		add_double(&s->cpu_ns, (double)(cpu_period_ns * n));
	else if (busy)
		add_u64(&hdr->cpu_lost, n);
	else
		add_u64(&hdr->dropped, n);
	ts.guard = 0;
out:
	errno = saved;
}

static int timer_arm(pid_t tid, timer_t *id)
{
	struct sigevent ev;
	struct itimerspec it;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGPROF;
	ev._sigev_un._tid = tid;  /* sigev_notify_thread_id */
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, id))
		return -1;
	it.it_interval.tv_sec = (time_t)(cpu_period_ns / 1000000000u);
	it.it_interval.tv_nsec = (long)(cpu_period_ns % 1000000000u);
	it.it_value = it.it_interval;
	if (timer_settime(*id, 0, &it, NULL)) {
		timer_delete(*id);
		return -1;
	}
	return 0;
}

/* Called on the thread itself (guard set): a timer of its own, unless
 * sampling is off, the table is full, or an exec is under way (then
 * registered unarmed, for a failed exec to arm). */
static void thread_timer_start(void)
{
	pid_t tid;
	int i;

	if (!cpu_on || ts.has_timer)
		return;
	tid = my_tid();
	pthread_mutex_lock(&timers_lock);
	for (i = 0; cpu_on && i < MAX_TIMERS; i++) {
		struct timer_ent *e = &timers[i];

		if (e->used)
			continue;
		if (!timers_frozen && timer_arm(tid, &e->id))
			break;
		e->used = 1;
		e->armed = !timers_frozen;
		e->tid = tid;
		ts.has_timer = 1;
		break;
	}
	pthread_mutex_unlock(&timers_lock);
	/* the key's destructor stops it; set once per thread (a fork child's
	 * thread has it already, and setspecific may allocate) */
	if (ts.has_timer && !pthread_getspecific(timer_key))
		pthread_setspecific(timer_key, (void *)1);
}

/* The key's destructor, at the thread's exit. */
static void thread_timer_stop(void *unused)
{
	pid_t tid;
	int i;

	(void)unused;
	if (!ts.has_timer)
		return;
	ts.has_timer = 0;
	tid = my_tid();
	pthread_mutex_lock(&timers_lock);
	for (i = 0; i < MAX_TIMERS; i++) {
		struct timer_ent *e = &timers[i];

		if (e->used && e->tid == tid) {
			if (e->armed)
				timer_delete(e->id);
			e->used = 0;
			e->armed = 0;
			break;
		}
	}
	pthread_mutex_unlock(&timers_lock);
}

/*
 * Deletes every timer, then drops pending SIGPROFs (setting SIG_IGN
 * discards them in every thread). For an exec (forget 0) the table keeps
 * the threads, frozen, so that a failed exec can arm them again; when the
 * program takes SIGPROF (forget 1) sampling stops for good. The caller
 * sets the disposition it wants afterwards. nested: called with our own
 * code interrupted on this thread (a signal handler's exec).
 */
static void timers_disarm_all(int forget, int nested)
{
	struct sigaction ign;
	int i, locked;

	locked = lock_maybe(&timers_lock, nested);
	timers_frozen = 1;
	if (forget)
		cpu_on = 0;
	for (i = 0; i < MAX_TIMERS; i++) {
		struct timer_ent *e = &timers[i];

		if (e->used && e->armed)
			timer_delete(e->id);
		e->armed = 0;
		if (forget)
			e->used = 0;
	}
	if (locked)
		pthread_mutex_unlock(&timers_lock);
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	real_sigaction(SIGPROF, &ign, NULL);
}

static void sigprof_default(void)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(SIGPROF, &dfl, NULL);
}

static void cpu_install_handler(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = cpu_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	real_sigaction(SIGPROF, &sa, NULL);
}

/* exec failed: sample again, every thread of the table. */
static void timers_rearm_all(int nested)
{
	int i, locked;

	if (!cpu_on)
		return;
	cpu_install_handler();
	locked = lock_maybe(&timers_lock, nested);
	for (i = 0; i < MAX_TIMERS; i++) {
		struct timer_ent *e = &timers[i];

		if (e->used && !e->armed)
			e->armed = !timer_arm(e->tid, &e->id);
	}
	timers_frozen = 0;
	if (locked)
		pthread_mutex_unlock(&timers_lock);
}

static void cpu_setup(void)
{
	struct sigaction old;

	if (!cpu_period_ns)
		return;
	if (real_sigaction(SIGPROF, NULL, &old) || (old.sa_flags & SA_SIGINFO) ||
	    old.sa_handler != SIG_DFL)
		return;  /* the program profiles itself: leave SIGPROF alone */
	if (pthread_key_create(&timer_key, thread_timer_stop))
		return;
	cpu_install_handler();
	cpu_on = 1;
	thread_timer_start();
}

/* ---- the output files ---- */

static int open_files(void)
{
	char path[PATH_MAX + 64];
	size_t base, at;
	unsigned seq;
	int fd = -1;
	void *m;
	ssize_t r;
	struct rlimit rl;

	maps_path[0] = '\0';
	base = put_str(path, 0, sizeof(path), out_dir);
	base = put_str(path, base, sizeof(path), "/");
	base = put_uint(path, base, sizeof(path), (uint64_t)my_pid);
	base = put_str(path, base, sizeof(path), ".");
	for (seq = 0; seq < 100000; seq++) {
		at = put_uint(path, base, sizeof(path), seq);
		put_str(path, at, sizeof(path), ".tkraw");
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		return -1;
	map_size = TK_RAW_HEADER_SIZE + (size_t)NSLOTS * sizeof(struct tk_raw_slot) +
		   (size_t)FRAMES_CAP * sizeof(uint64_t);
	/* Growing a file past RLIMIT_FSIZE raises SIGXFSZ: no profile rather
	 * than a dead job. */
	if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < map_size) {
		close(fd);
		unlink(path);
		return -1;
	}
	if (ftruncate(fd, (off_t)map_size)) {
		close(fd);
		unlink(path);
		return -1;
	}
	m = mmap(NULL, map_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		unlink(path);
		return -1;
	}
	/* The table is a sparse file touched at random (slots by hash):
	 * readahead would fill and zero a window of pages at every first
	 * touch, milliseconds of the job's time for pages never used. */
	madvise(m, map_size, MADV_RANDOM);
	hdr = m;
	slots = (struct tk_raw_slot *)((char *)m + TK_RAW_HEADER_SIZE);
	frames_region = (uint64_t *)((char *)slots + (size_t)NSLOTS * sizeof(struct tk_raw_slot));
	slots_used = 0;

	memcpy(hdr->magic, TK_RAW_MAGIC, 8);
	hdr->version = TK_RAW_VERSION;
	hdr->header_size = TK_RAW_HEADER_SIZE;
	hdr->pid = my_pid;
	hdr->ppid = getppid();
	hdr->seq = seq;
	hdr->nslots = NSLOTS;
	hdr->frames_off = (uint64_t)((char *)frames_region - (char *)m);
	hdr->frames_cap = FRAMES_CAP;
	hdr->sample_bytes = sample_bytes;
	hdr->cpu_period_ns = cpu_period_ns;
	put_str(hdr->unwinder, 0, sizeof(hdr->unwinder),
		unwind_mode == UNW_MODE_FP ? "fp" :
		unwind_mode == UNW_MODE_LIBUNWIND ? "libunwind" : "fp+libunwind");
	prctl(PR_GET_NAME, hdr->comm, 0, 0, 0);
	hdr->comm[sizeof(hdr->comm) - 1] = '\0';
	r = readlink("/proc/self/exe", hdr->exe, sizeof(hdr->exe) - 1);
	hdr->exe[r > 0 ? r : 0] = '\0';

	at = put_uint(path, base, sizeof(path), seq);
	put_str(path, at, sizeof(path), ".maps");
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		close(fd);
		put_str(maps_path, 0, sizeof(maps_path), path);
	}
	return 0;
}

static void live_setup(void)
{
	void *m = mmap(NULL, sizeof(struct live_ent) << LIVE_BITS, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	live = m == MAP_FAILED ? NULL : m;
	live_all = sample_bytes == 1;
	memset(live_filter, 0, sizeof(live_filter));
	memset(live_bits, 0, sizeof(live_bits));
}

static void mark_exited(void)
{
	if (hdr)
		__atomic_or_fetch(&hdr->flags, TK_RAW_F_EXITED, __ATOMIC_RELEASE);
}

static void unmark_exited(void)
{
	if (hdr)
		__atomic_and_fetch(&hdr->flags, ~TK_RAW_F_EXITED, __ATOMIC_RELEASE);
}

/* ---- fatal signals, fork, exit ---- */

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL, SIGTERM, SIGINT };

static void fatal_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct sigaction dfl;

	(void)uc;
	/* The table's file could not get a new page (its filesystem is
	 * full): the profile stops here, not the job. Anonymous memory takes
	 * the table's place, so the faulting store and all later ones land;
	 * what the file already holds stays. */
	if (sig == SIGBUS && si && hdr && (uintptr_t)si->si_addr >= (uintptr_t)hdr &&
	    (uintptr_t)si->si_addr < (uintptr_t)hdr + map_size &&
	    mmap(hdr, map_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != MAP_FAILED) {
		errno = saved;
		return;
	}
	if (active && !ts.guard && *fork_token) {
		ts.guard = 1;
		maps_snapshot(0, 1);
	}
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction(sig, &dfl, NULL);
	errno = saved;
	/* A fault: return, and the instruction faults again under SIG_DFL,
	 * so that a core dump shows where it happened. */
	if (si && si->si_code > 0 &&
	    (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE))
		return;
	raise(sig);
}

static void fatal_setup(void)
{
	size_t i;

	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		struct sigaction old, sa;

		if (real_sigaction(fatal_signals[i], NULL, &old) || (old.sa_flags & SA_SIGINFO) ||
		    old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = fatal_handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		real_sigaction(fatal_signals[i], &sa, NULL);
	}
}

/*
 * fork: our locks are taken so that the child finds them free, and the
 * unwinder gate is closed so that no thread is inside libunwind. A fork
 * from a signal handler that interrupted our own code on this thread
 * (nested) takes what it can without waiting; its child, which cannot
 * trust libunwind's state, does not profile.
 */
static void atfork_prepare(void)
{
	int nested;

	if (!active)
		return;
	nested = ts.guard > 0;
	ts.guard++;
	ts.fork_locked = 0;
	ts.fork_unsafe = nested;
	if (lock_maybe(&timers_lock, nested))
		ts.fork_locked |= 1;
	if (!nested && unw_close())
		ts.fork_unsafe = 1;
	if (lock_maybe(&maps_lock, nested))
		ts.fork_locked |= 2;
	if (lock_maybe(&insert_lock, nested))
		ts.fork_locked |= 4;
}

static void atfork_parent(void)
{
	if (!active)
		return;
	if (ts.fork_locked & 4)
		pthread_mutex_unlock(&insert_lock);
	if (ts.fork_locked & 2)
		pthread_mutex_unlock(&maps_lock);
	if (ts.fork_locked & 1) {
		unw_open();
		pthread_mutex_unlock(&timers_lock);
	}
	ts.guard--;
}

/*
 * A child (the guard set): files and a table of its own, the parent's
 * mapping dropped without a write. Not safe (libunwind may be locked):
 * the child does not profile.
 */
static void child_reinit(int safe)
{
	*fork_token = 1;
	pthread_mutex_init(&insert_lock, NULL);
	pthread_mutex_init(&maps_lock, NULL);
	pthread_mutex_init(&timers_lock, NULL);
	memset(timers, 0, sizeof(timers));
	timers_frozen = 0;
	ts.has_timer = 0;
	__atomic_store_n(&unw_active, 0, __ATOMIC_SEQ_CST);
	unw_open();
	if (hdr)
		munmap(hdr, map_size);
	hdr = NULL;
	slots = NULL;
	maps_path[0] = '\0';
	if (live)
		munmap(live, sizeof(struct live_ent) << LIVE_BITS);
	live_setup();
	my_pid = getpid();
	ts.rng ^= mix_ptr((uint64_t)my_pid);
	ts.allocated = 0;
	ts.remaining = 0;
	if (!safe || open_files()) {
		active = 0;
		return;
	}
	maps_snapshot(1, 0);
	thread_timer_start();
}

static void atfork_child(void)
{
	if (!active)
		return;
	child_reinit(!ts.fork_unsafe);
	ts.guard--;
}

/* ---- exec and exit ---- */

/* Only the process that owns the table touches it: a vfork child shares
 * our memory and must leave it alone. An exec from a signal handler that
 * interrupted our code on this thread must not wait for our locks. */
static int exec_prepare(void)
{
	int nested;

	if (!active || getpid() != my_pid || !*fork_token)
		return 0;
	nested = ts.guard > 0;
	ts.guard++;
	maps_snapshot(1, nested);
	if (cpu_on) {
		timers_disarm_all(0, nested);
		sigprof_default();
	}
	mark_exited();
	return 1 + nested;
}

static void exec_failed(int prepared)
{
	int saved = errno;

	if (prepared) {
		unmark_exited();
		timers_rearm_all(prepared > 1);
		ts.guard--;
	}
	errno = saved;
}

EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	int prep, r;

	if (!real_execve)
		resolve();
	prep = exec_prepare();
	r = real_execve(path, argv, envp);
	exec_failed(prep);
	return r;
}

EXPORT int execv(const char *path, char *const argv[])
{
	int prep, r;

	if (!real_execv)
		resolve();
	prep = exec_prepare();
	r = real_execv(path, argv);
	exec_failed(prep);
	return r;
}

EXPORT int execvp(const char *file, char *const argv[])
{
	int prep, r;

	if (!real_execvp)
		resolve();
	prep = exec_prepare();
	r = real_execvp(file, argv);
	exec_failed(prep);
	return r;
}

EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	int prep, r;

	if (!real_execvpe)
		resolve();
	prep = exec_prepare();
	r = real_execvpe(file, argv, envp);
	exec_failed(prep);
	return r;
}

EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	int prep, r;

	if (!real_fexecve)
		resolve();
	prep = exec_prepare();
	r = real_fexecve(fd, argv, envp);
	exec_failed(prep);
	return r;
}

EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	int prep, r;

	if (!real_execveat)
		resolve();
	prep = exec_prepare();
	if (real_execveat)
		r = real_execveat(dirfd, path, argv, envp, flags);
	else
		r = (int)syscall(SYS_execveat, dirfd, path, argv, envp, flags);
	exec_failed(prep);
	return r;
}

/*
 * The execl family: gather the variadic list, then as execv*. No malloc:
 * these are async-signal-safe, and may run in a vfork child or a signal
 * handler. Long lists go to an anonymous mapping.
 */
struct arglist {
	char **argv;
	size_t mapped;
	char *small[EXECL_STACK_ARGS];
};

static int collect_args(struct arglist *al, const char *arg0, va_list ap, char ***envp)
{
	va_list cp;
	size_t n = 1, i;

	va_copy(cp, ap);
	while (va_arg(cp, char *))
		n++;
	va_end(cp);
	al->mapped = 0;
	al->argv = al->small;
	if (n + 1 > EXECL_STACK_ARGS) {
		void *m;

		al->mapped = (n + 1) * sizeof(char *);
		m = mmap(NULL, al->mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			errno = E2BIG;
			return -1;
		}
		al->argv = m;
	}
	al->argv[0] = (char *)arg0;
	for (i = 1; i <= n; i++)
		al->argv[i] = va_arg(ap, char *);
	if (envp)
		*envp = va_arg(ap, char **);
	return 0;
}

static void release_args(struct arglist *al)
{
	int saved = errno;

	if (al->mapped)
		munmap(al->argv, al->mapped);
	errno = saved;
}

EXPORT int execl(const char *path, const char *arg, ...)
{
	struct arglist al;
	va_list ap;
	int r;

	va_start(ap, arg);
	r = collect_args(&al, arg, ap, NULL);
	va_end(ap);
	if (r)
		return -1;
	r = execv(path, al.argv);
	release_args(&al);
	return r;
}

EXPORT int execlp(const char *file, const char *arg, ...)
{
	struct arglist al;
	va_list ap;
	int r;

	va_start(ap, arg);
	r = collect_args(&al, arg, ap, NULL);
	va_end(ap);
	if (r)
		return -1;
	r = execvp(file, al.argv);
	release_args(&al);
	return r;
}

EXPORT int execle(const char *path, const char *arg, ...)
{
	struct arglist al;
	char **envp = NULL;
	va_list ap;
	int r;

	va_start(ap, arg);
	r = collect_args(&al, arg, ap, &envp);
	va_end(ap);
	if (r)
		return -1;
	r = execve(path, al.argv, envp);
	release_args(&al);
	return r;
}

EXPORT void _exit(int status)
{
	if (!real__exit)
		resolve();
	if (active && getpid() == my_pid)
		mark_exited();
	real__exit(status);
}

EXPORT void _Exit(int status)
{
	if (!real__Exit)
		resolve();
	if (active && getpid() == my_pid)
		mark_exited();
	real__Exit(status);
}

/* ---- threads and dlopen ---- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_trampoline(void *p)
{
	struct start st = *(struct start *)p;
	int saved = errno;

	real_free(p);
	ts.guard++;
	thread_init();
	thread_timer_start();
	ts.guard--;
	errno = saved;
	return st.fn(st.arg);
}

EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	struct start *st;
	int r;

	if (!real_pthread_create)
		resolve();
	if (!active)
		return real_pthread_create(t, attr, fn, arg);
	st = real_malloc(sizeof(*st));
	if (!st)
		return EAGAIN;
	st->fn = fn;
	st->arg = arg;
	r = real_pthread_create(t, attr, thread_trampoline, st);
	if (r)
		real_free(st);
	return r;
}

EXPORT void *dlopen(const char *file, int mode)
{
	void *h;

	if (!real_dlopen)
		resolve();
	h = real_dlopen(file, mode);
	if (h && active && !ts.guard) {
		int saved = errno;

		ts.guard = 1;
		if (!fork_unseen() || active)
			maps_snapshot(0, 0);
		ts.guard = 0;
		errno = saved;
	}
	return h;
}

/* ---- the program's own signal handlers ---- */

/*
 * A program that sets its own SIGPROF disposition (gperftools, or GNU sort,
 * which cleans up and re-raises on SIGPROF) would get our timers' signals:
 * stop sampling for good, drop pending SIGPROFs, then let it have the
 * signal. Our handlers are reported as SIG_DFL, the disposition the
 * program would see without us. Only the process that owns the timers
 * does this: a vfork child resetting its signals must not stop its
 * parent's sampling.
 */
static void sig_before(int sig)
{
	int saved = errno;

	if (sig == SIGPROF && cpu_on && getpid() == my_pid) {
		int nested = ts.guard > 0;

		ts.guard++;
		timers_disarm_all(1, nested);
		sigprof_default();  /* what the caller is told it replaces */
		ts.guard--;
	}
	errno = saved;
}

static int is_ours(sighandler_t h)
{
	return (uintptr_t)h == (uintptr_t)cpu_handler || (uintptr_t)h == (uintptr_t)fatal_handler;
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int r;

	if (!real_sigaction)
		resolve();
	if (act)
		sig_before(sig);
	r = real_sigaction(sig, act, old);
	if (!r && old && is_ours(old->sa_handler)) {
		memset(old, 0, sizeof(*old));
		old->sa_handler = SIG_DFL;
	}
	return r;
}

/* glibc's own signal(), sysv_signal() and sigset() (siginterrupt() changes
 * what signal() does), with the same hooks as sigaction(). */
EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	sighandler_t old;

	if (!real_signal)
		resolve();
	sig_before(sig);
	old = real_signal(sig, handler);
	return is_ours(old) ? SIG_DFL : old;
}

sighandler_t bsd_signal(int sig, sighandler_t handler);  /* not in glibc's headers */

EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return signal(sig, handler);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	sighandler_t old;

	if (!real_sysv_signal)
		resolve();
	if (!real_sysv_signal)
		return signal(sig, handler);
	sig_before(sig);
	old = real_sysv_signal(sig, handler);
	return is_ours(old) ? SIG_DFL : old;
}

EXPORT sighandler_t sigset(int sig, sighandler_t handler)
{
	sighandler_t old;

	if (!real_sigset)
		resolve();
	if (!real_sigset)
		return signal(sig, handler);
	sig_before(sig);
	old = real_sigset(sig, handler);
	return is_ours(old) ? SIG_DFL : old;
}

/* ---- init and fini ---- */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return dflt;
	return v;
}

__attribute__((constructor(101))) static void preload_init(void)
{
	const char *dir, *mode;
	uint64_t hz;

	resolve();
	dir = getenv(TK_RAW_ENV_DIR);
	if (!dir || !*dir || strlen(dir) >= sizeof(out_dir))
		return;
	ts.guard++;
	put_str(out_dir, 0, sizeof(out_dir), dir);
	sample_bytes = env_u64(TK_RAW_ENV_SAMPLE_BYTES, DEFAULT_SAMPLE_BYTES);
	sample_mean = (double)sample_bytes;
	alloc_on = sample_bytes > 0;
	hz = env_u64(TK_RAW_ENV_CPU_HZ, 0);
	cpu_period_ns = hz ? 1000000000u / (hz > 1000000000u ? 1000000000u : hz) : 0;
	mode = getenv(TK_RAW_ENV_UNWIND);
	unwind_mode = !mode ? UNW_MODE_AUTO :
		      !strcmp(mode, "fp") ? UNW_MODE_FP :
		      !strcmp(mode, "libunwind") ? UNW_MODE_LIBUNWIND : UNW_MODE_AUTO;
#ifndef TK_WITH_LIBUNWIND
	unwind_mode = UNW_MODE_FP; /* the table's header says "fp" */
#endif
	if (getenv(TK_RAW_ENV_SEED) && *getenv(TK_RAW_ENV_SEED)) {
		have_seed = 1;
		seed = env_u64(TK_RAW_ENV_SEED, 0);
	}
	my_pid = getpid();
	fork_token_setup();
	if (open_files()) {
		ts.guard--;
		return;
	}
	live_setup();
	maps_snapshot(1, 0);
	thread_init();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	fatal_setup();
	__atomic_store_n(&active, 1, __ATOMIC_RELEASE);
	cpu_setup();
	ts.guard--;
}

__attribute__((destructor)) static void preload_fini(void)
{
	if (!active || getpid() != my_pid)
		return;
	ts.guard++;
	maps_snapshot(0, 0);
	mark_exited();
	ts.guard--;
}
