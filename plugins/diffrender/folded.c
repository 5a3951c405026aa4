/*
 * .folded for diffs: three columns "stack base new", one line per call
 * path with a self weight on either side (and every leaf, so a "stack 0"
 * input line survives), sorted by stack: the input of flamegraph.pl's
 * differential mode, and what difffolded.pl writes. It walks the union
 * tree, never the layout, so nothing is pruned. The base column is after
 * normalization: with TK_DIFF_NORM_NONE the lines are exactly the union
 * of the two inputs. A weight is printed as an integer when it is one,
 * otherwise with the fewest digits that read back as the same double.
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diffrender.h"
#include "core/banned.h"

struct line {
	size_t off, len;
	uint32_t node;
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

static void add_weight(struct tk_buf *b, double w)
{
	char tmp[64];
	int prec;

	if (w == (double)(long long)w && w < 9e15 && w > -9e15) {
		tk_buf_addf(b, "%lld", (long long)w);
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, w);
		if (strtod(tmp, NULL) == w)
			break;
	}
	tk_buf_addf(b, "%.*g", prec, w);
}

/* A name on one line whatever it holds. */
static void add_name(struct tk_buf *b, const char *s)
{
	for (; *s; s++)
		tk_buf_addch(b, *s == '\n' || *s == '\r' ? ' ' : *s);
}

static int folded_render(const struct tk_diff *d, const struct tk_diff_opts *dopts,
			 const struct tk_diff_render_opts *o, FILE *out, struct tk_err *err)
{
	const struct tk_profile *p = &d->tree;
	struct tk_buf text = TK_BUF_INIT, path = TK_BUF_INIT, row = TK_BUF_INIT;
	struct line *lines = NULL;
	size_t nr = 0, alloc = 0, i;
	size_t *plen = NULL, plen_alloc = 0;
	uint32_t *stack = NULL, *depth_of;
	size_t sp = 0, stack_alloc = 0;
	int ret = 0;

	/* Depth-first walk keeping the path text. */
	depth_of = tk_xcalloc(p->nr_nodes ? p->nr_nodes : 1, sizeof(uint32_t));
	TK_ALLOC_GROW(stack, 1, stack_alloc);
	stack[sp++] = TK_PROFILE_ROOT;
	while (sp) {
		uint32_t n = stack[--sp], c;
		uint32_t dep = depth_of[n];

		if (n != TK_PROFILE_ROOT) {
			TK_ALLOC_GROW(plen, dep + 1, plen_alloc);
			tk_buf_setlen(&path, dep > 1 ? plen[dep - 1] : 0);
			if (dep > 1)
				tk_buf_addch(&path, ';');
			add_name(&path, tk_profile_name(p, n));
			plen[dep] = path.len;
			if (d->base_self[n] != 0 || d->new_self[n] != 0 ||
			    !p->nodes[n].first_child) {
				TK_ALLOC_GROW(lines, nr + 1, alloc);
				lines[nr].off = text.len;
				lines[nr].len = path.len;
				lines[nr].node = n;
				tk_buf_add(&text, path.buf, path.len);
				nr++;
			}
		}
		for (c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling) {
			TK_ALLOC_GROW(stack, sp + 1, stack_alloc);
			depth_of[c] = dep + 1;
			stack[sp++] = c;
		}
	}
	qsort_r(lines, nr, sizeof(*lines), cmp_line, text.buf);
	for (i = 0; i < nr; i++) {
		tk_buf_add(&row, text.buf + lines[i].off, lines[i].len);
		tk_buf_addch(&row, ' ');
		add_weight(&row, d->base_self[lines[i].node]);
		tk_buf_addch(&row, ' ');
		add_weight(&row, d->new_self[lines[i].node]);
		tk_buf_addch(&row, '\n');
		if (row.len >= 65536 || i + 1 == nr) {
			if (fwrite(row.buf, 1, row.len, out) != row.len) {
				ret = tk_err_set(err, TK_EUNAVAIL,
						 "cannot write the folded diff output");
				break;
			}
			tk_buf_reset(&row);
		}
	}
	tk_buf_release(&text);
	tk_buf_release(&path);
	tk_buf_release(&row);
	free(lines);
	free(plen);
	free(stack);
	free(depth_of);
	(void)dopts;
	(void)o;
	return ret;
}

const struct tk_diff_renderer tk_diffrender_folded = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "folded",
	.ext = ".folded",
	.render = folded_render,
};
