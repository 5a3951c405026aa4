/*
 * A diff of stored runs or of two files (contract in
 * core/analyze/diffstore.h).
 */
#include "core/analyze/diffstore.h"

#include <stdlib.h>
#include <string.h>

#include "core/model/demangle.h"
#include "core/model/runref.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

static void init(struct tk_stored_diff *d, size_t nr_base)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	tk_buf_init(&d->new_label, 0);
	tk_buf_init(&d->base_label, 0);
	tk_profile_init(&d->new, TK_UNIT_SAMPLES);
	d->base = tk_xcalloc(nr_base ? nr_base : 1, sizeof(*d->base));
	d->nr_base = nr_base;
	for (i = 0; i < nr_base; i++)
		tk_profile_init(&d->base[i], TK_UNIT_SAMPLES);
}

static int build(struct tk_stored_diff *d, const struct tk_diff_opts *dopts,
		 struct tk_err *err)
{
	size_t i;
	int ret = tk_stacktx_apply_in_place(dopts->tx, &d->new, err);

	/* both sides alike, before frames are matched */
	for (i = 0; !ret && i < d->nr_base; i++)
		ret = tk_stacktx_apply_in_place(dopts->tx, &d->base[i], err);
	if (ret)
		return ret;
	/* the inputs are not needed once matched: the diff takes them */
	ret = tk_diff_build_owned(d->base, d->nr_base, &d->new, dopts, &d->diff, err);
	d->built = !ret;
	return ret;
}

/* The baseline's mean walltime and NEW's, for TK_DIFF_NORM_WALLTIME. */
static int walltimes(const struct tk_baseline *r, struct tk_diff_opts *dopts,
		     struct tk_err *err)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < r->nr_base; i++)
		sum += r->base[i].walltime_s;
	dopts->base_walltime_s = sum / (double)r->nr_base;
	dopts->new_walltime_s = r->new_run.walltime_s;
	if (!(dopts->base_walltime_s > 0) || !(dopts->new_walltime_s > 0))
		return tk_err_set(err, TK_EDATA, "--normalize walltime: a run has no walltime");
	return 0;
}

int tk_diff_stored_runs(struct tk_store *s, const struct tk_baseline *runs, const char *kind,
			int no_demangle, struct tk_diff_opts *dopts, struct tk_stored_diff *out,
			struct tk_err *err)
{
	size_t i;
	int ret;

	init(out, runs->nr_base);
	out->chosen = 1;
	out->runs.new_run = runs->new_run;
	out->runs.new_run.key = runs->new_run.key ? tk_xstrdup(runs->new_run.key) : NULL;
	out->runs.new_run.branch = runs->new_run.branch ? tk_xstrdup(runs->new_run.branch) : NULL;
	out->runs.new_run.build = runs->new_run.build ? tk_xstrdup(runs->new_run.build) : NULL;
	out->runs.new_run.commit = runs->new_run.commit ? tk_xstrdup(runs->new_run.commit) : NULL;
	for (i = 0; i < runs->nr_base; i++) {
		const struct tk_run_ref *b = &runs->base[i];
		struct tk_run_ref *d = &out->runs.base[i];

		*d = *b;
		d->key = b->key ? tk_xstrdup(b->key) : NULL;
		d->branch = b->branch ? tk_xstrdup(b->branch) : NULL;
		d->build = b->build ? tk_xstrdup(b->build) : NULL;
		d->commit = b->commit ? tk_xstrdup(b->commit) : NULL;
	}
	out->runs.nr_base = runs->nr_base;
	out->runs.branch = runs->branch ? tk_xstrdup(runs->branch) : NULL;
	tk_run_label(&out->new_label, &out->runs.new_run);
	tk_runs_label(&out->base_label, out->runs.base, out->runs.nr_base);
	ret = tk_profstore_get(s, out->runs.new_run.id, kind, &out->new, err);
	for (i = 0; !ret && i < out->nr_base; i++)
		ret = tk_profstore_get(s, out->runs.base[i].id, kind, &out->base[i], err);
	if (ret)
		return ret;
	if (!no_demangle) {
		tk_profile_demangle(&out->new, 0);
		for (i = 0; i < out->nr_base; i++)
			tk_profile_demangle(&out->base[i], 0);
	}
	if (dopts->norm == TK_DIFF_NORM_WALLTIME) {
		ret = walltimes(&out->runs, dopts, err);
		if (ret)
			return ret;
	}
	dopts->match_roots = 1;
	return build(out, dopts, err);
}

int tk_diff_files(const char *base, const char *new, const char *format,
		  const struct tk_import_opts *io, const struct tk_diff_opts *dopts,
		  struct tk_stored_diff *out, struct tk_err *err)
{
	int ret;

	init(out, 1);
	tk_buf_adds(&out->base_label, base);
	tk_buf_adds(&out->new_label, new);
	ret = tk_import_pair(base, new, format, io, &out->base[0], &out->new, err);
	return ret ? ret : build(out, dopts, err);
}

void tk_stored_diff_release(struct tk_stored_diff *d)
{
	size_t i;

	if (d->built)
		tk_diff_release(&d->diff);
	for (i = 0; i < d->nr_base; i++)
		tk_profile_release(&d->base[i]);
	free(d->base);
	tk_profile_release(&d->new);
	tk_baseline_release(&d->runs);
	tk_buf_release(&d->new_label);
	tk_buf_release(&d->base_label);
	memset(d, 0, sizeof(*d));
}
