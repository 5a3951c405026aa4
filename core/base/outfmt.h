#ifndef TK_OUTFMT_H
#define TK_OUTFMT_H
/*
 * Output formats: the one way every command picks what it writes, by the
 * output file's extension (-o amip.png, --plot x.html) or by a --format
 * name (table, csv, json; text, markdown). A writer lists its formats in
 * a table of struct tk_outfmt; these functions look them up and name
 * them in messages, so every command matches extensions the same way
 * (case-insensitively, on the file name's end, so that ".pb.gz" works)
 * and says the same about an unknown one.
 */
#include <stddef.h>

#include "core/base/buf.h"

struct tk_outfmt {
	int id;           /* the writer's own (an enum of its formats) */
	const char *name; /* its --format name; NULL: none */
	const char *ext;  /* the extension that picks it, dot included
			     (".html"); NULL: none. Several rows may share
			     an id (".html" and ".htm"). */
};

/* 1 when the last component of path ends with ext (".svg", ".pb.gz"),
 * case-insensitively (a file named ".svg" has it). */
int tk_path_has_ext(const char *path, const char *ext);

/* The row of t (n rows) whose extension path has; NULL when none. */
const struct tk_outfmt *tk_outfmt_by_path(const struct tk_outfmt *t, size_t n,
					  const char *path);
/* The row of t named name (exactly); NULL when none. */
const struct tk_outfmt *tk_outfmt_by_name(const struct tk_outfmt *t, size_t n,
					  const char *name);
/*
 * Appends t's extensions (by_ext) or names, each once, in table order,
 * joined by sep (", ") and, before the last, by last (" or "; NULL: sep):
 * ".png, .pdf, .svg or .html".
 */
void tk_outfmt_list(const struct tk_outfmt *t, size_t n, int by_ext, const char *sep,
		    const char *last, struct tk_buf *out);

#endif
