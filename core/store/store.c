/*
 * Picks the store backend for a URL from plugins/store/backends.c, opens it and
 * brings its schema up to date.
 */
#include "core/store/store.h"

#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/suggest.h"
#include "core/model/runfield.h"
#include "core/base/banned.h"

static int no_backend(const char *url, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	int ret;

	tk_store_redact_url(url, &shown);
	ret = tk_err_set(err, TK_EUSAGE,
			  "no store understands the database URL '%s' "
			  "(use a file path, sqlite:PATH or postgresql://...)", shown.buf);
	tk_buf_release(&shown);
	return ret;
}

void tk_store_redact_url(const char *url, struct tk_buf *out)
{
	const char *scheme = strstr(url, "://");
	const char *p = url, *q;

	if (scheme) {
		const char *auth = scheme + 3;
		size_t end = strcspn(auth, "/?#");
		const char *at = NULL, *colon;

		/* the last '@' of the authority ends the user information */
		for (q = auth; q < auth + end; q++)
			if (*q == '@')
				at = q;
		colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
		if (colon) {
			tk_buf_add(out, url, (size_t)(colon + 1 - url));
			tk_buf_adds(out, "***");
			p = at;
		}
	}
	/* password=... in the query, up to the next '&' */
	while ((q = strstr(p, "password="))) {
		if (q > url && q[-1] != '?' && q[-1] != '&') {
			tk_buf_add(out, p, (size_t)(q + 9 - p));
			p = q + 9;
			continue;
		}
		tk_buf_add(out, p, (size_t)(q + 9 - p));
		tk_buf_adds(out, "***");
		p = q + 9 + strcspn(q + 9, "&#");
	}
	tk_buf_adds(out, p);
}

int tk_store_open_opts(const char *url, const struct tk_store_opts *o,
		       struct tk_store **out, struct tk_err *err)
{
	const struct tk_store_ops *b;
	struct tk_store *s = NULL;
	int ret;

