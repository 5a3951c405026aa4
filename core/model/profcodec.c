#include "core/model/profcodec.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef TK_WITH_ISAL
#include "core/base/lazy-isal.h"
#endif
#include "core/base/banned.h"

#define MAGIC "TKPF"
#define VERSION 1
/* The trailer after the compressed stream: magic, dispersion, crc32 */
#define TRAILER_MAGIC "TKD1"
#define TRAILER_LEN 16
/* The categories trailer (put_categories), before the dispersion's */
#define CATS_MAGIC "TKC1"
/* Decompressed size limit: a stored profile is far smaller than this. */
#define MAX_RAW (2u << 30)

static void put_varint(struct tk_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (unsigned char)v;
	tk_buf_add(b, tmp, n);
}

static void put_double(struct tk_buf *b, double w)
{
	unsigned char raw[8];
	uint64_t bits;
	int i;

	memcpy(&bits, &w, 8);
	for (i = 0; i < 8; i++)
		raw[i] = (unsigned char)(bits >> (8 * i));
	tk_buf_add(b, raw, 8);
}

static void put_weight(struct tk_buf *b, double w)
{
	if (w >= 0 && w < 4503599627370496.0 && w == (double)(uint64_t)w) {
		put_varint(b, (uint64_t)w * 2);
	} else {
		put_varint(b, 1);
		put_double(b, w);
	}
}

static void put_u32(struct tk_buf *b, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		tk_buf_addch(b, (int)((v >> (8 * i)) & 0xff));
}

/* The categories trailer: "TKC1", the payload's length (4 LE), the
 * payload (varint count, then per categorized name: varint name id, one
 * byte category), crc32 of all before it (4 LE). */
static void put_categories(const struct tk_profile *p, struct tk_buf *out)
{
	struct tk_buf pl = TK_BUF_INIT;
	size_t at = out->len;
	uint32_t i, nr = 0;

	for (i = 1; i < p->nr_cats; i++)
		nr += p->name_cats[i] != 0;
	put_varint(&pl, nr);
	for (i = 1; i < p->nr_cats; i++)
		if (p->name_cats[i]) {
			put_varint(&pl, i);
			tk_buf_addch(&pl, p->name_cats[i]);
		}
	tk_buf_add(out, CATS_MAGIC, 4);
	put_u32(out, (uint32_t)pl.len);
	tk_buf_add(out, pl.buf, pl.len);
	put_u32(out, (uint32_t)crc32(0L, (const Bytef *)out->buf + at, (uInt)(out->len - at)));
	tk_buf_release(&pl);
}

int tk_profile_encode(const struct tk_profile *p, struct tk_buf *out, struct tk_err *err)
{
	struct tk_buf raw = TK_BUF_INIT;
	uLongf zlen;
	uint32_t i;
	int rc;

	tk_buf_add(&raw, MAGIC, 4);
	tk_buf_addch(&raw, VERSION);
	tk_buf_addch(&raw, (int)p->unit);
	put_varint(&raw, p->nr_names - 1);
	for (i = 1; i < p->nr_names; i++) {
		put_varint(&raw, p->name_lens[i]);
		tk_buf_add(&raw, p->names[i], p->name_lens[i]);
	}
	put_varint(&raw, p->nr_nodes - 1);
	for (i = 1; i < p->nr_nodes; i++) {
		put_varint(&raw, i - p->nodes[i].parent);
		put_varint(&raw, p->nodes[i].name);
		put_weight(&raw, p->nodes[i].self);
	}
	zlen = compressBound(raw.len);
	tk_buf_grow(out, zlen + 8);
	/* Raw length first (8 bytes LE), so decoding allocates once. */
	{
		unsigned char hdr[8];
		uint64_t n = raw.len;

		for (i = 0; i < 8; i++)
			hdr[i] = (unsigned char)(n >> (8 * i));
		tk_buf_add(out, hdr, 8);
	}
	rc = compress2((Bytef *)out->buf + out->len, &zlen, (const Bytef *)raw.buf, raw.len, 3);
	tk_buf_release(&raw);
	if (rc != Z_OK)
		return tk_err_set(err, TK_EINTERNAL, "cannot compress the profile (zlib %d)", rc);
	tk_buf_setlen(out, out->len + zlen);
	if (tk_profile_has_categories(p))
		put_categories(p, out);
	if (p->dispersion > 0 && isfinite(p->dispersion)) {
		size_t at = out->len;
		uLong crc;

		tk_buf_add(out, TRAILER_MAGIC, 4);
		put_double(out, p->dispersion);
		crc = crc32(0L, (const Bytef *)out->buf + at, 12);
		for (i = 0; i < 4; i++)
			tk_buf_addch(out, (int)((crc >> (8 * i)) & 0xff));
	}
	return 0;
}

