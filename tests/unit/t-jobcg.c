/*
 * core/measure/jobcg: where a cgroup v2 is delegated to us, a child cgroup is
 * created; a process that enters it is killed by tk_jobcg_kill, one
 * still there at tk_jobcg_release goes back to our cgroup alive, and the
 * directory is removed. Elsewhere tk_jobcg_create says no and the other
 * calls do nothing.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/measure/jobcg.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

/* pid's "0::" line of /proc/PID/cgroup, or "" */
static void v2_of(pid_t pid, char *out, size_t size)
{
	struct tk_buf b = TK_BUF_INIT;
	char path[64];
	const char *p;

	out[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
	if (tk_buf_read_file(&b, path, NULL) == 0)
		for (p = b.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (!strncmp(p, "0::", 3)) {
				size_t len = strcspn(p, "\n");

				if (len < size) {
					memcpy(out, p, len);
					out[len] = '\0';
				}
				break;
			}
	tk_buf_release(&b);
}

/* A child that enters cg and sleeps; the parent waits until it is in. */
static pid_t sleeper(const struct tk_jobcg *cg)
{
	int p[2];
	pid_t pid;
	char c = 0;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		tk_jobcg_enter(cg);
		if (write(p[1], &c, 1) < 0)
			_exit(1);
		close(p[1]);
		execlp("sleep", "sleep", "300", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		pid = -1;
	close(p[0]);
	return pid;
}

int main(void)
{
	struct tk_jobcg cg, none;
	struct stat st;
	char self[4200], line[4200], want[4200];
	pid_t a, b;
	int status, diag_status = 0;

	memset(&none, 0, sizeof(none));
	tk_jobcg_enter(&none);
	ok(tk_jobcg_kill(&none) < 0, "no cgroup: nothing to kill");
	tk_jobcg_release(&none);

	if (tk_jobcg_create(&cg)) {
		ok(cg.dir[0] == '\0', "no delegated cgroup v2 here: dir is empty");
		skip(8, "no delegated cgroup v2 with cgroup.kill (not root, or cgroup v1 only)");
		return done_testing();
	}
	ok(stat(cg.dir, &st) == 0 && S_ISDIR(st.st_mode), "the job's cgroup exists: %s", cg.dir);
	ok(strstr(cg.dir, "/tracker-job-") != NULL, "named tracker-job-...");
	ok(!strncmp(cg.dir, cg.parent, strlen(cg.parent)), "a child of our own cgroup");

	{
		int placed;
		pid_t c = tk_jobcg_fork(&cg, &placed);

		if (c == 0) {
			char mine[4200];

			v2_of(getpid(), mine, sizeof(mine));
			_exit(strstr(mine, "/tracker-job-") ? 0 : 1);
		}
		waitpid(c, &status, 0);
		diag_status = status;
		ok(c > 0 && WIFEXITED(status) && WEXITSTATUS(status) == (placed ? 0 : 1),
		   "tk_jobcg_fork: the child starts in the cgroup (placed %d)", placed);
		ok(placed, "through clone3 CLONE_INTO_CGROUP (status %#x)", diag_status);
	}

	a = sleeper(&cg);
	v2_of(a, line, sizeof(line));
	snprintf(want, sizeof(want), "0::%s", strrchr(cg.dir, '/'));
	v2_of(getpid(), self, sizeof(self));
	ok(strlen(line) >= strlen(want) && !strcmp(line + strlen(line) - strlen(want), want),
	   "the process that entered is in it (%s)", line);
	ok(tk_jobcg_kill(&cg) == 0, "cgroup.kill written");
	waitpid(a, &status, 0);
	ok(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "and it was killed");

	{
		/* the cgroup was killed once: a child forked now must live */
		int placed;
		pid_t c = tk_jobcg_fork(&cg, &placed);

		if (c == 0) {
			char mine[4200];

			if (!placed)
				tk_jobcg_enter(&cg);
			v2_of(getpid(), mine, sizeof(mine));
			_exit(strstr(mine, "/tracker-job-") ? 0 : 1);
		}
		waitpid(c, &status, 0);
		ok(c > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		   "after a cgroup.kill a forked child lives, in the cgroup (status %#x, placed %d)",
		   status, placed);
	}

	b = sleeper(&cg);
	snprintf(want, sizeof(want), "%s", cg.dir);
	tk_jobcg_release(&cg);
	v2_of(b, line, sizeof(line));
	ok(kill(b, 0) == 0 && !strcmp(line, self), "released: it lives on, back in our cgroup");
	ok(stat(want, &st) < 0 && stat(cg.parent, &st) == 0, "and the job's cgroup is gone");
	kill(b, SIGKILL);
	waitpid(b, &status, 0);
	return done_testing();
}
