#ifndef TK_ARENA_H
#define TK_ARENA_H
/*
 * A bump allocator: many small allocations, freed together in one call.
 * Profile frame names live here. Blocks are at least 64 KiB; an
 * allocation larger than a block gets a block of its own. Allocation
 * failure aborts, as with tk_xmalloc.
 */
#include <stddef.h>

struct tk_arena_block;

struct tk_arena {
	struct tk_arena_block *head;
	size_t used;  /* bytes handed out, for statistics */
};

#define TK_ARENA_INIT { NULL, 0 }

void *tk_arena_alloc(struct tk_arena *a, size_t size, size_t align);
/* A NUL-terminated copy of s[0..len). */
char *tk_arena_strndup(struct tk_arena *a, const char *s, size_t len);
void tk_arena_release(struct tk_arena *a);

#endif
