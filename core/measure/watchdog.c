/*
 * The watchdog process (core/measure/watchdog.h).
 *
 * The pipe carries int32 words: {-2, pgid} names the job's group,
 * {n, pid...} (0 <= n <= TK_WATCHDOG_MAX_PIDS) is the tree as sampled,
 * {-3, n} followed by n bytes (padded to whole words) names the job's
 * cgroup directory, {-1} is the goodbye. Each message is one write of at most PIPE_BUF
 * bytes, so it arrives whole or (pipe full, O_NONBLOCK) not at all.
 */
#include "core/measure/watchdog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/measure/jobcg.h"
#include "core/base/banned.h"

#define MSG_DONE (-1)
#define MSG_GROUP (-2)
#define MSG_CGROUP (-3)
/* a cgroup path is sent whole in one write of at most PIPE_BUF bytes */
#define MAX_CGROUP_PATH 4000

/* ---- the watchdog's side ---- */

struct known {
	pid_t pid;
	unsigned long long start; /* /proc/PID/stat starttime, 0 unknown */
};

struct stat_fields {
	pid_t ppid, pgrp;
	unsigned long long start;
};

static int read_stat(pid_t pid, struct stat_fields *f)
{
	char path[64], buf[1024];
	const char *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* the command name may hold anything: the fields follow the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	p++;
	/* fields 3.. : state ppid pgrp session tty_nr tpgid flags minflt
	 * cminflt majflt cmajflt utime stime cutime cstime priority nice
	 * num_threads itrealvalue starttime */
	for (i = 3; i <= 22 && *p; i++) {
		while (*p == ' ')
			p++;
		if (i == 4)
			f->ppid = (pid_t)strtol(p, NULL, 10);
		else if (i == 5)
			f->pgrp = (pid_t)strtol(p, NULL, 10);
		else if (i == 22)
			f->start = strtoull(p, NULL, 10);
		while (*p && *p != ' ')
			p++;
	}
	return i > 22 ? 0 : -1;
}

static int in_set(const pid_t *set, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == pid)
			return 1;
	return 0;
}

/* Stops the group, the known pids still theirs, and what descends from
 * them or sits in the group; then kills them all. */
static void kill_tree(pid_t pgid, const struct known *known, size_t nknown)
{
	pid_t *stopped = NULL;
	size_t nr = 0, alloc = 0, i, before;
	int pass;

	if (pgid > 0)
		kill(-pgid, SIGSTOP);
	for (i = 0; i < nknown; i++) {
		struct stat_fields f;

		if (read_stat(known[i].pid, &f) || f.start != known[i].start)
			continue;
		kill(known[i].pid, SIGSTOP);
		TK_ALLOC_GROW(stopped, nr + 1, alloc);
		stopped[nr++] = known[i].pid;
	}
	for (pass = 0; pass < 8; pass++) {
		DIR *d = opendir("/proc");
		struct dirent *de;

		if (!d)
			break;
		before = nr;
		while ((de = readdir(d))) {
			struct stat_fields f;
			char *end;
			long pid = strtol(de->d_name, &end, 10);

			if (*end || pid <= 1 || pid == (long)getpid() || in_set(stopped, nr, (pid_t)pid))
				continue;
			if (read_stat((pid_t)pid, &f))
				continue;
			if ((pgid > 0 && f.pgrp == pgid) || in_set(stopped, nr, f.ppid)) {
				kill((pid_t)pid, SIGSTOP);
				TK_ALLOC_GROW(stopped, nr + 1, alloc);
				stopped[nr++] = (pid_t)pid;
			}
		}
		closedir(d);
		if (nr == before)
			break;
	}
	if (pgid > 0)
		kill(-pgid, SIGKILL);
	for (i = 0; i < nr; i++)
		kill(stopped[i], SIGKILL);
	free(stopped);
}

