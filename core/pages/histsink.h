#ifndef TK_HISTSINK_H
#define TK_HISTSINK_H
/*
 * The outputs of tracker history: a list of runs, newest first, written
 * to a FILE * as an aligned table for people ("table"), CSV for
 * spreadsheets and scripts ("csv"), or a JSON array of whole runs
 * ("json"). docs/tracker-history.md is the contract of each format; the
 * first ten CSV columns never change, new ones are appended.
 *
 * tracker history's listing is one call, tk_histsink_write_query. Its
 * parts, for a caller that gathers runs its own way:
 *
 *	tk_histsink_init(&h, "csv", ranks, stdout);
 *	tk_histsink_begin(&h);
 *	ret = tk_histsink_full_runs(&h)
 *		? tk_store_query_runs(s, &q, tk_histsink_add_run, &h, &h.err)
 *		: tk_store_query_summaries(s, &q, tk_histsink_add_summary, &h, &h.err);
 *	if (!ret && ranks)
 *		ret = tk_histsink_write_jobs(&h, limit);
 *	tk_histsink_end(&h);   (also after a failed query: closes the document)
 *	tk_histsink_release(&h);
 *
 * Table and CSV take run summaries (the store reads them from columns,
 * without parsing any record); json wants whole runs (full_runs). With
 * ranks, the runs are gathered into jobs (core/analyze/ranks.h) as they come and
 * tk_histsink_write_jobs writes one row per job.
 *
 * The table is aligned on its first TK_HISTSINK_TABLE_WINDOW rows and
 * written once it has that many (or at the end), then row by row, so a
 * million runs take the memory of a thousand (a later cell wider than
 * the first rows' widens its column from there on); CSV and JSON rows as
 * they come. Nothing is written anywhere but out;
 * write errors are the caller's to check (ferror(out)). Errors are
 * negative enum tk_code with h->err filled (TK_EINTERNAL: a run that
 * jansson cannot encode; a run's own tk_run_to_json error).
 */
#include <stdint.h>
#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/analyze/ranks.h"
#include "core/model/run.h"

#define TK_HISTSINK_TABLE_WINDOW 1000
#include "core/store/store.h"
#include "core/base/table.h"

struct tk_histsink_format;

struct tk_histsink {
	const struct tk_histsink_format *fmt;
	FILE *out;
	int ranks;          /* runs are gathered into jobs */
	size_t count;       /* rows written (jobs with ranks) */
	struct tk_err err;
	/* private */
	struct tk_table table;
	struct tk_buf line;
	struct tk_buf iso_date; /* "YYYY-MM-DDT" of iso_day, for CSV times */
	int64_t iso_day;
	struct tk_rank_rows jobs;
};

/* The format named name ("table", "csv", "json"): 0 or more; TK_EUSAGE,
 * naming them, for another name. */
int tk_histsink_find_format(const char *name, struct tk_err *err);
/* Sets h up for format name (NULL: table); TK_EUSAGE for an unknown one. */
int tk_histsink_init(struct tk_histsink *h, const char *name, int ranks, FILE *out);
/* 1 when the format wants whole runs (query_runs, add_run). */
int tk_histsink_full_runs(const struct tk_histsink *h);
void tk_histsink_begin(struct tk_histsink *h);
/* The store's callbacks (tk_summary_fn, tk_run_fn); data is the sink. */
int tk_histsink_add_summary(const struct tk_run_summary *r, void *data);
int tk_histsink_add_run(const struct tk_run *r, void *data);
/* With ranks: writes the gathered jobs, newest first, at most limit
 * (0: all). */
int tk_histsink_write_jobs(struct tk_histsink *h, long limit);
/*
 * Ends the output. Returns 1 when nothing was written for want of rows
 * in a format that writes nothing then (the table: the caller tells
 * people there are no runs), else 0.
 */
int tk_histsink_end(struct tk_histsink *h);
void tk_histsink_release(struct tk_histsink *h);

/*
 * The runs q selects in s, newest first, written to out in format (NULL:
 * table), as the steps above do; with ranks, one row per job, and
 * q->limit counts jobs. *empty is set to 1 when nothing was written for
 * want of runs (tk_histsink_end's answer; the caller tells people), even
 * after an error: a started document is closed whatever happens, so the
 * error is the only damage. Returns 0 or a negative code with err filled.
 */
int tk_histsink_write_query(struct tk_store *s, const struct tk_run_query *q,
			    const char *format, int ranks, FILE *out, int *empty,
			    struct tk_err *err);

#endif
