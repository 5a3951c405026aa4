#ifndef TK_RUNFIELD_H
#define TK_RUNFIELD_H
/*
 * The fields of the run record, once. Each scalar field of struct tk_run
 * is one entry of tk_run_fields[]: its member name in the record file,
 * the object that holds it there (the run, run.ci or run.slurm), its type
 * and what "unknown" is for it, its place in struct tk_run and, when the
 * summary carries it, in struct tk_run_summary. The record file's writers
 * and reader (core/model/record.h), tk_run_summarize, the stores' columns
 * and history's CSV all walk or name these entries. A field is added
 * here and in the two structs (its unknown value in tk_run_init, a
 * string's free in tk_run_release: run.c cannot walk this table, which
 * is above it) to be written, read and summarized, and stored in the
 * stores' `record`; a store column for it is a schema version of the
 * stores' (plugins/store/columns.h), a CSV column of history's.
 * tests/unit/t-runfield checks every entry through all of these.
 *
 * The structured parts of the record (argv, tags, agent tags, profiles,
 * the slurm object, the memory timeline) are entries too, of type TK_RFT_PART: they hold their
 * place in the record's order, and the record's code writes and reads
 * them. The entries are in the order of the record file: the run
 * object's members, then run.ci's, then run.slurm's.
 *
 * The table is constant and global; nothing here allocates or fails.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/model/summary.h"

enum tk_run_field_id {
	/* the run object */
	TK_RF_ID,
	TK_RF_KEY,
	TK_RF_STATUS,
	TK_RF_PARTIAL,
	TK_RF_STARTED_AT_US,
	TK_RF_WALLTIME_S,
	TK_RF_USER_S,
	TK_RF_SYS_S,
	TK_RF_MAXRSS_BYTES,
	TK_RF_MAXRSS_SOURCE,
	TK_RF_WRAPPER_RSS_BYTES,
	TK_RF_TREE_RSS_BYTES,
	TK_RF_TREE_SAMPLES,
	TK_RF_CGROUP_PEAK_BYTES,
	TK_RF_EXIT_CODE,
	TK_RF_SIGNAL,
	TK_RF_RANK,
	TK_RF_RANK_GROUP,
	TK_RF_MACHINE_CLASS,
	TK_RF_ARGV,
	TK_RF_TAGS,
	TK_RF_CI,
	TK_RF_PROFILES,
	TK_RF_SLURM,
	TK_RF_TIMELINE,
	TK_RF_TRACKER_VERSION,
	/* run.ci */
	TK_RF_PROVIDER,
	TK_RF_ORGANIZATION,
	TK_RF_PIPELINE,
	TK_RF_BRANCH,
	TK_RF_COMMIT,
	TK_RF_BUILD_NUMBER,
	TK_RF_BUILD_URL,
	TK_RF_JOB_ID,
	TK_RF_STEP_KEY,
	TK_RF_STEP_LABEL,
	TK_RF_BASE_BRANCH,
	TK_RF_BASE_COMMIT,
	TK_RF_HEAD_COMMIT,
	TK_RF_DEFAULT_BRANCH,
	TK_RF_HOST,
	TK_RF_AGENT_TAGS,
	TK_RF_SLURM_JOB_ID,
	TK_RF_SLURM_STEP_ID,
	TK_RF_SLURM_PROCID,
	TK_RF_SLURM_NTASKS,
	TK_RF_SLURM_CPUS_PER_TASK,
	TK_RF_SLURM_NODELIST,
	TK_RF_SLURM_PARTITION,
	/* run.slurm */
	TK_RF_SLURM_MAXRSS_BYTES,
	TK_RF_SLURM_MAXRSS_STEP,
	TK_RF_NR
};

/* The object of the record file that holds a field. */
enum tk_rf_place {
	TK_RF_IN_RUN,
	TK_RF_IN_CI,
	TK_RF_IN_SLURM,
};

/*
 * A field's type: its C type in both structs, its JSON, and what unknown
 * is. Unknown is written as null, and a null or missing member leaves
 * the field as tk_run_init has it.
 */
