#ifndef TK_STORE_COLUMNS_H
#define TK_STORE_COLUMNS_H
/*
 * The columns of the `runs` table, once, for every SQL store (SQLite,
 * PostgreSQL): the insert, the summary read and the migrations that add
 * columns are all built from run_columns[], so the stores cannot drift.
 *
 * `row` is what one row holds: the summary plus what only the table
 * keeps. A column of a schema version after 3 names where the record has
 * its value (`json`, an SQLite expression of the form
 * json_extract(record, '$.run.PATH'), possibly inside coalesce()):
 * migrating fills it for the rows already stored, and a trigger fills it
 * for rows an older tracker, which does not know the column, inserts
 * later. The PostgreSQL store rewrites that expression for jsonb
 * (tk_store_pg_json in plugins/store/postgres.c).
 *
 * The row's writing to and reading from a store's statements is here too
 * (cell_write, summary_read), and the SELECT of a tk_run_query
 * (query_sql, query_bind): each store only says how it binds and reads
 * one value.
 *
 * Only the store plugins include this header. The table is static and
 * defined here so that its length is a constant both stores can size
 * arrays with.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/model/run.h"
#include "core/store/store.h"
#include "core/base/timeutil.h"

struct run_row {
	struct tk_run_summary sum;
	const char *step_key;
	const char *base_branch;
	const char *slurm_job_id;
	int64_t stored_at_us;
	const char *record;
	int record_len;
};

enum col_type {
	COL_TEXT,    /* const char *; NULL is NULL */
	COL_I64,     /* int64_t; negative (unknown) is NULL */
	COL_I64_SET, /* int64_t; always set */
	COL_INT,     /* int; negative (unknown) is NULL */
	COL_INT_SET, /* int; always set */
	COL_REAL,    /* double; negative (unknown) is NULL */
	COL_STATUS,  /* enum tk_run_status, as its name */
	COL_RECORD,  /* the record text and its length */
};

struct run_column {
	const char *name; /* as written in SQL */
	enum col_type type;
	size_t offset;    /* in struct run_row */
	int summary;      /* read back by query_summaries */
	int since;        /* the schema version that added it */
	const char *json; /* since > 3: the value in `record` (SQL expression) */
};

#define SUM(f) offsetof(struct run_row, sum.f)
#define ROW(f) offsetof(struct run_row, f)

static const struct run_column run_columns[] = {
	{ "run_id", COL_TEXT, SUM(run_id), 1, 1, NULL },
	{ "key", COL_TEXT, SUM(key), 1, 1, NULL },
	{ "branch", COL_TEXT, SUM(branch), 1, 1, NULL },
	{ "\"commit\"", COL_TEXT, SUM(commit), 1, 1, NULL },
	{ "build_number", COL_TEXT, SUM(build_number), 1, 1, NULL },
	{ "started_at_us", COL_I64_SET, SUM(started_at_us), 1, 1, NULL },
	{ "walltime_s", COL_REAL, SUM(walltime_s), 1, 1, NULL },
	{ "user_s", COL_REAL, SUM(user_s), 1, 1, NULL },
	{ "sys_s", COL_REAL, SUM(sys_s), 1, 1, NULL },
	{ "maxrss_bytes", COL_I64, SUM(maxrss_bytes), 1, 1, NULL },
	{ "tree_rss_bytes", COL_I64, SUM(tree_rss_bytes), 1, 1, NULL },
	{ "cgroup_peak_bytes", COL_I64, SUM(cgroup_peak_bytes), 1, 1, NULL },
	{ "exit_code", COL_INT, SUM(exit_code), 1, 1, NULL },
	{ "signal", COL_INT_SET, SUM(term_signal), 1, 1, NULL },
	{ "status", COL_STATUS, SUM(status), 1, 1, NULL },
	{ "partial", COL_INT_SET, SUM(partial), 1, 1, NULL },
	{ "provider", COL_TEXT, SUM(provider), 1, 1, NULL },
	{ "pipeline", COL_TEXT, SUM(pipeline), 1, 1, NULL },
	{ "build_url", COL_TEXT, SUM(build_url), 1, 1, NULL },
	{ "step_key", COL_TEXT, ROW(step_key), 0, 1, NULL },
	{ "base_branch", COL_TEXT, ROW(base_branch), 0, 1, NULL },
	{ "host", COL_TEXT, SUM(host), 1, 1, NULL },
	{ "slurm_job_id", COL_TEXT, ROW(slurm_job_id), 0, 1, NULL },
	{ "tracker_version", COL_TEXT, SUM(tracker_version), 1, 1, NULL },
	{ "stored_at_us", COL_I64_SET, ROW(stored_at_us), 0, 1, NULL },
	{ "record", COL_RECORD, ROW(record), 0, 1, NULL },
	{ "rank", COL_INT, SUM(rank), 1, 3, NULL },
	{ "rank_group", COL_TEXT, SUM(rank_group), 1, 3, NULL },
	{ "maxrss_source", COL_TEXT, SUM(maxrss_source), 1, 4,
	  "json_extract(record, '$.run.maxrss_source')" },
	{ "wrapper_rss_bytes", COL_I64, SUM(wrapper_rss_bytes), 1, 4,
	  "json_extract(record, '$.run.wrapper_rss_bytes')" },
	/* Never NULL once filled: the trigger's sign that a row needs it. */
	{ "tree_samples", COL_I64_SET, SUM(tree_samples), 1, 4,
	  "coalesce(json_extract(record, '$.run.tree_samples'), 0)" },
	{ "ntasks", COL_INT, SUM(ntasks), 1, 4,
	  "json_extract(record, '$.run.ci.slurm_ntasks')" },
	{ "machine_class", COL_TEXT, SUM(machine_class), 1, 5,
	  "json_extract(record, '$.run.machine_class')" },
	{ "slurm_maxrss_bytes", COL_I64, SUM(slurm_maxrss_bytes), 1, 6,
	  "json_extract(record, '$.run.slurm.maxrss_bytes')" },
};

