#ifndef TK_STORE_COLUMNS_H
#define TK_STORE_COLUMNS_H
/*
 * The columns of the `runs` table, once, for every SQL store (SQLite,
 * PostgreSQL): the insert, the summary read and the migrations that add
 * columns are all built from run_columns[], so the stores cannot drift.
 *
 * A column that holds a field of the record takes its name, type and
 * place from the field table (core/model/runfield.h); its schema version
 * and where the record has its value are the store's. `row` is what one
 * row holds: the summary, the run for the fields the summary does not
 * carry, and what only the table keeps. A column of a schema version
 * after 3 names where the record has its value (`json`, an SQLite
 * expression of the form json_extract(record, '$.run.PATH'), possibly
 * inside coalesce()): migrating fills it for the rows already stored,
 * and a trigger fills it for rows an older tracker, which does not know
 * the column, inserts later. The PostgreSQL store rewrites that expression for jsonb
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
#include "core/model/record.h"
#include "core/model/runfield.h"
#include "core/store/store.h"
#include "core/base/timeutil.h"

struct run_row {
	struct tk_run_summary sum;
	const struct tk_run *run; /* the fields the summary does not carry */
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

/*
 * A column. One that holds a field of the record (core/model/runfield.h)
 * names it, and its name, type and place come from the field: it is read
 * back by query_summaries when the summary carries the field. The
 * store's own columns (stored_at_us, record) give their own.
 */
struct run_column {
	const struct tk_run_field *field; /* NULL: the store's own */
	const char *name;   /* the store's own, or a field's that SQL needs quoted */
	enum col_type type; /* the store's own */
	size_t offset;      /* the store's own, in struct run_row */
	int since;          /* the schema version that added it */
	const char *json;   /* since > 3: the value in `record` (SQL expression) */
};

