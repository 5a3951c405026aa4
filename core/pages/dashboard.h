#ifndef TK_DASHBOARD_H
#define TK_DASHBOARD_H
/*
 * The dashboard: one self-contained page, DIR/index.html, listing every
 * key of the store (or those matching a pattern), each row with a
 * sparkline per metric, the current value against the baseline median as
 * a change in percent, the verdict of tracker check (core/analyze/check.h), and a
 * link to the key's full chart, DIR/<name>.html (core/pages/histplot.h), whose
 * name tk_dashboard_file_name makes safe from any key. The page sorts by
 * any column and filters keys by name with a small script that its CSP
 * names by hash.
 *
 * Which runs: for each key, its runs started at or after since_us; the
 * baseline branch is o->plot.baseline_branch, else tk_baseline_branch's
 * precedence for the key (core/analyze/baseline.h), else the key's branch with
 * most runs; the current run and the verdict are tk_check_key's with the
 * same baseline branch and metrics.
 *
 * Each key's chart page is thinned as o->plot.max_points says (0:
 * TK_DASHBOARD_MAX_POINTS): a chart of more runs keeps, of the baseline
 * branch's successful runs, each pixel column's lowest, median and
 * highest of each machine class, and every other run; the page then says "N runs shown of M".
 * tracker history --plot draws every run.
 *
 * Sparklines show the baseline branch's successful runs of the current
 * run's machine class (the class tracker check compares within; runs
 * with no class recorded match any), at most o->spark_points points (a
 * run's value per bucket of runs: the bucket's median), so a page of 100
 * keys with a year of runs each stays small. The row's baseline column
 * names the class beside the branch ("staging · cpu-large"). The chart
 * pages draw a baseline series per machine class (core/pages/histplot.h).
 *
 * Each file is written atomically (a reader sees the old file or the new
 * one). Output is deterministic: the same store and options give the
 * same bytes. Nothing here prints. Errors: TK_EUNAVAIL when DIR cannot be
 * made or written, the store's own codes; TK_EDATA "no keys ..." when no
 * key has a run to show.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/model/context.h"
#include "core/model/config.h"
#include "core/base/err.h"
#include "core/analyze/check.h"
#include "core/pages/histplot.h"
#include "core/store/keyhist.h"
#include "core/store/store.h"

#define TK_DASHBOARD_MAX_POINTS 2000
#define TK_DASHBOARD_MAX_JOBS 8

struct tk_dashboard_opts {
	const char *key_filter;        /* fnmatch(3) pattern; NULL: every key */
	const char *branch;            /* only runs on this branch; NULL: any */
	int64_t since_us;              /* 0: every run */
	struct tk_plot_opts plot;      /* metrics, x axis, baseline branch, window */
	const struct tk_ci_context *ci; /* the current build; NULL: none */
	const struct tk_config *cfg;   /* NULL: none */
	size_t spark_points;           /* 0: 200 */
	/* The store's URL, so that more workers can each open a connection
	 * of their own; NULL: one worker, on the caller's store. */
	const char *store_url;
	unsigned jobs;                 /* workers; 0: online CPUs, at most TK_DASHBOARD_MAX_JOBS */
	/* Work a caller has done already (tracker report): keys' runs read
	 * once (each history's since_us at or before since_us above), and
	 * checks made with the same CI context and config (read only, from
	 * every worker). A key without them is read and checked here. */
	const struct tk_key_history *histories;
	size_t nr_histories;
	const struct tk_check_memo *checks;
	/* Called with the name (in DIR) of each file written, once all are;
	 * NULL: none. */
	void (*wrote)(void *data, const char *name);
	void *wrote_data;
	size_t nr_keys;                /* out: keys listed */
};

void tk_dashboard_opts_init(struct tk_dashboard_opts *o);

/* Writes DIR/index.html and one DIR/<name>.html per key; makes DIR. */
int tk_dashboard_write(struct tk_store *s, const char *dir, struct tk_dashboard_opts *o,
		       struct tk_err *err);

/*
 * The file name of key's chart: the key's letters, digits, '-' and '_'
 * (others as '_', at most 60), '-', 8 hex digits of a hash of the whole
 * key, ".html". Never empty, never starting with '.', no '/'; two keys
 * share a name only when their hashes collide.
 */
void tk_dashboard_file_name(struct tk_buf *out, const char *key);

/* 1 when path names a file "index.html" (in any directory). */
int tk_dashboard_index_path(const char *path);

#endif
