/*
 * Nsight Systems SQLite exports (`nsys export --type sqlite`): GPU time
 * per CUDA kernel, under the NVTX ranges that were open on the CPU thread
 * that launched it.
 *
 * Tables used (names and columns of the export schema):
 *   CUPTI_ACTIVITY_KIND_KERNEL (start, end, correlationId, globalPid,
 *       demangledName, shortName -> StringIds.id)
 *   CUPTI_ACTIVITY_KIND_RUNTIME (start, correlationId, globalTid): the
 *       CUDA API call that launched the kernel, joined on correlationId
 *       within the same process (globalTid >> 24 == globalPid >> 24);
 *   NVTX_EVENTS (start, end, eventType, text, textId -> StringIds,
 *       globalTid): push/pop ranges (eventType 59, NvtxPushPopRange) and
 *       start/end ranges (60, NvtxStartEndRange); marks and ranges that
 *       never ended are ignored.
 * A kernel's stack is every range of its launching thread that contains
 * the launch time (range start <= launch <= range end), outer first
 * (earlier start, then longer), then the kernel's name: demangledName, or
 * shortName when opts->kind is "short" (each falls back to the other). A
 * kernel without a launch record sits at the root. The weight is the
 * kernel's duration, end - start, in nanoseconds.
 *
 * The database is opened read-only from the reader's path; a gzipped
 * export, or memory input (fuzzing), is loaded whole (at most 1 GiB) and
 * opened with sqlite3_deserialize.
 */
#include "plugins/import/importers.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "core/base/banned.h"

#define MAX_MEM_DB ((size_t)1 << 30)

struct range {
	sqlite3_int64 tid, start, end;
	uint32_t name;
};

struct nsys_state {
	sqlite3 *db;
	struct range *ranges;
	size_t nr_ranges, alloc_ranges;
	uint32_t *active;       /* indexes into ranges, outer first */
	size_t nr_active, alloc_active;
	uint32_t *path;
	size_t alloc_path;
	unsigned long long kernels, skipped;
};

static int db_error(struct nsys_state *st, struct tk_reader *in, struct tk_err *err)
{
	return tk_err_set(err, TK_EDATA, "cannot read '%s': %s", in->name,
			  st->db ? sqlite3_errmsg(st->db) : "out of memory");
}

static int open_db(struct nsys_state *st, struct tk_reader *in, struct tk_err *err)
{
	const char *data;
	size_t len;
	struct tk_buf b = TK_BUF_INIT;
	unsigned char *copy;
	int rc, ret;

	if (in->fd >= 0) { /* a plain file: sqlite reads it itself */
		rc = sqlite3_open_v2(in->name, &st->db, SQLITE_OPEN_READONLY, NULL);
		if (rc != SQLITE_OK)
			return db_error(st, in, err);
		return 0;
	}
	if (in->mem) {
		data = in->mem + in->mem_pos;
		len = in->mem_len - in->mem_pos;
		if (len > MAX_MEM_DB)
			return tk_err_set(err, TK_EDATA, "'%s' is larger than %zu bytes", in->name,
					  MAX_MEM_DB);
	} else {
		ret = tk_reader_slurp(in, &b, MAX_MEM_DB, err);
		if (ret) {
			tk_buf_release(&b);
			return ret;
		}
		data = b.buf;
		len = b.len;
	}
	rc = sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE, NULL);
	copy = rc == SQLITE_OK ? sqlite3_malloc64(len ? len : 1) : NULL;
	if (!copy) {
		tk_buf_release(&b);
		return db_error(st, in, err);
	}
	memcpy(copy, data, len);
	tk_buf_release(&b);
	rc = sqlite3_deserialize(st->db, "main", copy, (sqlite3_int64)len, (sqlite3_int64)len,
				 SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY);
	if (rc != SQLITE_OK)
		return db_error(st, in, err);
	return 0;
}

/* 1 when the table exists, 0 when not, or a negative code. */
static int has_table(struct nsys_state *st, struct tk_reader *in, const char *name,
		     struct tk_err *err)
{
	sqlite3_stmt *q;
	int rc;

	rc = sqlite3_prepare_v2(st->db,
				"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
				-1, &q, NULL);
	if (rc != SQLITE_OK)
		return db_error(st, in, err);
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return db_error(st, in, err);
}

/* Prepares sql, or fallback when sql names a column this export lacks. */
static int prepare(struct nsys_state *st, struct tk_reader *in, const char *sql,
		   const char *fallback, sqlite3_stmt **q, struct tk_err *err)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, q, NULL) == SQLITE_OK)
		return 0;
	if (fallback && sqlite3_prepare_v2(st->db, fallback, -1, q, NULL) == SQLITE_OK)
		return 0;
	return db_error(st, in, err);
}

