#include "core/model/import.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/model/demangle.h"
#include "core/base/banned.h"

#define PROBE_BYTES 4096

static int import(struct tk_reader *r, const char *format,
		  const struct tk_import_opts *opts, struct tk_profile *out,
		  struct tk_err *err)
{
	static const struct tk_import_opts no_opts;
	const struct tk_importer *imp = NULL;
	const char *head;
	size_t len;
	int ret;

	if (!opts)
		opts = &no_opts;
	if (format) {
		imp = tk_importer_find(format);
		if (!imp)
			return tk_err_set(err, TK_EUSAGE, "unknown profile format '%s'", format);
	} else {
		ret = tk_reader_peek(r, PROBE_BYTES, &head, &len, err);
		if (ret)
			return ret;
		imp = tk_importer_probe(head, len);
		if (!imp)
			return tk_err_set(err, TK_EDATA,
					  "cannot tell the profile format of '%s'; name it with --format",
					  r->name);
	}
	ret = imp->parse(r, out, opts, err);
	if (ret == TK_ENOTMINE) {
		if (err && err->msg[0]) {
			err->code = TK_EDATA;
			return tk_err_prefix(err, "'%s' is not a %s profile", r->name, imp->name);
		}
		return tk_err_set(err, TK_EDATA, "'%s' is not a %s profile", r->name, imp->name);
	}
	if (ret)
		return ret;
	/* Every importer's stacks, under the one cap: the layout, the
	 * renderers and the stored form walk them. */
	if (tk_profile_deeper_than(out, TK_PROFILE_MAX_DEPTH))
		return tk_err_set(err, TK_EDATA, "cannot import '%s': a stack is deeper than %d frames",
				  r->name, TK_PROFILE_MAX_DEPTH);
	if (!opts->no_demangle)
		tk_profile_demangle(out, imp->demangle);
	tk_profile_finish(out);
	return 0;
}

int tk_import_file(const char *path, const char *format,
		   const struct tk_import_opts *opts, struct tk_profile *out,
		   struct tk_err *err)
{
	struct tk_reader r;
	int ret = opts && opts->shared_max ? tk_reader_open_shared(&r, path, opts->shared_max, err)
		: tk_reader_open(&r, path, err);

	if (!ret)
		ret = import(&r, format, opts, out, err);
	tk_reader_close(&r);
	return ret;
}

int tk_import_mem(const char *name, const char *data, size_t len, const char *format,
		  const struct tk_import_opts *opts, struct tk_profile *out,
		  struct tk_err *err)
{
	struct tk_reader r;
	int ret;

	tk_reader_from_mem(&r, name, data, len);
	ret = import(&r, format, opts, out, err);
	tk_reader_close(&r);
	return ret;
}

/*
 * The two inputs are independent until they are diffed, and core keeps
 * no global state, so they are read on two threads: CI machines have
 * more than one core.
 */
struct import_job {
	const char *path;
	const char *format;
	const struct tk_import_opts *opts;
	struct tk_profile *out;
	struct tk_err err;
	int ret;
};

static void *import_thread(void *arg)
{
	struct import_job *j = arg;

	j->ret = tk_import_file(j->path, j->format, j->opts, j->out, &j->err);
	return NULL;
}

int tk_import_pair(const char *a, const char *b, const char *format,
		   const struct tk_import_opts *opts, struct tk_profile *out_a,
		   struct tk_profile *out_b, struct tk_err *err)
{
	struct tk_import_opts one_each = { 0 };
	struct import_job jobs[2] = {
		{ a, format, &one_each, out_a, TK_ERR_INIT, 0 },
		{ b, format, &one_each, out_b, TK_ERR_INIT, 0 },
	};
	pthread_t t;
	int threaded;

	/* the two files take the two CPUs: each is read on one thread */
	if (opts)
		one_each = *opts;
	if (!one_each.threads)
		one_each.threads = 1;
	threaded = !pthread_create(&t, NULL, import_thread, &jobs[0]);

	if (!threaded)
		import_thread(&jobs[0]);
	import_thread(&jobs[1]);
	if (threaded)
		pthread_join(t, NULL);
	if (jobs[0].ret) {
		*err = jobs[0].err;
		return jobs[0].ret;
	}
	if (jobs[1].ret)
		*err = jobs[1].err;
	return jobs[1].ret;
}

void tk_importer_list(FILE *f)
{
	const struct tk_importer *imp;
	size_t i;

	for (i = 0; (imp = tk_importer_at(i)); i++)
		fprintf(f, "%s\n", imp->name);
}
