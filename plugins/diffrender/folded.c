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
#include "plugins/diffrender/renderers.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/draw/diffrender.h"
#include "core/model/stacks.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

/* Every path with a self weight on either side, and every leaf. */
static int keep_line(const struct tk_profile *p, uint32_t n, void *data)
{
	const struct tk_diff *d = data;

	return d->base_self[n] != 0 || tk_diff_new_self(d, n) != 0 || !p->nodes[n].first_child;
}

static int folded_render(const struct tk_diff *d, const struct tk_flame *fl,
			 const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
			 FILE *out, struct tk_err *err)
{
	struct tk_stack_list l;
	struct tk_buf row = TK_BUF_INIT;
	size_t i;
	int ret = 0;

	memset(&l, 0, sizeof(l));
	tk_stack_list_build(&d->tree, keep_line, (void *)d, &l);
	for (i = 0; i < l.nr; i++) {
		uint32_t n = l.lines[i].node;

		tk_buf_add(&row, l.text.buf + l.lines[i].off, l.lines[i].len);
		tk_buf_addch(&row, ' ');
		tk_format_weight_exact(&row, d->base_self[n]);
		tk_buf_addch(&row, ' ');
		tk_format_weight_exact(&row, tk_diff_new_self(d, n));
		tk_buf_addch(&row, '\n');
		if (row.len >= 65536 || i + 1 == l.nr) {
			if (fwrite(row.buf, 1, row.len, out) != row.len) {
				ret = tk_err_set(err, TK_EUNAVAIL,
						 "cannot write the folded diff output");
				break;
			}
			tk_buf_reset(&row);
		}
	}
	tk_stack_list_release(&l);
	tk_buf_release(&row);
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
