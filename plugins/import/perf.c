/*
 * `perf script` text, collapsed the way FlameGraph's stackcollapse-perf.pl
 * does it (the reference for every choice below; its golden outputs are
 * the tests). A sample is a header line
 *
 *     java 12688/12764 [002] 6544038.708352: 235 cpu-clock:
 *
 * (comm, which may contain spaces, then pid/tid or tid, then anything up
 * to an optional period and the event name), followed by one stack line
 * per frame, leaf first,
 *
 *     	    7f1e214c24d9 SpinPause+0x1f (/usr/lib/jvm/libjvm.so)
 *
 * and a blank line. The stack is stored root first under a frame named
 * after the comm ("comm-pid" with pid_frames, "comm-pid/tid" with
 * tid_frames; '?' stands for a pid the header does not give).
 *
 * Like stackcollapse-perf.pl:
 *  - only samples of one event are kept: opts->event, or the first event
 *    seen (a user-given name also matches "name:modifiers");
 *  - the weight is the header's period when it has one, else 1 (opts->kind
 *    "samples" counts 1 per sample instead);
 *  - names are tidied: "+0x1f" offsets stripped, everything from the first
 *    '(' dropped (arguments) except in Go method names such as
 *    "net/http.(*Client).Do" and in "(anonymous namespace)", quotes
 *    removed, ';' turned into ':', "[unknown]" replaced by "[dso]" when
 *    the dso is known, Java "Lpkg/Class;" prefixes cleaned;
 *  - inlined frames ("a->b") become separate frames marked "_[i]".
 * Kernel frames get "_[k]" and JIT frames (/tmp/perf-PID.map) "_[j]", as
 * with stackcollapse-perf.pl --all; opts->kind "plain" turns that off.
 * A last sample that no blank line ends is dropped, as the Perl script
 * does: perf script always ends a sample with one, so the file was cut
 * and the stack may be incomplete (the profile's warning says so).
 * Differences: a header line straight after a stack ends the previous
 * sample (the Perl script would glue the stacks), a one-character comm
 * is accepted, and event names are compared by length, so one holding a
 * NUL byte matches itself.
 */
#include "plugins/import/importers.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/demangle.h"
#include "core/model/import.h"
#include "core/base/banned.h"

/*
 * The input is read in segments of about SEGMENT_BYTES, each cut where a
 * sample begins (before a blank line or a header line: both end the
 * sample before them), so a segment parses alone: two threads (one when
 * the process may run on one CPU) take them in turn, each into its own
 * tree, and the trees are added up at the end in the file's order
 * (add_in_order), so the result does not depend on who read what (a
 * node's weight is its thread's sum over its segments: exact for integer
 * periods while it stays under 2^53, past which the order of the
 * additions may move its last digits). What crosses a cut is settled
 * while the segments are handed out
 * (under the lock): the event kept, when it is the first one seen, and
 * the lines before a segment, added to its line numbers at the end, so
 * that warnings and errors name the same lines as a one-pass reading
 * and the first error in the file is the one reported. A segment with
 * no place to cut within SEGMENT_MAX bytes (a giant sample, or no
 * samples at all) makes the thread that read it finish the input alone,
 * line by line as the reader does, under the reader's line limit.
 *
 * Most of the work is tidying frame names: each thread keeps the names
 * a stack line gave (after its address: the symbol, offset and dso,
 * which recur in every sample) in a cache of at most CACHE_BYTES of
 * line text, emptied when full and given up when it rarely finds a line.
 */
#define SEGMENT_BYTES (4u << 20)
#define SEGMENT_MAX (64u << 20)
#define MAX_THREADS 2
#define CACHE_BYTES (8u << 20)
#define CACHE_MAX_KEY 4096
#define CACHE_TRIAL 65536       /* lookups before judging the hit rate */
#define CACHE_MAX_IDS 255

struct cache_slot {
	uint64_t hash;          /* 0: empty */
	uint32_t key_off, key_len;
	uint32_t ids_off;
	uint16_t nr_ids;
	uint8_t java;
};

struct line_cache {
	struct cache_slot *slots;
	size_t mask, used;
	/* Lines looked up and found since the cache was last emptied: one
	 * that finds fewer than half of CACHE_TRIAL or more is given up. */
	uint64_t lookups, hits;
	int off;
	struct tk_buf keys;
	uint32_t *ids;
	size_t nr_ids, alloc_ids;
};

struct perf_seg {
	uint64_t lines;              /* lines in the segment */
	uint64_t first_unrecognized; /* its line number in the segment; 0: none */
	uint64_t dropped;            /* the header of a sample cut by the end of input */
	int ret;
	uint64_t err_line;           /* 0: msg is the whole message */
	char *msg;                   /* after "'name' line N" */
	/* the periods of its samples added up (those before the sum
	 * passed the cap, when sum_over): the whole file's sum is checked
	 * in file order from these, so its error does not depend on which
	 * thread read which segment */
	double sum;
	int sum_over;
};

/* After segment seq, a thread's tree had this many names and nodes. */
struct perf_mark {
	size_t seq;
	uint32_t names, nodes;
};

struct perf_shared {
	pthread_mutex_t lock;
	struct tk_reader *in;
	const struct tk_import_opts *opts;
	int annotate;           /* _[k] and _[j] */
	int count_samples;      /* weight 1, not the period */
	char *event;            /* the event kept; NULL until known */
	size_t event_len;
	int event_given;        /* from opts: matches name:modifiers too */
	char *carry;            /* read past the last cut */
	size_t carry_len, carry_alloc;
	size_t segment_bytes;   /* SEGMENT_BYTES; tests make them small */
	size_t segment_max;     /* SEGMENT_MAX */
	int done;               /* the last segment is handed out */
	int stop;               /* a segment failed: hand out no more */
	struct perf_seg *segs;  /* by sequence number */
	size_t nr_segs, alloc_segs;
};