#define NR_RUN_COLUMNS (sizeof(run_columns) / sizeof(run_columns[0]))

/*
 * Schema version 7: an index that holds every summary column a store had
 * at version 6, ordered as "one key, newest first" reads them (key,
 * started_at_us DESC, run_id), so that query_summaries of one key reads
 * that key's runs from consecutive index pages instead of one table page
 * per run (a key's runs are spread over the whole table, between the
 * other keys' records). SQLite puts the other columns in the index's key;
 * PostgreSQL in INCLUDE (...). A summary column added after version 6 is
 * not in it: the read of such a column goes back to the table, until a
 * later version makes a wider index.
 */
#define COVER_VERSION 7

static inline void cover_index_sql(struct tk_buf *sql, int include)
{
	size_t i;
	const char *sep = "";

	tk_buf_adds(sql, "CREATE INDEX runs_key_started_cover ON runs (key, started_at_us DESC,"
		    " run_id");
	tk_buf_adds(sql, include ? ") INCLUDE (" : ", ");
	for (i = 0; i < NR_RUN_COLUMNS; i++) {
		const struct run_column *c = &run_columns[i];

		if (!c->summary || c->since >= COVER_VERSION || !strcmp(c->name, "key") ||
		    !strcmp(c->name, "started_at_us") || !strcmp(c->name, "run_id"))
			continue;
		tk_buf_addf(sql, "%s%s", sep, c->name);
		sep = ", ";
	}
	tk_buf_adds(sql, ");");
}

/* Whether a chart or a check needs column c (tk_run_query.chart_only). */
static inline int chart_column(const struct run_column *c)
{
	static const char *const names[] = {
		"run_id", "key", "branch", "\"commit\"", "build_number", "started_at_us",
		"walltime_s", "user_s", "sys_s", "maxrss_bytes", "tree_rss_bytes", "status",
		"partial", "pipeline", "build_url", "machine_class", "slurm_maxrss_bytes",
		"maxrss_source",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(c->name, names[i]))
			return 1;
	return 0;
}

#define FIELD(row, c, type) ((type *)(void *)((char *)(row) + (c)->offset))
#define CFIELD(row, c, type) ((const type *)(const void *)((const char *)(row) + (c)->offset))

/*
 * Writing and reading rows, once for both stores. A store hands over how
 * it binds a value to parameter i of its INSERT (struct cell_writer) and
 * how it reads cell i of the result row it is at (struct cell_reader);
 * what each column type means (unknown is -1 in the structs and NULL in
 * the table, the status as its name) is decided here only.
 *
 * The functions that take them are always inlined: each store passes a
 * static const table, so the calls through it become direct calls, and
 * the SQLite summary read (1M rows for a dashboard) costs what its own
 * switch did.
 */
