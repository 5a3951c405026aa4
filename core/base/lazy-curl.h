#ifndef TK_LAZY_CURL_H
#define TK_LAZY_CURL_H
/*
 * libcurl, loaded when tracker first talks HTTP (core/base/lazylib.h).
 * core/ci/http.c includes this, not <curl/curl.h>: the curl functions it
 * calls are the pointers of tk_curl under their own names, and
 * tk_http_new loads it. A function not listed here is a link error: add
 * it to the list.
 */
/* curl's type-checking macros of curl_easy_setopt and curl_easy_getinfo
 * would clash with the names below (its plain three-argument ones are
 * undefined there). */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

#include "core/base/err.h"

#define TK_CURL_FUNCS(X) \
	X(curl_easy_cleanup) \
	X(curl_easy_getinfo) \
	X(curl_easy_init) \
	X(curl_easy_perform) \
	X(curl_easy_setopt) \
	X(curl_easy_strerror) \
	X(curl_free) \
	X(curl_global_cleanup) \
	X(curl_global_init) \
	X(curl_slist_append) \
	X(curl_slist_free_all) \
	X(curl_url) \
	X(curl_url_cleanup) \
	X(curl_url_get) \
	X(curl_url_set)

struct tk_curl_api {
#define TK_CURL_PTR(f) __typeof__(f) *f;
	TK_CURL_FUNCS(TK_CURL_PTR)
#undef TK_CURL_PTR
};
extern struct tk_curl_api tk_curl;

/* Loads libcurl.so.4 (core/base/lazylib.h): 0, or TK_EUNAVAIL saying what
 * is missing. Call it before any of the functions below. */
int tk_curl_load(struct tk_err *err);

#ifndef TK_LAZY_CURL_IMPL
#undef curl_easy_getinfo
#undef curl_easy_setopt
#define curl_easy_cleanup (*tk_curl.curl_easy_cleanup)
#define curl_easy_getinfo (*tk_curl.curl_easy_getinfo)
#define curl_easy_init (*tk_curl.curl_easy_init)
#define curl_easy_perform (*tk_curl.curl_easy_perform)
#define curl_easy_setopt (*tk_curl.curl_easy_setopt)
#define curl_easy_strerror (*tk_curl.curl_easy_strerror)
#define curl_free (*tk_curl.curl_free)
#define curl_global_cleanup (*tk_curl.curl_global_cleanup)
#define curl_global_init (*tk_curl.curl_global_init)
#define curl_slist_append (*tk_curl.curl_slist_append)
#define curl_slist_free_all (*tk_curl.curl_slist_free_all)
#define curl_url (*tk_curl.curl_url)
#define curl_url_cleanup (*tk_curl.curl_url_cleanup)
#define curl_url_get (*tk_curl.curl_url_get)
#define curl_url_set (*tk_curl.curl_url_set)
#endif

#endif