struct perf_state {
	struct perf_shared *sh;
	struct tk_profile *p;   /* the output, or own */
	struct tk_profile own;
	int alone;              /* reading the rest alone, the lock held */
	int in_sample;          /* a header of the kept event was seen */
	int is_java;            /* comm starts with "java" */
	uint32_t root;          /* name id of the comm frame */
	double weight;
	uint32_t *frames;       /* name ids, leaf first */
	size_t nr_frames, alloc_frames;
	uint32_t *path;         /* root first, for tk_profile_add_stack */
	size_t alloc_path;
	struct tk_buf name;     /* scratch */
	struct line_cache cache;
	unsigned long long samples, other_events, unrecognized;
	int any_period;
	/* the segment being parsed */
	uint64_t line, header_line, first_unrecognized;
	double seg_sum;
	int sum_over;           /* the sum of this thread's tree passed the cap */
	uint64_t err_line;
	struct tk_err err;
	char *buf;
	size_t buf_alloc;
	struct perf_mark *marks;
	size_t nr_marks, alloc_marks;
	pthread_t thread;
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_word(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int has(const char *s, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	return n <= len && memmem(s, len, needle, n) != NULL;
}

struct header {
	const char *comm;
	size_t comm_len;
	const char *pid, *tid;  /* digits; pid NULL: only a tid was given */
	size_t pid_len, tid_len;
	const char *event;      /* NULL: none found */
	size_t event_len;
	double period;          /* 0: none */
};

/*
 * "comm pid/tid ...": the comm is the shortest prefix (at least one
 * character, starting with a non-space) followed by whitespace, digits,
 * optional "/digits" and whitespace. Returns 1 on a match.
 */
static int parse_comm(const char *s, size_t len, struct header *h)
{
	size_t i;

	if (!len || is_space(s[0]))
		return 0;
	for (i = 1; i < len; i++) {
		size_t j = i, d1, d2, t1, t2;

		if (!is_space(s[i]))
			continue;
		while (j < len && is_space(s[j]))
			j++;
		d1 = j;
		while (j < len && is_digit(s[j]))
			j++;
		/* On failure the next candidate blank is past j: keeps it linear. */
		if (j == d1) {
			i = j;
			continue;
		}
		d2 = j;
		while (j < len && s[j] == '/')
			j++;
		t1 = j;
		while (j < len && is_digit(s[j]))
			j++;
		t2 = j;
		if (j >= len || !is_space(s[j])) {
			i = j;
			continue;
		}
		h->comm = s;
		h->comm_len = i;
		/* Perl's "not $tid": a missing tid or "0" means "tid only". */
		if (t2 > t1 && !(t2 - t1 == 1 && s[t1] == '0')) {
			h->pid = s + d1;
			h->pid_len = d2 - d1;
			h->tid = s + t1;
			h->tid_len = t2 - t1;
		} else {
			h->pid = NULL;
			h->pid_len = 0;
			h->tid = s + d1;
			h->tid_len = d2 - d1;
		}
		return 1;
	}
	return 0;
}

/* "...: [period] event:" at the end of the line. */
static void parse_event(const char *s, size_t len, struct header *h)
{
	size_t end = len, k, i, digits_end;

	h->event = NULL;
	h->period = 0;
	while (end && is_space(s[end - 1]))
		end--;
	if (end < 2 || s[end - 1] != ':')
		return;
	k = end - 1;
	while (k && !is_space(s[k - 1]))
		k--;
	if (k == end - 1 || !k)
		return;
	i = k;
	while (i && is_space(s[i - 1]))
		i--;
	digits_end = i;
	while (i && is_digit(s[i - 1]))
		i--;
	if (i < digits_end) {
		size_t j = i;

		while (j && is_space(s[j - 1]))
			j--;
		if (!j || s[j - 1] != ':') {
			return; /* not a period: "comm 3244 event:" */
		} else {
			size_t d;
			double v = 0;

			for (d = i; d < digits_end; d++)
				v = v * 10 + (s[d] - '0');
			h->period = v;
		}
	} else if (!i || s[i - 1] != ':') {
		return;
	}
	h->event = s + k;
	h->event_len = end - 1 - k;
}

/* By length, not strlen: an event name with a NUL byte matches itself. */
static int event_matches(const struct perf_shared *sh, const char *ev, size_t len)
{
	size_t n = sh->event_len;

	if (len == n && !memcmp(ev, sh->event, n))
		return 1;
	return sh->event_given && len > n && ev[n] == ':' && !memcmp(ev, sh->event, n);
}

/*
 * Errors name the line in the segment (st->err_line) and say the rest;
 * "'name' line N" goes in front once the lines before the segment are
 * counted (perf_parse).
 */
static int frame_error(struct perf_state *st, const char *what)
{
	st->err_line = st->line;
	return tk_err_set(&st->err, TK_EDATA, ": %s", what);
}

static int start_sample(struct perf_state *st, const struct header *h)
{
	struct perf_shared *sh = st->sh;
	struct tk_buf *b = &st->name;
	size_t i;

	if (h->event) {
		/* A segment handed out is scanned for the event first (under
		 * the lock); the thread reading the rest alone holds it. */
		if (!sh->event && st->alone) {
			sh->event = tk_xstrndup(h->event, h->event_len);
			sh->event_len = h->event_len;
		} else if (sh->event && !event_matches(sh, h->event, h->event_len)) {
			st->other_events++;
			return 0;
		}
	}
	tk_buf_reset(b);
	tk_buf_add(b, h->comm, h->comm_len);
	if (sh->opts->tid_frames || sh->opts->pid_frames) {
		tk_buf_addch(b, '-');
		if (h->pid)
			tk_buf_add(b, h->pid, h->pid_len);
		else
			tk_buf_addch(b, '?');
		if (sh->opts->tid_frames) {
			tk_buf_addch(b, '/');
			tk_buf_add(b, h->tid, h->tid_len);
		}
	}
	for (i = 0; i < b->len; i++)
		if (b->buf[i] == ' ')
			b->buf[i] = '_';
	st->root = tk_profile_intern(st->p, b->buf, b->len);
	st->is_java = h->comm_len >= 4 && !memcmp(h->comm, "java", 4);
	st->in_sample = 1;
	st->header_line = st->line;
	st->nr_frames = 0;
	if (h->period)
		st->any_period = 1;
	st->weight = sh->count_samples || !h->period ? 1 : h->period;
	return 0;
}

/* Ends the sample on line `line` (the blank or header line after it). */
static int end_sample(struct perf_state *st, uint64_t line)
{
	struct tk_profile *p = st->p;
	size_t i, n = st->nr_frames;

	if (!st->in_sample)
		return 0;
	st->in_sample = 0;
	TK_ALLOC_GROW(st->path, n + 1, st->alloc_path);
	st->path[0] = st->root;
	for (i = 0; i < n; i++)
		st->path[i + 1] = st->frames[n - 1 - i];
	st->samples++;
	/* A period bad on its own is this line's error; a sum past the cap
	 * is told in file order by parse_split, from each segment's sum. */
	if (tk_weight_error(0, st->weight)) {
		st->err_line = line;
		return tk_err_set(&st->err, TK_EDATA, ": the sample's period %g %s", st->weight,
				  tk_weight_error(0, st->weight));
	}
	if (tk_profile_weight_error(p, st->weight)) {
		st->sum_over = 1;
		st->err_line = line;
		return tk_err_set(&st->err, TK_EDATA, ": the periods add up to more than %g",
				  TK_PROFILE_MAX_WEIGHT);
	}
	st->seg_sum += st->weight;
	if (tk_profile_add_stack(p, st->path, n + 1, st->weight)) {
		st->err_line = line;
		return tk_err_set(&st->err, TK_EDATA, ": more than %u distinct stacks",
				  TK_PROFILE_MAX_NODES);
	}
	return 0;
}

/* Is this a Go method name: ".(" somewhere followed later by ")."? */
static int is_go_method(const char *s, size_t len)
{
	const char *open = memmem(s, len, ".(", 2);

	return open && memmem(open + 2, len - (size_t)(open + 2 - s), ").", 2);
}

/* Appends one tidied frame name (a piece of "a->b") to st->name. */
static void tidy(struct perf_state *st, const char *f, size_t len, const char *mod,
		 size_t mod_len, int inlined)
{
	struct tk_buf *b = &st->name;
	size_t start, i, cut;
	int kernel, jit;

	tk_buf_reset(b);
	if (len == 9 && !memcmp(f, "[unknown]", 9)) {
		tk_buf_addch(b, '[');
		if (!(mod_len == 9 && !memcmp(mod, "[unknown]", 9))) {
			const char *slash = memrchr(mod, '/', mod_len);
			size_t off = slash ? (size_t)(slash + 1 - mod) : 0;

			tk_buf_add(b, mod + off, mod_len - off);
		} else {
			tk_buf_adds(b, "unknown");
		}
		tk_buf_addch(b, ']');
	} else {
		tk_buf_add(b, f, len);
	}
	for (i = 0; i < b->len; i++)
		if (b->buf[i] == ';')
			b->buf[i] = ':';
	if (!is_go_method(b->buf, b->len)) {
		for (cut = 0; cut < b->len; cut++) {
			const char *anon = "(anonymous namespace)";

			if (b->buf[cut] != '(')
				continue;
			if (b->len - cut >= 21 && !memcmp(b->buf + cut, anon, 21))
				continue;
			tk_buf_setlen(b, cut);
			break;
		}
	}
	for (i = start = 0; i < b->len; i++)
		if (b->buf[i] != '"' && b->buf[i] != '\'')
			b->buf[start++] = b->buf[i];
	tk_buf_setlen(b, start);
	if (st->is_java && b->len && b->buf[0] == 'L' && memchr(b->buf, '/', b->len)) {
		memmove(b->buf, b->buf + 1, b->len - 1);
		tk_buf_setlen(b, b->len - 1);
	}
	if (inlined) {
		if (!has(b->buf, b->len, "_[i]"))
			tk_buf_adds(b, "_[i]");
		return;
	}
	if (!st->sh->annotate)
		return;
	kernel = mod_len && (mod[0] == '[' ||
			     (mod_len >= 7 && !memcmp(mod + mod_len - 7, "vmlinux", 7))) &&
		 !has(mod, mod_len, "unknown");
	if (kernel) {
		tk_buf_adds(b, "_[k]");
		return;
	}
	jit = 0;
	{
		const char *m = mod, *end = mod + mod_len;

		while (!jit && (m = memmem(m, (size_t)(end - m), "/tmp/perf-", 10))) {
			const char *d = m + 10, *e = d;

			while (e < end && is_digit(*e))
				e++;
			jit = e > d && end - e >= 4 && !memcmp(e, ".map", 4);
			m += 10;
		}
	}
	if (jit && !has(b->buf, b->len, "_[j]"))
		tk_buf_adds(b, "_[j]");
}

static int push_frame(struct perf_state *st)
{
	if (st->nr_frames + 1 >= TK_PROFILE_MAX_DEPTH)
		return frame_error(st, "stack deeper than 65536 frames");
	if (st->name.len > TK_PROFILE_MAX_NAME)
		return frame_error(st, "frame name longer than 1048576 bytes");
	TK_ALLOC_GROW(st->frames, st->nr_frames + 1, st->alloc_frames);
	st->frames[st->nr_frames++] = tk_profile_intern(st->p, st->name.buf, st->name.len);
	return 0;
}

static void cache_clear(struct line_cache *c)
{
	if (c->slots)
		memset(c->slots, 0, (c->mask + 1) * sizeof(*c->slots));
	c->used = 0;
	tk_buf_reset(&c->keys);
	c->nr_ids = 0;
	c->lookups = c->hits = 0;
}

static void cache_release(struct line_cache *c)
{
	free(c->slots);
	free(c->ids);
	tk_buf_release(&c->keys);
}

static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/*
 * A stack line's text hashed 16 bytes a step in two independent lanes
 * (the multiplies overlap): every line is hashed, so this is most of a
 * cache hit's cost. Never 0 (an empty slot).
 */
static uint64_t cache_hash(const char *key, size_t len, int java)
{
	uint64_t a = 0x9e3779b97f4a7c15ull ^ len, b = 0x2d358dccaa6c78a5ull ^ (uint64_t)java;
	size_t i = 0;

	for (; i + 16 <= len; i += 16) {
		uint64_t w0, w1;

		memcpy(&w0, key + i, 8);
		memcpy(&w1, key + i + 8, 8);
		a = mix(a ^ w0, 0xa0761d6478bd642full);
		b = mix(b ^ w1, 0xe7037ed1a0b428dbull);
	}
	if (i + 8 <= len) {
		uint64_t w;

		memcpy(&w, key + i, 8);
		a = mix(a ^ w, 0x8ebc6af09c88c6e3ull);
		i += 8;
	}
	if (i < len) {
		uint64_t w = 0;

		memcpy(&w, key + i, len - i);
		b = mix(b ^ w, 0x589965cc75374cc3ull);
	}
	/* The top bit, not the bottom one: slots are picked by the low bits. */
	return mix(a ^ 0x1d8e4e27c47d124full, b ^ 0x8ebc6af09c88c6e3ull) | 1ull << 63;
}

/* The slot of key: its entry, or the empty slot where it goes. */
static struct cache_slot *cache_find(struct line_cache *c, const char *key, size_t len,
				     int java, uint64_t h)
{
	size_t i = h & c->mask;

	for (;;) {
		struct cache_slot *s = &c->slots[i];

		if (!s->hash || (s->hash == h && s->key_len == len && s->java == java &&
				 !memcmp(c->keys.buf + s->key_off, key, len)))
			return s;
		i = (i + 1) & c->mask;
	}
}

static void cache_grow(struct line_cache *c)
{
	size_t n = c->slots ? (c->mask + 1) * 2 : 1024, i;
	struct cache_slot *old = c->slots;
	size_t old_n = old ? c->mask + 1 : 0;

	c->slots = tk_xcalloc(n, sizeof(*c->slots));
	c->mask = n - 1;
	for (i = 0; i < old_n; i++) {
		size_t j;

		if (!old[i].hash)
			continue;
		j = old[i].hash & c->mask;
		while (c->slots[j].hash)
			j = (j + 1) & c->mask;
		c->slots[j] = old[i];
	}
	free(old);
}

/* Remembers that key gave the frames st->frames[first..]. */
static void cache_put(struct perf_state *st, const char *key, size_t len, size_t first)
{
	struct line_cache *c = &st->cache;
	size_t n = st->nr_frames - first;
	struct cache_slot *s;
	uint64_t h;

	if (len > CACHE_MAX_KEY || n > CACHE_MAX_IDS)
		return;
	if (c->off)
		return;
	if (c->lookups >= CACHE_TRIAL && c->hits < c->lookups / 2) {
		/* Lines that rarely repeat (every address its own offset):
		 * the cache only costs. */
		cache_release(c);
		memset(c, 0, sizeof(*c));
		tk_buf_init(&c->keys, 0);
		c->off = 1;
		return;
	}
	if (c->keys.len + len > CACHE_BYTES)
		cache_clear(c);
	if (!c->slots || (c->used + 1) * 2 > c->mask + 1)
		cache_grow(c);
	h = cache_hash(key, len, st->is_java);
	s = cache_find(c, key, len, st->is_java, h);
	if (s->hash)
		return;
	s->hash = h;
	s->key_off = (uint32_t)c->keys.len;
	s->key_len = (uint32_t)len;
	s->java = (uint8_t)st->is_java;
	s->ids_off = (uint32_t)c->nr_ids;
	s->nr_ids = (uint16_t)n;
	tk_buf_add(&c->keys, key, len);
	if (n) {
		TK_ALLOC_GROW(c->ids, c->nr_ids + n, c->alloc_ids);
		memcpy(c->ids + c->nr_ids, st->frames + first, n * sizeof(*c->ids));
		c->nr_ids += n;
	}
	c->used++;
}

/*
 * "<ws>addr sym+0xoff (dso)". Returns 1 when it is a stack line (frames
 * pushed), 0 when not, or a negative code.
 */
static int stack_line(struct perf_state *st, const char *s, size_t len)
{
	size_t i = 0, q, m, c, fend, pc_end;
	const char *f, *mod;
	size_t flen, mod_len;
	/* Pieces of "a->b" go on the stack in order, before what is there. */
	size_t first, a, b;
	int ret, piece;

	while (i < len && is_space(s[i]))
		i++;
	q = i;
	while (i < len && is_word(s[i]))
		i++;
	if (i == q)
		return 0;
	pc_end = i;
	/* What follows the address decides everything below (with the
	 * sample's being Java): seen before, its frames are known. */
	if (st->cache.used && st->in_sample) {
		uint64_t h = cache_hash(s + pc_end, len - pc_end, st->is_java);
		const struct cache_slot *hit = cache_find(&st->cache, s + pc_end, len - pc_end,
							  st->is_java, h);

		st->cache.lookups++;
		if (hit->hash) {
			st->cache.hits++;
			if (st->nr_frames + hit->nr_ids >= TK_PROFILE_MAX_DEPTH)
				return frame_error(st, "stack deeper than 65536 frames");
			if (!hit->nr_ids)
				return 1;
			TK_ALLOC_GROW(st->frames, st->nr_frames + hit->nr_ids, st->alloc_frames);
			memcpy(st->frames + st->nr_frames, st->cache.ids + hit->ids_off,
			       hit->nr_ids * sizeof(*st->frames));
			st->nr_frames += hit->nr_ids;
			return 1;
		}
	}
	while (i < len && is_space(s[i]))
		i++;
	q = i;
	/*
	 * The last ')' and the last " (" before it, leaving a symbol of at
	 * least one character: when only blanks separate the address from
	 * " (dso)", the Perl regex takes one blank as the symbol.
	 */
	c = len;
	while (c > pc_end && s[c - 1] != ')')
		c--;
	if (c <= pc_end)
		return 0;
	c--;
	m = c;
	for (;;) {
		if (m < pc_end + 2)
			return 0;
		m--;
		if (s[m] == ' ' && s[m + 1] == '(')
			break;
	}
	if (q >= m)
		q = m - 1;
	f = s + q;
	fend = m - q;
	mod = s + m + 2;
	mod_len = c - (m + 2);
	/* "sym+0x1f" -> "sym" */
	{
		size_t j = fend;

		while (j > 0 && ((f[j - 1] >= '0' && f[j - 1] <= '9') ||
				 (f[j - 1] >= 'a' && f[j - 1] <= 'f')))
			j--;
		if (j < fend && j >= 3 && f[j - 1] == 'x' && f[j - 2] == '0' && f[j - 3] == '+')
			fend = j - 3;
	}
	flen = fend;
	if (!st->in_sample)
		return 1;
	first = st->nr_frames;
	if (flen && f[0] == '(') {
		cache_put(st, s + pc_end, len - pc_end, first);
		return 1;
	}
	/* Split on "->"; pieces are pushed leaf first, so in reverse. */
	a = 0;
	piece = 0;
	for (;;) {
		const char *arrow = flen > a ? memmem(f + a, flen - a, "->", 2) : NULL;

		b = arrow ? (size_t)(arrow - f) : flen;
		tidy(st, f + a, b - a, mod, mod_len, piece > 0);
		ret = push_frame(st);
		if (ret)
			return ret;
		piece++;
		if (!arrow)
			break;
		a = b + 2;
	}
	/* "a->b" reads root to leaf (the Perl script unshifts (a, b) onto a
	 * root-first stack) but frames[] is leaf first: reverse the pieces. */
	for (a = first, b = st->nr_frames - 1; a < b; a++, b--) {
		uint32_t t = st->frames[a];

		st->frames[a] = st->frames[b];
		st->frames[b] = t;
	}
	cache_put(st, s + pc_end, len - pc_end, first);
	return 1;
}

static int parse_kind(struct perf_shared *sh, const char *kind, struct tk_err *err)
{
	const char *s = kind;

	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (n == 5 && !memcmp(s, "plain", 5))
			sh->annotate = 0;
		else if (n == 7 && !memcmp(s, "samples", 7))
			sh->count_samples = 1;
		else if (n == 6 && !memcmp(s, "period", 6))
			sh->count_samples = 0;
		else if (n == 8 && !memcmp(s, "annotate", 8))
			sh->annotate = 1;
		else if (n)
			return tk_err_set(err, TK_EUSAGE,
					  "unknown perf kind '%.*s' (use plain, annotate, samples or period)",
					  (int)n, s);
		s += n;
		if (*s)
			s++;
	}
	return 0;
}

enum seg_mode {
	SEG_CUT,   /* ends where a sample begins: the last sample is complete */
	SEG_MORE,  /* the input goes on: parse whole lines, keep the sample open */
	SEG_LAST,  /* ends the input */
};

/*
 * Parses the lines of s[0..len) as the reader would hand them out
 * (without "\n" and a "\r" before it). SEG_MORE stops before a line the
 * buffer does not end; *used says where.
 */
static int parse_lines(struct perf_state *st, const char *s, size_t len, enum seg_mode mode,
		       size_t *used)
{
	const char *p = s, *end = s + len;
	size_t max_line = st->sh->in->max_line;
	int ret = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line = p;
		size_t n;
		struct header h;

		if (!nl && mode == SEG_MORE)
			break;
		n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		st->line++;
		if (n > max_line) {
			st->err_line = st->line;
			ret = tk_err_set(&st->err, TK_EDATA, " is longer than %zu bytes", max_line);
			break;
		}
		p = nl ? nl + 1 : end;
		if (n && line[n - 1] == '\r')
			n--;
		if (n && line[0] == '#')
			continue;
		if (!n) {
			ret = end_sample(st, st->line);
			if (ret)
				break;
			continue;
		}
		if (!is_space(line[0]) && parse_comm(line, n, &h)) {
			/* A header without the blank line before it. */
			ret = end_sample(st, st->line);
			if (ret)
				break;
			parse_event(line, n, &h);
			ret = start_sample(st, &h);
			if (ret)
				break;
			continue;
		}
		ret = stack_line(st, line, n);
		if (ret < 0)
			break;
		if (!ret) {
			st->unrecognized++;
			if (!st->first_unrecognized)
				st->first_unrecognized = st->line;
		}
		ret = 0;
	}
	*used = (size_t)(p - s);
	if (ret)
		return ret;
	if (mode == SEG_CUT)
		return end_sample(st, st->line + 1);
	return 0;
}

