#include "core/measure/job.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#include "core/base/buf.h"
#include "core/measure/proctree.h"
#include "core/base/timeutil.h"
#include "core/measure/jobcg.h"
#include "core/measure/memsampler.h"
#include "core/measure/watchdog.h"
#include "core/base/banned.h"

#define CGROUP2_MAGIC 0x63677270
#define FIRST_INTERVAL_S 0.010
#define MAX_INTERVAL_S 1.0
#define AGE_FRACTION 0.05
#define COST_FACTOR 200.0
/* samples before the sampled peak may replace an inherited ru_maxrss */
#define MIN_TRUSTED_SAMPLES 3

struct job {
	const struct tk_job_opts *o;
	struct tk_job_result *r;
	pid_t pid;
	double t0;
	int main_done;
	int stopped; /* the main process stopped (WUNTRACED) */
	int tty;     /* the job has the terminal */
	int64_t sampled_max_proc;
	double sample_cost_total;
	struct tk_proctree tree;
	struct tk_buf cgroup; /* the job's cgroup v2 directory, empty if none */
	struct tk_watchdog own_wd;
	struct tk_watchdog *wd;
	struct tk_jobcg jobcg; /* the job's own cgroup; dir "" if none */
	struct tk_memsampler mem; /* the memory timeline, when the caller keeps one */
};

/* ---- cgroup v2 ---- */

/* The cgroup v2 directory we run in, if it holds only us (so its
 * memory.peak is the job's). */
static void cgroup_detect(struct job *j)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct tk_buf line = TK_BUF_INIT, path = TK_BUF_INIT;
	const char *rel = NULL, *p;
	struct statfs st;
	size_t i;
	long self = (long)getpid();

	if (tk_buf_read_file(&line, "/proc/self/cgroup", NULL))
		goto out;
	for (p = line.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "0::", 3)) {
			rel = p + 3;
			break;
		}
	if (!rel)
		goto out;
	for (i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		struct tk_buf procs = TK_BUF_INIT;
		char *end;
		long only;

		if (statfs(roots[i], &st) || (unsigned long)st.f_type != CGROUP2_MAGIC)
			continue;
		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s%.*s", roots[i], (int)strcspn(rel, "\n"), rel);
		tk_buf_addf(&procs, "%s/cgroup.procs", path.buf);
		tk_buf_reset(&line);
		if (!tk_buf_read_file(&line, procs.buf, NULL)) {
			only = strtol(line.buf, &end, 10);
			if (only == self && (*end == '\0' || !strcmp(end, "\n"))) {
				tk_buf_addf(&j->cgroup, "%s/memory.peak", path.buf);
				if (access(j->cgroup.buf, R_OK))
					tk_buf_reset(&j->cgroup);
			}
		}
		tk_buf_release(&procs);
		break;
	}
out:
	tk_buf_release(&line);
	tk_buf_release(&path);
}

static int64_t cgroup_peak(struct job *j)
{
	struct tk_buf b = TK_BUF_INIT;
	long long v = -1;

	if (j->cgroup.len && !tk_buf_read_file(&b, j->cgroup.buf, NULL))
		if (sscanf(b.buf, "%lld", &v) != 1)
			v = -1;
	tk_buf_release(&b);
	return v;
}

/* The timeline reads the memory of the job's own cgroup, else of the one
 * that held only us (cgroup_detect's memory.peak's directory). */
static void timeline_start(struct job *j)
{
	struct tk_buf dir = TK_BUF_INIT;

	if (j->jobcg.dir[0])
		tk_buf_adds(&dir, j->jobcg.dir);
	else if (j->cgroup.len)
		tk_buf_add(&dir, j->cgroup.buf, (size_t)(strrchr(j->cgroup.buf, '/') - j->cgroup.buf));
	tk_memsampler_init(&j->mem, j->o->timeline, dir.buf);
	tk_buf_release(&dir);
}

