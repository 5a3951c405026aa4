#ifndef TK_RUN_H
#define TK_RUN_H
/*
 * The run record: one measured execution of a job step, with the CI context
 * it ran in. This is what `tracker run` produces, what the store keeps, and
 * what a record file (JSON, core/model/record.h) carries between machines.
 * Its fields are listed once, in core/model/runfield.h.
 *
 * All strings are owned by the struct (heap, NUL-terminated) and may be
 * NULL when unknown. tk_run_release frees everything and leaves the struct
 * zeroed; tk_run_init zeroes it and marks every measurement unknown (-1).
 */
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/base/kvlist.h"
#include "core/model/context.h"
#include "core/model/slurm.h"
#include "core/model/timeline.h"

enum tk_run_status {
	TK_RUN_OK,        /* exited 0 */
	TK_RUN_FAILED,    /* exited non-zero */
	TK_RUN_SIGNALED,  /* died by a signal nobody asked for */
	TK_RUN_CANCELLED, /* tracker was asked to stop it (TERM/INT/HUP) */
	TK_RUN_TIMEOUT,   /* --timeout expired */
	TK_RUN_ERROR,     /* could not be started */
	TK_RUN_STARTED,   /* partial: written as the job started, not ended yet */
	TK_RUN_OOM,       /* killed for memory: SLURM's OUT_OF_MEMORY, or the cgroup's oom_kill */
};

const char *tk_run_status_name(enum tk_run_status s);
int tk_run_status_parse(const char *name, enum tk_run_status *out);

#define TK_RUN_ID_LEN 36

/*
 * A profile that travels with a record file: the encoded profile
 * (core/model/profcodec.h) in `file`, a name relative to the record's directory.
 */
struct tk_run_profile {
	char *kind;   /* "cpu", "alloc", "alloc_count", ... */
	char *unit;   /* tk_unit_name */
	char *format; /* the importer that read it */
	char *file;
};

struct tk_run {
	char id[TK_RUN_ID_LEN + 1]; /* UUID v4, lower-case */
	char *key;
	struct tk_ci_context ci;
	char **argv;  /* the command, NULL-terminated; may be NULL */
	int64_t started_at_us; /* UTC, microseconds since the epoch */
	double walltime_s;
	double user_s;
	double sys_s;
	int64_t maxrss_bytes;      /* peak RSS of the largest process */
	int64_t tree_rss_bytes;    /* peak of RSS summed over the tree */
	int64_t cgroup_peak_bytes; /* cgroup v2 memory.peak, -1 unknown */
	char *maxrss_source;       /* "wait4", "sampled" or "upper-bound", see docs/measurements.md */
	int64_t wrapper_rss_bytes; /* tracker's anonymous RSS at fork, -1 unknown */
	int64_t tree_samples;      /* how many tree samples were taken */
	int exit_code;   /* 0..255, or -1 when it died by a signal */
	int term_signal; /* 0 when it exited */
	enum tk_run_status status;
	int partial;     /* 1: written before the job ended (status started, or
			  * cancelled while it was being stopped) */
	/*
	 * One rank of a parallel job (tracker run --per-rank): rank is the
	 * process's rank (SLURM_PROCID), -1 for a run that is not a rank;
	 * rank_group names the job step the ranks belong to, the same for
	 * every rank ("<job id>.<step id>", see cmd_per_rank_setup), NULL
	 * when rank is -1.
	 */
	int rank;
	char *rank_group;
	/*
	 * The kind of machine it ran on, so that two kinds never form one
	 * series (tk_machine_class): "gpu-a100", "cpu-large". NULL when
	 * unknown (runs recorded before tracker kept it).
	 */
	char *machine_class;
	struct tk_kvlist tags;
	char *tracker_version;
	struct tk_run_profile *profiles;
	size_t nr_profiles, alloc_profiles;
	/*
	 * SLURM's accounting of the job's steps (tracker run inside an
	 * allocation, core/ci/sacct.h), the record's "slurm" object; no steps
	 * when there was none. slurm.maxrss_bytes is the run's SLURM memory.
	 */
	struct tk_sacct slurm;
	/*
	 * The memory timeline tracker run kept (core/model/timeline.h), the
	 * record's "timeline" object; no points when none was kept. The
	 * stores keep it in a table of its own, not in `record`.
	 */
	struct tk_timeline timeline;
};

/* Appends a profile attachment (copies of the strings). */
void tk_run_add_profile(struct tk_run *r, const char *kind, const char *unit,
			const char *format, const char *file);

void tk_run_init(struct tk_run *r);
void tk_run_release(struct tk_run *r);
/* Replaces r->argv with a copy of the NULL-terminated argv. */
void tk_run_set_argv(struct tk_run *r, char *const *argv);

/*
 * The one rule for a run's key, kept by everything that makes or takes a
 * run (tracker run's --key, $TRACKER_KEY and derived keys, tracker push's
 * records): 1 to TK_RUN_KEY_MAX bytes of valid UTF-8 without control
 * characters (U+0000-U+001F, U+007F). Returns 0, or TK_EDATA with err
 * saying "invalid key '<key>' (...)", the key's control characters and
 * invalid bytes written as \xNN and a long key cut short.
 */
#define TK_RUN_KEY_MAX 200
int tk_run_check_key(const char *key, struct tk_err *err);

/*
 * The rule for a tag (tracker run's --tag and .tracker.yml's tags, tracker
 * push's records): a name of 1 to TK_RUN_KEY_MAX bytes without '=', a
 * value of at most TK_RUN_TAG_VALUE_MAX bytes, both valid UTF-8 without
 * control characters. Returns 0, or TK_EDATA "invalid tag 'NAME=VALUE'
 * (...)", shown as tk_run_check_key shows a key.
 */
#define TK_RUN_TAG_VALUE_MAX 1024
int tk_run_check_tag(const char *name, const char *value, struct tk_err *err);

/*
 * Sets each tag of tags that passes tk_run_check_tag in r->tags; returns
 * how many were refused, with err naming the first of them.
 */
size_t tk_run_add_tags(struct tk_run *r, const struct tk_kvlist *tags, struct tk_err *err);

/* What tracker run would refuse in r: its key (tk_run_check_key), then
 * its tags (tk_run_check_tag); the first problem's TK_EDATA, else 0. */
int tk_run_check(const struct tk_run *r, struct tk_err *err);

/* Appends the one-line account of a finished run that tracker run prints:
 * "amip: ok, wall 1m 02s, max RSS 2.10 GiB, tree RSS 3.20 GiB, exit 0
 * (run 8c1d2e3f)". */
void tk_run_format_summary(const struct tk_run *r, struct tk_buf *out);

/* Fills r->id with a fresh random UUID v4 (getrandom). */
int tk_uuid_v4(char out[TK_RUN_ID_LEN + 1], struct tk_err *err);
int tk_uuid_valid(const char *s);

#endif