/*
 * Where the segment s[0..len) may end: the start of its last whole line
 * that is blank or a sample header (never 0: a segment is not empty).
 * 0 when there is none.
 */
static size_t find_cut(const char *s, size_t len)
{
	const char *e = memrchr(s, '\n', len);

	while (e && e > s) {
		const char *nl = memrchr(s, '\n', (size_t)(e - s));
		size_t start = nl ? (size_t)(nl + 1 - s) : 0;
		size_t n = (size_t)(e - s) - start;
		struct header h;

		if (!start)
			return 0;
		if (n && s[start + n - 1] == '\r')
			n--;
		if (!n || (s[start] != '#' && !is_space(s[start]) && parse_comm(s + start, n, &h)))
			return start;
		e = nl;
	}
	return 0;
}

/* The event of the first header in s[0..len) that names one. */
static void scan_event(struct perf_shared *sh, const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	while (p < end && !sh->event) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct header h;

		if (n && p[n - 1] == '\r')
			n--;
		if (n && p[0] != '#' && !is_space(p[0]) && parse_comm(p, n, &h)) {
			parse_event(p, n, &h);
			if (h.event) {
				sh->event = tk_xstrndup(h.event, h.event_len);
				sh->event_len = h.event_len;
			}
		}
		p = nl ? nl + 1 : end;
	}
}

