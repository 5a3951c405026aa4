/*
 * .txt for diffs: the top self increases and decreases, for build logs
 * and CI annotations. One line per call path (never merged by name),
 * ranked by the absolute change of its self weight after normalization,
 * with base, new, delta and delta%. Changes the model calls noise
 * (core/diff.h: below --min-delta or within the baselines' spread) are
 * not listed, only counted in the header. The path is shown leaf first,
 * "leaf <- caller <- ...", cut after a few frames, each name cut to a
 * readable length and kept on one line whatever bytes it holds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/diffrender.h"
#include "core/timeutil.h"
#include "core/banned.h"

#define PATH_FRAMES 4
#define NAME_MAX_BYTES 80

struct row {
	uint32_t node;
	double mag;
};

/* Min-heap on mag (ties: the larger node id is "smaller", so kept rows
 * prefer low ids), holding the top rows seen so far. */
static int row_less(const struct row *a, const struct row *b)
{
	if (a->mag != b->mag)
		return a->mag < b->mag;
	return a->node > b->node;
}

static void heap_push(struct row *h, size_t *n, size_t cap, struct row r)
{
	size_t i;

	if (*n == cap) {
		if (!cap || !row_less(&h[0], &r))
			return;
		/* replace the smallest and sift down */
		i = 0;
		h[0] = r;
		for (;;) {
			size_t l = 2 * i + 1, m = i;

			if (l < *n && row_less(&h[l], &h[m]))
				m = l;
			if (l + 1 < *n && row_less(&h[l + 1], &h[m]))
				m = l + 1;
			if (m == i)
				break;
			r = h[i];
			h[i] = h[m];
			h[m] = r;
			i = m;
		}
		return;
	}
	i = (*n)++;
	h[i] = r;
	while (i && row_less(&h[i], &h[(i - 1) / 2])) {
		struct row t = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (row_less(x, y))
		return 1;
	if (row_less(y, x))
		return -1;
	return 0;
}

/* a plain count: an integer when it is one (to display precision: scaled
 * sums land a rounding error away), else two decimals */
static void add_count(struct tk_buf *b, double a)
{
	if (fabs(a - round(a)) <= 1e-9 * (fabs(a) > 1 ? fabs(a) : 1) && fabs(a) < 9e15)
		tk_buf_addf(b, "%.0f", a);
	else
		tk_buf_addf(b, "%.2f", a);
}

static void add_value(struct tk_buf *b, enum tk_unit unit, double w, int sign)
{
	struct tk_buf v = TK_BUF_INIT;
	double a = fabs(w);

	if (sign)
		tk_buf_addch(&v, w < 0 ? '-' : '+');
	switch (unit) {
	case TK_UNIT_NANOSECONDS:
		tk_format_duration(&v, a / 1e9);
		break;
	case TK_UNIT_BYTES:
		tk_format_bytes(&v, (int64_t)(a + 0.5));
		break;
	default:
		add_count(&v, a);
		break;
	}
	if (!sign && w < 0)
		tk_buf_addf(b, "%14s", "-");
	else
		tk_buf_addf(b, "%14s", v.buf);
	tk_buf_release(&v);
}

/* name on one line, at most NAME_MAX_BYTES bytes cut at a character boundary */
static void add_name(struct tk_buf *b, const char *s)
{
	size_t len = strlen(s), i, n = len;

	if (len > NAME_MAX_BYTES) {
		n = NAME_MAX_BYTES;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		tk_buf_addch(b, c < 0x20 || c == 0x7f ? ' ' : (char)c);
	}
	if (n < len)
		tk_buf_adds(b, "...");
}

static void add_path(struct tk_buf *b, const struct tk_profile *p, uint32_t n)
{
	int shown = 0;

	for (; n != TK_PROFILE_ROOT; n = p->nodes[n].parent) {
		if (shown)
			tk_buf_adds(b, " <- ");
		if (shown == PATH_FRAMES) {
			tk_buf_adds(b, "...");
			return;
		}
		add_name(b, tk_profile_name(p, n));
		shown++;
	}
}

static void print_rows(struct tk_buf *b, const struct tk_diff *d, struct row *rows,
		       size_t nr, const char *what)
{
	size_t i;

	qsort(rows, nr, sizeof(*rows), cmp_rows);
	tk_buf_addf(b, "top %zu self %s:\n", nr, what);
	if (!nr) {
		tk_buf_adds(b, "  (none)\n");
		return;
	}
	tk_buf_addf(b, "%14s %14s %14s %8s  %s\n", "base", "new", "delta", "delta%",
		    "frame (leaf <- callers)");
	for (i = 0; i < nr; i++) {
		uint32_t n = rows[i].node;
		double base = d->base_self[n], now = d->new_self[n];

		add_value(b, d->tree.unit, base, 0);
		tk_buf_addch(b, ' ');
		add_value(b, d->tree.unit, now, 0);
		tk_buf_addch(b, ' ');
		add_value(b, d->tree.unit, now - base, 1);
		if (base > 0)
			tk_buf_addf(b, " %+7.1f%%  ", 100 * (now - base) / base);
		else
			tk_buf_addf(b, " %8s  ", "new");
		add_path(b, &d->tree, n);
		tk_buf_addch(b, '\n');
	}
}

static const char *norm_name(enum tk_diff_norm n)
{
	switch (n) {
	case TK_DIFF_NORM_TOTAL:
		return "total";
	case TK_DIFF_NORM_WALLTIME:
		return "walltime";
	case TK_DIFF_NORM_NONE:
		return "none";
	}
	return "?";
}

static int txt_render(const struct tk_diff *d, const struct tk_diff_opts *dopts,
		      const struct tk_diff_render_opts *o, FILE *out, struct tk_err *err)
{
	struct tk_diff_opts defaults;
	const struct tk_profile *p = &d->tree;
	size_t top = o->render.top_n ? o->render.top_n : 30;
	struct row *up = tk_xcalloc(top, sizeof(*up)), *down = tk_xcalloc(top, sizeof(*down));
	size_t nr_up = 0, nr_down = 0, nr_new = 0, nr_gone = 0, nr_noise = 0;
	const char *unit = o->render.count_name ? o->render.count_name : tk_unit_name(p->unit);
	struct tk_buf b = TK_BUF_INIT;
	uint32_t n;
	int ret = 0;

	if (!dopts) {
		tk_diff_opts_init(&defaults);
		dopts = &defaults;
	}
	for (n = 1; n < p->nr_nodes; n++) {
		enum tk_diff_class c = tk_diff_classify(d, n, TK_DIFF_SELF, dopts, NULL);
		double delta = d->new_self[n] - d->base_self[n];
		struct row r;

		if (c == TK_DIFF_NEW)
			nr_new++;
		else if (c == TK_DIFF_VANISHED)
			nr_gone++;
		if (!(delta != 0))
			continue;
		if (c == TK_DIFF_NOISE) {
			nr_noise++;
			continue;
		}
		r.node = n;
		r.mag = fabs(delta);
		if (delta > 0)
			heap_push(up, &nr_up, top, r);
		else
			heap_push(down, &nr_down, top, r);
	}

	tk_buf_addf(&b, "%s\n", o->render.title ? o->render.title : "diff");
	tk_buf_adds(&b, "base: ");
	add_name(&b, o->base_label ? o->base_label : "baseline");
	tk_buf_adds(&b, ", total ");
	add_count(&b, d->base_sum);
	tk_buf_addf(&b, " %s after normalization %s (x%.6g), %zu profile%s\n", unit,
		    norm_name(dopts->norm), d->base_scale, d->nr_base,
		    d->nr_base == 1 ? "" : "s");
	tk_buf_adds(&b, "new:  ");
	add_name(&b, o->new_label ? o->new_label : "new");
	tk_buf_adds(&b, ", total ");
	add_count(&b, d->new_sum);
	tk_buf_addf(&b, " %s\n", unit);
	tk_buf_addf(&b, "frames: %u call paths, %zu new, %zu vanished, "
		    "%zu self changes within the noise floor (not listed)\n\n",
		    p->nr_nodes ? p->nr_nodes - 1 : 0, nr_new, nr_gone, nr_noise);
	print_rows(&b, d, up, nr_up, "increases");
	tk_buf_addch(&b, '\n');
	print_rows(&b, d, down, nr_down, "decreases");
	if (fwrite(b.buf, 1, b.len, out) != b.len)
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the text diff output");
	tk_buf_release(&b);
	free(up);
	free(down);
	return ret;
}

const struct tk_diff_renderer tk_diffrender_txt = {
	.version = TK_DIFF_RENDERER_VERSION,
	.name = "txt",
	.ext = ".txt",
	.render = txt_render,
};
