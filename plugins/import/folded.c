/*
 * Folded stacks, flamegraph.pl's input: one line per stack,
 *
 *     main;parse;read_line 42
 *
 * frames root first, separated by ';', then whitespace and a count that
 * may be fractional. The differential form "stack BEFORE AFTER" is
 * accepted; the profile takes AFTER, as flamegraph.pl draws widths from
 * it. Frame names keep every byte (spaces, '<', '&', invalid UTF-8):
 * renderers escape them. "\xHH" (two hex digits) is the byte HH: the
 * escape tracker's folded outputs write for ';', line breaks, NUL and
 * the rest core/model/stacks.h lists, so they read back as the same frames. As in flamegraph.pl, lines that do not end in a
 * count are skipped (blank lines and '#' comments silently, others
 * counted in the profile's warning); a file with no valid line, or with
 * a NUL byte (binary data), is not folded.
 *
 * Sorted input (what stackcollapse tools write) is the fast path:
 * consecutive lines share a prefix, and frames inside the shared prefix
 * reuse the previous line's nodes without hashing.
 */
#include "plugins/import/importers.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "core/base/banned.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Finds a trailing count `\s+\d+(\.\d*)?` in s[0..*len). On success sets
 * *value, shortens *len to the text before the whitespace and returns 1.
 */
static int take_count(const char *s, size_t *len, double *value)
{
	size_t end = *len, i = end, digits_end, int_start;
	double v = 0, scale = 1;
	int frac = 0;

	while (i > 0 && (is_digit(s[i - 1]) || s[i - 1] == '.'))
		i--;
	if (i == end || i == 0 || (s[i - 1] != ' ' && s[i - 1] != '\t'))
		return 0;
	int_start = i;
	if (!is_digit(s[int_start]))
		return 0;
	digits_end = int_start;
	while (digits_end < end && is_digit(s[digits_end]))
		digits_end++;
	if (digits_end < end) {
		size_t j;

		if (s[digits_end] != '.')
			return 0;
		for (j = digits_end + 1; j < end; j++)
			if (!is_digit(s[j]))
				return 0;
		frac = 1;
	}
	for (i = int_start; i < digits_end; i++)
		v = v * 10 + (s[i] - '0');
	if (frac)
		for (i = digits_end + 1; i < end; i++) {
			scale /= 10;
			v += (s[i] - '0') * scale;
		}
	i = int_start;
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	*len = i;
	*value = v;
	return 1;
}

/* The first line that is not blank or a '#' comment must be a stack. */
static int folded_probe(const char *head, size_t len)
{
	while (len) {
		const char *nl = memchr(head, '\n', len);
		size_t n = nl ? (size_t)(nl - head) : len;
		double v;

		if (n && head[n - 1] == '\r')
			n--;
		if (n && head[0] != '#')
			return head[0] != '{' && head[0] != '<' && take_count(head, &n, &v) && n > 0;
		if (!nl)
			break;
		len -= (size_t)(nl - head) + 1;
		head = nl + 1;
	}
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The id of frame s[0..len), "\xHH" escapes decoded (tmp is scratch). */
static uint32_t intern_frame(struct tk_profile *p, const char *s, size_t len,
			     struct tk_buf *tmp)
{
	size_t i;

	if (!memchr(s, '\\', len))
		return tk_profile_intern(p, s, len);
	tk_buf_reset(tmp);
	for (i = 0; i < len; i++) {
		int hi, lo;

		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    (hi = hex_value(s[i + 2])) >= 0 && (lo = hex_value(s[i + 3])) >= 0) {
			tk_buf_addch(tmp, (char)(hi << 4 | lo));
			i += 3;
		} else {
			tk_buf_addch(tmp, s[i]);
		}
	}
	return tk_profile_intern(p, tmp->buf, tmp->len);
}

