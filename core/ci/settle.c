/*
 * Finishing the records of runs that SLURM killed together with tracker
 * (core/ci/settle.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/ci/settle.h"
#include "core/base/buf.h"
#include "core/base/subproc.h"
#include "core/model/record.h"
#include "core/model/slurm.h"
#include "core/store/store.h"
#include "core/base/banned.h"

struct stale {
	char *json;   /* the started record */
	char *job_id;
	int64_t start_s;
};

struct stale_list {
	struct stale *v;
	size_t nr, alloc;
	const char *this_job;
};

static int collect(const struct tk_run *r, void *data)
{
	struct stale_list *l = data;
	struct tk_buf json = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct stale *s;

	if (r->status != TK_RUN_STARTED || !r->ci.slurm_job_id || !*r->ci.slurm_job_id)
		return 0;
	if (l->this_job && !strcmp(l->this_job, r->ci.slurm_job_id))
		return 0;
	if (tk_run_to_json(r, &json, &err)) {
		tk_buf_release(&json);
		return 0;
	}
	TK_ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	s = &l->v[l->nr++];
	s->json = tk_buf_detach(&json, NULL);
	s->job_id = tk_xstrdup(r->ci.slurm_job_id);
	s->start_s = r->started_at_us / 1000000;
	return 0;
}

/* One line of `sacct -X -P -n --format=JobID,State,Start,End`. */
struct ended {
	char job_id[64];
	char state[64];
	int64_t start_s, end_s;
};

static int parse_ended(const char *line, size_t len, struct ended *e)
{
	const char *f[4], *p = line, *end = line + len;
	size_t n[4], i;

	for (i = 0; i < 4; i++) {
		const char *bar = i < 3 ? memchr(p, '|', (size_t)(end - p)) : NULL;

		if (i < 3 && !bar)
			return -1;
		f[i] = p;
		n[i] = (size_t)((bar ? bar : end) - p);
		p = bar ? bar + 1 : end;
	}
	if (!n[0] || n[0] >= sizeof(e->job_id) || n[1] >= sizeof(e->state))
		return -1;
	memcpy(e->job_id, f[0], n[0]);
	e->job_id[n[0]] = 0;
	memcpy(e->state, f[1], n[1]);
	e->state[n[1]] = 0;
	for (i = 0; i < n[1]; i++)
		if (!isprint((unsigned char)e->state[i]))
			return -1;
	if (tk_sacct_parse_time(f[2], n[2], &e->start_s) ||
	    tk_sacct_parse_time(f[3], n[3], &e->end_s))
		return -1;
	return 0;
}

static int status_of(const char *state, enum tk_run_status *out)
{
	if (!strncmp(state, "CANCELLED", 9))
		*out = TK_RUN_CANCELLED;
	else if (!strcmp(state, "TIMEOUT"))
		*out = TK_RUN_TIMEOUT;
	else if (!strcmp(state, "OUT_OF_MEMORY"))
		*out = TK_RUN_OOM;
	else
		return -1;
	return 0;
}

/* The run of s, its record finished from how its job ended; 1 when stored. */
static int settle_one(struct tk_store *store, const struct stale *s, const struct ended *e)
{
	struct tk_run run;
	struct tk_err err = TK_ERR_INIT;
	enum tk_run_status status;
	int ret = 0;

	if (status_of(e->state, &status) || e->start_s < 0 || e->end_s < 0 ||
	    e->start_s > s->start_s || e->end_s < s->start_s)
		return 0;
	tk_run_init(&run);
	if (!tk_run_from_json(s->json, strlen(s->json), "started record", &run, &err)) {
		run.status = status;
		run.partial = 1;
		run.walltime_s = (double)(e->end_s * 1000000 - run.started_at_us) / 1e6;
		if (run.walltime_s < 0)
			run.walltime_s = 0;
		ret = !tk_store_put_run(store, &run, NULL, &err);
	}
	tk_run_release(&run);
	return ret;
}

static int ask_sacct(const struct tk_settle *o, const struct stale_list *l, struct tk_buf *out,
		     struct tk_err *err)
{
	struct tk_buf ids = TK_BUF_INIT, e = TK_BUF_INIT;
	const char *argv[9];
	struct tk_subproc p;
	size_t i;
	int ret, status;

	for (i = 0; i < l->nr; i++)
		tk_buf_addf(&ids, "%s%s", i ? "," : "", l->v[i].job_id);
	argv[0] = o->program ? o->program : "sacct";
	argv[1] = "-X";
	argv[2] = "-P";
	argv[3] = "-n";
	argv[4] = "-j";
	argv[5] = ids.buf;
	argv[6] = "--format=JobID,State,Start,End";
	argv[7] = NULL;
	memset(&p, 0, sizeof(p));
	p.argv = argv;
	p.out_cap = 64 * 1024;
	p.timeout_s = o->wait_s < 2 ? 2 : o->wait_s > 15 ? 15 : o->wait_s;
	ret = tk_subproc_run(&p, out, &e, &status, err);
	if (!ret && status)
		ret = tk_err_set(err, TK_EUNAVAIL, "%s exited %d", argv[0], status);
	tk_buf_release(&ids);
	tk_buf_release(&e);
	return ret;
}

int tk_settle_slurm_runs(const struct tk_settle *o, struct tk_err *err)
{
	const char *keys[2] = { o->key, NULL };
	struct stale_list l;
	struct tk_run_query q;
	struct tk_store *store = NULL;
	struct tk_buf out = TK_BUF_INIT;
	const char *p, *end;
	size_t i;
	int ret, settled = 0;

	memset(&l, 0, sizeof(l));
	l.this_job = o->this_job;
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.limit = TK_SETTLE_RUNS_MAX;
	ret = tk_store_open(o->db, &store, err);
	if (!ret)
		ret = tk_store_query_runs(store, &q, collect, &l, err);
	if (!ret && l.nr)
		ret = ask_sacct(o, &l, &out, err);
	for (p = out.buf, end = out.buf + out.len; !ret && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		struct ended e;

		if (!parse_ended(p, n, &e))
			for (i = 0; i < l.nr; i++)
				if (!strcmp(l.v[i].job_id, e.job_id))
					settled += settle_one(store, &l.v[i], &e);
		p = nl ? nl + 1 : end;
	}
	for (i = 0; i < l.nr; i++) {
		free(l.v[i].json);
		free(l.v[i].job_id);
	}
	free(l.v);
	tk_buf_release(&out);
	if (store)
		tk_store_close(store);
	return ret ? ret : settled;
}
