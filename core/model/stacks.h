#ifndef TK_STACKS_H
#define TK_STACKS_H
/*
 * A profile's call paths as text, for the folded outputs: for every node
 * that keep() accepts, the names from the root joined by ';', sorted by
 * the bytes of the path.
 *
 * A path always reads back as the same frames (plugins/import/folded.c
 * decodes it): a byte that would split or end the line, or be taken for
 * a comment or a count, is written as "\xHH" (two lower-case hex digits):
 *   - ';', '\n', '\r' and NUL anywhere in a name;
 *   - '\' when "xHH" follows it (so a literal "\x41" survives);
 *   - '#' as the first byte of the path (a comment line otherwise);
 *   - a space or tab in the tail of the last name made only of spaces,
 *     tabs, digits and dots ("f 12" would be read as a count).
 * Any other byte, invalid UTF-8 included, is written as it is.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/model/profile.h"

struct tk_stack_line {
	size_t off, len; /* the path: text.buf + off, len bytes (not terminated) */
	uint32_t node;
};

struct tk_stack_list {
	struct tk_buf text;
	struct tk_stack_line *lines;
	size_t nr, alloc;
};

typedef int (*tk_stack_keep_fn)(const struct tk_profile *p, uint32_t node, void *data);

/* out must be zeroed (or released) before. */
void tk_stack_list_build(const struct tk_profile *p, tk_stack_keep_fn keep, void *data,
			 struct tk_stack_list *out);
void tk_stack_list_release(struct tk_stack_list *l);

#endif
