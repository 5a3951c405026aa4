#ifndef TK_KEYHIST_H
#define TK_KEYHIST_H
/*
 * A key's history, read from the store once and kept in memory, so that
 * the check of the key, its charts and its dashboard row are made from one
 * read: a report of a build reads each of its keys' runs once.
 *
 * What is kept: the summaries (core/model/summary.h) of the key's runs,
 * with the fields a chart and a check read (tk_run_query.chart_only: a
 * store may leave the others unknown), that started at or after since_us
 * (0: all of them), in the store's order (newest first: started_at_us
 * descending, then run id), their strings copied into an arena the history
 * owns; and, when asked at load time, each run's alloc total (the stored
 * "alloc" profile's, tk_profstore_alloc_totals).
 *
 * tk_key_history_query replays the history to a tk_summary_fn as the
 * store's query_summaries would give it: the same filters (keys, branch,
 * since_us, run_id, limit) and order, so code written for the store reads
 * a history the same way. A query that names no key, or another key
 * too, selects runs the history does not hold: nothing is replayed and
 * *complete is 0. Filters a history cannot answer (run-id
 * prefixes, profile kinds, rank groups) are TK_EUSAGE. A history that
 * starts at since_us cannot say what came before: *complete (may be NULL)
 * tells whether the replay went as far as the store's query would have
 * (the callback stopped it, or the history holds every run the query
 * selects); when it did not, the caller asks the store instead.
 *
 * Nothing here prints. Errors are the store's. Memory is the runs' (a few
 * hundred bytes each) and is freed by tk_key_history_release, which leaves
 * an empty history.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/arena.h"
#include "core/base/err.h"
#include "core/model/summary.h"
#include "core/store/store.h"

struct tk_key_history_id {
	const char *id;
	size_t at;
};

struct tk_key_history {
	char *key;
	int64_t since_us;             /* the runs kept started at or after it */
	struct tk_run_summary *runs;  /* newest first */
	double *alloc;                /* per run, -1 none; NULL when not loaded */
	size_t nr, alloc_runs;
	struct tk_arena arena;        /* the summaries' strings */
	struct tk_key_history_id *by_id; /* the runs by id (tk_key_history_find) */
};

/* Loads key's runs started at or after since_us (0: all) into h (zeroed
 * or released before); with_alloc also reads their alloc totals. */
int tk_key_history_load(struct tk_store *s, const char *key, int64_t since_us,
			int with_alloc, struct tk_key_history *h, struct tk_err *err);

/* Replays the runs q selects to fn, as the store would (see the top). */
int tk_key_history_query(const struct tk_key_history *h, const struct tk_run_query *q,
			 tk_summary_fn fn, void *data, int *complete, struct tk_err *err);

/* The alloc total of the run of h at index i, or -1 (none, or not loaded). */
double tk_key_history_alloc(const struct tk_key_history *h, size_t i);
/* The index of run id in h, or (size_t)-1; log time. */
size_t tk_key_history_find(const struct tk_key_history *h, const char *id);

/* Keeps only the runs started at or after since_us (a later start than
 * h's), copied into a smaller arena: a report keeps its keys' runs for
 * its dashboard, which shows a window of them. */
int tk_key_history_trim(struct tk_key_history *h, int64_t since_us, struct tk_err *err);

void tk_key_history_release(struct tk_key_history *h);

#endif
