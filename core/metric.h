#ifndef TK_METRIC_H
#define TK_METRIC_H
/*
 * The figures of a run that checks, plots and dashboards compare. Lower is
 * better for every one of them.
 *
 *   walltime  the run's wall-clock time (s)
 *   cpu       user + system CPU time of the tree (s)
 *   maxrss    peak RSS of the largest process (bytes)
 *   tree_rss  peak of the RSS summed over the process tree (bytes)
 *   alloc     bytes allocated, the total of the run's stored "alloc"
 *             profile (core/profstore.h); not in a summary: read with
 *             tk_metric_alloc_totals
 *   slurm_maxrss  the largest MaxRSS of the job's SLURM steps, as SLURM
 *             accounting (sacct) reported it (bytes; core/sacct.h)
 *
 * Nothing here prints or allocates except tk_metric_alloc_totals' store
 * reads and the tk_buf formatters.
 */
#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/store.h"

enum tk_metric {
	TK_METRIC_WALLTIME,
	TK_METRIC_CPU,
	TK_METRIC_MAXRSS,
	TK_METRIC_TREE_RSS,
	TK_METRIC_ALLOC,
	TK_METRIC_SLURM_MAXRSS,
};

#define TK_METRIC_COUNT 6

/* The names, for messages: "walltime, cpu, maxrss, tree_rss, alloc or
 * slurm_maxrss". */
#define TK_METRIC_NAMES "walltime, cpu, maxrss, tree_rss, alloc or slurm_maxrss"

enum tk_metric_unit {
	TK_METRIC_SECONDS,
	TK_METRIC_BYTES,
};

/* 0 and *out set for a name of TK_METRIC_NAMES; -1 for any other. */
int tk_metric_parse(const char *name, enum tk_metric *out);
/* The name tk_metric_parse takes; "?" for a value out of range. */
const char *tk_metric_name(enum tk_metric m);
enum tk_metric_unit tk_metric_unit(enum tk_metric m);

/*
 * Parses a comma-separated list ("walltime,maxrss") into out (room for
 * TK_METRIC_COUNT), without duplicates, in the order written. Returns the
 * number of metrics, or TK_EUSAGE naming the unknown one and listing the
 * valid names.
 */
int tk_metric_parse_list(const char *list, enum tk_metric *out, struct tk_err *err);

/*
 * The metric's value in run s: 0 and *out set when s has it (a
 * non-negative figure), -1 when the run does not (unknown figures, and
 * always for TK_METRIC_ALLOC, which a summary does not carry).
 */
int tk_metric_value(const struct tk_run_summary *s, enum tk_metric m, double *out);

/* One value in the metric's human units: "1.25 s", "2m 03s", "121 MiB". */
void tk_metric_format(struct tk_buf *out, enum tk_metric m, double value);

/*
 * The alloc totals (bytes) of n stored runs: out[i] is the total of the
 * "alloc" profile of ids[i], or -1 when the run has none. One indexed
 * lookup per run that reads the stored total, never the profile itself
 * (TK_STORE_CTRL_PROFILE_TOTAL); a backend without that operation falls
 * back to loading each profile. Returns 0 or the store's error.
 */
int tk_metric_alloc_totals(struct tk_store *s, const char *const *ids, size_t n,
			   double *out, struct tk_err *err);

#endif
