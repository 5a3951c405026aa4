/*
 * core/measure/unwind.h for a build without libdw (the Makefile compiles this
 * file instead of core/measure/unwind.c when pkg-config finds no libdw): no
 * registers are asked of perf, so samples keep the kernel's
 * frame-pointer chains, and tk_unwind_missing says why.
 */
#include "core/measure/unwind.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

struct tk_unwinder {
	int unused;
};

struct tk_unwind_space {
	int unused;
};

const char *tk_unwind_missing(void)
{
	return "tracker was built without libdw (install libdw-dev and rebuild)";
}

uint64_t tk_unwind_perf_regs(void)
{
	return 0;
}

struct tk_unwinder *tk_unwinder_new(void)
{
	return tk_xcalloc(1, sizeof(struct tk_unwinder));
}

void tk_unwinder_free(struct tk_unwinder *u)
{
	free(u);
}

struct tk_unwind_space *tk_unwind_space_new(struct tk_unwinder *u)
{
	(void)u;
	return tk_xcalloc(1, sizeof(struct tk_unwind_space));
}

void tk_unwind_space_update(struct tk_unwind_space *s, const struct tk_rawmap *maps, size_t nr)
{
	(void)s;
	(void)maps;
	(void)nr;
}

void tk_unwind_space_free(struct tk_unwind_space *s)
{
	free(s);
}

uint32_t tk_unwind(struct tk_unwind_space *s, const struct tk_unwind_input *in, uint64_t *out,
		   uint32_t max, struct tk_unwind_result *res)
{
	uint32_t n = in->nchain < max ? in->nchain : max;

	(void)s;
	memset(res, 0, sizeof(*res));
	res->how = TK_UNWIND_CHAIN;
	if (n)
		memcpy(out, in->chain, n * sizeof(*out));
	return n;
}