	*out = NULL;
	if (!url || !*url)
		return tk_err_set(err, TK_EUSAGE, "no database given (empty URL)");
	b = tk_store_backend_for(url);
	if (!b)
		return no_backend(url, err);
	ret = b->open(url, o, &s, err);
	if (ret)
		return ret;
	s->cancel = o->cancel;
	ret = s->ops->migrate(s, err);
	if (ret) {
		s->ops->close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int tk_store_open_flags(const char *url, unsigned flags, struct tk_store **out,
			struct tk_err *err)
{
	struct tk_store_opts o = { flags, NULL, 0, 0 };

	return tk_store_open_opts(url, &o, out, err);
}

int tk_store_open_reader(const char *url, struct tk_store **out, struct tk_err *err)
{
	struct tk_store_opts o = { TK_STORE_NO_CREATE, NULL, TK_STORE_READ_WAIT_S,
				   TK_STORE_READ_TIMEOUT_S };

	return tk_store_open_opts(url, &o, out, err);
}

int tk_store_open(const char *url, struct tk_store **out, struct tk_err *err)
{
	return tk_store_open_flags(url, 0, out, err);
}

void tk_store_close(struct tk_store *s)
{
	if (s)
		s->ops->close(s);
}


struct copy {
	struct tk_store *src;
	struct tk_store *dst;
	struct tk_store_copy_stats *stats;
	struct tk_err *err;
	int failed; /* dst's error code, stored in err */
};

/* The run with its timeline, which query_runs leaves out. */
static int copy_run(const struct tk_run *r, void *data)
{
	struct copy *c = data;
	struct tk_run with = *r;
	int inserted = 0, found = 0;

	tk_timeline_init(&with.timeline);
	c->failed = tk_store_get_timeline(c->src, r->id, &with.timeline, &found, c->err);
	if (!c->failed)
		c->failed = tk_store_put_run(c->dst, &with, &inserted, c->err);
	tk_timeline_release(&with.timeline);
	if (c->failed)
		return 1;
	c->stats->runs++;
	c->stats->runs_stored += inserted ? 1 : 0;
	return 0;
}

static int copy_profile(const struct tk_profile_blob *b, void *data)
{
	struct copy *c = data;

	c->failed = tk_store_put_profile(c->dst, b, c->err);
	if (c->failed)
		return 1;
	c->stats->profiles++;
	return 0;
}

int tk_store_copy(struct tk_store *src, struct tk_store *dst,
		  struct tk_store_copy_stats *stats, struct tk_err *err)
{
	struct copy c = { src, dst, stats, err, 0 };
	struct tk_profile_each each = { copy_profile, &c };
	struct tk_run_query q;
	int ret;

	memset(stats, 0, sizeof(*stats));
	memset(&q, 0, sizeof(q));
	ret = tk_store_query_runs(src, &q, copy_run, &c, err);
	if (ret > 0)
		return c.failed;
	if (ret)
		return ret;
	ret = src->ops->ctrl(src, TK_STORE_CTRL_EACH_PROFILE, &each, err);
	if (ret > 0)
		return c.failed;
	return ret;
}

int tk_store_get_timeline(struct tk_store *s, const char *run_id, struct tk_timeline *out,
			  int *found, struct tk_err *err)
{
	struct tk_store_timeline q = { run_id, out, 0 };
	struct tk_err ignored = TK_ERR_INIT;
	int ret;

	*found = 0;
	out->nr = 0;
	ret = s->ops->ctrl(s, TK_STORE_CTRL_TIMELINE, &q, &ignored);
	if (ret == TK_EUSAGE)
		return 0; /* a backend that keeps none */
	if (ret)
		return tk_err_set(err, ret, "%s", ignored.msg);
	*found = q.found;
	return 0;
}

struct prefix_matches {
	char ids[2][TK_RUN_ID_LEN + 1];
	int n;
};

static int take_match(const struct tk_run_summary *s, void *data)
{
	struct prefix_matches *m = data;

	if (m->n < 2 && s->run_id) {
		snprintf(m->ids[m->n], sizeof(m->ids[m->n]), "%s", s->run_id);
		m->n++;
	}
	return 0;
}

static int found_one(const struct tk_run_summary *r, void *data)
{
	(void)r;
	*(int *)data = 1;
	return 1;
}

int tk_store_any_run(struct tk_store *s, const struct tk_run_query *q, struct tk_err *err)
{
	struct tk_run_query one = *q;
	int found = 0, ret;

	one.limit = 1;
	/* a row out of bounds is still a run: the key exists */
	ret = s->ops->query_summaries(s, &one, found_one, &found, err);
	return ret < 0 ? ret : found;
}

static int take_key(const struct tk_run_summary *r, void *data)
{
	tk_buf_adds(data, r->key ? r->key : "");
	return 1;
}

int tk_store_run_key(struct tk_store *s, const char *id, struct tk_buf *out,
		     struct tk_err *err)
{
	struct tk_run_query q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.run_id = id;
	ret = tk_store_query_summaries(s, &q, take_key, out, err);
	return ret < 0 ? ret : 0;
}

int tk_store_resolve_run_id(struct tk_store *s, const char *given, const char *const *keys,
			    struct tk_buf *out, struct tk_err *err)
{
	struct prefix_matches m;
	struct tk_run_query q;
	size_t len = strlen(given);
	int ret;

	tk_buf_reset(out);
	if (len < TK_RUN_ID_MIN_PREFIX || len >= TK_RUN_ID_LEN ||
	    strspn(given, "0123456789abcdef-") != len) {
		tk_buf_adds(out, given);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	memset(&q, 0, sizeof(q));
	q.run_id_prefix = given;
	q.keys = keys;
	q.limit = 2;
	q.chart_only = 1;
	ret = tk_store_query_summaries(s, &q, take_match, &m, err);
	if (ret)
		return ret;
	if (m.n > 1)
		return tk_err_set(err, TK_EUSAGE, "run id '%s' is ambiguous: more than one run's "
				  "id starts with it (%s, %s); give more of it", given, m.ids[0],
				  m.ids[1]);
	tk_buf_adds(out, m.n ? m.ids[0] : given);
	return 0;
}

/* ---- keys ---- */

/* The keys of runs, gathered from a backend without a key index. */
struct key_set {
	char **v;
	size_t nr, alloc;
	size_t compact_at; /* sort and drop repeats when nr reaches it */
};

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void key_set_compact(struct key_set *k)
{
	size_t i, j;

	if (!k->nr)
		return;
	qsort(k->v, k->nr, sizeof(*k->v), cmp_key);
	for (i = j = 0; i < k->nr; i++) {
		if (j && !strcmp(k->v[j - 1], k->v[i]))
			free(k->v[i]);
		else
			k->v[j++] = k->v[i];
	}
	k->nr = j;
	/* runs repeat keys: compacting at twice the distinct keys keeps the
	 * memory to that and the sorting to O(n log n) over the pass */
	k->compact_at = 2 * j > 1024 ? 2 * j : 1024;
}

static int gather_key(const struct tk_run_summary *r, void *data)
{
	struct key_set *k = data;
	const char *key = r->key ? r->key : "";

	if (k->nr && !strcmp(k->v[k->nr - 1], key))
		return 0;
	TK_ALLOC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = tk_xstrdup(key);
	if (k->nr >= k->compact_at)
		key_set_compact(k);
	return 0;
}

int tk_store_each_key(struct tk_store *s, int64_t since_us,
		      int (*fn)(const char *key, void *data), void *data, struct tk_err *err)
{
	struct tk_store_keys q = { since_us, fn, data };
	struct key_set k = { NULL, 0, 0, 1024 };
	struct tk_run_query rq;
	size_t i;
	int ret;

	ret = s->ops->ctrl(s, TK_STORE_CTRL_KEYS, &q, err);
	if (ret != TK_EUSAGE)
		return ret;
	tk_err_clear(err);
	memset(&rq, 0, sizeof(rq));
	rq.since_us = since_us;
	rq.chart_only = 1;
	ret = tk_store_query_summaries(s, &rq, gather_key, &k, err);
	if (!ret)
		key_set_compact(&k);
	for (i = 0; i < k.nr; i++) {
		if (!ret)
			ret = fn(k.v[i], data);
		free(k.v[i]);
	}
	free(k.v);
	return ret;
}

int tk_store_key_exists(struct tk_store *s, const char *key, struct tk_err *err)
{
	const char *keys[2] = { key, NULL };
	struct tk_run_query q;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.chart_only = 1;
	return tk_store_any_run(s, &q, err);
}

struct nearest {
	struct tk_store_near *out;
	const char *name;
	size_t limit;              /* the farthest a suggestion may be */
	size_t d[TK_STORE_NEAR_KEYS];
};

static size_t diff_len(size_t a, size_t b)
{
	return a > b ? a - b : b - a;
}

static int take_near(const char *key, void *data)
{
	struct nearest *n = data;
	struct tk_store_near *o = n->out;
	size_t d, i;

	o->total++;
	/* the distance is at least the difference in length: most keys stop here */
	if (diff_len(strlen(key), strlen(n->name)) > n->limit)
		return 0;
	d = tk_edit_distance(n->name, key);
	if (d > n->limit)
		return 0;
	/* keys come in byte order: a key ties with those before it by coming after them */
	for (i = o->nr; i > 0 && n->d[i - 1] > d; i--)
		;
	if (i >= TK_STORE_NEAR_KEYS)
		return 0;
	if (o->nr == TK_STORE_NEAR_KEYS)
		free(o->keys[--o->nr]);
	memmove(&o->keys[i + 1], &o->keys[i], (o->nr - i) * sizeof(o->keys[0]));
	memmove(&n->d[i + 1], &n->d[i], (o->nr - i) * sizeof(n->d[0]));
	o->keys[i] = tk_xstrdup(key);
	n->d[i] = d;
	o->nr++;
	return 0;
}

int tk_store_near_keys(struct tk_store *s, const char *name, struct tk_store_near *out,
		       struct tk_err *err)
{
	struct tk_buf bare = TK_BUF_INIT;
	struct nearest n;
	const char *p;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&n, 0, sizeof(n));
	for (p = name; *p; p++)
		if (*p != '*')
			tk_buf_addch(&bare, *p);
	n.out = out;
	n.name = bare.buf;
	n.limit = bare.len / 3 > 2 ? bare.len / 3 : 2;
	ret = tk_store_each_key(s, 0, take_near, &n, err);
	tk_buf_release(&bare);
	if (ret)
		tk_store_near_release(out);
	return ret;
}

void tk_store_near_release(struct tk_store_near *n)
{
	size_t i;

	for (i = 0; i < n->nr; i++)
		free(n->keys[i]);
	memset(n, 0, sizeof(*n));
}

static void shown_key(struct tk_buf *out, const char *key)
{
	tk_buf_addch(out, '\'');
	tk_text_escape_cut(out, key, strlen(key), TK_STORE_SHOWN_KEY);
	tk_buf_addch(out, '\'');
}

/* TK_EDATA "no runs of WHAT; the nearest keys are ...": what is "key 'X'"
 * or "a key matching 'P'". */
static int unknown_key(struct tk_store *s, const char *what, const char *name,
		       struct tk_err *err)
{
	struct tk_store_near near;
	struct tk_buf msg = TK_BUF_INIT;
	size_t i;
	int ret;

	ret = tk_store_near_keys(s, name, &near, err);
	if (ret)
		return ret;
	tk_buf_addf(&msg, "no runs of %s ", what);
	shown_key(&msg, name);
	if (!near.total) {
		tk_buf_adds(&msg, "; the database has no runs");
	} else if (!near.nr) {
		tk_buf_addf(&msg, "; no key is near it (the database has %zu key%s)", near.total,
			    near.total == 1 ? "" : "s");
	} else {
		tk_buf_adds(&msg, near.nr == 1 ? "; the nearest key is " : "; the nearest keys are ");
		for (i = 0; i < near.nr; i++) {
			if (i)
				tk_buf_adds(&msg, ", ");
			shown_key(&msg, near.keys[i]);
		}
	}
	ret = tk_err_set(err, TK_EDATA, "%s", msg.buf);
	tk_buf_release(&msg);
	tk_store_near_release(&near);
	return ret;
}

int tk_store_require_keys(struct tk_store *s, const char *const *keys, struct tk_err *err)
{
	int ret;

	for (; keys && *keys; keys++) {
		ret = tk_store_key_exists(s, *keys, err);
		if (ret < 0)
			return ret;
		if (!ret)
			return unknown_key(s, "key", *keys, err);
	}
	return 0;
}

static int matches(const char *key, void *data)
{
	const char *const *pattern = data;

	return !fnmatch(*pattern, key, 0);
}

int tk_store_require_key_match(struct tk_store *s, const char *pattern, struct tk_err *err)
{
	int ret = tk_store_each_key(s, 0, matches, &pattern, err);

	if (ret < 0)
		return ret;
	return ret ? 0 : unknown_key(s, "a key matching", pattern, err);
}

/* ---- rows out of bounds ---- */

struct sane {
	struct tk_store *s;
	tk_run_fn run_fn;
	tk_summary_fn sum_fn;
	void *data;
};

/* 1 the first time run id is skipped: a run read by several queries of
 * a command is counted once (the first TK_STORE_SKIPPED_IDS of them). */
static int new_skip(struct tk_store *s, const char *id)
{
	size_t i;

	if (!id)
		return 1;
	for (i = 0; i < s->nr_skipped_ids; i++)
		if (!strncmp(s->skipped_ids[i], id, sizeof(s->skipped_ids[i]) - 1))
			return 0;
	if (s->nr_skipped_ids < TK_STORE_SKIPPED_IDS)
		snprintf(s->skipped_ids[s->nr_skipped_ids++], sizeof(s->skipped_ids[0]), "%s", id);
	return 1;
}

/* 1 when sum is out of bounds: counted, the first described. */
static int skip(struct tk_store *s, const struct tk_run_summary *sum)
{
	struct tk_buf why = TK_BUF_INIT, text = TK_BUF_INIT;

	if (!tk_run_summary_check(sum, &why)) {
		tk_buf_release(&why);
		return 0;
	}
	if (!new_skip(s, sum->run_id))
		return 1;
	if (!s->skipped++) {
		tk_buf_addf(&text, "run %.8s of key '%s': %s", sum->run_id ? sum->run_id : "?",
			    sum->key ? sum->key : "", why.buf);
		snprintf(s->skipped_first, sizeof(s->skipped_first), "%s", text.buf);
	}
	tk_buf_release(&why);
	tk_buf_release(&text);
	return 1;
}

static int sane_run(const struct tk_run *run, void *data)
{
	struct sane *c = data;
	struct tk_run_summary sum;

	tk_run_summarize(run, &sum);
	return skip(c->s, &sum) ? 0 : c->run_fn(run, c->data);
}

static int sane_summary(const struct tk_run_summary *sum, void *data)
{
	struct sane *c = data;

	return skip(c->s, sum) ? 0 : c->sum_fn(sum, c->data);
}

int tk_store_query_runs(struct tk_store *s, const struct tk_run_query *q, tk_run_fn fn,
			void *data, struct tk_err *err)
{
	struct sane c = { s, fn, NULL, data };

	return s->ops->query_runs(s, q, sane_run, &c, err);
}

int tk_store_query_summaries(struct tk_store *s, const struct tk_run_query *q,
			     tk_summary_fn fn, void *data, struct tk_err *err)
{
	struct sane c = { s, NULL, fn, data };

	return s->ops->query_summaries(s, q, sane_summary, &c, err);
}
