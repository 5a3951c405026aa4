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

#include "core/base/buf.h"
#include "core/model/config.h"
#include "core/base/err.h"
#include "core/model/context.h"
#include "core/model/run.h"
#include "core/model/runref.h"
#include "core/store/store.h"

#define TK_BASELINE_MAX 100

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

#endif
