#ifndef CMD_RANKS_H
#define CMD_RANKS_H
/*
 * A job's ranks as one row (tracker history --ranks): runs are added one
 * by one as the store lists them; runs recorded with --per-rank gather in
 * one row per (key, rank_group), every other run is a row of its own.
 * cmd_job_rows_finish then computes each row's aggregates and sorts the
 * rows newest first (by the earliest start of their runs).
 */
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/run.h"
#include "core/store.h"

struct cmd_rank_entry {
	char id[TK_RUN_ID_LEN + 1];
	int rank; /* -1: the run is not a rank */
	int64_t started_at_us;
	double walltime_s;
	int64_t maxrss_bytes, tree_rss_bytes;
	enum tk_run_status status;
	int exit_code, term_signal, partial;
};

struct cmd_job_row {
	char *key;
	char *group; /* NULL: a run that is not a rank */
	char *branch, *commit, *build_number;
	int ntasks;  /* SLURM_NTASKS of the job, -1 unknown */
	struct cmd_rank_entry *e; /* after finish: by rank, one per rank */
	size_t nr, alloc;

	/* Filled by cmd_job_rows_finish. Values unknown for every rank are
	 * -1; a rank whose value is unknown is left out of max and sum. */
	int64_t started_at_us; /* the earliest start */
	double walltime_s;     /* the longest */
	int64_t maxrss_max, maxrss_sum;
	int64_t tree_rss_max, tree_rss_sum;
	size_t worst;          /* the entry with the worst ending */
	size_t not_ok;         /* entries that did not end ok */
	int partial;           /* some entry is partial */
};

struct cmd_job_rows {
	struct cmd_job_row *rows;
	size_t nr, alloc;
	uint32_t *slots; /* (key, group) -> row index + 1, open addressing */
	size_t mask, nr_grouped;
};

void cmd_job_rows_add(struct cmd_job_rows *j, const struct tk_run_summary *r);
void cmd_job_rows_finish(struct cmd_job_rows *j);
void cmd_job_rows_release(struct cmd_job_rows *j);

/*
 * How bad an ending is, for picking a job's worst rank: ok < cancelled
 * (srun stops the other ranks when one fails) < timeout < failed <
 * signaled (a crash) < error (could not start).
 */
int cmd_status_severity(enum tk_run_status s);

/*
 * The rank of this task: run->rank under --per-rank, else $SLURM_PROCID
 * when it is a rank (a number from 0), else -1.
 */
int cmd_task_rank(const struct tk_run *run);

/*
 * Expands --profile-file's placeholders in tmpl into out (reset first):
 * "%r" is rank, "%%" a literal %, any other % stays as it is (paths
 * written before placeholders existed keep their meaning). A %r with
 * rank < 0 is TK_EUSAGE, naming tmpl.
 */
int cmd_rank_path(const char *tmpl, int rank, struct tk_buf *out, struct tk_err *err);

#endif
