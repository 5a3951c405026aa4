#ifndef TK_TABLE_H
#define TK_TABLE_H
/*
 * Text output helpers: an aligned text table, CSV fields, and untrusted
 * text made safe for a terminal.
 *
 * A table collects every cell first (alignment needs the widest), then
 * prints header and rows with two spaces between columns. Cells are
 * copied, escaped as tk_text_escape says; NULL prints as "-". Columns flagged right-aligned suit numbers.
 * headers and right are borrowed and must outlive the table. The table
 * only prints to the FILE * it is given; write errors are the caller's to
 * check (ferror). Memory grows with the cells; tk_table_release frees
 * them and leaves an empty table of the same columns.
 */
#include <stdio.h>

#include "core/base/buf.h"

struct tk_table {
	size_t ncols;
	const char *const *headers;
	const unsigned char *right; /* per column: 1 right-aligns, may be NULL */
	char **cells;               /* rows * ncols */
	size_t nr_cells, alloc;
};

void tk_table_init(struct tk_table *t, size_t ncols, const char *const *headers,
		   const unsigned char *right);
/* Appends one cell; rows fill left to right, ncols cells per row. */
void tk_table_add(struct tk_table *t, const char *cell);
size_t tk_table_rows(const struct tk_table *t);
void tk_table_print(const struct tk_table *t, FILE *f);
void tk_table_release(struct tk_table *t);

/*
 * Appends s as one CSV field (RFC 4180): quoted when it holds a comma, a
 * quote, CR or LF, with quotes doubled. NULL is an empty field.
 *
 * Text that a spreadsheet would run as a formula (starting with = + - @,
 * TAB or CR) gets a leading single quote first, so a branch named
 * "=HYPERLINK(...)" stays text; tk_csv_text does that, tk_csv_raw does
 * not (for numbers and values tracker produced itself).
 */
void tk_csv_text(struct tk_buf *out, const char *s);
void tk_csv_raw(struct tk_buf *out, const char *s);

/*
 * Appends s[0..len) for a terminal or a text file, so that no byte of it
 * moves the cursor, ends a line or starts an escape sequence: the C0
 * controls (0x00-0x1f, TAB, CR and LF included), DEL (0x7f), the C1
 * controls (U+0080-U+009F, in UTF-8 "\xc2\x80"-"\xc2\x9f") and every
 * byte that is not part of a valid UTF-8 sequence (a lone 0x9b is an
 * 8-bit CSI to some terminals) are written as "\xNN", one per byte;
 * every other byte (valid UTF-8) as it is. Every text sink
 * of user strings (tables, .txt outputs, messages) goes through it; CSV
 * and JSON keep the exact values, quoted by their own rules.
 */
void tk_text_escape(struct tk_buf *out, const char *s, size_t len);
/* tmp reset to the escaped form of the C string s (NULL: "-"); returns
 * tmp->buf, for printf's "%s". */
const char *tk_text_shown(struct tk_buf *tmp, const char *s);

#endif
