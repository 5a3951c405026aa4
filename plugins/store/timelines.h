#ifndef TK_STORE_TIMELINES_H
#define TK_STORE_TIMELINES_H
/*
 * The `timelines` table of the SQL stores: one row per run that has a
 * memory timeline (core/model/timeline.h), its compact form in `data`.
 * It is kept apart from `runs` so that the runs' rows, which every
 * history and chart reads, stay small; the record column holds the run
 * without it (TK_RUN_JSON_NO_TIMELINE). put_run writes the row when it
 * writes the run's (a stored run that is kept keeps its timeline too);
 * TK_STORE_CTRL_TIMELINE (core/store/store.h) reads it back.
 *
 * TIMELINE_VERSION is the schema version that adds the table, the same
 * in both stores: renumbering it is changing this one constant. Only the
 * store plugins include this header.
 */
#include <stdint.h>

#include "core/base/buf.h"
#include "core/model/run.h"

#define TIMELINE_VERSION 9

#define TIMELINE_TABLE(run_id_type, big) \
	"CREATE TABLE timelines (" \
	" run_id " run_id_type " NOT NULL PRIMARY KEY REFERENCES runs (run_id)," \
	" encoding TEXT NOT NULL," \
	" interval_ms " big "," \
	" points " big " NOT NULL," \
	" peak_rss_bytes " big "," \
	" data TEXT NOT NULL," \
	" stored_at_us " big " NOT NULL" \
	");"

/* Placeholders ? (SQLite) or $1.. (PostgreSQL), in this order: run id,
 * encoding, interval_ms, points, peak_rss_bytes, data, stored_at_us. */
static inline void timeline_put_sql(struct tk_buf *sql, int numbered)
{
	int i;

	tk_buf_adds(sql, "INSERT INTO timelines (run_id, encoding, interval_ms, points,"
		    " peak_rss_bytes, data, stored_at_us) VALUES (");
	for (i = 1; i <= 7; i++) {
		if (numbered)
			tk_buf_addf(sql, "%s$%d", i > 1 ? ", " : "", i);
		else
			tk_buf_adds(sql, i > 1 ? ", ?" : "?");
	}
	tk_buf_adds(sql, ") ON CONFLICT (run_id) DO UPDATE SET encoding = excluded.encoding,"
		    " interval_ms = excluded.interval_ms, points = excluded.points,"
		    " peak_rss_bytes = excluded.peak_rss_bytes, data = excluded.data,"
		    " stored_at_us = excluded.stored_at_us");
}

#define TIMELINE_GET_SQL(param) \
	"SELECT encoding, interval_ms, data FROM timelines WHERE run_id = " param

/* The values of timeline_put_sql's placeholders, data the compact form. */
static inline void timeline_row(const struct tk_run *r, struct tk_buf *data, int64_t *peak)
{
	tk_timeline_encode(&r->timeline, data);
	*peak = r->timeline.p[tk_timeline_peak(&r->timeline)].rss_bytes;
}

#endif
