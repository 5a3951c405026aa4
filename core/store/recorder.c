/*
 * Recording a run from its start to its end (core/store/recorder.h).
 *
 * The started and partial rows are stored by a thread so that a slow or
 * locked database never delays the job's start nor the forwarding of a
 * signal: the main thread supervises the job. The thread gets each
 * record as JSON (the run itself keeps changing in the main thread) and
 * stores only the newest one it has not stored yet.
 */
#include "core/store/recorder.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/cancel.h"
#include "core/base/fsutil.h"
#include "core/model/record.h"
#include "core/base/banned.h"

struct tk_recorder_bg {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *pending;   /* the newest record to store (JSON), NULL */
	int quit;
	int done;        /* the thread has returned */
	volatile sig_atomic_t stop; /* its waits end: the final record supersedes */
	const char *db;
	struct tk_store *store;     /* opened by the thread; NULL on failure */
	int opened;                 /* its opening has ended, well or not */
	int open_ret;               /* how: 0, or the error, in open_err */
	struct tk_err open_err;
};

static void __attribute__((format(printf, 2, 3)))
warn(const struct tk_recorder *rec, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	if (!rec->warn)
		return;
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	rec->warn(rec->warn_data, msg.buf);
	tk_buf_release(&msg);
}

void tk_recorder_init(struct tk_recorder *rec)
{
	memset(rec, 0, sizeof(*rec));
	tk_buf_init(&rec->record_path, 0);
}

static int write_file(struct tk_recorder *rec, const struct tk_run *run, unsigned flags)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf json = TK_BUF_INIT, path = TK_BUF_INIT;
	int ret = tk_run_to_json(run, &json, &err);

	if (!ret)
		ret = tk_mkdir_p(rec->dir, &err);
	if (!ret) {
		tk_buf_addf(&path, "%s/", rec->dir);
		tk_run_record_name(run, &path);
		tk_buf_adds(&path, ".json");
		ret = tk_write_file_atomic_flags(path.buf, json.buf, json.len, flags, &err);
	}
	tk_buf_reset(&rec->record_path);
	/* the started record's trouble is the final one's too: said once */
	if (ret && !(flags & TK_WRITE_NO_FSYNC))
		warn(rec, "cannot write the run record: %s", err.msg);
	else
		tk_buf_add(&rec->record_path, path.buf, path.len);
	tk_buf_release(&json);
	tk_buf_release(&path);
	return ret;
}

static void *bg_main(void *data)
{
	struct tk_recorder_bg *bg = data;
	struct tk_store_opts o = { 0, &bg->stop, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;

	/* Signals are the main thread's (it forwards them to the job): the
	 * thread was created with all of them blocked. */
	int ret = tk_store_open_opts(bg->db, &o, &s, &err);

	if (ret)
		s = NULL;
	pthread_mutex_lock(&bg->mu);
	bg->store = s;
	bg->opened = 1;
	bg->open_ret = ret;
	bg->open_err = err;
	pthread_cond_broadcast(&bg->cv);
	for (;;) {
		char *json;

		while (!bg->pending && !bg->quit)
			pthread_cond_wait(&bg->cv, &bg->mu);
		json = bg->pending;
		bg->pending = NULL;
		if (!json)
			break;
		pthread_mutex_unlock(&bg->mu);
		if (s && !bg->stop) {
			struct tk_run run;

			tk_run_init(&run);
			/* errors are finish's to report: the final record follows */
			if (!tk_run_from_json(json, strlen(json), "record", &run, &err))
				tk_store_put_run(s, &run, NULL, &err);
			tk_run_release(&run);
		}
		free(json);
		pthread_mutex_lock(&bg->mu);
	}
	bg->done = 1;
	pthread_cond_broadcast(&bg->cv);
	pthread_mutex_unlock(&bg->mu);
	return NULL;
}

/* Hands run to the thread, starting it the first time. */
static void bg_submit(struct tk_recorder *rec, const struct tk_run *run)
{
	struct tk_recorder_bg *bg = rec->bg;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf json = TK_BUF_INIT;

	if (!rec->db || tk_run_to_json(run, &json, &err)) {
		tk_buf_release(&json);
		return;
	}
	if (!bg) {
		sigset_t all, old;
		int failed;

		bg = tk_xcalloc(1, sizeof(*bg));
		pthread_mutex_init(&bg->mu, NULL);
		pthread_cond_init(&bg->cv, NULL);
		bg->db = rec->db;
		bg->pending = tk_buf_detach(&json, NULL);
		/* the thread starts with every signal blocked: they are ours */
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &old);
		failed = pthread_create(&bg->thread, NULL, bg_main, bg);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (failed) {
			free(bg->pending);
			free(bg);
			return; /* finish stores the run */
		}
		rec->bg = bg;
		return;
	}
	pthread_mutex_lock(&bg->mu);
	free(bg->pending);
	bg->pending = tk_buf_detach(&json, NULL);
	pthread_cond_signal(&bg->cv);
	pthread_mutex_unlock(&bg->mu);
}

/*
 * Ends the thread and takes its store. Its opening of the store is the
 * run's: while it lasts (connecting, retrying an outage for as long as a
 * writer does, migrating), it goes on, and the connection it makes is
 * then the final record's too, one per run (a short job used to abandon
 * the thread's connection halfway and open a second one). When that
 * opening failed, *ret and err say why and NULL is returned; the caller
 * does not try again. Storing the started record may finish for up to
 * HANDOVER_MS (a few ms on a healthy server; a held lock would make the
 * final record wait twice). The caller's cancel flag, once set, ends the
 * thread's waits at once, as does wait 0 (nothing to store); the join
 * itself returns within a few ms.
 */
