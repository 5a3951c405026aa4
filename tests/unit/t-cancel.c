/*
 * core/base/cancel: a cancel flag ends a sleep early; NULL never cancels.
 */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "core/base/cancel.h"
#include "core/base/timeutil.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static volatile sig_atomic_t flag;

static void on_alarm(int sig)
{
	(void)sig;
	flag = 1;
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct itimerval it;
	struct sigaction sa;

	ok(!tk_cancelled(NULL), "NULL is never cancelled");
	ok(!tk_cancelled(&flag), "an unset flag is not");
	is_int(tk_cancel_sleep(NULL, 0.02), 0, "a sleep without a flag runs out");
	is_int(tk_cancel_sleep(&flag, 0.02), 0, "so does one with an unset flag");

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 50000;
	setitimer(ITIMER_REAL, &it, NULL);
	/* a 60 s sleep: the flag set by the handler ends it */
	is_int(tk_cancel_sleep(&flag, 60), 1, "a signal handler's flag ends a long sleep");
	is_int(tk_cancel_sleep(&flag, 60), 1, "a set flag ends the next one at once");
	is_int(tk_cancel_err(&err, "database 'x'"), TK_EUNAVAIL, "the error is TK_EUNAVAIL");
	is_str(err.msg, "cancelled while waiting for database 'x'", "and says so");
	return done_testing();
}