/* Makes st->buf at least n bytes, keeping its first `keep`. */
static void buf_need(struct perf_state *st, size_t n, size_t keep)
{
	char *b;

	if (n <= st->buf_alloc)
		return;
	b = tk_xmalloc(n);
	if (keep)
		memcpy(b, st->buf, keep);
	free(st->buf);
	st->buf = b;
	st->buf_alloc = n;
}

/* Reads until st->buf holds want bytes or the input ends; *len grows. */
static int fill(struct perf_state *st, size_t *len, size_t want, int *eof)
{
	size_t got;
	int ret;

	buf_need(st, want, *len);
	while (*len < want) {
		ret = tk_reader_read(st->sh->in, st->buf + *len, want - *len, &got, &st->err);
		*len += got;
		if (ret)
			return ret;
		if (!got) {
			*eof = 1;
			break;
		}
	}
	return 0;
}

/* Notes the outcome of the segment st parsed (the lock held). */
static void record(struct perf_state *st, size_t seq, int ret)
{
	struct perf_shared *sh = st->sh;
	struct perf_seg *g;

	if (seq >= sh->alloc_segs) {
		size_t old = sh->alloc_segs;

		TK_ALLOC_GROW(sh->segs, seq + 1, sh->alloc_segs);
		memset(sh->segs + old, 0, (sh->alloc_segs - old) * sizeof(*sh->segs));
	}
	if (seq >= sh->nr_segs)
		sh->nr_segs = seq + 1;
	TK_ALLOC_GROW(st->marks, st->nr_marks + 1, st->alloc_marks);
	st->marks[st->nr_marks].seq = seq;
	st->marks[st->nr_marks].names = st->p->nr_names;
	st->marks[st->nr_marks].nodes = st->p->nr_nodes;
	st->nr_marks++;
	g = &sh->segs[seq];
	g->lines = st->line;
	g->first_unrecognized = st->first_unrecognized;
	g->dropped = !ret && st->in_sample ? st->header_line : 0;
	g->ret = ret;
	g->sum = st->seg_sum;
	g->sum_over = st->sum_over;
	if (ret) {
		g->err_line = st->err_line;
		g->msg = tk_xstrdup(st->err.msg);
		sh->stop = 1;
	}
}