static uint32_t get_u32(const unsigned char *t)
{
	return (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
}

/*
 * The trailers of len bytes at t, after the compressed stream: none, or
 * the categories' (its payload's place goes to *cats, *cats_len) and
 * then the dispersion's (TRAILER_LEN bytes), each with its magic and a
 * crc32 that holds. Readers before a trailer (zlib's uncompress stops at
 * the stream's end) read the profile without it; readers before the
 * categories trailer refuse a profile that has one.
 */
static int read_trailer(const unsigned char *t, size_t len, size_t at, const char *name,
			double *dispersion, const unsigned char **cats, size_t *cats_len,
			struct tk_err *err)
{
	uint64_t bits = 0;
	uint32_t crc = 0;
	int k;

	*cats = NULL;
	*cats_len = 0;
	if (len >= 12 && !memcmp(t, CATS_MAGIC, 4)) {
		uint32_t pl = get_u32(t + 4);

		if (pl > len - 12 || get_u32(t + 8 + pl) != (uint32_t)crc32(0L, t, 8 + pl))
			return tk_err_set(err, TK_EDATA, "corrupt stored profile '%s' at byte "
					  "%zu: a categories trailer that does not hold", name, at);
		*cats = t + 8;
		*cats_len = pl;
		t += 12 + pl;
		at += 12 + pl;
		len -= 12 + pl;
	}
	if (!len)
		return 0;
	if (len == TRAILER_LEN && !memcmp(t, TRAILER_MAGIC, 4)) {
		for (k = 0; k < 8; k++)
			bits |= (uint64_t)t[4 + k] << (8 * k);
		for (k = 0; k < 4; k++)
			crc |= (uint32_t)t[12 + k] << (8 * k);
		memcpy(dispersion, &bits, 8);
		if (crc == (uint32_t)crc32(0L, t, 12) && *dispersion > 0 && isfinite(*dispersion))
			return 0;
	}
	*dispersion = 0;
	return tk_err_set(err, TK_EDATA, "corrupt stored profile '%s' at byte %zu: %zu bytes "
			  "after the compressed data that are no sampling dispersion", name, at,
			  len);
}

struct dec {
	const unsigned char *p, *end, *start;
	const char *name;
	struct tk_err *err;
	/* A stream still being inflated: end is what is ready so far,
	 * final where it will be (NULL: all of it is ready). */
	struct inflater *f;
	const unsigned char *final;
};

/*
 * The stream is inflated on a second thread while the first decodes what
 * is ready: inflating is a quarter of loading a large profile, and the
 * two overlap. Progress is published a chunk at a time.
 */
#define INFLATE_CHUNK (256u * 1024)
/* Blobs smaller than this are inflated first, on one thread. */
#define THREAD_MIN_BLOB (1u << 20)

struct inflater {
	const unsigned char *in;
	size_t in_len;
	unsigned char *out;
	size_t out_len;
	pthread_mutex_t mu;
	pthread_cond_t more;
	size_t avail;  /* bytes of out ready */
	size_t used;   /* compressed bytes the stream took */
	int done;      /* finished, well or not */
	int ok;        /* the stream ended at exactly out_len bytes */
	int threaded;
	int isal;      /* inflate with ISA-L, not zlib */
};

/* 0 after tk_profile_decode_use_isal(0): zlib always. */
static int isal_wanted = 1;

void tk_profile_decode_use_isal(int on)
{
	isal_wanted = on;
}

int tk_profile_isal_available(void)
{
#ifdef TK_WITH_ISAL
	struct tk_err ignored = TK_ERR_INIT;

	return !tk_isal_load(&ignored);
#else
	return 0;
#endif
}

static void publish(struct inflater *f, size_t avail, int done, int ok, size_t used)
{
	if (f->threaded)
		pthread_mutex_lock(&f->mu);
	f->avail = avail;
	if (done) {
		f->done = 1;
		f->ok = ok;
		f->used = used;
	}
	if (f->threaded) {
		pthread_cond_signal(&f->more);
		pthread_mutex_unlock(&f->mu);
	}
}

#ifdef TK_WITH_ISAL
/* 1 when the zlib header at in (2 bytes) is one zlib's inflate takes:
 * deflate, a window of at most 32 KiB, no preset dictionary, the check
 * bits right. ISA-L does not check the window's size. */
static int zlib_header_ok(const unsigned char *in, size_t len)
{
	return len >= 2 && (in[0] & 0x0f) == 8 && (in[0] >> 4) <= 7 && !(in[1] & 0x20) &&
	       ((unsigned)in[0] * 256 + in[1]) % 31 == 0;
}

/*
 * inflate_all with ISA-L: the same zlib stream (its header checked here
 * as zlib does, the deflate data and adler32 by ISA-L), the same chunks
 * published, the same end: ok only when the stream ends at exactly
 * out_len bytes, used the compressed bytes the stream took (not those of
 * the trailers after it that ISA-L has read ahead into its bit buffer).
 * A call that takes nothing and makes nothing is a stream that cannot go
 * on: cut short, or longer than its stated size.
 */
static void inflate_isal(struct inflater *f)
{
	struct inflate_state *st;
	size_t fed = 2, made = 0, used;
	int rc = ISAL_DECOMP_OK;

	if (!zlib_header_ok(f->in, f->in_len)) {
		publish(f, 0, 1, 0, 0);
		return;
	}
	st = tk_xmalloc(sizeof(*st));
	isal_inflate_init(st);
	st->crc_flag = ISAL_ZLIB_NO_HDR_VER;
	while (st->block_state != ISAL_BLOCK_FINISH) {
		size_t room = f->out_len - made, before_in, before_out = made;
		int before_state = (int)st->block_state;

		if (!st->avail_in && fed < f->in_len) {
			size_t piece = f->in_len - fed < (1u << 30) ? f->in_len - fed : (1u << 30);

			st->next_in = (uint8_t *)(f->in + fed);
			st->avail_in = (uint32_t)piece;
			fed += piece;
		}
		before_in = st->avail_in;
		st->next_out = f->out + made;
		st->avail_out = (uint32_t)(room < INFLATE_CHUNK ? room : INFLATE_CHUNK);
		rc = isal_inflate(st);
		if (rc != ISAL_DECOMP_OK)
			break;
		made = (size_t)(st->next_out - f->out);
		if (st->avail_in == before_in && made == before_out &&
		    (int)st->block_state == before_state)
			break;
		publish(f, made, 0, 0, 0);
	}
	/* bytes ISA-L read past the stream's end are in its bit buffer */
	used = fed - st->avail_in;
	if (st->block_state == ISAL_BLOCK_FINISH && st->read_in_length > 0 &&
	    (size_t)st->read_in_length / 8 <= used)
		used -= (size_t)st->read_in_length / 8;
	publish(f, made, 1,
		rc == ISAL_DECOMP_OK && st->block_state == ISAL_BLOCK_FINISH && made == f->out_len,
		used);
	free(st);
}
#endif

/* What uncompress2 does, published as it goes. */
static void *inflate_all(void *arg)
{
	struct inflater *f = arg;
	size_t fed = 0;
	int zr = Z_DATA_ERROR;
	z_stream z;

#ifdef TK_WITH_ISAL
	if (f->isal) {
		inflate_isal(f);
		return NULL;
	}
#endif
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK) {
		publish(f, 0, 1, 0, 0);
		return NULL;
	}
	for (;;) {
		size_t room = f->out_len - (size_t)z.total_out;

		if (!z.avail_in && fed < f->in_len) {
			size_t piece = f->in_len - fed < (1u << 30) ? f->in_len - fed : (1u << 30);

			z.next_in = (Bytef *)(f->in + fed);
			z.avail_in = (uInt)piece;
			fed += piece;
		}
		z.next_out = f->out + z.total_out;
		z.avail_out = (uInt)(room < INFLATE_CHUNK ? room : INFLATE_CHUNK);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK)
			break;
		publish(f, (size_t)z.total_out, 0, 0, 0);
	}
	publish(f, (size_t)z.total_out, 1, zr == Z_STREAM_END && z.total_out == f->out_len,
		(size_t)z.total_in);
	inflateEnd(&z);
	return NULL;
}

