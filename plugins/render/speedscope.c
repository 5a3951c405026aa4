/*
 * .speedscope.json: the profile in speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json), one "sampled"
 * profile: a frame table with each distinct name once, and one sample
 * per node with self weight, its stack root first, with that weight.
 * Units: nanoseconds and bytes as such, samples and counts as "none".
 * Weights are written exactly (the fewest digits that read back as the
 * same double). Names go through tk_html_json_data: valid JSON and UTF-8
 * whatever they hold, every character kept but a byte that is not UTF-8
 * (U+FFFD): the file is data another tool reads back. It
 * writes the profile tree, not the layout: --minwidth drops nothing.
 */
#include "plugins/render/renderers.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/base/buf.h"
#include "core/draw/htmlout.h"
#include "core/base/banned.h"

static const char *unit_name(enum tk_unit u)
{
	switch (u) {
	case TK_UNIT_NANOSECONDS:
		return "nanoseconds";
	case TK_UNIT_BYTES:
		return "bytes";
	default:
		return "none";
	}
}

static int flush(struct tk_buf *b, FILE *out, int force, struct tk_err *err)
{
	if (!force && b->len < 65536)
		return 0;
	if (b->len && fwrite(b->buf, 1, b->len, out) != b->len)
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the speedscope output");
	tk_buf_reset(b);
	return 0;
}

/* The nodes with self weight, in node order. */
static int has_weight(const struct tk_profile *p, uint32_t n)
{
	return n != TK_PROFILE_ROOT && p->nodes[n].self > 0;
}

static int speedscope_render(const struct tk_profile *p, const struct tk_flame *f,
			     const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	struct tk_buf b = TK_BUF_INIT;
	uint32_t *stack = NULL, i, n;
	size_t alloc = 0;
	const char *sep = "";
	int ret = 0;

	(void)f;
	tk_buf_adds(&b, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		    "\"exporter\":\"tracker\",\"name\":");
	tk_html_json_cstr(&b, o->title);
	tk_buf_adds(&b, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
	/* frame i - 1 is name id i */
	for (i = 1; !ret && i < p->nr_names; i++) {
		tk_buf_adds(&b, i > 1 ? ",{\"name\":" : "{\"name\":");
		tk_html_json_data(&b, p->names[i], p->name_lens[i]);
		tk_buf_addch(&b, '}');
		ret = flush(&b, out, 0, err);
	}
	tk_buf_adds(&b, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
	tk_html_json_cstr(&b, o->subtitle && *o->subtitle ? o->subtitle : o->title);
	tk_buf_addf(&b, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", unit_name(p->unit));
	tk_html_json_num(&b, tk_profile_total(p) - p->nodes[TK_PROFILE_ROOT].self);
	tk_buf_adds(&b, ",\"samples\":[");
	for (n = 1; !ret && n < p->nr_nodes; n++) {
		size_t depth = 0;
		uint32_t up;

		if (!has_weight(p, n))
			continue;
		for (up = n; up != TK_PROFILE_ROOT; up = p->nodes[up].parent) {
			TK_ALLOC_GROW(stack, depth + 1, alloc);
			stack[depth++] = p->nodes[up].name - 1;
		}
		tk_buf_addf(&b, "%s[", sep);
		while (depth--)
			tk_buf_addf(&b, depth ? "%u," : "%u", stack[depth]);
		tk_buf_addch(&b, ']');
		sep = ",";
		ret = flush(&b, out, 0, err);
	}
	tk_buf_adds(&b, "],\"weights\":[");
	sep = "";
	for (n = 1; !ret && n < p->nr_nodes; n++) {
		if (!has_weight(p, n))
			continue;
		tk_buf_adds(&b, sep);
		tk_html_json_num(&b, p->nodes[n].self);
		sep = ",";
		ret = flush(&b, out, 0, err);
	}
	tk_buf_adds(&b, "]}]}\n");
	if (!ret)
		ret = flush(&b, out, 1, err);
	free(stack);
	tk_buf_release(&b);
	return ret;
}

const struct tk_renderer tk_render_speedscope = {
	.version = TK_RENDERER_VERSION,
	.name = "speedscope",
	.ext = ".speedscope.json",
	.render = speedscope_render,
};
