/*
 * .pb.gz: the profile as a pprof profile (core/draw/pprofout.h), for
 * `pprof`, `go tool pprof` and the tools that read its format. It writes
 * the profile tree, not the layout: --minwidth drops nothing from it.
 */
#include "plugins/render/renderers.h"

#include "core/draw/pprofout.h"
#include "core/base/banned.h"

static int pprof_render(const struct tk_profile *p, const struct tk_flame *f,
			const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	(void)f;
	(void)o;
	return tk_pprof_write(out, p, NULL, err);
}

const struct tk_renderer tk_render_pprof = {
	.version = TK_RENDERER_VERSION,
	.name = "pprof",
	.ext = ".pb.gz",
	.render = pprof_render,
};