/*
 * Reading alone to the end (the lock held): whole lines as they come,
 * with at most one line and one segment in memory.
 */
static int parse_rest(struct perf_state *st, size_t len)
{
	size_t used;
	int eof = 0, ret;

	st->alone = 1;
	for (;;) {
		ret = parse_lines(st, st->buf, len, SEG_MORE, &used);
		if (ret)
			return ret;
		memmove(st->buf, st->buf + used, len - used);
		len -= used;
		if (len > st->sh->in->max_line) {
			st->err_line = st->line + 1;
			return tk_err_set(&st->err, TK_EDATA, " is longer than %zu bytes",
					  st->sh->in->max_line);
		}
		ret = fill(st, &len, len + st->sh->segment_bytes, &eof);
		if (ret) {
			/* Whole lines before a read error count first, as
			 * they would reading line by line. */
			int r2 = parse_lines(st, st->buf, len, SEG_MORE, &used);

			if (r2)
				return r2;
			st->err_line = 0;
			return ret;
		}
		if (eof)
			return parse_lines(st, st->buf, len, SEG_LAST, &used);
	}
}

/*
 * Takes the next segment into st->buf and parses it; 0 when there is
 * none left. The lock is held while reading and released while parsing.
 */
static int next_segment(struct perf_state *st)
{
	struct perf_shared *sh = st->sh;
	size_t len, want = sh->segment_bytes, used, cut = 0, seq;
	int eof = 0, ret = 0;
	enum seg_mode mode = SEG_CUT;

	pthread_mutex_lock(&sh->lock);
	if (sh->done || sh->stop) {
		pthread_mutex_unlock(&sh->lock);
		return 0;
	}
	seq = sh->nr_segs++;
	buf_need(st, want > sh->carry_len ? want : sh->carry_len, 0);
	if (sh->carry_len)
		memcpy(st->buf, sh->carry, sh->carry_len);
	len = sh->carry_len;
	sh->carry_len = 0;
	st->line = st->first_unrecognized = st->err_line = 0;
	st->seg_sum = 0;
	st->in_sample = 0;
	for (;;) {
		ret = fill(st, &len, want, &eof);
		if (ret || eof)
			break;
		cut = find_cut(st->buf, len);
		if (cut)
			break;
		if (want >= sh->segment_max) {
			/* Nowhere to cut: the rest is this thread's alone. */
			ret = parse_rest(st, len);
			sh->done = 1;
			record(st, seq, ret);
			pthread_mutex_unlock(&sh->lock);
			return 1;
		}
		want *= 2;
	}
	if (ret) {
		int r2;

		/* The lines before a read error count first, as they would
		 * reading line by line. */
		st->alone = 1;
		r2 = parse_lines(st, st->buf, len, SEG_MORE, &used);

		if (!r2)
			st->err_line = 0;
		sh->done = 1;
		record(st, seq, r2 ? r2 : ret);
		pthread_mutex_unlock(&sh->lock);
		return 1;
	}
	if (eof) {
		mode = SEG_LAST;
		sh->done = 1;
	} else {
		TK_ALLOC_GROW(sh->carry, len - cut, sh->carry_alloc);
		memcpy(sh->carry, st->buf + cut, len - cut);
		sh->carry_len = len - cut;
		len = cut;
	}
	if (!sh->event)
		scan_event(sh, st->buf, len);
	pthread_mutex_unlock(&sh->lock);

	ret = parse_lines(st, st->buf, len, mode, &used);

	pthread_mutex_lock(&sh->lock);
	record(st, seq, ret);
	pthread_mutex_unlock(&sh->lock);
	return 1;
}