/* ---- supervision ---- */

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* Reaps every child that has ended. Returns 1 while children remain. */
static int reap(struct job *j)
{
	for (;;) {
		struct rusage ru;
		int status;
		pid_t p = wait4(-1, &status, WNOHANG | WUNTRACED, &ru);

		if (p == 0)
			return 1;
		if (p < 0) {
			if (errno == EINTR)
				continue;
			return 0;
		}
		if (WIFSTOPPED(status)) {
			if (p == j->pid)
				j->stopped = 1;
			continue;
		}
		j->r->user_s += tv_s(ru.ru_utime);
		j->r->sys_s += tv_s(ru.ru_stime);
		if ((int64_t)ru.ru_maxrss * 1024 > j->r->maxrss_bytes)
			j->r->maxrss_bytes = (int64_t)ru.ru_maxrss * 1024;
		if (p == j->pid) {
			j->main_done = 1;
			j->r->walltime_s = tk_mono_s() - j->t0;
			if (WIFSIGNALED(status)) {
				j->r->exit_code = -1;
				j->r->term_signal = WTERMSIG(status);
			} else {
				j->r->exit_code = WEXITSTATUS(status);
				j->r->term_signal = 0;
			}
		}
	}
}

static double sample(struct job *j, double now)
{
	struct tk_tree_sample s;
	double cost, interval, timeline = 1e9, cpu0 = tk_thread_cpu_s();

	if (tk_proctree_sample(&j->tree, &s) == 0) {
		timeline = tk_memsampler_add(&j->mem, now - j->t0, s.rss_bytes);
		tk_watchdog_pids(j->wd, j->tree.pids, j->tree.nr);
		if (s.rss_bytes > j->r->tree_rss_bytes)
			j->r->tree_rss_bytes = s.rss_bytes;
		if (s.max_proc_rss_bytes > j->sampled_max_proc)
			j->sampled_max_proc = s.max_proc_rss_bytes;
		j->r->tree_samples++;
	}
	/* The CPU the sample took, not the wall time: on a busy runner the
	 * wrapper may be preempted in the middle of one, and counting that
	 * would space the samples of a short job out past its end. */
	cost = tk_thread_cpu_s() - cpu0;
	j->sample_cost_total += cost;
	interval = AGE_FRACTION * (now - j->t0);
	if (interval < FIRST_INTERVAL_S)
		interval = FIRST_INTERVAL_S;
	if (interval > MAX_INTERVAL_S)
		interval = MAX_INTERVAL_S;
	if (interval > timeline)
		interval = timeline;
	if (interval < COST_FACTOR * cost)
		interval = COST_FACTOR * cost;
	return now + interval;
}

/* KILL the job's group and every descendant (daemons may have left it). */
static void kill_all(struct job *j)
{
	size_t i;

	tk_jobcg_kill(&j->jobcg);
	kill(-j->pid, SIGKILL);
	if (tk_proctree_list(&j->tree))
		return;
	for (i = 0; i < j->tree.nr; i++)
		kill(j->tree.pids[i], SIGKILL);
}

static void finish_measurements(struct job *j)
{
	struct tk_job_result *r = j->r;

	r->maxrss_source = "wait4";
	if (r->maxrss_bytes <= r->wrapper_rss_at_fork) {
		/* A sample of a job that just started may catch it in the
		 * middle of its exec, with a fraction of its pages: a few
		 * samples in, it runs its own code. */
		if (j->sampled_max_proc > 0 && r->tree_samples >= MIN_TRUSTED_SAMPLES) {
			r->maxrss_bytes = j->sampled_max_proc;
			r->maxrss_source = "sampled";
		} else {
			r->maxrss_source = "upper-bound";
		}
	}
	if (r->tree_rss_bytes < r->maxrss_bytes)
		r->tree_rss_bytes = r->maxrss_bytes;
	r->sample_cost_s = r->tree_samples ? j->sample_cost_total / (double)r->tree_samples : 0;
	r->cgroup_peak_bytes = cgroup_peak(j);
}

/*
 * Sends sig to the job's process group and to every descendant that left
 * it (setsid daemons, some MPI launchers), so all of them get the chance
 * to clean up that TERM gives. A stopped process cannot act on TERM, so
 * CONT follows, as timeout(1) does.
 */
static void signal_tree(struct job *j, int sig)
{
	size_t i;

	if (sig == SIGKILL)
		tk_jobcg_kill(&j->jobcg);
	kill(-j->pid, sig);
	if (tk_proctree_list(&j->tree) == 0)
		for (i = 0; i < j->tree.nr; i++)
			if (getpgid(j->tree.pids[i]) != j->pid)
				kill(j->tree.pids[i], sig);
	if (sig != SIGKILL && sig != SIGCONT)
		signal_tree(j, SIGCONT);
}

