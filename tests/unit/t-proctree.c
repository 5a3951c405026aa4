/*
 * core/measure/proctree: the RSS of a process tree, sampled from /proc.
 *
 * Forks real children that touch known amounts of memory and checks that a
 * sample rooted at this process sees them, through both ways of listing
 * the tree (children files and the /proc scan).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/measure/proctree.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

#define MiB (1024LL * 1024)

static void touch(size_t bytes)
{
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(99);
	memset(p, 0x5a, bytes);
}

/* Tells the parent we are ready: our pid on the pipe. */
static void ready(int fd)
{
	pid_t me = getpid();

	if (write(fd, &me, sizeof(me)) != (ssize_t)sizeof(me))
		_exit(98);
}

static pid_t wait_ready(int fd)
{
	pid_t pid = -1;
	ssize_t n;

	do
		n = read(fd, &pid, sizeof(pid));
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(pid) ? pid : -1;
}

static int contains(const struct tk_proctree *t, pid_t pid)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (t->pids[i] == pid)
			return 1;
	return 0;
}

static void reap(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Samples with both listing methods; `what` names the case. */
static void sample_both(pid_t root, struct tk_tree_sample out[2], pid_t must1, pid_t must2,
			const char *what)
{
	int mode;

	for (mode = 0; mode < 2; mode++) {
		struct tk_proctree t;
		int ret;

		tk_proctree_init(&t, root);
		if (mode == 1)
			t.use_children = 0;
		else if (!t.use_children)
			diag("this kernel has no /proc/PID/task/TID/children; both runs scan");
		ret = tk_proctree_sample(&t, &out[mode]);
		is_int(ret, 0, "%s (%s): sample succeeds", what, mode ? "scan" : "children");
		if (must1 > 0)
			ok(contains(&t, must1), "%s (%s): the tree lists pid %ld", what,
			   mode ? "scan" : "children", (long)must1);
		if (must2 > 0)
			ok(contains(&t, must2), "%s (%s): the tree lists pid %ld", what,
			   mode ? "scan" : "children", (long)must2);
		ok(!contains(&t, root), "%s (%s): the root itself is not in the tree", what,
		   mode ? "scan" : "children");
		tk_proctree_release(&t);
	}
}

static void test_one_child(void)
{
	struct tk_tree_sample s[2];
	int fds[2], mode;
	pid_t pid;

	if (pipe(fds))
		return;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		touch(64 * MiB);
		ready(fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	ok(wait_ready(fds[0]) == pid, "the 64 MiB child is ready");
	close(fds[0]);
	sample_both(getpid(), s, pid, 0, "one child");
	for (mode = 0; mode < 2; mode++) {
		ok(s[mode].rss_bytes >= 64 * MiB, "one child: tree RSS %lld >= 64 MiB",
		   (long long)s[mode].rss_bytes);
		ok(s[mode].max_proc_rss_bytes >= 64 * MiB, "one child: largest process %lld >= 64 MiB",
		   (long long)s[mode].max_proc_rss_bytes);
		ok(s[mode].nprocs >= 1, "one child: nprocs %d >= 1", s[mode].nprocs);
	}
	ok(tk_proc_rss_bytes(pid, sysconf(_SC_PAGESIZE)) >= 64 * MiB,
	   "tk_proc_rss_bytes of the child is >= 64 MiB");

	reap(pid);
	sample_both(getpid(), s, 0, 0, "after reaping");
	for (mode = 0; mode < 2; mode++)
		ok(s[mode].nprocs == 0 && s[mode].rss_bytes == 0 && s[mode].max_proc_rss_bytes == 0,
		   "after reaping: the sample is empty (%d procs, %lld bytes)", s[mode].nprocs,
		   (long long)s[mode].rss_bytes);
	is_int(tk_proc_rss_bytes(pid, sysconf(_SC_PAGESIZE)), -1,
	       "tk_proc_rss_bytes of a reaped pid is -1");
}

/* child (small) -> grandchild (32 MiB). With this process a subreaper, as
 * tk_job_run makes it, the grandchild stays in the tree when its parent
 * dies. */
static void test_grandchild(void)
{
	struct tk_tree_sample s[2];
	int fds[2], mode;
	pid_t child, grandchild;

	if (pipe(fds))
		return;
	child = fork();
	if (child == 0) {
		pid_t g;

		close(fds[0]);
		g = fork();
		if (g == 0) {
			touch(32 * MiB);
			ready(fds[1]);
			for (;;)
				pause();
		}
		ready(fds[1]);
		for (;;)
			pause();
	}
	close(fds[1]);
	/* Two pids arrive in either order; the one that is not `child` is
	 * the grandchild. */
	grandchild = wait_ready(fds[0]);
	if (grandchild == child)
		grandchild = wait_ready(fds[0]);
	else
		wait_ready(fds[0]);
	close(fds[0]);
	ok(grandchild > 0 && grandchild != child, "the grandchild is ready");
	sample_both(getpid(), s, child, grandchild, "grandchild");
	for (mode = 0; mode < 2; mode++) {
		ok(s[mode].nprocs >= 2, "grandchild: nprocs %d >= 2", s[mode].nprocs);
		ok(s[mode].rss_bytes >= 32 * MiB, "grandchild: tree RSS %lld >= 32 MiB",
		   (long long)s[mode].rss_bytes);
		ok(s[mode].max_proc_rss_bytes >= 32 * MiB,
		   "grandchild: largest process %lld >= 32 MiB",
		   (long long)s[mode].max_proc_rss_bytes);
	}

	/* The middle process dies; the grandchild is reparented to us. */
	reap(child);
	sample_both(getpid(), s, grandchild, 0, "orphaned grandchild");
	for (mode = 0; mode < 2; mode++)
		ok(s[mode].nprocs == 1 && s[mode].rss_bytes >= 32 * MiB,
		   "orphaned grandchild: still counted (%d procs, %lld bytes)", s[mode].nprocs,
		   (long long)s[mode].rss_bytes);
	reap(grandchild);
	sample_both(getpid(), s, 0, 0, "after reaping both");
	ok(s[0].nprocs == 0 && s[1].nprocs == 0, "after reaping both: the tree is empty");
}

static int thread_fd;

static void *thread_main(void *arg)
{
	pid_t g = fork();

	if (g == 0) {
		touch(16 * MiB);
		ready(thread_fd);
		for (;;)
			pause();
	}
	for (;;)
		pause();
	return arg;
}

/* A grandchild forked by a second thread of the child is listed in that
 * thread's children file, not the main thread's. */
static void test_thread_child(void)
{
	struct tk_tree_sample s[2];
	int fds[2], mode;
	pid_t child, grandchild;

	if (pipe(fds))
		return;
	child = fork();
	if (child == 0) {
		pthread_t th;

		close(fds[0]);
		thread_fd = fds[1];
		if (pthread_create(&th, NULL, thread_main, NULL))
			_exit(97);
		for (;;)
			pause();
	}
	close(fds[1]);
	grandchild = wait_ready(fds[0]);
	close(fds[0]);
	ok(grandchild > 0, "the grandchild of a thread is ready");
	sample_both(getpid(), s, child, grandchild, "thread's child");
	for (mode = 0; mode < 2; mode++)
		ok(s[mode].nprocs >= 2 && s[mode].max_proc_rss_bytes >= 16 * MiB,
		   "thread's child: counted (%d procs, largest %lld bytes)", s[mode].nprocs,
		   (long long)s[mode].max_proc_rss_bytes);
	reap(child);
	reap(grandchild);
}

static void test_misc(void)
{
	struct tk_proctree t;
	struct tk_tree_sample s;
	long pg = sysconf(_SC_PAGESIZE);

	ok(tk_proc_rss_bytes(getpid(), pg) > 0, "tk_proc_rss_bytes of this process is positive");
	ok(tk_proc_rss_bytes(getpid(), pg) % pg == 0, "and a whole number of pages");
	is_int(tk_proc_rss_bytes(0, pg), -1, "tk_proc_rss_bytes(0) is -1");
	tk_proctree_init(&t, getpid());
	is_int(tk_proctree_sample(&t, &s), 0, "sampling a tree without children succeeds");
	ok(s.nprocs == 0 && s.rss_bytes == 0, "and finds nothing");
	is_int(tk_proctree_list(&t), 0, "listing it succeeds");
	is_int(t.nr, 0, "and lists nothing");
	tk_proctree_release(&t);
	ok(t.pids == NULL && t.nr == 0, "release clears the struct");
}

int main(void)
{
	alarm(120); /* a hung child must not hang the suite */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		diag("cannot become a child subreaper; the orphan case will fail");
	test_misc();
	test_one_child();
	test_grandchild();
	test_thread_child();
	return done_testing();
}