/* Makes n bytes from d->p readable, or all there will be: waits for the
 * inflater when they are not ready yet. */
static void need(struct dec *d, size_t n)
{
	struct inflater *f = d->f;
	size_t want;

	if ((size_t)(d->end - d->p) >= n || !f || d->end == d->final)
		return;
	want = (size_t)(d->p - d->start) + n;
	pthread_mutex_lock(&f->mu);
	while (!f->done && f->avail < want)
		pthread_cond_wait(&f->more, &f->mu);
	d->end = d->start + f->avail;
	pthread_mutex_unlock(&f->mu);
}

static int bad(struct dec *d, const char *what)
{
	return tk_err_set(d->err, TK_EDATA, "corrupt stored profile '%s' at byte %zu: %s",
			  d->name, (size_t)(d->p - d->start), what);
}

static int get_varint_long(struct dec *d, uint64_t *v)
{
	uint64_t r = 0;
	int shift = 0;

	while (d->p < d->end && shift < 64) {
		unsigned char c = *d->p++;

		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = r;
			return 0;
		}
		shift += 7;
	}
	return bad(d, "truncated number");
}

/* Most numbers of a stored tree (parent deltas, small name ids, zero
 * weights) are one byte: that case without a loop or a call. */
static inline int get_varint(struct dec *d, uint64_t *v)
{
	if (d->p < d->end && !(*d->p & 0x80)) {
		*v = *d->p++;
		return 0;
	}
	return get_varint_long(d, v);
}

