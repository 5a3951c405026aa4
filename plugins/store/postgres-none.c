/*
 * The PostgreSQL store of a tracker built without libpq (the Makefile
 * builds this file instead of postgres.c when pkg-config finds no
 * libpq): it accepts the same URLs, so that using one says why it
 * cannot work instead of "no store understands the URL".
 */
#include "plugins/store/backends.h"

#include <string.h>

#include "core/base/banned.h"

static int none_accepts(const char *url)
{
	return url && (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11));
}

static int none_open(const char *url, const struct tk_store_opts *o, struct tk_store **out,
		     struct tk_err *err)
{
	*out = NULL;
	return tk_err_set(err, TK_EUNAVAIL, "tracker was built without PostgreSQL support "
			  "(Debian: libpq-dev)");
}

const struct tk_store_ops tk_store_postgres = {
	.version = TK_STORE_OPS_VERSION,
	.name = "postgres",
	.accepts = none_accepts,
	.open = none_open,
};
