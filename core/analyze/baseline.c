/*
 * Choosing NEW and its baseline runs from the history (contract in
 * core/analyze/baseline.h). Two store queries, newest first: one for NEW, one
 * for the baseline, which skips failed runs and NEW itself and stops at
 * the number asked for.
 */
#include "core/analyze/baseline.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/banned.h"

void tk_baseline_release(struct tk_baseline *b)
{
	size_t i;

	tk_run_ref_release(&b->new_run);
	for (i = 0; i < b->nr_base; i++)
		tk_run_ref_release(&b->base[i]);
	free(b->branch);
	memset(b, 0, sizeof(*b));
}

const char *tk_baseline_branch(const char *named, const struct tk_ci_context *ci,
			       const struct tk_config *cfg, const char *key)
{
	const struct tk_key_config *kc;

	if (named)
		return named;
	if (ci && ci->base_branch)
		return ci->base_branch;
	kc = cfg && key ? tk_config_key(cfg, key) : NULL;
	if (kc && kc->baseline_branch)
		return kc->baseline_branch;
	if (cfg && cfg->baseline_branch)
		return cfg->baseline_branch;
	return ci ? ci->default_branch : NULL;
}

struct recorded {
	const struct tk_config *cfg;
	const char *key;
	char **out;
};

static int take_recorded(const struct tk_run *run, void *data)
{
	struct recorded *rc = data;
	const char *b = tk_baseline_branch(NULL, &run->ci, rc->cfg, rc->key);

	*rc->out = b ? tk_xstrdup(b) : NULL;
	return 1;
}

int tk_baseline_branch_for_run(struct tk_store *s, const char *named,
			       const struct tk_ci_context *ci, const struct tk_config *cfg,
			       const char *key, const char *run_id, char **out,
			       struct tk_err *err)
{
	struct recorded rc = { cfg, key, out };
	const char *b = tk_baseline_branch(named, ci, cfg, key);
	struct tk_run_query q;
	int ret;

	*out = NULL;
	if (b) {
		*out = tk_xstrdup(b);
		return 0;
	}
	if (!run_id)
		return 0;
	/* outside CI: the context the run was recorded in */
	memset(&q, 0, sizeof(q));
	q.run_id = run_id;
	ret = tk_store_query_runs(s, &q, take_recorded, &rc, err);
	return ret < 0 ? ret : 0;
}

struct pick {
	struct tk_baseline *b;
	size_t want;
	int want_new;
};

static int pick_run(const struct tk_run *r, void *data)
{
	struct pick *pk = data;
	struct tk_baseline *b = pk->b;

	if (pk->want_new) {
		tk_run_ref_set(&b->new_run, r);
		return 1;
	}
	if (r->status != TK_RUN_OK || !strcmp(r->id, b->new_run.id))
		return 0;
	tk_run_ref_set(&b->base[b->nr_base++], r);
	return b->nr_base >= pk->want ? 1 : 0;
}

int tk_baseline_choose(struct tk_store *s, const struct tk_baseline_query *q,
		       const struct tk_ci_context *ci, const struct tk_config *cfg,
		       struct tk_baseline *out, struct tk_err *err)
{
	const char *keys[2] = { q->key, NULL };
	const char *branch = q->branch;
	struct pick pk = { out, 1, 1 };
	struct tk_run_query rq;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!q->key)
		return tk_err_set(err, TK_EUSAGE, "a comparison of runs needs a key");
	pk.want = q->nr_baselines ? q->nr_baselines : 1;
	if (pk.want > TK_BASELINE_MAX)
		return tk_err_set(err, TK_EUSAGE, "at most %d baseline runs", TK_BASELINE_MAX);
	if (!q->run_id && !branch && ci)
		branch = ci->branch;

	memset(&rq, 0, sizeof(rq));
	rq.keys = keys;
	rq.run_id = q->run_id;
	rq.branch = q->run_id ? NULL : branch;
	rq.profile_kind = q->kind;
	ret = tk_store_query_runs(s, &rq, pick_run, &pk, err);
	if (ret < 0)
		goto fail;
	if (!out->new_run.id[0]) {
		ret = tk_err_set(err, TK_EDATA, "no run of key '%s'%s%s%s%s%s to compare", q->key,
				 branch ? " on branch '" : "", branch ? branch : "",
				 branch ? "'" : "", q->kind ? " with a profile of kind " : "",
				 q->kind ? q->kind : "");
		goto fail;
	}

	pk.want_new = 0;
	memset(&rq, 0, sizeof(rq));
	rq.keys = keys;
	rq.profile_kind = q->kind;
	if (q->baseline_run) {
		rq.run_id = q->baseline_run;
		pk.want = 1;
	} else {
		rq.branch = tk_baseline_branch(q->baseline_branch, ci, cfg, q->key);
		if (!rq.branch) {
			ret = tk_err_set(err, TK_EUSAGE, "no baseline branch: name one with "
					 "--baseline-branch, baseline_branch in .tracker.yml, "
					 "or run in a CI that names a PR base or default branch");
			goto fail;
		}
		out->branch = tk_xstrdup(rq.branch);
	}
	ret = tk_store_query_runs(s, &rq, pick_run, &pk, err);
	if (ret < 0)
		goto fail;
	if (!out->nr_base) {
		ret = tk_err_set(err, TK_EDATA, "no successful run of key '%s' %s%s%s%s%s to use "
				 "as the baseline", q->key,
				 rq.run_id ? "with id " : "on branch '",
				 rq.run_id ? rq.run_id : rq.branch, rq.run_id ? "" : "'",
				 q->kind ? " with a profile of kind " : "", q->kind ? q->kind : "");
		goto fail;
	}
	return 0;
fail:
	tk_baseline_release(out);
	return ret;
}