static int read_words(int fd, int32_t *w, size_t n)
{
	size_t got = 0;

	while (got < n * sizeof(*w)) {
		ssize_t r = read(fd, (char *)w + got, n * sizeof(*w) - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static void __attribute__((noreturn)) watch(int fd)
{
	struct known *known = tk_xcalloc(TK_WATCHDOG_MAX_PIDS, sizeof(*known));
	int32_t *pids = tk_xcalloc(TK_WATCHDOG_MAX_PIDS, sizeof(*pids));
	size_t nknown = 0, i;
	pid_t pgid = 0;
	char cgroup[MAX_CGROUP_PATH + 4] = "";

	for (;;) {
		int32_t word;

		if (read_words(fd, &word, 1))
			break; /* end of file: tracker is gone */
		if (word == MSG_DONE)
			_exit(0);
		if (word == MSG_GROUP) {
			if (read_words(fd, &word, 1))
				break;
			pgid = (pid_t)word;
			continue;
		}
		if (word == MSG_CGROUP) {
			if (read_words(fd, &word, 1) || word < 0 || word > MAX_CGROUP_PATH ||
			    read_words(fd, (int32_t *)(void *)cgroup, ((size_t)word + 3) / 4))
				break;
			cgroup[word] = '\0';
			continue;
		}
		if (word < 0 || word > TK_WATCHDOG_MAX_PIDS || read_words(fd, pids, (size_t)word))
			break;
		nknown = 0;
		for (i = 0; i < (size_t)word; i++) {
			struct stat_fields f;

			if (read_stat(pids[i], &f))
				continue;
			known[nknown].pid = pids[i];
			known[nknown++].start = f.start;
		}
	}
	/* cgroup.kill takes everything in the job's cgroup, daemons that
	 * no tree sample saw included; then the group and the pids as
	 * before, for what is outside it */
	tk_jobcg_kill_dir(cgroup);
	kill_tree(pgid, known, nknown);
	tk_jobcg_remove(cgroup, 5.0);
	_exit(0);
}

/* Closes every descriptor from 3 up but keep. */
static void close_others(int keep)
{
	long max = sysconf(_SC_OPEN_MAX);
	int fd;

#ifdef SYS_close_range
	/* (a range below keep only when there is one: close_range(3, 2)
	 * is EINVAL, which sent a watchdog kept on fd 3 through the loop
	 * below, tens of thousands of close calls on every run) */
	if ((keep <= 3 || !syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u)) &&
	    !syscall(SYS_close_range, (unsigned)(keep < 3 ? 3 : keep + 1), ~0u, 0u))
		return;
#endif
	if (max < 0 || max > 65536)
		max = 65536;
	for (fd = 3; fd < max; fd++)
		if (fd != keep)
			close(fd);
}

/* The watchdog's start: nothing of tracker's but the pipe. */
static void __attribute__((noreturn)) become_watchdog(int fd)
{
	struct sigaction dfl;
	sigset_t none;
	int null;

	null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (fd < 3)
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0)
		_exit(0);
	close_others(fd);
	setsid();
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_IGN;
	/* a terminal's hangup or interrupt is not for the watchdog */
	sigaction(SIGHUP, &dfl, NULL);
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, "tracker-watch", 0, 0, 0);
	watch(fd);
}

/* ---- tracker's side ---- */

int tk_watchdog_start(struct tk_watchdog *w, struct tk_err *err)
{
	int fds[2], e;
	pid_t mid;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return tk_err_set(err, TK_EINTERNAL, "cannot create a pipe: %s", strerror(errno));
	mid = fork();
	if (mid < 0) {
		e = errno;
		close(fds[0]);
		close(fds[1]);
		return tk_err_set(err, TK_EINTERNAL, "cannot fork: %s", strerror(e));
	}
	if (mid == 0) {
		/* forked twice, so that the watchdog is no child of tracker's */
		close(fds[1]);
		if (fork() == 0)
			become_watchdog(fds[0]);
		_exit(0);
	}
	close(fds[0]);
	w->mid = mid;
	fcntl(fds[1], F_SETFL, O_NONBLOCK);
	w->fd = fds[1];
	return 0;
}

void tk_watchdog_ready(struct tk_watchdog *w)
{
	int status;

	if (w->mid <= 0)
		return;
	while (waitpid(w->mid, &status, 0) < 0 && errno == EINTR)
		;
	w->mid = 0;
}

/* 0 when the message went into the pipe (whole: it is at most PIPE_BUF). */
static int send_words(struct tk_watchdog *w, const int32_t *words, size_t n)
{
	ssize_t r;

	if (w->fd < 0)
		return -1;
	do
		r = write(w->fd, words, n * sizeof(*words));
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)(n * sizeof(*words)) ? 0 : -1;
}

void tk_watchdog_group(struct tk_watchdog *w, pid_t pgid)
{
	int32_t msg[2] = { MSG_GROUP, (int32_t)pgid };

	send_words(w, msg, 2);
}

void tk_watchdog_cgroup(struct tk_watchdog *w, const char *dir)
{
	int32_t msg[2 + (MAX_CGROUP_PATH + 3) / 4];
	size_t len = dir ? strlen(dir) : 0;

	if (w->fd < 0 || len == 0 || len > MAX_CGROUP_PATH)
		return;
	memset(msg, 0, sizeof(msg));
	msg[0] = MSG_CGROUP;
	msg[1] = (int32_t)len;
	memcpy(msg + 2, dir, len);
	send_words(w, msg, 2 + (len + 3) / 4);
}

void tk_watchdog_pids(struct tk_watchdog *w, const pid_t *pids, size_t n)
{
	int32_t msg[1 + TK_WATCHDOG_MAX_PIDS];
	size_t i;

	if (w->fd < 0)
		return;
	if (n > TK_WATCHDOG_MAX_PIDS)
		n = TK_WATCHDOG_MAX_PIDS;
	if (n == w->nr_sent && !memcmp(pids, w->sent, n * sizeof(*pids)))
		return;
	msg[0] = (int32_t)n;
	for (i = 0; i < n; i++)
		msg[1 + i] = (int32_t)pids[i];
	if (send_words(w, msg, n + 1))
		return; /* no room: the next sample tries again */
	TK_ALLOC_GROW(w->sent, n, w->alloc_sent);
	if (n)
		memcpy(w->sent, pids, n * sizeof(*pids));
	w->nr_sent = n;
}

void tk_watchdog_done(struct tk_watchdog *w)
{
	int32_t msg = MSG_DONE;

	tk_watchdog_ready(w);
	/* this one must arrive, or the watchdog takes the end of file for
	 * tracker's death: wait for room */
	if (w->fd >= 0)
		fcntl(w->fd, F_SETFL, 0);
	send_words(w, &msg, 1);
	if (w->fd >= 0)
		close(w->fd);
	w->fd = -1;
	free(w->sent);
	w->sent = NULL;
	w->nr_sent = w->alloc_sent = 0;
}
