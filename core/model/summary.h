#ifndef TK_SUMMARY_H
#define TK_SUMMARY_H
/*
 * The summary of a run: what lists of many runs read.
 */
#include <stdint.h>

#include "core/model/run.h"

/*
 * A run's summary: the fields history, plots and checks read, which a
 * backend keeps in columns of their own so that listing many runs does not
 * parse any record. Unknown numbers are -1 (as in struct tk_run), unknown
 * strings NULL. tk_run_summarize (core/model/runfield.h) fills one from a
 * whole run, so query_summaries and query_runs agree field by field (the
 * conformance test checks it on every backend). Each member is the place
 * of a field of core/model/runfield.h: a member added here is added there.
 *
 * Ownership: every string is borrowed. From tk_run_summarize it points
 * into the run; from query_summaries it belongs to the backend and is
 * valid only during the callback: copy what you keep.
 */
struct tk_run_summary {
	const char *run_id;
	const char *key;
	const char *branch;
	const char *commit;
	const char *build_number;
	int64_t started_at_us;
	double walltime_s;
	double user_s;
	double sys_s;
	int64_t maxrss_bytes;
	int64_t tree_rss_bytes;
	int64_t cgroup_peak_bytes;
	const char *maxrss_source;
	int64_t wrapper_rss_bytes;
	int64_t tree_samples;
	int exit_code;   /* -1 when it died by a signal */
	int term_signal; /* 0 when it exited */
	enum tk_run_status status;
	int partial;
	const char *provider;
	const char *pipeline;
	const char *build_url;
	const char *host;
	const char *tracker_version;
	int rank;               /* -1: not a rank of a --per-rank job */
	const char *rank_group; /* NULL when rank is -1 */
	int ntasks;             /* SLURM_NTASKS of the job, -1 unknown */
	const char *machine_class; /* NULL: unknown (matches any class) */
	/* the largest MaxRSS of the job's SLURM steps (run->slurm), -1 unknown */
	int64_t slurm_maxrss_bytes;
};

#endif
