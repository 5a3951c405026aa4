#ifndef TK_MEMTIMELINE_H
#define TK_MEMTIMELINE_H
/*
 * A run's memory timeline (core/model/timeline.h) as people and programs
 * read it: `tracker history --run ID --timeline` and the report.
 *
 * The picture (PNG and PDF through cairo, core/draw/canvas.h; SVG; a
 * self-contained HTML page with the SVG inline and no script) draws the
 * process tree's RSS over the run's time, the cgroup's memory beside it
 * when the run has it, the peak marked with a dot and its figure, and,
 * for a run with SLURM accounting (tracker run --sacct), each step's
 * MaxRSS as a dashed line from the start to its Elapsed, where a tick
 * stands (the TK_MEMTL_MARKS largest steps; the job's own row and
 * .extern left out). The text formats list the samples: table (human
 * units), csv (t_ms,rss_bytes,cgroup_bytes) and json (the run, the
 * peak, the samples and the marks).
 *
 * Names (key, step names) are untrusted: SVG and HTML get them through
 * tk_xml_text, JSON through tk_html_json_str (the table and CSV hold
 * none); cairo draws them as a terminal shows them (core/draw/canvas.h),
 * so every format shows the same "\xNN" for a hostile byte. The same run
 * gives the same bytes (the PDF is dated by the run's start). Nothing
 * here prints except to the stream it is given.
 */
#include <stdio.h>

#include "core/base/err.h"
#include "core/model/run.h"
#include "core/store/store.h"

#define TK_MEMTL_MARKS 16

enum tk_memtl_format {
	TK_MEMTL_PNG, TK_MEMTL_PDF, TK_MEMTL_SVG, TK_MEMTL_HTML,
	TK_MEMTL_TABLE, TK_MEMTL_CSV, TK_MEMTL_JSON,
};

/* The picture format of path's extension (.png .pdf .svg .html .htm);
 * TK_EUSAGE naming the extensions otherwise. */
int tk_memtl_format_of(const char *path, enum tk_memtl_format *out, struct tk_err *err);
/* The text format named name (table, csv, json); TK_EUSAGE otherwise. */
int tk_memtl_format_named(const char *name, enum tk_memtl_format *out, struct tk_err *err);

/*
 * Run run_id of s, with its timeline, into out (tk_run_init'ed by the
 * caller, released by it). TK_EDATA "no run X" or "run X has no memory
 * timeline (recorded with --no-timeline, or before tracker kept one)";
 * store errors as the store gives them.
 */
int tk_memtl_load(struct tk_store *s, const char *run_id, struct tk_run *out,
		  struct tk_err *err);

/* r's timeline in fmt to out, flushed; width in pixels (0: 900). Returns
 * 0, TK_EUNAVAIL when a write failed, TK_EINTERNAL when cairo cannot
 * make the picture. */
int tk_memtl_write(const struct tk_run *r, enum tk_memtl_format fmt, double width, FILE *out,
		   struct tk_err *err);
/* The same to path, atomically, in the format of its extension. */
int tk_memtl_write_path(const struct tk_run *r, const char *path, double width,
			struct tk_err *err);

#endif
