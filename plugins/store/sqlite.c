/*
 * The SQLite history store: one file, many concurrent writers.
 *
 * Every run is one row of `runs`: the columns history filters and prints,
 * plus `record`, the whole run as JSON (tk_run_to_json), so that fields the
 * columns do not hold survive a round trip and newer writers lose nothing.
 * query_runs rebuilds struct tk_run from `record` alone; query_summaries
 * reads struct tk_run_summary from the columns and parses no JSON, which
 * is most of the cost of listing thousands of runs. The columns are listed
 * once, in run_columns[] (plugins/store/columns.h, shared with the
 * PostgreSQL store), which the insert, the summary read and the
 * migrations that add columns are all built from.
 *
 * Concurrency: CI agents and SLURM array jobs finish at the same moment
 * and all write to one file. WAL mode lets readers run beside the writer;
 * every write is one BEGIN IMMEDIATE transaction, and besides SQLite's busy
 * timeout we retry BEGIN with jittered backoff, because SQLite returns
 * SQLITE_BUSY at once (without calling the busy handler) in the cases where
 * waiting could deadlock, and a CI step must not lose its run to that.
 *
 * WAL needs shared memory between processes, which network filesystems
 * (NFS, Lustre, GPFS, ...) do not provide; there we use the rollback
 * journal and say so once through s->warning.
 */
#include "plugins/store/backends.h"

#include <errno.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/cancel.h"
#include "core/base/fsutil.h"
#include "core/store/store.h"
#include "core/model/record.h"
#include "core/base/timeutil.h"
#include "plugins/store/columns.h"
#include "plugins/store/timelines.h"
#include "core/base/banned.h"

/* How long a writer keeps trying to get the write lock, in all. */
#define BUSY_TIMEOUT_MS 30000
#define RETRY_TOTAL_MS 120000

struct sqlite_store {
	struct tk_store base; /* first: the store API hands us &base */
	sqlite3 *db;
	char *path;
	char journal_mode[16];
	unsigned retry_seed;
	unsigned flags;  /* TK_STORE_* of open */
	int schema;      /* the schema version after migrate */
};

/*
 * Schema versions, applied in order, each in its own transaction, recorded
 * in PRAGMA user_version. Migrations only add (tables, columns, indexes):
 * an older tracker must keep working on a database a newer one migrated,
 * because CI agents of one pipeline are rarely upgraded together.
 */
static const char *const migrations[] = {
	/* 1: runs */
	"CREATE TABLE runs ("
	" run_id TEXT PRIMARY KEY NOT NULL,"
	" key TEXT NOT NULL,"
	" branch TEXT,"
	" \"commit\" TEXT,"
	" build_number TEXT,"
	" started_at_us INTEGER NOT NULL,"
	" walltime_s REAL,"
	" user_s REAL,"
	" sys_s REAL,"
	" maxrss_bytes INTEGER,"
	" tree_rss_bytes INTEGER,"
	" cgroup_peak_bytes INTEGER,"
	" exit_code INTEGER,"
	" signal INTEGER,"
	" status TEXT NOT NULL,"
	" partial INTEGER NOT NULL DEFAULT 0,"
	" provider TEXT,"
	" pipeline TEXT,"
	" build_url TEXT,"
	" step_key TEXT,"
	" base_branch TEXT,"
	" host TEXT,"
	" slurm_job_id TEXT,"
	" tracker_version TEXT,"
	" stored_at_us INTEGER NOT NULL,"
	" record TEXT NOT NULL"
	");"
	"CREATE INDEX runs_key_branch_started"
	" ON runs (key, branch, started_at_us DESC);"
	"CREATE INDEX runs_started ON runs (started_at_us DESC);",
	/* 2: profiles, one per (run, kind), encoded by core/model/profcodec.c */
	"CREATE TABLE profiles ("
	" run_id TEXT NOT NULL REFERENCES runs (run_id),"
	" kind TEXT NOT NULL,"
	" unit TEXT NOT NULL,"
	" source_format TEXT,"
	" nodes INTEGER NOT NULL,"
	" total REAL NOT NULL,"
	" encoding TEXT NOT NULL,"
	" data BLOB NOT NULL,"
	" stored_at_us INTEGER NOT NULL,"
	" PRIMARY KEY (run_id, kind)"
	");",
	/*
	 * 3: the ranks of a parallel job (tracker run --per-rank), so the
	 * ranks of one job are found without reading every record of a key.
	 * Rows stored before have NULL here, as do runs that are not ranks.
	 */
	"ALTER TABLE runs ADD COLUMN rank INTEGER;"
	"ALTER TABLE runs ADD COLUMN rank_group TEXT;"
	"CREATE INDEX runs_key_rank_group ON runs (key, rank_group)"
	" WHERE rank_group IS NOT NULL;",
	/*
	 * 4: the rest of a run's summary in columns (the ALTERs, the backfill
	 * from `record` and the triggers are generated from run_columns[] by
	 * add_columns_sql), and an index that serves "one key, newest first"
	 * without sorting.
	 */
	"CREATE INDEX runs_key_started ON runs (key, started_at_us DESC, run_id);",
	/* 5: the run's machine class (generated from run_columns[]) */
	"",
	/* 6: the job's memory as SLURM accounted it (run_columns[]) */
	"",
	/* 7: one key's summaries from an index alone (cover_index_sql) */
	"",
	/* 8 (FRAMES_VERSION): frame totals (frame_totals_sql) */
	"",
	/* 9 (TIMELINE_VERSION): memory timelines, apart from the runs
	 * (plugins/store/timelines.h) */
	[TIMELINE_VERSION - 1] = TIMELINE_TABLE("TEXT", "INTEGER"),
};

