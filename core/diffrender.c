/*
 * Diff renderer options and layout; the renderers are plugins
 * (plugins/diffrender/), found through the registry's
 * tk_diff_renderer_for_path.
 */
#include "core/diffrender.h"

#include <string.h>
#include <strings.h>

#include "core/banned.h"

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

int tk_diff_layout(const struct tk_diff *d, const struct tk_diff_render_opts *o,
		   struct tk_flame *out, double *image_width, struct tk_err *err)
{
	struct tk_flame_opts fo;

	tk_flame_opts_init(&fo);
	if (o->render.image_width > 2 * TK_FLAME_XPAD)
		fo.image_width = o->render.image_width;
	*image_width = fo.image_width;
	return tk_flame_layout_weights(&d->tree, o->width_by_base ? d->base_total : d->new_total,
				       &fo, out, err);
}
