#ifndef TK_TABLE_H
#define TK_TABLE_H
/*
 * Text output helpers: an aligned text table and CSV fields. Cells reach
 * the terminal escaped by the text rule (core/base/escape.h).
 *
 * A table collects every cell first (alignment needs the widest), then
 * prints header and rows with two spaces between columns. Cells are
 * copied, escaped as tk_text_escape says (core/base/escape.h); NULL prints as "-". Columns flagged right-aligned suit numbers.
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

#endif
