/*
 * The ranks of a parallel job: `srun tracker run --per-rank` records one
 * run per MPI rank, and history and flame put a job's ranks back together.
 *
 * A rank is SLURM_PROCID; the job the ranks belong to is the job step,
 * named as SLURM names it ("<job id>.<step id>", what sacct and sstat
 * take), because every srun of one allocation is a job of its own: the
 * same key run twice in one sbatch script is two groups, not one.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/analyze/ranks.h"
#include "core/model/profile.h"
#include "core/model/profmerge.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

/* ---- merged profiles of a job's ranks ---- */

struct rank_pick {
	char id[TK_RUN_ID_LEN + 1];
	char *key;
	char *group;
	int ntasks;
};

/* The newest run that is a rank (queries list newest first). */
static int pick_ranked(const struct tk_run *r, void *data)
{
	struct rank_pick *pk = data;

	if (r->rank < 0 || !r->rank_group)
		return 0;
	memcpy(pk->id, r->id, sizeof(pk->id));
	pk->key = tk_xstrdup(r->key);
	pk->group = tk_xstrdup(r->rank_group);
	pk->ntasks = r->ci.slurm_ntasks;
	return 1;
}

/* A run named by id that was not recorded with --per-rank. */
static int pick_any(const struct tk_run *r, void *data)
{
	struct rank_pick *pk = data;

	memcpy(pk->id, r->id, sizeof(pk->id));
	return 1;
}

struct rank_list {
	char (*ids)[TK_RUN_ID_LEN + 1];
	int *ranks;
	size_t nr, alloc, alloc_ranks;
};

static int collect_rank(const struct tk_run *r, void *data)
{
	struct rank_list *l = data;
	size_t i;

	/* A requeued job records its ranks again: the newest one counts. */
	for (i = 0; i < l->nr; i++)
		if (l->ranks[i] == r->rank)
			return 0;
	TK_ALLOC_GROW(l->ids, l->nr + 1, l->alloc);
	TK_ALLOC_GROW(l->ranks, l->nr + 1, l->alloc_ranks);
	memcpy(l->ids[l->nr], r->id, TK_RUN_ID_LEN + 1);
	l->ranks[l->nr++] = r->rank;
	return 0;
}

static int find_group(struct tk_store *s, const char *run_id, const char *key,
		      const char *branch, const char *kind, struct rank_pick *pk,
		      struct tk_err *err)
{
	const char *keys[2] = { key, NULL };
	struct tk_run_query q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.run_id = run_id;
	q.keys = key ? keys : NULL;
	q.branch = branch;
	q.profile_kind = run_id ? NULL : kind;
	ret = tk_store_query_runs(s, &q, pick_ranked, pk, err);
	if (ret < 0)
		return ret;
	if (pk->group)
		return 0;
	if (run_id) {
		ret = tk_store_query_runs(s, &q, pick_any, pk, err);
		if (ret < 0)
			return ret;
		if (pk->id[0])
			return tk_err_set(err, TK_EDATA, "run %s is not a rank of a job (it was "
					  "not recorded with tracker run --per-rank)", run_id);
		return tk_err_set(err, TK_EDATA, "no run %s", run_id);
	}
	return tk_err_set(err, TK_EDATA, "no run of key '%s'%s%s%s recorded with --per-rank "
			  "that has a %s profile", key, branch ? " on branch '" : "",
			  branch ? branch : "", branch ? "'" : "", kind);
}

int tk_ranks_load_profile(struct tk_store *s, const char *run_id, const char *key,
			  const char *branch, const char *kind, struct tk_profile *out,
			  struct tk_buf *label, struct tk_err *err)
{
	struct rank_pick pk;
	struct rank_list l;
	struct tk_run_query q;
	const char *keys[2] = { NULL, NULL };
	size_t i;
	int ret;

