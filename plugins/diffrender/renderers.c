/*
 * The table of diff renderers and its lookups (core/draw/diffrender.h).
 * The i-th descriptor is the i-th listed with this interface's version
 * (TK_DIFF_RENDERER_VERSION): one of another version is skipped, as if it
 * were not listed.
 */
#include "plugins/diffrender/renderers.h"

#include <stddef.h>

#include "core/base/outfmt.h"
#include "core/base/banned.h"

/* Picked by the output file's extension (tk_diff_renderer_for_path). */
static const struct tk_diff_renderer *const tk_diff_renderers[] = {
	&tk_diffrender_folded,
	&tk_diffrender_txt,
	&tk_diffrender_html,
	&tk_diffrender_svg,
	&tk_diffrender_png,
	&tk_diffrender_pdf,
	&tk_diffrender_pprof,
};

#define NR (sizeof(tk_diff_renderers) / sizeof(tk_diff_renderers[0]))

const struct tk_diff_renderer *tk_diff_renderer_at(size_t i)
{
	size_t k;

	for (k = 0; k < NR; k++)
		if (tk_diff_renderers[k]->version == TK_DIFF_RENDERER_VERSION && !i--)
			return tk_diff_renderers[k];
	return NULL;
}

const struct tk_diff_renderer *tk_diff_renderer_for_path(const char *path)
{
	const struct tk_diff_renderer *r;
	size_t i;

	for (i = 0; (r = tk_diff_renderer_at(i)); i++)
		if (tk_path_has_ext(path, r->ext))
			return r;
	return NULL;
}
