/*
 * libpq, for a postgresql:// database, loaded when first needed (core/lazylib.h).
 */
#define TK_LAZY_PQ_IMPL
#include "core/lazy-pq.h"

#include "core/lazylib.h"
#include "core/banned.h"

#ifndef TK_SONAME_PQ
#define TK_SONAME_PQ "libpq.so.5"
#endif

struct tk_pq_api tk_pq;

static const struct tk_lazy_sym syms[] = {
#define TK_PQ_SYM(f) { #f, (void **)&tk_pq.f },
	TK_PQ_FUNCS(TK_PQ_SYM)
#undef TK_PQ_SYM
};

static struct tk_lazylib lib = {
	TK_SONAME_PQ, "libpq5", "a postgresql:// database", syms,
	sizeof(syms) / sizeof(syms[0]), 0, "",
};

int tk_pq_load(struct tk_err *err)
{
	return tk_lazylib_load(&lib, err);
}
