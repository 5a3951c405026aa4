/*
 * Picks the store backend for a URL from plugins/registry.c, opens it and
 * brings its schema up to date.
 */
#include "core/store.h"

#include <stddef.h>
#include <string.h>

#include "plugins/plugins.h"
#include "core/banned.h"

static int no_backend(const char *url, struct tk_err *err)
{
	return tk_err_set(err, TK_EUSAGE,
			  "no store understands the database URL '%s' "
			  "(SQLite is the only store: use a file path or sqlite:PATH)", url);
}

int tk_store_open_flags(const char *url, unsigned flags, struct tk_store **out,
			struct tk_err *err)
{
	const struct tk_store_ops *const *b;
	struct tk_store *s = NULL;
	int ret;

	*out = NULL;
	if (!url || !*url)
		return tk_err_set(err, TK_EUSAGE, "no database given (empty URL)");
	for (b = tk_store_backends; *b; b++)
		if ((*b)->version == TK_STORE_OPS_VERSION && (*b)->accepts(url))
			break;
	if (!*b)
		return no_backend(url, err);
	ret = (*b)->open(url, flags, &s, err);
	if (ret)
		return ret;
	ret = s->ops->migrate(s, err);
	if (ret) {
		s->ops->close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int tk_store_open(const char *url, struct tk_store **out, struct tk_err *err)
{
	return tk_store_open_flags(url, 0, out, err);
}

void tk_store_close(struct tk_store *s)
{
	if (s)
		s->ops->close(s);
}