	memset(&pk, 0, sizeof(pk));
	memset(&l, 0, sizeof(l));
	ret = find_group(s, run_id, key, branch, kind, &pk, err);
	if (ret)
		goto out;
	keys[0] = pk.key;
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.rank_group = pk.group;
	q.profile_kind = kind;
	ret = tk_store_query_runs(s, &q, collect_rank, &l, err);
	if (ret < 0)
		goto out;
	ret = 0;
	if (!l.nr) {
		ret = tk_err_set(err, TK_EDATA, "no rank of job %s (key '%s') has a %s profile",
				 pk.group, pk.key, kind);
		goto out;
	}
	/* The first rank decodes into out, which then holds the sum so far. */
	ret = tk_profstore_get(s, l.ids[0], kind, out, err);
	for (i = 1; !ret && i < l.nr; i++) {
		struct tk_profile one;

		tk_profile_init(&one, out->unit);
		ret = tk_profstore_get(s, l.ids[i], kind, &one, err);
		if (!ret)
			ret = tk_profile_merge(out, &one, err);
		tk_profile_release(&one);
	}
	if (ret) {
		tk_err_prefix(err, "cannot add up the %s profiles of job %s", kind, pk.group);
		goto out;
	}
	tk_profile_finish(out);
	if (label) {
		tk_buf_addf(label, "%s \xc2\xb7 job %s \xc2\xb7 %zu", pk.key, pk.group, l.nr);
		if (pk.ntasks > 0 && (size_t)pk.ntasks != l.nr)
			tk_buf_addf(label, " of %d", pk.ntasks);
		tk_buf_addf(label, " rank%s merged", l.nr == 1 && pk.ntasks <= 1 ? "" : "s");
	}
out:
	free(pk.key);
	free(pk.group);
	free(l.ids);
	free(l.ranks);
	return ret;
}

/* ---- history --ranks: one row per job ---- */

int tk_run_status_severity(enum tk_run_status s)
{
	switch (s) {
	case TK_RUN_OK:
		return 0;
	case TK_RUN_CANCELLED:
		return 1;
	case TK_RUN_TIMEOUT:
	case TK_RUN_STARTED: /* never ended: killed with tracker (a timeout's KILL) */
		return 2;
	case TK_RUN_FAILED:
		return 3;
	case TK_RUN_SIGNALED:
	case TK_RUN_OOM:
		return 4;
	case TK_RUN_ERROR:
		return 5;
	}
	return 5;
}

static char *dup_or_null(const char *s)
{
	return s ? tk_xstrdup(s) : NULL;
}

static uint64_t group_hash(const char *key, const char *group)
{
	uint64_t a = tk_hash_bytes(key, strlen(key));
	uint64_t b = tk_hash_bytes(group, strlen(group));

	return a ^ (b * 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
}

static void slots_insert(struct tk_rank_rows *j, uint32_t row)
{
	const struct tk_rank_row *r = &j->rows[row];
	size_t i = (size_t)group_hash(r->key, r->group) & j->mask;

	while (j->slots[i])
		i = (i + 1) & j->mask;
	j->slots[i] = row + 1;
}

static void slots_grow(struct tk_rank_rows *j)
{
	size_t size = j->mask ? (j->mask + 1) * 2 : 64, i;

	free(j->slots);
	j->slots = tk_xcalloc(size, sizeof(*j->slots));
	j->mask = size - 1;
	for (i = 0; i < j->nr; i++)
		if (j->rows[i].group)
			slots_insert(j, (uint32_t)i);
}

static struct tk_rank_row *new_row(struct tk_rank_rows *j, const struct tk_run_summary *r)
{
	struct tk_rank_row *row;

	TK_ALLOC_GROW(j->rows, j->nr + 1, j->alloc);
	row = &j->rows[j->nr++];
	memset(row, 0, sizeof(*row));
	row->key = tk_xstrdup(r->key);
	row->group = r->rank >= 0 ? dup_or_null(r->rank_group) : NULL;
	row->branch = dup_or_null(r->branch);
	row->commit = dup_or_null(r->commit);
	row->build_number = dup_or_null(r->build_number);
	row->ntasks = r->ntasks;
	return row;
}

static struct tk_rank_row *row_of(struct tk_rank_rows *j, const struct tk_run_summary *r)
{
	struct tk_rank_row *row;
	size_t i;

	if (r->rank < 0 || !r->rank_group)
		return new_row(j, r);
	if (!j->mask || (j->nr_grouped + 1) * 2 > j->mask + 1)
		slots_grow(j);
	for (i = (size_t)group_hash(r->key, r->rank_group) & j->mask; j->slots[i];
	     i = (i + 1) & j->mask) {
		row = &j->rows[j->slots[i] - 1];
		if (!strcmp(row->key, r->key) && !strcmp(row->group, r->rank_group))
			return row;
	}
	row = new_row(j, r);
	j->slots[i] = (uint32_t)j->nr;
	j->nr_grouped++;
	return row;
}

void tk_rank_rows_add(struct tk_rank_rows *j, const struct tk_run_summary *r)
{
	struct tk_rank_row *row = row_of(j, r);
	struct tk_rank_entry *e;

	TK_ALLOC_GROW(row->e, row->nr + 1, row->alloc);
	e = &row->e[row->nr++];
	snprintf(e->id, sizeof(e->id), "%s", r->run_id);
	e->rank = row->group ? r->rank : -1;
	e->started_at_us = r->started_at_us;
	e->walltime_s = r->walltime_s;
	e->maxrss_bytes = r->maxrss_bytes;
	e->tree_rss_bytes = r->tree_rss_bytes;
	e->status = r->status;
	e->exit_code = r->exit_code;
	e->term_signal = r->term_signal;
	e->partial = r->partial;
	if (row->ntasks < r->ntasks)
		row->ntasks = r->ntasks;
}

/* By rank; of one rank the newest run first, so it is the one kept. */
static int cmp_entry(const void *a, const void *b)
{
	const struct tk_rank_entry *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->started_at_us != y->started_at_us)
		return x->started_at_us > y->started_at_us ? -1 : 1;
	return strcmp(x->id, y->id);
}

