/*
 * .txt: the top frames by self and by total weight, for build logs and
 * annotations. Totals per name count each stack once under recursion.
 */
#include "plugins/render/renderers.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/buf.h"
#include "core/draw/render.h"
#include "core/base/table.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

struct agg {
	uint32_t name;
	double self, total;
};

static int cmp_self(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->self != y->self)
		return x->self < y->self ? 1 : -1;
	return (x->name > y->name) - (x->name < y->name);
}

static int cmp_total(const void *a, const void *b)
{
	const struct agg *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->name > y->name) - (x->name < y->name);
}

static void add_value(struct tk_buf *b, const struct tk_profile *p, double w)
{
	struct tk_buf v = TK_BUF_INIT;

	switch (p->unit) {
	case TK_UNIT_NANOSECONDS:
		tk_format_duration(&v, w / 1e9);
		break;
	case TK_UNIT_BYTES:
		tk_format_bytes(&v, (int64_t)w);
		break;
	default:
		tk_format_weight(&v, w);
		break;
	}
	tk_buf_addf(b, "%14s", v.buf);
	tk_buf_release(&v);
}

/*
 * Total per name counts each stack once even under recursion: a node adds
 * its total only when no ancestor has the same name (tracked with a
 * per-name "open on the current path" counter during a depth-first walk).
 */
static void aggregate(const struct tk_profile *p, struct agg *agg)
{
	uint32_t *open = tk_xcalloc(p->nr_names, sizeof(uint32_t));
	uint32_t *stack = NULL;
	size_t sp = 0, alloc = 0;
	uint32_t i;

	for (i = 0; i < p->nr_names; i++)
		agg[i].name = i;
	/* Entries: node id, or node id | 0x80000000 for "leave". */
	TK_ALLOC_GROW(stack, 1, alloc);
	stack[sp++] = TK_PROFILE_ROOT;
	while (sp) {
		uint32_t e = stack[--sp], n = e & 0x7fffffffu, c;
		uint32_t name = p->nodes[n].name;

		if (e & 0x80000000u) {
			open[name]--;
			continue;
		}
		if (n != TK_PROFILE_ROOT) {
			agg[name].self += p->nodes[n].self;
			if (!open[name])
				agg[name].total += p->nodes[n].total;
			open[name]++;
			TK_ALLOC_GROW(stack, sp + 1, alloc);
			stack[sp++] = n | 0x80000000u;
		}
		for (c = p->nodes[n].first_child; c; c = p->nodes[c].next_sibling) {
			TK_ALLOC_GROW(stack, sp + 1, alloc);
			stack[sp++] = c;
		}
	}
	free(open);
	free(stack);
}

static void print_top(struct tk_buf *b, const struct tk_profile *p, struct agg *agg,
		      size_t nr, size_t top, int by_self, enum tk_category only)
{
	double total = tk_profile_total(p);
	size_t i, shown = 0;

	qsort(agg, nr, sizeof(*agg), by_self ? cmp_self : cmp_total);
	tk_buf_addf(b, "top %zu by %s weight:\n", top, by_self ? "self" : "total");
	tk_buf_addf(b, "%14s %7s %14s %7s  %s\n", "self", "self%", "total", "total%", "frame");
	for (i = 0; i < nr && shown < top; i++) {
		double v = by_self ? agg[i].self : agg[i].total;

		if (v == 0)
			break;
		if (only && tk_profile_category(p, agg[i].name) != only)
			continue;
		shown++;
		add_value(b, p, agg[i].self);
		tk_buf_addf(b, " %6.2f%%", total ? 100 * agg[i].self / total : 0);
		add_value(b, p, agg[i].total);
		tk_buf_addf(b, " %6.2f%%  ", total ? 100 * agg[i].total / total : 0);
		/* One line per frame, whatever the name holds. */
		tk_text_escape(b, p->names[agg[i].name], p->name_lens[agg[i].name]);
		tk_buf_addch(b, '\n');
	}
}

/*
 * With a category filter (--category): what the frames of that category
 * weigh, their selves summed (a frame's self is in one category only, so
 * nothing counts twice), before the tables that list only them.
 */
static void category_line(struct tk_buf *b, const struct tk_profile *p, const struct agg *agg,
			  enum tk_category only)
{
	double self = 0, total = tk_profile_total(p);
	size_t names = 0;
	uint32_t i;

	for (i = 1; i < p->nr_names; i++)
		if (tk_profile_category(p, agg[i].name) == only && (agg[i].self || agg[i].total)) {
			self += agg[i].self;
			names++;
		}
	tk_buf_addf(b, "only frames of category %s: ", tk_category_name(only));
	tk_format_weight(b, self);
	tk_buf_addf(b, " self (%.2f%%) in %zu functions\n\n", total ? 100 * self / total : 0,
		    names);
}

static int txt_render(const struct tk_profile *p, const struct tk_flame *f,
		      const struct tk_render_opts *o, FILE *out, struct tk_err *err)
{
	struct agg *agg = tk_xcalloc(p->nr_names, sizeof(*agg));
	struct tk_buf b = TK_BUF_INIT;
	size_t top = o->top_n ? o->top_n : 30;
	int ret = 0;

	aggregate(p, agg);
	if (o->title) {
		tk_text_escape(&b, o->title, strlen(o->title));
	} else {
		struct tk_buf h = TK_BUF_INIT;

		tk_render_headline(&h, p->unit, o->kind, o->count_name, tk_profile_total(p));
		tk_buf_add(&b, h.buf, h.len);
		tk_buf_release(&h);
	}
	tk_buf_addch(&b, '\n');
	if (o->subtitle && *o->subtitle) {
		tk_text_escape(&b, o->subtitle, strlen(o->subtitle));
		tk_buf_addch(&b, '\n');
	}
	tk_buf_addf(&b, "%u frames (%u distinct names)\n\n", p->nr_nodes - 1, p->nr_names - 1);
	if (o->category)
		category_line(&b, p, agg, o->category);
	/* Skip the root's empty name: it is index 0 with zero weights. */
	print_top(&b, p, agg, p->nr_names, top, 1, o->category);
	tk_buf_addch(&b, '\n');
	print_top(&b, p, agg, p->nr_names, top, 0, o->category);
	if (fwrite(b.buf, 1, b.len, out) != b.len)
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the text output");
	tk_buf_release(&b);
	free(agg);
	(void)f;
	return ret;
}

const struct tk_renderer tk_render_txt = {
	.version = TK_RENDERER_VERSION,
	.name = "txt",
	.ext = ".txt",
	.render = txt_render,
};
