/*
 * Frame totals: computed once when a profile is stored, read back by
 * name for a function's history and by run for the functions that moved
 * across a change point.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/store/frametot.h"
#include "core/base/escape.h"
#include "core/base/suggest.h"
#include "core/base/utf8.h"
#include "core/model/demangle.h"
#include "core/model/profcodec.h"
#include "core/base/banned.h"

/* ---- computing ---- */

struct cand {
	const char *name;
	uint32_t id;
	double cum;
};

static int by_cum_then_name(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Depth first by the tree's links, without a stack of our own. A name
 * already on the path (recursion) adds its self weight again but not its
 * total: that stack is counted once.
 */
static void walk_links(const struct tk_profile *p, double *self, double *cum, uint32_t *on_stack)
{
	uint32_t n, a;

	memset(self, 0, (p->nr_names + 1) * sizeof(*self));
	memset(cum, 0, (p->nr_names + 1) * sizeof(*cum));
	memset(on_stack, 0, (p->nr_names + 1) * sizeof(*on_stack));
	n = p->nr_nodes > 1 ? p->nodes[TK_PROFILE_ROOT].first_child : 0;
	while (n) {
		a = p->nodes[n].name;
		self[a] += p->nodes[n].self;
		if (!on_stack[a]++)
			cum[a] += p->nodes[n].total;
		if (p->nodes[n].first_child) {
			n = p->nodes[n].first_child;
			continue;
		}
		for (;;) {
			on_stack[p->nodes[n].name]--;
			if (p->nodes[n].next_sibling) {
				n = p->nodes[n].next_sibling;
				break;
			}
			n = p->nodes[n].parent;
			if (n == TK_PROFILE_ROOT) {
				n = 0;
				break;
			}
		}
	}
}

/*
 * The same, reading the nodes in index order, which is far faster on a
 * big tree (no jumps through memory): right when the nodes are in
 * preorder (every node's parent is on the path of the nodes before it),
 * as importers of sorted stacks and the stored form make them. Returns 0
 * as soon as a node's parent is not on the path: then the links must be
 * walked.
 */
static int walk_in_order(const struct tk_profile *p, double *self, double *cum,
			 uint32_t *on_stack)
{
	uint32_t *path = NULL;
	uint32_t n, a, parent;
	size_t depth = 0, alloc = 0;
	int ok = 1;

	for (n = 1; n < p->nr_nodes; n++) {
		parent = p->nodes[n].parent;
		while (depth && path[depth - 1] != parent)
			on_stack[p->nodes[path[--depth]].name]--;
		if (!depth && parent != TK_PROFILE_ROOT) {
			ok = 0;
			break;
		}
		a = p->nodes[n].name;
		self[a] += p->nodes[n].self;
		if (!on_stack[a]++)
			cum[a] += p->nodes[n].total;
		TK_ALLOC_GROW(path, depth + 1, alloc);
		path[depth++] = n;
	}
	free(path);
	return ok;
}

void tk_frametot_compute(const struct tk_profile *p, struct tk_frametot *out)
{
	double *self = tk_xcalloc(p->nr_names + 1, sizeof(double));
	double *cum = tk_xcalloc(p->nr_names + 1, sizeof(double));
	uint32_t *on_stack = tk_xcalloc(p->nr_names + 1, sizeof(uint32_t));
	struct cand *c;
	double total = tk_profile_total(p), cut = total * TK_FRAMETOT_SHARE;
	size_t nc = 0, i;
	uint32_t a;

	memset(out, 0, sizeof(*out));
	if (!walk_in_order(p, self, cum, on_stack))
		walk_links(p, self, cum, on_stack);
	c = tk_xcalloc(p->nr_names + 1, sizeof(*c));
	for (a = 1; a < p->nr_names; a++) {
		if (!(cum[a] > 0) && !(self[a] > 0))
			continue;
		if (p->name_lens[a] > TK_FRAMETOT_MAX_NAME ||
		    !tk_utf8_valid(p->names[a], p->name_lens[a])) {
			out->left_out++;
			continue;
		}
		c[nc].name = p->names[a];
		c[nc].id = a;
		c[nc++].cum = cum[a];
	}
	qsort(c, nc, sizeof(*c), by_cum_then_name);
	out->v = nc ? tk_xcalloc(nc < TK_FRAMETOT_MAX ? nc : TK_FRAMETOT_MAX, sizeof(*out->v))
		    : NULL;
	for (i = 0; i < nc; i++) {
		if (i >= TK_FRAMETOT_MAX || (i >= TK_FRAMETOT_TOP && c[i].cum < cut)) {
			out->floor = c[i].cum;
			break;
		}
		out->v[out->nr].name = c[i].name;
		out->v[out->nr].self = self[c[i].id];
		out->v[out->nr++].cumulative = c[i].cum;
	}
	free(c);
	free(self);
	free(cum);
	free(on_stack);
}

void tk_frametot_release(struct tk_frametot *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static int ctrl(struct tk_store *s, int op, void *arg, struct tk_err *err)
{
	if (!s->ops->ctrl)
		return tk_err_set(err, TK_EUSAGE, "the %s store keeps no frame totals",
				  s->ops->name);
	return s->ops->ctrl(s, op, arg, err);
}

int tk_frametot_put(struct tk_store *s, const char *run_id, const char *kind,
		    const struct tk_profile *p, struct tk_err *err)
{
	struct tk_store_frames_put q;
	struct tk_frametot t;
	int ret;

	tk_frametot_compute(p, &t);
	memset(&q, 0, sizeof(q));
	q.run_id = run_id;
	q.kind = kind;
	q.floor = t.floor;
	q.v = t.v;
	q.nr = t.nr;
	ret = ctrl(s, TK_STORE_CTRL_PUT_FRAMES, &q, err);
	tk_frametot_release(&t);
	return ret;
}

/* ---- backfill ---- */

struct missing {
	char **ids, **kinds;
	size_t nr, alloc, alloc2;
};

static int take_missing(const struct tk_store_frame_set *set, void *data)
{
	struct missing *m = data;

	TK_ALLOC_GROW(m->ids, m->nr + 1, m->alloc);
	TK_ALLOC_GROW(m->kinds, m->nr + 1, m->alloc2);
	m->ids[m->nr] = tk_xstrdup(set->run_id);
	m->kinds[m->nr++] = tk_xstrdup(set->kind);
	return 0;
}

int tk_frametot_backfill(struct tk_store *s, struct tk_frametot_backfill *out,
			 struct tk_err *err)
{
	struct tk_store_frame_sets q;
	struct missing m;
	struct tk_buf blob = TK_BUF_INIT, name = TK_BUF_INIT;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	tk_buf_init(&out->first_error, 0);
	memset(&m, 0, sizeof(m));
	memset(&q, 0, sizeof(q));
	q.missing_only = 1;
	q.fn = take_missing;
	q.data = &m;
	/* the list first: a backend may not write while it reads */
	ret = ctrl(s, TK_STORE_CTRL_FRAME_SETS, &q, err);
	out->missing = m.nr;
	for (i = 0; !ret && i < m.nr; i++) {
		struct tk_err perr = TK_ERR_INIT;
		struct tk_profile p;

		tk_buf_reset(&blob);
		ret = tk_store_get_profile(s, m.ids[i], m.kinds[i], &blob, err);
		if (ret)
			break;
		tk_buf_reset(&name);
		tk_buf_addf(&name, "%s profile of run %s", m.kinds[i], m.ids[i]);
		tk_profile_init(&p, TK_UNIT_SAMPLES);
		if (tk_profile_decode(blob.buf, blob.len, name.buf, &p, &perr)) {
			if (!out->corrupt++)
				tk_buf_adds(&out->first_error, perr.msg);
		} else {
			ret = tk_frametot_put(s, m.ids[i], m.kinds[i], &p, err);
			out->filled += !ret;
		}
		tk_profile_release(&p);
	}
	for (i = 0; i < m.nr; i++) {
		free(m.ids[i]);
		free(m.kinds[i]);
	}
	free(m.ids);
	free(m.kinds);
	tk_buf_release(&blob);
	tk_buf_release(&name);
	return ret;
}

void tk_frametot_backfill_release(struct tk_frametot_backfill *b)
{
	tk_buf_release(&b->first_error);
}

/* ---- names ---- */

struct near {
	size_t dist[TK_FRAMETOT_NEAR];
	char *name[TK_FRAMETOT_NEAR];
	size_t nr;
};

struct match {
	const char *const *names;
	size_t nn;
	regex_t *re;
	size_t np;
	unsigned char *name_hit, *pat_hit;
	struct tk_buf *wanted_dm; /* the given names demangled; empty: as given */
	struct near *near;        /* per given name */
	struct tk_frametot_names *out;
	size_t matched_by_patterns;
	size_t seen;
	struct tk_buf dm;
};

static void add_out(struct tk_frametot_names *o, const char *name)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		if (!strcmp(o->v[i], name))
			return;
	TK_ALLOC_GROW(o->v, o->nr + 1, o->alloc);
	o->v[o->nr++] = tk_xstrdup(name);
}

/* Keeps the nearest names: a stored name that contains the given one
 * (a function given without its class or parameters) is nearest. */
static void consider_near(struct near *nr, const char *given, const char *name,
			  const char *shown)
{
	size_t lg = strlen(given), ln = strlen(shown), d, max, i, j;

	if (strstr(shown, given))
		d = ln - lg;
	else {
		max = lg / 3 > 2 ? lg / 3 : 2;
		if ((ln > lg ? ln - lg : lg - ln) > max)
			return;
		d = tk_edit_distance(given, shown);
		if (d > max)
			return;
		d += 1000; /* after every name that contains it */
	}
	for (i = 0; i < nr->nr; i++)
		if (d < nr->dist[i] || (d == nr->dist[i] && strcmp(name, nr->name[i]) < 0))
			break;
	if (i >= TK_FRAMETOT_NEAR)
		return;
	if (nr->nr == TK_FRAMETOT_NEAR)
		free(nr->name[--nr->nr]);
	for (j = nr->nr; j > i; j--) {
		nr->dist[j] = nr->dist[j - 1];
		nr->name[j] = nr->name[j - 1];
	}
	nr->dist[i] = d;
	nr->name[i] = tk_xstrdup(name);
	nr->nr++;
}

static int match_one(const char *name, void *data)
{
	struct match *m = data;
	const char *dm = name;
	size_t i;
	int hit;

	m->seen++;
	if (tk_demangle_name(name, strlen(name), 0, &m->dm))
		dm = m->dm.buf;
	for (i = 0; i < m->nn; i++) {
		const char *w = m->wanted_dm[i].len ? m->wanted_dm[i].buf : m->names[i];

		hit = !strcmp(name, m->names[i]) || !strcmp(dm, m->names[i]) || !strcmp(name, w) ||
		      !strcmp(dm, w);
		if (hit) {
			m->name_hit[i] = 1;
			add_out(m->out, name);
		} else if (!m->name_hit[i]) {
			consider_near(&m->near[i], m->names[i], name, dm);
		}
	}
	for (i = 0; i < m->np; i++) {
		hit = !regexec(&m->re[i], name, 0, NULL, 0) ||
		      (dm != name && !regexec(&m->re[i], dm, 0, NULL, 0));
		if (!hit)
			continue;
		m->pat_hit[i] = 1;
		if (++m->matched_by_patterns > TK_FRAMETOT_MATCH_MAX)
			return 1;
		add_out(m->out, name);
	}
	return 0;
}

/* The frame sets of a key: how many profiles, how many with frame totals. */
struct set_count {
	size_t profiles, with_frames;
};

static int count_sets(const struct tk_store_frame_set *set, void *data)
{
	struct set_count *c = data;

	c->profiles++;
	c->with_frames += set->has_frames;
	return 0;
}

static int nothing_stored(struct tk_store *s, const char *key, struct tk_buf *shown,
			  struct tk_err *err)
{
	struct tk_store_frame_sets q;
	struct set_count c = { 0, 0 };
	int ret;

	memset(&q, 0, sizeof(q));
	q.key = key;
	q.fn = count_sets;
	q.data = &c;
	ret = ctrl(s, TK_STORE_CTRL_FRAME_SETS, &q, err);
	if (ret)
		return ret;
	if (!c.profiles)
		return tk_err_set(err, TK_EDATA, "key '%s' has no stored profile, so no frame "
				  "totals", shown->buf);
	return tk_err_set(err, TK_EDATA, "no frame totals of key '%s': its %zu profiles were "
			  "stored before tracker kept them (tracker backfill stores them)",
			  shown->buf, c.profiles);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tk_frametot_match(struct tk_store *s, const char *key, const char *const *names,
		      size_t nr_names, const char *const *patterns, size_t nr_patterns,
		      struct tk_frametot_names *out, struct tk_err *err)
{
	struct tk_store_frame_names q;
	struct tk_buf shown = TK_BUF_INIT, b = TK_BUF_INIT;
	struct match m;
	size_t i, k, compiled = 0;
	int ret = 0;

	memset(&m, 0, sizeof(m));
	tk_text_escape_cut(&shown, key, strlen(key), TK_STORE_SHOWN_KEY);
	m.names = names;
	m.nn = nr_names;
	m.np = nr_patterns;
	m.out = out;
	tk_buf_init(&m.dm, 0);
	m.re = tk_xcalloc(nr_patterns + 1, sizeof(*m.re));
	m.name_hit = tk_xcalloc(nr_names + 1, 1);
	m.pat_hit = tk_xcalloc(nr_patterns + 1, 1);
	m.near = tk_xcalloc(nr_names + 1, sizeof(*m.near));
	m.wanted_dm = tk_xcalloc(nr_names + 1, sizeof(*m.wanted_dm));
	for (i = 0; i < nr_names; i++) {
		tk_buf_init(&m.wanted_dm[i], 0);
		tk_demangle_name(names[i], strlen(names[i]), 0, &m.wanted_dm[i]);
	}
	for (i = 0; i < nr_patterns; i++) {
		int rc;

		if (strlen(patterns[i]) > TK_FRAMETOT_MAX_PATTERN) {
			ret = tk_err_set(err, TK_EUSAGE, "--frame-match: a pattern of at most %d "
					 "bytes", TK_FRAMETOT_MAX_PATTERN);
			goto out;
		}
		rc = regcomp(&m.re[i], patterns[i], REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[128];

			regerror(rc, &m.re[i], msg, sizeof(msg));
			tk_text_escape_cut(&b, patterns[i], strlen(patterns[i]), 100);
			ret = tk_err_set(err, TK_EUSAGE, "--frame-match '%s': %s", b.buf, msg);
			goto out;
		}
		compiled++;
	}
	memset(&q, 0, sizeof(q));
	q.key = key;
	q.fn = match_one;
	q.data = &m;
	ret = ctrl(s, TK_STORE_CTRL_FRAME_NAMES, &q, err);
	if (ret == TK_EUSAGE) {
		/* an old database this reader may not migrate: the data is
		 * missing, the command was right */
		tk_err_prefix(err, "no frame totals of key '%s'", shown.buf);
		err->code = TK_EDATA;
		ret = TK_EDATA;
		goto out;
	}
	if (ret == 1) {
		ret = tk_err_set(err, TK_EUSAGE, "--frame-match matches more than %d functions of "
				 "key '%s': name fewer", TK_FRAMETOT_MATCH_MAX, shown.buf);
		goto out;
	}
	if (ret)
		goto out;
	if (!m.seen) {
		ret = nothing_stored(s, key, &shown, err);
		goto out;
	}
	for (i = 0; i < nr_names; i++) {
		if (m.name_hit[i])
			continue;
		tk_buf_reset(&b);
		tk_buf_adds(&b, "no function '");
		tk_text_escape_cut(&b, names[i], strlen(names[i]), 200);
		tk_buf_addf(&b, "' in the frame totals of key '%s'; ", shown.buf);
		if (!m.near[i].nr)
			tk_buf_addf(&b, "no name is near it (the key has %zu)", m.seen);
		for (k = 0; k < m.near[i].nr; k++) {
			tk_buf_adds(&b, k ? ", '" : m.near[i].nr > 1 ? "the nearest are '"
				    : "the nearest is '");
			tk_text_escape_cut(&b, m.near[i].name[k], strlen(m.near[i].name[k]), 200);
			tk_buf_adds(&b, "'");
		}
		ret = tk_err_set(err, TK_EDATA, "%s", b.buf);
		goto out;
	}
	for (i = 0; i < nr_patterns; i++) {
		if (m.pat_hit[i])
			continue;
		tk_buf_reset(&b);
		tk_text_escape_cut(&b, patterns[i], strlen(patterns[i]), 200);
		ret = tk_err_set(err, TK_EDATA, "no function of key '%s' matches '%s' (the key "
				 "has %zu in its frame totals)", shown.buf, b.buf, m.seen);
		goto out;
	}
	/* the store lists names in no order: outputs list them in byte order */
	if (out->nr)
		qsort(out->v, out->nr, sizeof(*out->v), name_cmp);
out:
	for (i = 0; i < compiled; i++)
		regfree(&m.re[i]);
	for (i = 0; i < nr_names; i++) {
		for (k = 0; k < m.near[i].nr; k++)
			free(m.near[i].name[k]);
		tk_buf_release(&m.wanted_dm[i]);
	}
	free(m.re);
	free(m.name_hit);
	free(m.pat_hit);
	free(m.near);
	free(m.wanted_dm);
	tk_buf_release(&m.dm);
	tk_buf_release(&shown);
	tk_buf_release(&b);
	return ret;
}

void tk_frametot_names_release(struct tk_frametot_names *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		free(n->v[i]);
	free(n->v);
	memset(n, 0, sizeof(*n));
}

/*
 * The unit a kind's weights are in: a profile whose format names no unit
 * ("samples": folded stacks imported with --kind alloc) is in the kind's
 * (bytes for alloc and heap_peak), as tk_metric_profile_value reads its
 * total.
 */
static const char *unit_of(const char *kind, const char *unit)
{
	enum tk_unit u;

	if (tk_unit_parse(unit ? unit : "", &u))
		return "";
	if ((u == TK_UNIT_SAMPLES || u == TK_UNIT_COUNT) &&
	    (!strcmp(kind, "alloc") || !strcmp(kind, "heap_peak")))
		u = TK_UNIT_BYTES;
	return tk_unit_name(u);
}

/* ---- one function's history ---- */

struct set_row {
	char *run_id;
	const char *kind, *unit; /* interned */
	double total;
	int has_frames;
	double floor;
};

struct frame_row {
	const char *run_id; /* the set's */
	const char *kind;   /* interned */
	size_t name;
	double self, cumulative;
};

struct hist_load {
	struct tk_frame_history *h;
	struct set_row *sets;
	size_t nr_sets, alloc_sets;
	struct frame_row *rows;
	size_t nr_rows, alloc_rows;
	char **interned;
	size_t nr_interned, alloc_interned;
};

static const char *intern(struct hist_load *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->nr_interned; i++)
		if (!strcmp(l->interned[i], s))
			return l->interned[i];
	TK_ALLOC_GROW(l->interned, l->nr_interned + 1, l->alloc_interned);
	return l->interned[l->nr_interned++] = tk_xstrdup(s);
}

static int take_run(const struct tk_run_summary *sum, void *data)
{
	struct tk_frame_history *h = data;
	struct tk_run_ref *r;

	TK_ALLOC_GROW(h->runs, h->nr_runs + 1, h->alloc_runs);
	r = &h->runs[h->nr_runs++];
	memset(r, 0, sizeof(*r));
	snprintf(r->id, sizeof(r->id), "%s", sum->run_id);
	r->key = sum->key ? tk_xstrdup(sum->key) : NULL;
	r->branch = sum->branch ? tk_xstrdup(sum->branch) : NULL;
	r->build = sum->build_number ? tk_xstrdup(sum->build_number) : NULL;
	r->commit = sum->commit ? tk_xstrdup(sum->commit) : NULL;
	r->walltime_s = sum->walltime_s;
	r->started_at_us = sum->started_at_us;
	return 0;
}

static int take_set(const struct tk_store_frame_set *set, void *data)
{
	struct hist_load *l = data;
	struct set_row *r;

	TK_ALLOC_GROW(l->sets, l->nr_sets + 1, l->alloc_sets);
	r = &l->sets[l->nr_sets++];
	r->run_id = tk_xstrdup(set->run_id);
	r->kind = intern(l, set->kind);
	r->unit = intern(l, set->unit ? set->unit : "");
	r->total = set->total;
	r->has_frames = set->has_frames;
	r->floor = set->floor;
	return 0;
}

static int set_cmp(const void *a, const void *b)
{
	const struct set_row *x = a, *y = b;
	int c = strcmp(x->run_id, y->run_id);

	return c ? c : strcmp(x->kind, y->kind);
}

static int take_row(const char *run_id, const char *kind, const struct tk_store_frame *f,
		    void *data)
{
	struct hist_load *l = data;
	struct set_row key, *set;
	struct frame_row *r;
	size_t i;

	key.run_id = (char *)run_id;
	key.kind = kind;
	set = l->nr_sets ? bsearch(&key, l->sets, l->nr_sets, sizeof(*l->sets), set_cmp) : NULL;
	if (!set)
		return 0; /* a profile stored after the sets were read */
	for (i = 0; i < l->h->nr_names && strcmp(l->h->names[i], f->name); i++)
		;
	if (i == l->h->nr_names)
		return 0;
	TK_ALLOC_GROW(l->rows, l->nr_rows + 1, l->alloc_rows);
	r = &l->rows[l->nr_rows++];
	r->run_id = set->run_id;
	r->kind = set->kind;
	r->name = i;
	r->self = f->self;
	r->cumulative = f->cumulative;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct frame_row *x = a, *y = b;
	int c = strcmp(x->run_id, y->run_id);

	if (c)
		return c;
	c = strcmp(x->kind, y->kind);
	if (c)
		return c;
	return x->name < y->name ? -1 : x->name > y->name;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The first of the sets of run id (they are adjacent, sorted), or NULL. */
static struct set_row *first_set(struct hist_load *l, const char *id)
{
	size_t lo = 0, hi = l->nr_sets;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(l->sets[mid].run_id, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l->nr_sets && !strcmp(l->sets[lo].run_id, id) ? &l->sets[lo] : NULL;
}

/* Names per frame query: far below SQLite's and libpq's bounds on
 * parameters. */
#define NAMES_PER_QUERY 200

int tk_frametot_history(struct tk_store *s, const struct tk_run_query *q,
			const struct tk_frametot_names *names, struct tk_frame_history *out,
			struct tk_err *err)
{
	struct tk_store_frame_sets sq;
	struct tk_store_frame_rows rq;
	struct hist_load l;
	const char **chunk = NULL;
	size_t i, k, n;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&l, 0, sizeof(l));
	l.h = out;
	if (!q->keys || !q->keys[0] || q->keys[1])
		return tk_err_set(err, TK_EUSAGE, "a function's history is of one key");
	out->key = tk_xstrdup(q->keys[0]);
	out->names = (const char *const *)names->v;
	out->nr_names = names->nr;
	ret = tk_store_query_summaries(s, q, take_run, out, err);
	if (ret)
		goto out;
	memset(&sq, 0, sizeof(sq));
	sq.key = out->key;
	sq.fn = take_set;
	sq.data = &l;
	ret = ctrl(s, TK_STORE_CTRL_FRAME_SETS, &sq, err);
	if (ret)
		goto out;
	if (l.nr_sets)
		qsort(l.sets, l.nr_sets, sizeof(*l.sets), set_cmp);
	chunk = tk_xcalloc(NAMES_PER_QUERY + 1, sizeof(*chunk));
	for (i = 0; i < names->nr; i += NAMES_PER_QUERY) {
		for (k = 0; k < NAMES_PER_QUERY && i + k < names->nr; k++)
			chunk[k] = names->v[i + k];
		chunk[k] = NULL;
		memset(&rq, 0, sizeof(rq));
		rq.key = out->key;
		rq.names = chunk;
		rq.fn = take_row;
		rq.data = &l;
		ret = ctrl(s, TK_STORE_CTRL_FRAME_ROWS, &rq, err);
		if (ret)
			goto out;
	}
	if (l.nr_rows)
		qsort(l.rows, l.nr_rows, sizeof(*l.rows), row_cmp);
	/* the points: runs newest first (as listed), their kinds, the names */
	for (i = 0; i < out->nr_runs; i++) {
		const char *id = out->runs[i].id;
		struct set_row *first = first_set(&l, id);

		for (; first && first < l.sets + l.nr_sets && !strcmp(first->run_id, id);
		     first++) {
			if (!first->has_frames)
				out->not_stored++;
			for (n = 0; n < out->nr_names; n++) {
				struct frame_row rk, *row;
				struct tk_frame_point *pt;

				rk.run_id = first->run_id;
				rk.kind = first->kind;
				rk.name = n;
				row = first->has_frames && l.nr_rows ? bsearch(&rk, l.rows, l.nr_rows,
								  sizeof(*l.rows), row_cmp)
					: NULL;
				TK_ALLOC_GROW(out->points, out->nr_points + 1, out->alloc_points);
				pt = &out->points[out->nr_points++];
				memset(pt, 0, sizeof(*pt));
				pt->run = i;
				pt->name = n;
				pt->total = first->total;
				pt->floor = first->floor;
				pt->below = first->has_frames && !row;
				pt->self = row ? row->self : first->has_frames ? 0 : NAN;
				pt->cumulative = row ? row->cumulative : first->has_frames ? 0 : NAN;
				/* kinds and units outlive the load: kept in the history */
				for (k = 0; k < out->nr_kinds && strcmp(out->kinds[k], first->kind); k++)
					;
				if (k == out->nr_kinds) {
					out->kinds = tk_realloc_array(out->kinds, out->nr_kinds + 1,
								      sizeof(*out->kinds));
					out->kinds[out->nr_kinds++] = tk_xstrdup(first->kind);
				}
				pt->kind = out->kinds[k];
				pt->unit = unit_of(first->kind, first->unit);
			}
		}
	}
	/* kinds in byte order, for outputs that list them */
	{
		char **sorted = tk_xcalloc(out->nr_kinds + 1, sizeof(*sorted));

		if (out->nr_kinds) {
			memcpy(sorted, out->kinds, out->nr_kinds * sizeof(*sorted));
			qsort(sorted, out->nr_kinds, sizeof(*sorted), str_cmp);
		}
		/* points keep their pointers: only the order of the list changes */
		free(out->kinds);
		out->kinds = sorted;
	}
out:
	free(chunk);
	for (i = 0; i < l.nr_sets; i++)
		free(l.sets[i].run_id);
	free(l.sets);
	free(l.rows);
	for (i = 0; i < l.nr_interned; i++)
		free(l.interned[i]);
	free(l.interned);
	if (ret)
		tk_frame_history_release(out);
	return ret;
}

void tk_frame_history_release(struct tk_frame_history *h)
{
	size_t i;

	for (i = 0; i < h->nr_runs; i++)
		tk_run_ref_release(&h->runs[i]);
	free(h->runs);
	for (i = 0; i < h->nr_kinds; i++)
		free(h->kinds[i]);
	free(h->kinds);
	free(h->points);
	free(h->key);
	memset(h, 0, sizeof(*h));
}

/* ---- the functions that moved across a change point ---- */

struct side_vals {
	char *name;
	double *self[2], *cum[2]; /* per side, per run of the side */
};

struct movers_load {
	struct side_vals *v;
	size_t nr, alloc;
	size_t side, run;   /* the run being read */
	size_t nr_runs[2];  /* runs with frame totals, per side */
	size_t max_runs[2];
	int seen;           /* the run being read had a row */
};

static struct side_vals *vals_of(struct movers_load *m, const char *name)
{
	size_t i;
	struct side_vals *v;

	for (i = 0; i < m->nr; i++)
		if (!strcmp(m->v[i].name, name))
			return &m->v[i];
	TK_ALLOC_GROW(m->v, m->nr + 1, m->alloc);
	v = &m->v[m->nr++];
	v->name = tk_xstrdup(name);
	for (i = 0; i < 2; i++) {
		v->self[i] = tk_xcalloc(m->max_runs[i] + 1, sizeof(double));
		v->cum[i] = tk_xcalloc(m->max_runs[i] + 1, sizeof(double));
	}
	return v;
}

static int take_move_row(const char *run_id, const char *kind, const struct tk_store_frame *f,
			 void *data)
{
	struct movers_load *m = data;
	struct side_vals *v = vals_of(m, f->name);

	(void)run_id;
	(void)kind;
	v->self[m->side][m->run] = f->self;
	v->cum[m->side][m->run] = f->cumulative;
	m->seen = 1;
	return 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median of each side into med[], and the pooled robust sigma of the
 * runs around their side's median. v is reordered. */
static double robust(double *v[2], const size_t n[2], double med[2])
{
	double *dev = tk_xcalloc(n[0] + n[1] + 1, sizeof(double));
	size_t i, k, nd = 0;
	double sigma;

	for (k = 0; k < 2; k++)
		med[k] = median(v[k], n[k]);
	for (k = 0; k < 2; k++)
		for (i = 0; i < n[k]; i++)
			dev[nd++] = fabs(v[k][i] - med[k]);
	sigma = 1.4826 * median(dev, nd);
	free(dev);
	return sigma;
}

/* Whether the medians moved: beyond the noise, the share of the total
 * and the share of its own level. */
static int moved(double delta, double sigma, const size_t n[2], double base, double total)
{
	double band = TK_FRAMETOT_MOVE_SIGMAS * sigma * sqrt(1.0 / (double)n[0] +
							       1.0 / (double)n[1]);

	return fabs(delta) > band && fabs(delta) > TK_FRAMETOT_MOVE_SHARE * total &&
	       fabs(delta) > TK_FRAMETOT_MOVE_REL * base;
}

static int move_cmp(const void *a, const void *b)
{
	const struct tk_frame_move *x = a, *y = b;
	double dx = fabs(x->after - x->before), dy = fabs(y->after - y->before);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	if (x->cumulative != y->cumulative)
		return x->cumulative - y->cumulative;
	return strcmp(x->name, y->name);
}

int tk_frametot_movers(struct tk_store *s, const char *key, const char *kind,
		       const char *const *before, size_t nb, const char *const *after,
		       size_t na, size_t max, struct tk_frame_move **out, size_t *nout,
		       int *compared, struct tk_err *err)
{
	const char *const *ids[2] = { before, after };
	size_t nids[2] = { nb, na };
	struct movers_load m;
	struct tk_frame_move *mv = NULL;
	double *totals[2], tmed[2], total, up = 0, down = 0;
	const char *unit = tk_unit_name(TK_UNIT_SAMPLES);
	size_t i, k, nmv = 0, alloc = 0;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	*compared = 0;
	memset(&m, 0, sizeof(m));
	m.max_runs[0] = nb;
	m.max_runs[1] = na;
	for (k = 0; k < 2; k++)
		totals[k] = tk_xcalloc(nids[k] + 1, sizeof(double));
	for (k = 0; k < 2 && !ret; k++) {
		for (i = 0; i < nids[k] && !ret; i++) {
			struct tk_store_frame_rows q;
			struct tk_store_profile_total t;

			memset(&q, 0, sizeof(q));
			q.key = key;
			q.run_id = ids[k][i];
			q.kind = kind;
			q.fn = take_move_row;
			q.data = &m;
			m.side = k;
			m.run = m.nr_runs[k];
			m.seen = 0;
			ret = ctrl(s, TK_STORE_CTRL_FRAME_ROWS, &q, err);
			if (ret || !m.seen)
				continue;
			memset(&t, 0, sizeof(t));
			t.run_id = ids[k][i];
			t.kind = kind;
			ret = ctrl(s, TK_STORE_CTRL_PROFILE_TOTAL, &t, err);
			totals[k][m.nr_runs[k]++] = t.found ? t.total : 0;
			if (t.found && *unit_of(kind, t.unit))
				unit = unit_of(kind, t.unit);
		}
	}
	if (ret || !m.nr_runs[0] || !m.nr_runs[1])
		goto out;
	*compared = 1;
	for (k = 0; k < 2; k++)
		tmed[k] = median(totals[k], m.nr_runs[k]);
	total = tmed[0] > tmed[1] ? tmed[0] : tmed[1];
	/* the self moves first: they say where the weight went */
	for (i = 0; i < m.nr; i++) {
		double med[2], sigma = robust(m.v[i].self, m.nr_runs, med);

		if (!moved(med[1] - med[0], sigma, m.nr_runs, med[0], total))
			continue;
		TK_ALLOC_GROW(mv, nmv + 1, alloc);
		mv[nmv].name = tk_xstrdup(m.v[i].name);
		mv[nmv].cumulative = 0;
		mv[nmv].unit = unit;
		mv[nmv].before = med[0];
		mv[nmv++].after = med[1];
		if (med[1] > med[0])
			up += med[1] - med[0];
		else
			down += med[0] - med[1];
	}
	/* then the totals that the self moves do not explain */
	for (i = 0; i < m.nr; i++) {
		double med[2], sigma = robust(m.v[i].cum, m.nr_runs, med), d = med[1] - med[0];
		double rest = d > 0 ? d - up : d + down;

		if ((d > 0) != (rest > 0) || !moved(rest, sigma, m.nr_runs, med[0], total))
			continue;
		TK_ALLOC_GROW(mv, nmv + 1, alloc);
		mv[nmv].name = tk_xstrdup(m.v[i].name);
		mv[nmv].cumulative = 1;
		mv[nmv].unit = unit;
		mv[nmv].before = med[0];
		mv[nmv++].after = med[1];
	}
	if (nmv)
		qsort(mv, nmv, sizeof(*mv), move_cmp);
	while (nmv > max)
		free(mv[--nmv].name);
	*out = mv;
	*nout = nmv;
	mv = NULL;
	nmv = 0;
out:
	tk_frame_moves_free(mv, nmv);
	for (i = 0; i < m.nr; i++) {
		free(m.v[i].name);
		for (k = 0; k < 2; k++) {
			free(m.v[i].self[k]);
			free(m.v[i].cum[k]);
		}
	}
	free(m.v);
	for (k = 0; k < 2; k++)
		free(totals[k]);
	return ret;
}

void tk_frame_moves_free(struct tk_frame_move *m, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(m[i].name);
	free(m);
}

const char *tk_frametot_kind_for(enum tk_metric m)
{
	const char *kind = tk_metric_profile_kind(m);

	if (kind)
		return kind;
	return m == TK_METRIC_WALLTIME || m == TK_METRIC_CPU ? "cpu" : "alloc";
}

static int stop_at_first(const char *name, void *data)
{
	(void)name;
	*(int *)data = 1;
	return 1;
}

int tk_frametot_key_has(struct tk_store *s, const char *key, struct tk_err *err)
{
	struct tk_store_frame_names q;
	int found = 0, ret;

	memset(&q, 0, sizeof(q));
	q.key = key;
	q.fn = stop_at_first;
	q.data = &found;
	ret = ctrl(s, TK_STORE_CTRL_FRAME_NAMES, &q, err);
	if (ret == TK_EUSAGE) {
		tk_err_clear(err);
		return 0;
	}
	return ret < 0 ? ret : found;
}
