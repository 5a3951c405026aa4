#include "core/base/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/err.h"
#include "core/base/banned.h"

char tk_buf_empty[1];

static void oom(size_t n)
{
	fprintf(stderr, "tracker: out of memory allocating %zu bytes\n", n);
	abort();
}

void *tk_xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *tk_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *tk_realloc_array(void *p, size_t n, size_t size)
{
	void *q;

	if (size && n > SIZE_MAX / size)
		oom(SIZE_MAX);
	q = realloc(p, n * size > 0 ? n * size : 1);
	if (!q)
		oom(n * size);
	return q;
}

char *tk_xstrdup(const char *s)
{
	return tk_xstrndup(s, strlen(s));
}

char *tk_xstrndup(const char *s, size_t n)
{
	char *p = tk_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void tk_buf_init(struct tk_buf *b, size_t hint)
{
	b->buf = tk_buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->cap = 0;
	if (hint)
		tk_buf_grow(b, hint);
}

void tk_buf_release(struct tk_buf *b)
{
	if (b->alloc)
		free(b->buf);
	b->buf = tk_buf_empty;
	b->len = 0;
	b->alloc = 0;
}

void tk_buf_reset(struct tk_buf *b)
{
	tk_buf_setlen(b, 0);
}

char *tk_buf_detach(struct tk_buf *b, size_t *len)
{
	char *s = b->alloc ? b->buf : tk_xstrdup("");

	if (len)
		*len = b->len;
	b->buf = tk_buf_empty;
	b->len = 0;
	b->alloc = 0;
	return s;
}

int tk_buf_grow(struct tk_buf *b, size_t extra)
{
	size_t want;
	int fresh = !b->alloc;

	if (extra > SIZE_MAX - b->len - 1)
		oom(SIZE_MAX);
	want = b->len + extra + 1;
	if (b->cap && b->len + extra > b->cap)
		return TK_EDATA;
	if (want <= b->alloc)
		return 0;
	if (fresh)
		b->buf = NULL;
	TK_ALLOC_GROW(b->buf, want, b->alloc);
	if (fresh)
		b->buf[0] = '\0';
	return 0;
}

void tk_buf_setlen(struct tk_buf *b, size_t len)
{
	if (!b->alloc)
		return;
	b->len = len;
	b->buf[len] = '\0';
}

int tk_buf_add(struct tk_buf *b, const void *data, size_t len)
{
	if (!len)
		return 0;
	if (tk_buf_grow(b, len))
		return TK_EDATA;
	memcpy(b->buf + b->len, data, len);
	tk_buf_setlen(b, b->len + len);
	return 0;
}

int tk_buf_adds(struct tk_buf *b, const char *s)
{
	return tk_buf_add(b, s, strlen(s));
}

int tk_buf_addch(struct tk_buf *b, int c)
{
	char ch = (char)c;

	return tk_buf_add(b, &ch, 1);
}

int tk_buf_vaddf(struct tk_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return TK_EINTERNAL;
	if (tk_buf_grow(b, (size_t)n))
		return TK_EDATA;
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	tk_buf_setlen(b, b->len + (size_t)n);
	return 0;
}

int tk_buf_addf(struct tk_buf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tk_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return r;
}

void tk_buf_trim(struct tk_buf *b)
{
	size_t start = 0, end = b->len;

	while (end > 0 && (b->buf[end - 1] == ' ' || b->buf[end - 1] == '\t' ||
			   b->buf[end - 1] == '\n' || b->buf[end - 1] == '\r'))
		end--;
	while (start < end && (b->buf[start] == ' ' || b->buf[start] == '\t' ||
			       b->buf[start] == '\n' || b->buf[start] == '\r'))
		start++;
	if (!b->alloc)
		return;
	memmove(b->buf, b->buf + start, end - start);
	tk_buf_setlen(b, end - start);
}

int tk_buf_read_file(struct tk_buf *b, const char *path, struct tk_err *err)
{
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return tk_err_set(err, TK_EUNAVAIL, "cannot open '%s': %s",
				  path, strerror(errno));
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return tk_err_set(err, TK_EUNAVAIL, "cannot read '%s': %s",
					  path, strerror(e));
		}
		if (n == 0)
			break;
		if (tk_buf_add(b, chunk, (size_t)n)) {
			close(fd);
			return tk_err_set(err, TK_EDATA, "'%s' is larger than %zu bytes",
					  path, b->cap);
		}
	}
	close(fd);
	return 0;
}