/*
 * Reading is split in two halves that can run on two threads. The reader
 * (the calling thread) finds each line's frames, interns their names and
 * checks its count; the builder walks the tree and adds the weight. They
 * meet in records of 32-bit words, batched in blocks:
 *
 *     shared depth, frames, line (2 words), weight (2 words), name ids
 *
 * where the first `shared` frames are the previous line's nodes. One
 * thread runs both halves in turn (a block at a time) when only one CPU
 * is there or the input is small; the records and their order are the
 * same either way, so is the tree, node for node.
 */
#define REC_HEAD 6
#define BLOCK_WORDS (64u * 1024)
#define NR_BLOCKS 4
/* Inputs shorter than this are read on one thread: a thread costs more. */
#define THREAD_MIN_BYTES (1u << 20)

struct block {
	uint32_t *w;
	size_t len, alloc;
};

/* The reader's memory of the previous line, to skip its shared frames. */
struct prefix {
	struct tk_buf name;    /* scratch for decoding escapes */
	struct tk_buf stack;   /* previous line's stack text */
	size_t *end;           /* end offset of each frame */
	size_t depth, alloc;
	/* frames waiting to be interned together: text, length, hash */
	const char **text;
	size_t *len, nr_pending, alloc_pending;
	uint64_t *hash;
};

/* Interns the pending frames into the ids at the end of b. */
static void intern_pending(struct tk_profile *names, struct prefix *pf, struct block *b)
{
	tk_profile_intern_many(names, pf->text, pf->len, pf->hash, pf->nr_pending,
			       b->w + b->len - pf->nr_pending);
	pf->nr_pending = 0;
}

struct builder {
	struct tk_reader *in;  /* for messages only: name */
	struct tk_profile *p;
	uint32_t *path;        /* node of each frame of the last line */
	size_t alloc;
	int ret;
	struct tk_err err;
};

/* The blocks between the two threads: [tail, head) are full. */
struct queue {
	pthread_mutex_t mu;
	pthread_cond_t filled, emptied;
	struct block blk[NR_BLOCKS];
	unsigned head, tail;
	int done;  /* the reader has no more */
	int stop;  /* the builder failed: the reader stops */
	struct builder *bd;
};

static size_t common_prefix(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen, i = 0;

	/* word at a time; fixed-size memcpy compiles to plain loads */
	while (i + 8 <= n) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/*
 * The length of the frame at s (up to the next ';', at most left bytes)
 * and its tk_hash_bytes, in one pass: a word at a time, a ';' found by
 * the zero-byte trick on the word xor ";;;;;;;;" (its lowest flagged
 * byte is exact). Little-endian words; elsewhere memchr, then the hash.
 */
static size_t scan_frame(const char *s, size_t left, uint64_t *hash)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	const uint64_t semis = ones * (uint64_t)';';
	uint64_t h = TK_HASH_SEED, w, x, m;
	size_t i = 0, n;

	for (;; i += 8) {
		if (i + 8 <= left) {
			memcpy(&w, s + i, 8);
		} else if (i < left) {
			w = 0; /* zero bytes are never ';' */
			memcpy(&w, s + i, left - i);
		} else {
			break;
		}
		x = w ^ semis;
		m = (x - ones) & ~x & highs;
		if (m) {
			n = (size_t)__builtin_ctzll(m) / 8;
			if (n)
				h = tk_hash_tail(h, w & ((1ull << (8 * n)) - 1));
			*hash = tk_hash_end(h, i + n);
			return i + n;
		}
		if (i + 8 > left) {
			h = tk_hash_tail(h, w);
			break;
		}
		h = tk_hash_word(h, w);
	}
	*hash = tk_hash_end(h, left);
	return left;
#else
	const char *semi = memchr(s, ';', left);
	size_t n = semi ? (size_t)(semi - s) : left;

	*hash = tk_hash_bytes(s, n);
	return n;
#endif
}

static void put_u64(uint32_t *w, uint64_t v)
{
	w[0] = (uint32_t)v;
	w[1] = (uint32_t)(v >> 32);
}

static uint64_t get_u64(const uint32_t *w)
{
	return (uint64_t)w[1] << 32 | w[0];
}

/* A line refused half read leaves nothing for the builder. */
static void drop_record(struct prefix *pf, struct block *b, size_t rec)
{
	b->len = rec;
	pf->nr_pending = 0;
}

