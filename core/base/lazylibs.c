/*
 * The tables of the libraries tracker loads when first needed: libcurl,
 * cairo and (built with them) libpq and ISA-L; see core/base/lazylib.h.
 */
#define TK_LAZY_CAIRO_IMPL
#define TK_LAZY_CURL_IMPL
#include "core/base/lazy-cairo.h"
#include "core/base/lazy-curl.h"
#ifdef TK_WITH_LIBPQ
#define TK_LAZY_PQ_IMPL
#include "core/base/lazy-pq.h"
#endif
#ifdef TK_WITH_ISAL
#define TK_LAZY_ISAL_IMPL
#include "core/base/lazy-isal.h"
#endif

#include "core/base/lazylib.h"
#include "core/base/banned.h"

/* The sonames built against (the Makefile reads them), else Debian's. */
#ifndef TK_SONAME_CAIRO
#define TK_SONAME_CAIRO "libcairo.so.2"
#endif
#ifndef TK_SONAME_CURL
#define TK_SONAME_CURL "libcurl.so.4"
#endif
#ifndef TK_SONAME_PQ
#define TK_SONAME_PQ "libpq.so.5"
#endif
#ifndef TK_SONAME_ISAL
#define TK_SONAME_ISAL "libisal.so.2"
#endif

#define NR(a) (sizeof(a) / sizeof((a)[0]))
/* One entry of a table: the name, and where its address goes. */
#define LAZY_SYM(f) { #f, (void **)&LAZY_TABLE.f },

struct tk_cairo_api tk_cairo;
#define LAZY_TABLE tk_cairo
static const struct tk_lazy_sym cairo_syms[] = { TK_CAIRO_FUNCS(LAZY_SYM) };
#undef LAZY_TABLE
static struct tk_lazylib cairo = { TK_SONAME_CAIRO, "libcairo2", "PNG and PDF output",
				   cairo_syms, NR(cairo_syms), 0, "" };

struct tk_curl_api tk_curl;
#define LAZY_TABLE tk_curl
static const struct tk_lazy_sym curl_syms[] = { TK_CURL_FUNCS(LAZY_SYM) };
#undef LAZY_TABLE
static struct tk_lazylib curl = { TK_SONAME_CURL, "libcurl4", "the Buildkite API",
				  curl_syms, NR(curl_syms), 0, "" };

int tk_cairo_load(struct tk_err *err)
{
	return tk_lazylib_load(&cairo, err);
}

int tk_curl_load(struct tk_err *err)
{
	return tk_lazylib_load(&curl, err);
}

#ifdef TK_WITH_LIBPQ
struct tk_pq_api tk_pq;
#define LAZY_TABLE tk_pq
static const struct tk_lazy_sym pq_syms[] = { TK_PQ_FUNCS(LAZY_SYM) };
#undef LAZY_TABLE
static struct tk_lazylib pq = { TK_SONAME_PQ, "libpq5", "a postgresql:// database",
				pq_syms, NR(pq_syms), 0, "" };

int tk_pq_load(struct tk_err *err)
{
	return tk_lazylib_load(&pq, err);
}
#endif

#ifdef TK_WITH_ISAL
struct tk_isal_api tk_isal;
#define LAZY_TABLE tk_isal
static const struct tk_lazy_sym isal_syms[] = { TK_ISAL_FUNCS(LAZY_SYM) };
#undef LAZY_TABLE
static struct tk_lazylib isal = { TK_SONAME_ISAL, "libisal2", "fast reading of stored profiles",
				  isal_syms, NR(isal_syms), 0, "" };

int tk_isal_load(struct tk_err *err)
{
	return tk_lazylib_load(&isal, err);
}
#endif