struct cell_writer {
	/* s NULL: NULL; len < 0: up to its NUL */
	void (*text)(void *dst, int i, const char *s, int len);
	void (*i64)(void *dst, int i, int64_t v);
	void (*real)(void *dst, int i, double v);
};

struct cell_reader {
	/* NULL for NULL (no is_null call needed for text) */
	const char *(*text)(void *src, int i);
	int (*is_null)(void *src, int i);
	/* not NULL: */
	int64_t (*i64)(void *src, int i);
	int (*int32)(void *src, int i);
	double (*real)(void *src, int i);
};

#define COLUMNS_INLINE static inline __attribute__((always_inline))

/* Binds column c of row to parameter i. */
COLUMNS_INLINE void cell_write(const struct cell_writer *w, void *dst, int i,
			       const struct run_column *c, const struct run_row *row)
{
	int64_t v;
	double d;

	switch (c->type) {
	case COL_TEXT:
		w->text(dst, i, *CFIELD(row, c, char *), -1);
		return;
	case COL_STATUS:
		w->text(dst, i, tk_run_status_name(*CFIELD(row, c, enum tk_run_status)), -1);
		return;
	case COL_RECORD:
		w->text(dst, i, row->record, row->record_len);
		return;
	case COL_REAL:
		d = *CFIELD(row, c, double);
		if (d < 0)
			w->text(dst, i, NULL, -1);
		else
			w->real(dst, i, d);
		return;
	case COL_INT:
	case COL_INT_SET:
		v = *CFIELD(row, c, int);
		break;
	default:
		v = *CFIELD(row, c, int64_t);
		break;
	}
	if (v < 0 && (c->type == COL_INT || c->type == COL_I64))
		w->text(dst, i, NULL, -1);
	else
		w->i64(dst, i, v);
}

/* Binds every column of row, run_columns[k] to parameter k + first. */
COLUMNS_INLINE void run_row_write(const struct cell_writer *w, void *dst, int first,
				  const struct run_row *row)
{
	size_t k;

	for (k = 0; k < NR_RUN_COLUMNS; k++)
		cell_write(w, dst, (int)k + first, &run_columns[k], row);
}

/* Column c of row from cell i. */
COLUMNS_INLINE void cell_read(const struct cell_reader *rd, void *src, int i,
			      const struct run_column *c, struct run_row *row)
{
	const char *text;

	switch (c->type) {
	case COL_TEXT:
		*FIELD(row, c, const char *) = rd->text(src, i);
		break;
	case COL_STATUS:
		text = rd->text(src, i);
		/* The column is written from the status name, never NULL. */
		if (!text || tk_run_status_parse(text, FIELD(row, c, enum tk_run_status)))
			*FIELD(row, c, enum tk_run_status) = TK_RUN_ERROR;
		break;
	case COL_REAL:
		*FIELD(row, c, double) = rd->is_null(src, i) ? -1 : rd->real(src, i);
		break;
	case COL_INT:
	case COL_INT_SET:
		*FIELD(row, c, int) = rd->is_null(src, i) ? (c->type == COL_INT ? -1 : 0)
			: rd->int32(src, i);
		break;
	case COL_I64:
	case COL_I64_SET:
		*FIELD(row, c, int64_t) = rd->is_null(src, i) ? (c->type == COL_I64 ? -1 : 0)
			: rd->i64(src, i);
		break;
	case COL_RECORD:
		break;
	}
}

/* A summary column not read (the table is older than it, or a chart
 * does not need it): unknown, as tk_run_init has it. */
static inline void run_column_unknown(const struct run_column *c, struct run_row *row)
{
	if (c->type == COL_I64)
		*FIELD(row, c, int64_t) = -1;
	else if (c->type == COL_INT)
		*FIELD(row, c, int) = -1;
	else if (c->type == COL_REAL)
		*FIELD(row, c, double) = -1;
}

/*
 * The summary columns query q reads from a table of schema version
 * schema: their names, comma-separated, added to select, and the columns
 * in cols[] (NR_RUN_COLUMNS at most), in that order; returns how many.
 * row is cleared, the summary columns not read left unknown in it, for
 * summary_read to fill the rest of, row after row.
 */
