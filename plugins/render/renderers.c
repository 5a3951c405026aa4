/*
 * The table of flame graph renderers and its lookups (core/draw/render.h).
 * The i-th descriptor is the i-th listed with this interface's version
 * (TK_RENDERER_VERSION): one of another version is skipped, as if it were
 * not listed.
 */
#include "plugins/render/renderers.h"

#include <stddef.h>

#include "core/base/outfmt.h"
#include "core/base/banned.h"

/* Picked by the output file's extension (tk_renderer_for_path). */
static const struct tk_renderer *const tk_renderers[] = {
	&tk_render_svg,
	&tk_render_html,
	&tk_render_png,
	&tk_render_pdf,
	&tk_render_folded,
	&tk_render_txt,
	&tk_render_pprof,
	&tk_render_speedscope,
};

#define NR (sizeof(tk_renderers) / sizeof(tk_renderers[0]))

const struct tk_renderer *tk_renderer_at(size_t i)
{
	size_t k;

	for (k = 0; k < NR; k++)
		if (tk_renderers[k]->version == TK_RENDERER_VERSION && !i--)
			return tk_renderers[k];
	return NULL;
}

const struct tk_renderer *tk_renderer_for_path(const char *path)
{
	const struct tk_renderer *r;
	size_t i;

	for (i = 0; (r = tk_renderer_at(i)); i++)
		if (tk_path_has_ext(path, r->ext))
			return r;
	return NULL;
}
