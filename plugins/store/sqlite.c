/*
 * The SQLite history store: one file, many concurrent writers.
 *
 * Every run is one row of `runs`: the columns history filters and prints,
 * plus `record`, the whole run as JSON (tk_run_to_json), so that fields the
 * columns do not hold survive a round trip and newer writers lose nothing.
 * Reads rebuild struct tk_run from `record` alone.
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
#include <errno.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fsutil.h"
#include "core/store.h"
#include "core/timeutil.h"
#include "plugins/plugins.h"
#include "core/banned.h"

/* How long a writer keeps trying to get the write lock, in all. */
#define BUSY_TIMEOUT_MS 30000
#define RETRY_TOTAL_MS 120000

struct sqlite_store {
	struct tk_store base; /* first: the store API hands us &base */
	sqlite3 *db;
	char *path;
	char journal_mode[16];
	unsigned retry_seed;
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
	/* 2: profiles, one per (run, kind), encoded by core/profcodec.c */
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
};

#define SCHEMA_VERSION ((int)(sizeof(migrations) / sizeof(migrations[0])))

static struct sqlite_store *from_base(struct tk_store *s)
{
	return (struct sqlite_store *)s;
}

static int db_error(struct sqlite_store *st, struct tk_err *err, const char *what)
{
	return tk_err_set(err, TK_EUNAVAIL, "cannot %s database '%s': %s",
			  what, st->path, sqlite3_errmsg(st->db));
}

