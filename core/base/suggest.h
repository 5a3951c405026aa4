#ifndef TK_SUGGEST_H
#define TK_SUGGEST_H
/*
 * "Did you mean": the edit distance that picks the nearest known name
 * for a mistyped command or setting. Nothing here allocates or prints.
 */
#include <stddef.h>

/*
 * The Levenshtein distance between a and b (insertions, deletions and
 * substitutions of one byte each). Names are short: a string of 63
 * bytes or more is 99 away from everything.
 */
size_t tk_edit_distance(const char *a, const char *b);

#endif