#define SCHEMA_VERSION ((int)(sizeof(migrations) / sizeof(migrations[0])))

static const char *sql_type(enum col_type t)
{
	switch (t) {
	case COL_TEXT:
	case COL_STATUS:
	case COL_RECORD:
		return "TEXT";
	case COL_REAL:
		return "REAL";
	default:
		return "INTEGER";
	}
}

/* "a = <json a>, b = <json b>" for the columns schema version v added. */
static void backfill_list(int v, struct tk_buf *sql)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < NR_RUN_COLUMNS; i++) {
		if (run_columns[i].since != v)
			continue;
		tk_buf_addf(sql, "%s%s = %s", sep, col_name(&run_columns[i]), run_columns[i].json);
		sep = ", ";
	}
}

/*
 * The generated part of migration v: its columns, their values for the
 * rows stored so far, and triggers that fill them whenever a writer that
 * does not know them (an older tracker) inserts a row or replaces a
 * partial one. Empty for versions that added no column this way.
 */
static void add_columns_sql(int v, struct tk_buf *sql)
{
	size_t i;
	int any = 0;

	for (i = 0; i < NR_RUN_COLUMNS; i++) {
		if (run_columns[i].since != v || !run_columns[i].json)
			continue;
		tk_buf_addf(sql, "ALTER TABLE runs ADD COLUMN %s %s;", col_name(&run_columns[i]),
			    sql_type(col_type(&run_columns[i])));
		any = 1;
	}
	if (!any)
		return;
	tk_buf_adds(sql, "UPDATE runs SET ");
	backfill_list(v, sql);
	tk_buf_adds(sql, ";");
	tk_buf_addf(sql, "CREATE TRIGGER runs_fill_v%d_insert AFTER INSERT ON runs"
		    " WHEN NEW.tree_samples IS NULL BEGIN UPDATE runs SET ", v);
	backfill_list(v, sql);
	tk_buf_adds(sql, " WHERE run_id = NEW.run_id; END;");
	tk_buf_addf(sql, "CREATE TRIGGER runs_fill_v%d_update AFTER UPDATE OF record ON runs"
		    " BEGIN UPDATE runs SET ", v);
	backfill_list(v, sql);
	tk_buf_adds(sql, " WHERE run_id = NEW.run_id; END;");
}

static struct sqlite_store *from_base(struct tk_store *s)
{
	return (struct sqlite_store *)s;
}

