#ifndef TK_PROFMERGE_H
#define TK_PROFMERGE_H
/*
 * Adding profiles: the merged profile of several processes (the ranks of
 * an MPI job) is the sum of their call trees, frame by frame along the
 * same call path from the root.
 */
#include "core/base/err.h"
#include "core/model/profile.h"

/*
 * Adds the self weight of every node of `from` to the node of `into` with
 * the same call path (names compared as bytes), creating the nodes `into`
 * lacks. `from` is not changed; `into` is left unfinished (call
 * tk_profile_finish before reading totals), with the larger of the two
 * sampling dispersions. Time is linear in the nodes of `from`.
 *
 * Errors: TK_EDATA when the units differ ("cannot add a bytes profile to
 * a samples profile") or the sum passes TK_PROFILE_MAX_NODES; TK_EINTERNAL
 * when a node of `from` comes before its parent (no reader builds such a
 * tree). On error `into` holds part of the sum.
 */
int tk_profile_merge(struct tk_profile *into, const struct tk_profile *from,
		     struct tk_err *err);

#endif
