#ifndef TK_SUBPROC_H
#define TK_SUBPROC_H
/*
 * Running a helper program tracker talks to (sacct, buildkite-agent) and
 * reading what it says: fork and execvp on an argv, never a shell.
 *
 * The child gets tracker's environment, an empty signal mask and default
 * signal dispositions (tracker run blocks TERM/INT/HUP/CHLD while it
 * supervises a job; a helper must not inherit that). Its standard input is
 * `in` (in_len bytes, then end of file; /dev/null when in is NULL), its
 * standard output is captured into `out` up to out_cap bytes (the rest is
 * read and dropped, so the child never blocks on a full pipe), and its
 * standard error goes to `errout` the same way (NULL: dropped).
 *
 * A child still running timeout_s after the start is killed (KILL) and
 * reaped. Writing to a child that stopped reading is not an error (SIGPIPE
 * is blocked in the calling thread while writing and a pending one is
 * consumed).
 *
 * Returns 0 when the program ran, with *status its exit code (0..255),
 * 128 + N when it died by signal N, or 124 when it was killed for the
 * timeout; TK_EUNAVAIL when it could not be started ("cannot run 'sacct':
 * not found" for a program not on PATH); TK_EINTERNAL when a pipe or fork
 * failed.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"

struct tk_subproc {
	const char *const *argv; /* NULL-terminated, argv[0] looked up in PATH */
	const void *in;
	size_t in_len;
	size_t out_cap;          /* 0: 1 MiB */
	double timeout_s;        /* <= 0: 60 s */
};

int tk_subproc_run(const struct tk_subproc *p, struct tk_buf *out, struct tk_buf *errout,
		   int *status, struct tk_err *err);

/* 1 when name (no '/') is an executable file in one of $PATH's directories. */
int tk_subproc_on_path(const char *name);

#endif
