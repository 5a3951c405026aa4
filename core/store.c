/*
 * Picks the store backend for a URL from plugins/registry.c, opens it and
 * brings its schema up to date.
 */
#include "core/store.h"

#include <stddef.h>
#include <string.h>

#include "core/banned.h"

static int no_backend(const char *url, struct tk_err *err)
{
	return tk_err_set(err, TK_EUSAGE,
			  "no store understands the database URL '%s' "
			  "(SQLite is the only store: use a file path or sqlite:PATH)", url);
}

int tk_store_open_opts(const char *url, const struct tk_store_opts *o,
		       struct tk_store **out, struct tk_err *err)
{
	const struct tk_store_ops *b;
	struct tk_store *s = NULL;
	int ret;

	*out = NULL;
	if (!url || !*url)
		return tk_err_set(err, TK_EUSAGE, "no database given (empty URL)");
	b = tk_store_backend_for(url);
	if (!b)
		return no_backend(url, err);
	ret = b->open(url, o, &s, err);
	if (ret)
		return ret;
	s->cancel = o->cancel;
	ret = s->ops->migrate(s, err);
	if (ret) {
		s->ops->close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int tk_store_open_flags(const char *url, unsigned flags, struct tk_store **out,
			struct tk_err *err)
{
	struct tk_store_opts o = { flags, NULL };

	return tk_store_open_opts(url, &o, out, err);
}

int tk_store_open(const char *url, struct tk_store **out, struct tk_err *err)
{
	return tk_store_open_flags(url, 0, out, err);
}

void tk_store_close(struct tk_store *s)
{
	if (s)
		s->ops->close(s);
}

void tk_run_summarize(const struct tk_run *r, struct tk_run_summary *out)
{
	out->run_id = r->id;
	out->key = r->key;
	out->branch = r->ci.branch;
	out->commit = r->ci.commit;
	out->build_number = r->ci.build_number;
	out->started_at_us = r->started_at_us;
	out->walltime_s = r->walltime_s;
	out->user_s = r->user_s;
	out->sys_s = r->sys_s;
	out->maxrss_bytes = r->maxrss_bytes;
	out->tree_rss_bytes = r->tree_rss_bytes;
	out->cgroup_peak_bytes = r->cgroup_peak_bytes;
	out->maxrss_source = r->maxrss_source;
	out->wrapper_rss_bytes = r->wrapper_rss_bytes;
	out->tree_samples = r->tree_samples;
	out->exit_code = r->exit_code;
	out->term_signal = r->term_signal;
	out->status = r->status;
	out->partial = r->partial ? 1 : 0;
	out->provider = r->ci.provider;
	out->pipeline = r->ci.pipeline;
	out->build_url = r->ci.build_url;
	out->host = r->ci.host;
	out->tracker_version = r->tracker_version;
	/* A rank without its group is not a rank (the record reader refuses
	 * one; the store keeps neither). */
	out->rank = r->rank >= 0 && r->rank_group ? r->rank : -1;
	out->rank_group = out->rank >= 0 ? r->rank_group : NULL;
	out->ntasks = r->ci.slurm_ntasks;
}
