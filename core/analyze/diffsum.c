/*
 * The totals and top changes of a diff (contract in core/analyze/diffsum.h).
 *
 * The top rows are kept in a min-heap of `top` entries per list while
 * the union's nodes are walked once, so a diff of millions of frames
 * costs one pass and no sort of the whole; only the kept rows are
 * sorted at the end. A large diff is walked on two threads.
 */
#include "core/base/escape.h"
#include "core/analyze/diffsum.h"
#include "core/base/table.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define NAME_MAX_BYTES 80

static double mag_of(const struct tk_diff_change *c)
{
	return fabs(c->now - c->base);
}

/* a ranks below b: smaller change, or the same change and a later node */
static int row_less(const struct tk_diff_change *a, const struct tk_diff_change *b)
{
	double x = mag_of(a), y = mag_of(b);

	if (x != y)
		return x < y;
	return a->node > b->node;
}

static void sift_down(struct tk_diff_change *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct tk_diff_change t;

		if (l < n && row_less(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && row_less(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/* Keeps the `cap` largest rows seen in a min-heap. */
static void keep(struct tk_diff_list *l, size_t cap, const struct tk_diff_change *r)
{
	size_t i;

	if (l->nr == cap) {
		if (!cap || !row_less(&l->rows[0], r))
			return;
		l->rows[0] = *r;
		sift_down(l->rows, l->nr, 0);
		return;
	}
	i = l->nr++;
	l->rows[i] = *r;
	while (i && row_less(&l->rows[i], &l->rows[(i - 1) / 2])) {
		struct tk_diff_change t = l->rows[i];

		l->rows[i] = l->rows[(i - 1) / 2];
		l->rows[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct tk_diff_change *x = a, *y = b;

	if (row_less(x, y))
		return 1;
	if (row_less(y, x))
		return -1;
	return 0;
}

/*
 * Whether n only passes a child's change on: one child's change is n's
 * within 10% (solve +1150 is dgemm's +1200 and asm's -50). Then n is a
 * caller on the way to the change and the cumulative list names the
 * child instead (a chain main <- _start <- ... would otherwise fill it
 * with the same number). A caller whose change is the net of several
 * (compute +5: kernel_a +20, kernel_b -15) says something of its own and
 * stays. A frame every stack passes through (the program's root, main)
 * holds the whole change, which the totals line says.
 */
static int passes_on(const struct tk_diff *d, uint32_t n, double delta)
{
	double all_base = d->base_total[TK_PROFILE_ROOT], all_new = tk_diff_new_total(d, TK_PROFILE_ROOT);
	uint32_t c;

	if (fabs(d->base_total[n] - all_base) <= 1e-9 * all_base &&
	    fabs(tk_diff_new_total(d, n) - all_new) <= 1e-9 * all_new)
		return 1;
	for (c = d->tree.nodes[n].first_child; c; c = d->tree.nodes[c].next_sibling) {
		double dc = tk_diff_new_total(d, c) - d->base_total[c];

		if (fabs(dc - delta) <= 0.1 * fabs(delta))
			return 1;
	}
	return 0;
}

/*
 * cls: n's class for mode when the caller has it, -1 otherwise. Most
 * frames of a large diff did not change: their class is never needed.
 */
static void consider(const struct tk_diff *d, const struct tk_diff_opts *o, uint32_t n,
		     enum tk_diff_mode mode, int cls, size_t top, struct tk_diff_summary *s)
{
	struct tk_diff_change r;

	r.node = n;
	if (mode == TK_DIFF_SELF) {
		r.base = d->base_self[n];
		r.now = tk_diff_new_self(d, n);
	} else {
		r.base = d->base_total[n];
		r.now = tk_diff_new_total(d, n);
	}
	if (!(r.now != r.base))
		return;
	r.cls = cls >= 0 ? (enum tk_diff_class)cls : tk_diff_classify(d, n, mode, o, NULL);
	if (mode == TK_DIFF_CUMULATIVE && passes_on(d, n, r.now - r.base))
		return;
	if (r.cls == TK_DIFF_NOISE) {
		if (mode == TK_DIFF_SELF)
			s->nr_noise++;
		return;
	}
	keep(r.now > r.base ? &s->up[mode] : &s->down[mode], top, &r);
}

static void summary_alloc(struct tk_diff_summary *s, size_t top)
{
	int m;

	memset(s, 0, sizeof(*s));
	for (m = 0; m < 2; m++) {
		s->up[m].rows = tk_xcalloc(top, sizeof(struct tk_diff_change));
		s->down[m].rows = tk_xcalloc(top, sizeof(struct tk_diff_change));
	}
}

/* Nodes [from, to) of d into s. */
static void walk(const struct tk_diff *d, const struct tk_diff_opts *o, uint32_t from,
		 uint32_t to, size_t top, struct tk_diff_summary *s)
{
	uint32_t n;

	for (n = from; n < to; n++) {
		enum tk_diff_class c;

		if (o->category && tk_profile_category(&d->tree, d->tree.nodes[n].name) !=
		    o->category)
			continue;
		/* equal totals: neither new nor vanished, and no change */
		if (!(d->base_total[n] != tk_diff_new_total(d, n)))
			c = TK_DIFF_NOISE;
		else
			c = tk_diff_classify(d, n, TK_DIFF_CUMULATIVE, o, NULL);

		if (c == TK_DIFF_NEW)
			s->nr_new++;
		else if (c == TK_DIFF_VANISHED)
			s->nr_vanished++;
		consider(d, o, n, TK_DIFF_SELF, -1, top, s);
		consider(d, o, n, TK_DIFF_CUMULATIVE, (int)c, top, s);
	}
}

/*
 * A large diff is walked in two halves on two threads. Rows rank by
 * change, then by node (row_less: no two rows tie), so the `top` largest
 * of both halves' `top` largest are the whole's: the same lists.
 */
#define PARALLEL_NODES (1u << 16)

struct half {
	const struct tk_diff *d;
	const struct tk_diff_opts *o;
	uint32_t from, to;
	size_t top;
	struct tk_diff_summary s;
};

static void *walk_half(void *arg)
{
	struct half *h = arg;

	walk(h->d, h->o, h->from, h->to, h->top, &h->s);
	return NULL;
}

static void merge(struct tk_diff_summary *s, const struct tk_diff_summary *from, size_t top)
{
	size_t i;
	int m;

	for (m = 0; m < 2; m++) {
		for (i = 0; i < from->up[m].nr; i++)
			keep(&s->up[m], top, &from->up[m].rows[i]);
		for (i = 0; i < from->down[m].nr; i++)
			keep(&s->down[m], top, &from->down[m].rows[i]);
	}
	s->nr_new += from->nr_new;
	s->nr_vanished += from->nr_vanished;
	s->nr_noise += from->nr_noise;
}

void tk_diff_summarize(const struct tk_diff *d, const struct tk_diff_opts *o, size_t top,
		       struct tk_diff_summary *s)
{
	struct tk_diff_opts dflt;
	uint32_t nr = d->tree.nr_nodes;
	int m;

	if (!o) {
		tk_diff_opts_init(&dflt);
		o = &dflt;
	}
	if (!top)
		top = 30;
	summary_alloc(s, top);
	if (nr >= PARALLEL_NODES) {
		struct half h;
		pthread_t t;
		int threaded;

		h.d = d;
		h.o = o;
		h.from = nr / 2;
		h.to = nr;
		h.top = top;
		summary_alloc(&h.s, top);
		threaded = !pthread_create(&t, NULL, walk_half, &h);
		walk(d, o, 1, nr / 2, top, s);
		if (threaded)
			pthread_join(t, NULL);
		else
			walk_half(&h);
		merge(s, &h.s, top);
		tk_diff_summary_release(&h.s);
	} else {
		walk(d, o, 1, nr, top, s);
	}
	for (m = 0; m < 2; m++) {
		qsort(s->up[m].rows, s->up[m].nr, sizeof(struct tk_diff_change), cmp_rows);
		qsort(s->down[m].rows, s->down[m].nr, sizeof(struct tk_diff_change), cmp_rows);
	}
}

void tk_diff_summary_release(struct tk_diff_summary *s)
{
	int m;

	for (m = 0; m < 2; m++) {
		free(s->up[m].rows);
		free(s->down[m].rows);
	}
	memset(s, 0, sizeof(*s));
}

const char *tk_diff_quantity(const char *kind, enum tk_unit unit)
{
	static const struct {
		const char *kind, *name;
	} kinds[] = {
		{ "cpu", "CPU time" },
		{ "alloc", "allocations" },
		{ "alloc_count", "allocation count" },
		{ "heap_peak", "peak heap" },
	};
	size_t i;

	for (i = 0; kind && i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kind, kinds[i].kind))
			return unit == TK_UNIT_SAMPLES && !strcmp(kind, "cpu") ? "CPU samples" :
				kinds[i].name;
	switch (unit) {
	case TK_UNIT_NANOSECONDS:
		return "time";
	case TK_UNIT_BYTES:
		return "bytes";
	case TK_UNIT_COUNT:
		return "count";
	default:
		return "samples";
	}
}

/* a plain count: an integer when it is one (to display precision: scaled
 * sums land a rounding error away), else two decimals */
/* A count: whole, or with two decimals below 100 (an estimate, a mean of
 * runs, a scaled baseline); from 100 on, a fraction says nothing. */
static void add_count(struct tk_buf *b, double a)
{
	if ((fabs(a) >= 100 || fabs(a - round(a)) <= 1e-9 * (fabs(a) > 1 ? fabs(a) : 1)) &&
	    fabs(a) < 9e15)
		tk_buf_addf(b, "%.0f", a);
	else
		tk_buf_addf(b, "%.2f", a);
}

void tk_diff_add_value(struct tk_buf *b, enum tk_unit unit, double w, int sign)
{
	double a = fabs(w);

	if (!isfinite(w)) {
		tk_buf_adds(b, "?");
		return;
	}
	if (sign)
		tk_buf_addch(b, w < 0 ? '-' : '+');
	else if (w < 0)
		tk_buf_addch(b, '-');
	switch (unit) {
	case TK_UNIT_NANOSECONDS:
		tk_format_duration(b, a / 1e9);
		break;
	case TK_UNIT_BYTES:
		tk_format_bytes(b, a < 9e18 ? (int64_t)(a + 0.5) : INT64_MAX);
		break;
	default:
		add_count(b, a);
		break;
	}
}

void tk_diff_add_percent(struct tk_buf *b, double base, double now)
{
	if (base > 0 && isfinite(base) && isfinite(now))
		tk_buf_addf(b, "%+.1f%%", 100 * (now - base) / base);
	else if (now > 0)
		tk_buf_adds(b, "new");
	else
		tk_buf_adds(b, "+0.0%");
}

void tk_diff_add_scaling(struct tk_buf *b, const struct tk_diff *d,
			 const struct tk_diff_opts *o)
{
	switch (o ? o->norm : TK_DIFF_NORM_NONE) {
	case TK_DIFF_NORM_TOTAL:
		tk_buf_addf(b, "baseline scaled x%.4g to the same total", d->base_scale);
		break;
	case TK_DIFF_NORM_WALLTIME:
		tk_buf_addf(b, "baseline scaled x%.4g by the walltimes", d->base_scale);
		break;
	case TK_DIFF_NORM_NONE:
		break;
	}
}

void tk_diff_add_totals(struct tk_buf *b, const struct tk_diff *d,
			const struct tk_diff_opts *o, const char *quantity)
{
	enum tk_unit u = d->tree.unit;
	size_t at;

	tk_buf_addf(b, "%s ", quantity ? quantity : tk_diff_quantity(NULL, u));
	tk_diff_add_value(b, u, d->base_raw_sum, 0);
	tk_buf_adds(b, " -> ");
	tk_diff_add_value(b, u, d->new_sum, 0);
	tk_buf_adds(b, " (");
	tk_diff_add_percent(b, d->base_raw_sum, d->new_sum);
	tk_buf_addch(b, ')');
	at = b->len;
	tk_buf_adds(b, "; ");
	tk_diff_add_scaling(b, d, o);
	if (b->len == at + 2)
		tk_buf_setlen(b, at);
	if (d->nr_base > 1)
		tk_buf_addf(b, "; baseline: mean of %zu runs", d->nr_base);
}

void tk_diff_add_name(struct tk_buf *b, const char *s, size_t len)
{
	size_t n;

	if (!len)
		len = strlen(s);
	n = len;

	if (len > NAME_MAX_BYTES) {
		n = NAME_MAX_BYTES;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	tk_text_escape(b, s, n);
	if (n < len)
		tk_buf_adds(b, "...");
}

void tk_diff_add_path(struct tk_buf *b, const struct tk_profile *p, uint32_t n,
		      unsigned frames)
{
	unsigned shown = 0;

	for (; n != TK_PROFILE_ROOT; n = p->nodes[n].parent) {
		if (shown)
			tk_buf_adds(b, " <- ");
		if (frames && shown == frames) {
			tk_buf_adds(b, "...");
			return;
		}
		tk_diff_add_name(b, p->names[p->nodes[n].name], p->name_lens[p->nodes[n].name]);
		shown++;
	}
}

void tk_diff_add_change(struct tk_buf *b, const struct tk_diff *d,
			const struct tk_diff_change *c, unsigned frames)
{
	tk_diff_add_path(b, &d->tree, c->node, frames);
	tk_buf_adds(b, "  ");
	if (c->cls == TK_DIFF_VANISHED)
		tk_buf_adds(b, "vanished");
	else
		tk_diff_add_percent(b, c->base, c->now);
	tk_buf_adds(b, " (");
	tk_diff_add_value(b, d->tree.unit, c->now - c->base, 1);
	tk_buf_addch(b, ')');
}
