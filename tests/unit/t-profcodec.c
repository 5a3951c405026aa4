/* The stored form of a profile: roundtrip, and corrupt blobs refused. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/model/profcodec.h"
#include "core/model/profile.h"
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

/* The sampling dispersion: a trailer after the stream, which the format
 * before it (zlib's uncompress, stopping at the stream's end) ignores. */
static void test_dispersion(void)
{
	struct tk_profile a, b;
	struct tk_buf plain = TK_BUF_INIT, blob = TK_BUF_INIT, bad = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	unsigned char raw[4096];
	uLongf n = sizeof(raw);
	size_t i, refused = 0;

	tk_profile_init(&a, TK_UNIT_BYTES);
	build(&a, 2, 20);
	tk_profile_encode(&a, &plain, &err);
	a.dispersion = 492202.5;
	tk_profile_encode(&a, &blob, &err);
	ok(blob.len == plain.len + 16 && !memcmp(blob.buf, plain.buf, plain.len),
	   "a known dispersion adds a 16-byte trailer; the rest is byte for byte the same");
	ok(!uncompress(raw, &n, (const Bytef *)blob.buf + 8, blob.len - 8) && raw[4] == 1,
	   "the stream is still version 1, as a tracker before the trailer reads it");
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	ok(!tk_profile_decode(plain.buf, plain.len, "plain", &b, &err) && b.dispersion == 0,
	   "no trailer: no dispersion");
	tk_profile_release(&b);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	ok(!tk_profile_decode(blob.buf, blob.len, "v1+", &b, &err) && b.dispersion == 492202.5 &&
	   same_tree(&a, 0, &b, 0), "read back exactly, with the whole tree");
	tk_profile_release(&b);

	for (i = plain.len; i < blob.len; i++) {
		tk_buf_reset(&bad);
		tk_buf_add(&bad, blob.buf, blob.len);
		bad.buf[i] ^= 0x20;
		tk_profile_init(&b, TK_UNIT_SAMPLES);
		refused += tk_profile_decode(bad.buf, bad.len, "flip", &b, &err) == TK_EDATA;
		tk_profile_release(&b);
	}
	ok(refused == 16, "every flipped byte of the trailer is refused (%zu of 16)", refused);
	ok(strstr(err.msg, "'flip' at byte") && strstr(err.msg, "dispersion"),
	   "at its offset: %s", err.msg);
	tk_buf_reset(&bad);
	tk_buf_add(&bad, blob.buf, blob.len - 1);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(bad.buf, bad.len, "cut", &b, &err), TK_EDATA,
	       "a cut trailer is refused");
	tk_profile_release(&b);
	a.dispersion = NAN;
	tk_buf_reset(&bad);
	tk_profile_encode(&a, &bad, &err);
	ok(bad.len == plain.len, "a dispersion that is not a number is not written");
	tk_profile_release(&a);
	tk_buf_release(&plain);
	tk_buf_release(&blob);
	tk_buf_release(&bad);
}

/* Categories go through the stored form; a profile without any is
 * stored as before, with no trailer for them. */
static void categories(void)
{
	struct tk_profile a, b;
	struct tk_buf blob = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	uint32_t ids[3];

	tk_profile_init(&a, TK_UNIT_SAMPLES);
	ids[0] = tk_profile_intern(&a, "main", 4);
	ids[1] = tk_profile_intern(&a, "jl_gc_collect", 13);
	ids[2] = tk_profile_intern(&a, "sys_read_[k]", 12);
	tk_profile_add_stack(&a, ids, 2, 5);
	tk_profile_add_stack(&a, ids, 1, 1);
	tk_profile_finish(&a);
	tk_profile_encode(&a, &blob, &err);
	ok(!memmem(blob.buf, blob.len, "TKC1", 4), "no categories: no categories trailer");
	tk_buf_reset(&blob);
	tk_profile_set_category(&a, ids[1], TK_CAT_DISPATCH);
	tk_profile_set_category(&a, ids[1], TK_CAT_GC);
	tk_profile_set_category(&a, ids[1], TK_CAT_TASK);
	is_int(tk_profile_category(&a, ids[1]), TK_CAT_GC, "GC outranks dispatch and task");
	is_int(tk_profile_category(&a, ids[2]), TK_CAT_KERNEL, "_[k] is kernel, from the name");
	is_int(tk_profile_category(&a, ids[0]), TK_CAT_NONE, "main has none");
	a.dispersion = 0.5;
	is_int(tk_profile_encode(&a, &blob, &err), 0, "a profile with categories encodes");
	ok(memmem(blob.buf, blob.len, "TKC1", 4) != NULL, "with the categories trailer");
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(blob.buf, blob.len, "blob", &b, &err), 0, "and decodes (%s)",
	       err.msg);
	is_int(tk_profile_category(&b, tk_profile_intern(&b, "jl_gc_collect", 13)), TK_CAT_GC,
	       "the category is back");
	ok(b.dispersion == 0.5, "and the dispersion trailer after it");
	ok(tk_profile_has_categories(&b), "decoded: has categories");
	tk_profile_release(&b);
	/* a flipped byte in the categories trailer is corruption, not silence */
	{
		unsigned char *at = memmem(blob.buf, blob.len, "TKC1", 4);

		at[9] ^= 0x5a;
		tk_profile_init(&b, TK_UNIT_SAMPLES);
		is_int(tk_profile_decode(blob.buf, blob.len, "blob", &b, &err), TK_EDATA,
		       "a corrupt categories trailer is refused: %s", err.msg);
		tk_profile_release(&b);
	}
	tk_profile_release(&a);
	tk_buf_release(&blob);
}

