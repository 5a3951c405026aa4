/*
 * .folded: collapsed stacks, one line per node with self weight, sorted
 * by stack: the input format of flamegraph.pl, and a conversion from any
 * importer. It walks the profile tree, not the layout, so --minwidth
 * never drops data from it. Fractional weights are written exactly.
 */
#include "plugins/render/renderers.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/draw/render.h"
#include "core/model/stacks.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

static int has_self(const struct tk_profile *p, uint32_t node, void *data)
{
	(void)data;
	return p->nodes[node].self != 0;
}

static int folded_render(const struct tk_profile *p, const struct tk_flame *f,
			 const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	struct tk_stack_list l;
	struct tk_buf row = TK_BUF_INIT;
	size_t i;
	int ret = 0;

	memset(&l, 0, sizeof(l));
	tk_stack_list_build(p, has_self, NULL, &l);
	for (i = 0; i < l.nr; i++) {
		tk_buf_add(&row, l.text.buf + l.lines[i].off, l.lines[i].len);
		tk_buf_addch(&row, ' ');
		tk_format_weight_exact(&row, p->nodes[l.lines[i].node].self);
		tk_buf_addch(&row, '\n');
		if (row.len >= 65536 || i + 1 == l.nr) {
			if (fwrite(row.buf, 1, row.len, out) != row.len) {
				ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the folded output");
				break;
			}
			tk_buf_reset(&row);
		}
	}
	tk_stack_list_release(&l);
	tk_buf_release(&row);
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

