/*
 * A key's history read once (contract in core/store/keyhist.h).
 */
#include "core/store/keyhist.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/runfield.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

/* At most this many string fields in a summary. */
#define MAX_STRINGS 32

/* The summary's strings (core/model/runfield.h), copied into the arena. */
struct loader {
	struct tk_key_history *h;
	size_t at[MAX_STRINGS]; /* their offsets in struct tk_run_summary */
	size_t n;
};

static int find_strings(struct loader *l, struct tk_err *err)
{
	size_t i;

	l->n = 0;
	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = &tk_run_fields[i];

		if ((f->type != TK_RFT_STR && f->type != TK_RFT_UUID) ||
		    f->summary == TK_RF_NO_SUMMARY)
			continue;
		if (l->n == MAX_STRINGS)
			return tk_err_set(err, TK_EINTERNAL, "a run summary has more than %d "
					  "strings (core/store/keyhist.c)", MAX_STRINGS);
		l->at[l->n++] = f->summary;
	}
	return 0;
}

static const char **field(struct tk_run_summary *r, size_t offset)
{
	return (const char **)(void *)((char *)r + offset);
}

/*
 * Keeps a copy of s. Its strings go into the arena in one piece, except
 * those the run before had too (the key, the branch, the pipeline, the
 * machine class, ... of runs in a row), which share that run's copy: the
 * history of a key is most of a dashboard's reading.
 */
static int keep(const struct tk_run_summary *s, void *data)
{
	struct loader *l = data;
	struct tk_key_history *h = l->h;
	struct tk_run_summary *r, *prev;
	size_t i, len[MAX_STRINGS], total = 0;
	char *p;

	TK_ALLOC_GROW(h->runs, h->nr + 1, h->alloc_runs);
	prev = h->nr ? &h->runs[h->nr - 1] : NULL;
	r = &h->runs[h->nr++];
	*r = *s;
	for (i = 0; i < l->n; i++) {
		const char *v = *field(r, l->at[i]), *old = prev ? *field(prev, l->at[i]) : NULL;

		len[i] = 0;
		if (!v)
			continue;
		if (old && !strcmp(old, v)) {
			*field(r, l->at[i]) = old;
			continue;
		}
		len[i] = strlen(v) + 1;
		total += len[i];
	}
	p = total ? tk_arena_alloc(&h->arena, total, 1) : NULL;
	for (i = 0; i < l->n; i++) {
		if (!len[i])
			continue;
		memcpy(p, *field(r, l->at[i]), len[i]);
		*field(r, l->at[i]) = p;
		p += len[i];
	}
	return 0;
}

static int cmp_ids(const void *a, const void *b)
{
	return strcmp(((const struct tk_key_history_id *)a)->id,
		      ((const struct tk_key_history_id *)b)->id);
}

/* h->by_id: the runs in the order of their ids, for finding a run by id in
 * log time (the alloc totals of a check's runs). */
static void index_ids(struct tk_key_history *h)
{
	size_t i;

	free(h->by_id);
	h->by_id = tk_xcalloc(h->nr + 1, sizeof(*h->by_id));
	for (i = 0; i < h->nr; i++) {
		h->by_id[i].id = h->runs[i].run_id ? h->runs[i].run_id : "";
		h->by_id[i].at = i;
	}
	qsort(h->by_id, h->nr, sizeof(*h->by_id), cmp_ids);
}

