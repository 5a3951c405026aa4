/*
 * core/base/suggest: the edit distance behind "did you mean".
 */
#include <string.h>

#include "core/base/suggest.h"
#include "tests/unit/tap.h"

int main(void)
{
	char long_name[80];

	is_int(tk_edit_distance("timeout", "timeout"), 0, "the same name: 0");
	is_int(tk_edit_distance("timout", "timeout"), 1, "one letter left out: 1");
	is_int(tk_edit_distance("hsitory", "history"), 2, "two letters swapped: 2");
	is_int(tk_edit_distance("", "db"), 2, "from nothing: the length");
	is_int(tk_edit_distance("flame", "diff"), 5, "unrelated names are far apart (all five letters)");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	is_int(tk_edit_distance(long_name, "a"), 99, "a name of 63 bytes or more is never near");
	return done_testing();
}
