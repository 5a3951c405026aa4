#include "core/base/kvlist.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

int tk_kvlist_set_pair(struct tk_kvlist *l, const char *pair)
{
	const char *eq = strchr(pair, '=');
	char *k;

	if (!eq || eq == pair)
		return -1;
	k = tk_xstrndup(pair, (size_t)(eq - pair));
	tk_kvlist_set(l, k, eq + 1);
	free(k);
	return 0;
}

void tk_kvlist_set(struct tk_kvlist *l, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		if (!strcmp(l->items[i].key, key)) {
			free(l->items[i].value);
			l->items[i].value = tk_xstrdup(value);
			return;
		}
	}
	TK_ALLOC_GROW(l->items, l->nr + 1, l->alloc);
	l->items[l->nr].key = tk_xstrdup(key);
	l->items[l->nr].value = tk_xstrdup(value);
	l->nr++;
}

const char *tk_kvlist_get(const struct tk_kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->items[i].key, key))
			return l->items[i].value;
	return NULL;
}

void tk_kvlist_merge(struct tk_kvlist *dst, const struct tk_kvlist *src)
{
	size_t i;

	for (i = 0; i < src->nr; i++)
		tk_kvlist_set(dst, src->items[i].key, src->items[i].value);
}

void tk_kvlist_release(struct tk_kvlist *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->items[i].key);
		free(l->items[i].value);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}