enum tk_rf_type {
	TK_RFT_UUID,   /* char[TK_RUN_ID_LEN + 1]; a const char * in the summary */
	TK_RFT_STR,    /* char *, NULL unknown; a const char * in the summary */
	TK_RFT_STATUS, /* enum tk_run_status, as its name */
	TK_RFT_BOOL,   /* int, true or false (anything else read as false) */
	TK_RFT_I64,    /* int64_t, negative unknown */
	TK_RFT_INT,    /* int, -1 unknown, read as -1 to INT_MAX */
	TK_RFT_REAL,   /* double, negative unknown; NaN and infinity left out */
	TK_RFT_PART,   /* structured: the record's own code writes and reads it */
};

/* Flags, or'ed in tk_run_field.flags. */
enum {
	/* The reader refuses a record without it (the id must be a UUID,
	 * a string non-empty). */
	TK_RF_REQUIRED = 1 << 0,
	/* Never unknown, every value is one: the stores' column is never
	 * NULL and history's CSV writes it as it is. An int is then also
	 * written to the record as it is and read from any integer (the
	 * signal); an int64's negative value is null in the record file,
	 * as it always was. */
	TK_RF_NEVER_UNKNOWN = 1 << 1,
	/* Left out of the record file when unknown. */
	TK_RF_OMIT_UNKNOWN = 1 << 2,
	/* Written only in a rank's record (struct tk_run.rank >= 0). */
	TK_RF_OMIT_UNRANKED = 1 << 3,
	/* Written, never read: worked out again from the slurm steps. */
	TK_RF_DERIVED = 1 << 4,
};

#define TK_RF_NO_SUMMARY ((size_t)-1)

struct tk_run_field {
	const char *name;   /* its member in the record file ("maxrss_bytes") */
	/* its name where a run is one flat row: history's CSV, the stores'
	 * columns ("run_id", "slurm_maxrss_bytes"); NULL for a part */
	const char *column;
	enum tk_rf_place place;
	enum tk_rf_type type;
	unsigned flags;
	size_t run;     /* offset in struct tk_run (unused for a part) */
	size_t summary; /* offset in struct tk_run_summary, or TK_RF_NO_SUMMARY */
};

/* Indexed by enum tk_run_field_id. */
extern const struct tk_run_field tk_run_fields[TK_RF_NR];

/* Where field f is in r, or in the summary s (f->summary must be one). */
static inline void *tk_run_field_at(struct tk_run *r, const struct tk_run_field *f)
{
	return (char *)(void *)r + f->run;
}

static inline const void *tk_run_field_cat(const struct tk_run *r, const struct tk_run_field *f)
{
	return (const char *)(const void *)r + f->run;
}

static inline const void *tk_run_field_sum(const struct tk_run_summary *s,
					   const struct tk_run_field *f)
{
	return (const char *)(const void *)s + f->summary;
}

/*
 * A run's summary, every field with a place in the summary copied from
 * the run (strings borrowed from it): what a store keeps in its columns,
 * so that query_summaries and query_runs agree field by field.
 */
void tk_run_summarize(const struct tk_run *r, struct tk_run_summary *out);

/*
 * The physical bounds of a run's figures, checked wherever runs come from
 * outside (record files of push, fetch and import; rows read back from a
 * database): durations finite and at most TK_RUN_MAX_SECONDS (a negative
 * one is unknown), byte counts at most TK_RUN_MAX_BYTES, the start
 * between TK_RUN_MIN_START_US and TK_RUN_MAX_START_US, the exit code
 * -1..255, the signal 0..127, ranks and task counts -1..TK_RUN_MAX_TASKS.
 * Returns 0, or -1 with why set to the first field out of bounds, its
 * value and the bound ("walltime_s is inf, not a finite number of
 * seconds up to 1e+08").
 */
#define TK_RUN_MAX_SECONDS 1e8                    /* 3.2 years */
#define TK_RUN_MAX_BYTES (INT64_C(1) << 60)      /* 1 EiB */
#define TK_RUN_MIN_START_US INT64_C(0)                /* 1970-01-01 */
#define TK_RUN_MAX_START_US INT64_C(7258118400000000) /* 2200-01-01 */
#define TK_RUN_MAX_TASKS (1 << 24)
int tk_run_summary_check(const struct tk_run_summary *s, struct tk_buf *why);

#endif