static void *worker(void *arg)
{
	struct perf_state *st = arg;

	while (next_segment(st))
		;
	return NULL;
}

static void state_init(struct perf_state *st, struct perf_shared *sh, struct tk_profile *p)
{
	memset(st, 0, sizeof(*st));
	st->sh = sh;
	st->p = p;
	tk_buf_init(&st->name, 0);
	tk_buf_init(&st->cache.keys, 0);
}

static void state_release(struct perf_state *st)
{
	free(st->frames);
	free(st->path);
	free(st->buf);
	free(st->marks);
	tk_buf_release(&st->name);
	cache_release(&st->cache);
	if (st->p == &st->own)
		tk_profile_release(&st->own);
}

/* The CPUs this process may run on, at most MAX_THREADS. */
static int nr_threads(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
}

static void set_warning(const struct perf_shared *sh, unsigned long long samples,
			unsigned long long other_events, unsigned long long unrecognized,
			uint64_t first_unrecognized, uint64_t dropped, struct tk_profile *p)
{
	struct tk_buf b = TK_BUF_INIT;

	if (other_events)
		tk_buf_addf(&b, "; kept the %llu sample(s) of event '%s', skipped %llu of other events",
			    samples, sh->event, other_events);
	if (unrecognized)
		tk_buf_addf(&b, "; skipped %llu unrecognized line(s) (first: line %llu)",
			    unrecognized, (unsigned long long)first_unrecognized);
	if (dropped)
		tk_buf_addf(&b, "; dropped the last sample (line %llu): no blank line ends it, "
			    "the file may be cut short", (unsigned long long)dropped);
	if (b.len)
		snprintf(p->warning, sizeof(p->warning), "'%s':%s", sh->in->name, b.buf + 1);
	tk_buf_release(&b);
}

