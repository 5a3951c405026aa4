/* The stored form of a profile: roundtrip, and corrupt blobs refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/profcodec.h"
#include "core/profile.h"
#include "tests/unit/tap.h"

/* Two profiles are equal when every path has the same self weight. */
static int same_tree(const struct tk_profile *a, uint32_t na,
		     const struct tk_profile *b, uint32_t nb)
{
	uint32_t c, d;
	size_t ca = 0, cb = 0;

	if (a->nodes[na].self != b->nodes[nb].self ||
	    strcmp(tk_profile_name(a, na), tk_profile_name(b, nb)))
		return 0;
	for (c = a->nodes[na].first_child; c; c = a->nodes[c].next_sibling)
		ca++;
	for (d = b->nodes[nb].first_child; d; d = b->nodes[d].next_sibling)
		cb++;
	if (ca != cb)
		return 0;
	for (c = a->nodes[na].first_child; c; c = a->nodes[c].next_sibling) {
		for (d = b->nodes[nb].first_child; d; d = b->nodes[d].next_sibling)
			if (!strcmp(tk_profile_name(a, c), tk_profile_name(b, d)))
				break;
		if (!d || !same_tree(a, c, b, d))
			return 0;
	}
	return 1;
}

static void build(struct tk_profile *p, unsigned seed, size_t stacks)
{
	static const char *const names[] = {
		"main", "solve", "step!", "<script>", "f(int, char*)", "\xff\xfe bytes",
		"a;b", "", "very long name here", "julia#kw##1",
	};
	uint32_t ids[64];
	size_t i, d;

	srand(seed);
	for (i = 0; i < stacks; i++) {
		size_t depth = 1 + (size_t)rand() % 40;
		double w = rand() % 3 ? (double)(rand() % 1000) : rand() / 7.0;

		for (d = 0; d < depth; d++) {
			const char *n = names[(size_t)rand() % 10];

			ids[d] = tk_profile_intern(p, n, strlen(n));
		}
		tk_profile_add_stack(p, ids, depth, w);
	}
	tk_profile_finish(p);
}

/* blob's decompressed bytes, with the header (8 bytes: the length). */
static size_t inflate_blob(const struct tk_buf *blob, unsigned char *raw, size_t cap)
{
	uLongf got = cap;

	if (blob->len < 8 || uncompress(raw, &got, (const Bytef *)blob->buf + 8, blob->len - 8))
		return 0;
	return got;
}

static void deflate_blob(const unsigned char *raw, size_t len, struct tk_buf *out)
{
	uLongf zlen = compressBound(len);
	unsigned char hdr[8];
	int i;

	for (i = 0; i < 8; i++)
		hdr[i] = (unsigned char)((uint64_t)len >> (8 * i));
	tk_buf_reset(out);
	tk_buf_add(out, hdr, 8);
	tk_buf_grow(out, zlen);
	compress2((Bytef *)out->buf + 8, &zlen, raw, len, 3);
	tk_buf_setlen(out, 8 + zlen);
}

/* The sampling dispersion: version 2 carries it, version 1 stays as it was. */
static void test_dispersion(void)
{
	struct tk_profile a, b;
	struct tk_buf blob = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	unsigned char raw[4096];
	size_t n;
	double nan_value = NAN;

	tk_profile_init(&a, TK_UNIT_BYTES);
	build(&a, 2, 20);
	tk_profile_encode(&a, &blob, &err);
	n = inflate_blob(&blob, raw, sizeof(raw));
	ok(n > 6 && raw[4] == 1, "no dispersion: written as version 1");
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	ok(!tk_profile_decode(blob.buf, blob.len, "v1", &b, &err) && b.dispersion == 0,
	   "read back with none");
	tk_profile_release(&b);

	a.dispersion = 492202.5;
	tk_buf_reset(&blob);
	tk_profile_encode(&a, &blob, &err);
	n = inflate_blob(&blob, raw, sizeof(raw));
	ok(n > 14 && raw[4] == 2, "a known dispersion: version 2");
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	ok(!tk_profile_decode(blob.buf, blob.len, "v2", &b, &err) && b.dispersion == 492202.5 &&
	   same_tree(&a, 0, &b, 0), "read back exactly, with the whole tree");
	tk_profile_release(&b);

	memcpy(raw + 6, &nan_value, 8);
	deflate_blob(raw, n, &blob);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	ok(tk_profile_decode(blob.buf, blob.len, "nan", &b, &err) == TK_EDATA &&
	   strstr(err.msg, "'nan' at byte 6") && strstr(err.msg, "dispersion"),
	   "a dispersion that is not a number is refused at its offset: %s", err.msg);
	tk_profile_release(&b);
	raw[4] = 3;
	deflate_blob(raw, n, &blob);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	ok(tk_profile_decode(blob.buf, blob.len, "v3", &b, &err) == TK_EDATA,
	   "version 3 is refused: %s", err.msg);
	tk_profile_release(&b);
	tk_profile_release(&a);
	tk_buf_release(&blob);
}

