/*
 * core/measure/watchdog: a process that started a watchdog and is then killed
 * takes the processes it told the watchdog of along, those in the job's
 * group and those that left it; one that says goodbye leaves them alone.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/measure/jobcg.h"
#include "core/measure/watchdog.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

struct fake {
	pid_t tracker; /* the process that runs the watchdog */
	pid_t member;  /* in the job's group */
	pid_t loner;   /* in a session of its own */
};

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* A process gone or a zombie. */
static int gone(pid_t pid)
{
	char path[64], buf[256];
	FILE *f;
	const char *p;
	int z = 1;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
	if (p)
		z = p[2] == 'Z';
	fclose(f);
	return z;
}

static int wait_gone(pid_t pid)
{
	int i;

	for (i = 0; i < 400; i++) {
		if (gone(pid))
			return 1;
		nap(25);
	}
	return 0;
}

/*
 * The fake tracker: starts a watchdog, forks a "job" (own group) with a
 * member sleeping in the group and a loner in its own session, sends the
 * pids and reports them through a pipe, then sleeps (or says goodbye).
 */
/*
 * With a cgroup (cg non-NULL), the loner enters it and the watchdog is
 * told the cgroup but not the loner's pid.
 */
static int start(struct fake *f, int goodbye, struct tk_jobcg *cg)
{
	int p[2];
	pid_t got[2];

	if (pipe(p))
		return -1;
	f->tracker = fork();
	if (f->tracker == 0) {
		struct tk_watchdog w;
		struct tk_err err = TK_ERR_INIT;
		pid_t job, loner, pids[2];

		close(p[0]);
		if (tk_watchdog_start(&w, &err))
			_exit(1);
		job = fork();
		if (job == 0) {
			setpgid(0, 0);
			execlp("sleep", "sleep", "300", (char *)NULL);
			_exit(127);
		}
		setpgid(job, job);
		loner = fork();
		if (loner == 0) {
			tk_jobcg_enter(cg);
			setsid();
			execlp("sleep", "sleep", "301", (char *)NULL);
			_exit(127);
		}
		nap(100); /* both have exec'd */
		tk_watchdog_group(&w, job);
		pids[0] = job;
		pids[1] = loner;
		if (cg)
			tk_watchdog_cgroup(&w, cg->dir);
		tk_watchdog_pids(&w, pids, cg ? 1 : 2);
		got[0] = job;
		got[1] = loner;
		if (write(p[1], got, sizeof(got)) != (ssize_t)sizeof(got))
			_exit(1);
		if (goodbye) {
			tk_watchdog_done(&w);
			_exit(0);
		}
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], got, sizeof(got)) != (ssize_t)sizeof(got)) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	f->member = got[0];
	f->loner = got[1];
	return 0;
}

int main(void)
{
	struct fake f;
	int status, i;

	struct tk_jobcg cg;
	struct stat st;

	if (!ok(start(&f, 0, NULL) == 0, "a fake tracker with a job and a loner")) {
		kill(f.tracker, SIGKILL);
		return done_testing();
	}
	ok(!gone(f.member) && !gone(f.loner), "both run");
	kill(f.tracker, SIGKILL);
	waitpid(f.tracker, &status, 0);
	ok(wait_gone(f.member), "tracker killed: the job's group member dies");
	ok(wait_gone(f.loner), "and the process in a session of its own");
	kill(f.member, SIGKILL);
	kill(f.loner, SIGKILL);

	if (!ok(start(&f, 1, NULL) == 0, "a fake tracker that says goodbye")) {
		kill(f.tracker, SIGKILL);
		return done_testing();
	}
	waitpid(f.tracker, &status, 0);
	nap(300);
	ok(!gone(f.member) && !gone(f.loner), "after a goodbye nothing is killed");
	kill(f.member, SIGKILL);
	kill(f.loner, SIGKILL);

	if (tk_jobcg_create(&cg)) {
		skip(3, "no delegated cgroup v2 with cgroup.kill here");
		return done_testing();
	}
	if (!ok(start(&f, 0, &cg) == 0, "a fake tracker whose loner is only in the job's cgroup")) {
		kill(f.tracker, SIGKILL);
		return done_testing();
	}
	kill(f.tracker, SIGKILL);
	waitpid(f.tracker, &status, 0);
	ok(wait_gone(f.loner), "tracker killed: the loner no one named dies through cgroup.kill");
	for (i = 0; i < 400 && stat(cg.dir, &st) == 0; i++)
		nap(25);
	ok(stat(cg.dir, &st) < 0, "and the watchdog removed the cgroup");
	kill(f.member, SIGKILL);
	kill(f.loner, SIGKILL);
	rmdir(cg.dir);
	return done_testing();
}