static int intern_text(struct tk_profile *p, struct tk_reader *in, sqlite3_stmt *q, int col,
		       const char *what, uint32_t *id, struct tk_err *err)
{
	const unsigned char *s = sqlite3_column_text(q, col);
	int n = sqlite3_column_bytes(q, col);

	if (!s) {
		s = (const unsigned char *)"[unnamed]";
		n = 9;
	}
	if ((size_t)n > TK_PROFILE_MAX_NAME)
		return tk_err_set(err, TK_EDATA, "'%s': %s name longer than %u bytes", in->name,
				  what, TK_PROFILE_MAX_NAME);
	*id = tk_profile_intern(p, (const char *)s, (size_t)n);
	return 0;
}

static int load_ranges(struct nsys_state *st, struct tk_reader *in, struct tk_profile *p,
		       struct tk_err *err)
{
	static const char sql[] =
		"SELECT n.globalTid, n.start, n.\"end\", COALESCE(n.text, s.value)"
		" FROM NVTX_EVENTS AS n LEFT JOIN StringIds AS s ON s.id = n.textId"
		" WHERE n.eventType IN (59, 60) AND n.\"end\" IS NOT NULL"
		" AND n.globalTid IS NOT NULL AND n.\"end\" >= n.start"
		" ORDER BY n.globalTid, n.start, n.\"end\" DESC";
	static const char old_sql[] =
		"SELECT n.globalTid, n.start, n.\"end\", n.text FROM NVTX_EVENTS AS n"
		" WHERE n.eventType IN (59, 60) AND n.\"end\" IS NOT NULL"
		" AND n.globalTid IS NOT NULL AND n.\"end\" >= n.start"
		" ORDER BY n.globalTid, n.start, n.\"end\" DESC";
	sqlite3_stmt *q;
	int rc, ret;

	ret = has_table(st, in, "NVTX_EVENTS", err);
	if (ret <= 0)
		return ret;
	ret = prepare(st, in, sql, old_sql, &q, err);
	if (ret)
		return ret;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct range *r;

		TK_ALLOC_GROW(st->ranges, st->nr_ranges + 1, st->alloc_ranges);
		r = &st->ranges[st->nr_ranges];
		r->tid = sqlite3_column_int64(q, 0);
		r->start = sqlite3_column_int64(q, 1);
		r->end = sqlite3_column_int64(q, 2);
		ret = intern_text(p, in, q, 3, "NVTX range", &r->name, err);
		if (ret)
			break;
		st->nr_ranges++;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(st, in, err);
	sqlite3_finalize(q);
	return ret;
}

