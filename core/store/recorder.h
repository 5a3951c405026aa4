#ifndef TK_RECORDER_H
#define TK_RECORDER_H
/*
 * Recording one run of `tracker run` so that no run is lost, whatever
 * ends tracker, and the job is never kept waiting:
 *
 *   tk_recorder_started   as the job starts: the record file, status
 *                         "started" (partial), written without fsync,
 *                         and a background thread that opens the store
 *                         and stores that row while the job runs;
 *   tk_recorder_partial   on the first TERM/INT/HUP: the partial record
 *                         (status cancelled) to the file, and to the
 *                         store through the same thread;
 *   tk_recorder_finish    after the job (or when it could not start):
 *                         the final record file (fsync, rename) and the
 *                         run and its profiles in the store. The store
 *                         replaces the started or partial row (put_run).
 *
 * So a tracker killed by SIGKILL (SLURM's timeout, the OOM killer)
 * leaves the started record, file and row; one stopped by TERM leaves
 * the partial one; and the final record replaces either.
 *
 * The caller's cancel flag (core/base/cancel.h), set by its TERM handler,
 * ends finish's wait for the store at once: the record stays in its file
 * (to be pushed later) and finish returns. The background thread's waits
 * end when finish starts: the final record supersedes what it was doing.
 *
 * Warnings go to warn(warn_data, msg). Nothing here changes the job's
 * exit status; every failure is a warning. Not thread-safe itself: one
 * recorder per tracker run, called from one thread.
 */
#include <pthread.h>
#include <signal.h>

#include "core/base/buf.h"
#include "core/store/bundle.h"
#include "core/measure/job.h"
#include "core/model/run.h"
#include "core/store/store.h"

struct tk_recorder_bg; /* the background store thread */

struct tk_recorder {
	/* set by the caller before tk_recorder_started */
	const char *dir;                     /* artifacts directory */
	const char *db;                      /* database URL */
	const volatile sig_atomic_t *cancel; /* the caller's cancel flag */
	void (*warn)(void *data, const char *msg);
	void *warn_data;
	int quiet;                           /* no word of the partial record */
	/* the record file last written; empty when none */
	struct tk_buf record_path;
	struct tk_recorder_bg *bg;
	struct tk_run *run; /* tk_recorder_hook's */
};

/* Copies the measurements into run and sets its status from how the job
 * ended: timeout, cancelled, signaled, failed or ok, in that order. */
void tk_job_result_to_run(const struct tk_job_result *r, struct tk_run *run);

void tk_recorder_init(struct tk_recorder *rec);
void tk_recorder_release(struct tk_recorder *rec);

/*
 * Sets jo's on_start and on_cancel (and jo->data) so that the recorder
 * follows the job: tk_recorder_started when it has started,
 * tk_recorder_partial on the first cancel signal, with run (borrowed,
 * kept by the caller) filled from the measurements so far.
 */
void tk_recorder_hook(struct tk_recorder *rec, struct tk_run *run, struct tk_job_opts *jo);

/* The job started: run (status and partial set by the caller) to the
 * file, and to the store in the background. */
void tk_recorder_started(struct tk_recorder *rec, const struct tk_run *run);

/* The job is being stopped: run (partial) to the file and, in the
 * background, to the store. */
void tk_recorder_partial(struct tk_recorder *rec, const struct tk_run *run);

/*
 * The job ended: stops the background thread, writes run to the file and
 * stores it with b's profiles. Returns 0 when the run is in the store,
 * else the store's error code (warned; the record file names the push
 * command that stores it later).
 */
int tk_recorder_finish(struct tk_recorder *rec, struct tk_bundle *b, const struct tk_run *run);

#endif
