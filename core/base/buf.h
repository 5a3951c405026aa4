#ifndef TK_BUF_H
#define TK_BUF_H
/*
 * A growable byte buffer. `buf` is never NULL and always NUL-terminated, so
 * it can be handed to C string functions at any time. An optional cap bounds
 * growth when the contents come from untrusted input: an append that would
 * pass the cap fails with TK_EDATA and leaves the buffer unchanged.
 *
 * Lifecycle: tk_buf_init (or TK_BUF_INIT), appends, tk_buf_release to free.
 * tk_buf_reset empties it but keeps the allocation. tk_buf_detach hands the
 * string to the caller (who frees it) and leaves the buffer empty.
 *
 * Allocation failure aborts: tracker cannot do anything useful without
 * memory, and every caller checking it would hide the real error paths.
 */
#include <stdarg.h>
#include <stddef.h>

struct tk_buf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t cap; /* 0: unbounded */
};

extern char tk_buf_empty[];
#define TK_BUF_INIT { tk_buf_empty, 0, 0, 0 }

void tk_buf_init(struct tk_buf *b, size_t hint);
void tk_buf_release(struct tk_buf *b);
void tk_buf_reset(struct tk_buf *b);
char *tk_buf_detach(struct tk_buf *b, size_t *len);

/* Each returns 0, or TK_EDATA when the cap would be passed. */
int tk_buf_grow(struct tk_buf *b, size_t extra);
int tk_buf_add(struct tk_buf *b, const void *data, size_t len);
int tk_buf_adds(struct tk_buf *b, const char *s);
int tk_buf_addch(struct tk_buf *b, int c);
int tk_buf_addf(struct tk_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int tk_buf_vaddf(struct tk_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

void tk_buf_setlen(struct tk_buf *b, size_t len);
void tk_buf_trim(struct tk_buf *b);

/*
 * Reads the whole file into b (appending). Returns 0, TK_EUNAVAIL when it
 * cannot be opened or read (message names the path), TK_EDATA past the cap.
 */
struct tk_err;
int tk_buf_read_file(struct tk_buf *b, const char *path, struct tk_err *err);

/* Grows an array `x` of `nr` used and `alloc` allocated elements to hold
 * at least `want`. Aborts on overflow or allocation failure. */
#define TK_ALLOC_GROW(x, want, alloc) do { \
		if ((size_t)(want) > (size_t)(alloc)) { \
			size_t tk_n_ = (alloc) < 8 ? 16 : (size_t)(alloc) * 3 / 2; \
			if (tk_n_ < (size_t)(want)) \
				tk_n_ = (want); \
			(x) = tk_realloc_array((x), tk_n_, sizeof(*(x))); \
			(alloc) = tk_n_; \
		} \
	} while (0)

void *tk_realloc_array(void *p, size_t n, size_t size);
void *tk_xmalloc(size_t size);
void *tk_xcalloc(size_t n, size_t size);
char *tk_xstrdup(const char *s);
char *tk_xstrndup(const char *s, size_t n);

#endif
