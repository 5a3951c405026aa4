/*
 * .folded: collapsed stacks, one line per node with self weight, sorted
 * by stack: the input format of flamegraph.pl, and a conversion from any
 * importer. It walks the profile tree, not the layout, so --minwidth
 * never drops data from it.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/render.h"
#include "core/timeutil.h"
#include "core/banned.h"

struct line {
	size_t off, len;
	double weight;
};

static int cmp_line(const void *a, const void *b, void *arg)
{
	const struct line *x = a, *y = b;
	const char *base = arg;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(base + x->off, base + y->off, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

static int folded_render(const struct tk_profile *p, const struct tk_flame *f,
			 const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	struct tk_buf text = TK_BUF_INIT, path = TK_BUF_INIT, row = TK_BUF_INIT;
	struct line *lines = NULL;
	size_t nr = 0, alloc = 0, i;
	size_t *plen = NULL, plen_alloc = 0;
	uint32_t *stack = NULL, *depth_of = NULL;
	size_t sp = 0, stack_alloc = 0;
	int ret = 0;

	/* Depth-first walk keeping the path text; every node with self
	 * weight becomes a line. */
	depth_of = tk_xcalloc(p->nr_nodes, sizeof(uint32_t));
	TK_ALLOC_GROW(stack, 1, stack_alloc);
	stack[sp++] = TK_PROFILE_ROOT;
	while (sp) {
		uint32_t n = stack[--sp], c;
		uint32_t d = depth_of[n];

		if (n != TK_PROFILE_ROOT) {
			TK_ALLOC_GROW(plen, d + 1, plen_alloc);
			tk_buf_setlen(&path, d > 1 ? plen[d - 1] : 0);
			if (d > 1)
				tk_buf_addch(&path, ';');
			tk_buf_adds(&path, tk_profile_name(p, n));
			plen[d] = path.len;
			if (p->nodes[n].self != 0) {
				TK_ALLOC_GROW(lines, nr + 1, alloc);
				lines[nr].off = text.len;
				lines[nr].len = path.len;
				lines[nr].weight = p->nodes[n].self;
				tk_buf_add(&text, path.buf, path.len);
				nr++;
			}
		}
		for (c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling) {
			TK_ALLOC_GROW(stack, sp + 1, stack_alloc);
			depth_of[c] = d + 1;
			stack[sp++] = c;
		}
	}
	qsort_r(lines, nr, sizeof(*lines), cmp_line, text.buf);
	for (i = 0; i < nr; i++) {
		tk_buf_reset(&row);
		tk_buf_add(&row, text.buf + lines[i].off, lines[i].len);
		tk_buf_addch(&row, ' ');
		tk_format_weight(&row, lines[i].weight);
		tk_buf_addch(&row, '\n');
		if (fwrite(row.buf, 1, row.len, out) != row.len) {
			ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the folded output");
			break;
		}
	}
	tk_buf_release(&text);
	tk_buf_release(&path);
	tk_buf_release(&row);
	free(lines);
	free(plen);
	free(stack);
	free(depth_of);
	(void)f;
	(void)o;
	return ret;
}

const struct tk_renderer tk_render_folded = {
	.version = TK_RENDERER_VERSION,
	.name = "folded",
	.ext = ".folded",
	.render = folded_render,
};