static void cancel(struct job *j, int sig, double *kill_at)
{
	struct tk_job_result so_far;

	signal_tree(j, sig);
	if (j->r->cancel_signal)
		return;
	j->r->cancel_signal = sig;
	*kill_at = tk_mono_s() + j->o->grace_s;
	if (!j->o->on_cancel)
		return;
	so_far = *j->r;
	if (!j->main_done) {
		so_far.walltime_s = tk_mono_s() - j->t0;
		so_far.running = 1;
	}
	if (so_far.maxrss_bytes < j->sampled_max_proc)
		so_far.maxrss_bytes = j->sampled_max_proc;
	so_far.maxrss_source = "sampled";
	so_far.cgroup_peak_bytes = cgroup_peak(j);
	j->o->on_cancel(&so_far, j->o->data);
}

/*
 * The job stopped (Ctrl-Z at a terminal, SIGTTIN, kill -STOP). With the
 * terminal, behave like the job: hand the terminal back to our group,
 * stop ourselves so the shell regains control, and when continued give the
 * terminal back and continue the job. Without one, whoever stopped the job
 * will continue it.
 */
static void job_stopped(struct job *j)
{
	void (*old)(int);

	if (!j->tty)
		return;
	old = signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(STDIN_FILENO, getpgrp());
	raise(SIGSTOP);
	tcsetpgrp(STDIN_FILENO, j->pid);
	signal(SIGTTOU, old);
	kill(-j->pid, SIGCONT);
}

static double earliest(double a, double b)
{
	return a < b ? a : b;
}

static void supervise(struct job *j, const sigset_t *set)
{
	const double inf = INFINITY;
	double deadline = j->o->timeout_s > 0 ? j->t0 + j->o->timeout_s : inf;
	double kill_at = inf, orphan_deadline = inf, reap_deadline = inf;
	double next_sample = j->t0 + FIRST_INTERVAL_S / 2;
	double next_tick = j->o->tick ? j->t0 + TK_JOB_TICK_S : inf;
	int was_done = 0;

	for (;;) {
		double now, wake;
		struct timespec ts;
		siginfo_t info;
		int sig;

		if (!reap(j))
			break; /* nothing left to wait for */
		if (j->stopped) {
			j->stopped = 0;
			job_stopped(j);
		}
		now = tk_mono_s();
		if (j->o->tick && (now >= next_tick || (j->main_done && !was_done))) {
			j->o->tick(j->o->hook_data);
			now = tk_mono_s();
			next_tick = now + TK_JOB_TICK_S;
		}
		was_done = j->main_done;
		if (j->main_done && orphan_deadline == inf)
			orphan_deadline = now + j->o->orphan_wait_s;
		/* Orphans are waited for until the deadline, unless we are
		 * stopping them, and killed ones get a moment to be reaped. */
		if (now >= reap_deadline || (kill_at == inf && reap_deadline == inf &&
					     now >= orphan_deadline))
			break;
		if (!j->main_done && now >= deadline && !j->r->timed_out) {
			j->r->timed_out = 1;
			signal_tree(j, SIGTERM);
			kill_at = now + j->o->grace_s;
		}
		if (now >= kill_at) {
			kill_all(j);
			kill_at = inf;
			reap_deadline = now + 1.0;
		}
		if (now >= next_sample)
			next_sample = sample(j, now);

		wake = earliest(next_sample, earliest(kill_at, reap_deadline));
		wake = earliest(wake, next_tick);
		if (!j->main_done && !j->r->timed_out)
			wake = earliest(wake, deadline);
		if (kill_at == inf && reap_deadline == inf)
			wake = earliest(wake, orphan_deadline);
		wake -= tk_mono_s();
		if (wake < 0)
			wake = 0;
		ts.tv_sec = (time_t)wake;
		ts.tv_nsec = (long)((wake - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(set, &info, &ts);
		if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP)
			cancel(j, sig, &kill_at);
	}
	if (!j->main_done) {
		/* Someone else reaped it (cannot happen with SIGCHLD at its
		 * default); its status is unknown. */
		j->main_done = 1;
		j->r->walltime_s = tk_mono_s() - j->t0;
	}
	if (j->o->tick && !was_done)
		j->o->tick(j->o->hook_data); /* it ended with the last child */
	if (tk_proctree_list(&j->tree) == 0)
		j->r->orphans_left = (int)j->tree.nr;
}

static void restore_terminal(int had_tty)
{
	void (*old)(int);

	if (!had_tty)
		return;
	old = signal(SIGTTOU, SIG_IGN);
	tcsetpgrp(STDIN_FILENO, getpgrp());
	signal(SIGTTOU, old);
}

/*
 * Signal dispositions the job must inherit as the caller had them, and
 * that tracker needs otherwise while it supervises:
 * - SIGCHLD at its default, or the kernel reaps the job behind our back;
 * - SIGPIPE ignored, so a vanished log reader cannot kill tracker while it
 *   still has a job and a record to look after;
 * - SIGXFSZ ignored, so a file size limit (ulimit -f) that the job may
 *   well live with makes tracker's own writes fail with EFBIG, a write
 *   error it reports, instead of killing it with the job's status lost;
 * - TERM, INT and HUP that arrived ignored (nohup, `cmd &` in sh) stay
 *   ignored and are not forwarded: they are not meant for the job.
 */
struct saved_signals {
	struct sigaction chld, pipe, xfsz;
};

static void take_signals(struct saved_signals *saved, sigset_t *set)
{
	static const int forwarded[] = { SIGTERM, SIGINT, SIGHUP };
	struct sigaction dfl, ign, cur;
	size_t i;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGCHLD, &dfl, &saved->chld);
	sigaction(SIGPIPE, &ign, &saved->pipe);
	sigaction(SIGXFSZ, &ign, &saved->xfsz);
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		if (!sigaction(forwarded[i], NULL, &cur) && cur.sa_handler != SIG_IGN)
			sigaddset(set, forwarded[i]);
}

