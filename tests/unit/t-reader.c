/*
 * tk_reader_read: raw bytes after what a probe peeked, in pieces of any
 * size, from memory, a plain file and a gzip file (decompressed), 0 bytes
 * only at the end; a gzip file cut short is an error naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/base/buf.h"
#include "core/base/reader.h"
#include "tests/unit/tap.h"

static void make_text(struct tk_buf *b)
{
	int i;

	for (i = 0; i < 200000; i++)
		tk_buf_addf(b, "line %d of the input\n", i);
}

/* Peeks 10 bytes, then reads in pieces of `piece`: all of it comes back. */
static int read_all(struct tk_reader *r, size_t piece, struct tk_buf *out, struct tk_err *err)
{
	const char *head;
	size_t len, got;
	char *tmp = malloc(piece);
	int ret = tk_reader_peek(r, 10, &head, &len, err);

	while (!ret) {
		ret = tk_reader_read(r, tmp, piece, &got, err);
		tk_buf_add(out, tmp, got);
		if (ret || !got)
			break;
	}
	free(tmp);
	return ret;
}

int main(void)
{
	struct tk_buf text = TK_BUF_INIT, out = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_reader r;
	char plain[] = "/tmp/t-reader-XXXXXX", gz[64];
	static const size_t pieces[] = { 1, 7, 4096, 1 << 20, 64 << 20 };
	size_t i;
	int fd, ret, whole;
	gzFile g;
	FILE *f;

	make_text(&text);

	for (i = 0, whole = 1; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		tk_buf_reset(&out);
		tk_reader_from_mem(&r, "mem", text.buf, text.len);
		ret = read_all(&r, pieces[i], &out, &err);
		whole &= !ret && out.len == text.len && !memcmp(out.buf, text.buf, text.len) &&
			 r.offset == text.len;
		tk_reader_close(&r);
	}
	ok(whole, "memory: every piece size gives the whole input back");

	fd = mkstemp(plain);
	ok(fd >= 0 && write(fd, text.buf, text.len) == (ssize_t)text.len, "wrote a plain file");
	close(fd);
	for (i = 0, whole = 1; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		tk_buf_reset(&out);
		ret = tk_reader_open(&r, plain, &err);
		ret = ret ? ret : read_all(&r, pieces[i], &out, &err);
		whole &= !ret && out.len == text.len && !memcmp(out.buf, text.buf, text.len);
		tk_reader_close(&r);
	}
	ok(whole, "plain file: every piece size gives the whole file back");

	snprintf(gz, sizeof(gz), "%s.gz", plain);
	g = gzopen(gz, "wb");
	ok(g && gzwrite(g, text.buf, (unsigned)text.len) == (int)text.len && gzclose(g) == Z_OK,
	   "wrote a gzip file");
	tk_buf_reset(&out);
	ret = tk_reader_open(&r, gz, &err);
	ret = ret ? ret : read_all(&r, 4096, &out, &err);
	ok(!ret && out.len == text.len && !memcmp(out.buf, text.buf, text.len),
	   "gzip: the decompressed bytes come back (%s)", err.msg);
	tk_reader_close(&r);

	/* Cut the gzip file in half. */
	{
		struct tk_buf z = TK_BUF_INIT;

		ok(!tk_buf_read_file(&z, gz, NULL), "read the gzip file back");
		f = fopen(gz, "wb");
		ok(f && fwrite(z.buf, 1, z.len / 2, f) == z.len / 2 && !fclose(f), "cut it in half");
		tk_buf_release(&z);
	}
	tk_buf_reset(&out);
	ret = tk_reader_open(&r, gz, &err);
	ret = ret ? ret : read_all(&r, 4096, &out, &err);
	is_int(ret, TK_EDATA, "a gzip file cut short is an error");
	ok(strstr(err.msg, gz) && strstr(err.msg, "truncated gzip data"), "saying so: %s", err.msg);
	ok(out.len > 0 && out.len < text.len && !memcmp(out.buf, text.buf, out.len),
	   "after the bytes that could be read (%zu)", out.len);
	tk_reader_close(&r);

	unlink(plain);
	unlink(gz);
	tk_buf_release(&text);
	tk_buf_release(&out);
	return done_testing();
}
