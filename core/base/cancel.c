/*
 * Cancellable waits (core/base/cancel.h).
 */
#include "core/base/cancel.h"

#include <errno.h>
#include <time.h>

#include "core/base/timeutil.h"
#include "core/base/banned.h"

#define SLICE_S 0.010

int tk_cancelled(const volatile sig_atomic_t *flag)
{
	return flag && *flag;
}

int tk_cancel_sleep(const volatile sig_atomic_t *flag, double seconds)
{
	double end = tk_mono_s() + seconds;

	for (;;) {
		struct timespec ts;
		double left;

		if (tk_cancelled(flag))
			return 1;
		left = end - tk_mono_s();
		if (left <= 0)
			return 0;
		if (left > SLICE_S)
			left = SLICE_S;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		/* a signal handler that set the flag interrupts this: looked at above */
		nanosleep(&ts, NULL);
	}
}

int tk_cancel_err(struct tk_err *err, const char *what)
{
	return tk_err_set(err, TK_EUNAVAIL, "cancelled while waiting for %s", what);
}
