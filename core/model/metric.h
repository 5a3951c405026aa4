#ifndef TK_METRIC_H
#define TK_METRIC_H
/*
 * The vocabulary of checks: the figures of a run that checks, plots and
 * dashboards compare, and the methods that judge them (core/analyze/
 * verdict.h does the judging). Lower is better for every figure.
 *
 *   walltime  the run's wall-clock time (s)
 *   cpu       user + system CPU time of the tree (s)
 *   maxrss    peak RSS of the largest process (bytes)
 *   tree_rss  peak of the RSS summed over the process tree (bytes)
 *   slurm_maxrss  the largest MaxRSS of the job's SLURM steps, as SLURM
 *             accounting (sacct) reported it (bytes; core/model/slurm.h)
 *
 * and, for each kind of profile a run may carry, its total (not in a
 * summary: read with tk_profstore_totals, core/store/profstore.h):
 *
 *   alloc        bytes allocated (the "alloc" profile)
 *   alloc_count  allocations made (the "alloc_count" profile)
 *   heap_peak    the peak of live heap (the "heap_peak" profile)
 *   cpu_profile  the CPU the "cpu" profile saw: seconds of a profile in
 *                nanoseconds (the built-in profiler's), samples of one in
 *                samples (tk_metric_profile_value)
 *
 * Nothing here prints or allocates except the tk_buf formatters.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/summary.h"

enum tk_metric {
	TK_METRIC_WALLTIME,
	TK_METRIC_CPU,
	TK_METRIC_MAXRSS,
	TK_METRIC_TREE_RSS,
	TK_METRIC_ALLOC,
	TK_METRIC_SLURM_MAXRSS,
	TK_METRIC_ALLOC_COUNT,
	TK_METRIC_HEAP_PEAK,
	TK_METRIC_CPU_PROFILE,
};

#define TK_METRIC_COUNT 9

/* The names, for messages. */
#define TK_METRIC_NAMES "walltime, cpu, maxrss, tree_rss, alloc, slurm_maxrss, " \
	"alloc_count, heap_peak or cpu_profile"

enum tk_metric_unit {
	TK_METRIC_SECONDS,
	TK_METRIC_BYTES,
	TK_METRIC_COUNT_UNIT, /* a number of things: allocations, samples */
};

/* 0 and *out set for a name of TK_METRIC_NAMES; -1 for any other. */
int tk_metric_parse(const char *name, enum tk_metric *out);
/* The name tk_metric_parse takes; "?" for a value out of range. */
const char *tk_metric_name(enum tk_metric m);
/* The metric's unit; a cpu_profile's depends on its profile's
 * (tk_metric_profile_value): seconds here. */
enum tk_metric_unit tk_metric_unit(enum tk_metric m);

/* The kind of profile whose total m is ("alloc", "cpu", ...), or NULL for
 * a figure of the run itself. */
const char *tk_metric_profile_kind(enum tk_metric m);
/*
 * A stored profile's total (core/store/profstore.h: its total and unit
 * name) as the value of metric m, with the unit it is in: bytes and
 * counts as they are, nanoseconds as seconds; a profile whose format
 * names no unit ("samples", "count": folded stacks imported with --kind
 * alloc) in the metric's. -1 when the unit contradicts the metric (a cpu
 * profile in bytes, an alloc profile in nanoseconds, a count in bytes).
 */
double tk_metric_profile_value(enum tk_metric m, double total, const char *unit,
			       enum tk_metric_unit *out_unit);

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
 * always for a profile's total, which a summary does not carry).
 */
int tk_metric_value(const struct tk_run_summary *s, enum tk_metric m, double *out);

/* One value in the metric's human units: "1.25 s", "2m 03s", "121 MiB",
 * "5,612". */
void tk_metric_format(struct tk_buf *out, enum tk_metric m, double value);
/* The same in a unit given (a cpu_profile's). */
void tk_metric_format_unit(struct tk_buf *out, enum tk_metric_unit unit, double value);

/* The methods that judge a metric, as rules and options name them
 * (core/analyze/verdict.h says what each does). */
enum tk_verdict_method {
	TK_VERDICT_INTERVAL,
	TK_VERDICT_PERCENT,
	TK_VERDICT_ZSCORE,
	TK_VERDICT_MANNWHITNEY,
};

/* "interval", "percent", "zscore", "mannwhitney" */
const char *tk_verdict_method_name(enum tk_verdict_method m);
/* 0 and *out set for a name above; -1 otherwise. */
int tk_verdict_method_parse(const char *name, enum tk_verdict_method *out);

#endif
