/*
 * .txt for diffs: the totals first (core/analyze/diffsum.h), then the top self
 * increases and decreases, for build logs and CI annotations. One line
 * per call path (never merged by name),
 * ranked by the absolute change of its self weight after normalization,
 * with base, new, delta and delta%. Changes the model calls noise
 * (core/analyze/diff.h: below --min-delta or within the baselines' spread) are
 * not listed, only counted in the header. The path is shown leaf first,
 * "leaf <- caller <- ...", cut after a few frames, each name cut to a
 * readable length and kept on one line whatever bytes it holds.
 */
#include "plugins/diffrender/renderers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/buf.h"
#include "core/draw/diffrender.h"
#include "core/analyze/diffsum.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define PATH_FRAMES 4

/* a value right-aligned in 14 columns; "-" for a baseline of nothing */
static void add_cell(struct tk_buf *b, enum tk_unit unit, double w, int sign)
{
	struct tk_buf v = TK_BUF_INIT;

	if (!sign && w < 0)
		tk_buf_adds(&v, "-");
	else
		tk_diff_add_value(&v, unit, w, sign);
	tk_buf_addf(b, "%14s", v.buf);
	tk_buf_release(&v);
}

static void print_rows(struct tk_buf *b, const struct tk_diff *d, const struct tk_diff_list *l,
		       const char *what)
{
	const struct tk_diff_change *rows = l->rows;
	size_t i, nr = l->nr;

	tk_buf_addf(b, "top %zu %s:\n", nr, what);
	if (!nr) {
		tk_buf_adds(b, "  (none)\n");
		return;
	}
	tk_buf_addf(b, "%14s %14s %14s %8s  %s\n", "base", "new", "delta", "delta%",
		    "frame (leaf <- callers)");
	for (i = 0; i < nr; i++) {
		double base = rows[i].base, now = rows[i].now;
		struct tk_buf pct = TK_BUF_INIT;

		add_cell(b, d->tree.unit, base, 0);
		tk_buf_addch(b, ' ');
		add_cell(b, d->tree.unit, now, 0);
		tk_buf_addch(b, ' ');
		add_cell(b, d->tree.unit, now - base, 1);
		tk_diff_add_percent(&pct, base, now);
		tk_buf_addf(b, " %8s  ", pct.buf);
		tk_buf_release(&pct);
		tk_diff_add_path(b, &d->tree, rows[i].node, PATH_FRAMES);
		tk_buf_addch(b, '\n');
	}
}

static int txt_render(const struct tk_diff *d, const struct tk_flame *fl,
		      const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		      FILE *out, struct tk_err *err)
{
	struct tk_diff_opts defaults;
	const struct tk_profile *p = &d->tree;
	struct tk_diff_summary s;
	struct tk_buf b = TK_BUF_INIT;
	int ret = 0;

	if (!dopts) {
		tk_diff_opts_init(&defaults);
		dopts = &defaults;
	}
	tk_diff_summarize(d, dopts, o->render.top_n, &s);

	tk_diff_add_name(&b, o->render.title ? o->render.title : "diff", 0);
	tk_buf_addch(&b, '\n');
	tk_diff_add_totals(&b, d, dopts, o->quantity);
	tk_buf_adds(&b, "\nbase: ");
	tk_diff_add_name(&b, o->base_label ? o->base_label : "baseline", 0);
	tk_buf_addf(&b, ", %zu profile%s", d->nr_base, d->nr_base == 1 ? "" : "s");
	if (d->nr_base < 2)
		tk_buf_adds(&b, " (no noise floor from one run)");
	tk_buf_adds(&b, "\nnew:  ");
	tk_diff_add_name(&b, o->new_label ? o->new_label : "new", 0);
	tk_buf_addch(&b, '\n');
	if (dopts->norm != TK_DIFF_NORM_NONE) {
		tk_buf_adds(&b, "values: ");
		tk_diff_add_scaling(&b, d, dopts);
		tk_buf_addch(&b, '\n');
	}
	/* what the picture's subtitle says: the stack transforms, the category */
	if (o->render.subtitle && *o->render.subtitle) {
		tk_buf_adds(&b, "view: ");
		tk_text_escape(&b, o->render.subtitle, strlen(o->render.subtitle));
		tk_buf_addch(&b, '\n');
	}
	tk_buf_addf(&b, "frames: %u call paths, %zu new, %zu vanished, "
		    "%zu self changes within the noise floor (not listed)\n\n",
		    p->nr_nodes ? p->nr_nodes - 1 : 0, s.nr_new, s.nr_vanished, s.nr_noise);
	print_rows(&b, d, &s.up[TK_DIFF_SELF], "self increases");
	tk_buf_addch(&b, '\n');
	print_rows(&b, d, &s.down[TK_DIFF_SELF], "self decreases");
	if (fwrite(b.buf, 1, b.len, out) != b.len)
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the text diff output");
	tk_buf_release(&b);
	tk_diff_summary_release(&s);
	return ret;
}

const struct tk_diff_renderer tk_diffrender_txt = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "txt",
	.ext = ".txt",
	.render = txt_render,
};