/* 1 when every node's total is the one tk_profile_finish computes, to
 * the bit (the decoder sums them its own way, tk_profile_finish_preset). */
static int totals_exact(struct tk_profile *p)
{
	double *had = tk_xcalloc(p->nr_nodes, sizeof(double));
	uint32_t i;
	int same = 1;

	for (i = 0; i < p->nr_nodes; i++)
		had[i] = p->nodes[i].total;
	p->finished = 0;
	tk_profile_finish(p);
	for (i = 0; i < p->nr_nodes; i++)
		same &= !memcmp(&had[i], &p->nodes[i].total, sizeof(double));
	free(had);
	return same;
}

/* The stored size (the blob's first 8 bytes) changed by delta. */
static void restate(struct tk_buf *b, int delta)
{
	uint64_t n = 0;
	int k;

	for (k = 0; k < 8; k++)
		n |= (uint64_t)(unsigned char)b->buf[k] << (8 * k);
	n += (uint64_t)(int64_t)delta;
	for (k = 0; k < 8; k++)
		b->buf[k] = (char)(n >> (8 * k));
}

/* A blob of a megabyte or more is inflated on a second thread while the
 * first decodes, by zlib or by ISA-L: the same tree, and its corruptions
 * the same errors. */
static void test_large(const char *with)
{
	struct tk_profile a, b;
	struct tk_buf blob = TK_BUF_INIT, bad = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	size_t at[3], i, refused = 0;
	int delta;

	diag(with);
	tk_profile_init(&a, TK_UNIT_SAMPLES);
	build(&a, 7, 60000);
	is_int(tk_profile_encode(&a, &blob, &err), 0, "a large profile encodes");
	ok(blob.len >= (1u << 20), "to a blob of a megabyte or more (%zu bytes)", blob.len);
	tk_profile_init(&b, TK_UNIT_BYTES);
	is_int(tk_profile_decode(blob.buf, blob.len, "big", &b, &err), 0, "and decodes: %s",
	       err.msg);
	is_int(b.nr_nodes, a.nr_nodes, "every node survives (%u)", a.nr_nodes);
	ok(tk_profile_total(&a) == tk_profile_total(&b), "the total is exact");
	ok(same_tree(&a, 0, &b, 0), "every path has its self weight");
	ok(totals_exact(&b), "every total is tk_profile_finish's, to the bit");
	tk_profile_release(&b);

	/* the stream cut short: the inflater stops midway */
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(blob.buf, blob.len / 2, "cut", &b, &err), TK_EDATA,
	       "a blob cut in half is refused");
	is_str(err.msg, "corrupt stored profile 'cut': bad compressed data", "as bad data");
	tk_profile_release(&b);

	/* a stated size one byte short of the stream, or one past it */
	for (delta = -1; delta <= 1; delta += 2) {
		tk_buf_reset(&bad);
		tk_buf_add(&bad, blob.buf, blob.len);
		restate(&bad, delta);
		tk_profile_init(&b, TK_UNIT_SAMPLES);
		is_int(tk_profile_decode(bad.buf, bad.len, "size", &b, &err), TK_EDATA,
		       "a stated size %+d byte off is refused", delta);
		is_str(err.msg, "corrupt stored profile 'size': bad compressed data", "as bad data");
		tk_profile_release(&b);
	}

	/* a zlib header zlib refuses, its check bits right: a window of
	 * 64 KiB (CINFO 8); a preset dictionary (FDICT) */
	for (i = 0; i < 2; i++) {
		tk_buf_reset(&bad);
		tk_buf_add(&bad, blob.buf, blob.len);
		bad.buf[8] = (char)(i ? 0x78 : 0x88);
		bad.buf[9] = (char)(i ? 0xbb : 0x1c);
		tk_profile_init(&b, TK_UNIT_SAMPLES);
		is_int(tk_profile_decode(bad.buf, bad.len, "head", &b, &err), TK_EDATA,
		       "a zlib header with %s is refused", i ? "a preset dictionary" : "a 64 KiB window");
		tk_profile_release(&b);
	}

	/* bytes flipped early, midway and late in the stream */
	at[0] = 100;
	at[1] = blob.len / 2;
	at[2] = blob.len - 20;
	for (i = 0; i < 3; i++) {
		tk_buf_reset(&bad);
		tk_buf_add(&bad, blob.buf, blob.len);
		bad.buf[at[i]] ^= 0x5a;
		tk_profile_init(&b, TK_UNIT_SAMPLES);
		if (tk_profile_decode(bad.buf, bad.len, "flip", &b, &err) == TK_EDATA &&
		    strstr(err.msg, "corrupt stored profile 'flip'"))
			refused++;
		tk_profile_release(&b);
	}
	is_int((int)refused, 3, "a flipped byte anywhere is refused");
	/* the stream's own checksum (adler32, its last 4 bytes) flipped */
	tk_buf_reset(&bad);
	tk_buf_add(&bad, blob.buf, blob.len);
	bad.buf[blob.len - 2] ^= 0x01;
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(bad.buf, bad.len, "sum", &b, &err), TK_EDATA,
	       "a wrong checksum is refused");
	is_str(err.msg, "corrupt stored profile 'sum': bad compressed data", "as bad data");
	tk_profile_release(&b);

	/* bytes after the stream that are no trailer */
	tk_buf_reset(&bad);
	tk_buf_add(&bad, blob.buf, blob.len);
	tk_buf_add(&bad, "junk", 4);
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(bad.buf, bad.len, "junk", &b, &err), TK_EDATA,
	       "junk after the stream is refused");
	ok(strstr(err.msg, "4 bytes after the compressed data") != NULL, "naming it: %s", err.msg);
	tk_profile_release(&b);

	/* the trailers after a large stream: where the stream ends is known */
	a.dispersion = 0.25;
	tk_profile_set_category(&a, tk_profile_intern(&a, "solve", 5), TK_CAT_GC);
	tk_buf_reset(&blob);
	is_int(tk_profile_encode(&a, &blob, &err), 0, "with both trailers, it encodes");
	tk_profile_init(&b, TK_UNIT_SAMPLES);
	is_int(tk_profile_decode(blob.buf, blob.len, "trailers", &b, &err), 0,
	       "and decodes: %s", err.msg);
	ok(b.dispersion == 0.25, "the dispersion is back");
	is_int(tk_profile_category(&b, tk_profile_intern(&b, "solve", 5)), TK_CAT_GC,
	       "the category is back");
	tk_profile_release(&b);
	tk_buf_release(&bad);
	tk_buf_release(&blob);
	tk_profile_release(&a);
}