static int get_double(struct dec *d, double *w)
{
	uint64_t bits = 0;
	int k;

	if (d->end - d->p < 8)
		return bad(d, "truncated number");
	for (k = 0; k < 8; k++)
		bits |= (uint64_t)d->p[k] << (8 * k);
	d->p += 8;
	memcpy(w, &bits, 8);
	return 0;
}

/* The categories trailer's payload, for the names decoded (ids). */
static int get_categories(struct dec *d, const unsigned char *cats, size_t len,
			  uint64_t nr_names, const uint32_t *ids, struct tk_profile *out)
{
	uint64_t nr = 0, i, id = 0;

	d->start = d->p = cats;
	d->end = d->final = cats + len;
	d->f = NULL;
	if (get_varint(d, &nr))
		return bad(d, "a categories trailer cut short");
	if (nr > len)
		return bad(d, "too many categories");
	for (i = 0; i < nr; i++) {
		if (get_varint(d, &id) || d->p >= d->end)
			return bad(d, "a categories trailer cut short");
		if (!id || id > nr_names || *d->p >= TK_CAT_NR)
			return bad(d, "a category out of range");
		tk_profile_set_category(out, ids[id], (enum tk_category)*d->p++);
	}
	return d->p == d->end ? 0 : bad(d, "trailing bytes in the categories trailer");
}

int tk_profile_check_head(const void *head, size_t head_len, uint64_t len, const char *name,
			  struct tk_err *err)
{
	const unsigned char *in = head;
	uint64_t rawlen = 0;
	int i;

