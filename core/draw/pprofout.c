/*
 * pprof output (contract in core/draw/pprofout.h).
 *
 * Protobuf's top-level fields may come in any order and repeat, so the
 * message is made field by field into a small buffer that is deflated
 * whenever it grows past a chunk: a profile of millions of samples never
 * sits whole in memory.
 */
#include "core/draw/pprofout.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

#define CHUNK (64u << 10)

/* Profile's field numbers (proto/profile.proto). */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};

enum { WT_VARINT = 0, WT_LEN = 2 };

struct pw {
	FILE *out;
	z_stream z;
	struct tk_buf msg, sub;
	unsigned char zout[CHUNK];
	int failed;
};

static void put_varint(struct tk_buf *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	tk_buf_add(b, tmp, n);
}

static void put_tag(struct tk_buf *b, unsigned field, unsigned wt)
{
	put_varint(b, (uint64_t)field << 3 | wt);
}

static void put_uint(struct tk_buf *b, unsigned field, uint64_t v)
{
	put_tag(b, field, WT_VARINT);
	put_varint(b, v);
}

static void put_bytes(struct tk_buf *b, unsigned field, const void *data, size_t len)
{
	put_tag(b, field, WT_LEN);
	put_varint(b, len);
	tk_buf_add(b, data, len);
}

/* Deflates what msg holds (all of it, and the end of the stream when
 * finish). */
static int pump(struct pw *w, int finish, struct tk_err *err)
{
	int zr;

	w->z.next_in = (unsigned char *)w->msg.buf;
	w->z.avail_in = (uInt)w->msg.len;
	do {
		size_t have;

		w->z.next_out = w->zout;
		w->z.avail_out = sizeof(w->zout);
		zr = deflate(&w->z, finish ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR)
			return tk_err_set(err, TK_EINTERNAL, "cannot compress the pprof output");
		have = sizeof(w->zout) - w->z.avail_out;
		if (have && fwrite(w->zout, 1, have, w->out) != have)
			return tk_err_set(err, TK_EUNAVAIL, "cannot write the pprof output");
	} while (w->z.avail_out == 0 || (finish && zr != Z_STREAM_END));
	tk_buf_reset(&w->msg);
	return 0;
}

/* Ends a submessage built in w->sub as field `field` of the Profile. */
static int emit_sub(struct pw *w, unsigned field, struct tk_err *err)
{
	put_bytes(&w->msg, field, w->sub.buf, w->sub.len);
	tk_buf_reset(&w->sub);
	return w->msg.len >= CHUNK ? pump(w, 0, err) : 0;
}

static void value_type(struct tk_buf *b, uint64_t type, uint64_t unit)
{
	put_uint(b, 1, type);
	put_uint(b, 2, unit);
}

static void type_names(enum tk_unit u, const char **type, const char **unit)
{
	switch (u) {
	case TK_UNIT_NANOSECONDS:
		*type = "cpu";
		*unit = "nanoseconds";
		break;
	case TK_UNIT_BYTES:
		*type = "alloc_space";
		*unit = "bytes";
		break;
	case TK_UNIT_COUNT:
		*type = "alloc_objects";
		*unit = "count";
		break;
	default:
		/* as Go writes CPU profiles; tracker reads it back as samples */
		*type = "samples";
		*unit = "count";
		break;
	}
}

/* The strings: "" first, the type and unit (1, 2), then name id i at
 * index i + 2. */
static int write_tables(struct pw *w, const struct tk_profile *p, struct tk_err *err)
{
	const char *type, *unit;
	uint32_t i;
	int ret;

	type_names(p->unit, &type, &unit);
	put_bytes(&w->msg, PROFILE_STRING_TABLE, "", 0);
	put_bytes(&w->msg, PROFILE_STRING_TABLE, type, strlen(type));
	put_bytes(&w->msg, PROFILE_STRING_TABLE, unit, strlen(unit));
	for (i = 1; i < p->nr_names; i++) {
		put_bytes(&w->msg, PROFILE_STRING_TABLE, p->names[i], p->name_lens[i]);
		if (w->msg.len >= CHUNK) {
			ret = pump(w, 0, err);
			if (ret)
				return ret;
		}
	}
	value_type(&w->sub, 1, 2);
	ret = emit_sub(w, PROFILE_SAMPLE_TYPE, err);
	value_type(&w->sub, 1, 2);
	if (!ret)
		ret = emit_sub(w, PROFILE_PERIOD_TYPE, err);
	put_uint(&w->msg, PROFILE_PERIOD, 1);
	put_uint(&w->msg, PROFILE_DEFAULT_SAMPLE_TYPE, 1);
	/* Function i and Location i for name id i */
	for (i = 1; !ret && i < p->nr_names; i++) {
		struct tk_buf line = TK_BUF_INIT;

		put_uint(&w->sub, 1, i);
		/* no system name: pprof takes a name that differs from it as
		 * demangled already and keeps it whole, C++ templates and all */
		put_uint(&w->sub, 2, (uint64_t)i + 2);
		ret = emit_sub(w, PROFILE_FUNCTION, err);
		if (ret)
			break;
		put_uint(&line, 1, i);
		put_uint(&w->sub, 1, i);
		put_bytes(&w->sub, 4, line.buf, line.len);
		tk_buf_release(&line);
		ret = emit_sub(w, PROFILE_LOCATION, err);
	}
	return ret;
}

static int write_samples(struct pw *w, const struct tk_profile *p, const double *self,
			 struct tk_err *err)
{
	struct tk_buf packed = TK_BUF_INIT;
	uint32_t n;
	int ret = 0;

	for (n = 0; !ret && n < p->nr_nodes; n++) {
		double v = self ? self[n] : p->nodes[n].self;
		uint64_t iv;
		uint32_t up;

		if (!(v >= 0.5))
			continue;
		iv = v < 9.2e18 ? (uint64_t)llround(v) : UINT64_MAX >> 1;
		tk_buf_reset(&packed);
		for (up = n; up != TK_PROFILE_ROOT; up = p->nodes[up].parent)
			put_varint(&packed, p->nodes[up].name);
		if (packed.len)
			put_bytes(&w->sub, 1, packed.buf, packed.len);
		tk_buf_reset(&packed);
		put_varint(&packed, iv);
		put_bytes(&w->sub, 2, packed.buf, packed.len);
		ret = emit_sub(w, PROFILE_SAMPLE, err);
	}
	tk_buf_release(&packed);
	return ret;
}

int tk_pprof_write(FILE *out, const struct tk_profile *p, const double *self,
		   struct tk_err *err)
{
	struct pw *w = tk_xcalloc(1, sizeof(*w));
	int ret;

	w->out = out;
	tk_buf_init(&w->msg, CHUNK + 1024);
	tk_buf_init(&w->sub, 0);
	/* 15 window bits + 16: a gzip header, as pprof files have */
	if (deflateInit2(&w->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		ret = tk_err_set(err, TK_EINTERNAL, "cannot start compressing the pprof output");
		goto out;
	}
	ret = write_tables(w, p, err);
	if (!ret)
		ret = write_samples(w, p, self, err);
	if (!ret)
		ret = pump(w, 1, err);
	deflateEnd(&w->z);
	if (!ret && ferror(out))
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the pprof output");
out:
	tk_buf_release(&w->msg);
	tk_buf_release(&w->sub);
	free(w);
	return ret;
}
