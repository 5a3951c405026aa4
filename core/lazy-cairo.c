/*
 * cairo, for PNG and PDF output, loaded when first needed (core/lazylib.h).
 */
#define TK_LAZY_CAIRO_IMPL
#include "core/lazy-cairo.h"

#include "core/lazylib.h"
#include "core/banned.h"

#ifndef TK_SONAME_CAIRO
#define TK_SONAME_CAIRO "libcairo.so.2"
#endif

struct tk_cairo_api tk_cairo;

static const struct tk_lazy_sym syms[] = {
#define TK_CAIRO_SYM(f) { #f, (void **)&tk_cairo.f },
	TK_CAIRO_FUNCS(TK_CAIRO_SYM)
#undef TK_CAIRO_SYM
};

static struct tk_lazylib lib = {
	TK_SONAME_CAIRO, "libcairo2", "PNG and PDF output", syms,
	sizeof(syms) / sizeof(syms[0]), 0, "",
};

int tk_cairo_load(struct tk_err *err)
{
	return tk_lazylib_load(&lib, err);
}
