#include "core/err.h"

#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/banned.h"

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

int tk_err_prefix(struct tk_err *err, const char *fmt, ...)
{
	struct tk_buf b = TK_BUF_INIT;
	va_list ap;
	size_t n;

	if (!err)
		return TK_EINTERNAL;
	va_start(ap, fmt);
	tk_buf_vaddf(&b, fmt, ap);
	va_end(ap);
	tk_buf_addf(&b, ": %s", err->msg);
	n = b.len < sizeof(err->msg) - 1 ? b.len : sizeof(err->msg) - 1;
	memcpy(err->msg, b.buf, n);
	err->msg[n] = '\0';
	tk_buf_release(&b);
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