	if (len < 8 || head_len < 8)
		return tk_err_set(err, TK_EDATA, "corrupt stored profile '%s': %llu bytes", name,
				  (unsigned long long)len);
	for (i = 0; i < 8; i++)
		rawlen |= (uint64_t)in[i] << (8 * i);
	if (rawlen < 6 || rawlen > MAX_RAW)
		return tk_err_set(err, TK_EDATA, "corrupt stored profile '%s': size %llu", name,
				  (unsigned long long)rawlen);
	/* deflate shrinks by at most 1032:1: a larger claim is a lie that
	 * would make us allocate up to MAX_RAW for a few bytes */
	if (rawlen > (len - 8) * 1032 + 64)
		return tk_err_set(err, TK_EDATA, "corrupt stored profile '%s': size %llu from %llu "
				  "compressed bytes", name, (unsigned long long)rawlen,
				  (unsigned long long)(len - 8));
	return 0;
}

/*
 * The stream's profile into out: names (their ids in out into *ids) and
 * nodes, reading what the inflater has made ready as it goes.
 */
static int decode_tree(struct dec *d, struct tk_profile *out, uint32_t **ids_out,
		       uint64_t *nr_names_out, uint64_t *nr_nodes_out, int *preset)
{
	uint64_t nr_names = 0, nr_nodes = 0, i, v = 0;
	uint32_t *ids;
	int ret;

	*ids_out = NULL;
	*nr_names_out = 0;
	*preset = 0;
	need(d, 6);
	if ((size_t)(d->end - d->p) < 6 || memcmp(d->p, MAGIC, 4) || d->p[4] != VERSION ||
	    d->p[5] > TK_UNIT_COUNT)
		return bad(d, "not a tracker profile of version 1");
	out->unit = (enum tk_unit)d->p[5];
	d->p += 6;
	need(d, 10);
	if ((ret = get_varint(d, &nr_names)))
		return ret;
	if (nr_names > (uint64_t)(d->final - d->p))
		return bad(d, "name count past the end");
	ids = tk_xcalloc((size_t)nr_names + 1, sizeof(uint32_t));
	*ids_out = ids;
	*nr_names_out = nr_names;
	for (i = 1; i <= nr_names; i++) {
		need(d, 10);
		if ((ret = get_varint(d, &v)))
			return ret;
		if (v <= TK_PROFILE_MAX_NAME)
			need(d, (size_t)v);
		if (v > TK_PROFILE_MAX_NAME || v > (uint64_t)(d->end - d->p))
			return bad(d, "name past the end");
		ids[i] = tk_profile_intern(out, (const char *)d->p, (size_t)v);
		d->p += v;
	}
	need(d, 10);
	if ((ret = get_varint(d, &nr_nodes)))
		return ret;
	*nr_nodes_out = nr_nodes;
	if (nr_nodes > (uint64_t)(d->final - d->p) || nr_nodes >= TK_PROFILE_MAX_NODES)
		return bad(d, "node count past the end");
	/* Node ids in the blob are 1..nr_nodes; map them as they are created.
	 * In a fresh profile they are created with those very ids: no map,
	 * and each node's total is set to its self weight as it is made,
	 * while it is in the cache (tk_profile_finish_preset). */
	tk_profile_reserve_all(out, (size_t)nr_nodes + 1);
	{
		int fresh = out->nr_nodes == 1;
		uint32_t *map = fresh ? NULL : tk_xcalloc((size_t)nr_nodes + 1, sizeof(uint32_t));
		uint32_t node;

		for (i = 1; i <= nr_nodes && !ret; i++) {
			uint64_t delta = 0, nm = 0, wv = 0;
			double w;

			/* three varints and a double at most */
			need(d, 38);
			if ((ret = get_varint(d, &delta)) || (ret = get_varint(d, &nm)) ||
			    (ret = get_varint(d, &wv)))
				break;
			/* Name 0 is "", which a frame may have too. */
			if (!delta || delta > i || nm > nr_names) {
				ret = bad(d, "node out of range");
				break;
			}
			if (wv == 1) {
				if ((ret = get_double(d, &w)))
					break;
			} else {
				w = (double)(wv / 2);
			}
			node = tk_profile_new_child(out, fresh ? (uint32_t)(i - delta) : map[i - delta],
						    ids[nm]);
			if (!node) {
				ret = bad(d, "too many nodes");
				break;
			}
			if (!fresh)
				map[i] = node;
			if (tk_profile_add_self(out, node, w)) {
				ret = bad(d, "a weight that is negative, not a number or too large");
				break;
			}
			if (fresh)
				out->nodes[node].total = out->nodes[node].self;
		}
		if (fresh && !ret) {
			out->nodes[0].total = out->nodes[0].self;
			*preset = 1;
		}
		free(map);
	}
	if (ret)
		return ret;
	/* all of it: what is left must be nothing */
	need(d, (size_t)(d->final - d->p) + 1);
	if (d->p != d->end)
		return bad(d, "trailing bytes");
	return 0;
}