/* In the child, before exec: what the caller had. */
static void give_back_signals(const struct saved_signals *saved)
{
	sigaction(SIGCHLD, &saved->chld, NULL);
	sigaction(SIGPIPE, &saved->pipe, NULL);
	sigaction(SIGXFSZ, &saved->xfsz, NULL);
}

/* ---- starting the job as bash would ---- */

/* Why the exec failed, beyond errno: told to the parent with errno. */
enum exec_why { WHY_ERRNO, WHY_NOT_FOUND, WHY_BINARY, WHY_DIRECTORY };

struct exec_failure {
	int err;  /* errno */
	int code; /* 126 or 127 */
	int why;  /* enum exec_why */
};

static const char *env_path(char *const *envp)
{
	for (; envp && *envp; envp++)
		if (!strncmp(*envp, "PATH=", 5))
			return *envp + 5;
	return "/usr/local/bin:/usr/bin:/bin";
}

/*
 * bash's search: the first executable regular file named name in a PATH
 * directory (an empty entry is "."), else the first non-executable one
 * (exec then fails with EACCES: 126), else none (127). Directories, and
 * PATH directories that cannot be searched, are skipped, where execvp
 * would report EACCES (126) for them.
 */
static int find_in_path(const char *name, const char *path, struct tk_buf *out)
{
	struct tk_buf cand = TK_BUF_INIT;
	const char *p = path, *end;
	int found = 0;

	for (;; p = end + 1) {
		struct stat sb;
		size_t len;

		end = strchr(p, ':');
		len = end ? (size_t)(end - p) : strlen(p);
		tk_buf_reset(&cand);
		if (len)
			tk_buf_addf(&cand, "%.*s/%s", (int)len, p, name);
		else
			tk_buf_addf(&cand, "./%s", name);
		if (!stat(cand.buf, &sb) && !S_ISDIR(sb.st_mode)) {
			if (!access(cand.buf, X_OK)) {
				tk_buf_reset(out);
				tk_buf_add(out, cand.buf, cand.len);
				found = 2;
				break;
			}
			if (!found) {
				tk_buf_add(out, cand.buf, cand.len);
				found = 1;
			}
		}
		if (!end)
			break;
	}
	tk_buf_release(&cand);
	return found ? 0 : -1;
}

