#include "core/base/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base/banned.h"

int tk_err_set(struct tk_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

/* Appends s to dst (len bytes used of TK_ERR_MSG_MAX), cut to fit. */
static size_t add_cut(char *dst, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n > TK_ERR_MSG_MAX - 1 - len)
		n = TK_ERR_MSG_MAX - 1 - len;
	memcpy(dst + len, s, n);
	dst[len + n] = '\0';
	return len + n;
}

int tk_err_prefix(struct tk_err *err, const char *fmt, ...)
{
	char msg[TK_ERR_MSG_MAX];
	va_list ap;
	size_t len;

	if (!err)
		return TK_EINTERNAL;
	memcpy(msg, err->msg, sizeof(msg));
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = add_cut(err->msg, strlen(err->msg), ": ");
	add_cut(err->msg, len, msg);
	return err->code;
}

void tk_err_clear(struct tk_err *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

int tk_err_exit_code(int code)
{
	switch (code) {
	case TK_OK:
		return 0;
	case TK_EUSAGE:
		return 2;
	case TK_EDATA:
	case TK_ENOTMINE:
	case TK_EUNSUPPORTED:
		return 65;
	case TK_EUNAVAIL:
		return 69;
	default:
		return 70;
	}
}
