/*
 * Diff renderer options and layout; the renderers are plugins
 * (plugins/diffrender/), found through their table's
 * tk_diff_renderer_for_path.
 */
#include "core/draw/diffrender.h"

#include "core/base/fsutil.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/draw/flame.h"

#include "core/base/banned.h"

void tk_diff_render_opts_init(struct tk_diff_render_opts *o)
{
	memset(o, 0, sizeof(*o));
	tk_render_opts_init(&o->render);
	o->render.title = "Differential Flame Graph";
	o->mode = TK_DIFF_SELF;
	o->width_by_base = 0;
	o->base_label = NULL;
	o->new_label = NULL;
	o->new_color = "#000000";
}

double tk_diff_image_width(const struct tk_diff_render_opts *o)
{
	struct tk_flame_opts fo;

	tk_flame_opts_init(&fo);
	return o->render.image_width > 2 * TK_FLAME_XPAD ? o->render.image_width : fo.image_width;
}

int tk_diff_layout(const struct tk_diff *d, const struct tk_diff_render_opts *o,
		   enum tk_diff_layout_kind kind, struct tk_flame *out, struct tk_err *err)
{
	struct tk_flame_opts fo;
	double *w, nsum, bsum;
	uint32_t i;
	int ret;

	tk_flame_opts_init(&fo);
	fo.image_width = tk_diff_image_width(o);
	if (kind != TK_DIFF_LAYOUT_EITHER && o->width_by_base)
		return tk_flame_layout_weights(&d->tree, d->base_total, &fo, out, err);
	w = tk_realloc_array(NULL, d->tree.nr_nodes ? d->tree.nr_nodes : 1, sizeof(*w));
	if (kind != TK_DIFF_LAYOUT_EITHER) {
		/* new's totals as weights, not the tree's own layout: a
		 * frame's own width is its total less its children's */
		for (i = 0; i < d->tree.nr_nodes; i++)
			w[i] = tk_diff_new_total(d, i);
		ret = tk_flame_layout_weights(&d->tree, w, &fo, out, err);
		free(w);
		return ret;
	}
	/* each frame at the larger of its shares of new and of the baseline */
	nsum = tk_diff_new_total(d, 0);
	bsum = d->base_total[0];
	for (i = 0; i < d->tree.nr_nodes; i++) {
		double a = nsum > 0 ? tk_diff_new_total(d, i) / nsum : 0;
		double c = bsum > 0 ? d->base_total[i] / bsum : 0;

		w[i] = a > c ? a : c;
	}
	if (d->tree.nr_nodes)
		w[0] = 1;
	ret = tk_flame_layout_weights(&d->tree, w, &fo, out, err);
	free(w);
	if (!ret && !out->nr) {
		/* a page always has a root to zoom out to */
		TK_ALLOC_GROW(out->frames, 1, out->alloc);
		memset(&out->frames[0], 0, sizeof(out->frames[0]));
		out->nr = 1;
	}
	return ret;
}

int tk_diff_render(const struct tk_diff_renderer *r, const struct tk_diff *d,
		   const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		   FILE *out, struct tk_err *err)
{
	struct tk_flame fl;
	int ret;

	if (r->layout == TK_DIFF_LAYOUT_NONE)
		return r->render(d, NULL, dopts, o, out, err);
	memset(&fl, 0, sizeof(fl));
	ret = tk_diff_layout(d, o, r->layout, &fl, err);
	if (!ret)
		ret = r->render(d, &fl, dopts, o, out, err);
	tk_flame_release(&fl);
	return ret;
}

struct render_job {
	const struct tk_diff_renderer *r;
	const struct tk_diff *d;
	const struct tk_diff_opts *dopts;
	const struct tk_diff_render_opts *o;
};

static int render_to(FILE *out, void *data, struct tk_err *err)
{
	const struct render_job *j = data;

	return tk_diff_render(j->r, j->d, j->dopts, j->o, out, err);
}

static int render_base_to(FILE *out, void *data, struct tk_err *err)
{
	const struct render_job *j = data;

	return j->r->render_base(j->d, out, err);
}

void tk_diff_base_path(const char *path, const char *ext, struct tk_buf *out)
{
	size_t n = strlen(path), e = strlen(ext);

	if (n < e)
		e = 0;
	tk_buf_add(out, path, n - e);
	tk_buf_adds(out, ".base");
	tk_buf_add(out, path + n - e, e);
}

int tk_diff_render_path(const struct tk_diff *d, const struct tk_diff_opts *dopts,
			const struct tk_diff_render_opts *o, const char *path, unsigned flags,
			struct tk_err *err)
{
	struct render_job j = { tk_diff_renderer_for_path(path), d, dopts, o };

	if (!j.r)
		return tk_err_set(err, TK_EUSAGE, "cannot tell the output format of '%s' from "
				  "its extension (.html, .svg, .png, .pdf, .folded, .txt or .pb.gz)",
				  path);
	if (j.r->render_base) {
		struct tk_buf base = TK_BUF_INIT;
		int ret;

		tk_diff_base_path(path, j.r->ext, &base);
		ret = tk_write_file_stream(base.buf, render_base_to, &j, flags, err);
		tk_buf_release(&base);
		if (ret)
			return ret;
	}
	return tk_write_file_stream(path, render_to, &j, flags, err);
}
