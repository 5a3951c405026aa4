/*
 * .pb.gz: the diff as the pair of pprof profiles `pprof -diff_base`
 * compares: OUT holds NEW and OUT with ".base" before the extension the
 * baseline (core/draw/pprofout.h), both over the union of the two trees,
 * so that the frames tracker matched are the same frames for pprof. The
 * baseline is what the diff compares: the mean of the baseline runs,
 * normalized as asked (--normalize), each weight rounded to an integer.
 *
 *   tracker diff --key amip -o amip.pb.gz
 *   pprof -top -diff_base amip.base.pb.gz amip.pb.gz
 */
#include "plugins/diffrender/renderers.h"

#include "core/draw/pprofout.h"
#include "core/base/banned.h"

static int pprof_new(const struct tk_diff *d, const struct tk_flame *fl,
		     const struct tk_diff_opts *dopts, const struct tk_diff_render_opts *o,
		     FILE *out, struct tk_err *err)
{
	(void)fl;
	(void)dopts;
	(void)o;
	/* the union's own self weights are new's */
	return tk_pprof_write(out, &d->tree, NULL, err);
}

static int pprof_base(const struct tk_diff *d, FILE *out, struct tk_err *err)
{
	return tk_pprof_write(out, &d->tree, d->base_self, err);
}

const struct tk_diff_renderer tk_diffrender_pprof = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "pprof",
	.ext = ".pb.gz",
	.layout = TK_DIFF_LAYOUT_NONE,
	.render = pprof_new,
	.render_base = pprof_base,
};
