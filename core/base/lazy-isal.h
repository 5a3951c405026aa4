#ifndef TK_LAZY_ISAL_H
#define TK_LAZY_ISAL_H
/*
 * ISA-L's inflater (Intel's Intelligent Storage Acceleration Library,
 * Debian's libisal2), loaded when tracker first reads a large stored
 * profile (core/base/lazylib.h). It reads the same zlib streams as zlib,
 * checksum and all, at about twice zlib's speed on this data
 * (core/model/profcodec.c). Only in a build with TK_WITH_ISAL; a machine
 * without the library inflates with zlib. A function not listed here is
 * a link error: add it to the list.
 */
#include <isa-l/igzip_lib.h>

#include "core/base/err.h"

#define TK_ISAL_FUNCS(X) \
	X(isal_inflate) \
	X(isal_inflate_init)

struct tk_isal_api {
#define TK_ISAL_PTR(f) __typeof__(f) *f;
	TK_ISAL_FUNCS(TK_ISAL_PTR)
#undef TK_ISAL_PTR
};
extern struct tk_isal_api tk_isal;

/* Loads libisal.so.2 (core/base/lazylib.h): 0, or TK_EUNAVAIL saying what
 * is missing. Call it before any of the functions below. */
int tk_isal_load(struct tk_err *err);

#ifndef TK_LAZY_ISAL_IMPL
#define isal_inflate (*tk_isal.isal_inflate)
#define isal_inflate_init (*tk_isal.isal_inflate_init)
#endif

#endif
