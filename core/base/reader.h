#ifndef TK_READER_H
#define TK_READER_H
/*
 * A bounded reader: how importers see their input. Core opens the file
 * (importers never fopen), decompresses gzip transparently, and hands out
 * lines or the whole content under caps, counting lines and bytes so that
 * every error can name the file and the line or offset.
 *
 * Lines are returned without their "\n" (and without a "\r" before it);
 * the pointer is valid until the next call. A line longer than max_line
 * is an error (TK_EDATA, "'<name>' line N is longer than M bytes") and is
 * never buffered whole: memory stays bounded by max_line.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"

struct tk_reader {
	char *name;          /* for messages: the path, or a label */
	void *gz;            /* gzFile: gzip input, or a pipe (zlib tells) */
	int fd;              /* a plain file, read directly; -1 otherwise */
	const char *mem;     /* memory input */
	size_t mem_len, mem_pos;
	char *buf;           /* read buffer */
	size_t buf_len, buf_pos, buf_alloc;
	int eof;
	uint64_t line_no;    /* of the line last returned, 1-based */
	uint64_t offset;     /* bytes consumed so far (decompressed) */
	size_t max_line;
	struct tk_buf line;  /* a line that straddles buffer refills */
	int compressed;      /* the input was gzip */
};

#define TK_READER_MAX_LINE (64u << 20)

int tk_reader_open(struct tk_reader *r, const char *path, struct tk_err *err);
/* The same for a file where others may write (core/base/fsutil.h
 * tk_open_shared): no symbolic link, a regular file of at most max bytes
 * (0: any) as stored (compressed or not). */
int tk_reader_open_shared(struct tk_reader *r, const char *path, uint64_t max,
			  struct tk_err *err);
/* Reads from memory (not copied; must outlive the reader). */
void tk_reader_from_mem(struct tk_reader *r, const char *name, const char *data,
			size_t len);
void tk_reader_close(struct tk_reader *r);

/*
 * Makes at least n bytes (fewer at end of input) visible at *head without
 * consuming them, for content probes. Returns 0 or a negative code.
 */
int tk_reader_peek(struct tk_reader *r, size_t n, const char **head, size_t *len,
		   struct tk_err *err);

/* The next line: 1 with *line and *len set, 0 at end of input, or a negative code. */
int tk_reader_line(struct tk_reader *r, const char **line, size_t *len,
		   struct tk_err *err);

/*
 * Raw bytes for a reader that splits the input itself (an importer that
 * parses on several threads): up to n bytes of the input (after any the
 * last peek made visible) into dst; *got is 0 only at the end of input.
 * Lines are not counted. Returns 0 or a negative code (a read error, or
 * gzip data cut short).
 */
int tk_reader_read(struct tk_reader *r, char *dst, size_t n, size_t *got,
		   struct tk_err *err);

/* Appends the rest of the input to out; TK_EDATA past cap bytes. */
int tk_reader_slurp(struct tk_reader *r, struct tk_buf *out, size_t cap,
		    struct tk_err *err);

#endif