static int is_busy(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

/* A wait the caller's cancel flag ended says so; else SQLite's message. */
static int db_error(struct sqlite_store *st, struct tk_err *err, const char *what)
{
	struct tk_buf w = TK_BUF_INIT;
	int ret;

	if (!tk_cancelled(st->base.cancel) || !is_busy(sqlite3_errcode(st->db)))
		return tk_err_set(err, TK_EUNAVAIL, "cannot %s database '%s': %s",
				  what, st->path, sqlite3_errmsg(st->db));
	tk_buf_addf(&w, "database '%s'", st->path);
	ret = tk_cancel_err(err, w.buf);
	tk_buf_release(&w);
	return ret;
}

/*
 * Sleeps 1..2^attempt ms (capped at 200 ms), so colliding writers spread
 * out. Returns 1 when the caller's cancel flag is set.
 */
static int backoff(struct sqlite_store *st, int attempt)
{
	long max_ms = attempt < 8 ? 1L << attempt : 200;
	long ms = 1 + (long)(rand_r(&st->retry_seed) % (unsigned)max_ms);

	return tk_cancel_sleep(st->base.cancel, (double)ms / 1000.0);
}

/*
 * SQLite's busy handler: sqlite3_busy_timeout's waits (1, 2, 5, ... 100
 * ms, BUSY_TIMEOUT_MS in all), but a CI cancel (the caller's cancel
 * flag) ends the wait at once.
 */
static int busy_wait(void *data, int count)
{
	static const int delays[] = { 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100 };
	const int n = (int)(sizeof(delays) / sizeof(delays[0]));
	struct sqlite_store *st = data;
	long waited = 0;
	int i, delay;

	for (i = 0; i < count && i < n; i++)
		waited += delays[i];
	if (count >= n)
		waited += (long)(count - n) * delays[n - 1];
	delay = count < n ? delays[count] : delays[n - 1];
	if (waited + delay > BUSY_TIMEOUT_MS)
		return 0;
	return !tk_cancel_sleep(st->base.cancel, delay / 1000.0);
}

/* Runs sql (no parameters, no rows wanted), retrying while busy. */
static int exec_retry(struct sqlite_store *st, const char *sql)
{
	double deadline = tk_mono_s() + RETRY_TOTAL_MS / 1000.0;
	int attempt = 0, rc;

	for (;;) {
		rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		if (!is_busy(rc) || tk_mono_s() > deadline || backoff(st, attempt++))
			return rc;
	}
}

static int begin(struct sqlite_store *st, struct tk_err *err)
{
	if (exec_retry(st, "BEGIN IMMEDIATE") != SQLITE_OK)
		return db_error(st, err, "lock");
	return 0;
}

static int commit(struct sqlite_store *st, struct tk_err *err)
{
	if (exec_retry(st, "COMMIT") != SQLITE_OK) {
		int ret = db_error(st, err, "write to");

		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return ret;
	}
	return 0;
}

static void rollback(struct sqlite_store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int user_version(struct sqlite_store *st, int *out, struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	rc = sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &stmt, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(stmt);
	if (rc != SQLITE_ROW) {
		int ret = db_error(st, err, "read");

		sqlite3_finalize(stmt);
		return ret;
	}
	*out = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	return 0;
}

/*
 * A command that only reads (TK_STORE_NO_CREATE) may open a database it
 * cannot write, a shared one on a read-only mount, say. It then reads the
 * schema it finds: migrations only add, so the old tables still answer
 * (query_summaries falls back to parsing records when the summary columns
 * are missing).
 */
static int read_only_reader(struct sqlite_store *st)
{
	int rc = sqlite3_extended_errcode(st->db) & 0xff;

	return (st->flags & TK_STORE_NO_CREATE) && (rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN);
}

/* TK_EUNAVAIL when a file with no tracker schema (user_version 0) has
 * tables of its own; 0 when it has none. */
static int not_tracker(struct sqlite_store *st, struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	int tables = -1;

	if (sqlite3_prepare_v2(st->db, "SELECT count(*) FROM sqlite_schema", -1, &stmt,
			       NULL) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
		tables = sqlite3_column_int(stmt, 0);
	sqlite3_finalize(stmt);
	if (!tables)
		return 0;
	return tk_err_set(err, TK_EUNAVAIL, "'%s' is not a tracker database (it has "
			  "tables of its own and no tracker schema)", st->path);
}

static int sqlite_migrate(struct tk_store *s, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	struct tk_buf sql = TK_BUF_INIT;
	int v, ret, target;

	ret = user_version(st, &v, err);
	if (ret)
		return ret;
	/* a command that only reads makes no tracker tables in another
	 * program's database (an empty file is made a tracker database) */
	if (!v && (st->flags & TK_STORE_NO_CREATE)) {
		ret = not_tracker(st, err);
		if (ret)
			return ret;
	}
	st->schema = v;
	for (target = v + 1; target <= SCHEMA_VERSION; target++) {
		char set[64];

		ret = begin(st, err);
		if (ret && read_only_reader(st)) {
			ret = 0;
			goto out;
		}
		if (ret)
			goto out;
		/* Another process may have migrated while we waited. */
		ret = user_version(st, &v, err);
		if (ret)
			goto fail;
		if (v >= target) {
			ret = commit(st, err);
			if (ret)
				goto out;
			st->schema = v;
			continue;
		}
		snprintf(set, sizeof(set), "PRAGMA user_version = %d", target);
		tk_buf_reset(&sql);
		add_columns_sql(target, &sql);
		if (target == COVER_VERSION)
			cover_index_sql(&sql, 0);
		if (target == FRAMES_VERSION)
			frame_totals_sql(&sql, 0);
		tk_buf_adds(&sql, migrations[target - 1]);
		if (sqlite3_exec(st->db, sql.buf, NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(st->db, set, NULL, NULL, NULL) != SQLITE_OK) {
			if (read_only_reader(st)) {
				rollback(st);
				goto out;
			}
			ret = tk_err_set(err, TK_EUNAVAIL,
					 "cannot migrate database '%s' to schema version %d: %s",
					 st->path, target, sqlite3_errmsg(st->db));
			goto fail;
		}
		ret = commit(st, err);
		if (ret)
			goto out;
		st->schema = target;
	}
	goto out;
fail:
	rollback(st);
out:
	tk_buf_release(&sql);
	return ret;
}

/* "sqlite:PATH", "sqlite://PATH" or a bare path. */
static const char *url_path(const char *url)
{
	if (!strncmp(url, "sqlite://", 9))
		return url + 9;
	if (!strncmp(url, "sqlite:", 7))
		return url + 7;
	return url;
}

static int sqlite_accepts(const char *url)
{
	if (!url || !*url)
		return 0;
	if (!strncmp(url, "sqlite:", 7))
		return *url_path(url) != '\0';
	return !strstr(url, "://");
}

static void dir_of(const char *path, struct tk_buf *out)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		tk_buf_addch(out, '.');
	else if (slash == path)
		tk_buf_addch(out, '/');
	else
		tk_buf_add(out, path, (size_t)(slash - path));
}

/* Prepares the directory of the database, or explains why it cannot be. */
static int check_location(const char *path, unsigned flags, struct tk_err *err)
{
	struct tk_buf dir = TK_BUF_INIT;
	struct stat sb;
	int ret = 0;

	dir_of(path, &dir);
	if (flags & TK_STORE_NO_CREATE) {
		if (stat(path, &sb) && errno == ENOENT)
			ret = tk_err_set(err, TK_EUNAVAIL,
					 "no database at '%s' (nothing recorded yet?)", path);
		goto out;
	}
	if (!stat(dir.buf, &sb) && !S_ISDIR(sb.st_mode)) {
		ret = tk_err_set(err, TK_EUNAVAIL,
				 "cannot open database '%s': '%s' is not a directory",
				 path, dir.buf);
		goto out;
	}
	ret = tk_mkdir_p(dir.buf, err);
	if (ret)
		tk_err_prefix(err, "cannot open database '%s'", path);
out:
	tk_buf_release(&dir);
	return ret;
}

static int read_journal_mode(struct sqlite_store *st, const char *sql, struct tk_err *err)
{
	double deadline = tk_mono_s() + RETRY_TOTAL_MS / 1000.0;
	int attempt = 0, rc;

	for (;;) {
		sqlite3_stmt *stmt = NULL;

		rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(stmt);
		if (rc == SQLITE_ROW) {
			const unsigned char *m = sqlite3_column_text(stmt, 0);

			snprintf(st->journal_mode, sizeof(st->journal_mode), "%s",
				 m ? (const char *)m : "");
			sqlite3_finalize(stmt);
			return 0;
		}
		sqlite3_finalize(stmt);
		if (!is_busy(rc) || tk_mono_s() > deadline || backoff(st, attempt++))
			return db_error(st, err, "set up");
	}
}

static int setup_journal(struct sqlite_store *st, unsigned flags, struct tk_err *err)
{
	struct tk_buf dir = TK_BUF_INIT;
	int network, ret;

	dir_of(st->path, &dir);
	network = tk_is_network_fs(dir.buf);
	tk_buf_release(&dir);
	if (network)
		snprintf(st->base.warning, sizeof(st->base.warning),
			 "'%s' is on a network filesystem; using a rollback journal "
			 "because SQLite's WAL mode does not work there", st->path);
	ret = read_journal_mode(st, network ? "PRAGMA journal_mode = DELETE"
				: "PRAGMA journal_mode = WAL", err);
	/* A reader of a database it may not write keeps whatever mode it has. */
	if (ret && (flags & TK_STORE_NO_CREATE))
		ret = read_journal_mode(st, "PRAGMA journal_mode", err);
	return ret;
}

/*
 * Whether the database at path is settled and out of our reach to write:
 * its directory is not writable to us (so SQLite cannot make the -shm file
 * a WAL reader needs) and it has no -wal file with content, so nothing
 * is pending outside the database file itself.
 */
static int settled_read_only(const char *path)
{
	struct tk_buf dir = TK_BUF_INIT, wal = TK_BUF_INIT;
	struct stat sb;
	int ok;

	dir_of(path, &dir);
	tk_buf_addf(&wal, "%s-wal", path);
	ok = access(dir.buf, W_OK) && (stat(wal.buf, &sb) || sb.st_size == 0);
	tk_buf_release(&dir);
	tk_buf_release(&wal);
	return ok;
}

/* Opens st->path read-only as an immutable file (no locks, no -shm), by a
 * URI whose path is percent-encoded. */
static int open_immutable(struct sqlite_store *st, struct tk_err *err)
{
	static const char hex[] = "0123456789ABCDEF";
	struct tk_buf uri = TK_BUF_INIT;
	const unsigned char *p;
	int rc;

	tk_buf_adds(&uri, "file:");
	for (p = (const unsigned char *)st->path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("/-._~", *p)) {
			tk_buf_addch(&uri, (char)*p);
		} else {
			tk_buf_addch(&uri, '%');
			tk_buf_addch(&uri, hex[*p >> 4]);
			tk_buf_addch(&uri, hex[*p & 15]);
		}
	}
	tk_buf_adds(&uri, "?immutable=1");
	rc = sqlite3_open_v2(uri.buf, &st->db,
			     SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
	tk_buf_release(&uri);
	if (rc != SQLITE_OK)
		return tk_err_set(err, TK_EUNAVAIL, "cannot open database '%s': %s", st->path,
				  st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
	sqlite3_extended_result_codes(st->db, 1);
	return 0;
}

static void sqlite_close(struct tk_store *s)
{
	struct sqlite_store *st;

	if (!s)
		return;
	st = from_base(s);
	sqlite3_close_v2(st->db);
	free(st->path);
	free(st);
}

static int sqlite_open(const char *url, const struct tk_store_opts *o,
		       struct tk_store **out, struct tk_err *err)
{
	struct sqlite_store *st;
	unsigned flags = o->flags;
	int rc, ret, oflags;

	*out = NULL;
	st = tk_xcalloc(1, sizeof(*st));
	st->base.ops = &tk_store_sqlite;
	st->base.cancel = o->cancel;
	st->path = tk_xstrdup(url_path(url));
	st->retry_seed = (unsigned)getpid() ^ (unsigned)tk_now_us();
	st->flags = flags;
	ret = check_location(st->path, flags, err);
	if (ret)
		goto fail;
	/*
	 * Without SQLITE_OPEN_CREATE a read-only file still opens (for
	 * reading), and a missing one is not created behind the user's back.
	 */
	oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
	if (!(flags & TK_STORE_NO_CREATE))
		oflags |= SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(st->path, &st->db, oflags, NULL);
	if (rc != SQLITE_OK) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot open database '%s': %s",
				 st->path, st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_handler(st->db, busy_wait, st);
	ret = setup_journal(st, flags, err);
	if (ret && (flags & TK_STORE_NO_CREATE) && settled_read_only(st->path)) {
		/* a WAL database in a directory we may not write: SQLite cannot
		 * make its -shm file; with no -wal to read, it is read as is */
		tk_err_clear(err);
		sqlite3_close_v2(st->db);
		st->db = NULL;
		ret = open_immutable(st, err);
	}
	if (ret)
		goto fail;
	/*
	 * In WAL mode a commit need not wait for the disk: with synchronous
	 * NORMAL the WAL is synced at each checkpoint, and the last close
	 * checkpoints, so every run is on disk when tracker exits and a
	 * crash of tracker loses nothing; only the machine going down
	 * before that may roll back the last commits (the record file,
	 * synced, keeps the run for `tracker push`). FULL synced the WAL at
	 * every commit: several disk flushes after every job.
	 */
	if (!strcmp(st->journal_mode, "wal") &&
	    sqlite3_exec(st->db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "set up");
		goto fail;
	}
	if (sqlite3_exec(st->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "set up");
		goto fail;
	}
	*out = &st->base;
	return 0;
fail:
	sqlite_close(&st->base);
	return ret;
}

static void bind_text(sqlite3_stmt *stmt, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(stmt, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(stmt, i);
}

static void write_text(void *dst, int i, const char *s, int len)
{
	if (s)
		sqlite3_bind_text(dst, i, s, len, SQLITE_STATIC);
	else
		sqlite3_bind_null(dst, i);
}

static void write_i64(void *dst, int i, int64_t v)
{
	sqlite3_bind_int64(dst, i, v);
}

static void write_real(void *dst, int i, double v)
{
	sqlite3_bind_double(dst, i, v);
}

/* The strings stay the run's and the record's: bound SQLITE_STATIC, they
 * must outlive the statement's step. */
static const struct cell_writer writer = { write_text, write_i64, write_real };

static void bind_run(sqlite3_stmt *stmt, const struct tk_run *r, const struct tk_buf *record)
{
	struct run_row row;

	run_row_fill(&row, r, record->buf, record->len);
	run_row_write(&writer, stmt, 1, &row);
}

/* The run's timeline row, inside put_run's transaction. */
static int put_timeline(struct sqlite_store *st, const struct tk_run *r, struct tk_err *err)
{
	struct tk_buf sql = TK_BUF_INIT, data = TK_BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int64_t peak;
	int ret = 0;

	timeline_put_sql(&sql, 0);
	timeline_row(r, &data, &peak);
	if (sqlite3_prepare_v2(st->db, sql.buf, (int)sql.len, &stmt, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "write to");
		goto out;
	}
	sqlite3_bind_text(stmt, 1, r->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, TK_TIMELINE_ENCODING, -1, SQLITE_STATIC);
	if (r->timeline.interval_ms > 0)
		sqlite3_bind_int64(stmt, 3, r->timeline.interval_ms);
	sqlite3_bind_int64(stmt, 4, (sqlite3_int64)r->timeline.nr);
	sqlite3_bind_int64(stmt, 5, peak);
	sqlite3_bind_text(stmt, 6, data.buf, (int)data.len, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 7, tk_now_us());
	if (sqlite3_step(stmt) != SQLITE_DONE)
		ret = db_error(st, err, "write to");
out:
	sqlite3_finalize(stmt);
	tk_buf_release(&sql);
	tk_buf_release(&data);
	return ret;
}

static int sqlite_put_run(struct tk_store *s, const struct tk_run *r,
			  int *inserted, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	struct tk_buf record = TK_BUF_INIT, sql = TK_BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int ret, rc;

	ret = put_begin(r, inserted, 0, &record, &sql, err);
	if (ret)
		goto out;
	ret = begin(st, err);
	if (ret)
		goto out;
	if (sqlite3_prepare_v2(st->db, sql.buf, (int)sql.len, &stmt, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "write to");
		goto fail;
	}
	bind_run(stmt, r, &record);
	rc = sqlite3_step(stmt);
	if (rc != SQLITE_DONE) {
		ret = db_error(st, err, "write to");
		goto fail;
	}
	if (inserted)
		*inserted = sqlite3_changes(st->db) > 0;
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (sqlite3_changes(st->db) > 0 && r->timeline.nr && st->schema >= TIMELINE_VERSION) {
		ret = put_timeline(st, r, err);
		if (ret)
			goto fail;
	}
	ret = commit(st, err);
	if (ret && inserted)
		*inserted = 0;
	goto out;
fail:
	sqlite3_finalize(stmt);
	rollback(st);
out:
	tk_buf_release(&record);
	tk_buf_release(&sql);
	return ret;
}

static int sqlite_query_runs(struct tk_store *s, const struct tk_run_query *q,
			     tk_run_fn fn, void *data, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	struct tk_buf sql = TK_BUF_INIT, name = TK_BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	struct tk_run run;
	int rc, ret = 0;

	tk_run_init(&run);
	query_sql(q, "run_id, record", 0, &sql);
	if (sqlite3_prepare_v2(st->db, sql.buf, (int)sql.len, &stmt, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "read");
		goto out;
	}
	query_bind(q, &writer, stmt);
	for (;;) {
		const char *text;
		int len;

		rc = sqlite3_step(stmt);
		if (rc != SQLITE_ROW)
			break;
		text = (const char *)sqlite3_column_text(stmt, 1);
		len = sqlite3_column_bytes(stmt, 1);

		tk_buf_reset(&name);
		tk_buf_addf(&name, "%s run %s", st->path,
			    (const char *)sqlite3_column_text(stmt, 0));
		ret = tk_run_from_stored_json(text ? text : "", (size_t)len, name.buf, &run, err);
		if (!ret)
			ret = fn(&run, data);
		tk_run_release(&run);
		if (ret)
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = db_error(st, err, "read");
out:
	sqlite3_finalize(stmt);
	tk_buf_release(&sql);
	tk_buf_release(&name);
	return ret;
}

static const char *read_text(void *src, int i)
{
	return (const char *)sqlite3_column_text(src, i);
}

static int read_is_null(void *src, int i)
{
	return sqlite3_column_type(src, i) == SQLITE_NULL;
}

static int64_t read_i64(void *src, int i)
{
	return sqlite3_column_int64(src, i);
}

static int read_int(void *src, int i)
{
	return sqlite3_column_int(src, i);
}

static double read_real(void *src, int i)
{
	return sqlite3_column_double(src, i);
}

/* text is NULL for NULL: only numbers need the type (one call less per
 * text column, which is most of a summary) */
static const struct cell_reader reader = { read_text, read_is_null, read_i64, read_int,
					   read_real };

static int sqlite_query_summaries(struct tk_store *s, const struct tk_run_query *q,
				  tk_summary_fn fn, void *data, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	struct tk_buf sql = TK_BUF_INIT, select = TK_BUF_INIT;
	struct sum_cell cols[NR_RUN_COLUMNS];
	sqlite3_stmt *stmt = NULL;
	struct run_row row;
	size_t n;
	int rc, ret = 0;

	if (st->schema < 4) {
		/* a read-only database older than the summary columns */
		struct summarize sz = { fn, data };

		return sqlite_query_runs(s, q, summarize_run, &sz, err);
	}
	/* a read-only database older than a column: it stays unknown */
	n = summary_columns(q, st->schema, &select, cols, &row);
	query_sql(q, select.buf, 0, &sql);
	if (sqlite3_prepare_v2(st->db, sql.buf, (int)sql.len, &stmt, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "read");
		goto out;
	}
	query_bind(q, &writer, stmt);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		summary_read(&reader, stmt, cols, n, &row);
		ret = fn(&row.sum, data);
		if (ret)
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = db_error(st, err, "read");
out:
	sqlite3_finalize(stmt);
	tk_buf_release(&sql);
	tk_buf_release(&select);
	return ret;
}

static int run_exists(struct sqlite_store *st, const char *run_id, int *exists,
		      struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	if (sqlite3_prepare_v2(st->db, "SELECT 1 FROM runs WHERE run_id = ?", -1, &stmt,
			       NULL) != SQLITE_OK)
		return db_error(st, err, "read");
	sqlite3_bind_text(stmt, 1, run_id, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, err, "read");
	*exists = rc == SQLITE_ROW;
	return 0;
}

static const char put_profile_sql[] =
	"INSERT INTO profiles (run_id, kind, unit, source_format, nodes, total,"
	" encoding, data, stored_at_us) VALUES (?, ?, ?, ?, ?, ?, 'tkpf1', ?, ?)"
	" ON CONFLICT (run_id, kind) DO UPDATE SET unit = excluded.unit,"
	" source_format = excluded.source_format, nodes = excluded.nodes,"
	" total = excluded.total, encoding = excluded.encoding, data = excluded.data,"
	" stored_at_us = excluded.stored_at_us";

static int sqlite_put_profile(struct tk_store *s, const struct tk_profile_blob *b,
			      struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	sqlite3_stmt *stmt = NULL;
	int ret, exists = 0;

	ret = begin(st, err);
	if (ret)
		return ret;
	ret = run_exists(st, b->run_id, &exists, err);
	if (ret)
		goto fail;
	if (!exists) {
		ret = tk_err_set(err, TK_EDATA, "no run %s in database '%s'", b->run_id, st->path);
		goto fail;
	}
	if (sqlite3_prepare_v2(st->db, put_profile_sql, -1, &stmt, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "write to");
		goto fail;
	}
	sqlite3_bind_text(stmt, 1, b->run_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, b->kind, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 3, b->unit, -1, SQLITE_TRANSIENT);
	bind_text(stmt, 4, b->source_format);
	sqlite3_bind_int64(stmt, 5, b->nodes);
	sqlite3_bind_double(stmt, 6, b->total);
	sqlite3_bind_blob64(stmt, 7, b->data, b->len, SQLITE_STATIC);
	sqlite3_bind_int64(stmt, 8, tk_now_us());
	if (sqlite3_step(stmt) != SQLITE_DONE) {
		ret = db_error(st, err, "write to");
		goto fail;
	}
	sqlite3_finalize(stmt);
	return commit(st, err);
fail:
	sqlite3_finalize(stmt);
	rollback(st);
	return ret;
}

static int sqlite_get_profile(struct tk_store *s, const char *run_id, const char *kind,
			      struct tk_buf *out, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT data FROM profiles WHERE run_id = ? AND kind = ?",
			       -1, &stmt, NULL) != SQLITE_OK)
		return db_error(st, err, "read");
	sqlite3_bind_text(stmt, 1, run_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, kind, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW)
		tk_buf_add(out, sqlite3_column_blob(stmt, 0),
			   (size_t)sqlite3_column_bytes(stmt, 0));
	else if (rc == SQLITE_DONE)
		ret = tk_err_set(err, TK_EDATA, "no %s profile for run %s", kind, run_id);
	else
		ret = db_error(st, err, "read");
	sqlite3_finalize(stmt);
	return ret;
}

/* A database older than the table has no timelines. */
static int get_timeline(struct sqlite_store *st, struct tk_store_timeline *q,
			struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	struct tk_buf name = TK_BUF_INIT;
	int rc, ret = 0;

	q->found = 0;
	q->out->nr = 0;
	if (st->schema < TIMELINE_VERSION)
		return 0;
	if (sqlite3_prepare_v2(st->db, TIMELINE_GET_SQL("?"), -1, &stmt, NULL) != SQLITE_OK)
		return db_error(st, err, "read");
	sqlite3_bind_text(stmt, 1, q->run_id, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		const char *enc = (const char *)sqlite3_column_text(stmt, 0);
		const char *data = (const char *)sqlite3_column_text(stmt, 2);
		size_t len = (size_t)sqlite3_column_bytes(stmt, 2);

		if (!enc || strcmp(enc, TK_TIMELINE_ENCODING) || !data)
			ret = tk_err_set(err, TK_EDATA, "database '%s' run %s: memory timeline of "
					 "an unknown encoding", st->path, q->run_id);
		else
			ret = tk_timeline_decode(data, len, q->out, err);
		if (ret) {
			tk_buf_addf(&name, "database '%s' run %s: %s", st->path, q->run_id, err->msg);
			tk_err_set(err, TK_EDATA, "%s", name.buf);
		} else {
			q->found = 1;
			q->out->interval_ms = sqlite3_column_int64(stmt, 1);
		}
	}
	sqlite3_finalize(stmt);
	tk_buf_release(&name);
	if (!ret && rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, err, "read");
	return ret;
}

static int profile_total(struct sqlite_store *st, struct tk_store_profile_total *q,
			 struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc;

	q->found = 0;
	if (sqlite3_prepare_v2(st->db, "SELECT total, unit FROM profiles WHERE run_id = ? AND "
			       "kind = ?", -1, &stmt, NULL) != SQLITE_OK)
		return db_error(st, err, "read");
	sqlite3_bind_text(stmt, 1, q->run_id, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(stmt, 2, q->kind, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		const char *unit = (const char *)sqlite3_column_text(stmt, 1);

		q->found = 1;
		q->total = sqlite3_column_double(stmt, 0);
		snprintf(q->unit, sizeof(q->unit), "%s", unit ? unit : "");
	}
	sqlite3_finalize(stmt);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_error(st, err, "read");
	return 0;
}

/* The distinct keys by a skip scan of the (key, started_at_us) index: one
 * seek per key, not a read of every run. */
static int list_keys(struct sqlite_store *st, struct tk_store_keys *q, struct tk_err *err)
{
	static const char sql[] =
		"WITH RECURSIVE k(key) AS (SELECT (SELECT min(key) FROM runs) "
		"UNION ALL SELECT (SELECT min(key) FROM runs WHERE key > k.key) FROM k "
		"WHERE k.key IS NOT NULL) "
		"SELECT key FROM k WHERE key IS NOT NULL AND EXISTS (SELECT 1 FROM runs r "
		"WHERE r.key = k.key AND r.started_at_us >= ?1)";
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL) != SQLITE_OK)
		return db_error(st, err, "read");
	sqlite3_bind_int64(stmt, 1, q->since_us);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(stmt, 0);

		ret = q->fn(key ? key : "", q->data);
		if (ret)
			break;
	}
	sqlite3_finalize(stmt);
	if (!ret && rc != SQLITE_DONE)
		return db_error(st, err, "read");
	return ret;
}

static int each_profile(struct sqlite_store *st, const struct tk_profile_each *each,
			struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	if (sqlite3_prepare_v2(st->db, "SELECT run_id, kind, unit, source_format, nodes, total,"
			       " data FROM profiles ORDER BY run_id, kind", -1, &stmt,
			       NULL) != SQLITE_OK)
		return db_error(st, err, "read");
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct tk_profile_blob b;

		b.run_id = (const char *)sqlite3_column_text(stmt, 0);
		b.kind = (const char *)sqlite3_column_text(stmt, 1);
		b.unit = (const char *)sqlite3_column_text(stmt, 2);
		b.source_format = (const char *)sqlite3_column_text(stmt, 3);
		b.nodes = sqlite3_column_int64(stmt, 4);
		b.total = sqlite3_column_double(stmt, 5);
		b.data = sqlite3_column_blob(stmt, 6);
		b.len = (size_t)sqlite3_column_bytes(stmt, 6);
		ret = each->fn(&b, each->data);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(st, err, "read");
	sqlite3_finalize(stmt);
	return ret;
}

/* ---- frame totals (core/store/frametot.h) ---- */

static int no_frames(struct sqlite_store *st, struct tk_err *err)
{
	return tk_err_set(err, TK_EUSAGE, "database '%s' has no frame totals (schema version "
			  "%d, older than %d)", st->path, st->schema, FRAMES_VERSION);
}

static int put_frames(struct sqlite_store *st, const struct tk_store_frames_put *q,
		      struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	size_t i;
	int ret;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	ret = begin(st, err);
	if (ret)
		return ret;
	if (sqlite3_prepare_v2(st->db, "UPDATE profiles SET frames_floor = ? WHERE run_id = ?"
			       " AND kind = ?", -1, &stmt, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_double(stmt, 1, q->floor);
	sqlite3_bind_text(stmt, 2, q->run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 3, q->kind, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		goto db_fail;
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (!sqlite3_changes(st->db)) {
		ret = tk_err_set(err, TK_EDATA, "no %s profile for run %s in database '%s'",
				 q->kind, q->run_id, st->path);
		goto fail;
	}
	if (sqlite3_prepare_v2(st->db, "DELETE FROM frame_totals WHERE run_id = ? AND kind = ?",
			       -1, &stmt, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_text(stmt, 1, q->run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, q->kind, -1, SQLITE_STATIC);
	if (sqlite3_step(stmt) != SQLITE_DONE)
		goto db_fail;
	sqlite3_finalize(stmt);
	stmt = NULL;
	if (sqlite3_prepare_v2(st->db, "INSERT INTO frame_totals (run_id, kind, key, name, self,"
			       " cumulative) VALUES (?1, ?2, (SELECT key FROM runs WHERE"
			       " run_id = ?1), ?3, ?4, ?5)", -1, &stmt, NULL) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_text(stmt, 1, q->run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(stmt, 2, q->kind, -1, SQLITE_STATIC);
	for (i = 0; i < q->nr; i++) {
		sqlite3_bind_text(stmt, 3, q->v[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_double(stmt, 4, q->v[i].self);
		sqlite3_bind_double(stmt, 5, q->v[i].cumulative);
		if (sqlite3_step(stmt) != SQLITE_DONE)
			goto db_fail;
		sqlite3_reset(stmt);
	}
	sqlite3_finalize(stmt);
	return commit(st, err);
db_fail:
	ret = db_error(st, err, "write to");
fail:
	sqlite3_finalize(stmt);
	rollback(st);
	return ret;
}

static int frame_sets(struct sqlite_store *st, const struct tk_store_frame_sets *q,
		      struct tk_err *err)
{
	struct tk_buf sql = TK_BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	tk_buf_adds(&sql, "SELECT p.run_id, p.kind, p.unit, p.total, p.frames_floor FROM profiles p");
	if (q->key)
		tk_buf_adds(&sql, " JOIN runs r ON r.run_id = p.run_id WHERE r.key = ?1");
	if (q->missing_only)
		tk_buf_addf(&sql, " %s p.frames_floor IS NULL", q->key ? "AND" : "WHERE");
	tk_buf_adds(&sql, " ORDER BY p.run_id, p.kind");
	rc = sqlite3_prepare_v2(st->db, sql.buf, -1, &stmt, NULL);
	tk_buf_release(&sql);
	if (rc != SQLITE_OK)
		return db_error(st, err, "read");
	if (q->key)
		sqlite3_bind_text(stmt, 1, q->key, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct tk_store_frame_set set;

		set.run_id = (const char *)sqlite3_column_text(stmt, 0);
		set.kind = (const char *)sqlite3_column_text(stmt, 1);
		set.unit = (const char *)sqlite3_column_text(stmt, 2);
		set.total = sqlite3_column_double(stmt, 3);
		set.has_frames = sqlite3_column_type(stmt, 4) != SQLITE_NULL;
		set.floor = sqlite3_column_double(stmt, 4);
		ret = q->fn(&set, q->data);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(st, err, "read");
	sqlite3_finalize(stmt);
	return ret;
}

static int frame_rows(struct sqlite_store *st, const struct tk_store_frame_rows *q,
		      struct tk_err *err)
{
	struct tk_buf sql = TK_BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	size_t i, nn = 0;
	int rc, ret = 0, at;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	tk_buf_adds(&sql, "SELECT run_id, kind, name, self, cumulative FROM frame_totals"
		    " WHERE key = ?");
	if (q->run_id)
		tk_buf_adds(&sql, " AND run_id = ?");
	if (q->kind)
		tk_buf_adds(&sql, " AND kind = ?");
	if (q->names) {
		for (nn = 0; q->names[nn]; nn++)
			tk_buf_adds(&sql, nn ? ", ?" : " AND name IN (?");
		tk_buf_adds(&sql, nn ? ")" : " AND 0");
	}
	rc = sqlite3_prepare_v2(st->db, sql.buf, -1, &stmt, NULL);
	tk_buf_release(&sql);
	if (rc != SQLITE_OK)
		return db_error(st, err, "read");
	at = 1;
	sqlite3_bind_text(stmt, at++, q->key, -1, SQLITE_STATIC);
	if (q->run_id)
		sqlite3_bind_text(stmt, at++, q->run_id, -1, SQLITE_STATIC);
	if (q->kind)
		sqlite3_bind_text(stmt, at++, q->kind, -1, SQLITE_STATIC);
	for (i = 0; i < nn; i++)
		sqlite3_bind_text(stmt, at++, q->names[i], -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		struct tk_store_frame f;

		f.name = (const char *)sqlite3_column_text(stmt, 2);
		f.self = sqlite3_column_double(stmt, 3);
		f.cumulative = sqlite3_column_double(stmt, 4);
		ret = q->fn((const char *)sqlite3_column_text(stmt, 0),
			    (const char *)sqlite3_column_text(stmt, 1), &f, q->data);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(st, err, "read");
	sqlite3_finalize(stmt);
	return ret;
}

/* A key's distinct names (FRAME_NAMES_SQL). */
static int frame_names(struct sqlite_store *st, const struct tk_store_frame_names *q,
		       struct tk_err *err)
{
	sqlite3_stmt *stmt = NULL;
	int rc, ret = 0;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	if (sqlite3_prepare_v2(st->db, FRAME_NAMES_SQL("?1"), -1, &stmt, NULL) != SQLITE_OK)
		return db_error(st, err, "read");
	sqlite3_bind_text(stmt, 1, q->key, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
		ret = q->fn((const char *)sqlite3_column_text(stmt, 0), q->data);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(st, err, "read");
	sqlite3_finalize(stmt);
	return ret;
}

static int sqlite_ctrl(struct tk_store *s, int op, void *arg, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);

	switch (op) {
	case TK_STORE_CTRL_SCHEMA_VERSION:
		return user_version(st, arg, err);
	case TK_STORE_CTRL_JOURNAL_MODE:
		*(const char **)arg = st->journal_mode;
		return 0;
	case TK_STORE_CTRL_PROFILE_TOTAL:
		return profile_total(st, arg, err);
	case TK_STORE_CTRL_KEYS:
		return list_keys(st, arg, err);
	case TK_STORE_CTRL_EACH_PROFILE:
		return each_profile(st, arg, err);
	case TK_STORE_CTRL_PUT_FRAMES:
		return put_frames(st, arg, err);
	case TK_STORE_CTRL_FRAME_SETS:
		return frame_sets(st, arg, err);
	case TK_STORE_CTRL_FRAME_ROWS:
		return frame_rows(st, arg, err);
	case TK_STORE_CTRL_FRAME_NAMES:
		return frame_names(st, arg, err);
	case TK_STORE_CTRL_TIMELINE:
		return get_timeline(st, arg, err);
	}
	return tk_err_set(err, TK_EUSAGE, "the sqlite store has no operation %d", op);
}

const struct tk_store_ops tk_store_sqlite = {
	.version = TK_STORE_OPS_VERSION,
	.name = "sqlite",
	.accepts = sqlite_accepts,
	.open = sqlite_open,
	.migrate = sqlite_migrate,
	.put_run = sqlite_put_run,
	.query_runs = sqlite_query_runs,
	.query_summaries = sqlite_query_summaries,
	.put_profile = sqlite_put_profile,
	.get_profile = sqlite_get_profile,
	.ctrl = sqlite_ctrl,
	.close = sqlite_close,
};
