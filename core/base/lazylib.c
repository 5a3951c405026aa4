/*
 * Libraries loaded when first needed: see core/base/lazylib.h.
 */
#include "core/base/lazylib.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/base/banned.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(struct tk_lazylib *l, const char *why)
{
	snprintf(l->error, sizeof(l->error), "%s needs %s, which cannot be loaded "
		 "(Debian: apt-get install %s): %s", l->what, l->soname, l->package, why);
	__atomic_store_n(&l->state, -1, __ATOMIC_RELEASE);
}

static void load_locked(struct tk_lazylib *l)
{
	void *h, *p;
	size_t i;

	dlerror();
	h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();

		fail(l, e ? e : "dlopen failed");
		return;
	}
	for (i = 0; i < l->nr_syms; i++) {
		dlerror();
		p = dlsym(h, l->syms[i].name);
		if (!p) {
			char why[256];

			snprintf(why, sizeof(why), "it has no %s (too old?)", l->syms[i].name);
			while (i--)
				*l->syms[i].slot = NULL;
			dlclose(h);
			fail(l, why);
			return;
		}
		*l->syms[i].slot = p;
	}
	/* The handle stays open for the life of the process. */
	__atomic_store_n(&l->state, 1, __ATOMIC_RELEASE);
}

int tk_lazylib_load(struct tk_lazylib *l, struct tk_err *err)
{
	int state = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE), saved = errno;

	if (!state) {
		pthread_mutex_lock(&lock);
		if (!l->state)
			load_locked(l);
		pthread_mutex_unlock(&lock);
		state = __atomic_load_n(&l->state, __ATOMIC_ACQUIRE);
		/* dlopen's search leaves errno set: callers read it for writes */
		errno = saved;
	}
	if (state > 0)
		return 0;
	return tk_err_set(err, TK_EUNAVAIL, "%s", l->error);
}