static int is_busy(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

/* Sleeps 1..2^attempt ms (capped at 200 ms), so colliding writers spread out. */
static void backoff(struct sqlite_store *st, int attempt)
{
	long max_ms = attempt < 8 ? 1L << attempt : 200;
	long ms = 1 + (long)(rand_r(&st->retry_seed) % (unsigned)max_ms);
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Runs sql (no parameters, no rows wanted), retrying while busy. */
static int exec_retry(struct sqlite_store *st, const char *sql)
{
	double deadline = tk_mono_s() + RETRY_TOTAL_MS / 1000.0;
	int attempt = 0, rc;

	for (;;) {
		rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		if (!is_busy(rc) || tk_mono_s() > deadline)
			return rc;
		backoff(st, attempt++);
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

static int sqlite_migrate(struct tk_store *s, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	int v, ret, target;

	ret = user_version(st, &v, err);
	if (ret)
		return ret;
	for (target = v + 1; target <= SCHEMA_VERSION; target++) {
		char set[64];

		ret = begin(st, err);
		if (ret)
			return ret;
		/* Another process may have migrated while we waited. */
		ret = user_version(st, &v, err);
		if (ret)
			goto fail;
		if (v >= target) {
			ret = commit(st, err);
			if (ret)
				return ret;
			continue;
		}
		snprintf(set, sizeof(set), "PRAGMA user_version = %d", target);
		if (sqlite3_exec(st->db, migrations[target - 1], NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(st->db, set, NULL, NULL, NULL) != SQLITE_OK) {
			ret = tk_err_set(err, TK_EUNAVAIL,
					 "cannot migrate database '%s' to schema version %d: %s",
					 st->path, target, sqlite3_errmsg(st->db));
			goto fail;
		}
		ret = commit(st, err);
		if (ret)
			return ret;
	}
	return 0;
fail:
	rollback(st);
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
		if (!is_busy(rc) || tk_mono_s() > deadline)
			return db_error(st, err, "set up");
		backoff(st, attempt++);
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

static int sqlite_open(const char *url, unsigned flags, struct tk_store **out,
		       struct tk_err *err)
{
	struct sqlite_store *st;
	int rc, ret, oflags;

	*out = NULL;
	st = tk_xcalloc(1, sizeof(*st));
	st->base.ops = &tk_store_sqlite;
	st->path = tk_xstrdup(url_path(url));
	st->retry_seed = (unsigned)getpid() ^ (unsigned)tk_now_us();
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
	sqlite3_busy_timeout(st->db, BUSY_TIMEOUT_MS);
	ret = setup_journal(st, flags, err);
	if (ret)
		goto fail;
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

/* Unknown measurements are -1 in struct tk_run and NULL in the table. */
static void bind_int(sqlite3_stmt *stmt, int i, int64_t v)
{
	if (v < 0)
		sqlite3_bind_null(stmt, i);
	else
		sqlite3_bind_int64(stmt, i, v);
}

static void bind_real(sqlite3_stmt *stmt, int i, double v)
{
	if (v < 0)
		sqlite3_bind_null(stmt, i);
	else
		sqlite3_bind_double(stmt, i, v);
}

/* The record, compact: the pretty file form would double the table. */
static int compact_record(const struct tk_run *r, struct tk_buf *out, struct tk_err *err)
{
	struct tk_buf pretty = TK_BUF_INIT;
	json_t *doc;
	char *text;
	int ret;

	ret = tk_run_to_json(r, &pretty, err);
	if (ret)
		goto out;
	doc = json_loadb(pretty.buf, pretty.len, 0, NULL);
	text = doc ? json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER |
				JSON_REAL_PRECISION(17)) : NULL;
	json_decref(doc);
	if (!text) {
		ret = tk_err_set(err, TK_EINTERNAL, "cannot encode run %s as JSON", r->id);
		goto out;
	}
	tk_buf_adds(out, text);
	free(text);
out:
	tk_buf_release(&pretty);
	return ret;
}

#define RUN_COLUMNS \
	"run_id, key, branch, \"commit\", build_number, started_at_us," \
	" walltime_s, user_s, sys_s, maxrss_bytes, tree_rss_bytes," \
	" cgroup_peak_bytes, exit_code, signal, status, partial, provider," \
	" pipeline, build_url, step_key, base_branch, host, slurm_job_id," \
	" tracker_version, stored_at_us, record, rank, rank_group"

static const char put_sql[] =
	"INSERT INTO runs (" RUN_COLUMNS ") VALUES"
	" (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,"
	" ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)"
	" ON CONFLICT (run_id) DO UPDATE SET"
	" key = excluded.key, branch = excluded.branch,"
	" \"commit\" = excluded.\"commit\", build_number = excluded.build_number,"
	" started_at_us = excluded.started_at_us, walltime_s = excluded.walltime_s,"
	" user_s = excluded.user_s, sys_s = excluded.sys_s,"
	" maxrss_bytes = excluded.maxrss_bytes, tree_rss_bytes = excluded.tree_rss_bytes,"
	" cgroup_peak_bytes = excluded.cgroup_peak_bytes, exit_code = excluded.exit_code,"
	" signal = excluded.signal, status = excluded.status, partial = excluded.partial,"
	" provider = excluded.provider, pipeline = excluded.pipeline,"
	" build_url = excluded.build_url, step_key = excluded.step_key,"
	" base_branch = excluded.base_branch, host = excluded.host,"
	" slurm_job_id = excluded.slurm_job_id,"
	" tracker_version = excluded.tracker_version,"
	" stored_at_us = excluded.stored_at_us, record = excluded.record,"
	" rank = excluded.rank, rank_group = excluded.rank_group"
	" WHERE runs.partial = 1 AND excluded.partial = 0";

static void bind_run(sqlite3_stmt *stmt, const struct tk_run *r, const struct tk_buf *record)
{
	sqlite3_bind_text(stmt, 1, r->id, -1, SQLITE_TRANSIENT);
	bind_text(stmt, 2, r->key);
	bind_text(stmt, 3, r->ci.branch);
	bind_text(stmt, 4, r->ci.commit);
	bind_text(stmt, 5, r->ci.build_number);
	sqlite3_bind_int64(stmt, 6, r->started_at_us);
	bind_real(stmt, 7, r->walltime_s);
	bind_real(stmt, 8, r->user_s);
	bind_real(stmt, 9, r->sys_s);
	bind_int(stmt, 10, r->maxrss_bytes);
	bind_int(stmt, 11, r->tree_rss_bytes);
	bind_int(stmt, 12, r->cgroup_peak_bytes);
	bind_int(stmt, 13, r->exit_code);
	sqlite3_bind_int(stmt, 14, r->term_signal);
	bind_text(stmt, 15, tk_run_status_name(r->status));
	sqlite3_bind_int(stmt, 16, r->partial ? 1 : 0);
	bind_text(stmt, 17, r->ci.provider);
	bind_text(stmt, 18, r->ci.pipeline);
	bind_text(stmt, 19, r->ci.build_url);
	bind_text(stmt, 20, r->ci.step_key);
	bind_text(stmt, 21, r->ci.base_branch);
	bind_text(stmt, 22, r->ci.host);
	bind_text(stmt, 23, r->ci.slurm_job_id);
	bind_text(stmt, 24, r->tracker_version);
	sqlite3_bind_int64(stmt, 25, tk_now_us());
	sqlite3_bind_text(stmt, 26, record->buf, (int)record->len, SQLITE_TRANSIENT);
	if (r->rank >= 0 && r->rank_group) {
		sqlite3_bind_int(stmt, 27, r->rank);
		bind_text(stmt, 28, r->rank_group);
	} else {
		sqlite3_bind_null(stmt, 27);
		sqlite3_bind_null(stmt, 28);
	}
}

static int sqlite_put_run(struct tk_store *s, const struct tk_run *r,
			  int *inserted, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);
	struct tk_buf record = TK_BUF_INIT;
	sqlite3_stmt *stmt = NULL;
	int ret, rc;

	if (inserted)
		*inserted = 0;
	if (!tk_uuid_valid(r->id))
		return tk_err_set(err, TK_EDATA, "cannot store run: '%s' is not a run id", r->id);
	if (!r->key || !*r->key)
		return tk_err_set(err, TK_EDATA, "cannot store run %s: it has no key", r->id);
	ret = compact_record(r, &record, err);
	if (ret)
		return ret;
	ret = begin(st, err);
	if (ret)
		goto out;
	if (sqlite3_prepare_v2(st->db, put_sql, -1, &stmt, NULL) != SQLITE_OK) {
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
	ret = commit(st, err);
	if (ret && inserted)
		*inserted = 0;
	goto out;
fail:
	sqlite3_finalize(stmt);
	rollback(st);
out:
	tk_buf_release(&record);
	return ret;
}

/* Builds the WHERE clause with placeholders only; values are bound later. */
static void build_query(const struct tk_run_query *q, struct tk_buf *sql)
{
	const char *sep = " WHERE ";
	size_t i;

	tk_buf_adds(sql, "SELECT run_id, record FROM runs");
	if (q->keys && q->keys[0]) {
		tk_buf_addf(sql, "%skey IN (?", sep);
		for (i = 1; q->keys[i]; i++)
			tk_buf_adds(sql, ", ?");
		tk_buf_addch(sql, ')');
		sep = " AND ";
	}
	if (q->branch) {
		tk_buf_addf(sql, "%sbranch = ?", sep);
		sep = " AND ";
	}
	if (q->since_us) {
		tk_buf_addf(sql, "%sstarted_at_us >= ?", sep);
		sep = " AND ";
	}
	if (q->run_id) {
		tk_buf_addf(sql, "%srun_id = ?", sep);
		sep = " AND ";
	}
	if (q->rank_group) {
		tk_buf_addf(sql, "%srank_group = ?", sep);
		sep = " AND ";
	}
	if (q->profile_kind)
		tk_buf_addf(sql, "%sEXISTS (SELECT 1 FROM profiles p"
			    " WHERE p.run_id = runs.run_id AND p.kind = ?)", sep);
	tk_buf_adds(sql, " ORDER BY started_at_us DESC, run_id");
	if (q->limit > 0)
		tk_buf_adds(sql, " LIMIT ?");
}

static void bind_query(sqlite3_stmt *stmt, const struct tk_run_query *q)
{
	int n = 1;
	size_t i;

	if (q->keys)
		for (i = 0; q->keys[i]; i++)
			sqlite3_bind_text(stmt, n++, q->keys[i], -1, SQLITE_TRANSIENT);
	if (q->branch)
		sqlite3_bind_text(stmt, n++, q->branch, -1, SQLITE_TRANSIENT);
	if (q->since_us)
		sqlite3_bind_int64(stmt, n++, q->since_us);
	if (q->run_id)
		sqlite3_bind_text(stmt, n++, q->run_id, -1, SQLITE_TRANSIENT);
	if (q->rank_group)
		sqlite3_bind_text(stmt, n++, q->rank_group, -1, SQLITE_TRANSIENT);
	if (q->profile_kind)
		sqlite3_bind_text(stmt, n++, q->profile_kind, -1, SQLITE_TRANSIENT);
	if (q->limit > 0)
		sqlite3_bind_int64(stmt, n++, q->limit);
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
	build_query(q, &sql);
	if (sqlite3_prepare_v2(st->db, sql.buf, (int)sql.len, &stmt, NULL) != SQLITE_OK) {
		ret = db_error(st, err, "read");
		goto out;
	}
	bind_query(stmt, q);
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
		ret = tk_run_from_json(text ? text : "", (size_t)len, name.buf, &run, err);
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

static int sqlite_ctrl(struct tk_store *s, int op, void *arg, struct tk_err *err)
{
	struct sqlite_store *st = from_base(s);

	switch (op) {
	case TK_STORE_CTRL_SCHEMA_VERSION:
		return user_version(st, arg, err);
	case TK_STORE_CTRL_JOURNAL_MODE:
		*(const char **)arg = st->journal_mode;
		return 0;
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
	.put_profile = sqlite_put_profile,
	.get_profile = sqlite_get_profile,
	.ctrl = sqlite_ctrl,
	.close = sqlite_close,
};