/*
 * The reader's half of a line: appends its record to b, interning the
 * names of the frames the previous line does not share into names.
 */
static int read_line(struct tk_reader *in, struct tk_profile *names, struct prefix *pf,
		     struct block *b, const char *stack, size_t len, double weight,
		     struct tk_err *err)
{
	size_t shared = common_prefix(stack, len, pf->stack.buf, pf->stack.len);
	size_t pos = 0, depth = 0, rec = b->len, kept = 0;
	int escapes = memchr(stack, '\\', len) != NULL;
	uint64_t bits, hash = 0;

	TK_ALLOC_GROW(b->w, b->len + REC_HEAD, b->alloc);
	b->len += REC_HEAD;
	while (pos <= len && len) {
		size_t end;

		/* A frame that ends inside the text the previous line shares
		 * ends where it ended there, and is its node: no scan. */
		if (depth < pf->depth && pf->end[depth] < shared)
			end = pf->end[depth];
		else
			end = pos + scan_frame(stack + pos, len - pos, &hash);

		if (depth >= TK_PROFILE_MAX_DEPTH) {
			drop_record(pf, b, rec);
			return tk_err_set(err, TK_EDATA, "'%s' line %llu: stack deeper than %d frames",
					  in->name, (unsigned long long)in->line_no,
					  TK_PROFILE_MAX_DEPTH);
		}
		if (end - pos > TK_PROFILE_MAX_NAME) {
			drop_record(pf, b, rec);
			return tk_err_set(err, TK_EDATA,
					  "'%s' line %llu: frame name longer than %u bytes",
					  in->name, (unsigned long long)in->line_no,
					  TK_PROFILE_MAX_NAME);
		}
		if (depth + 1 > pf->alloc)
			TK_ALLOC_GROW(pf->end, depth + 1, pf->alloc);
		/* A frame is the previous line's node while all before it were:
		 * once one is not, pf->depth drops and no later one is. */
		if (depth < pf->depth && pf->end[depth] == end && end <= shared &&
		    (end == len) == (end == pf->stack.len)) {
			kept = depth + 1;
		} else if (escapes && memchr(stack + pos, '\\', end - pos)) {
			/* ids are given in order: the pending ones first */
			intern_pending(names, pf, b);
			TK_ALLOC_GROW(b->w, b->len + 1, b->alloc);
			b->w[b->len++] = intern_frame(names, stack + pos, end - pos, &pf->name);
			pf->depth = depth; /* later saved frames are stale */
		} else {
			TK_ALLOC_GROW(b->w, b->len + 1, b->alloc);
			b->len++;
			if (pf->nr_pending + 1 > pf->alloc_pending) {
				TK_ALLOC_GROW(pf->text, pf->nr_pending + 1, pf->alloc_pending);
				pf->len = tk_realloc_array(pf->len, pf->alloc_pending, sizeof(size_t));
				pf->hash = tk_realloc_array(pf->hash, pf->alloc_pending,
							    sizeof(uint64_t));
			}
			pf->hash[pf->nr_pending] = hash;
			pf->text[pf->nr_pending] = stack + pos;
			pf->len[pf->nr_pending++] = end - pos;
			pf->depth = depth; /* later saved frames are stale */
		}
		pf->end[depth] = end;
		depth++;
		pos = end + 1;
	}
	intern_pending(names, pf, b);
	pf->depth = depth;
	tk_buf_reset(&pf->stack);
	tk_buf_add(&pf->stack, stack, len);
	b->w[rec] = (uint32_t)kept;
	b->w[rec + 1] = (uint32_t)depth;
	put_u64(b->w + rec + 2, in->line_no);
	memcpy(&bits, &weight, sizeof(bits));
	put_u64(b->w + rec + 4, bits);
	return 0;
}

