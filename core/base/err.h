#ifndef TK_ERR_H
#define TK_ERR_H
/*
 * Errors in core/ and plugins/: functions return 0 on success or one of the
 * negative codes below, and fill a struct tk_err with one message. Messages
 * are lower-case, without a final period, and name what failed and on what:
 * "cannot parse 'perf.txt' line 12: missing frame".
 *
 * The codes map onto tracker's documented exit codes (tk_err_exit_code):
 * usage 2, bad input data 65, service unavailable 69, internal 70.
 * TK_ENOTMINE and TK_EUNSUPPORTED are for importers: "not my format" and
 * "my format, but a variant I do not handle".
 */
#include <stddef.h>

enum tk_code {
	TK_OK = 0,
	TK_EUSAGE = -2,
	TK_EDATA = -65,
	TK_EUNAVAIL = -69,
	TK_EINTERNAL = -70,
	TK_ENOTMINE = -1000,
	TK_EUNSUPPORTED = -1001,
};

#define TK_ERR_MSG_MAX 1024

struct tk_err {
	int code;
	char msg[TK_ERR_MSG_MAX];
};

#define TK_ERR_INIT { 0, "" }

/* Sets the message (printf-style) and code; returns code so callers can
 * `return tk_err_set(err, TK_EDATA, "...")`. err may be NULL. */
int tk_err_set(struct tk_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefixes the existing message with "prefix: ". Returns err->code. */
int tk_err_prefix(struct tk_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void tk_err_clear(struct tk_err *err);

/* The process exit code for an error code: 2, 65, 69 or 70. */
int tk_err_exit_code(int code);

#endif
