#ifndef TK_PPROFOUT_H
#define TK_PPROFOUT_H
/*
 * A profile written as pprof reads it: the protobuf message Profile of
 * google/pprof's proto/profile.proto, gzip-compressed (what `pprof`,
 * `go tool pprof` and Go's runtime/pprof write).
 *
 * One sample type, from the unit: samples ("samples", "count", as Go
 * writes them),
 * nanoseconds ("cpu", "nanoseconds"), bytes ("alloc_space", "bytes"),
 * count ("alloc_objects", "count"), also the period type (period 1) and
 * the default sample type. One Function and one Location per distinct
 * frame name (the name as tracker shows it: demangled unless the
 * profile was read with --no-demangle; no system name, so pprof keeps
 * it whole; no file, line 0, no mapping), and
 * one Sample per node with weight: its stack leaf first, as pprof wants.
 * pprof's values are integers: each weight is rounded to the nearest
 * one, and a node whose weight rounds to 0 has no sample.
 *
 * Memory: the name tables and one sample at a time; the message is
 * compressed as it is made.
 */
#include <stdio.h>

#include "core/base/err.h"
#include "core/model/profile.h"

/*
 * Writes p to out. self[n] is node n's weight (NULL: p's self weights;
 * diffs pass their base or new arrays over the union tree). Returns 0, or
 * TK_EUNAVAIL when out cannot be written, TK_EINTERNAL when zlib fails.
 */
int tk_pprof_write(FILE *out, const struct tk_profile *p, const double *self,
		   struct tk_err *err);

#endif
