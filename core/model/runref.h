#ifndef TK_RUNREF_H
#define TK_RUNREF_H
/*
 * A run as every output names it: a few fields copied from its record,
 * and the label made of them. Strings are owned by the ref
 * (tk_run_ref_release frees them and zeroes it).
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/model/run.h"

/* What a run's label needs, copied from the store's row. */
struct tk_run_ref {
	char id[TK_RUN_ID_LEN + 1];
	char *key, *branch, *build, *commit; /* NULL when unknown */
	double walltime_s;
	int64_t started_at_us;
};

void tk_run_ref_set(struct tk_run_ref *ref, const struct tk_run *r);
void tk_run_ref_release(struct tk_run_ref *ref);

/*
 * A run's label, the one every output uses for it:
 * "staging #412 3f2a9c1e0b (run 8c1d2e3f)": branch, build number, the
 * commit's first 10 characters, the run id's first 8; parts that are
 * unknown are left out.
 */
void tk_run_label(struct tk_buf *b, const struct tk_run_ref *r);

/* Several baseline runs, short enough for a picture's header:
 * "mean of 5 runs of staging: #416, #415, #414, #413, #412" (run ids
 * where a run has no build number); one run is tk_run_label's. */
void tk_runs_label(struct tk_buf *b, const struct tk_run_ref *r, size_t nr);

#endif
