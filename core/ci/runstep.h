#ifndef TK_RUNSTEP_H
#define TK_RUNSTEP_H
/*
 * A job step wrapped by tracker run, from its record's making to its
 * final record: what tracker run does around the job, so that the
 * command only parses its options, says what went wrong and prints.
 *
 *	tk_runstep_init(&st, libdir, warn, note, data);  also starts the watchdog
 *	(the options go into st: st.jo.grace_s, st.profiler, st.bundle, ...)
 *	tk_runstep_begin(&st, key, argv, version, cfg);  the record
 *	tk_run_add_tags(&st.run, &tags, &err);           the command line's
 *	tk_runstep_context(&st, machine_class, cfg, &err);
 *	st.rec.dir = ...; st.rec.db = ...;
 *	if (tk_runstep_run(&st, argv, &jr, &exec_errno, &err))
 *		... exec_errno ? tk_runstep_finish_unstarted(&st, &jr, cancel) : give up
 *	else
 *		tk_runstep_finish(&st, &jr, cancel);
 *	tk_runstep_release(&st);
 *
 * The job's exit status is the caller's: nothing here fails a run once
 * the job has started. Problems that do not stop the job are warnings,
 * to warn(data, msg); what the user may like to know (why a run has no
 * SLURM accounting) goes to note(data, msg), unless st.quiet. Nothing
 * here prints or exits; errors are negative enum tk_code with err
 * filled. Not thread-safe: one per tracker run.
 */
#include <signal.h>

#include "core/base/err.h"
#include "core/model/config.h"
#include "core/model/run.h"
#include "core/measure/job.h"
#include "core/measure/profiler.h"
#include "core/measure/watchdog.h"
#include "core/store/bundle.h"
#include "core/store/recorder.h"

struct tk_runstep {
	/* the parts, which the caller's options set */
	struct tk_run run;
	struct tk_bundle bundle;     /* --profile-file: tk_bundle_add_file */
	struct tk_profiler profiler; /* --profile and its settings */
	struct tk_recorder rec;      /* the caller sets dir and db */
	struct tk_job_opts jo;       /* grace_s (default 5), orphan_wait_s (10) */
	double timeout_s;            /* <= 0: none; -1 (default): the key's config's */
	const char *profile_kind;    /* NULL: from each profile's unit */
	int quiet;                   /* no notes; the profiler and recorder say less */
	int per_rank;                /* one rank of an MPI job under srun */
	int sacct;                   /* ask sacct even with per_rank */
	int no_timeline;             /* keep no memory timeline (run.timeline) */
	void (*warn)(void *data, const char *msg);
	void (*note)(void *data, const char *msg);
	void *data;
	/* state */
	int no_record;               /* no run id: the job runs, nothing is recorded */
	int64_t oom_kills;           /* tk_jobcg_oom_kills before the job; -1 unknown */
	struct tk_watchdog wd;
};

/*
 * Sets st up with tracker run's defaults. The watchdog (core/measure/
 * watchdog.h) is started first thing, so that its forks overlap the rest
 * of the setup; when it cannot start the job runs without one. libdir is
 * where an install keeps the preload library (core/measure/profiler.h).
 */
void tk_runstep_init(struct tk_runstep *st, const char *libdir,
		     void (*warn)(void *data, const char *msg),
		     void (*note)(void *data, const char *msg), void *data);
void tk_runstep_release(struct tk_runstep *st);

/*
 * The record of the run: a fresh id (when none can be had: a warning,
 * and the job runs unrecorded), key, argv, the tracker version, and from
 * cfg the key's tags and, when st->timeout_s was not given, its timeout.
 */
void tk_runstep_begin(struct tk_runstep *st, const char *key, char *const *argv,
		      const char *version, const struct tk_config *cfg);

/*
 * Where the run happens: the CI context (an incomplete one is a
 * warning), the machine class (named, else tk_machine_class_for's), and
 * with st->per_rank the rank (tk_ranks_setup: TK_EUSAGE outside srun;
 * the run is then no rank, the rest is done), in a group named by
 * $SLURM_CLUSTER_NAME and the job's submit time (one squeue call). In a
 * batch script (tk_ranks_in_batch) per_rank is a warning and is cleared:
 * the run is a run of its own.
 */
int tk_runstep_context(struct tk_runstep *st, const char *machine_class,
		       const struct tk_config *cfg, struct tk_err *err);

/*
 * Runs the job argv: the profile files' paths made for the run's rank
 * ("batch" for %r in a batch script, with one warning),
 * the recorder (unless no_record) and the profiler hooked to the job,
 * then tk_job_run. Returns 0 when the job ran, with jr filled; else
 * tk_job_run's error, *exec_errno nonzero when the job could not be
 * started (jr then holds a shell's 126 or 127).
 */
int tk_runstep_run(struct tk_runstep *st, char *const *argv, struct tk_job_result *jr,
		   int *exec_errno, struct tk_err *err);

/*
 * After the job: its measurements into the run (status oom when the job
 * was KILLed as the OOM killer's count of our memory cgroup rose), the
 * profiler's profiles, the SLURM accounting (in an allocation unless
 * per_rank, or with st->sacct: the srun steps the run launched, whose
 * OUT_OF_MEMORY, TIMEOUT or CANCELLED become the status of a failed job;
 * a cancelled run in a job that squeue says is ending for its time limit
 * is timeout), the profile files, the final record (file and store;
 * tk_recorder_finish), and then, in a SLURM job, the key's earlier runs
 * SLURM killed with their tracker (core/ci/settle.h; not by ranks > 0).
 * cancel is the caller's cancel flag, set when a TERM arrives meanwhile:
 * the wait for the store then ends, and nothing is settled.
 */
void tk_runstep_finish(struct tk_runstep *st, const struct tk_job_result *jr,
		       const volatile sig_atomic_t *cancel);

/* The job could not start: recorded too, with status error. */
void tk_runstep_finish_unstarted(struct tk_runstep *st, const struct tk_job_result *jr,
				 const volatile sig_atomic_t *cancel);

#endif
