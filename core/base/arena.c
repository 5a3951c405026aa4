#include "core/base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

#define BLOCK_SIZE (64 * 1024)

struct tk_arena_block {
	struct tk_arena_block *next;
	size_t size, pos;
	max_align_t data[];
};

void *tk_arena_alloc(struct tk_arena *a, size_t size, size_t align)
{
	struct tk_arena_block *b = a->head;
	size_t pos;

	if (!align)
		align = 1;
	if (b) {
		pos = (b->pos + align - 1) & ~(align - 1);
		if (pos + size <= b->size) {
			b->pos = pos + size;
			a->used += size;
			return (char *)b->data + pos;
		}
	}
	{
		size_t want = size + align > BLOCK_SIZE ? size + align : BLOCK_SIZE;

		b = tk_xmalloc(sizeof(*b) + want);
		b->size = want;
		b->pos = 0;
		/* A large allocation goes behind the current block, so the
		 * current block's free space stays usable. */
		if (a->head && size + align > BLOCK_SIZE) {
			b->next = a->head->next;
			a->head->next = b;
		} else {
			b->next = a->head;
			a->head = b;
		}
	}
	pos = 0;
	b->pos = size;
	a->used += size;
	return (char *)b->data + pos;
}

char *tk_arena_strndup(struct tk_arena *a, const char *s, size_t len)
{
	char *p = tk_arena_alloc(a, len + 1, 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void tk_arena_release(struct tk_arena *a)
{
	struct tk_arena_block *b = a->head;

	while (b) {
		struct tk_arena_block *next = b->next;

		free(b);
		b = next;
	}
	a->head = NULL;
	a->used = 0;
}
