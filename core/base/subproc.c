/*
 * Helper programs on an argv: pipes for the child's standard input,
 * output and error, served by one poll loop, so a child that writes much
 * before reading all its input (or the reverse) cannot deadlock with us.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/base/subproc.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define DEFAULT_CAP (1u << 20)
#define DEFAULT_TIMEOUT_S 60.0

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child(const struct tk_subproc *p, int in_fd, int out_fd, int err_fd, int report_fd)
{
	sigset_t none;
	int sig, e;

	sigemptyset(&none);
	for (sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		goto fail;
	execvp(p->argv[0], (char *const *)p->argv);
fail:
	e = errno;
	if (write(report_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static void append_capped(struct tk_buf *b, const char *data, size_t n, size_t cap)
{
	size_t room;

	if (!b || b->len >= cap)
		return;
	room = cap - b->len;
	tk_buf_add(b, data, n < room ? n : room);
}

/* Reads what fd has; closes it at end of file. */
static void drain(int *fd, struct tk_buf *b, size_t cap)
{
	char chunk[16384];
	ssize_t n = read(*fd, chunk, sizeof(chunk));

	if (n > 0)
		append_capped(b, chunk, (size_t)n, cap);
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		close_fd(fd);
}

/* Writes what the child will take now; closes its stdin when done or gone. */
static void feed(int *fd, const struct tk_subproc *p, size_t *off)
{
	sigset_t pipe_set, old;
	struct timespec zero = { 0, 0 };
	ssize_t n;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	n = write(*fd, (const char *)p->in + *off, p->in_len - *off);
	if (n < 0 && errno == EPIPE) {
		/* consume the SIGPIPE we caused, unless one was pending before */
		if (!sigismember(&old, SIGPIPE))
			sigtimedwait(&pipe_set, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (n > 0)
		*off += (size_t)n;
	else if (n < 0 && errno != EINTR && errno != EAGAIN)
		*off = p->in_len; /* the child does not read: stop feeding */
	if (*off >= p->in_len)
		close_fd(fd);
}

static int start_error(const struct tk_subproc *p, int e, struct tk_err *err)
{
	return tk_err_set(err, TK_EUNAVAIL, "cannot run '%s': %s", p->argv[0],
			  e == ENOENT ? "not found" : strerror(e));
}

int tk_subproc_run(const struct tk_subproc *p, struct tk_buf *out, struct tk_buf *errout,
		   int *status, struct tk_err *err)
{
	int in[2] = { -1, -1 }, o[2] = { -1, -1 }, e[2] = { -1, -1 }, rep[2] = { -1, -1 };
	size_t cap = p->out_cap ? p->out_cap : DEFAULT_CAP, off = 0;
	double deadline = tk_mono_s() + (p->timeout_s > 0 ? p->timeout_s : DEFAULT_TIMEOUT_S);
	int ret = 0, wstatus = 0, exec_errno = 0, killed = 0;
	pid_t pid;
	ssize_t n;

	*status = -1;
	if (!p->argv || !p->argv[0])
		return tk_err_set(err, TK_EINTERNAL, "no program to run");
	if (pipe2(in, O_CLOEXEC) || pipe2(o, O_CLOEXEC) || pipe2(e, O_CLOEXEC) ||
	    pipe2(rep, O_CLOEXEC)) {
		ret = tk_err_set(err, TK_EINTERNAL, "cannot make a pipe for '%s': %s",
				 p->argv[0], strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = tk_err_set(err, TK_EINTERNAL, "cannot fork for '%s': %s", p->argv[0],
				 strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(p, in[0], o[1], e[1], rep[1]);
	close_fd(&in[0]);
	close_fd(&o[1]);
	close_fd(&e[1]);
	close_fd(&rep[1]);
	do
		n = read(rep[0], &exec_errno, sizeof(exec_errno));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(exec_errno)) {
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
		ret = start_error(p, exec_errno, err);
		goto out;
	}
	if (!p->in || !p->in_len)
		close_fd(&in[1]);
	else
		fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	while (o[0] >= 0 || e[0] >= 0 || in[1] >= 0) {
		struct pollfd fds[3];
		nfds_t nfds = 0;
		double left = deadline - tk_mono_s();
		int rc, i;

		if (left <= 0) {
			kill(pid, SIGKILL);
			killed = 1;
			break;
		}
		if (in[1] >= 0)
			fds[nfds++] = (struct pollfd){ in[1], POLLOUT, 0 };
		if (o[0] >= 0)
			fds[nfds++] = (struct pollfd){ o[0], POLLIN, 0 };
		if (e[0] >= 0)
			fds[nfds++] = (struct pollfd){ e[0], POLLIN, 0 };
		rc = poll(fds, nfds, (int)(left * 1000) + 1);
		if (rc < 0 && errno != EINTR)
			break;
		for (i = 0; rc > 0 && i < (int)nfds; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == in[1])
				feed(&in[1], p, &off);
			else if (fds[i].fd == o[0])
				drain(&o[0], out, cap);
			else
				drain(&e[0], errout, cap);
		}
	}
	close_fd(&in[1]);
	/* Output closed early (a daemonizing child): wait for it, bounded too. */
	for (;;) {
		pid_t w = waitpid(pid, &wstatus, killed ? 0 : WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			ret = tk_err_set(err, TK_EINTERNAL, "cannot wait for '%s': %s",
					 p->argv[0], strerror(errno));
			goto out;
		}
		if (w == 0) {
			struct timespec ts = { 0, 10 * 1000 * 1000 };

			if (tk_mono_s() > deadline) {
				kill(pid, SIGKILL);
				killed = 1;
				continue;
			}
			nanosleep(&ts, NULL);
		}
	}
	if (killed)
		*status = 124;
	else if (WIFEXITED(wstatus))
		*status = WEXITSTATUS(wstatus);
	else if (WIFSIGNALED(wstatus))
		*status = 128 + WTERMSIG(wstatus);
out:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&o[0]);
	close_fd(&o[1]);
	close_fd(&e[0]);
	close_fd(&e[1]);
	close_fd(&rep[0]);
	close_fd(&rep[1]);
	return ret;
}

int tk_subproc_on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	struct tk_buf full = TK_BUF_INIT;
	int found = 0;

	if (!name || !*name || strchr(name, '/'))
		return 0;
	if (!path)
		path = "/usr/bin:/bin";
	for (p = path; !found; p = end + 1) {
		struct stat st;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		tk_buf_reset(&full);
		if (end > p)
			tk_buf_add(&full, p, (size_t)(end - p));
		else
			tk_buf_addch(&full, '.');
		tk_buf_addf(&full, "/%s", name);
		found = !stat(full.buf, &st) && S_ISREG(st.st_mode) && !access(full.buf, X_OK);
		if (!*end)
			break;
	}
	tk_buf_release(&full);
	return found;
}