/* 1 when libisal is mapped into this process. */
static int isal_mapped(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "libisal") != NULL;
	fclose(f);
	return found;
}

/* The large blobs again with each inflater; ISA-L is what a build with
 * it uses, and the machines CI runs on have it. */
static void test_inflaters(void)
{
	const char *ci = getenv("CI");

	tk_profile_decode_use_isal(0);
	test_large("zlib");
	ok(!isal_mapped(), "zlib alone: ISA-L was not loaded");
	tk_profile_decode_use_isal(1);
	if (!tk_profile_isal_available()) {
		/* CI installs libisal-dev (ci/install-deps.sh): there, a
		 * build without it is a failure, not a skip */
		ok(!(ci && !strcmp(ci, "true")), "ISA-L is available under CI");
		skip(24, "tracker was built without ISA-L, or libisal.so.2 is missing");
		return;
	}
	test_large("ISA-L");
	ok(isal_mapped(), "ISA-L was loaded and used");
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
	test_inflaters();
	categories();
	{
		/* a header that claims 1 GiB for 16 compressed bytes (found by
		 * fuzz/tkprof.c): refused before anything is allocated */
		unsigned char lie[24] = { 0, 0, 0, 0x40, 0, 0, 0, 0, 0x78, 0x9c };
		struct tk_profile c;

		tk_profile_init(&c, TK_UNIT_SAMPLES);
		is_int(tk_profile_decode(lie, sizeof(lie), "lie", &c, &err), TK_EDATA,
		       "a size no deflate stream can give is corrupt: %s", err.msg);
		tk_profile_release(&c);
	}
	return done_testing();
}
