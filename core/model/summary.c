#include "core/model/summary.h"

#include "core/base/banned.h"

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
	out->machine_class = r->machine_class;
	/* A rank without its group is not a rank (the record reader refuses
	 * one; the store keeps neither). */
	out->rank = r->rank >= 0 && r->rank_group ? r->rank : -1;
	out->rank_group = out->rank >= 0 ? r->rank_group : NULL;
	out->ntasks = r->ci.slurm_ntasks;
	out->slurm_maxrss_bytes = r->slurm.maxrss_bytes;
}
