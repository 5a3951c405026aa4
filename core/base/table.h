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
 * check (ferror). Memory grows with the cells (but see tk_table_stream);
 * tk_table_release frees them and leaves an empty table of the same
 * columns.
 */
#include <stdio.h>

#include "core/base/buf.h"

struct tk_table {
	size_t ncols;
	const char *const *headers;
	const unsigned char *right; /* per column: 1 right-aligns, may be NULL */
	char **cells;               /* rows * ncols */
	size_t nr_cells, alloc;
	/* tk_table_stream: where and after how many rows; the widths */
	FILE *stream;
	size_t window;
	size_t *w; /* non-NULL once the window is printed */
};

void tk_table_init(struct tk_table *t, size_t ncols, const char *const *headers,
		   const unsigned char *right);
/* Appends one cell; rows fill left to right, ncols cells per row. */
void tk_table_add(struct tk_table *t, const char *cell);
size_t tk_table_rows(const struct tk_table *t);
void tk_table_print(const struct tk_table *t, FILE *f);

/*
 * Makes t print itself to f once it holds window rows: the header and
 * those rows, aligned on their widths, then each later row as its last
 * cell is added, on the same widths (a wider cell widens its column from
 * that row on), so memory stays that of window rows however many come.
 * A table that never reaches window rows prints nothing until
 * tk_table_print(t, f), which prints it as a table that does not stream
 * would; after the window it prints nothing more.
 */
void tk_table_stream(struct tk_table *t, FILE *f, size_t window);
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
