#include "core/stacks.h"

#include <stdlib.h>
#include <string.h>

#include "core/banned.h"

static int cmp_line(const void *a, const void *b, void *arg)
{
	const struct tk_stack_line *x = a, *y = b;
	const char *base = arg;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(base + x->off, base + y->off, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

static void add_name(struct tk_buf *b, const char *s)
{
	for (; *s; s++)
		tk_buf_addch(b, *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* Depth-first with an explicit stack (profiles can be 65536 deep),
 * keeping the path text of the current node and its length per depth. */
void tk_stack_list_build(const struct tk_profile *p, tk_stack_keep_fn keep, void *data,
			 struct tk_stack_list *out)
{
	struct tk_buf path = TK_BUF_INIT;
	size_t *plen = NULL, plen_alloc = 0, sp = 0, stack_alloc = 0;
	uint32_t *stack = NULL, *depth_of = tk_xcalloc(p->nr_nodes ? p->nr_nodes : 1,
						      sizeof(uint32_t));

	tk_buf_init(&out->text, 0);
	TK_ALLOC_GROW(stack, 1, stack_alloc);
	stack[sp++] = TK_PROFILE_ROOT;
	while (sp) {
		uint32_t n = stack[--sp], c, d = depth_of[n];

		if (n != TK_PROFILE_ROOT) {
			TK_ALLOC_GROW(plen, d + 1, plen_alloc);
			tk_buf_setlen(&path, d > 1 ? plen[d - 1] : 0);
			if (d > 1)
				tk_buf_addch(&path, ';');
			add_name(&path, tk_profile_name(p, n));
			plen[d] = path.len;
			if (keep(p, n, data)) {
				TK_ALLOC_GROW(out->lines, out->nr + 1, out->alloc);
				out->lines[out->nr].off = out->text.len;
				out->lines[out->nr].len = path.len;
				out->lines[out->nr].node = n;
				tk_buf_add(&out->text, path.buf, path.len);
				out->nr++;
			}
		}
		for (c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling) {
			TK_ALLOC_GROW(stack, sp + 1, stack_alloc);
			depth_of[c] = d + 1;
			stack[sp++] = c;
		}
	}
	qsort_r(out->lines, out->nr, sizeof(*out->lines), cmp_line, out->text.buf);
	tk_buf_release(&path);
	free(plen);
	free(stack);
	free(depth_of);
}

void tk_stack_list_release(struct tk_stack_list *l)
{
	tk_buf_release(&l->text);
	free(l->lines);
	memset(l, 0, sizeof(*l));
}