#define FIELD_COLUMN(id, since, json) \
	{ &tk_run_fields[TK_RF_##id], NULL, COL_TEXT, 0, since, json }
#define QUOTED_COLUMN(id, name, since) \
	{ &tk_run_fields[TK_RF_##id], name, COL_TEXT, 0, since, NULL }
#define OWN_COLUMN(name, type, member) \
	{ NULL, name, type, offsetof(struct run_row, member), 1, NULL }

static const struct run_column run_columns[] = {
	FIELD_COLUMN(ID, 1, NULL),
	FIELD_COLUMN(KEY, 1, NULL),
	FIELD_COLUMN(BRANCH, 1, NULL),
	QUOTED_COLUMN(COMMIT, "\"commit\"", 1), /* a keyword of SQL */
	FIELD_COLUMN(BUILD_NUMBER, 1, NULL),
	FIELD_COLUMN(STARTED_AT_US, 1, NULL),
	FIELD_COLUMN(WALLTIME_S, 1, NULL),
	FIELD_COLUMN(USER_S, 1, NULL),
	FIELD_COLUMN(SYS_S, 1, NULL),
	FIELD_COLUMN(MAXRSS_BYTES, 1, NULL),
	FIELD_COLUMN(TREE_RSS_BYTES, 1, NULL),
	FIELD_COLUMN(CGROUP_PEAK_BYTES, 1, NULL),
	FIELD_COLUMN(EXIT_CODE, 1, NULL),
	FIELD_COLUMN(SIGNAL, 1, NULL),
	FIELD_COLUMN(STATUS, 1, NULL),
	FIELD_COLUMN(PARTIAL, 1, NULL),
	FIELD_COLUMN(PROVIDER, 1, NULL),
	FIELD_COLUMN(PIPELINE, 1, NULL),
	FIELD_COLUMN(BUILD_URL, 1, NULL),
	FIELD_COLUMN(STEP_KEY, 1, NULL),
	FIELD_COLUMN(BASE_BRANCH, 1, NULL),
	FIELD_COLUMN(HOST, 1, NULL),
	FIELD_COLUMN(SLURM_JOB_ID, 1, NULL),
	FIELD_COLUMN(TRACKER_VERSION, 1, NULL),
	OWN_COLUMN("stored_at_us", COL_I64_SET, stored_at_us),
	OWN_COLUMN("record", COL_RECORD, record),
	FIELD_COLUMN(RANK, 3, NULL),
	FIELD_COLUMN(RANK_GROUP, 3, NULL),
	FIELD_COLUMN(MAXRSS_SOURCE, 4, "json_extract(record, '$.run.maxrss_source')"),
	FIELD_COLUMN(WRAPPER_RSS_BYTES, 4, "json_extract(record, '$.run.wrapper_rss_bytes')"),
	/* Never NULL once filled: the trigger's sign that a row needs it. */
	FIELD_COLUMN(TREE_SAMPLES, 4, "coalesce(json_extract(record, '$.run.tree_samples'), 0)"),
	FIELD_COLUMN(SLURM_NTASKS, 4, "json_extract(record, '$.run.ci.slurm_ntasks')"),
	FIELD_COLUMN(MACHINE_CLASS, 5, "json_extract(record, '$.run.machine_class')"),
	FIELD_COLUMN(SLURM_MAXRSS_BYTES, 6, "json_extract(record, '$.run.slurm.maxrss_bytes')"),
};

#define NR_RUN_COLUMNS (sizeof(run_columns) / sizeof(run_columns[0]))

static inline const char *col_name(const struct run_column *c)
{
	return c->name ? c->name : c->field->column;
}

/* What a field's type and unknown value are in a column. */
static inline enum col_type col_type(const struct run_column *c)
{
	int set;

	if (!c->field)
		return c->type;
	set = (c->field->flags & TK_RF_NEVER_UNKNOWN) != 0;
	switch (c->field->type) {
	case TK_RFT_STATUS:
		return COL_STATUS;
	case TK_RFT_BOOL:
		return COL_INT_SET;
	case TK_RFT_I64:
		return set ? COL_I64_SET : COL_I64;
	case TK_RFT_INT:
		return set ? COL_INT_SET : COL_INT;
	case TK_RFT_REAL:
		return COL_REAL;
	default:
		return COL_TEXT;
	}
}

/* Whether query_summaries reads column c back. */
static inline int col_summary(const struct run_column *c)
{
	return c->field && c->field->summary != TK_RF_NO_SUMMARY;
}

/* Whether column c holds field id. */
static inline int col_is(const struct run_column *c, enum tk_run_field_id id)
{
	return c->field == &tk_run_fields[id];
}

/*
 * Where column c's value is in row: a summary field in row->sum, another
 * field in row->run (a string: the summary carries the run id), the
 * store's own in row.
 */
static inline const void *col_value(const struct run_column *c, const struct run_row *row)
{
	if (!c->field)
		return (const char *)(const void *)row + c->offset;
	if (c->field->summary != TK_RF_NO_SUMMARY)
		return tk_run_field_sum(&row->sum, c->field);
	return tk_run_field_cat(row->run, c->field);
}

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
/*
 * Frame totals (core/store/frametot.h): a table of their own, one row per
 * (run, kind, frame name), with the run's key so that one function's
 * history is read by the index on (key, name); and on each profile the
 * cut below which its frames were left out, NULL while its frame totals
 * are not stored (profiles stored before this version, until tracker
 * backfill). Renumbering this step is this one constant.
 */
#define FRAMES_VERSION 8

/* A key's distinct frame names by a skip scan of the (key, name) index:
 * one seek per name, not a read of every run's rows. */
#define FRAME_NAMES_SQL(KEY) \
	"WITH RECURSIVE n(name) AS (SELECT (SELECT min(name) FROM frame_totals" \
	" WHERE key = " KEY ") UNION ALL SELECT (SELECT min(name) FROM frame_totals" \
	" WHERE key = " KEY " AND name > n.name) FROM n WHERE n.name IS NOT NULL)" \
	" SELECT name FROM n WHERE name IS NOT NULL"

static inline void frame_totals_sql(struct tk_buf *sql, int pg)
{
	tk_buf_addf(sql, "ALTER TABLE profiles ADD COLUMN frames_floor %s;"
		    "CREATE TABLE frame_totals ("
		    " run_id TEXT NOT NULL,"
		    " kind TEXT NOT NULL,"
		    " key TEXT NOT NULL,"
		    " name TEXT NOT NULL,"
		    " self %s NOT NULL,"
		    " cumulative %s NOT NULL,"
		    " PRIMARY KEY (run_id, kind, name),"
		    " FOREIGN KEY (run_id, kind) REFERENCES profiles (run_id, kind)"
		    ");"
		    "CREATE INDEX frame_totals_key_name ON frame_totals (key, name);",
		    pg ? "DOUBLE PRECISION" : "REAL", pg ? "DOUBLE PRECISION" : "REAL",
		    pg ? "DOUBLE PRECISION" : "REAL");
}

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

		if (!col_summary(c) || c->since >= COVER_VERSION || col_is(c, TK_RF_KEY) ||
		    col_is(c, TK_RF_STARTED_AT_US) || col_is(c, TK_RF_ID))
			continue;
		tk_buf_addf(sql, "%s%s", sep, col_name(c));
		sep = ", ";
	}
	tk_buf_adds(sql, ");");
}

/* Whether a chart or a check needs column c (tk_run_query.chart_only). */
static inline int chart_column(const struct run_column *c)
{
	static const enum tk_run_field_id fields[] = {
		TK_RF_ID, TK_RF_KEY, TK_RF_BRANCH, TK_RF_COMMIT, TK_RF_BUILD_NUMBER,
		TK_RF_STARTED_AT_US, TK_RF_WALLTIME_S, TK_RF_USER_S, TK_RF_SYS_S,
		TK_RF_MAXRSS_BYTES, TK_RF_TREE_RSS_BYTES, TK_RF_STATUS, TK_RF_PARTIAL,
		TK_RF_PIPELINE, TK_RF_BUILD_URL, TK_RF_MACHINE_CLASS, TK_RF_SLURM_MAXRSS_BYTES,
		TK_RF_MAXRSS_SOURCE, TK_RF_EXIT_CODE, TK_RF_SIGNAL,
	};
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (col_is(c, fields[i]))
			return 1;
	return 0;
}

/*
 * A summary column as query_summaries reads it, row after row: its type
 * and its place in struct run_row, worked out once per query.
 */
struct sum_cell {
	enum col_type type;
	size_t offset;
};

#define CELL(row, cell, type) ((type *)(void *)((char *)(row) + (cell)->offset))

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
	const void *at = col_value(c, row);
	enum col_type type = col_type(c);
	int64_t v;
	double d;

	switch (type) {
	case COL_TEXT:
		w->text(dst, i, *(const char *const *)at, -1);
		return;
	case COL_STATUS:
		w->text(dst, i, tk_run_status_name(*(const enum tk_run_status *)at), -1);
		return;
	case COL_RECORD:
		w->text(dst, i, row->record, row->record_len);
		return;
	case COL_REAL:
		d = *(const double *)at;
		if (d < 0)
			w->text(dst, i, NULL, -1);
		else
			w->real(dst, i, d);
		return;
	case COL_INT:
	case COL_INT_SET:
		v = *(const int *)at;
		break;
	default:
		v = *(const int64_t *)at;
		break;
	}
	if (v < 0 && (type == COL_INT || type == COL_I64))
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

/* Summary cell c of row from cell i. */
COLUMNS_INLINE void cell_read(const struct cell_reader *rd, void *src, int i,
			      const struct sum_cell *c, struct run_row *row)
{
	const char *text;

	switch (c->type) {
	case COL_TEXT:
		*CELL(row, c, const char *) = rd->text(src, i);
		break;
	case COL_STATUS:
		text = rd->text(src, i);
		/* The column is written from the status name, never NULL. */
		if (!text || tk_run_status_parse(text, CELL(row, c, enum tk_run_status)))
			*CELL(row, c, enum tk_run_status) = TK_RUN_ERROR;
		break;
	case COL_REAL:
		*CELL(row, c, double) = rd->is_null(src, i) ? -1 : rd->real(src, i);
		break;
	case COL_INT:
	case COL_INT_SET:
		*CELL(row, c, int) = rd->is_null(src, i) ? (c->type == COL_INT ? -1 : 0)
			: rd->int32(src, i);
		break;
	case COL_I64:
	case COL_I64_SET:
		*CELL(row, c, int64_t) = rd->is_null(src, i) ? (c->type == COL_I64 ? -1 : 0)
			: rd->i64(src, i);
		break;
	case COL_RECORD:
		break;
	}
}

/* A summary cell not read (the table is older than it, or a chart does
 * not need it): unknown, as tk_run_init has it. */
static inline void sum_cell_unknown(const struct sum_cell *c, struct run_row *row)
{
	if (c->type == COL_I64)
		*CELL(row, c, int64_t) = -1;
	else if (c->type == COL_INT)
		*CELL(row, c, int) = -1;
	else if (c->type == COL_REAL)
		*CELL(row, c, double) = -1;
}

/*
 * The summary columns query q reads from a table of schema version
 * schema: their names, comma-separated, added to select, and their cells
 * in cols[] (NR_RUN_COLUMNS at most), in that order; returns how many.
 * row is cleared, the summary columns not read left unknown in it, for
 * summary_read to fill the rest of, row after row.
 */
static inline size_t summary_columns(const struct tk_run_query *q, int schema,
				     struct tk_buf *select, struct sum_cell *cols,
				     struct run_row *row)
{
	size_t k, n = 0;

	memset(row, 0, sizeof(*row));
	for (k = 0; k < NR_RUN_COLUMNS; k++) {
		const struct run_column *c = &run_columns[k];
		struct sum_cell cell;

		if (!col_summary(c))
			continue;
		cell.type = col_type(c);
		cell.offset = offsetof(struct run_row, sum) + c->field->summary;
		if (c->since > schema || (q->chart_only && !chart_column(c))) {
			sum_cell_unknown(&cell, row);
			continue;
		}
		tk_buf_addf(select, "%s%s", n ? ", " : "", col_name(c));
		cols[n++] = cell;
	}
	return n;
}

/* The summary of the result row src is at, whose cells are cols[0..n). */
COLUMNS_INLINE void summary_read(const struct cell_reader *rd, void *src,
				 const struct sum_cell *cols, size_t n,
				 struct run_row *row)
{
	size_t k;

	for (k = 0; k < n; k++)
		cell_read(rd, src, (int)k, &cols[k], row);
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
 * of it, anything else stored is kept (see put_run in core/store/store.h).
 * Placeholders ? (SQLite) or, numbered, $1, $2... (PostgreSQL). */
static inline void put_sql(struct tk_buf *sql, int numbered)
{
	size_t k;

	tk_buf_adds(sql, "INSERT INTO runs (");
	for (k = 0; k < NR_RUN_COLUMNS; k++)
		tk_buf_addf(sql, "%s%s", k ? ", " : "", col_name(&run_columns[k]));
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
			    col_name(&run_columns[k]), col_name(&run_columns[k]));
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
	row->run = r;
	row->stored_at_us = tk_now_us();
	row->record = record;
	row->record_len = (int)record_len;
}

/*
 * What put_run does before it writes: *inserted (when given) cleared, r
 * checked (a valid run id, a key), its compact record (without its
 * timeline: plugins/store/timelines.h) added to record
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
	ret = tk_run_to_json_flags(r, TK_RUN_JSON_COMPACT | TK_RUN_JSON_NO_TIMELINE, record,
				   err);
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
		/* PostgreSQL: run_id is COLLATE "C" (bytes, whatever the
		 * database's collation), so the same range of the primary
		 * key's index; '~' sorts after every character of an id */
		n++;
		tk_buf_addf(sql, "%srun_id >= $%d::text AND run_id < ($%d::text || '~')", sep, n, n);
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
