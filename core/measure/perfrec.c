#include "core/measure/perfrec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/measure/unwind.h"
#include "core/base/banned.h"

/*
 * Ring size per CPU: 64 data pages (256 KiB with 4 KiB pages). Holds
 * about 250 ms of 999 Hz samples with 127-frame stacks, and stays under
 * the default perf_event_mlock_kb (516 KiB per CPU) so an unprivileged
 * user needs no RLIMIT_MEMLOCK. Smaller sizes are tried when the budget
 * is partly used by someone else.
 */
#define RING_PAGES_MAX 64
#define RING_PAGES_MIN 4
/*
 * With stack copies, 128 data pages: 512 KiB, with the metadata page
 * exactly the default perf_event_mlock_kb per CPU (516), which is what
 * `perf record` maps too. Beyond the per-user budget the kernel charges
 * RLIMIT_MEMLOCK, and smaller rings are tried as above.
 */
#define RING_PAGES_DWARF 128
/*
 * The user stack copied with each sample, for unwinding with CFI. perf's
 * default too; docs/profiler.md has the measurements behind it. A copy
 * must leave room for two drains' worth of samples in the ring (tracker
 * may drain late on a loaded machine), so high rates get smaller copies,
 * down to STACK_MIN; below that, frame-pointer chains only.
 */
#define STACK_DEFAULT 8192
#define STACK_MIN 1024
/* Per sample besides the stack copy: header, ip, tid, time, period,
 * a 127-frame chain, the registers and the copy's two size fields. */
#define SAMPLE_FIXED (8 + 8 * 4 + 8 + 8 * 128 + 8 + 8 * 17 + 16)
/* Records are sorted by time before they are applied (a process moves
 * between CPUs, and each CPU has its own ring); those younger than this
 * wait for the next drain, in case an older one is still on its way. */
#define SETTLE_NS 20000000ull
#define PROC_MAPS_READS_MAX 16
#define MAX_RECORD (1u << 16)

struct ring {
	int fd;
	int cpu;
	struct perf_event_mmap_page *meta;
	unsigned char *data;
	uint64_t size;          /* data area, a power of two */
	size_t map_len;
};

/* A record copied out of a ring, waiting to be applied in time order. */
struct pend {
	uint64_t time;
	uint64_t order;
	size_t off;
	uint32_t len;
};

struct stk {
	uint64_t hash;
	size_t frames;          /* index in image.frames */
	uint32_t nframes;
	uint32_t flags;
	double cpu_ns;
};

struct image {
	struct tk_unwind_space *space; /* NULL until its first sample */
	int space_stale;        /* its maps changed since the space saw them */
	int pid;
	unsigned seq;
	uint64_t start;         /* perf time it began (fork, exec); 0 unknown */
	long prev;              /* the previous image of the same pid, -1 */
	int exited;
	int name_from_map;      /* exec'd: the first executable mapping names it */
	unsigned proc_reads;
	uint64_t proc_read_round;
	char comm[17];
	char *name;
	struct tk_rawimage mapped; /* only its maps: sorted, disjoint */
	struct stk *stacks;
	size_t nr_stacks, alloc_stacks;
	uint32_t *slots;        /* stack index + 1; 0 empty */
	size_t nslots;
	uint64_t *frames;
	size_t nr_frames, alloc_frames;
};

struct pidslot {
	int pid;                /* 0: empty */
	long latest;            /* image index */
};

struct tk_perfrec {
	struct ring *rings;
	unsigned nrings;
	int clock_mono;         /* sample times are CLOCK_MONOTONIC */
	unsigned max_stack;     /* kernel.perf_event_max_stack */
	uint64_t round;         /* drains so far */

	unsigned char *rec;     /* one record, copied when it wraps */
	struct tk_buf pbytes;   /* pending records */
	struct pend *pend;
	size_t nr_pend, alloc_pend;
	uint64_t order;

	struct image *images;
	size_t nr_images, alloc_images;
	struct pidslot *pids;
	size_t npids, used_pids;

	unsigned long long records, bytes, samples, lost, truncated, proc_reads;
	struct tk_buf line;

	/* unwinding with CFI (core/measure/unwind) */
	struct tk_unwinder *unw;
	uint64_t regs_mask;     /* sample_regs_user; 0: no stack copies */
	int no_unwinder;        /* copies wanted, but this build cannot unwind them */
	unsigned nregs;
	unsigned stack_bytes;   /* sample_stack_user */
	int dwarf_errno;        /* the kernel refused stack copies with this */
	int stack_rate_off;     /* no room for stack copies at this rate */
	unsigned hz;
	unsigned long long how[4]; /* samples by enum tk_unwind_how */
	unsigned long long past_copy, no_cfi, partial_past_copy, partial_no_cfi;
	unsigned long long unwind_ns, space_ns;
	size_t stack_used_max;
	unsigned long long need[8];
};

/* ---- small helpers ---- */

/* the CPU this thread has used: what unwinding costs, whatever else
 * the machine runs */
static uint64_t thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long read_long_file(const char *path, long dflt)
{
	struct tk_buf b = TK_BUF_INIT;
	long v = dflt;
	char *end;

	if (!tk_buf_read_file(&b, path, NULL)) {
		errno = 0;
		v = strtol(b.buf, &end, 10);
		if (errno || end == b.buf)
			v = dflt;
	}
	tk_buf_release(&b);
	return v;
}

