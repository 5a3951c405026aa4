#ifndef TK_SUGGEST_H
#define TK_SUGGEST_H
/*
 * "Did you mean": the edit distance that picks the nearest known name
 * for a mistyped command or setting. Nothing here allocates or prints.
 */
#include <stddef.h>

/*
 * The Levenshtein distance between a and b (insertions, deletions and
 * substitutions of one byte each). Names are short (a run's key has at
 * most 200 bytes): a string of TK_EDIT_MAX_LEN bytes or more is SIZE_MAX
 * away from everything, which keeps the work at most 255 x 255 steps.
 */
#define TK_EDIT_MAX_LEN 255

size_t tk_edit_distance(const char *a, const char *b);

#endif