/* The first range of thread tid (ranges are sorted by thread). */
static size_t first_range(const struct nsys_state *st, sqlite3_int64 tid)
{
	size_t lo = 0, hi = st->nr_ranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->ranges[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_kernels(struct nsys_state *st, struct tk_reader *in, struct tk_profile *p,
		       int short_names, int have_runtime, struct tk_err *err)
{
	struct tk_buf sql = TK_BUF_INIT, old_sql = TK_BUF_INIT;
	const char *first = short_names ? "shortName" : "demangledName";
	const char *second = short_names ? "demangledName" : "shortName";
	sqlite3_stmt *q;
	sqlite3_int64 cur_tid = 0;
	size_t next = 0;
	int rc, ret, have_tid = 0;

	tk_buf_addf(&sql, "SELECT k.start, k.\"end\", COALESCE(a.value, b.value), %s"
		    " FROM CUPTI_ACTIVITY_KIND_KERNEL AS k"
		    " LEFT JOIN StringIds AS a ON a.id = k.%s"
		    " LEFT JOIN StringIds AS b ON b.id = k.%s",
		    have_runtime ? "r.globalTid, r.start" : "NULL, NULL", first, second);
	tk_buf_add(&old_sql, sql.buf, sql.len);
	if (have_runtime) {
		tk_buf_adds(&sql, " LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r"
			    " ON r.correlationId = k.correlationId"
			    " AND (r.globalTid >> 24) = (k.globalPid >> 24)"
			    " ORDER BY r.globalTid, r.start");
		tk_buf_adds(&old_sql, " LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r"
			    " ON r.correlationId = k.correlationId"
			    " ORDER BY r.globalTid, r.start");
	}
	ret = prepare(st, in, sql.buf, old_sql.buf, &q, err);
	tk_buf_release(&sql);
	tk_buf_release(&old_sql);
	if (ret)
		return ret;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		sqlite3_int64 start = sqlite3_column_int64(q, 0), end = sqlite3_column_int64(q, 1);
		sqlite3_int64 dur;
		size_t depth = 0, i, keep;
		uint32_t kernel;

		if (sqlite3_column_type(q, 0) == SQLITE_NULL || sqlite3_column_type(q, 1) == SQLITE_NULL ||
		    end < start) {
			st->skipped++;
			continue;
		}
		if (__builtin_sub_overflow(end, start, &dur)) {
			ret = tk_err_set(err, TK_EDATA,
					 "'%s': a kernel's duration (end %lld - start %lld) overflows",
					 in->name, (long long)end, (long long)start);
			break;
		}
		ret = intern_text(p, in, q, 2, "kernel", &kernel, err);
		if (ret)
			break;
		if (sqlite3_column_type(q, 3) != SQLITE_NULL) {
			sqlite3_int64 tid = sqlite3_column_int64(q, 3);
			sqlite3_int64 t = sqlite3_column_int64(q, 4);

			if (!have_tid || tid != cur_tid) {
				have_tid = 1;
				cur_tid = tid;
				next = first_range(st, tid);
				st->nr_active = 0;
			}
			/* Launch times only grow within a thread: a sweep. */
			while (next < st->nr_ranges && st->ranges[next].tid == tid &&
			       st->ranges[next].start <= t) {
				TK_ALLOC_GROW(st->active, st->nr_active + 1, st->alloc_active);
				st->active[st->nr_active++] = (uint32_t)next;
				next++;
			}
			for (i = keep = 0; i < st->nr_active; i++)
				if (st->ranges[st->active[i]].end >= t)
					st->active[keep++] = st->active[i];
			st->nr_active = keep;
			depth = keep;
		}
		if (depth + 1 > TK_PROFILE_MAX_DEPTH) {
			ret = tk_err_set(err, TK_EDATA, "'%s': more than %d nested NVTX ranges",
					 in->name, TK_PROFILE_MAX_DEPTH - 1);
			break;
		}
		TK_ALLOC_GROW(st->path, depth + 1, st->alloc_path);
		for (i = 0; i < depth; i++)
			st->path[i] = st->ranges[st->active[i]].name;
		st->path[depth] = kernel;
		if (tk_profile_add_stack(p, st->path, depth + 1, (double)dur)) {
			ret = tk_err_set(err, TK_EDATA, "'%s': more than %u distinct stacks",
					 in->name, TK_PROFILE_MAX_NODES);
			break;
		}
		st->kernels++;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = db_error(st, in, err);
	sqlite3_finalize(q);
	return ret;
}

static int nsys_parse(struct tk_reader *in, struct tk_profile *p,
		      const struct tk_import_opts *opts, struct tk_err *err)
{
	struct nsys_state st;
	int ret, short_names = 0, have_runtime;
	const char *head;
	size_t len;

	if (opts->kind && *opts->kind) {
		if (strcmp(opts->kind, "short") && strcmp(opts->kind, "demangled"))
			return tk_err_set(err, TK_EUSAGE,
					  "unknown nsys kind '%s' (use demangled or short)", opts->kind);
		short_names = !strcmp(opts->kind, "short");
	}
	ret = tk_reader_peek(in, 16, &head, &len, err);
	if (ret)
		return ret;
	if (len < 16 || memcmp(head, "SQLite format 3", 16))
		return tk_err_set(err, TK_ENOTMINE, "not an SQLite database");
	memset(&st, 0, sizeof(st));
	ret = open_db(&st, in, err);
	if (!ret) {
		sqlite3_db_config(st.db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
		ret = has_table(&st, in, "CUPTI_ACTIVITY_KIND_KERNEL", err);
		if (!ret)
			ret = tk_err_set(err, TK_ENOTMINE,
					 "no CUPTI_ACTIVITY_KIND_KERNEL table (an nsys export without CUDA kernels?)");
		else if (ret > 0)
			ret = 0;
	}
	if (!ret)
		ret = has_table(&st, in, "StringIds", err);
	if (!ret)
		ret = tk_err_set(err, TK_EDATA, "'%s' has no StringIds table", in->name);
	else if (ret > 0)
		ret = 0;
	have_runtime = 0;
	if (!ret) {
		ret = has_table(&st, in, "CUPTI_ACTIVITY_KIND_RUNTIME", err);
		have_runtime = ret > 0;
		if (ret > 0)
			ret = 0;
	}
	if (!ret && have_runtime)
		ret = load_ranges(&st, in, p, err);
	if (!ret)
		ret = add_kernels(&st, in, p, short_names, have_runtime, err);
	if (!ret) {
		p->unit = TK_UNIT_NANOSECONDS;
		if (!st.kernels)
			snprintf(p->warning, sizeof(p->warning), "'%s': no CUDA kernels recorded",
				 in->name);
		else if (st.skipped)
			snprintf(p->warning, sizeof(p->warning),
				 "'%s': skipped %llu kernel(s) without a valid start and end",
				 in->name, st.skipped);
	}
	sqlite3_close(st.db);
	free(st.ranges);
	free(st.active);
	free(st.path);
	return ret;
}

/* The header only: parse checks for the kernel table. */
static int nsys_probe(const char *head, size_t len)
{
	return len >= 16 && !memcmp(head, "SQLite format 3", 16);
}

const struct tk_importer tk_import_nsys = {
	.version = TK_IMPORTER_VERSION,
	.name = "nsys",
	.summary = "Nsight Systems SQLite export (CUDA kernels under NVTX ranges)",
	.probe = nsys_probe,
	.parse = nsys_parse,
};
