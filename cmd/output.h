#ifndef CMD_OUTPUT_H
#define CMD_OUTPUT_H
/*
 * Output helpers for the commands: an aligned text table and CSV fields.
 *
 * A table collects every cell first (alignment needs the widest), then
 * prints header and rows with two spaces between columns. Cells are
 * copied; NULL prints as "-". Columns flagged right-aligned suit numbers.
 */
#include <stdio.h>

#include "core/buf.h"

struct cmd_table {
	size_t ncols;
	const char *const *headers;
	const unsigned char *right; /* per column: 1 right-aligns, may be NULL */
	char **cells;               /* rows * ncols */
	size_t nr_cells, alloc;
};

void cmd_table_init(struct cmd_table *t, size_t ncols, const char *const *headers,
		    const unsigned char *right);
/* Appends one cell; rows fill left to right, ncols cells per row. */
void cmd_table_add(struct cmd_table *t, const char *cell);
size_t cmd_table_rows(const struct cmd_table *t);
void cmd_table_print(const struct cmd_table *t, FILE *f);
void cmd_table_release(struct cmd_table *t);

/*
 * Appends s as one CSV field (RFC 4180): quoted when it holds a comma, a
 * quote, CR or LF, with quotes doubled. NULL is an empty field.
 *
 * Text that a spreadsheet would run as a formula (starting with = + - @,
 * TAB or CR) gets a leading single quote first, so a branch named
 * "=HYPERLINK(...)" stays text; cmd_csv_text does that, cmd_csv_raw does
 * not (for numbers and values tracker produced itself).
 */
void cmd_csv_text(struct tk_buf *out, const char *s);
void cmd_csv_raw(struct tk_buf *out, const char *s);

#endif