#define HANDOVER_MS 1000

static struct tk_store *bg_stop(struct tk_recorder *rec, int wait, int *ret, struct tk_err *err)
{
	struct tk_recorder_bg *bg = rec->bg;
	struct tk_store *s;
	int waited = 0;

	*ret = 0;
	if (!bg)
		return NULL;
	pthread_mutex_lock(&bg->mu);
	bg->quit = 1;
	free(bg->pending);
	bg->pending = NULL;
	pthread_cond_broadcast(&bg->cv);
	/* in 20 ms steps, to notice the cancel flag */
	while (wait && !bg->done && !tk_cancelled(rec->cancel) &&
	       (!bg->opened || waited < HANDOVER_MS)) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 20 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&bg->cv, &bg->mu, &until);
		if (bg->opened)
			waited += 20;
	}
	pthread_mutex_unlock(&bg->mu);
	bg->stop = 1;
	pthread_join(bg->thread, NULL);
	s = bg->store;
	if (bg->opened && bg->open_ret) {
		*ret = bg->open_ret;
		*err = bg->open_err;
	}
	pthread_mutex_destroy(&bg->mu);
	pthread_cond_destroy(&bg->cv);
	free(bg);
	rec->bg = NULL;
	return s;
}

void tk_recorder_started(struct tk_recorder *rec, const struct tk_run *run)
{
	/* no fsync: the job is starting; a killed tracker's file survives */
	write_file(rec, run, TK_WRITE_NO_FSYNC);
	bg_submit(rec, run);
}

void tk_recorder_partial(struct tk_recorder *rec, const struct tk_run *run)
{
	write_file(rec, run, 0);
	bg_submit(rec, run);
}

int tk_recorder_finish(struct tk_recorder *rec, struct tk_bundle *b, const struct tk_run *run)
{
	struct tk_store_opts o = { 0, rec->cancel, 0, 0 };
	struct tk_buf shown = TK_BUF_INIT; /* rec->db without its password */
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s;
	int ret = 0, inserted = 0;

	write_file(rec, run, 0);
	s = bg_stop(rec, 1, &ret, &err);
	if (s)
		s->cancel = rec->cancel;
	if (!s && !ret && tk_cancelled(rec->cancel))
		ret = tk_cancel_err(&err, "the database");
	else if (!s && !ret)
		ret = tk_store_open_opts(rec->db, &o, &s, &err);
	if (!ret)
		ret = tk_store_put_run(s, run, &inserted, &err);
	tk_store_redact_url(rec->db, &shown);
	if (ret) {
		warn(rec, "could not record the run in '%s': %s", shown.buf, err.msg);
		if (rec->record_path.len)
			warn(rec, "the record is kept in '%s'; store it later with: "
			     "tracker push --db '%s' '%s'", rec->record_path.buf, shown.buf,
			     rec->record_path.buf);
	} else {
		if (s->warning[0])
			warn(rec, "%s", s->warning);
		if (b)
			tk_bundle_store_profiles(b, s, run->id, shown.buf);
	}
	tk_store_close(s);
	tk_buf_release(&shown);
	return ret;
}

void tk_recorder_release(struct tk_recorder *rec)
{
	struct tk_err ignored = TK_ERR_INIT;
	int ret;

	tk_store_close(bg_stop(rec, 0, &ret, &ignored));
	tk_buf_release(&rec->record_path);
}

static void on_start(const struct tk_job_result *so_far, void *data)
{
	struct tk_recorder *rec = data;

	rec->run->started_at_us = so_far->started_at_us;
	rec->run->status = TK_RUN_STARTED;
	rec->run->partial = 1;
	tk_recorder_started(rec, rec->run);
}

/* The first TERM/INT/HUP: a partial record before anything can kill us. */
static void on_cancel(const struct tk_job_result *so_far, void *data)
{
	struct tk_recorder *rec = data;

	tk_job_result_to_run(so_far, rec->run);
	rec->run->status = TK_RUN_CANCELLED;
	rec->run->partial = so_far->running;
	tk_recorder_partial(rec, rec->run);
	if (!rec->quiet && rec->record_path.len)
		warn(rec, "cancelled by signal %d; partial record written to '%s'",
		     so_far->cancel_signal, rec->record_path.buf);
}

void tk_recorder_hook(struct tk_recorder *rec, struct tk_run *run, struct tk_job_opts *jo)
{
	rec->run = run;
	jo->on_start = on_start;
	jo->on_cancel = on_cancel;
	jo->data = rec;
}

void tk_job_result_to_run(const struct tk_job_result *r, struct tk_run *run)
{
	run->started_at_us = r->started_at_us;
	run->walltime_s = r->walltime_s;
	run->user_s = r->user_s;
	run->sys_s = r->sys_s;
	run->maxrss_bytes = r->maxrss_bytes;
	free(run->maxrss_source);
	run->maxrss_source = r->maxrss_source ? tk_xstrdup(r->maxrss_source) : NULL;
	run->wrapper_rss_bytes = r->wrapper_rss_at_fork;
	run->tree_rss_bytes = r->tree_rss_bytes;
	run->tree_samples = r->tree_samples;
	run->cgroup_peak_bytes = r->cgroup_peak_bytes;
	run->exit_code = r->exit_code;
	run->term_signal = r->term_signal;
	if (r->timed_out)
		run->status = TK_RUN_TIMEOUT;
	else if (r->cancel_signal)
		run->status = TK_RUN_CANCELLED;
	else if (r->term_signal)
		run->status = TK_RUN_SIGNALED;
	else if (r->exit_code)
		run->status = TK_RUN_FAILED;
	else
		run->status = TK_RUN_OK;
}