int tk_profile_decode(const void *data, size_t len, const char *name,
		      struct tk_profile *out, struct tk_err *err)
{
	const unsigned char *in = data;
	struct tk_buf raw = TK_BUF_INIT;
	struct inflater f;
	pthread_t t;
	struct dec d;
	uint64_t rawlen = 0, nr_names, nr_nodes, i;
	const unsigned char *cats;
	size_t cats_len;
	uint32_t *ids = NULL;
	int ret = 0, zret, preset = 0;

	ret = tk_profile_check_head(in, len, len, name, err);
	if (ret)
		return ret;
	for (i = 0; i < 8; i++)
		rawlen |= (uint64_t)in[i] << (8 * i);
	tk_buf_grow(&raw, (size_t)rawlen);
	memset(&f, 0, sizeof(f));
	f.in = in + 8;
	f.in_len = len - 8;
	f.out = (unsigned char *)raw.buf;
	f.out_len = (size_t)rawlen;
	/* ISA-L pays for loading it on large blobs only */
	f.isal = isal_wanted && len >= THREAD_MIN_BLOB && tk_profile_isal_available();
	if (len >= THREAD_MIN_BLOB) {
		pthread_mutex_init(&f.mu, NULL);
		pthread_cond_init(&f.more, NULL);
		/* set before the thread starts: it reads it */
		f.threaded = 1;
		if (pthread_create(&t, NULL, inflate_all, &f)) {
			f.threaded = 0;
			pthread_mutex_destroy(&f.mu);
			pthread_cond_destroy(&f.more);
		}
	}
	if (!f.threaded)
		inflate_all(&f);
	d.start = d.p = d.end = (const unsigned char *)raw.buf;
	d.final = d.start + rawlen;
	d.f = f.threaded ? &f : NULL;
	if (!f.threaded)
		d.end = d.start + f.avail;
	d.name = name;
	d.err = err;
	ret = decode_tree(&d, out, &ids, &nr_names, &nr_nodes, &preset);
	if (f.threaded) {
		pthread_join(t, NULL);
		pthread_mutex_destroy(&f.mu);
		pthread_cond_destroy(&f.more);
	}
	/* the errors in the order of the bytes: the stream, the trailer
	 * after it, then what the stream held */
	if (!f.ok) {
		ret = tk_err_set(err, TK_EDATA, "corrupt stored profile '%s': bad compressed data",
				 name);
		goto out;
	}
	zret = read_trailer(in + 8 + f.used, len - 8 - f.used, 8 + f.used, name,
			    &out->dispersion, &cats, &cats_len, err);
	if (zret) {
		ret = zret;
		goto out;
	}
	if (ret)
		goto out;
	if (cats)
		ret = get_categories(&d, cats, cats_len, nr_names, ids, out);
	if (!ret && preset)
		tk_profile_finish_preset(out);
	else if (!ret)
		tk_profile_finish(out);
out:
	free(ids);
	tk_buf_release(&raw);
	return ret;
}
