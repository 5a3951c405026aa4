#ifndef TK_RANKS_H
#define TK_RANKS_H
/*
 * The ranks of a parallel job: `srun tracker run --per-rank` records one
 * run per rank (SLURM_PROCID) of a job step ("<job id>.<step id>", the
 * run's rank_group); history and flame put a job's ranks back together.
 *
 * Nothing here prints or exits. Errors are negative enum tk_code with
 * err filled: TK_EUSAGE for a task that is not a rank, TK_EDATA when the
 * store holds nothing to merge, the store's own codes otherwise.
 *
 * A job's ranks as one row (tracker history --ranks): runs are added one
 * by one as the store lists them; runs recorded with --per-rank gather in
 * one row per (key, rank_group), every other run is a row of its own.
 * tk_rank_rows_finish then computes each row's aggregates and sorts the
 * rows newest first (by the earliest start of their runs). A zeroed
 * struct tk_rank_rows is empty; tk_rank_rows_release frees every row and
 * leaves it empty. Memory only grows with the runs added.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/profile.h"
#include "core/model/run.h"
#include "core/store/store.h"

struct tk_rank_entry {
	char id[TK_RUN_ID_LEN + 1];
	int rank; /* -1: the run is not a rank */
	int64_t started_at_us;
	double walltime_s;
	int64_t maxrss_bytes, tree_rss_bytes;
	enum tk_run_status status;
	int exit_code, term_signal, partial;
};

struct tk_rank_row {
	char *key;
	char *group; /* NULL: a run that is not a rank */
	char *branch, *commit, *build_number;
	int ntasks;  /* SLURM_NTASKS of the job, -1 unknown */
	struct tk_rank_entry *e; /* after finish: by rank, one per rank */
	size_t nr, alloc;

	/* Filled by tk_rank_rows_finish. Values unknown for every rank are
	 * -1; a rank whose value is unknown is left out of max and sum. */
	int64_t started_at_us; /* the earliest start */
	double walltime_s;     /* the longest */
	int64_t maxrss_max, maxrss_sum;
	int64_t tree_rss_max, tree_rss_sum;
	size_t worst;          /* the entry with the worst ending */
	size_t not_ok;         /* entries that did not end ok */
	int partial;           /* some entry is partial */
};

struct tk_rank_rows {
	struct tk_rank_row *rows;
	size_t nr, alloc;
	uint32_t *slots; /* (key, group) -> row index + 1, open addressing */
	size_t mask, nr_grouped;
};

void tk_rank_rows_add(struct tk_rank_rows *j, const struct tk_run_summary *r);
void tk_rank_rows_finish(struct tk_rank_rows *j);
void tk_rank_rows_release(struct tk_rank_rows *j);

/*
 * How bad an ending is, for picking a job's worst rank: ok < cancelled
 * (srun stops the other ranks when one fails) < timeout < failed <
 * signaled (a crash) < error (could not start).
 */
int tk_run_status_severity(enum tk_run_status s);

/*
 * The sum of the kind profiles of every rank of one job: the job of run
 * run_id, or of the newest run of key (on branch, when given) recorded
 * with --per-rank that has such a profile. out must be initialised and
 * empty; it is finished on success. A rank recorded twice (a requeued
 * job) counts once, its newest run. label, when not NULL, gets
 * "<key> · job <group> · N ranks merged". TK_EDATA with a message saying
 * what was looked for when there is nothing to merge.
 */
int tk_ranks_load_profile(struct tk_store *s, const char *run_id, const char *key,
			  const char *branch, const char *kind, struct tk_profile *out,
			  struct tk_buf *label, struct tk_err *err);

#endif