static inline size_t summary_columns(const struct tk_run_query *q, int schema,
				     struct tk_buf *select, const struct run_column **cols,
				     struct run_row *row)
{
	size_t k, n = 0;

	memset(row, 0, sizeof(*row));
	for (k = 0; k < NR_RUN_COLUMNS; k++) {
		const struct run_column *c = &run_columns[k];

		if (!c->summary)
			continue;
		if (c->since > schema || (q->chart_only && !chart_column(c))) {
			run_column_unknown(c, row);
			continue;
		}
		tk_buf_addf(select, "%s%s", n ? ", " : "", c->name);
		cols[n++] = c;
	}
	return n;
}

/* The summary of the result row src is at, whose cells are cols[0..n). */
COLUMNS_INLINE void summary_read(const struct cell_reader *rd, void *src,
				 const struct run_column *const *cols, size_t n,
				 struct run_row *row)
{
	size_t k;

	for (k = 0; k < n; k++)
		cell_read(rd, src, (int)k, cols[k], row);
	if (row->sum.rank < 0 || !row->sum.rank_group) {
		row->sum.rank = -1;
		row->sum.rank_group = NULL;
	}
}

/* query_summaries of a table without the summary columns: each run's
 * record read (query_runs) and summarized. */
struct summarize {
	tk_summary_fn fn;
	void *data;
};

static inline int summarize_run(const struct tk_run *r, void *data)
{
	struct summarize *sz = data;
	struct tk_run_summary sum;

	tk_run_summarize(r, &sum);
	return sz->fn(&sum, sz->data);
}

/* "INSERT ... ON CONFLICT" of every column: a stored partial run is
 * replaced by a complete one, a stored "started" one by any later record
 * of it, anything else stored is kept (see put_run in core/store.h).
 * Placeholders ? (SQLite) or, numbered, $1, $2... (PostgreSQL). */
static inline void put_sql(struct tk_buf *sql, int numbered)
{
	size_t k;

	tk_buf_adds(sql, "INSERT INTO runs (");
	for (k = 0; k < NR_RUN_COLUMNS; k++)
		tk_buf_addf(sql, "%s%s", k ? ", " : "", run_columns[k].name);
	tk_buf_adds(sql, ") VALUES (");
	for (k = 0; k < NR_RUN_COLUMNS; k++) {
		if (numbered)
			tk_buf_addf(sql, "%s$%zu", k ? ", " : "", k + 1);
		else
			tk_buf_adds(sql, k ? ", ?" : "?");
	}
	tk_buf_adds(sql, ") ON CONFLICT (run_id) DO UPDATE SET ");
	for (k = 1; k < NR_RUN_COLUMNS; k++)
		tk_buf_addf(sql, "%s%s = excluded.%s", k > 1 ? ", " : "",
			    run_columns[k].name, run_columns[k].name);
	tk_buf_adds(sql, " WHERE runs.partial = 1 AND (excluded.partial = 0 OR "
		    "(runs.status = 'started' AND excluded.status <> 'started'))");
}

/* The row of run r, whose compact record is record (borrowed, as are the
 * run's strings). */
static inline void run_row_fill(struct run_row *row, const struct tk_run *r,
				const char *record, size_t record_len)
{
	memset(row, 0, sizeof(*row));
	tk_run_summarize(r, &row->sum);
	row->step_key = r->ci.step_key;
	row->base_branch = r->ci.base_branch;
	row->slurm_job_id = r->ci.slurm_job_id;
	row->stored_at_us = tk_now_us();
	row->record = record;
	row->record_len = (int)record_len;
}

/*
 * What put_run does before it writes: *inserted (when given) cleared, r
 * checked (a valid run id, a key), its compact record added to record
 * (the pretty file form would double the table) and the INSERT to sql
 * (put_sql). 0, or TK_EDATA with err set.
 */
static inline int put_begin(const struct tk_run *r, int *inserted, int numbered,
			    struct tk_buf *record, struct tk_buf *sql, struct tk_err *err)
{
	int ret;

