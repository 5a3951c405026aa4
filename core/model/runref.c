/*
 * A run as outputs name it (contract in core/model/runref.h).
 */
#include "core/model/runref.h"

#include <stdlib.h>
#include <string.h>

#include "core/base/banned.h"

void tk_run_ref_set(struct tk_run_ref *ref, const struct tk_run *r)
{
	memcpy(ref->id, r->id, sizeof(ref->id));
	ref->key = r->key ? tk_xstrdup(r->key) : NULL;
	ref->branch = r->ci.branch ? tk_xstrdup(r->ci.branch) : NULL;
	ref->build = r->ci.build_number ? tk_xstrdup(r->ci.build_number) : NULL;
	ref->commit = r->ci.commit ? tk_xstrndup(r->ci.commit, 10) : NULL;
	ref->walltime_s = r->walltime_s;
	ref->started_at_us = r->started_at_us;
}

void tk_run_ref_release(struct tk_run_ref *ref)
{
	free(ref->key);
	free(ref->branch);
	free(ref->build);
	free(ref->commit);
	memset(ref, 0, sizeof(*ref));
}

void tk_run_label(struct tk_buf *b, const struct tk_run_ref *r)
{
	if (r->branch)
		tk_buf_addf(b, "%s ", r->branch);
	if (r->build)
		tk_buf_addf(b, "#%s ", r->build);
	if (r->commit)
		tk_buf_addf(b, "%s ", r->commit);
	tk_buf_addf(b, "(run %.8s)", r->id);
}

void tk_runs_label(struct tk_buf *b, const struct tk_run_ref *r, size_t nr)
{
	size_t i;

	if (nr == 1) {
		tk_run_label(b, r);
		return;
	}
	tk_buf_addf(b, "mean of %zu runs", nr);
	if (nr && r[0].branch)
		tk_buf_addf(b, " of %s", r[0].branch);
	tk_buf_adds(b, ":");
	for (i = 0; i < nr; i++) {
		if (r[i].build)
			tk_buf_addf(b, "%s #%s", i ? "," : "", r[i].build);
		else
			tk_buf_addf(b, "%s run %.8s", i ? "," : "", r[i].id);
	}
}