/* The builder's half: the records of one block into the tree. */
static int build_block(struct builder *bd, const struct block *b)
{
	struct tk_profile *p = bd->p;
	size_t i = 0;

	while (i < b->len) {
		const uint32_t *r = b->w + i;
		uint32_t kept = r[0], depth = r[1], d;
		uint32_t node = kept ? bd->path[kept - 1] : TK_PROFILE_ROOT;
		uint64_t bits = get_u64(r + 4);
		double weight;

		if (depth > bd->alloc) {
			TK_ALLOC_GROW(bd->path, depth, bd->alloc);
		}
		r += REC_HEAD;
		for (d = kept; d < depth; d++) {
			node = tk_profile_child(p, node, *r++);
			if (!node) {
				bd->ret = tk_err_set(&bd->err, TK_EDATA,
						     "'%s' line %llu: more than %u distinct stacks",
						     bd->in->name,
						     (unsigned long long)get_u64(b->w + i + 2),
						     TK_PROFILE_MAX_NODES);
				return bd->ret;
			}
			bd->path[d] = node;
		}
		memcpy(&weight, &bits, sizeof(weight));
		/* the reader checked it against the same running sum */
		tk_profile_add_self(p, node, weight);
		i = (size_t)(r - b->w);
	}
	return 0;
}

