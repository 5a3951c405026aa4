/*
 * The edit distance for "did you mean": see core/base/suggest.h. One row of
 * the dynamic-programming table, on the stack: names are short.
 */
#include "core/base/suggest.h"

#include <stdint.h>
#include <string.h>

#include "core/base/banned.h"

size_t tk_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, row[TK_EDIT_MAX_LEN + 1];

	if (la >= TK_EDIT_MAX_LEN || lb >= TK_EDIT_MAX_LEN)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t prev = row[0], tmp;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}
