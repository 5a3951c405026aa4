#ifndef TK_KVLIST_H
#define TK_KVLIST_H
/*
 * A small list of KEY=VALUE pairs (tags, agent tags), in the order they
 * were first set. Keys and values are heap copies owned by the list; a
 * zeroed list is empty and tk_kvlist_release leaves it so. Lookups are
 * linear: the lists are a few dozen pairs at most.
 */
#include <stddef.h>

struct tk_kv {
	char *key;
	char *value;
};

struct tk_kvlist {
	struct tk_kv *items;
	size_t nr, alloc;
};

/* Appends a copy of key=value; a later value for the same key replaces it. */
void tk_kvlist_set(struct tk_kvlist *l, const char *key, const char *value);
/* "KEY=VALUE" (a non-empty KEY; VALUE may hold '=') set as above; -1
 * without a key or '=', l unchanged. */
int tk_kvlist_set_pair(struct tk_kvlist *l, const char *pair);
const char *tk_kvlist_get(const struct tk_kvlist *l, const char *key);
/* Sets every pair of src in dst, in src's order. */
void tk_kvlist_merge(struct tk_kvlist *dst, const struct tk_kvlist *src);
void tk_kvlist_release(struct tk_kvlist *l);

#endif
