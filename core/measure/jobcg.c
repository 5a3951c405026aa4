/* The job's own cgroup v2 (core/measure/jobcg.h). */
#include "core/measure/jobcg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

/* The mount point of the cgroup2 file system, from mountinfo. */
static int find_mount(char *out, size_t size)
{
	struct tk_buf mi = TK_BUF_INIT;
	const char *line;
	int found = -1;

	if (tk_buf_read_file(&mi, "/proc/self/mountinfo", NULL)) {
		tk_buf_release(&mi);
		return -1;
	}
	for (line = mi.buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *end = strchr(line, '\n'), *sep, *p;
		char mnt[TK_JOBCG_PATH];
		size_t i, len;
		int field;

		if (!end)
			end = line + strlen(line);
		sep = strstr(line, " - ");
		if (!sep || sep > end || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		/* field 5 is the mount point (octal escapes for spaces: skip those) */
		p = line;
		for (field = 1; field < 5 && p < end; field++) {
			p = strchr(p, ' ');
			if (!p || p > end)
				break;
			p++;
		}
		if (field != 5 || !p)
			continue;
		len = strcspn(p, " \n");
		if (len == 0 || len >= sizeof(mnt) || len >= size || memchr(p, '\\', len))
			continue;
		for (i = 0; i < len; i++)
			mnt[i] = p[i];
		mnt[len] = '\0';
		memcpy(out, mnt, len + 1);
		found = 0;
		break;
	}
	tk_buf_release(&mi);
	return found;
}

/* Our cgroup v2 path relative to the mount, from /proc/self/cgroup. */
static int find_self(char *out, size_t size)
{
	struct tk_buf cg = TK_BUF_INIT;
	const char *p;
	int found = -1;

	if (tk_buf_read_file(&cg, "/proc/self/cgroup", NULL)) {
		tk_buf_release(&cg);
		return -1;
	}
	for (p = cg.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, "0::/", 4)) {
			size_t len = strcspn(p + 3, "\n");

			if (len < size && !strstr(p + 3, " (deleted)")) {
				memcpy(out, p + 3, len);
				out[len] = '\0';
				found = 0;
			}
			break;
		}
	tk_buf_release(&cg);
	return found;
}

/* N of the "oom_kill N" line of a cgroup file; -1 when there is none */
static int64_t oom_kill_line(const char *path)
{
	struct tk_buf b = TK_BUF_INIT;
	const char *p;
	int64_t n = -1;

	if (!tk_buf_read_file(&b, path, NULL)) {
		for (p = b.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (!strncmp(p, "oom_kill ", 9)) {
				n = strtoll(p + 9, NULL, 10);
				break;
			}
	}
	tk_buf_release(&b);
	return n;
}

/* Our cgroup v1 memory path, from the "N:memory:PATH" line of /proc/self/cgroup. */
static int find_self_v1_memory(char *out, size_t size)
{
	struct tk_buf cg = TK_BUF_INIT;
	const char *p;
	int found = -1;

	if (tk_buf_read_file(&cg, "/proc/self/cgroup", NULL)) {
		tk_buf_release(&cg);
		return -1;
	}
	for (p = cg.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		const char *c = strchr(p, ':'), *nl = strchr(p, '\n');

		if (!c || (nl && c > nl) || strncmp(c, ":memory:/", 9))
			continue;
		c += 8;
		if ((size_t)strcspn(c, "\n") < size) {
			memcpy(out, c, strcspn(c, "\n"));
			out[strcspn(c, "\n")] = '\0';
			found = 0;
		}
		break;
	}
	tk_buf_release(&cg);
	return found;
}

int64_t tk_jobcg_oom_kills(void)
{
	char mnt[TK_JOBCG_PATH], rel[TK_JOBCG_PATH], path[2 * TK_JOBCG_PATH + 32];
	int64_t n, sum = -1;

	if (!find_mount(mnt, sizeof(mnt)) && !find_self(rel, sizeof(rel))) {
		snprintf(path, sizeof(path), "%s%s/memory.events", mnt, strcmp(rel, "/") ? rel : "");
		n = oom_kill_line(path);
		if (n >= 0)
			sum = n;
	}
	if (!find_self_v1_memory(rel, sizeof(rel))) {
		snprintf(path, sizeof(path), "/sys/fs/cgroup/memory%s/memory.oom_control",
			 strcmp(rel, "/") ? rel : "");
		n = oom_kill_line(path);
		if (n >= 0)
			sum = (sum < 0 ? 0 : sum) + n;
	}
	return sum;
}

static int write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	do
		n = write(fd, s, len);
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

#define SWEEP_MAX_ENTRIES 4096

/*
 * Removes the empty job cgroups of trackers that died without removing
 * theirs: SLURM KILLs tracker and its watchdog together when the batch
 * shell of a cancelled job dies, and nothing else would. A directory of
 * a live tracker (its pid exists) is left alone, and rmdir refuses one
 * that still holds processes.
 */
static void sweep(const char *parent)
{
	char path[TK_JOBCG_PATH + 300];
	struct dirent *d;
	DIR *dir = opendir(parent);
	int seen = 0;

	if (!dir)
		return;
	while (seen++ < SWEEP_MAX_ENTRIES) {
		long pid;
		unsigned long rnd;
		char tail;

		d = readdir(dir);
		if (!d)
			break;
		if (sscanf(d->d_name, "tracker-job-%ld-%6lx%c", &pid, &rnd, &tail) != 2 ||
		    pid <= 0 || pid == (long)getpid())
			continue;
		if (!kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", parent, d->d_name) < (int)sizeof(path))
			rmdir(path);
	}
	closedir(dir);
}

int tk_jobcg_create(struct tk_jobcg *cg)
{
	char mnt[TK_JOBCG_PATH], rel[TK_JOBCG_PATH], path[TK_JOBCG_PATH + 32];
	struct timespec ts;
	unsigned long rnd;
	int n;

	cg->dir[0] = cg->parent[0] = cg->procs[0] = '\0';
	if (find_mount(mnt, sizeof(mnt)) || find_self(rel, sizeof(rel)))
		return -1;
	n = snprintf(cg->parent, sizeof(cg->parent), "%s%s", mnt,
		     strcmp(rel, "/") ? rel : "");
	if (n < 0 || (size_t)n >= sizeof(cg->parent))
		goto fail;
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg->parent);
	if (access(cg->parent, W_OK) || access(path, W_OK))
		goto fail;
	sweep(cg->parent);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	rnd = ((unsigned long)ts.tv_nsec ^ ((unsigned long)ts.tv_sec << 20)) & 0xffffffUL;
	n = snprintf(cg->dir, sizeof(cg->dir), "%s/tracker-job-%ld-%06lx", cg->parent,
		     (long)getpid(), rnd);
	if (n < 0 || (size_t)n + sizeof("/cgroup.procs") > sizeof(cg->dir))
		goto fail;
	if (mkdir(cg->dir, 0755))
		goto fail;
	snprintf(cg->procs, sizeof(cg->procs), "%s/cgroup.procs", cg->dir);
	snprintf(path, sizeof(path), "%s/cgroup.kill", cg->dir);
	if (access(cg->procs, W_OK) || access(path, W_OK)) {
		rmdir(cg->dir);
		goto fail;
	}
	return 0;
fail:
	cg->dir[0] = cg->parent[0] = cg->procs[0] = '\0';
	return -1;
}

/* struct clone_args of linux/sched.h, up to its cgroup field */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
		set_tid, set_tid_size, cgroup;
};
#define INTO_CGROUP 0x200000000ULL /* CLONE_INTO_CGROUP */

