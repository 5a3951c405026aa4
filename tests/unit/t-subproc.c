/*
 * core/base/subproc: real child processes on an argv: input in, output and
 * errors captured and capped, exit codes, signals, a program that is not
 * there, a child that never reads its input, and the timeout.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "core/base/subproc.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static int run(const char *const *argv, const char *in, size_t in_len, size_t cap,
	       double timeout, struct tk_buf *out, struct tk_buf *errout, int *status,
	       struct tk_err *err)
{
	struct tk_subproc p;

	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.in = in;
	p.in_len = in_len;
	p.out_cap = cap;
	p.timeout_s = timeout;
	tk_buf_reset(out);
	tk_buf_reset(errout);
	return tk_subproc_run(&p, out, errout, status, err);
}

int main(void)
{
	struct tk_buf out = TK_BUF_INIT, errout = TK_BUF_INIT, big = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	const char *cat[] = { "cat", NULL };
	const char *sh_err[] = { "sh", "-c", "echo oops >&2; exit 3", NULL };
	const char *sh_kill[] = { "sh", "-c", "kill -TERM $$", NULL };
	const char *sh_mask[] = { "sh", "-c", "grep SigBlk /proc/self/status", NULL };
	const char *missing[] = { "tracker-no-such-program", NULL };
	const char *sleeper[] = { "sleep", "10", NULL };
	const char *no_read[] = { "true", NULL };
	sigset_t set;
	int status, ret;

	ret = run(cat, "hello\n", 6, 0, 10, &out, &errout, &status, &err);
	ok(!ret && status == 0 && !strcmp(out.buf, "hello\n"), "cat echoes its input");

	ret = run(sh_err, NULL, 0, 0, 10, &out, &errout, &status, &err);
	ok(!ret && status == 3 && !strcmp(errout.buf, "oops\n") && out.len == 0,
	   "exit status and stderr");

	ret = run(sh_kill, NULL, 0, 0, 10, &out, &errout, &status, &err);
	is_int(status, 128 + SIGTERM, "death by a signal is 128+N");

	ret = run(missing, NULL, 0, 0, 10, &out, &errout, &status, &err);
	ok(ret == TK_EUNAVAIL && strstr(err.msg, "cannot run 'tracker-no-such-program': not found"),
	   "a program not on PATH (%s)", err.msg);
	ok(!tk_subproc_on_path("tracker-no-such-program") && tk_subproc_on_path("sh"),
	   "tk_subproc_on_path");

	while (big.len < 3u << 20)
		tk_buf_adds(&big, "0123456789abcdef0123456789abcdef0123456789abcdef012345678\n");
	ret = run(cat, big.buf, big.len, 1u << 20, 30, &out, &errout, &status, &err);
	ok(!ret && status == 0 && out.len == 1u << 20 && !memcmp(out.buf, big.buf, out.len),
	   "3 MiB through cat: no deadlock, output capped at 1 MiB");

	ret = run(no_read, big.buf, big.len, 0, 10, &out, &errout, &status, &err);
	ok(!ret && status == 0, "a child that never reads its input (no SIGPIPE)");

	/* tracker run's state: TERM blocked; the child must not inherit it */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	ret = run(sh_mask, NULL, 0, 0, 10, &out, &errout, &status, &err);
	ok(!ret && strstr(out.buf, "SigBlk:\t0000000000000000"),
	   "the child starts with no blocked signal (%s)", out.buf);

	ret = run(sleeper, NULL, 0, 0, 0.3, &out, &errout, &status, &err);
	ok(!ret && status == 124, "killed after its timeout: 124");

	tk_buf_release(&out);
	tk_buf_release(&errout);
	tk_buf_release(&big);
	return done_testing();
}
