/*
 * libcurl, for the Buildkite API, loaded when first needed (core/lazylib.h).
 */
#define TK_LAZY_CURL_IMPL
#include "core/lazy-curl.h"

#include "core/lazylib.h"
#include "core/banned.h"

#ifndef TK_SONAME_CURL
#define TK_SONAME_CURL "libcurl.so.4"
#endif

struct tk_curl_api tk_curl;

static const struct tk_lazy_sym syms[] = {
#define TK_CURL_SYM(f) { #f, (void **)&tk_curl.f },
	TK_CURL_FUNCS(TK_CURL_SYM)
#undef TK_CURL_SYM
};

static struct tk_lazylib lib = {
	TK_SONAME_CURL, "libcurl4", "the Buildkite API", syms,
	sizeof(syms) / sizeof(syms[0]), 0, "",
};

int tk_curl_load(struct tk_err *err)
{
	return tk_lazylib_load(&lib, err);
}
