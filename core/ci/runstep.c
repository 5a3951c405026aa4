/*
 * A job step wrapped by tracker run (core/ci/runstep.h). The order of the
 * steps is the order in which users read their warnings: each part warns
 * as it goes.
 */
#include <stdarg.h>
#include <string.h>

#include "core/ci/runstep.h"
#include "core/base/buf.h"
#include "core/base/env.h"
#include "core/ci/ci.h"
#include "core/ci/sacct.h"
#include "core/ci/settle.h"
#include "core/model/machine.h"
#include "core/model/rank.h"
#include "core/measure/jobcg.h"
#include "core/measure/rawprof.h"
#include "core/base/banned.h"

static void say(void (*fn)(void *, const char *), void *data, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(void (*fn)(void *, const char *), void *data, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	fn(data, msg.buf);
	tk_buf_release(&msg);
}

void tk_runstep_init(struct tk_runstep *st, const char *libdir,
		     void (*warn)(void *data, const char *msg),
		     void (*note)(void *data, const char *msg), void *data)
{
	struct tk_err err = TK_ERR_INIT;

	memset(st, 0, sizeof(*st));
	st->jo.watchdog = tk_watchdog_start(&st->wd, &err) ? NULL : &st->wd;
	st->warn = warn;
	st->note = note;
	st->data = data;
	tk_profiler_init(&st->profiler);
	st->profiler.warn = warn;
	st->profiler.warn_data = data;
	st->profiler.libdir = libdir;
	st->bundle.warn = warn;
	st->bundle.warn_data = data;
	tk_run_init(&st->run);
	tk_recorder_init(&st->rec);
	st->rec.warn = warn;
	st->rec.warn_data = data;
	st->jo.grace_s = 5;
	st->jo.orphan_wait_s = 10;
	st->timeout_s = -1;
	st->oom_kills = -1;
}

void tk_runstep_release(struct tk_runstep *st)
{
	if (st->jo.watchdog)
		tk_watchdog_done(&st->wd);
	tk_bundle_release(&st->bundle);
	tk_profiler_release(&st->profiler);
	tk_run_release(&st->run);
	tk_recorder_release(&st->rec);
}

void tk_runstep_begin(struct tk_runstep *st, const char *key, char *const *argv,
		      const char *version, const struct tk_config *cfg)
{
	const struct tk_key_config *kc;
	struct tk_err err = TK_ERR_INIT;

	if (tk_uuid_v4(st->run.id, &err)) {
		say(st->warn, st->data, "%s; the job runs, but is not recorded", err.msg);
		st->no_record = 1;
	}
	st->run.key = tk_xstrdup(key);
	st->run.tracker_version = tk_xstrdup(version);
	tk_run_set_argv(&st->run, argv);
	kc = tk_config_key(cfg, key);
	if (kc) {
		tk_kvlist_merge(&st->run.tags, &kc->tags);
		if (st->timeout_s < 0 && kc->timeout_s > 0)
			st->timeout_s = kc->timeout_s;
	}
}

/* --per-rank: the rank, in a group named by cluster, job, step and submit time */
static int rank_setup(struct tk_runstep *st, struct tk_err *err)
{
	struct tk_buf submit = TK_BUF_INIT;
	const char *job = st->run.ci.slurm_job_id;
	int ret;

	if (job && *job && tk_ranks_in_batch(&tk_env_process)) {
		say(st->warn, st->data, "--per-rank in a batch script (no srun task: SLURM sets "
		    "SLURM_PROCID=0 but no SLURM_STEP_ID there): recorded as a run of its own, "
		    "not a rank; use srun tracker run --per-rank -- CMD");
		st->per_rank = 0;
		return 0;
	}
	if (job && *job)
		tk_slurm_submit_time(job, &submit);
	ret = tk_ranks_setup(&st->run, tk_env_get(&tk_env_process, "SLURM_CLUSTER_NAME"),
			     submit.buf, err);
	tk_buf_release(&submit);
	return ret;
}

int tk_runstep_context(struct tk_runstep *st, const char *machine_class,
		       const struct tk_config *cfg, struct tk_err *err)
{
	struct tk_err cerr = TK_ERR_INIT;

	if (tk_ci_collect(&tk_env_process, &st->run.ci, &cerr))
		say(st->warn, st->data, "incomplete CI context: %s", cerr.msg);
	st->run.machine_class = tk_machine_class_for(machine_class, cfg, st->run.key,
						     &st->run.ci);
	return st->per_rank ? rank_setup(st, err) : 0;
}

/* %r in a batch script is "batch": said once, whatever the number of paths */
static void warn_batch_rank(struct tk_runstep *st)
{
	struct tk_buf out = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	size_t i;

	for (i = 0; i < st->bundle.nr; i++) {
		const struct tk_bundle_profile *pf = &st->bundle.profiles[i];

		if (pf->builtin || !tk_ranks_path(pf->path, -1, &out, &err))
			continue;
		say(st->warn, st->data, "--profile-file '%s': %%r in a batch script (no srun "
		    "task) is 'batch': SLURM sets SLURM_PROCID=0 there, which is no rank", pf->path);
		break;
	}
	tk_buf_release(&out);
}

int tk_runstep_run(struct tk_runstep *st, char *const *argv, struct tk_job_result *jr,
		   int *exec_errno, struct tk_err *err)
{
	int rank = tk_ranks_task_rank(&st->run);

	if (rank == TK_RANK_BATCH)
		warn_batch_rank(st);
	tk_bundle_expand_paths(&st->bundle, rank);
	st->oom_kills = tk_jobcg_oom_kills();
	st->jo.argv = argv;
	st->jo.timeout_s = st->timeout_s > 0 ? st->timeout_s : 0;
	st->jo.timeline = st->no_timeline ? NULL : &st->run.timeline;
	st->rec.quiet = st->quiet;
	if (!st->no_record)
		tk_recorder_hook(&st->rec, &st->run, &st->jo);
	st->profiler.quiet = st->quiet;
	tk_profiler_start(&st->profiler, argv);
	tk_profiler_hook(&st->profiler, &st->jo);
	return tk_job_run(&st->jo, jr, exec_errno, err);
}

void tk_runstep_finish_unstarted(struct tk_runstep *st, const struct tk_job_result *jr,
				 const volatile sig_atomic_t *cancel)
{
	st->rec.cancel = cancel;
	tk_job_result_to_run(jr, &st->run);
	st->run.status = TK_RUN_ERROR;
	if (!st->no_record)
		tk_recorder_finish(&st->rec, NULL, &st->run);
}

/*
 * A job that failed because SLURM ended one of the run's own steps (srun
 * exits non-zero) ended the way the step's State says. What tracker knows
 * better (its own --timeout, an OOM kill it saw) stands.
 */
static void status_from_slurm(struct tk_run *run)
{
	const char *worst = tk_sacct_worst_state(&run->slurm);

	if (!worst || (run->status != TK_RUN_FAILED && run->status != TK_RUN_SIGNALED &&
		       run->status != TK_RUN_CANCELLED))
		return;
	if (!strcmp(worst, "OUT_OF_MEMORY"))
		run->status = TK_RUN_OOM;
	else if (!strcmp(worst, "TIMEOUT"))
		run->status = TK_RUN_TIMEOUT;
	else
		run->status = TK_RUN_CANCELLED;
}

/*
 * Runs of the key that SLURM killed together with tracker (scancel or the
 * time limit in a batch script) are finished now, from sacct; one rank of
 * a job does it for all.
 */
static void settle_earlier(struct tk_runstep *st, const volatile sig_atomic_t *cancel)
{
	struct tk_settle o;
	struct tk_err err = TK_ERR_INIT;
	int n;

	if (!st->run.ci.slurm_job_id || !st->rec.db || (cancel && *cancel) ||
	    (st->run.rank > 0))
		return;
	memset(&o, 0, sizeof(o));
	o.db = st->rec.db;
	o.key = st->run.key;
	o.this_job = st->run.ci.slurm_job_id;
	o.wait_s = 5;
	n = tk_settle_slurm_runs(&o, &err);
	if (n < 0 && !st->quiet)
		say(st->note, st->data, "earlier runs of '%s' left started were not settled: %s",
		    st->run.key, err.msg);
	else if (n > 0 && !st->quiet)
		say(st->note, st->data, "%d earlier run(s) of '%s' that SLURM ended with tracker "
		    "are now recorded as SLURM ended them", n, st->run.key);
}

void tk_runstep_finish(struct tk_runstep *st, const struct tk_job_result *jr,
		       const volatile sig_atomic_t *cancel)
{
	struct tk_buf why = TK_BUF_INIT;

	st->rec.cancel = cancel;
	tk_job_result_to_run(jr, &st->run);
	st->run.partial = 0;
	/* a KILL with an OOM kill more in our memory cgroup was the OOM killer's */
	if (st->run.status == TK_RUN_SIGNALED && st->run.term_signal == SIGKILL &&
	    st->oom_kills >= 0 && tk_jobcg_oom_kills() > st->oom_kills)
		st->run.status = TK_RUN_OOM;
	tk_profiler_finish(&st->profiler);
	if (st->no_record) {
		tk_buf_release(&why);
		return;
	}
	if (st->sacct || !st->per_rank)
		tk_sacct_for_run(&st->run, st->sacct, &tk_env_process, &why);
	if (why.len && !st->quiet)
		say(st->note, st->data, "%s", why.buf);
	status_from_slurm(&st->run);
	/*
	 * SLURM's time limit TERMs the steps as scancel does (under exec
	 * tracker run -- srun, srun's step first: tracker sees srun die);
	 * squeue's reason TimeLimit, while the job completes, tells them apart.
	 */
	if (st->run.status == TK_RUN_CANCELLED && st->run.ci.slurm_job_id &&
	    tk_slurm_timed_out(st->run.ci.slurm_job_id))
		st->run.status = TK_RUN_TIMEOUT;
	tk_bundle_take(&st->bundle, st->profiler.profiles, st->profiler.have, TK_RAW_NVALUES);
	tk_bundle_import(&st->bundle, &st->run, st->rec.dir, st->profile_kind,
			 st->profiler.no_demangle);
	tk_recorder_finish(&st->rec, &st->bundle, &st->run);
	settle_earlier(st, cancel);
	tk_buf_release(&why);
}
