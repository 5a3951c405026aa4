#ifndef TK_STACKTX_H
#define TK_STACKTX_H
/*
 * Stack transforms, as pprof and FlameGraph users know them: a profile
 * rewritten stack by stack before it is drawn, diffed or exported.
 *
 * A node's self weight is a sample whose stack is the path from the root
 * to the node. Each sample goes through these steps, in this order:
 *   focus REGEX          kept only when a frame of its stack matches
 *                        (pprof -focus);
 *   ignore REGEX         dropped when a frame of its stack matches
 *                        (pprof -ignore);
 *   hide REGEX           matching frames are taken out of the stack, so
 *                        a hidden leaf's weight goes to its parent (pprof
 *                        -hide; a hidden top frame's weight stays in the
 *                        total, on no frame);
 *   prune_from REGEX     the frames below the first match are cut, their
 *                        weight going to the match (pprof -prune_from);
 *   collapse_recursion   consecutive repeats of one name become one frame
 *                        (FlameGraph's stackcollapse-recursive.pl): a
 *                        100-deep recursion is one frame with the same
 *                        total.
 * The total of the profile changes only through focus and ignore.
 *
 * A REGEX is a POSIX extended regular expression searched for anywhere in
 * the frame name (anchor it with ^ and $), at most TK_STACKTX_MAX_REGEX
 * bytes. Each distinct name is matched once per regex, so the work is
 * linear in the profile's nodes and names.
 *
 * Lifetime: tk_stacktx_init, set the fields, tk_stacktx_compile (TK_EUSAGE
 * naming the option for a bad regex), apply any number of times,
 * tk_stacktx_release. The strings are borrowed and must outlive t.
 */
#include <regex.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/profile.h"

#define TK_STACKTX_MAX_REGEX 4096

enum {
	TK_STACKTX_FOCUS,
	TK_STACKTX_IGNORE,
	TK_STACKTX_HIDE,
	TK_STACKTX_PRUNE_FROM,
	TK_STACKTX_NR_REGEX,
};

struct tk_stacktx {
	const char *regex[TK_STACKTX_NR_REGEX]; /* NULL: not used */
	int collapse_recursion;
	/* compiled by tk_stacktx_compile */
	regex_t re[TK_STACKTX_NR_REGEX];
	unsigned compiled; /* bit i: re[i] holds a compiled regex */
};

void tk_stacktx_init(struct tk_stacktx *t);
int tk_stacktx_compile(struct tk_stacktx *t, struct tk_err *err);
void tk_stacktx_release(struct tk_stacktx *t);

/* 1 when t changes anything (t may be NULL). */
int tk_stacktx_active(const struct tk_stacktx *t);

/*
 * out (uninitialised) becomes in transformed by the compiled t, finished,
 * with in's unit, dispersion and warning. in must be finished. Returns 0,
 * or TK_EDATA when out would pass TK_PROFILE_MAX_NODES (out is then
 * released), TK_EINTERNAL when a node of in comes before its parent.
 */
int tk_stacktx_apply(const struct tk_stacktx *t, const struct tk_profile *in,
		     struct tk_profile *out, struct tk_err *err);

/* Replaces *p by its transform (nothing when t is inactive). On error *p
 * is left as it was. */
int tk_stacktx_apply_in_place(const struct tk_stacktx *t, struct tk_profile *p,
			      struct tk_err *err);

/*
 * What t does, for a picture's subtitle: "focus 'REGEX', hide 'REGEX',
 * recursion collapsed" (the option names as the command line spells
 * them, the regexes as given: the caller escapes for its output). Appends
 * nothing when t is inactive.
 */
void tk_stacktx_describe(const struct tk_stacktx *t, struct tk_buf *out);

#endif
