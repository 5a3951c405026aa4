#ifndef TK_LAZYLIB_H
#define TK_LAZYLIB_H
/*
 * Libraries loaded when first needed, not at start-up. libcurl, libpq and
 * cairo bring 46 more shared libraries with them (TLS, Kerberos, LDAP,
 * X11, fonts); linking them made every `tracker run` pay about 14 ms of
 * loading and relocation before the job started, for code a run never
 * calls. Each is opened with dlopen by its soname the first time tracker
 * talks HTTP, to PostgreSQL or draws a picture (core/base/lazy-curl.h,
 * core/base/lazy-pq.h, core/base/lazy-cairo.h; the tables are in core/base/lazylibs.c);
 * its functions are then called through a table of pointers that those
 * headers put under the usual names, so the code that calls them reads
 * as it did.
 *
 * tk_lazylib_load is thread-safe and idempotent: the first call opens the
 * library and resolves every symbol (all or none: a missing symbol is an
 * error, and the table stays empty); later calls return what the first
 * one did. A library that cannot be loaded is TK_EUNAVAIL, naming it and
 * the Debian package that provides it.
 */
#include <stddef.h>

#include "core/base/err.h"

struct tk_lazy_sym {
	const char *name;
	void **slot;
};

struct tk_lazylib {
	const char *soname;   /* "libcairo.so.2" */
	const char *package;  /* "libcairo2": the Debian package that has it */
	const char *what;     /* "PNG and PDF output": what needs it */
	const struct tk_lazy_sym *syms;
	size_t nr_syms;
	int state;            /* 0 not tried, 1 loaded, -1 failed */
	char error[512];
};

int tk_lazylib_load(struct tk_lazylib *l, struct tk_err *err);

#endif
