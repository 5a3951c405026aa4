#ifndef TK_RAWPROF_H
#define TK_RAWPROF_H
/*
 * Raw profiles: stacks of machine addresses with the memory maps needed
 * to name them, as the built-in profiler collects them. Two producers:
 *
 * - the preload library (plugins/preload), which writes one table file
 *   per process image into the directory TRACKER_PROFILE_DIR names;
 * - the wrapper's perf_event_open recorder (core/measure/perfrec), which builds
 *   the same in-memory form from the kernel's samples.
 *
 * Symbolization happens afterwards, in the wrapper (core/measure/symbolize), so
 * the profiled process never pays for it.
 *
 * On disk, per process image (pid, and seq counting the execs of that pid
 * from 0):
 *
 *   <pid>.<seq>.tkraw  the stack table: a fixed-size file the process
 *                      maps MAP_SHARED and updates in place, so whatever
 *                      it recorded survives any end of the process,
 *                      SIGKILL included. Layout: struct tk_raw_header at
 *                      0, nslots struct tk_raw_slot at header_size, the
 *                      frames region (uint64_t addresses) at frames_off.
 *   <pid>.<seq>.maps   snapshots of /proc/self/maps, appended, each
 *                      starting with a line "# snapshot"; a later snapshot
 *                      wins where two disagree.
 *
 * The layout is native-endian: the files never leave the machine before
 * they are read.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/err.h"

#define TK_RAW_MAGIC "TKRAW\001\n"   /* 8 bytes with the NUL */
#define TK_RAW_VERSION 1
#define TK_RAW_HEADER_SIZE 4096
#define TK_RAW_MAX_FRAMES 128        /* deeper stacks keep the innermost */

/* The environment the wrapper gives the job (and its children). */
#define TK_RAW_ENV_DIR "TRACKER_PROFILE_DIR"
#define TK_RAW_ENV_SAMPLE_BYTES "TRACKER_PROFILE_SAMPLE_BYTES" /* 0: alloc off; 1: exact */
#define TK_RAW_ENV_CPU_HZ "TRACKER_PROFILE_CPU_HZ"   /* 0/unset: no timer CPU sampling */
#define TK_RAW_ENV_UNWIND "TRACKER_PROFILE_UNWIND"   /* auto (default), fp, libunwind */
#define TK_RAW_ENV_SEED "TRACKER_PROFILE_SEED"       /* sampling seed; unset: random */

struct tk_raw_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;     /* byte offset of the slots */
	int32_t pid;
	int32_t ppid;
	uint32_t seq;
	uint32_t nslots;          /* a power of two */
	uint64_t frames_off;      /* byte offset of the frames region */
	uint64_t frames_cap;      /* its capacity, in frames */
	uint64_t frames_used;     /* atomic; frames appended so far */
	uint64_t sample_bytes;    /* mean sampling interval; 1 exact; 0 off */
	uint64_t cpu_period_ns;   /* timer CPU sampling period; 0 off */
	uint64_t dropped;         /* samples lost: the table was full */
	uint64_t cpu_lost;        /* CPU samples lost (taken inside the profiler) */
	uint64_t truncated;       /* stacks cut at TK_RAW_MAX_FRAMES */
	uint32_t flags;           /* TK_RAW_F_* */
	uint32_t reserved;
	char unwinder[16];        /* "fp", "libunwind", "fp+libunwind" */
	char comm[16];
	char exe[1024];           /* readlink("/proc/self/exe") */
};

#define TK_RAW_F_EXITED 1u    /* the process reached exit or exec cleanly */
#define TK_RAW_F_MALLOC 2u    /* the process called the malloc family */

/* One distinct stack and what was measured at it. 64 bytes. */
struct tk_raw_slot {
	uint64_t hash;            /* 0: empty; written last, release order */
	uint64_t frames;          /* index of its first frame in the frames region */
	uint32_t nframes;         /* innermost first */
	uint32_t flags;           /* TK_RAW_SLOT_* */
	double alloc_bytes;       /* unbiased estimate of the bytes allocated */
	double alloc_count;       /* unbiased estimate of the allocations */
	double live_bytes;        /* sampled bytes still live (scratch) */
	double peak_live_bytes;   /* the most live_bytes ever reached */
	double cpu_ns;            /* CPU time sampled here */
};

/* frames[0] is the interrupted instruction (a CPU sample), not a return
 * address: symbolize it as is rather than as the call before it. */