static void *builder_thread(void *arg)
{
	struct queue *q = arg;
	struct builder *bd = q->bd;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		struct block *b;
		int ret;

		while (q->head == q->tail && !q->done)
			pthread_cond_wait(&q->filled, &q->mu);
		if (q->head == q->tail)
			break;
		b = &q->blk[q->tail % NR_BLOCKS];
		pthread_mutex_unlock(&q->mu);
		ret = build_block(bd, b);
		pthread_mutex_lock(&q->mu);
		q->tail++;
		if (ret)
			q->stop = 1;
		pthread_cond_signal(&q->emptied);
		if (ret)
			break;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* How the reader hands blocks over: a queue, or building them itself. */
struct handoff {
	struct queue *q;       /* NULL: one thread */
	struct builder *bd;
	struct block *cur;
};

/* Hands the current block over; nonzero when the builder has failed. */
static int hand_over(struct handoff *h)
{
	struct queue *q = h->q;
	int stop;

	if (!q) {
		int ret = build_block(h->bd, h->cur);

		h->cur->len = 0;
		return ret;
	}
	pthread_mutex_lock(&q->mu);
	q->head++;
	pthread_cond_signal(&q->filled);
	while (q->head - q->tail == NR_BLOCKS && !q->stop)
		pthread_cond_wait(&q->emptied, &q->mu);
	stop = q->stop;
	pthread_mutex_unlock(&q->mu);
	h->cur = &q->blk[q->head % NR_BLOCKS];
	h->cur->len = 0;
	return stop;
}

/* Whether to build on a second thread: two CPUs and a large input. */
static int want_thread(struct tk_reader *in, const struct tk_import_opts *opts)
{
	const char *head;
	size_t len;
	cpu_set_t cpus;
	struct tk_err ignored = TK_ERR_INIT;

	if (opts->threads == 1)
		return 0;
	if (opts->threads == 0) {
		if (sched_getaffinity(0, sizeof(cpus), &cpus) || CPU_COUNT(&cpus) < 2)
			return 0;
		if (tk_reader_peek(in, THREAD_MIN_BYTES, &head, &len, &ignored) ||
		    len < THREAD_MIN_BYTES)
			return 0;
	}
	return 1;
}

static int folded_parse(struct tk_reader *in, struct tk_profile *p,
			const struct tk_import_opts *opts, struct tk_err *err)
{
	struct prefix pf;
	struct queue q;
	struct builder bd;
	struct block own;
	struct handoff h;
	struct tk_profile names_only, *names = p;
	pthread_t t;
	int threaded = want_thread(in, opts);
	unsigned long long skipped = 0, first_skipped = 0, stacks = 0;
	double sum = p->sum;
	const char *line;
	size_t len, i;
	int ret;

	memset(&pf, 0, sizeof(pf));
	tk_buf_init(&pf.stack, 0);
	tk_buf_init(&pf.name, 0);
	memset(&q, 0, sizeof(q));
	memset(&bd, 0, sizeof(bd));
	memset(&own, 0, sizeof(own));
	bd.in = in;
	bd.p = p;
	q.bd = &bd;
	p->unit = TK_UNIT_SAMPLES;
	h.q = NULL;
	h.bd = &bd;
	h.cur = &own;
	/* a fresh profile: the names interned here will be its ids */
	if (threaded && p->nr_names == 1 && p->nr_nodes == 1) {
		pthread_mutex_init(&q.mu, NULL);
		pthread_cond_init(&q.filled, NULL);
		pthread_cond_init(&q.emptied, NULL);
		if (!pthread_create(&t, NULL, builder_thread, &q)) {
			/* names on this thread, nodes on the other: no field shared */
			tk_profile_init(&names_only, p->unit);
			names = &names_only;
			h.q = &q;
			h.cur = &q.blk[0];
		} else {
			pthread_mutex_destroy(&q.mu);
			pthread_cond_destroy(&q.filled);
			pthread_cond_destroy(&q.emptied);
		}
	}
	while ((ret = tk_reader_line(in, &line, &len, err)) > 0) {
		double count, before;
		const char *why;
		size_t n = len;

		if (!len || line[0] == '#')
			continue;
		/* text never holds NUL (tracker's outputs write it \x00): binary */
		if (memchr(line, '\0', len)) {
			ret = tk_err_set(err, TK_ENOTMINE, "line %llu holds a NUL byte: not text",
					 (unsigned long long)in->line_no);
			break;
		}
		if (!take_count(line, &n, &count)) {
			if (!skipped++)
				first_skipped = in->line_no;
			continue;
		}
		/* A second count: the differential form; keep the last. */
		take_count(line, &n, &before);
		why = tk_weight_error(sum, count);
		if (why) {
			ret = tk_err_set(err, TK_EDATA, "'%s' line %llu: the count %g %s", in->name,
					 (unsigned long long)in->line_no, count, why);
			break;
		}
		ret = read_line(in, names, &pf, h.cur, line, n, count, err);
		if (ret)
			break;
		sum += count;
		stacks++;
		if (h.cur->len >= BLOCK_WORDS && hand_over(&h)) {
			ret = bd.ret;
			break;
		}
	}
	/* what is read is built, even after an error: the builder's error
	 * (at an earlier line) is the one to report */
	if (h.q) {
		pthread_mutex_lock(&q.mu);
		if (h.cur->len)
			q.head++;
		q.done = 1;
		pthread_cond_signal(&q.filled);
		pthread_mutex_unlock(&q.mu);
		pthread_join(t, NULL);
		tk_profile_take_names(p, &names_only);
		pthread_mutex_destroy(&q.mu);
		pthread_cond_destroy(&q.filled);
		pthread_cond_destroy(&q.emptied);
		for (i = 0; i < NR_BLOCKS; i++)
			free(q.blk[i].w);
	} else if (h.cur->len && !bd.ret) {
		build_block(&bd, h.cur);
	}
	if (bd.ret) {
		ret = bd.ret;
		if (err)
			*err = bd.err;
	}
	free(own.w);
	free(bd.path);
	tk_buf_release(&pf.stack);
	tk_buf_release(&pf.name);
	free(pf.end);
	free(pf.text);
	free(pf.len);
	free(pf.hash);
	if (ret < 0)
		return ret;
	if (!stacks && skipped)
		return tk_err_set(err, TK_ENOTMINE,
				  "no line of the form 'frame;frame;... COUNT' (line %llu has no count)",
				  first_skipped);
	if (!stacks)
		return tk_err_set(err, TK_ENOTMINE, "no stacks in it");
	if (skipped)
		snprintf(p->warning, sizeof(p->warning),
			 "'%s': skipped %llu line(s) without a trailing count (first: line %llu)",
			 in->name, skipped, first_skipped);
	return 0;
}

const struct tk_importer tk_import_folded = {
	.version = TK_IMPORTER_VERSION,
	.name = "folded",
	.summary = "folded stacks (flamegraph.pl / stackcollapse output)",
	.probe = folded_probe,
	.parse = folded_parse,
};
