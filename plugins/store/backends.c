/*
 * The table of store backends and its lookups (core/store/store.h). The
 * i-th descriptor is the i-th listed with this interface's version
 * (TK_STORE_OPS_VERSION): one of another version is skipped, as if it were
 * not listed.
 */
#include "plugins/store/backends.h"

#include <stddef.h>

#include "core/base/banned.h"

static const struct tk_store_ops *const tk_store_backends[] = {
	&tk_store_sqlite,
	&tk_store_postgres,
};

#define NR (sizeof(tk_store_backends) / sizeof(tk_store_backends[0]))

const struct tk_store_ops *tk_store_backend_at(size_t i)
{
	size_t k;

	for (k = 0; k < NR; k++)
		if (tk_store_backends[k]->version == TK_STORE_OPS_VERSION && !i--)
			return tk_store_backends[k];
	return NULL;
}

const struct tk_store_ops *tk_store_backend_for(const char *url)
{
	const struct tk_store_ops *b;
	size_t i;

	for (i = 0; (b = tk_store_backend_at(i)); i++)
		if (b->accepts(url))
			return b;
	return NULL;
}
