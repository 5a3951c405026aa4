#ifndef TK_RECORD_H
#define TK_RECORD_H
/*
 * The record file: a run (core/model/run.h) as the self-describing JSON
 * document `tracker run` writes and `tracker push` and the stores read:
 *
 *   { "format": "tracker-run", "version": 1, "run": { ... } }
 *
 * Its scalar members are the fields of core/model/runfield.h, in that
 * table's order, written and read from it; the structured parts (argv,
 * tags, ci.agent_tags, profiles, slurm) are written and read here, at
 * their place in the order. Strings that are not UTF-8 are written with
 * U+FFFD for their invalid bytes.
 *
 * Errors are negative enum tk_code with err filled: TK_EDATA for a
 * record that cannot be read, TK_EINTERNAL when jansson cannot encode
 * one, plus what writing a file gives.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/run.h"

/*
 * tk_run_to_json appends the document (pretty-printed, ending in a
 * newline). tk_run_from_json parses one into r (tk_run_init'ed); `name`
 * is used in error messages ("cannot parse record 'x.json' line 3 column
 * 5: ..."), and errors are TK_EDATA. Unknown members are ignored, so
 * newer writers stay readable.
 */
int tk_run_to_json(const struct tk_run *r, struct tk_buf *out, struct tk_err *err);
/*
 * The document with flags:
 * - TK_RUN_JSON_COMPACT writes it on one line without spaces and without
 *   the final newline (the stores' `record` column), byte for byte what
 *   re-dumping the pretty form compactly gives;
 * - TK_RUN_JSON_RUN writes only the "run" object, pretty-printed as in
 *   the document but from the left margin and without a final newline
 *   (what `tracker history --format json` lists), its reals with 15
 *   significant digits (exact for measured seconds, without float noise).
 * - TK_RUN_JSON_NO_TIMELINE leaves the memory timeline out (the stores
 *   keep it in a table of its own).
 *
 * The record's "timeline" object is {"encoding": "tl1", "interval_ms":
 * N, "points": N, "peak_rss_bytes": N, "data": "..."}, data the compact
 * form of core/model/timeline.h; the reader takes encoding and data and
 * checks points against them.
 */
enum {
	TK_RUN_JSON_COMPACT = 1 << 0,
	TK_RUN_JSON_RUN = 1 << 1,
	TK_RUN_JSON_NO_TIMELINE = 1 << 2,
};
int tk_run_to_json_flags(const struct tk_run *r, unsigned flags, struct tk_buf *out,
			 struct tk_err *err);
int tk_run_from_json(const char *text, size_t len, const char *name,
		     struct tk_run *r, struct tk_err *err);
/* tk_run_from_json also refuses (TK_EDATA, naming the field) a record
 * whose figures are out of tk_run_summary_check's bounds: records come
 * from outside (push, fetch, a spool). A store reading back its own
 * column uses tk_run_from_stored_json, which leaves the bounds to its
 * reader (core/store/store.h: such rows are skipped and counted). */
int tk_run_from_stored_json(const char *text, size_t len, const char *name,
			    struct tk_run *r, struct tk_err *err);

/* The record's file name without ".json": "<key>-<id>", the key reduced
 * to [A-Za-z0-9._-] (the record itself carries the real key). */
void tk_run_record_name(const struct tk_run *r, struct tk_buf *out);

/*
 * Writes the record atomically as DIR/<key>-<id>.json (temporary file,
 * fsync, rename), creating DIR if needed. The path written is appended to
 * path_out when it is not NULL.
 */
int tk_run_write_record(const struct tk_run *r, const char *dir,
			struct tk_buf *path_out, struct tk_err *err);

#endif
