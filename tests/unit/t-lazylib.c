/* Libraries loaded when first needed (core/base/lazylib.h): success, a library
 * that is not there, a symbol that is not there, and two threads at once. */
#include <pthread.h>
#include <string.h>

#include "core/base/err.h"
#include "core/base/lazy-cairo.h"
#include "core/base/lazy-curl.h"
#include "core/base/lazylib.h"
#include "tests/unit/tap.h"

static const char *(*zlib_version)(void);
static unsigned long (*zlib_crc32)(unsigned long, const unsigned char *, unsigned);
static void *nothing;

static const struct tk_lazy_sym zsyms[] = {
	{ "zlibVersion", (void **)&zlib_version },
	{ "crc32", (void **)&zlib_crc32 },
};
static const struct tk_lazy_sym badsyms[] = {
	{ "zlibVersion", (void **)&nothing },
	{ "tk_no_such_function", (void **)&nothing },
};

static struct tk_lazylib zlib = { "libz.so.1", "zlib1g", "the test", zsyms, 2, 0, "" };

static void *load_zlib(void *arg)
{
	struct tk_err err = TK_ERR_INIT;

	*(int *)arg = tk_lazylib_load(&zlib, &err);
	return NULL;
}

int main(void)
{
	struct tk_lazylib missing = { "libtracker-no-such-library.so.7", "tracker-nothing",
				      "the test", zsyms, 2, 0, "" };
	struct tk_lazylib partial = { "libz.so.1", "zlib1g", "the partial test", badsyms, 2, 0,
				      "" };
	struct tk_err err = TK_ERR_INIT;
	pthread_t t[2];
	int r[2] = { 1, 1 }, i;

	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, load_zlib, &r[i]);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ok(r[0] == 0 && r[1] == 0, "two threads load one library at once: both succeed");
	ok(zlib_version && zlib_crc32 && zlib_crc32(0, (const unsigned char *)"a", 1) == 0xe8b7be43,
	   "every symbol is resolved and callable (crc32 of \"a\")");
	is_int(tk_lazylib_load(&zlib, &err), 0, "loading again is a no-op");

	is_int(tk_lazylib_load(&missing, &err), TK_EUNAVAIL, "a library that is not there");
	ok(strstr(err.msg, "the test needs libtracker-no-such-library.so.7") &&
	   strstr(err.msg, "apt-get install tracker-nothing"),
	   "names what needs it, the library and the package: %s", err.msg);
	memset(&err, 0, sizeof(err));
	is_int(tk_lazylib_load(&missing, &err), TK_EUNAVAIL, "and says so again, the same way");
	ok(strstr(err.msg, "libtracker-no-such-library.so.7") != NULL, "%s", err.msg);

	is_int(tk_lazylib_load(&partial, &err), TK_EUNAVAIL, "a symbol that is not there");
	ok(strstr(err.msg, "tk_no_such_function") != NULL && nothing == NULL,
	   "names it, and leaves no pointer set: %s", err.msg);

	is_int(tk_cairo_load(&err), 0, "cairo loads");
	ok(strstr(cairo_status_to_string(CAIRO_STATUS_NO_MEMORY), "memory") != NULL,
	   "cairo answers through it: %s", cairo_status_to_string(CAIRO_STATUS_NO_MEMORY));
	is_int(tk_curl_load(&err), 0, "libcurl loads");
	ok(strstr(curl_easy_strerror(CURLE_OK), "No error") != NULL,
	   "libcurl answers through it: %s", curl_easy_strerror(CURLE_OK));
	return done_testing();
}
