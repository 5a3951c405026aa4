#ifndef TK_SLURM_H
#define TK_SLURM_H
/*
 * SLURM accounting of the job a run belongs to: what sacct says about
 * each of the job's steps (MaxRSS, AveRSS, TRESUsageInTot/Max, Elapsed),
 * kept beside tracker's own figures. A run launched with
 * `tracker run -- srun ./model` sees only srun's own memory; the srun
 * step's MaxRSS is the model's.
 *
 * tk_sacct_parse reads the output of
 *
 *   sacct -j JOB -P -n --noconvert --format=TK_SACCT_FORMAT
 *
 * (-P: fields separated by '|', no trailing '|'; -n: no header). It takes
 * untrusted text: lines are capped (TK_SACCT_LINE_MAX), steps too
 * (TK_SACCT_STEPS_MAX); a line that is not eleven fields of the expected
 * shapes is an error naming its line, TK_EDATA. A job name may hold '|':
 * the name is what lies between the first field and the last nine.
 * Start and End are local times as sacct prints them
 * ("2026-11-27T11:05:01"; "Unknown" or "None" while there is none).
 * Sizes are bytes (--noconvert of Slurm >= 18.08 prints plain bytes);
 * a K/M/G/T/P suffix (older Slurm, or output without --noconvert) is a
 * binary multiple.
 *
 * Ownership: every string in the structs is heap-owned; tk_sacct_release
 * frees them and leaves the struct as tk_sacct_init does.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"

#define TK_SACCT_FORMAT \
	"JobID,JobName,MaxRSS,AveRSS,TRESUsageInTot,TRESUsageInMax,Elapsed,State,ExitCode," \
	"Start,End"
#define TK_SACCT_NFIELDS 11
#define TK_SACCT_LINE_MAX 65536
#define TK_SACCT_STEPS_MAX 4096

/* What a row of sacct is, from the part of its JobID after the first '.'. */
enum tk_sacct_kind {
	TK_SACCT_JOB,         /* "812": the allocation as a whole */
	TK_SACCT_BATCH,       /* "812.batch": the batch script */
	TK_SACCT_EXTERN,      /* "812.extern": processes adopted by the node (ssh) */
	TK_SACCT_INTERACTIVE, /* "812.interactive": salloc's shell */
	TK_SACCT_STEP,        /* "812.0": an srun step */
	TK_SACCT_OTHER,       /* any other step name */
};

const char *tk_sacct_kind_name(enum tk_sacct_kind k);
int tk_sacct_kind_parse(const char *name, enum tk_sacct_kind *out);

struct tk_sacct_step {
	char *job_id;      /* as sacct prints it: "812", "812.batch", "812.0" */
	char *name;        /* JobName; NULL when empty */
	enum tk_sacct_kind kind;
	char *state;       /* "COMPLETED", "RUNNING", "CANCELLED by 0", ...; NULL */
	char *exit_code;   /* "0:0" (code:signal); NULL */
	double elapsed_s;  /* -1 unknown */
	int64_t maxrss_bytes; /* -1 unknown */
	int64_t averss_bytes; /* -1 unknown */
	char *tres_in_tot; /* TRESUsageInTot as printed ("cpu=00:00:02,mem=..."); NULL */
	char *tres_in_max; /* TRESUsageInMax; NULL */
	int64_t start_s;   /* Start, seconds since the epoch; -1 unknown */
	int64_t end_s;     /* End; -1 unknown (still running) */
};

struct tk_sacct {
	struct tk_sacct_step *steps;
	size_t nr, alloc;
	/*
	 * The largest MaxRSS of a step that ran code of the job: batch, srun
	 * steps, interactive and others; not the job's own row nor .extern
	 * (which holds only what the node adopted). -1 and NULL when none
	 * has a MaxRSS. Set by tk_sacct_parse and tk_sacct_finish.
	 */
	int64_t maxrss_bytes;
	char *maxrss_step; /* that step's job_id */
	/*
	 * 1 when maxrss_bytes cannot be trusted as the peak, only as a lower
	 * bound: SLURM samples MaxRSS every JobAcctGatherFrequency seconds
	 * (default 30) and takes no sample at the end, so a step shorter than
	 * that, or one whose MaxRSS is below what tracker measured itself,
	 * was under-sampled (tk_sacct_judge).
	 */
	int maxrss_lower_bound;
};

void tk_sacct_init(struct tk_sacct *s);
void tk_sacct_release(struct tk_sacct *s);
/* Appends a step (copies the strings; NULL or "" stay NULL). */
void tk_sacct_add(struct tk_sacct *s, const struct tk_sacct_step *step);
/* Recomputes maxrss_bytes and maxrss_step from the steps. */
void tk_sacct_finish(struct tk_sacct *s);

/* Replaces *out (released first) with what text says; name is used in
 * messages ("cannot parse sacct output line 3: ..."). */
int tk_sacct_parse(const char *text, size_t len, const char *name, struct tk_sacct *out,
		   struct tk_err *err);

/*
 * Keeps the steps this run launched and drops the rest: the srun steps
 * (kind step) that started within [from_s, to_s] (seconds since the
 * epoch, the run's start rounded down and its end rounded up), other
 * than own_step (the step tracker itself runs in, "" or NULL for none).
 * The job's row, .batch, .extern and the allocation's other steps never
 * count. Then tk_sacct_finish.
 */
void tk_sacct_keep_own(struct tk_sacct *s, int64_t from_s, int64_t to_s, const char *own_step);

/*
 * Sets s->maxrss_lower_bound: SLURM's largest MaxRSS is below
 * tracker_rss (the largest RSS tracker measured itself, -1 unknown), or
 * that step ran for less than sample_s seconds (SLURM's sampling
 * interval; <= 0 unknown: 30 s, SLURM's default, is assumed).
 */
void tk_sacct_judge(struct tk_sacct *s, int64_t tracker_rss, double sample_s);

/*
 * What the run's own steps say of how they ended, the worst first:
 * "OUT_OF_MEMORY", "TIMEOUT" or "CANCELLED" when a step ended so, else
 * NULL.
 */
const char *tk_sacct_worst_state(const struct tk_sacct *s);

/* "2026-11-27T11:05:01" (local time) -> seconds; "Unknown", "None", "" -> -1.
 * Returns 0 or -1. */
int tk_sacct_parse_time(const char *s, size_t len, int64_t *out);

/* "5678" -> 5678, "1180K" -> 1208320, "1.50M"; "" -> -1. Returns 0 or -1. */
int tk_sacct_parse_size(const char *s, size_t len, int64_t *out);
/* "[D-][HH:]MM:SS[.frac]" -> seconds; "" -> -1. Returns 0 or -1. */
int tk_sacct_parse_elapsed(const char *s, size_t len, double *out);
/*
 * The value of one TRES in a TRES string ("cpu=00:00:02,mem=1180K"):
 * appends it to value and returns 1, or returns 0 when absent.
 */
int tk_sacct_tres_get(const char *tres, const char *name, struct tk_buf *value);

/*
 * 1 when the accounting looks complete for a run that just ended: some
 * rows, and every srun step that started within [from_s, to_s] (the
 * run's own, as tk_sacct_keep_own picks them; other than own_step) has
 * left RUNNING/PENDING/COMPLETING and has a MaxRSS. Steps the run did
 * not launch (a background step of the script) are never waited for;
 * the batch step is still running while tracker is in it.
 */
int tk_sacct_settled(const struct tk_sacct *s, int64_t from_s, int64_t to_s,
		      const char *own_step);

#endif
