/*
 * core/base/suggest: the edit distance behind "did you mean".
 */
#include <stdint.h>
#include <string.h>

#include "core/base/suggest.h"
#include "tests/unit/tap.h"

int main(void)
{
	char long_name[300], key_a[201], key_b[201];

	is_int(tk_edit_distance("timeout", "timeout"), 0, "the same name: 0");
	is_int(tk_edit_distance("timout", "timeout"), 1, "one letter left out: 1");
	is_int(tk_edit_distance("hsitory", "history"), 2, "two letters swapped: 2");
	is_int(tk_edit_distance("", "db"), 2, "from nothing: the length");
	is_int(tk_edit_distance("flame", "diff"), 5, "unrelated names are far apart (all five letters)");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	ok(tk_edit_distance(long_name, "a") == SIZE_MAX,
	   "a name of 255 bytes or more is never near");
	memset(key_a, 'k', sizeof(key_a) - 1);
	key_a[sizeof(key_a) - 1] = '\0';
	memcpy(key_b, key_a, sizeof(key_b));
	key_b[100] = 'x';
	is_int(tk_edit_distance(key_a, key_b), 1, "keys of 200 bytes: one letter apart is 1");
	return done_testing();
}
