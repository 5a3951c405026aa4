#ifndef TK_CANCEL_H
#define TK_CANCEL_H
/*
 * Cancelling a wait: a CI cancel (SIGTERM) must not wait behind a locked
 * database or a server that does not answer.
 *
 * The flag is the caller's: a volatile sig_atomic_t that its signal
 * handler sets to 1 (core keeps no global state and installs no
 * handler). Code that may wait long (a store's lock retries, a
 * connection retry) is handed a pointer to it, NULL for "never
 * cancelled", checks it with tk_cancelled between attempts and sleeps
 * with tk_cancel_sleep, which returns early once the flag is set. A wait
 * given up that way fails with TK_EUNAVAIL and a message that says it was
 * cancelled (tk_cancel_err).
 *
 * Stores receive the flag through struct tk_store_opts (core/store/store.h)
 * and keep it in struct tk_store's `cancel`, which the caller may change
 * between calls.
 */
#include <signal.h>

#include "core/base/err.h"

/* 1 when flag is set; 0 for NULL or an unset flag. */
int tk_cancelled(const volatile sig_atomic_t *flag);

/*
 * Sleeps seconds (at most 10 ms at a time), returning early when flag is
 * set. Returns 1 when cancelled (before or during the sleep), else 0.
 * Signals that interrupt the sleep do not shorten it otherwise.
 */
int tk_cancel_sleep(const volatile sig_atomic_t *flag, double seconds);

/* TK_EUNAVAIL "cancelled while waiting for <what>". */
int tk_cancel_err(struct tk_err *err, const char *what);

#endif