int tk_key_history_load(struct tk_store *s, const char *key, int64_t since_us,
			int with_alloc, struct tk_key_history *h, struct tk_err *err)
{
	const char *keys[2] = { key, NULL };
	struct loader l;
	struct tk_run_query q;
	const char **ids;
	size_t i;
	int ret;

	memset(h, 0, sizeof(*h));
	h->key = tk_xstrdup(key);
	h->since_us = since_us;
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.since_us = since_us;
	q.chart_only = 1;
	l.h = h;
	ret = find_strings(&l, err);
	if (!ret)
		ret = tk_store_query_summaries(s, &q, keep, &l, err);
	if (!ret)
		index_ids(h);
	if (!ret && with_alloc) {
		h->alloc = tk_xcalloc(h->nr + 1, sizeof(*h->alloc));
		ids = tk_xcalloc(h->nr + 1, sizeof(*ids));
		for (i = 0; i < h->nr; i++)
			ids[i] = h->runs[i].run_id;
		ret = tk_profstore_alloc_totals(s, ids, h->nr, h->alloc, err);
		free(ids);
	}
	if (ret)
		tk_key_history_release(h);
	return ret;
}

/* 1 when q names h's key and only it (a store query of no key, or of
 * others too, selects runs a key's history does not hold). */
static int only_this_key(const struct tk_run_query *q, const char *key)
{
	const char *const *k;

	if (!q->keys || !q->keys[0])
		return 0;
	for (k = q->keys; *k; k++)
		if (strcmp(*k, key))
			return 0;
	return 1;
}

int tk_key_history_query(const struct tk_key_history *h, const struct tk_run_query *q,
			 tk_summary_fn fn, void *data, int *complete, struct tk_err *err)
{
	size_t i;
	long n = 0;
	int ret;

	if (complete)
		*complete = 1;
	if (q->run_id_prefix || q->profile_kind || q->rank_group)
		return tk_err_set(err, TK_EUSAGE, "a key's history in memory cannot select "
				  "runs by id prefix, profile or rank group");
	if (!only_this_key(q, h->key)) {
		if (complete)
			*complete = 0;
		return 0;
	}
	for (i = 0; i < h->nr; i++) {
		const struct tk_run_summary *r = &h->runs[i];

		if (q->limit > 0 && n >= q->limit)
			return 0;
		if (q->branch && (!r->branch || strcmp(r->branch, q->branch)))
			continue;
		if (q->since_us && r->started_at_us < q->since_us)
			continue;
		if (q->run_id && strcmp(r->run_id, q->run_id))
			continue;
		n++;
		ret = fn(r, data);
		if (ret)
			return ret;
	}
	/* the store would go on past the history's start */
	if (complete && h->since_us && q->since_us < h->since_us &&
	    !(q->limit > 0 && n >= q->limit))
		*complete = 0;
	return 0;
}

double tk_key_history_alloc(const struct tk_key_history *h, size_t i)
{
	return h->alloc && i < h->nr ? h->alloc[i] : -1;
}

size_t tk_key_history_find(const struct tk_key_history *h, const char *id)
{
	size_t lo = 0, hi = h->nr;

	while (id && h->by_id && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(h->by_id[mid].id, id);

		if (!c)
			return h->by_id[mid].at;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (size_t)-1;
}

int tk_key_history_trim(struct tk_key_history *h, int64_t since_us, struct tk_err *err)
{
	struct tk_key_history t;
	struct loader l;
	size_t i;
	int ret;

	if (since_us <= h->since_us)
		return 0;
	memset(&t, 0, sizeof(t));
	t.key = h->key;
	t.since_us = since_us;
	l.h = &t;
	ret = find_strings(&l, err);
	for (i = 0; !ret && i < h->nr && h->runs[i].started_at_us >= since_us; i++)
		keep(&h->runs[i], &l);
	if (!ret && h->alloc) {
		t.alloc = tk_xcalloc(t.nr + 1, sizeof(*t.alloc));
		memcpy(t.alloc, h->alloc, t.nr * sizeof(*t.alloc));
	}
	if (ret) {
		t.key = NULL;
		tk_key_history_release(&t);
		return ret;
	}
	index_ids(&t);
	h->key = NULL;
	tk_key_history_release(h);
	*h = t;
	return 0;
}

void tk_key_history_release(struct tk_key_history *h)
{
	free(h->key);
	free(h->runs);
	free(h->alloc);
	free(h->by_id);
	tk_arena_release(&h->arena);
	memset(h, 0, sizeof(*h));
}