	if (inserted)
		*inserted = 0;
	if (!tk_uuid_valid(r->id))
		return tk_err_set(err, TK_EDATA, "cannot store run: '%s' is not a run id", r->id);
	if (!r->key || !*r->key)
		return tk_err_set(err, TK_EDATA, "cannot store run %s: it has no key", r->id);
	ret = tk_run_to_json_flags(r, TK_RUN_JSON_COMPACT, record, err);
	if (ret)
		return ret;
	put_sql(sql, numbered);
	return 0;
}

/* The next placeholder: ? (SQLite) or $n (PostgreSQL); both counted in
 * *n, the parameter's number. */
static inline void placeholder(struct tk_buf *sql, int numbered, int *n)
{
	++*n;
	if (numbered)
		tk_buf_addf(sql, "$%d", *n);
	else
		tk_buf_addch(sql, '?');
}

/* "SELECT select FROM runs" with the filters of q, newest first, the
 * values as placeholders (?, or $1, $2...): query_bind binds them. */
static inline void query_sql(const struct tk_run_query *q, const char *select, int numbered,
			     struct tk_buf *sql)
{
	const char *sep = " WHERE ";
	size_t k;
	int n = 0;

	tk_buf_addf(sql, "SELECT %s FROM runs", select);
	if (q->keys && q->keys[0]) {
		tk_buf_addf(sql, "%skey IN (", sep);
		for (k = 0; q->keys[k]; k++) {
			tk_buf_adds(sql, k ? ", " : "");
			placeholder(sql, numbered, &n);
		}
		tk_buf_addch(sql, ')');
		sep = " AND ";
	}
	if (q->branch) {
		tk_buf_addf(sql, "%sbranch = ", sep);
		placeholder(sql, numbered, &n);
		sep = " AND ";
	}
	if (q->since_us) {
		tk_buf_addf(sql, "%sstarted_at_us >= ", sep);
		placeholder(sql, numbered, &n);
		sep = " AND ";
	}
	if (q->run_id) {
		tk_buf_addf(sql, "%srun_id = ", sep);
		placeholder(sql, numbered, &n);
		sep = " AND ";
	}
	if (q->run_id_prefix && numbered) {
		/* PostgreSQL: the database's collation may not order bytes,
		 * so compare the start (the length is ours, a number) */
		tk_buf_addf(sql, "%ssubstr(run_id, 1, %zu) = ", sep, strlen(q->run_id_prefix));
		placeholder(sql, numbered, &n);
		sep = " AND ";
	} else if (q->run_id_prefix) {
		/* SQLite compares bytes: a range of the primary key's index,
		 * the prefix bound once and used twice (?N) */
		n++;
		tk_buf_addf(sql, "%srun_id >= ?%d AND run_id < (?%d || char(255))", sep, n, n);
		sep = " AND ";
	}
	if (q->rank_group) {
		tk_buf_addf(sql, "%srank_group = ", sep);
		placeholder(sql, numbered, &n);
		sep = " AND ";
	}
	if (q->profile_kind) {
		tk_buf_addf(sql, "%sEXISTS (SELECT 1 FROM profiles pr"
			    " WHERE pr.run_id = runs.run_id AND pr.kind = ", sep);
		placeholder(sql, numbered, &n);
		tk_buf_addch(sql, ')');
	}
	tk_buf_adds(sql, " ORDER BY started_at_us DESC, run_id");
	if (q->limit > 0) {
		tk_buf_adds(sql, " LIMIT ");
		placeholder(sql, numbered, &n);
	}
}

/* Binds the values of query_sql's placeholders, the first to parameter 1.
 * The strings stay q's (bound without a copy). */
static inline void query_bind(const struct tk_run_query *q, const struct cell_writer *w,
			      void *dst)
{
	size_t k;
	int n = 1;

	if (q->keys)
		for (k = 0; q->keys[k]; k++)
			w->text(dst, n++, q->keys[k], -1);
	if (q->branch)
		w->text(dst, n++, q->branch, -1);
	if (q->since_us)
		w->i64(dst, n++, q->since_us);
	if (q->run_id)
		w->text(dst, n++, q->run_id, -1);
	if (q->run_id_prefix)
		w->text(dst, n++, q->run_id_prefix, -1);
	if (q->rank_group)
		w->text(dst, n++, q->rank_group, -1);
	if (q->profile_kind)
		w->text(dst, n++, q->profile_kind, -1);
	if (q->limit > 0)
		w->i64(dst, n++, q->limit);
}

#endif