/*
 * The threads' trees added into out in the order a one-pass reading
 * creates names and nodes: by first sight in the file. A thread creates
 * them in its segments' order, so taking the threads' segments by
 * sequence number gives the file's order, and every output (and the
 * stored form) is the same whatever thread read what.
 */
static int add_in_order(struct tk_profile *out, struct perf_state *st, int nr,
			struct tk_err *err)
{
	uint32_t *names[MAX_THREADS] = { NULL }, *nodes[MAX_THREADS] = { NULL };
	size_t at[MAX_THREADS] = { 0 };
	uint32_t done_names[MAX_THREADS], done_nodes[MAX_THREADS];
	int t, ret = 0;

	for (t = 0; t < nr; t++) {
		names[t] = tk_realloc_array(NULL, st[t].p->nr_names, sizeof(uint32_t));
		nodes[t] = tk_realloc_array(NULL, st[t].p->nr_nodes, sizeof(uint32_t));
		names[t][0] = 0;
		nodes[t][TK_PROFILE_ROOT] = TK_PROFILE_ROOT;
		done_names[t] = done_nodes[t] = 1;
	}
	for (;;) {
		const struct tk_profile *from;
		const struct perf_mark *m;
		uint32_t i;
		int pick = -1;

		for (t = 0; t < nr; t++)
			if (at[t] < st[t].nr_marks &&
			    (pick < 0 || st[t].marks[at[t]].seq < st[pick].marks[at[pick]].seq))
				pick = t;
		if (pick < 0)
			break;
		from = st[pick].p;
		m = &st[pick].marks[at[pick]++];
		for (i = done_names[pick]; i < m->names; i++)
			names[pick][i] = tk_profile_intern(out, from->names[i], from->name_lens[i]);
		done_names[pick] = m->names > done_names[pick] ? m->names : done_names[pick];
		for (i = done_nodes[pick]; i < m->nodes; i++) {
			const struct tk_profile_node *n = &from->nodes[i];
			uint32_t to = tk_profile_child(out, nodes[pick][n->parent], names[pick][n->name]);

			if (!to) {
				ret = tk_err_set(err, TK_EDATA, "more than %u distinct stacks",
						 TK_PROFILE_MAX_NODES);
				goto out;
			}
			nodes[pick][i] = to;
			if (n->self != 0 && tk_profile_add_self(out, to, n->self)) {
				ret = tk_err_set(err, TK_EDATA, "the periods add up to more than %g",
						 TK_PROFILE_MAX_WEIGHT);
				goto out;
			}
		}
		done_nodes[pick] = m->nodes > done_nodes[pick] ? m->nodes : done_nodes[pick];
	}
out:
	for (t = 0; t < nr; t++) {
		free(names[t]);
		free(nodes[t]);
	}
	return ret;
}

/* perf_parse with segments of segment_bytes (at most segment_max when
 * no cut is found) on at most `threads` threads. */
