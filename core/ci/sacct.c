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
#define SACCT_CALL_MIN_S 2.0

int tk_sacct_query(const struct tk_sacct_query *q, struct tk_sacct *out, struct tk_err *err)
{
	struct tk_buf fmt = TK_BUF_INIT, o = TK_BUF_INIT, e = TK_BUF_INIT, msg = TK_BUF_INIT;
	const char *argv[8];
	struct tk_subproc p;
	double start = tk_mono_s(), pause = 0.1;
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
	/* a hung slurmdbd must not hold the job's step for long */
	p.timeout_s = q->wait_s < SACCT_CALL_MIN_S ? SACCT_CALL_MIN_S :
		      q->wait_s > SACCT_CALL_TIMEOUT_S ? SACCT_CALL_TIMEOUT_S : q->wait_s;
	for (;;) {
		double call = tk_mono_s();

		tk_buf_reset(&o);
		tk_buf_reset(&e);
		ret = tk_subproc_run(&p, &o, &e, &status, err);
		if (ret)
			break;
		if (status == 124 && tk_mono_s() - call >= p.timeout_s - 0.05) {
			ret = tk_err_set(err, TK_EUNAVAIL, "%s did not answer within %.1f s: "
					 "slurmdbd is not answering (hung or overloaded?)",
					 argv[0], p.timeout_s);
			break;
		}
		if (status) {
			first_line(&e, &msg);
			ret = tk_err_set(err, TK_EUNAVAIL, "%s exited %d%s%s", argv[0], status,
					 msg.len ? ": " : "", msg.buf);
			break;
		}
		ret = tk_sacct_parse(o.buf, o.len, "sacct output", out, err);
		if (ret || tk_sacct_settled(out, q->from_s, q->to_s, q->own_step))
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

/* squeue's FIELD (an -o format) of the job, trimmed, into out; 0 or -1 */
static int squeue_field(const char *job_id, const char *field, struct tk_buf *out)
{
	const char *argv[] = { "squeue", "-h", "-j", job_id, "-o", field, NULL };
	struct tk_err err = TK_ERR_INIT;
	struct tk_subproc p;
	int status;

	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.out_cap = 4096;
	p.timeout_s = SACCT_CALL_MIN_S;
	if (tk_subproc_run(&p, out, NULL, &status, &err) || status)
		return -1;
	tk_buf_trim(out);
	return 0;
}

int tk_slurm_submit_time(const char *job_id, struct tk_buf *out)
{
	struct tk_buf o = TK_BUF_INIT;
	int64_t t;
	int ret = -1;

	if (!squeue_field(job_id, "%V", &o) && !tk_sacct_parse_time(o.buf, o.len, &t) && t >= 0) {
		tk_buf_adds(out, o.buf);
		ret = 0;
	}
	tk_buf_release(&o);
	return ret;
}

int tk_slurm_timed_out(const char *job_id)
{
	struct tk_buf o = TK_BUF_INIT;
	int ret = !squeue_field(job_id, "%r", &o) && !strcmp(o.buf, "TimeLimit");

	tk_buf_release(&o);
	return ret;
}

/*
 * SLURM's sampling interval of a step's memory (JobAcctGatherFrequency:
 * "30", "task=30,energy=0"); -1 when scontrol cannot say.
 */
static double gather_frequency(void)
{
	const char *argv[] = { "scontrol", "show", "config", NULL };
	struct tk_buf o = TK_BUF_INIT;
	struct tk_subproc p;
	struct tk_err err = TK_ERR_INIT;
	const char *line, *v;
	double s = -1;
	int status;

	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.out_cap = 256 * 1024;
	p.timeout_s = SACCT_CALL_MIN_S;
	if (tk_subproc_run(&p, &o, NULL, &status, &err) || status)
		goto out;
	line = strstr(o.buf, "\nJobAcctGatherFrequency");
	v = line ? strchr(line, '=') : NULL;
	if (!v)
		goto out;
	for (v++; *v == ' '; v++)
		;
	if (!strncmp(v, "task=", 5))
		v += 5;
	if (*v >= '0' && *v <= '9')
		s = strtod(v, NULL);
out:
	tk_buf_release(&o);
	return s;
}

/* The shortest of the run's steps, in seconds; -1 when none is known. */
static double shortest_step(const struct tk_sacct *s)
{
	double m = -1;
	size_t i;

	for (i = 0; i < s->nr; i++)
		if (s->steps[i].elapsed_s >= 0 && (m < 0 || s->steps[i].elapsed_s < m))
			m = s->steps[i].elapsed_s;
	return m;
}

int tk_sacct_for_run(struct tk_run *run, int forced, const struct tk_env *env,
		     struct tk_buf *note)
{
	struct tk_sacct_query q;
	struct tk_err err = TK_ERR_INIT;
	const char *wait = tk_env_get(env, "TRACKER_SACCT_WAIT");
	double shortest;
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
	q.from_s = run->started_at_us / 1000000;
	q.to_s = (int64_t)ceil((double)run->started_at_us / 1e6 +
			       (run->walltime_s > 0 ? run->walltime_s : 0)) + 1;
	ret = tk_sacct_query(&q, &run->slurm, &err);
	if (ret) {
		tk_sacct_release(&run->slurm);
		tk_buf_addf(note, "no SLURM accounting for job %s: %s", q.job_id, err.msg);
		return ret;
	}
	tk_sacct_keep_own(&run->slurm, q.from_s, q.to_s, q.own_step);
	if (!run->slurm.nr) {
		if (forced)
			tk_buf_addf(note, "--sacct: the run launched no srun step of job %s; "
				    "SLURM has nothing of its own to say", q.job_id);
		return 0;
	}
	/* scontrol is asked only when a step is shorter than SLURM's default interval */
	shortest = shortest_step(&run->slurm);
	tk_sacct_judge(&run->slurm, run->maxrss_bytes,
		       shortest >= 0 && shortest < 30 ? gather_frequency() : -1);
	return 0;
}
