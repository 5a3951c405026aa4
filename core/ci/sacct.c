/*
 * Asking sacct until the accounting of the job's steps has arrived.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/ci/sacct.h"
#include "core/base/subproc.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

static void first_line(const struct tk_buf *b, struct tk_buf *out)
{
	size_t i;

	for (i = 0; i < b->len && b->buf[i] != '\n' && out->len < 200; i++)
		tk_buf_addch(out, isprint((unsigned char)b->buf[i]) ? b->buf[i] : '?');
}

static void sleep_s(double s)
{
	struct timespec ts;

	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

#define SACCT_CALL_TIMEOUT_S 15.0

int tk_sacct_query(const struct tk_sacct_query *q, struct tk_sacct *out, struct tk_err *err)
{
	struct tk_buf fmt = TK_BUF_INIT, o = TK_BUF_INIT, e = TK_BUF_INIT, msg = TK_BUF_INIT;
	const char *argv[8];
	struct tk_subproc p;
	double start = tk_mono_s(), pause = 0.25;
	int ret, status;

	tk_buf_addf(&fmt, "--format=%s", TK_SACCT_FORMAT);
	argv[0] = q->program ? q->program : "sacct";
	argv[1] = "-j";
	argv[2] = q->job_id;
	argv[3] = "-P";
	argv[4] = "-n";
	argv[5] = "--noconvert";
	argv[6] = fmt.buf;
	argv[7] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.out_cap = (size_t)TK_SACCT_STEPS_MAX * 1024;
	p.timeout_s = SACCT_CALL_TIMEOUT_S;
	for (;;) {
		tk_buf_reset(&o);
		tk_buf_reset(&e);
		ret = tk_subproc_run(&p, &o, &e, &status, err);
		if (ret)
			break;
		if (status) {
			first_line(&e, &msg);
			ret = tk_err_set(err, TK_EUNAVAIL, "%s exited %d%s%s", argv[0], status,
					 msg.len ? ": " : "", msg.buf);
			break;
		}
		ret = tk_sacct_parse(o.buf, o.len, "sacct output", out, err);
		if (ret || tk_sacct_settled(out, q->own_step))
			break;
		if (tk_mono_s() - start + pause > q->wait_s)
			break;
		sleep_s(pause);
		pause = pause * 2 > 1 ? 1 : pause * 2;
	}
	if (!ret && !out->nr)
		ret = tk_err_set(err, TK_EUNAVAIL, "no accounting records for job %s after %.1f s",
				 q->job_id, q->wait_s);
	tk_buf_release(&fmt);
	tk_buf_release(&o);
	tk_buf_release(&e);
	tk_buf_release(&msg);
	return ret;
}

#define DEFAULT_WAIT_S 5.0

int tk_sacct_for_run(struct tk_run *run, int forced, const struct tk_env *env,
		     struct tk_buf *note)
{
	struct tk_sacct_query q;
	struct tk_err err = TK_ERR_INIT;
	const char *wait = tk_env_get(env, "TRACKER_SACCT_WAIT");
	int ret;

	tk_buf_reset(note);
	if (!run->ci.slurm_job_id) {
		if (!forced)
			return 0;
		tk_buf_adds(note, "--sacct: not inside a SLURM allocation (no SLURM_JOB_ID)");
		return TK_EUSAGE;
	}
	memset(&q, 0, sizeof(q));
	q.job_id = run->ci.slurm_job_id;
	q.own_step = run->ci.slurm_step_id;
	q.wait_s = DEFAULT_WAIT_S;
	if (wait && *wait && (tk_parse_double(wait, &q.wait_s) || q.wait_s < 0 || q.wait_s > 600))
		q.wait_s = DEFAULT_WAIT_S;
	ret = tk_sacct_query(&q, &run->slurm, &err);
	if (ret) {
		tk_sacct_release(&run->slurm);
		tk_buf_addf(note, "no SLURM accounting for job %s: %s", q.job_id, err.msg);
	}
	return ret;
}