static uint64_t hash_frames(const uint64_t *f, uint32_t n, uint32_t flags)
{
	uint64_t h = 0xcbf29ce484222325ull ^ flags;
	uint32_t i;

	for (i = 0; i < n; i++) {
		h ^= f[i];
		h *= 0x100000001b3ull;
		h ^= h >> 29;
	}
	return h ? h : 1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* basename without a " (deleted)" suffix */
static char *exe_name(const char *path)
{
	const char *b = base_name(path);
	size_t n = strlen(b);
	static const char del[] = " (deleted)";

	if (n > sizeof(del) - 1 && !strcmp(b + n - (sizeof(del) - 1), del))
		n -= sizeof(del) - 1;
	return tk_xstrndup(b, n);
}

/* ---- images ---- */

static struct pidslot *pid_slot(struct tk_perfrec *r, int pid, int create)
{
	size_t i, mask;

	if (create && (r->used_pids + 1) * 2 > r->npids) {
		struct pidslot *old = r->pids;
		size_t oldn = r->npids, j;

		r->npids = oldn ? oldn * 2 : 64;
		r->pids = tk_xcalloc(r->npids, sizeof(*r->pids));
		for (j = 0; j < oldn; j++) {
			if (!old[j].pid)
				continue;
			mask = r->npids - 1;
			for (i = (size_t)old[j].pid * 2654435761u & mask; r->pids[i].pid; i = (i + 1) & mask)
				;
			r->pids[i] = old[j];
		}
		free(old);
	}
	if (!r->npids)
		return NULL;
	mask = r->npids - 1;
	for (i = (size_t)pid * 2654435761u & mask; r->pids[i].pid; i = (i + 1) & mask)
		if (r->pids[i].pid == pid)
			return &r->pids[i];
	if (!create)
		return NULL;
	r->pids[i].pid = pid;
	r->pids[i].latest = -1;
	r->used_pids++;
	return &r->pids[i];
}

static long latest_image(struct tk_perfrec *r, int pid)
{
	struct pidslot *s = pid_slot(r, pid, 0);

	return s ? s->latest : -1;
}

static long new_image(struct tk_perfrec *r, int pid, uint64_t start)
{
	struct pidslot *s = pid_slot(r, pid, 1);
	struct image *im;
	long idx = (long)r->nr_images;

	TK_ALLOC_GROW(r->images, r->nr_images + 1, r->alloc_images);
	im = &r->images[r->nr_images++];
	memset(im, 0, sizeof(*im));
	im->pid = pid;
	im->start = start;
	im->prev = s->latest;
	im->seq = s->latest >= 0 ? r->images[s->latest].seq + 1 : 0;
	s->latest = idx;
	return idx;
}

/* The image pid was in at time t: the newest one that began at or before
 * t (the oldest known if none did); created when the pid is new. */
static long image_at(struct tk_perfrec *r, int pid, uint64_t t)
{
	long i = latest_image(r, pid), last = i;

	if (i < 0)
		return new_image(r, pid, 0);
	while (i >= 0 && r->images[i].start > t) {
		last = i;
		i = r->images[i].prev;
	}
	return i >= 0 ? i : last;
}

static int covered(const struct image *im, uint64_t addr)
{
	return tk_rawimage_find_map(&im->mapped, addr) != NULL;
}

static void set_name(struct image *im, const char *path)
{
	free(im->name);
	im->name = exe_name(path);
}

/*
 * The process mapped its code before its events were enabled (the kernel
 * maps the executable and the dynamic loader during exec): read what it
 * has mapped now. Only while the image is the pid's current one.
 */
static void read_proc_maps(struct tk_perfrec *r, struct image *im)
{
	char path[64];
	const char *p;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", im->pid);
	tk_buf_reset(&r->line);
	tk_buf_grow(&r->line, PATH_MAX);
	n = readlink(path, r->line.buf, PATH_MAX - 1);
	if (n > 0) {
		r->line.buf[n] = '\0';
		if (!im->name || im->name_from_map)
			set_name(im, r->line.buf);
		im->name_from_map = 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", im->pid);
	tk_buf_reset(&r->line);
	if (tk_buf_read_file(&r->line, path, NULL))
		return;
	r->proc_reads++;
	for (p = r->line.buf; *p; ) {
		char *eol = strchr(p, '\n');
		uint64_t start, end, off;
		const char *file;

		if (eol)
			*eol = '\0';
		if (tk_rawmaps_parse_line(p, &start, &end, &off, &file) == 1)
			tk_rawimage_add_map(&im->mapped, start, end, off, file);
		p = eol ? eol + 1 : p + strlen(p);
	}
	im->space_stale = 1;
}

static void add_sample(struct tk_perfrec *r, struct image *im, const uint64_t *f, uint32_t n,
		       double weight)
{
	uint64_t h = hash_frames(f, n, TK_RAW_SLOT_LEAF_IP);
	size_t i, mask;
	struct stk *s;

	if ((im->nr_stacks + 1) * 2 > im->nslots) {
		size_t j;

		free(im->slots);
		im->nslots = im->nslots ? im->nslots * 2 : 64;
		im->slots = tk_xcalloc(im->nslots, sizeof(*im->slots));
		mask = im->nslots - 1;
		for (j = 0; j < im->nr_stacks; j++) {
			for (i = im->stacks[j].hash & mask; im->slots[i]; i = (i + 1) & mask)
				;
			im->slots[i] = (uint32_t)j + 1;
		}
	}
	mask = im->nslots - 1;
	for (i = h & mask; im->slots[i]; i = (i + 1) & mask) {
		s = &im->stacks[im->slots[i] - 1];
		if (s->hash == h && s->nframes == n &&
		    (!n || !memcmp(&im->frames[s->frames], f, n * sizeof(*f)))) {
			s->cpu_ns += weight;
			return;
		}
	}
	TK_ALLOC_GROW(im->stacks, im->nr_stacks + 1, im->alloc_stacks);
	TK_ALLOC_GROW(im->frames, im->nr_frames + n, im->alloc_frames);
	s = &im->stacks[im->nr_stacks];
	s->hash = h;
	s->frames = im->nr_frames;
	s->nframes = n;
	s->flags = TK_RAW_SLOT_LEAF_IP;
	s->cpu_ns = weight;
	if (n)
		memcpy(&im->frames[im->nr_frames], f, n * sizeof(*f));
	im->nr_frames += n;
	im->slots[i] = (uint32_t)(im->nr_stacks + 1);
	im->nr_stacks++;
}

/* ---- records ---- */

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Unwinds with CFI from the sample's registers and stack copy; frames[0..n)
 * is the kernel's chain on entry, the result on return. Returns the number
 * of frames; *cut says on entry whether the chain lacks outer frames, on
 * return whether the result does (cut at TK_RAW_MAX_FRAMES, or the
 * chain's own cut when the result ends with the chain).
 */
static uint32_t unwind_sample(struct tk_perfrec *r, struct image *im, uint64_t *frames,
			      uint32_t n, const uint64_t *regs, unsigned nregs,
			      const unsigned char *stack, size_t stack_len, int *cut)
{
	uint64_t out[TK_RAW_MAX_FRAMES];
	struct tk_unwind_input in;
	struct tk_unwind_result res;
	uint64_t t0 = thread_ns(), t1;
	uint32_t got;

	if (!im->space) {
		im->space = tk_unwind_space_new(r->unw);
		im->space_stale = 1;
	}
	if (im->space_stale) {
		tk_unwind_space_update(im->space, im->mapped.maps, im->mapped.nr_maps);
		im->space_stale = 0;
	}
	t1 = thread_ns();
	r->space_ns += t1 - t0;
	in.regs = regs;
	in.nregs = nregs;
	in.stack = stack;
	in.stack_len = stack_len;
	in.chain = frames;
	in.nchain = n;
	got = tk_unwind(im->space, &in, out, TK_RAW_MAX_FRAMES, &res);
	r->unwind_ns += thread_ns() - t1;
	r->how[res.how]++;
	r->past_copy += res.past_copy;
	r->no_cfi += res.no_cfi;
	if (res.how == TK_UNWIND_PARTIAL) {
		r->partial_past_copy += res.past_copy;
		r->partial_no_cfi += res.no_cfi && !res.past_copy;
	}
	if (res.stack_used > r->stack_used_max)
		r->stack_used_max = res.stack_used;
	if (res.how == TK_UNWIND_COMPLETE) {
		unsigned k = 0;

		while (k < 7 && res.stack_used > (size_t)512 << k)
			k++;
		r->need[k]++;
	} else if (res.how != TK_UNWIND_CHAIN) {
		r->need[7]++;
	}
	if (res.how == TK_UNWIND_COMPLETE)
		*cut = res.cut;
	else
		*cut = *cut || res.cut;
	if (!got)
		return n;
	memcpy(frames, out, got * sizeof(*out));
	return got;
}

/* The layout follows attr.sample_type = IP | TID | TIME | PERIOD | CALLCHAIN
 * [| REGS_USER | STACK_USER]: ip, pid, tid, time, period, nr, ips[nr]
 * [, abi, regs[nregs] (when abi is not NONE), size, data[size], dyn_size
 * (when size is not 0)]. */
static void apply_sample(struct tk_perfrec *r, const unsigned char *p, uint32_t len,
			 int final)
{
	uint64_t frames[TK_RAW_MAX_FRAMES];
	uint64_t ip, t, period, nr, i;
	uint32_t n = 0, user = 0, cut = 0;
	const unsigned char *regs = NULL, *stack = NULL;
	uint64_t stack_len = 0;
	unsigned nregs = 0;
	long idx;
	int pid, chain_cut;
	struct image *im;

	if (len < 8 + 8 + 8 + 8 + 8 + 8)
		return;
	ip = rd64(p + 8);
	pid = (int)rd32(p + 16);
	t = rd64(p + 24);
	period = rd64(p + 32);
	nr = rd64(p + 40);
	if (nr > (len - 48) / 8)
		nr = (len - 48) / 8; /* cut short: keep what is there */
	r->samples++;
	for (i = 0; i < nr; i++) {
		uint64_t a = rd64(p + 48 + i * 8);

		if (a >= (uint64_t)PERF_CONTEXT_MAX)
			continue; /* PERF_CONTEXT_USER and friends */
		user++;
		if (n == 0 && a != ip)
			frames[n++] = ip;
		if (n < TK_RAW_MAX_FRAMES)
			frames[n++] = a;
		else
			cut = 1;
	}
	if (n == 0)
		frames[n++] = ip;
	if (r->regs_mask) {
		uint64_t off = 48 + nr * 8, size;

		if (off + 8 <= len && rd64(p + off) != PERF_SAMPLE_REGS_ABI_NONE) {
			off += 8;
			if (off + (uint64_t)r->nregs * 8 <= len) {
				regs = p + off;
				nregs = r->nregs;
			}
			off += (uint64_t)r->nregs * 8;
		} else {
			off += 8;
		}
		if (off + 8 <= len) {
			size = rd64(p + off);
			off += 8;
			if (size && off + size + 8 <= len) {
				stack = p + off;
				stack_len = rd64(p + off + size);
				if (stack_len > size)
					stack_len = size;
			}
		}
	}
	/* The kernel keeps the innermost frames too, and stops at
	 * kernel.perf_event_max_stack. */
	chain_cut = cut || (r->max_stack && user >= r->max_stack);
	idx = image_at(r, pid, t); /* may grow r->images */
	im = &r->images[idx];
	if (!final && !covered(im, frames[0]) && latest_image(r, pid) == im - r->images &&
	    !im->exited && im->proc_reads < PROC_MAPS_READS_MAX &&
	    (im->proc_reads == 0 || im->proc_read_round != r->round)) {
		im->proc_reads++;
		im->proc_read_round = r->round;
		read_proc_maps(r, im);
	}
	if (regs) {
		/* (a record is not always 8-byte aligned in the pending
		 * buffer) */
		uint64_t rv[32];
		unsigned k;

		for (k = 0; k < nregs && k < 32; k++)
			rv[k] = rd64(regs + 8 * k);
		n = unwind_sample(r, im, frames, n, rv, nregs < 32 ? nregs : 32, stack,
				  (size_t)stack_len, &chain_cut);
	}
	if (chain_cut)
		r->truncated++;
	add_sample(r, im, frames, n, (double)period);
}

static void apply_mmap2(struct tk_perfrec *r, const unsigned char *p, uint32_t len, uint64_t t)
{
	/* pid, tid, addr, len, pgoff, maj/min/ino/ino_generation or build id,
	 * prot, flags, filename */
	const size_t fixed = 8 + 8 + 8 + 8 + 8 + 24 + 8;
	uint64_t addr, mlen, pgoff;
	uint32_t prot;
	const char *fname;
	size_t fmax;
	struct image *im;
	char *path;
	long idx;

	if (len < fixed + 1)
		return;
	addr = rd64(p + 16);
	mlen = rd64(p + 24);
	pgoff = rd64(p + 32);
	prot = rd32(p + 64);
	fname = (const char *)p + fixed;
	fmax = len - fixed;
	if (!(prot & PROT_EXEC))
		return;
	path = tk_xstrndup(fname, strnlen(fname, fmax));
	idx = image_at(r, (int)rd32(p + 8), t); /* may grow r->images */
	im = &r->images[idx];
	if (!strcmp(path, "//anon") || !path[0]) {
		free(path);
		path = NULL;
	}
	tk_rawimage_add_map(&im->mapped, addr, addr + mlen, pgoff, path);
	if (path)
		im->space_stale = 1;
	if (im->name_from_map && path && path[0] == '/') {
		set_name(im, path);
		im->name_from_map = 0;
	}
	free(path);
}

static void apply_comm(struct tk_perfrec *r, const unsigned char *p, uint32_t len, uint64_t t,
		       int exec)
{
	int pid;
	struct image *im;
	size_t n;
	long i;

	if (len < 8 + 8 + 1)
		return;
	pid = (int)rd32(p + 8);
	if (exec) {
		/* The job's main process is first seen at its exec: that
		 * image is its seq 0. */
		i = new_image(r, pid, t ? t : 1);
		im = &r->images[i];
		im->name_from_map = 1;
	} else {
		if (pid != (int)rd32(p + 12))
			return; /* a thread renamed itself */
		i = image_at(r, pid, t); /* may grow r->images */
		im = &r->images[i];
	}
	n = strnlen((const char *)p + 16, len - 16);
	if (n > sizeof(im->comm) - 1)
		n = sizeof(im->comm) - 1;
	memcpy(im->comm, p + 16, n);
	im->comm[n] = '\0';
}

static void apply_fork(struct tk_perfrec *r, const unsigned char *p, uint32_t len)
{
	int pid, ppid;
	uint64_t t;
	long pi, ci, latest;
	struct image *parent, *child;
	size_t k;

	if (len < 8 + 24)
		return;
	pid = (int)rd32(p + 8);
	ppid = (int)rd32(p + 12);
	t = rd64(p + 24);
	if (pid == ppid)
		return; /* a new thread */
	latest = latest_image(r, pid);
	if (latest >= 0 && r->images[latest].start == 0 && !r->images[latest].name) {
		ci = latest; /* seen before its fork record: adopt it */
		r->images[ci].start = t;
	} else {
		/* (a reused pid counts on from the old one's seq, so that
		 * (pid, seq) stays unique) */
		ci = new_image(r, pid, t ? t : 1);
	}
	pi = image_at(r, ppid, t);
	parent = &r->images[pi];
	child = &r->images[ci];
	for (k = 0; k < parent->mapped.nr_maps; k++) {
		const struct tk_rawmap *m = &parent->mapped.maps[k];

		tk_rawimage_add_map(&child->mapped, m->start, m->end, m->pgoff, m->path);
	}
	if (parent->name && !child->name)
		child->name = tk_xstrdup(parent->name);
	memcpy(child->comm, parent->comm, sizeof(child->comm));
	child->name_from_map = 0;
}

static void apply_exit(struct tk_perfrec *r, const unsigned char *p, uint32_t len)
{
	long i;

	if (len < 8 + 24 || rd32(p + 8) != rd32(p + 16))
		return; /* a thread other than the main one */
	i = latest_image(r, (int)rd32(p + 8));
	if (i >= 0)
		r->images[i].exited = 1;
	/* A build runs thousands of short processes that are never sampled:
	 * their copies of the maps are not needed any more. */
	for (; i >= 0; i = r->images[i].prev) {
		struct image *im = &r->images[i];

		/* (a late sample builds it again) */
		tk_unwind_space_free(im->space);
		im->space = NULL;
		if (!im->nr_stacks)
			tk_rawimage_release(&im->mapped);
	}
}

static void apply(struct tk_perfrec *r, const unsigned char *p, uint32_t len, uint64_t t,
		  int final)
{
	uint32_t type = rd32(p);
	uint16_t misc;

	memcpy(&misc, p + 4, sizeof(misc));
	switch (type) {
	case PERF_RECORD_SAMPLE:
		apply_sample(r, p, len, final);
		break;
	case PERF_RECORD_MMAP2:
		apply_mmap2(r, p, len, t);
		break;
	case PERF_RECORD_COMM:
		apply_comm(r, p, len, t, (misc & PERF_RECORD_MISC_COMM_EXEC) != 0);
		break;
	case PERF_RECORD_FORK:
		apply_fork(r, p, len);
		break;
	case PERF_RECORD_EXIT:
		apply_exit(r, p, len);
		break;
	case PERF_RECORD_LOST:
		if (len >= 24)
			r->lost += rd64(p + 16);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (len >= 16)
			r->lost += rd64(p + 8);
		break;
	default:
		break;
	}
}

/* The time a record was written: the sample's own field, else the last
 * field of the sample_id trailer (sample_id_all with TID | TIME). */
static uint64_t record_time(const unsigned char *p, uint32_t len)
{
	if (rd32(p) == PERF_RECORD_SAMPLE)
		return len >= 32 ? rd64(p + 24) : 0;
	return len >= 24 ? rd64(p + len - 8) : 0;
}

static void keep(struct tk_perfrec *r, const unsigned char *p, uint32_t len)
{
	struct pend *pd;

	r->records++;
	r->bytes += len;
	TK_ALLOC_GROW(r->pend, r->nr_pend + 1, r->alloc_pend);
	pd = &r->pend[r->nr_pend++];
	pd->time = record_time(p, len);
	pd->order = r->order++;
	pd->off = r->pbytes.len;
	pd->len = len;
	tk_buf_add(&r->pbytes, p, len);
}

static void read_ring(struct tk_perfrec *r, struct ring *g)
{
	uint64_t head = __atomic_load_n(&g->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = g->meta->data_tail;

	if (head - tail > g->size) {
		/* cannot happen in non-overwrite mode; resynchronize */
		r->lost++;
		tail = head;
	}
	while (head - tail >= sizeof(struct perf_event_header)) {
		uint64_t off = tail & (g->size - 1);
		struct perf_event_header h;
		const unsigned char *p;

		if (off + sizeof(h) <= g->size) {
			memcpy(&h, g->data + off, sizeof(h));
		} else {
			size_t first = (size_t)(g->size - off);

			memcpy(&h, g->data + off, first);
			memcpy((unsigned char *)&h + first, g->data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail) {
			/* a damaged or cut record: skip what is left */
			r->lost++;
			tail = head;
			break;
		}
		if (off + h.size <= g->size) {
			p = g->data + off;
		} else {
			size_t first = (size_t)(g->size - off);

			memcpy(r->rec, g->data + off, first);
			memcpy(r->rec + first, g->data, h.size - first);
			p = r->rec;
		}
		keep(r, p, h.size);
		tail += h.size;
	}
	__atomic_store_n(&g->meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int pend_cmp(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void apply_pending(struct tk_perfrec *r, uint64_t upto, int final)
{
	size_t i, done = 0;
	struct tk_buf rest = TK_BUF_INIT;

	if (!r->nr_pend)
		return;
	qsort(r->pend, r->nr_pend, sizeof(*r->pend), pend_cmp);
	for (i = 0; i < r->nr_pend && r->pend[i].time <= upto; i++)
		apply(r, (const unsigned char *)r->pbytes.buf + r->pend[i].off, r->pend[i].len,
		      r->pend[i].time, final);
	done = i;
	for (i = done; i < r->nr_pend; i++) {
		size_t off = rest.len;

		tk_buf_add(&rest, r->pbytes.buf + r->pend[i].off, r->pend[i].len);
		r->pend[i - done] = r->pend[i];
		r->pend[i - done].off = off;
	}
	r->nr_pend -= done;
	tk_buf_release(&r->pbytes);
	r->pbytes = rest;
}

static void drain(struct tk_perfrec *r, int final)
{
	uint64_t upto = UINT64_MAX;
	unsigned i;
	int any = 0;

	if (!final && r->clock_mono)
		upto = mono_ns() - SETTLE_NS;
	for (i = 0; i < r->nrings; i++) {
		struct ring *g = &r->rings[i];

		if (!g->meta)
			continue;
		if (__atomic_load_n(&g->meta->data_head, __ATOMIC_ACQUIRE) != g->meta->data_tail) {
			read_ring(r, g);
			any = 1;
		}
	}
	if (any || r->nr_pend) {
		r->round++;
		apply_pending(r, upto, final);
	}
}

void tk_perfrec_drain(struct tk_perfrec *r)
{
	if (r)
		drain(r, 0);
}

/* ---- opening ---- */

static int online_cpus(int **cpus, unsigned *n)
{
	struct tk_buf b = TK_BUF_INIT;
	const char *p;
	size_t alloc = 0, nr = 0;

	*cpus = NULL;
	if (!tk_buf_read_file(&b, "/sys/devices/system/cpu/online", NULL)) {
		for (p = b.buf; *p && *p != '\n'; ) {
			char *end;
			long lo = strtol(p, &end, 10), hi, c;

			if (end == p)
				break;
			hi = lo;
			p = end;
			if (*p == '-') {
				hi = strtol(p + 1, &end, 10);
				p = end;
			}
			for (c = lo; c <= hi && c < 65536; c++) {
				TK_ALLOC_GROW(*cpus, nr + 1, alloc);
				(*cpus)[nr++] = (int)c;
			}
			if (*p == ',')
				p++;
		}
	}
	tk_buf_release(&b);
	if (!nr) {
		long c, max = sysconf(_SC_NPROCESSORS_CONF);

		for (c = 0; c < (max > 0 ? max : 1); c++) {
			TK_ALLOC_GROW(*cpus, nr + 1, alloc);
			(*cpus)[nr++] = (int)c;
		}
	}
	*n = (unsigned)nr;
	return 0;
}

static int open_error(int e, pid_t child, struct tk_err *err)
{
	long paranoid = read_long_file("/proc/sys/kernel/perf_event_paranoid", -100);

	switch (e) {
	case EACCES:
	case EPERM:
		if (paranoid > 2)
			return tk_err_set(err, TK_EUNAVAIL,
					  "perf_event_open not permitted: kernel.perf_event_paranoid is %ld "
					  "(user-space sampling needs 2 or less)", paranoid);
		return tk_err_set(err, TK_EUNAVAIL,
				  "perf_event_open not permitted on process %d (%s): a seccomp filter, "
				  "a security module, or no ptrace access to it "
				  "(kernel.perf_event_paranoid is %ld)", (int)child, strerror(e), paranoid);
	case ENOSYS:
		return tk_err_set(err, TK_EUNAVAIL,
				  "perf_event_open is not available: %s (a kernel without perf events, "
				  "or a seccomp filter)", strerror(e));
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
	case EINVAL:
		return tk_err_set(err, TK_EUNAVAIL,
				  "perf_event_open cannot sample the task clock here: %s", strerror(e));
	case ESRCH:
		return tk_err_set(err, TK_EUNAVAIL, "perf_event_open: no process %d", (int)child);
	case EMFILE:
	case ENFILE:
		return tk_err_set(err, TK_EUNAVAIL, "perf_event_open: out of file descriptors");
	default:
		return tk_err_set(err, TK_EUNAVAIL, "perf_event_open failed on process %d: %s",
				  (int)child, strerror(e));
	}
}

static int map_ring(struct ring *g, long page, unsigned pages, struct tk_err *err)
{
	unsigned n;

	for (n = pages; n >= RING_PAGES_MIN; n /= 2) {
		size_t len = (size_t)(n + 1) * (size_t)page;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, g->fd, 0);

		if (m == MAP_FAILED) {
			if (errno == EPERM || errno == ENOMEM)
				continue;
			return tk_err_set(err, TK_EUNAVAIL, "cannot map the perf ring buffer of cpu %d: %s",
					  g->cpu, strerror(errno));
		}
		g->meta = m;
		g->data = (unsigned char *)m + page;
		g->size = (uint64_t)n * (uint64_t)page;
		g->map_len = len;
		return 0;
	}
	return tk_err_set(err, TK_EUNAVAIL,
			  "cannot map the perf ring buffer of cpu %d: %s (kernel.perf_event_mlock_kb "
			  "and RLIMIT_MEMLOCK are used up)", g->cpu, strerror(errno));
}

static void init_attr(struct perf_event_attr *a, unsigned hz, unsigned max_stack, int clock,
		      uint64_t regs_mask, unsigned stack_bytes)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	/* A period rather than freq: the kernel turns a frequency into this
	 * same fixed period for the hrtimer-driven clock events anyway, and a
	 * period is not subject to perf_event_max_sample_rate. */
	a->sample_period = 1000000000ull / hz;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	a->disabled = 1;
	a->inherit = 1;
	a->enable_on_exec = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->task = 1;
	a->sample_id_all = 1;
	if (clock) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
	if (max_stack > TK_RAW_MAX_FRAMES)
		a->sample_max_stack = TK_RAW_MAX_FRAMES;
	if (regs_mask && stack_bytes) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = regs_mask;
		a->sample_stack_user = stack_bytes;
	}
}

static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	return (int)syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * The stack copy that leaves room in a ring of ring bytes for two drains'
 * worth (0.2 s) of samples at hz, at most want; 0 when that is below
 * STACK_MIN.
 */
static unsigned stack_for_ring(unsigned hz, uint64_t ring, unsigned want)
{
	uint64_t per = ring * 5 / hz;

	if (per <= SAMPLE_FIXED)
		return 0;
	per = (per - SAMPLE_FIXED) & ~(uint64_t)511;
	if (per > want)
		per = want;
	return per >= STACK_MIN ? (unsigned)per : 0;
}

static int refused_errno(int e)
{
	return e == EINVAL || e == EOPNOTSUPP || e == ENOTSUP || e == ENOSYS;
}

/*
 * Opens the event on one cpu. On the first one, settles what the kernel
 * accepts: stack copies (else frame-pointer chains, remembering why) and
 * the monotonic clock (not before Linux 4.1).
 */
static int open_cpu(struct tk_perfrec *r, pid_t child, int cpu, int first)
{
	struct perf_event_attr attr;
	int fd, e;

	for (;;) {
		init_attr(&attr, r->hz, r->max_stack, r->clock_mono, r->regs_mask, r->stack_bytes);
		fd = perf_open(&attr, child, cpu);
		if (fd >= 0 || !first)
			return fd;
		e = errno;
		if (!refused_errno(e))
			return fd;
		if (r->regs_mask) {
			/* is it the stack copies? */
			init_attr(&attr, r->hz, r->max_stack, r->clock_mono, 0, 0);
			fd = perf_open(&attr, child, cpu);
			if (fd >= 0) {
				r->dwarf_errno = e;
				r->regs_mask = 0;
				r->stack_bytes = 0;
				return fd;
			}
		}
		if (!r->clock_mono) {
			errno = e;
			return -1;
		}
		r->clock_mono = 0;
	}
}

int tk_perfrec_open(struct tk_perfrec **out, pid_t child, unsigned hz, struct tk_err *err)
{
	struct tk_perfrec_opts o;

	memset(&o, 0, sizeof(o));
	o.hz = hz;
	return tk_perfrec_open_opts(out, child, &o, err);
}

int tk_perfrec_open_opts(struct tk_perfrec **out, pid_t child, const struct tk_perfrec_opts *o,
			 struct tk_err *err)
{
	struct tk_perfrec *r;
	long page = sysconf(_SC_PAGESIZE);
	int *cpus = NULL, ret = 0, resized = 0;
	unsigned ncpus = 0, i, pages, hz = o->hz, want;

	*out = NULL;
	if (hz < 1 || hz > 100000)
		return tk_err_set(err, TK_EUSAGE, "cpu sampling rate %u Hz is out of range (1 to 100000)",
				  hz);
	if (page <= 0)
		page = 4096;
	online_cpus(&cpus, &ncpus);
	r = tk_xcalloc(1, sizeof(*r));
	r->rings = tk_xcalloc(ncpus, sizeof(*r->rings));
	r->rec = tk_xmalloc(MAX_RECORD);
	tk_buf_init(&r->pbytes, 0);
	tk_buf_init(&r->line, 0);
	r->max_stack = (unsigned)read_long_file("/proc/sys/kernel/perf_event_max_stack", 127);
	r->clock_mono = 1;
	r->hz = hz;
	want = o->stack_bytes < 0 ? 0 : o->stack_bytes ? (unsigned)o->stack_bytes : STACK_DEFAULT;
	r->regs_mask = want ? tk_unwind_perf_regs() : 0;
	r->no_unwinder = want && tk_unwind_missing() != NULL;
	pages = r->regs_mask ? RING_PAGES_DWARF : RING_PAGES_MAX;
	if (r->regs_mask) {
		/* an explicit size goes to the kernel as is */
		r->stack_bytes = o->stack_bytes > 0 ? want :
			stack_for_ring(hz, (uint64_t)pages * (uint64_t)page, want);
		if (!r->stack_bytes) {
			r->regs_mask = 0;
			r->stack_rate_off = 1;
		}
	}
	for (i = 0; i < ncpus; i++) {
		struct ring *g = &r->rings[r->nrings];
		int fd, first = r->nrings == 0;

		fd = open_cpu(r, child, cpus[i], first);
		if (fd < 0) {
			if (errno == ENODEV && r->nrings)
				continue; /* went offline */
			ret = open_error(errno, child, err);
			goto fail;
		}
		if (first && !r->regs_mask)
			pages = RING_PAGES_MAX;
		g->fd = fd;
		g->cpu = cpus[i];
		ret = map_ring(g, page, pages, err);
		if (ret) {
			close(fd);
			goto fail;
		}
		if (first && r->regs_mask && o->stack_bytes <= 0 && !resized &&
		    g->size < (uint64_t)pages * (uint64_t)page) {
			/* a smaller ring than planned (the locked-memory budget
			 * is partly used): smaller copies, opened again */
			unsigned sb = stack_for_ring(hz, g->size, want);

			resized = 1;
			if (sb != r->stack_bytes) {
				munmap(g->meta, g->map_len);
				close(fd);
				memset(g, 0, sizeof(*g));
				r->stack_bytes = sb;
				if (!sb) {
					r->regs_mask = 0;
					r->stack_rate_off = 1;
				}
				i--;
				continue;
			}
		}
		pages = (unsigned)(g->size / (uint64_t)page);
		r->nrings++;
	}
	if (!r->nrings) {
		ret = tk_err_set(err, TK_EUNAVAIL, "perf_event_open: no online cpu");
		goto fail;
	}
	if (r->regs_mask) {
		uint64_t m;

		for (m = r->regs_mask; m; m &= m - 1)
			r->nregs++;
		r->unw = tk_unwinder_new();
	}
	free(cpus);
	*out = r;
	return 0;
fail:
	free(cpus);
	tk_perfrec_free(r);
	return ret;
}

int tk_perfrec_probe(struct tk_err *err)
{
	struct perf_event_attr attr;
	struct ring g;
	long page = sysconf(_SC_PAGESIZE);
	int *cpus = NULL, ret;
	unsigned ncpus = 0;
	unsigned max_stack = (unsigned)read_long_file("/proc/sys/kernel/perf_event_max_stack", 127);

	if (page <= 0)
		page = 4096;
	online_cpus(&cpus, &ncpus);
	memset(&g, 0, sizeof(g));
	g.cpu = ncpus ? cpus[0] : 0;
	free(cpus);
	init_attr(&attr, 99, max_stack, 1, 0, 0);
	g.fd = perf_open(&attr, 0, g.cpu);
	if (g.fd < 0 && errno == EINVAL) {
		init_attr(&attr, 99, max_stack, 0, 0, 0);
		g.fd = perf_open(&attr, 0, g.cpu);
	}
	if (g.fd < 0)
		return open_error(errno, getpid(), err);
	ret = map_ring(&g, page, RING_PAGES_MAX, err);
	if (!ret)
		munmap(g.meta, g.map_len);
	close(g.fd);
	return ret;
}

/* ---- finishing ---- */

static void close_rings(struct tk_perfrec *r)
{
	unsigned i;

	for (i = 0; i < r->nrings; i++) {
		struct ring *g = &r->rings[i];

		if (g->meta)
			munmap(g->meta, g->map_len);
		if (g->fd >= 0)
			close(g->fd);
		g->meta = NULL;
		g->fd = -1;
	}
}

int tk_perfrec_finish(struct tk_perfrec *r, struct tk_rawset *out, struct tk_err *err)
{
	double v[TK_RAW_NVALUES];
	size_t i, k;

	if (!r)
		return tk_err_set(err, TK_EINTERNAL, "no perf recorder to finish");
	drain(r, 1);
	close_rings(r);
	memset(v, 0, sizeof(v));
	for (i = 0; i < r->nr_images; i++) {
		struct image *im = &r->images[i];
		struct tk_rawimage *o;

		if (!im->nr_stacks)
			continue;
		o = tk_rawset_add_image(out, im->pid, im->seq,
					im->name ? im->name : im->comm[0] ? im->comm : NULL);
		/* the maps are the rawset's form already: hand them over */
		o->maps = im->mapped.maps;
		o->nr_maps = im->mapped.nr_maps;
		im->mapped.maps = NULL;
		im->mapped.nr_maps = 0;
		for (k = 0; k < im->nr_stacks; k++) {
			const struct stk *st = &im->stacks[k];

			v[TK_RAW_CPU_NS] = st->cpu_ns;
			tk_rawimage_add_stack(o, &im->frames[st->frames], st->nframes, st->flags, v);
		}
	}
	out->cpu_lost += r->lost;
	out->truncated += r->truncated;
	out->unwinders |= TK_RAW_UNW_FP;
	return 0;
}

void tk_perfrec_stats(const struct tk_perfrec *r, struct tk_perfrec_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!r)
		return;
	st->ncpus = r->nrings;
	st->records = r->records;
	st->bytes = r->bytes;
	st->samples = r->samples;
	st->lost = r->lost;
	st->proc_maps_reads = r->proc_reads;
	st->ring_bytes = r->nrings ? (size_t)r->rings[0].size : 0;
	st->stack_bytes = r->regs_mask ? r->stack_bytes : 0;
	st->stack_refused = r->dwarf_errno;
	st->complete = r->how[TK_UNWIND_COMPLETE];
	st->spliced = r->how[TK_UNWIND_SPLICED];
	st->partial = r->how[TK_UNWIND_PARTIAL];
	st->chain = r->how[TK_UNWIND_CHAIN];
	st->past_copy = r->past_copy;
	st->no_cfi = r->no_cfi;
	st->unwind_ns = r->unwind_ns;
	st->space_ns = r->space_ns;
	st->stack_used_max = r->stack_used_max;
	memcpy(st->need, r->need, sizeof(st->need));
}

static double pct(unsigned long long a, unsigned long long b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

int tk_perfrec_note(const struct tk_perfrec *r, struct tk_buf *msg)
{
	unsigned long long n, part;
	const char *sep = "";

	if (!r || !r->samples)
		return 0;
	if (r->dwarf_errno || r->stack_rate_off) {
		if (r->dwarf_errno)
			tk_buf_addf(msg, "the kernel refused user stack copies (%s)",
				    strerror(r->dwarf_errno));
		else
			tk_buf_addf(msg, "at %u Hz the perf rings have no room for stack copies", r->hz);
		tk_buf_adds(msg, ": CPU call paths follow frame pointers only and lose the callers "
			    "of functions built without them; build with -fno-omit-frame-pointer, "
			    "or use --cpu-sampler timer");
		return 1;
	}
	if (r->no_unwinder) {
		tk_buf_addf(msg, "%s: CPU call paths follow frame pointers only and lose the "
			    "callers of functions built without them; build with "
			    "-fno-omit-frame-pointer, or use --cpu-sampler timer", tk_unwind_missing());
		return 1;
	}
	if (!r->regs_mask)
		return 0;
	n = r->how[TK_UNWIND_COMPLETE] + r->how[TK_UNWIND_SPLICED] + r->how[TK_UNWIND_PARTIAL] +
		r->how[TK_UNWIND_CHAIN];
	part = r->how[TK_UNWIND_PARTIAL];
	/* a few samples in hand-written code or a prologue without CFI are
	 * no reason to doubt the profile */
	if (!n || part * 20 <= n)
		return 0;
	tk_buf_addf(msg, "CPU call paths are partial in %.0f%% of the samples (", pct(part, n));
	if (r->partial_past_copy) {
		tk_buf_addf(msg, "%.0f%% deeper than the %u-byte stack copy",
			    pct(r->partial_past_copy, n), r->stack_bytes);
		sep = ", ";
	}
	if (r->partial_no_cfi) {
		tk_buf_addf(msg, "%s%.0f%% in code without unwind tables", sep,
			    pct(r->partial_no_cfi, n));
		sep = ", ";
	}
	if (part > r->partial_past_copy + r->partial_no_cfi)
		tk_buf_addf(msg, "%s%.0f%% for other reasons", sep,
			    pct(part - r->partial_past_copy - r->partial_no_cfi, n));
	tk_buf_adds(msg, "): their outer callers are missing; build with -fno-omit-frame-pointer");
	if (r->partial_no_cfi)
		tk_buf_adds(msg, " or keep .eh_frame (no -fno-asynchronous-unwind-tables)");
	tk_buf_adds(msg, ", or use --cpu-sampler timer");
	return 1;
}

void tk_perfrec_free(struct tk_perfrec *r)
{
	size_t i;

	if (!r)
		return;
	close_rings(r);
	for (i = 0; i < r->nr_images; i++) {
		struct image *im = &r->images[i];

		tk_unwind_space_free(im->space);
		tk_rawimage_release(&im->mapped);
		free(im->name);
		free(im->stacks);
		free(im->slots);
		free(im->frames);
	}
	free(r->images);
	free(r->pids);
	free(r->pend);
	free(r->rings);
	free(r->rec);
	tk_buf_release(&r->pbytes);
	tk_buf_release(&r->line);
	tk_unwinder_free(r->unw);
	free(r);
}