int main(void)
{
	struct tk_profile a, b;
	struct tk_buf blob = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	size_t i, refused = 0, flips = 0;
	char big[70000];

	tk_profile_init(&a, TK_UNIT_BYTES);
	build(&a, 1, 5000);
	is_int(tk_profile_encode(&a, &blob, &err), 0, "a profile encodes");
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(blob.buf, blob.len, "blob", &b, &err), 0, "and decodes");
	is_int(b.unit, TK_UNIT_BYTES, "the unit survives");
	is_int(b.nr_nodes, a.nr_nodes, "every node survives");
	ok(tk_profile_total(&a) == tk_profile_total(&b), "the total is exact (fractional weights too)");
	ok(same_tree(&a, 0, &b, 0), "every path has its self weight");
	tk_profile_release(&b);

	/* Corruption anywhere is an error, never a crash. */
	for (i = 0; i < blob.len; i += 1 + blob.len / 300) {
		struct tk_buf bad = TK_BUF_INIT;

		tk_buf_add(&bad, blob.buf, blob.len);
		bad.buf[i] ^= 0x5a;
		tk_profile_init(&b, TK_UNIT_SAMPLES);
		if (tk_profile_decode(bad.buf, bad.len, "bad", &b, &err))
			refused++;
		flips++;
		tk_profile_release(&b);
		tk_buf_release(&bad);
	}
	ok(refused == flips, "every flipped byte is refused (%zu of %zu)", refused, flips);
	for (i = 0; i < blob.len; i += 1 + blob.len / 50) {
		tk_profile_init(&b, TK_UNIT_SAMPLES);
		if (!tk_profile_decode(blob.buf, i, "cut", &b, &err))
			break;
		tk_profile_release(&b);
	}
	ok(i >= blob.len, "every truncation is refused");
	ok(strstr(err.msg, "'cut'") != NULL, "naming the blob: %s", err.msg);
	tk_profile_release(&b);
	tk_profile_release(&a);

	/* Long names and an empty profile. */
	tk_buf_reset(&blob);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	tk_profile_init(&a, TK_UNIT_SAMPLES);
	{
		uint32_t id = tk_profile_intern(&a, big, strlen(big));

		tk_profile_add_stack(&a, &id, 1, 3);
	}
	tk_profile_finish(&a);
	tk_profile_encode(&a, &blob, &err);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(blob.buf, blob.len, "big", &b, &err), 0, "a 70 KB name roundtrips");
	ok(b.nr_nodes == 2 && strlen(tk_profile_name(&b, 1)) == sizeof(big) - 1, "whole");
	tk_profile_release(&b);
	tk_profile_release(&a);

	tk_buf_reset(&blob);
	tk_profile_init(&a, TK_UNIT_SAMPLES);
	tk_profile_finish(&a);
	tk_profile_encode(&a, &blob, &err);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(blob.buf, blob.len, "empty", &b, &err), 0, "an empty profile roundtrips");
	tk_profile_release(&b);
	tk_profile_release(&a);
	tk_buf_release(&blob);
	test_dispersion();
	return done_testing();
}
