#ifndef TK_BASELINE_H
#define TK_BASELINE_H
/*
 * Which runs a comparison compares: NEW, and the baseline runs it is
 * compared with. tracker diff uses it today; tracker check and the
 * report compare the same way.
 *
 *   NEW       q->run_id, else the newest run of q->key on q->branch (NULL:
 *             the CI context's branch; NULL there too: any branch) that
 *             has a profile of q->kind (NULL: any run).
 *   baseline  q->baseline_run, else the newest q->nr_baselines successful
 *             runs of the key on the baseline branch with such a profile,
 *             never NEW itself; fewer when fewer exist.
 *   baseline branch (tk_baseline_branch): q->baseline_branch, else the
 *             PR/MR base branch of the CI context, else baseline_branch of
 *             the key in the config, else the config file's, else the
 *             pipeline's default branch of the CI context.
 *
 * The store is only read. Nothing here prints; errors go to err:
 * TK_EDATA when no NEW or no baseline run exists (the message names the
 * key, branch and kind looked for), TK_EUSAGE when no baseline branch can
 * be found (the message says how to name one), the store's own codes
 * otherwise. On error *out is released.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/ci.h"
#include "core/config.h"
#include "core/err.h"
#include "core/run.h"
#include "core/store.h"

#define TK_BASELINE_MAX 100

/* What a run's label needs, copied from the store's row. */
struct tk_run_ref {
	char id[TK_RUN_ID_LEN + 1];
	char *key, *branch, *build, *commit; /* NULL when unknown */
	double walltime_s;
	int64_t started_at_us;
};

struct tk_baseline_query {
	const char *key;             /* required */
	const char *kind;            /* profile kind both sides must have; NULL: any */
	const char *run_id;          /* NEW is this run */
	const char *branch;          /* NEW's branch; NULL: the CI context's */
	const char *baseline_branch; /* the baseline branch, when named */
	const char *baseline_run;    /* the baseline is this one run */
	size_t nr_baselines;         /* 1..TK_BASELINE_MAX; 0: 1 */
};

struct tk_baseline {
	struct tk_run_ref new_run;
	struct tk_run_ref base[TK_BASELINE_MAX];
	size_t nr_base;
	char *branch;                /* the baseline branch used; NULL with baseline_run */
};

/* The baseline branch for key (see the top), or NULL when there is none;
 * the pointer is into one of the arguments. */
const char *tk_baseline_branch(const char *named, const struct tk_ci_context *ci,
			       const struct tk_config *cfg, const char *key);

/*
 * The baseline branch tracker check compares the run run_id of key with,
 * the one tracker history --plot and the dashboard draw and judge with:
 * tk_baseline_branch(named, ci, cfg, key), else (outside CI, a context
 * without PR base nor default branch) tk_baseline_branch of the CI
 * context run_id was recorded in (its PR base, the config's, its
 * pipeline's default branch). *out: a copy, or NULL when there is none
 * (or run_id is NULL). Returns 0 or the store's negative code.
 */
int tk_baseline_branch_for_run(struct tk_store *s, const char *named,
			       const struct tk_ci_context *ci, const struct tk_config *cfg,
			       const char *key, const char *run_id, char **out,
			       struct tk_err *err);

int tk_baseline_choose(struct tk_store *s, const struct tk_baseline_query *q,
		       const struct tk_ci_context *ci, const struct tk_config *cfg,
		       struct tk_baseline *out, struct tk_err *err);
void tk_baseline_release(struct tk_baseline *b);

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