static int parse_split(struct tk_reader *in, struct tk_profile *p,
		       const struct tk_import_opts *opts, struct tk_err *err,
		       size_t segment_bytes, size_t segment_max, int threads)
{
	struct perf_shared sh;
	struct perf_state st[MAX_THREADS];
	int nr = 1, i, ret;
	unsigned long long samples = 0, other_events = 0, unrecognized = 0;
	uint64_t base = 0, first_unrecognized = 0, dropped = 0;
	double total = 0;
	int any_period = 0;
	size_t k;

	memset(&sh, 0, sizeof(sh));
	pthread_mutex_init(&sh.lock, NULL);
	sh.in = in;
	sh.opts = opts;
	sh.annotate = 1;
	sh.segment_bytes = segment_bytes ? segment_bytes : 1;
	sh.segment_max = segment_max;
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	for (i = 0; i < MAX_THREADS; i++)
		state_init(&st[i], &sh, p);
	ret = parse_kind(&sh, opts->kind, err);
	if (ret)
		goto out;
	if (opts->event && *opts->event) {
		sh.event = tk_xstrdup(opts->event);
		sh.event_len = strlen(sh.event);
		sh.event_given = 1;
	}
	/* With two threads each has a tree of its own, added up in order
	 * at the end; the second thread starts when there is a second
	 * segment. */
	if (threads > 1)
		for (i = 0; i < MAX_THREADS; i++) {
			st[i].p = &st[i].own;
			tk_profile_init(&st[i].own, p->unit);
		}
	if (next_segment(&st[0]) && threads > 1 && !sh.done && !sh.stop &&
	    !pthread_create(&st[1].thread, NULL, worker, &st[1]))
		nr = 2;
	worker(&st[0]);
	if (nr > 1)
		pthread_join(st[1].thread, NULL);

	/* In file order: the first error, and line numbers made whole. A
	 * sum past the cap is found from the segments' sums and named by
	 * the first line of the segment where it passes, which no thread's
	 * share of the work changes (a thread stops there or earlier). */
	for (k = 0; k < sh.nr_segs; k++) {
		const struct perf_seg *g = &sh.segs[k];

		if (g->sum_over || tk_weight_error(total, g->sum)) {
			ret = tk_err_set(err, TK_EDATA,
					 "'%s' line %llu on: the periods add up to more than %g",
					 in->name, (unsigned long long)(base + 1),
					 TK_PROFILE_MAX_WEIGHT);
			goto out;
		}
		total += g->sum;
		if (g->ret) {
			if (g->err_line)
				ret = tk_err_set(err, g->ret, "'%s' line %llu%s", in->name,
						 (unsigned long long)(base + g->err_line), g->msg);
			else
				ret = tk_err_set(err, g->ret, "%s", g->msg);
			goto out;
		}
		if (g->first_unrecognized && !first_unrecognized)
			first_unrecognized = base + g->first_unrecognized;
		if (g->dropped)
			dropped = base + g->dropped;
		base += g->lines;
	}
	for (i = 0; i < nr; i++) {
		samples += st[i].samples;
		other_events += st[i].other_events;
		unrecognized += st[i].unrecognized;
		any_period |= st[i].any_period;
	}
	if (threads > 1 && nr == 1 && p->nr_nodes <= 1 && p->nr_names <= 1) {
		/* One segment, or no second thread: its tree is the result. */
		enum tk_unit unit = p->unit;

		tk_profile_release(p);
		*p = st[0].own;
		tk_profile_init(&st[0].own, unit);
	} else if (threads > 1) {
		struct tk_err merr = TK_ERR_INIT;

		ret = add_in_order(p, st, nr, &merr);
		if (ret) {
			ret = tk_err_set(err, TK_EDATA, "'%s': %s", in->name, merr.msg);
			goto out;
		}
	}
	if (!samples) {
		if (dropped && !other_events) {
			ret = tk_err_set(err, TK_EDATA,
					 "'%s' line %llu: the only sample is cut short (no blank line ends it)",
					 in->name, (unsigned long long)dropped);
			goto out;
		}
		if (other_events)
			ret = tk_err_set(err, TK_EDATA, "'%s': no samples of event '%s'", in->name,
					 sh.event);
		else
			ret = tk_err_set(err, TK_ENOTMINE, "no perf script samples in it");
		goto out;
	}
	if (sh.count_samples || !any_period)
		p->unit = TK_UNIT_SAMPLES;
	else if (sh.event && (!strncmp(sh.event, "cpu-clock", 9) ||
			      !strncmp(sh.event, "task-clock", 10)))
		p->unit = TK_UNIT_NANOSECONDS; /* software clocks count ns */
	else
		p->unit = TK_UNIT_COUNT;
	set_warning(&sh, samples, other_events, unrecognized, first_unrecognized, dropped, p);
out:
	for (i = 0; i < MAX_THREADS; i++)
		state_release(&st[i]);
	for (k = 0; k < sh.nr_segs; k++)
		free(sh.segs[k].msg);
	free(sh.segs);
	free(sh.carry);
	free(sh.event);
	pthread_mutex_destroy(&sh.lock);
	return ret;
}

static int perf_parse(struct tk_reader *in, struct tk_profile *p,
		      const struct tk_import_opts *opts, struct tk_err *err)
{
	return parse_split(in, p, opts, err, SEGMENT_BYTES, SEGMENT_MAX, nr_threads());
}

/* A stack line: whitespace, a hex address, whitespace. */
static int looks_like_frame(const char *s, size_t n)
{
	size_t i = 0, d;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (!i)
		return 0;
	d = i;
	while (i < n && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	return i > d && i < n && (s[i] == ' ' || s[i] == '\t');
}

/*
 * After '#' comments and blank lines, a sample header followed by a stack
 * line (or a header ending in "event:", for perf script without -g).
 */
static int perf_probe(const char *head, size_t len)
{
	const char *s = head, *end = head + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
		struct header h;

		if (n && s[n - 1] == '\r')
			n--;
		if (!n || s[0] == '#') {
			if (!nl)
				return 0;
			s = nl + 1;
			continue;
		}
		if (!parse_comm(s, n, &h))
			return 0;
		parse_event(s, n, &h);
		if (nl) {
			const char *t = nl + 1;
			const char *nl2 = memchr(t, '\n', (size_t)(end - t));
			size_t n2 = nl2 ? (size_t)(nl2 - t) : (size_t)(end - t);

			if (looks_like_frame(t, n2))
				return 1;
		}
		return h.event != NULL;
	}
	return 0;
}

const struct tk_importer tk_import_perf = {
	.version = TK_IMPORTER_VERSION,
	.name = "perf",
	.summary = "perf script text (stackcollapse-perf.pl rules)",
	.probe = perf_probe,
	.parse = perf_parse,
	/* perf's own demangled names lose their parameters here */
	.demangle = TK_DEMANGLE_NO_PARAMS,
};
