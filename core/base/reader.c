#include "core/base/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/base/fsutil.h"
#include "core/base/banned.h"

#define CHUNK (256 * 1024)

static void reset(struct tk_reader *r, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->name = tk_xstrdup(name);
	r->max_line = TK_READER_MAX_LINE;
	tk_buf_init(&r->line, 0);
}

static int open_fd(struct tk_reader *r, int fd, const char *path, struct tk_err *err)
{
	unsigned char magic[2];
	ssize_t n;

	n = pread(fd, magic, 2, 0);
	r->compressed = n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
	r->buf_alloc = CHUNK;
	r->buf = tk_xmalloc(r->buf_alloc);
	/* zlib would pass plain bytes through a buffer of its own: a copy
	 * of every byte of a large profile. A pipe (pread fails) still goes
	 * through zlib, which tells gzip from plain by what it reads. */
	if (n >= 0 && !r->compressed) {
		r->fd = fd;
		return 0;
	}
	r->gz = gzdopen(fd, "rb");
	if (!r->gz) {
		close(fd);
		return tk_err_set(err, TK_EINTERNAL, "cannot read '%s': out of memory", path);
	}
	gzbuffer(r->gz, CHUNK);
	return 0;
}

int tk_reader_open(struct tk_reader *r, const char *path, struct tk_err *err)
{
	int fd;

	reset(r, path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tk_err_set(err, TK_EUNAVAIL, "cannot open '%s': %s", path,
				  strerror(errno));
	return open_fd(r, fd, path, err);
}

int tk_reader_open_shared(struct tk_reader *r, const char *path, uint64_t max,
			  struct tk_err *err)
{
	struct tk_err local = TK_ERR_INIT;
	int fd;

	reset(r, path);
	fd = tk_open_shared(path, max, err ? err : &local);
	if (fd < 0)
		return err ? err->code : local.code;
	return open_fd(r, fd, path, err);
}

void tk_reader_from_mem(struct tk_reader *r, const char *name, const char *data,
			size_t len)
{
	reset(r, name);
	r->mem = data;
	r->mem_len = len;
	r->compressed = 0;
}

void tk_reader_close(struct tk_reader *r)
{
	if (r->gz)
		gzclose(r->gz);
	if (r->fd >= 0)
		close(r->fd);
	free(r->buf);
	free(r->name);
	tk_buf_release(&r->line);
	memset(r, 0, sizeof(*r));
}

/* refill's read of a plain file, into the room it made. */
static int refill_plain(struct tk_reader *r, struct tk_err *err)
{
	ssize_t n;

	do {
		n = read(r->fd, r->buf + r->buf_len, r->buf_alloc - r->buf_len);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return tk_err_set(err, TK_EDATA, "cannot read '%s' at byte %llu: %s", r->name,
				  (unsigned long long)(r->offset + r->buf_len - r->buf_pos),
				  strerror(errno));
	if (n == 0) {
		r->eof = 1;
		return 0;
	}
	r->buf_len += (size_t)n;
	return 1;
}

/* Refills the buffer, keeping unconsumed bytes. 1: more data, 0: eof. */
static int refill(struct tk_reader *r, struct tk_err *err)
{
	int n;

	if (r->eof)
		return 0;
	if (r->buf_pos) {
		memmove(r->buf, r->buf + r->buf_pos, r->buf_len - r->buf_pos);
		r->buf_len -= r->buf_pos;
		r->buf_pos = 0;
	}
	if (r->buf_len == r->buf_alloc) {
		r->buf_alloc *= 2;
		r->buf = tk_realloc_array(r->buf, r->buf_alloc, 1);
	}
	if (r->fd >= 0)
		return refill_plain(r, err);
	n = gzread(r->gz, r->buf + r->buf_len, (unsigned)(r->buf_alloc - r->buf_len));
	if (n < 0) {
		int zerr;
		const char *msg = gzerror(r->gz, &zerr);

		return tk_err_set(err, TK_EDATA, "cannot read '%s' at byte %llu: %s", r->name,
				  (unsigned long long)(r->offset + r->buf_len - r->buf_pos),
				  zerr == Z_ERRNO ? strerror(errno) : msg);
	}
	if (n == 0) {
		int zerr;

		gzerror(r->gz, &zerr);
		if (zerr == Z_BUF_ERROR || (r->compressed && !gzeof(r->gz)))
			return tk_err_set(err, TK_EDATA,
					  "cannot read '%s': truncated gzip data after %llu bytes",
					  r->name, (unsigned long long)(r->offset + r->buf_len));
		r->eof = 1;
		return 0;
	}
	r->buf_len += (size_t)n;
	return 1;
}

int tk_reader_peek(struct tk_reader *r, size_t n, const char **head, size_t *len,
		   struct tk_err *err)
{
	int ret;

	if (r->mem) {
		*head = r->mem + r->mem_pos;
		*len = r->mem_len - r->mem_pos;
		return 0;
	}
	while (r->buf_len - r->buf_pos < n) {
		ret = refill(r, err);
		if (ret < 0)
			return ret;
		if (!ret)
			break;
	}
	*head = r->buf + r->buf_pos;
	*len = r->buf_len - r->buf_pos;
	return 0;
}

static int too_long(struct tk_reader *r, struct tk_err *err)
{
	return tk_err_set(err, TK_EDATA, "'%s' line %llu is longer than %zu bytes",
			  r->name, (unsigned long long)r->line_no, r->max_line);
}

static int mem_line(struct tk_reader *r, const char **line, size_t *len,
		    struct tk_err *err)
{
	const char *p = r->mem + r->mem_pos, *nl;
	size_t left = r->mem_len - r->mem_pos, n;

	if (!left)
		return 0;
	r->line_no++;
	nl = memchr(p, '\n', left);
	n = nl ? (size_t)(nl - p) : left;
	if (n > r->max_line)
		return too_long(r, err);
	r->mem_pos += n + (nl != NULL);
	r->offset += n + (nl != NULL);
	if (n && p[n - 1] == '\r')
		n--;
	*line = p;
	*len = n;
	return 1;
}

int tk_reader_line(struct tk_reader *r, const char **line, size_t *len,
		   struct tk_err *err)
{
	size_t scanned = 0;

	if (r->mem)
		return mem_line(r, line, len, err);
	for (;;) {
		char *start = r->buf + r->buf_pos;
		size_t avail = r->buf_len - r->buf_pos;
		char *nl = memchr(start + scanned, '\n', avail - scanned);
		int ret;

		if (nl || (r->eof && avail)) {
			size_t n = nl ? (size_t)(nl - start) : avail;

			r->line_no++;
			if (n > r->max_line)
				return too_long(r, err);
			r->buf_pos += n + (nl != NULL);
			r->offset += n + (nl != NULL);
			if (n && start[n - 1] == '\r')
				n--;
			*line = start;
			*len = n;
			return 1;
		}
		if (r->eof)
			return 0;
		scanned = avail;
		if (scanned > r->max_line) {
			r->line_no++;
			return too_long(r, err);
		}
		/* Keep the buffer from growing past what one line may need. */
		ret = refill(r, err);
		if (ret < 0)
			return ret;
		if (!ret && r->buf_len == r->buf_pos)
			return 0;
		if (!ret)
			r->eof = 1;
		/* refill moved the data to the front; `scanned` still holds. */
	}
}

int tk_reader_slurp(struct tk_reader *r, struct tk_buf *out, size_t cap,
		    struct tk_err *err)
{
	size_t start = out->len;

	if (r->mem) {
		size_t left = r->mem_len - r->mem_pos;

		if (left > cap)
			return tk_err_set(err, TK_EDATA, "'%s' is larger than %zu bytes",
					  r->name, cap);
		tk_buf_add(out, r->mem + r->mem_pos, left);
		r->mem_pos = r->mem_len;
		r->offset += left;
		return 0;
	}
	for (;;) {
		size_t avail = r->buf_len - r->buf_pos;
		int ret;

		if (out->len - start + avail > cap)
			return tk_err_set(err, TK_EDATA, "'%s' is larger than %zu bytes",
					  r->name, cap);
		tk_buf_add(out, r->buf + r->buf_pos, avail);
		r->buf_pos = r->buf_len;
		r->offset += avail;
		ret = refill(r, err);
		if (ret <= 0)
			return ret;
	}
}

int tk_reader_read(struct tk_reader *r, char *dst, size_t n, size_t *got,
		   struct tk_err *err)
{
	size_t have = 0;

	*got = 0;
	if (r->mem) {
		have = r->mem_len - r->mem_pos < n ? r->mem_len - r->mem_pos : n;
		memcpy(dst, r->mem + r->mem_pos, have);
		r->mem_pos += have;
		r->offset += have;
		*got = have;
		return 0;
	}
	if (r->buf_pos < r->buf_len) {
		have = r->buf_len - r->buf_pos < n ? r->buf_len - r->buf_pos : n;
		memcpy(dst, r->buf + r->buf_pos, have);
		r->buf_pos += have;
		r->offset += have;
	}
	/* Straight into dst: no copy through the reader's buffer. */
	while (have < n && !r->eof && r->fd >= 0) {
		ssize_t k = read(r->fd, dst + have, n - have);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			*got = have;
			return tk_err_set(err, TK_EDATA, "cannot read '%s' at byte %llu: %s", r->name,
					  (unsigned long long)r->offset, strerror(errno));
		}
		if (k == 0)
			r->eof = 1;
		have += (size_t)k;
		r->offset += (size_t)k;
	}
	while (have < n && !r->eof) {
		size_t want = n - have < (1u << 30) ? n - have : (1u << 30);
		int k = gzread(r->gz, dst + have, (unsigned)want);

		if (k < 0) {
			int zerr;
			const char *msg = gzerror(r->gz, &zerr);

			*got = have;
			return tk_err_set(err, TK_EDATA, "cannot read '%s' at byte %llu: %s", r->name,
					  (unsigned long long)r->offset,
					  zerr == Z_ERRNO ? strerror(errno) : msg);
		}
		if (k == 0) {
			int zerr;

			gzerror(r->gz, &zerr);
			*got = have;
			if (zerr == Z_BUF_ERROR || (r->compressed && !gzeof(r->gz)))
				return tk_err_set(err, TK_EDATA,
						  "cannot read '%s': truncated gzip data after %llu bytes",
						  r->name, (unsigned long long)r->offset);
			r->eof = 1;
			break;
		}
		have += (size_t)k;
		r->offset += (size_t)k;
	}
	*got = have;
	return 0;
}