#ifdef SYS_clone3
static long clone_into(int fd)
{
	struct clone3_args a;

	memset(&a, 0, sizeof(a));
	a.flags = INTO_CGROUP;
	a.exit_signal = SIGCHLD;
	a.cgroup = (uint64_t)fd;
	return syscall(SYS_clone3, &a, sizeof(a));
}
#endif

pid_t tk_jobcg_fork(const struct tk_jobcg *cg, int *placed)
{
	*placed = 0;
#ifdef SYS_clone3
	if (cg && cg->dir[0]) {
		int fd = open(cg->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), status = 0;
		long pid;

		/*
		 * Some kernels (seen on 6.18) KILL a child cloned into a
		 * cgroup whose cgroup.kill count differs from the parent's
		 * cgroup's (one that was ever killed): a probe that only
		 * exits tells, before the job is risked.
		 */
		pid = fd >= 0 ? clone_into(fd) : -1;
		if (pid == 0)
			_exit(0);
		if (pid > 0) {
			while (waitpid((pid_t)pid, &status, 0) < 0 && errno == EINTR)
				;
			pid = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? clone_into(fd) : -1;
		}
		if (fd >= 0)
			close(fd);
		if (pid >= 0) {
			*placed = 1;
			return (pid_t)pid;
		}
	}
#endif
	return fork();
}

void tk_jobcg_enter(const struct tk_jobcg *cg)
{
	int fd;

	if (!cg || !cg->procs[0])
		return;
	fd = open(cg->procs, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "0", 1) < 0) {
		/* the job runs without: the watchdog still covers it */
	}
	close(fd);
}

int tk_jobcg_kill_dir(const char *dir)
{
	char path[TK_JOBCG_PATH + 32];
	int n;

	if (!dir || !dir[0] || strlen(dir) >= TK_JOBCG_PATH)
		return -1;
	n = snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -1;
	return write_str(path, "1");
}

int tk_jobcg_kill(const struct tk_jobcg *cg)
{
	return cg ? tk_jobcg_kill_dir(cg->dir) : -1;
}

int tk_jobcg_remove(const char *dir, double wait_s)
{
	struct timespec nap = { 0, 10 * 1000000L };
	long tries = (long)(wait_s / 0.01) + 1, i;

	if (!dir || !dir[0])
		return -1;
	for (i = 0; i < tries; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		nanosleep(&nap, NULL);
	}
	return -1;
}

void tk_jobcg_release(struct tk_jobcg *cg)
{
	char path[TK_JOBCG_PATH + 32], to[TK_JOBCG_PATH + 32];
	int pass;

	if (!cg || !cg->dir[0])
		return;
	snprintf(to, sizeof(to), "%s/cgroup.procs", cg->parent);
	/* a process forking meanwhile may add one: a few passes */
	for (pass = 0; pass < 5; pass++) {
		struct tk_buf procs = TK_BUF_INIT;
		const char *p;
		int moved = 0;

		snprintf(path, sizeof(path), "%s/cgroup.procs", cg->dir);
		if (tk_buf_read_file(&procs, path, NULL)) {
			tk_buf_release(&procs);
			break;
		}
		for (p = procs.buf; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
			char pid[32];
			size_t len = strcspn(p, "\n");

			if (len == 0 || len >= sizeof(pid))
				continue;
			memcpy(pid, p, len);
			pid[len] = '\0';
			write_str(to, pid);
			moved++;
		}
		tk_buf_release(&procs);
		if (!moved)
			break;
	}
	tk_jobcg_remove(cg->dir, 0.5);
	cg->dir[0] = cg->procs[0] = '\0';
}