/* bash's test: a NUL byte in the first line of the first 80 bytes. */
static int binary_file(const char *path)
{
	char sample[80];
	ssize_t n, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, sample, sizeof(sample));
	close(fd);
	/* an ELF header the kernel refused (garbage after the magic): bash
	 * calls it a binary too, whatever follows */
	if (n >= 4 && !memcmp(sample, "\177ELF", 4))
		return 1;
	for (i = 0; i < n; i++) {
		if (sample[i] == '\n')
			return 0;
		if (sample[i] == '\0')
			return 1;
	}
	return 0;
}

/*
 * In the child: execs the job, failing as bash does. A text file without
 * a #! line (ENOEXEC) is run by /bin/sh, as POSIX shells and execvp do,
 * but a binary one is refused (126) rather than handed to the shell.
 * Returns only on failure.
 */
static void exec_job(const struct tk_job_opts *o, struct exec_failure *f)
{
	char *const *envp = o->envp ? o->envp : environ;
	const char *name = o->argv[0];
	struct tk_buf path = TK_BUF_INIT;
	struct stat sb;
	size_t n;
	char **shargv;

	memset(f, 0, sizeof(*f));
	if (!strchr(name, '/') && find_in_path(name, env_path(envp), &path)) {
		f->err = ENOENT;
		f->code = 127;
		f->why = WHY_NOT_FOUND;
		return;
	}
	if (!path.len)
		tk_buf_adds(&path, name);
	execve(path.buf, o->argv, envp);
	f->err = errno;
	if (f->err == ENOEXEC && !binary_file(path.buf)) {
		for (n = 0; o->argv[n]; n++)
			;
		shargv = tk_xcalloc(n + 2, sizeof(*shargv));
		shargv[0] = (char *)"/bin/sh";
		shargv[1] = path.buf;
		if (n > 1)
			memcpy(shargv + 2, o->argv + 1, (n - 1) * sizeof(*shargv));
		execve("/bin/sh", shargv, envp);
		f->err = errno;
	}
	f->code = f->err == ENOENT ? 127 : 126;
	if (f->err == ENOEXEC)
		f->why = WHY_BINARY;
	else if (f->err == EACCES && !stat(path.buf, &sb) && S_ISDIR(sb.st_mode))
		f->why = WHY_DIRECTORY;
}

static int exec_error(const struct tk_job_opts *o, const struct exec_failure *f,
		      struct tk_err *err)
{
	const char *why = strerror(f->err);

	if (f->why == WHY_NOT_FOUND)
		why = "command not found";
	else if (f->why == WHY_BINARY)
		why = "cannot execute binary file: Exec format error";
	else if (f->why == WHY_DIRECTORY)
		why = "Is a directory";
	return tk_err_set(err, TK_EUNAVAIL, "cannot run '%s': %s", o->argv[0], why);
}

