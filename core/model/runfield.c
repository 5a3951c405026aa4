#include "core/model/runfield.h"

#include <math.h>
#include <stdint.h>

#include "core/base/banned.h"

#define RUN(member) offsetof(struct tk_run, member)
#define SUM(member) offsetof(struct tk_run_summary, member)
#define NO_SUM TK_RF_NO_SUMMARY

/* A field named alike in the record and in a flat row. */
#define F(id, name, place, type, flags, run, sum) \
	[TK_RF_##id] = { name, name, TK_RF_IN_##place, TK_RFT_##type, flags, run, sum }
/* One whose flat name is not its member's name. */
#define FC(id, name, column, place, type, flags, run, sum) \
	[TK_RF_##id] = { name, column, TK_RF_IN_##place, TK_RFT_##type, flags, run, sum }
#define PART(id, name, place) \
	[TK_RF_##id] = { name, NULL, TK_RF_IN_##place, TK_RFT_PART, 0, 0, NO_SUM }

const struct tk_run_field tk_run_fields[TK_RF_NR] = {
	FC(ID, "id", "run_id", RUN, UUID, TK_RF_REQUIRED, RUN(id), SUM(run_id)),
	F(KEY, "key", RUN, STR, TK_RF_REQUIRED, RUN(key), SUM(key)),
	F(STATUS, "status", RUN, STATUS, 0, RUN(status), SUM(status)),
	F(PARTIAL, "partial", RUN, BOOL, 0, RUN(partial), SUM(partial)),
	F(STARTED_AT_US, "started_at_us", RUN, I64, TK_RF_NEVER_UNKNOWN, RUN(started_at_us),
	  SUM(started_at_us)),
	F(WALLTIME_S, "walltime_s", RUN, REAL, 0, RUN(walltime_s), SUM(walltime_s)),
	F(USER_S, "user_s", RUN, REAL, 0, RUN(user_s), SUM(user_s)),
	F(SYS_S, "sys_s", RUN, REAL, 0, RUN(sys_s), SUM(sys_s)),
	F(MAXRSS_BYTES, "maxrss_bytes", RUN, I64, 0, RUN(maxrss_bytes), SUM(maxrss_bytes)),
	F(MAXRSS_SOURCE, "maxrss_source", RUN, STR, 0, RUN(maxrss_source), SUM(maxrss_source)),
	F(WRAPPER_RSS_BYTES, "wrapper_rss_bytes", RUN, I64, 0, RUN(wrapper_rss_bytes),
	  SUM(wrapper_rss_bytes)),
	F(TREE_RSS_BYTES, "tree_rss_bytes", RUN, I64, 0, RUN(tree_rss_bytes),
	  SUM(tree_rss_bytes)),
	F(TREE_SAMPLES, "tree_samples", RUN, I64, TK_RF_NEVER_UNKNOWN, RUN(tree_samples),
	  SUM(tree_samples)),
	F(CGROUP_PEAK_BYTES, "cgroup_peak_bytes", RUN, I64, 0, RUN(cgroup_peak_bytes),
	  SUM(cgroup_peak_bytes)),
	F(EXIT_CODE, "exit_code", RUN, INT, 0, RUN(exit_code), SUM(exit_code)),
	F(SIGNAL, "signal", RUN, INT, TK_RF_NEVER_UNKNOWN, RUN(term_signal), SUM(term_signal)),
	F(RANK, "rank", RUN, INT, TK_RF_OMIT_UNRANKED, RUN(rank), SUM(rank)),
	F(RANK_GROUP, "rank_group", RUN, STR, TK_RF_OMIT_UNRANKED, RUN(rank_group),
	  SUM(rank_group)),
	F(MACHINE_CLASS, "machine_class", RUN, STR, TK_RF_OMIT_UNKNOWN, RUN(machine_class),
	  SUM(machine_class)),
	PART(ARGV, "argv", RUN),
	PART(TAGS, "tags", RUN),
	PART(CI, "ci", RUN),
	PART(PROFILES, "profiles", RUN),
	PART(SLURM, "slurm", RUN),
	PART(TIMELINE, "timeline", RUN),
	F(TRACKER_VERSION, "tracker_version", RUN, STR, 0, RUN(tracker_version),
	  SUM(tracker_version)),

	F(PROVIDER, "provider", CI, STR, 0, RUN(ci.provider), SUM(provider)),
	F(ORGANIZATION, "organization", CI, STR, 0, RUN(ci.organization), NO_SUM),
	F(PIPELINE, "pipeline", CI, STR, 0, RUN(ci.pipeline), SUM(pipeline)),
	F(BRANCH, "branch", CI, STR, 0, RUN(ci.branch), SUM(branch)),
	F(COMMIT, "commit", CI, STR, 0, RUN(ci.commit), SUM(commit)),
	F(BUILD_NUMBER, "build_number", CI, STR, 0, RUN(ci.build_number), SUM(build_number)),
	F(BUILD_URL, "build_url", CI, STR, 0, RUN(ci.build_url), SUM(build_url)),
	F(JOB_ID, "job_id", CI, STR, 0, RUN(ci.job_id), NO_SUM),
	F(STEP_KEY, "step_key", CI, STR, 0, RUN(ci.step_key), NO_SUM),
	F(STEP_LABEL, "step_label", CI, STR, 0, RUN(ci.step_label), NO_SUM),
	F(BASE_BRANCH, "base_branch", CI, STR, 0, RUN(ci.base_branch), NO_SUM),
	F(BASE_COMMIT, "base_commit", CI, STR, 0, RUN(ci.base_commit), NO_SUM),
	F(HEAD_COMMIT, "head_commit", CI, STR, 0, RUN(ci.head_commit), NO_SUM),
	F(DEFAULT_BRANCH, "default_branch", CI, STR, 0, RUN(ci.default_branch), NO_SUM),
	F(HOST, "host", CI, STR, 0, RUN(ci.host), SUM(host)),
	PART(AGENT_TAGS, "agent_tags", CI),
	F(SLURM_JOB_ID, "slurm_job_id", CI, STR, 0, RUN(ci.slurm_job_id), NO_SUM),
	F(SLURM_STEP_ID, "slurm_step_id", CI, STR, 0, RUN(ci.slurm_step_id), NO_SUM),
	F(SLURM_PROCID, "slurm_procid", CI, STR, 0, RUN(ci.slurm_procid), NO_SUM),
	FC(SLURM_NTASKS, "slurm_ntasks", "ntasks", CI, INT, 0, RUN(ci.slurm_ntasks),
	   SUM(ntasks)),
	F(SLURM_CPUS_PER_TASK, "slurm_cpus_per_task", CI, INT, 0, RUN(ci.slurm_cpus_per_task),
	  NO_SUM),
	F(SLURM_NODELIST, "slurm_nodelist", CI, STR, 0, RUN(ci.slurm_nodelist), NO_SUM),
	F(SLURM_PARTITION, "slurm_partition", CI, STR, 0, RUN(ci.slurm_partition), NO_SUM),

	FC(SLURM_MAXRSS_BYTES, "maxrss_bytes", "slurm_maxrss_bytes", SLURM, I64, TK_RF_DERIVED,
	   RUN(slurm.maxrss_bytes), SUM(slurm_maxrss_bytes)),
	FC(SLURM_MAXRSS_STEP, "maxrss_step", "slurm_maxrss_step", SLURM, STR, TK_RF_DERIVED,
	   RUN(slurm.maxrss_step), NO_SUM),
};

void tk_run_summarize(const struct tk_run *r, struct tk_run_summary *out)
{
	size_t i;

	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = &tk_run_fields[i];
		const void *v;
		void *to;

		/* no pointer made from NO_SUMMARY's offset: it is past the struct */
		if (f->summary == TK_RF_NO_SUMMARY)
			continue;
		v = tk_run_field_cat(r, f);
		to = (char *)(void *)out + f->summary;
		switch (f->type) {
		case TK_RFT_UUID:
			*(const char **)to = v;
			break;
		case TK_RFT_STR:
			*(const char **)to = *(char *const *)v;
			break;
		case TK_RFT_STATUS:
			*(enum tk_run_status *)to = *(const enum tk_run_status *)v;
			break;
		case TK_RFT_BOOL:
			*(int *)to = *(const int *)v ? 1 : 0;
			break;
		case TK_RFT_I64:
			*(int64_t *)to = *(const int64_t *)v;
			break;
		case TK_RFT_INT:
			*(int *)to = *(const int *)v;
			break;
		case TK_RFT_REAL:
			*(double *)to = *(const double *)v;
			break;
		case TK_RFT_PART:
			break;
		}
	}
	/* A rank without its group is not a rank (the record reader refuses
	 * one; the stores keep neither). */
	if (out->rank < 0 || !out->rank_group) {
		out->rank = -1;
		out->rank_group = NULL;
	}
}

static int bad_seconds(const char *name, double v, struct tk_buf *why)
{
	if (v < 0 && isfinite(v))
		return 0; /* unknown */
	if (isfinite(v) && v <= TK_RUN_MAX_SECONDS)
		return 0;
	tk_buf_addf(why, "%s is %g, not a finite number of seconds up to %g", name, v,
		    TK_RUN_MAX_SECONDS);
	return -1;
}

static int bad_int(const char *name, int64_t v, int64_t lo, int64_t hi, const char *what,
		   struct tk_buf *why)
{
	if (v >= lo && v <= hi)
		return 0;
	if (lo == INT64_MIN)
		tk_buf_addf(why, "%s is %lld, not %s up to %lld", name, (long long)v, what,
			    (long long)hi);
	else
		tk_buf_addf(why, "%s is %lld, not %s (%lld to %lld)", name, (long long)v, what,
			    (long long)lo, (long long)hi);
	return -1;
}

int tk_run_summary_check(const struct tk_run_summary *s, struct tk_buf *why)
{
	const int64_t unknown = -1, bytes = TK_RUN_MAX_BYTES;

	if (bad_seconds("walltime_s", s->walltime_s, why) ||
	    bad_seconds("user_s", s->user_s, why) || bad_seconds("sys_s", s->sys_s, why))
		return -1;
	if (bad_int("maxrss_bytes", s->maxrss_bytes, INT64_MIN, bytes, "a size", why) ||
	    bad_int("tree_rss_bytes", s->tree_rss_bytes, INT64_MIN, bytes, "a size", why) ||
	    bad_int("cgroup_peak_bytes", s->cgroup_peak_bytes, INT64_MIN, bytes, "a size", why) ||
	    bad_int("wrapper_rss_bytes", s->wrapper_rss_bytes, INT64_MIN, bytes, "a size", why) ||
	    bad_int("slurm_maxrss_bytes", s->slurm_maxrss_bytes, INT64_MIN, bytes, "a size",
		    why) ||
	    bad_int("tree_samples", s->tree_samples, INT64_MIN, INT64_C(1) << 40, "a count", why))
		return -1;
	if (bad_int("started_at_us", s->started_at_us, TK_RUN_MIN_START_US, TK_RUN_MAX_START_US,
		    "a time from 1970 to 2200 in microseconds", why) ||
	    bad_int("exit_code", s->exit_code, unknown, 255, "an exit status", why) ||
	    bad_int("signal", s->term_signal, 0, 127, "a signal number", why) ||
	    bad_int("rank", s->rank, unknown, TK_RUN_MAX_TASKS, "a rank", why) ||
	    bad_int("ntasks", s->ntasks, unknown, TK_RUN_MAX_TASKS, "a task count", why))
		return -1;
	return 0;
}
