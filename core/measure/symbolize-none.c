/*
 * core/measure/symbolize.h for a build without libdw (the Makefile compiles this
 * file instead of core/measure/symbolize.c when pkg-config finds no libdw): the
 * built-in profiler's addresses cannot be named, so it records no
 * profile and says why, once.
 */
#include "core/measure/symbolize.h"

#include "core/base/banned.h"

int tk_rawset_to_profiles(const struct tk_rawset *s, const struct tk_symbolize_opts *opts,
			  struct tk_profile out[TK_RAW_NVALUES], int have[TK_RAW_NVALUES],
			  struct tk_err *err)
{
	static const enum tk_unit units[TK_RAW_NVALUES] = {
		[TK_RAW_ALLOC_BYTES] = TK_UNIT_BYTES,
		[TK_RAW_ALLOC_COUNT] = TK_UNIT_COUNT,
		[TK_RAW_PEAK_LIVE] = TK_UNIT_BYTES,
		[TK_RAW_CPU_NS] = TK_UNIT_NANOSECONDS,
	};
	int v;

	(void)s;
	(void)opts;
	for (v = 0; v < TK_RAW_NVALUES; v++) {
		tk_profile_init(&out[v], units[v]);
		have[v] = 0;
	}
	return tk_err_set(err, TK_EUNAVAIL, "tracker was built without libdw (install "
			  "libdw-dev and rebuild): the built-in profiler cannot name its frames");
}