#define TK_RAW_SLOT_LEAF_IP 1u

/* ---- the in-memory form, shared by the reader and core/measure/perfrec ---- */

enum tk_raw_value {
	TK_RAW_ALLOC_BYTES,       /* kind "alloc", bytes */
	TK_RAW_ALLOC_COUNT,       /* kind "alloc_count", count */
	TK_RAW_PEAK_LIVE,         /* kind "heap_peak", bytes */
	TK_RAW_CPU_NS,            /* kind "cpu", nanoseconds */
	TK_RAW_NVALUES
};

struct tk_rawmap {
	uint64_t start, end;      /* [start, end) */
	uint64_t pgoff;           /* file offset of start */
	char *path;               /* NULL for anonymous memory */
};

struct tk_rawstack {
	uint64_t *frames;         /* innermost first */
	uint32_t nframes;
	uint32_t flags;           /* TK_RAW_SLOT_* */
	double v[TK_RAW_NVALUES];
};

struct tk_rawimage {
	int pid;
	unsigned seq;
	char *name;               /* the root frame: basename of the executable */
	struct tk_rawmap *maps;   /* executable mappings, sorted by start */
	size_t nr_maps;
	struct tk_rawstack *stacks;
	size_t nr_stacks;
};

struct tk_rawset {
	struct tk_rawimage *images;
	size_t nr_images;
	uint64_t dropped, cpu_lost, truncated;
	unsigned unwinders;       /* TK_RAW_UNW_* seen */
	size_t malloc_tables;     /* tables of processes that called malloc */
};

#define TK_RAW_UNW_FP 1u
#define TK_RAW_UNW_LIBUNWIND 2u

/* Names of the kinds each value is stored as, and their units. */
const char *tk_raw_kind(enum tk_raw_value v);

/*
 * A rawset owns everything it points to, all malloc'd: the images, each
 * image's name, maps (and their paths) and stacks (and each stack's
 * frames, one allocation per stack). tk_rawset_release frees it all, so a
 * producer that fills a rawset by hand must allocate the same way, or use
 * the helpers below (not both on one array: the helpers keep each array's
 * allocation a power of two of at least 16 entries, having no capacity
 * field to go by).
 */
void tk_rawset_init(struct tk_rawset *s);
void tk_rawset_release(struct tk_rawset *s);

/* Appends an empty image named name (copied; NULL: "[unknown]"). The
 * pointer is valid until the next call on s. */
struct tk_rawimage *tk_rawset_add_image(struct tk_rawset *s, int pid, unsigned seq,
					const char *name);

/* Appends a stack (frames copied, innermost first). */
void tk_rawimage_add_stack(struct tk_rawimage *im, const uint64_t *frames, uint32_t nframes,
			   uint32_t flags, const double v[TK_RAW_NVALUES]);

/* Frees what the image holds and empties it (for an image of one's own;
 * tk_rawset_release releases a set's). */
void tk_rawimage_release(struct tk_rawimage *im);

/* The mapping holding addr, or NULL. */
const struct tk_rawmap *tk_rawimage_find_map(const struct tk_rawimage *im, uint64_t addr);

/*
 * One /proc/<pid>/maps line: "start-end perms offset dev inode path".
 * Returns 1 when it is an executable mapping with a path (filled in), 0
 * when it is some other valid mapping, -1 when it does not parse.
 */
int tk_rawmaps_parse_line(const char *line, uint64_t *start, uint64_t *end, uint64_t *pgoff,
			  const char **path);

/* Adds the mapping [start, end) of path (copied) at file offset pgoff; it
 * replaces whatever part of an earlier mapping it overlaps, and the maps
 * stay sorted and disjoint. An empty range is ignored. */
void tk_rawimage_add_map(struct tk_rawimage *im, uint64_t start, uint64_t end, uint64_t pgoff,
			 const char *path);

/*
 * Reads every <pid>.<seq>.tkraw/.maps pair in dir into s (appending),
 * images sorted by pid then seq. A damaged or truncated file is skipped,
 * or only its trustworthy stacks read, with a warning appended to
 * warnings (may be NULL): one line per file, "'<path>' offset N: <first
 * problem> (and K more problems)". A missing maps file leaves addresses
 * unnamed. Returns 0, or TK_EUNAVAIL when dir cannot be read.
 */
struct tk_buf;
int tk_rawset_read_dir(struct tk_rawset *s, const char *dir, struct tk_buf *warnings,
		       struct tk_err *err);

#endif
