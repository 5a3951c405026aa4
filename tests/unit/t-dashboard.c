/*
 * core/dashboard.h: file names safe from any key, and the index path.
 * The page itself is tested end to end (t2204, t2205).
 */
#include <stdlib.h>
#include <string.h>

#include "core/dashboard.h"
#include "tests/unit/tap.h"

static int safe(const char *name)
{
	const char *p;

	if (!*name || *name == '.')
		return 0;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return strlen(name) <= 60 + 14;
}

int main(void)
{
	static const char *const keys[] = {
		"amip", "../../etc/passwd", "<script>", "a b", ".hidden", "x/y",
		"\xc3\xa9t\xc3\xa9", "", "index",
	};
	struct tk_buf a = TK_BUF_INIT, b = TK_BUF_INIT;
	char long_key[500];
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		tk_buf_reset(&a);
		tk_dashboard_file_name(&a, keys[i]);
		ok(safe(a.buf), "'%s' -> %s", keys[i], a.buf);
	}
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, "amip");
	ok(!strncmp(a.buf, "amip-", 5) && strlen(a.buf) == 5 + 8 + 5, "a plain key keeps its name");
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, "a/b");
	tk_dashboard_file_name(&b, "a_b");
	ok(strcmp(a.buf, b.buf) != 0, "keys that clean to the same name differ by hash");
	memset(long_key, 'k', sizeof(long_key) - 1);
	long_key[sizeof(long_key) - 1] = 0;
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, long_key);
	ok(safe(a.buf), "a 499-byte key gets a short name");
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, "");
	ok(!strncmp(a.buf, "key-", 4), "an empty key: key-HASH");
	ok(tk_dashboard_index_path("out/index.html"), "out/index.html");
	ok(tk_dashboard_index_path("index.html"), "index.html");
	ok(!tk_dashboard_index_path("out/amip.html"), "not amip.html");
	ok(!tk_dashboard_index_path("out/myindex.html"), "not myindex.html");
	tk_buf_release(&a);
	tk_buf_release(&b);
	return done_testing();
}
