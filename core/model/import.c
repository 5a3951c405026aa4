#include "core/model/import.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/model/demangle.h"
#include "core/base/banned.h"

#define PROBE_BYTES 4096

/*
 * Whether a stack of p is deeper than TK_PROFILE_MAX_DEPTH. Each node's
 * depth is kept in its total field, which tk_profile_finish fills after
 * (p is marked unfinished for it): a profile of millions of nodes needs
 * no array of depths, and the two imports of a diff, which reach their
 * peak here together, each spare one (18 MB for 4.5M nodes). A child's
 * id is always above its parent's.
 */
static int too_deep(struct tk_profile *p)
{
	uint32_t i;
	int deep = 0;

	p->finished = 0;
	if (p->nr_nodes)
		p->nodes[TK_PROFILE_ROOT].total = 0;
	for (i = 1; i < p->nr_nodes && !deep; i++) {
		p->nodes[i].total = p->nodes[p->nodes[i].parent].total + 1;
		deep = p->nodes[i].total > TK_PROFILE_MAX_DEPTH;
	}
	return deep;
}

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
	if (too_deep(out))
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
	struct import_job jobs[2] = {
		{ a, format, opts, out_a, TK_ERR_INIT, 0 },
		{ b, format, opts, out_b, TK_ERR_INIT, 0 },
	};
	pthread_t t;
	int threaded = !pthread_create(&t, NULL, import_thread, &jobs[0]);

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