static void add_known(int64_t v, int64_t *max, int64_t *sum)
{
	if (v < 0)
		return;
	if (*max < v)
		*max = v;
	*sum = *sum < 0 ? v : *sum + v;
}

static void finish_row(struct tk_rank_row *row)
{
	size_t i, n = 0;

	qsort(row->e, row->nr, sizeof(*row->e), cmp_entry);
	for (i = 0; i < row->nr; i++)
		if (!n || row->e[i].rank != row->e[n - 1].rank)
			row->e[n++] = row->e[i];
	row->nr = n;

	row->started_at_us = row->e[0].started_at_us;
	row->walltime_s = -1;
	row->maxrss_max = row->maxrss_sum = -1;
	row->tree_rss_max = row->tree_rss_sum = -1;
	row->worst = 0;
	row->not_ok = 0;
	row->partial = 0;
	for (i = 0; i < n; i++) {
		const struct tk_rank_entry *e = &row->e[i];

		if (row->started_at_us > e->started_at_us)
			row->started_at_us = e->started_at_us;
		if (row->walltime_s < e->walltime_s)
			row->walltime_s = e->walltime_s;
		add_known(e->maxrss_bytes, &row->maxrss_max, &row->maxrss_sum);
		add_known(e->tree_rss_bytes, &row->tree_rss_max, &row->tree_rss_sum);
		/* strictly worse: of equals, the lowest rank names the ending */
		if (tk_run_status_severity(e->status) >
		    tk_run_status_severity(row->e[row->worst].status))
			row->worst = i;
		if (e->status != TK_RUN_OK)
			row->not_ok++;
		if (e->partial)
			row->partial = 1;
	}
}

/* Newest first, like history; ties by the first run id, for a stable order. */
static int cmp_row(const void *a, const void *b)
{
	const struct tk_rank_row *x = a, *y = b;

	if (x->started_at_us != y->started_at_us)
		return x->started_at_us > y->started_at_us ? -1 : 1;
	return strcmp(x->e[0].id, y->e[0].id);
}

void tk_rank_rows_finish(struct tk_rank_rows *j)
{
	size_t i;

	for (i = 0; i < j->nr; i++)
		finish_row(&j->rows[i]);
	if (j->nr) /* qsort's pointer must not be NULL, even for 0 elements */
		qsort(j->rows, j->nr, sizeof(*j->rows), cmp_row);
	/* the (key, group) index points at the old order */
	free(j->slots);
	j->slots = NULL;
	j->mask = 0;
	j->nr_grouped = 0;
}

void tk_rank_rows_release(struct tk_rank_rows *j)
{
	size_t i;

	for (i = 0; i < j->nr; i++) {
		struct tk_rank_row *row = &j->rows[i];

		free(row->key);
		free(row->group);
		free(row->branch);
		free(row->commit);
		free(row->build_number);
		free(row->e);
	}
	free(j->rows);
	free(j->slots);
	memset(j, 0, sizeof(*j));
}