int tk_job_run(const struct tk_job_opts *o, struct tk_job_result *r,
	       int *exec_errno, struct tk_err *err)
{
	struct job j;
	sigset_t set, old;
	struct saved_signals saved;
	struct exec_failure failure;
	int errpipe[2], gopipe[2] = { -1, -1 }, e = 0, tty, placed = 0;
	pid_t parent = getpid();
	ssize_t n;

	memset(r, 0, sizeof(*r));
	memset(&j, 0, sizeof(j));
	r->exit_code = -1;
	r->cgroup_peak_bytes = -1;
	*exec_errno = 0;
	j.o = o;
	j.r = r;
	tk_buf_init(&j.cgroup, 0);

	take_signals(&saved, &set);
	if (sigprocmask(SIG_BLOCK, &set, &old))
		return tk_err_set(err, TK_EINTERNAL, "cannot block signals: %s", strerror(errno));
	/* before the subreaper flag: the watchdog must not be our descendant */
	j.wd = o->watchdog;
	if (!j.wd) {
		j.wd = &j.own_wd;
		if (tk_watchdog_start(j.wd, err))
			tk_err_clear(err); /* the job runs, with PR_SET_PDEATHSIG instead */
	}
	tk_watchdog_ready(j.wd);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return tk_err_set(err, TK_EINTERNAL, "cannot become a child subreaper: %s",
				  strerror(errno));
	if (pipe2(errpipe, O_CLOEXEC))
		return tk_err_set(err, TK_EINTERNAL, "cannot create a pipe: %s", strerror(errno));
	if (o->before_exec && pipe2(gopipe, O_CLOEXEC)) {
		e = errno;
		close(errpipe[0]);
		close(errpipe[1]);
		return tk_err_set(err, TK_EINTERNAL, "cannot create a pipe: %s", strerror(e));
	}
	cgroup_detect(&j);
	if (tk_jobcg_create(&j.jobcg) == 0)
		tk_watchdog_cgroup(j.wd, j.jobcg.dir);
	timeline_start(&j);
	tk_proctree_init(&j.tree, getpid());
	tty = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	j.tty = tty;
	r->wrapper_rss_at_fork = tk_proc_rss_bytes(getpid(), j.tree.page_size);

	r->started_at_us = tk_now_us();
	j.t0 = tk_mono_s();
	j.pid = tk_jobcg_fork(&j.jobcg, &placed);
	if (j.pid < 0) {
		e = errno;
		close(errpipe[0]);
		close(errpipe[1]);
		if (gopipe[0] >= 0) {
			close(gopipe[0]);
			close(gopipe[1]);
		}
		tk_proctree_release(&j.tree);
		tk_buf_release(&j.cgroup);
		tk_jobcg_release(&j.jobcg);
		tk_watchdog_done(j.wd);
		return tk_err_set(err, TK_EINTERNAL, "cannot fork: %s", strerror(e));
	}
	if (j.pid == 0) {
		/*
		 * If tracker is killed outright (the CI's KILL after its grace
		 * period), the job, in a group of its own, must not run on: the
		 * watchdog kills its tree. The job itself tells it its group,
		 * before tracker could die unnoticed. Only without a watchdog
		 * is the job taken along by PR_SET_PDEATHSIG: that kills the
		 * main process at once, and its children, reparented, would
		 * no longer be found by their parent.
		 */
		if (j.wd->fd < 0)
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(126);
		setpgid(0, 0);
		tk_watchdog_group(j.wd, getpid());
		/* everything the job starts is in its cgroup (if any) */
		if (!placed)
			tk_jobcg_enter(&j.jobcg);
		if (tty) {
			signal(SIGTTOU, SIG_IGN);
			tcsetpgrp(STDIN_FILENO, getpid());
			signal(SIGTTOU, SIG_DFL);
		}
		give_back_signals(&saved);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (gopipe[0] >= 0) {
			/* Wait for before_exec: EOF when tracker closes its end
			 * (or dies: then no job). */
			char c;

			close(gopipe[1]);
			while (read(gopipe[0], &c, 1) < 0 && errno == EINTR)
				;
			close(gopipe[0]);
			if (getppid() != parent)
				_exit(126);
		}
		exec_job(o, &failure);
		if (write(errpipe[1], &failure, sizeof(failure)) < 0)
			_exit(126);
		_exit(failure.code);
	}
	/* Both sides set the group, so it exists before we signal it. */
	setpgid(j.pid, j.pid);
	tk_watchdog_group(j.wd, j.pid);
	close(errpipe[1]);
	if (gopipe[0] >= 0) {
		close(gopipe[0]);
		o->before_exec(j.pid, o->hook_data);
		close(gopipe[1]);
	}
	do
		n = read(errpipe[0], &failure, sizeof(failure));
	while (n < 0 && errno == EINTR);
	close(errpipe[0]);
	if (n == (ssize_t)sizeof(failure)) {
		int status;

		waitpid(j.pid, &status, 0);
		r->walltime_s = tk_mono_s() - j.t0;
		r->exit_code = failure.code;
		/* the job never ran: its memory is unknown, not 0 */
		r->maxrss_bytes = -1;
		r->tree_rss_bytes = -1;
		tk_jobcg_release(&j.jobcg);
		tk_watchdog_done(j.wd);
		restore_terminal(tty);
		tk_proctree_release(&j.tree);
		tk_buf_release(&j.cgroup);
		*exec_errno = failure.err;
		return exec_error(o, &failure, err);
	}

	if (o->on_start)
		o->on_start(r, o->data);
	supervise(&j, &set);
	/* orphans left running on purpose go back to our cgroup */
	tk_jobcg_release(&j.jobcg);
	tk_watchdog_done(j.wd);
	restore_terminal(tty);
	finish_measurements(&j);
	tk_proctree_release(&j.tree);
	tk_buf_release(&j.cgroup);
	return 0;
}
