#ifndef TK_STORE_H
#define TK_STORE_H
/*
 * The history store. A backend is a const struct tk_store_ops registered in
 * plugins/store/backends.c; tk_store_open picks it by URL: a bare path or
 * "sqlite:PATH" is SQLite, "postgresql://..." (or "postgres://...")
 * PostgreSQL.
 *
 * Backend state embeds struct tk_store first, so a backend casts the
 * pointer it receives to its own struct.
 *
 * Error codes: TK_EUNAVAIL when the database cannot be opened, locked past
 * the busy timeout, or written; TK_EDATA when the data is not acceptable;
 * TK_EUSAGE for a URL no backend accepts.
 */
#include <signal.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/run.h"
#include "core/model/summary.h"

struct tk_store;

/* Which runs to list; NULL/0 fields do not filter. */
struct tk_run_query {
	const char *const *keys; /* NULL-terminated, any of */
	const char *branch;
	int64_t since_us;  /* started_at_us >= since_us; 0: no bound */
	long limit;        /* 0: all */
	const char *run_id;
	const char *run_id_prefix; /* runs whose id starts with it (hex and '-') */
	const char *profile_kind; /* only runs with a stored profile of this kind */
	const char *rank_group;   /* only the ranks of this job (run->rank_group) */
	/*
	 * query_summaries only, a hint: the caller reads only what a chart
	 * shows and a check judges (tk_plot_data_add, core/analyze/check.c:
	 * run id, key, branch, commit, build number and URL, start, status,
	 * exit code and signal, partial, pipeline, walltime, CPU, RSS and its
	 * source, SLURM's RSS, machine class), so a store may leave the other fields unknown
	 * (SQLite does).
	 */
	int chart_only;
};

/* A stored profile: the encoded blob (core/model/profcodec.h) and what it is. */
struct tk_profile_blob {
	const char *run_id;
	const char *kind;          /* "cpu", "alloc", "alloc_count", ... */
	const char *unit;          /* tk_unit_name */
	const char *source_format; /* the importer that read it; may be NULL */
	int64_t nodes;
	double total;
	const void *data;
	size_t len;
};

/* Called once per run, newest first; a non-zero return stops iteration
 * and is returned by query_runs. The run is valid only during the call. */
typedef int (*tk_run_fn)(const struct tk_run *run, void *data);

/* Called once per run in the query's order; a non-zero return stops the
 * query and is returned by query_summaries. */
typedef int (*tk_summary_fn)(const struct tk_run_summary *s, void *data);

/* 2: query_summaries; 3: open takes struct tk_store_opts (cancel, wait_s) */
#define TK_STORE_OPS_VERSION 3

struct tk_store_opts;

struct tk_store_ops {
	int version; /* TK_STORE_OPS_VERSION */
	const char *name;
	/* 1 if this backend handles url. */
	int (*accepts)(const char *url);
	/*
	 * o->flags: TK_STORE_* below. o->cancel (may be NULL) is the caller's
	 * cancel flag (core/base/cancel.h): the backend copies it to the base's
	 * `cancel` and checks that, there and in every later call, between
	 * the attempts of any wait that may last (lock and connection
	 * retries), giving up with tk_cancel_err once it is set.
	 */
	int (*open)(const char *url, const struct tk_store_opts *o, struct tk_store **out,
		    struct tk_err *err);
	/* Brings the schema to the newest version (idempotent). */
	int (*migrate)(struct tk_store *s, struct tk_err *err);
	/*
	 * Stores one run in one transaction, idempotent by run id: a run
	 * already stored is left alone (*inserted = 0), except that a stored
	 * partial run is replaced by a complete one, and a stored "started"
	 * run (status TK_RUN_STARTED, written when the job started) by any
	 * record of it that is not "started" (*inserted = 1).
	 */
	int (*put_run)(struct tk_store *s, const struct tk_run *run,
		       int *inserted, struct tk_err *err);
	/*
	 * Calls fn for each run q selects, newest first (started_at_us
	 * descending, then run id ascending), at most q->limit of them.
	 * Returns 0, fn's non-zero return, or a negative error: TK_EUNAVAIL
	 * when the database cannot be read, TK_EDATA when a stored record
	 * cannot be parsed (the message names the database and the run).
	 */
	int (*query_runs)(struct tk_store *s, const struct tk_run_query *q,
			  tk_run_fn fn, void *data, struct tk_err *err);
	/*
	 * The same selection, filters and order as query_runs, but only the
	 * summary of each run, read from columns without parsing records:
	 * this is what lists of many runs use. Same returns as query_runs.
	 */
	int (*query_summaries)(struct tk_store *s, const struct tk_run_query *q,
			       tk_summary_fn fn, void *data, struct tk_err *err);
	/*
	 * Stores a profile of a stored run, replacing one of the same kind
	 * (TK_EDATA when the run is not stored).
	 */
	int (*put_profile)(struct tk_store *s, const struct tk_profile_blob *b,
			   struct tk_err *err);
	/* Appends the blob of run_id's profile of kind to out; TK_EDATA
	 * "no <kind> profile for run <id>" when there is none. */
	int (*get_profile)(struct tk_store *s, const char *run_id, const char *kind,
			   struct tk_buf *out, struct tk_err *err);
	/* Escape hatch for backend-specific operations (TK_STORE_CTRL_*). */
	int (*ctrl)(struct tk_store *s, int op, void *arg, struct tk_err *err);
	void (*close)(struct tk_store *s);
};

enum tk_store_ctrl {
	TK_STORE_CTRL_SCHEMA_VERSION = 1, /* arg: int *, the schema version */
	TK_STORE_CTRL_JOURNAL_MODE = 2,   /* arg: const char **, e.g. "wal" */
	/* arg: struct tk_store_profile_total *; the stored total of one
	 * profile without reading it. A backend without it returns
	 * TK_EUSAGE (callers then load the profile). */
	TK_STORE_CTRL_PROFILE_TOTAL = 3,
	/* arg: struct tk_store_keys *; the keys with a run started at or
	 * after since_us, in byte order, without reading every run. A
	 * backend without it returns TK_EUSAGE (callers then list runs). */
	TK_STORE_CTRL_KEYS = 4,
	/* arg: struct tk_profile_each *: fn for every stored profile, in
	 * (run id, kind) order; fn's non-zero return stops and is returned */
	TK_STORE_CTRL_EACH_PROFILE = 5,
	/*
	 * Frame totals (core/store/frametot.h), a table of their own beside
	 * the profiles. A backend without them, or a database older than
	 * them that a reader may not migrate, returns TK_EUSAGE.
	 */
	/* arg: struct tk_store_frames_put *: replaces the frame totals of
	 * one stored profile, in one transaction (TK_EDATA when the run has
	 * no profile of that kind) */
	TK_STORE_CTRL_PUT_FRAMES = 6,
	/* arg: struct tk_store_frame_sets *: the stored profiles (of a key),
	 * each with its total and whether its frame totals are stored */
	TK_STORE_CTRL_FRAME_SETS = 7,
	/* arg: struct tk_store_frame_rows *: the stored frame totals that
	 * match, in no particular order */
	TK_STORE_CTRL_FRAME_ROWS = 8,
	/* arg: struct tk_store_frame_names *: each distinct frame name of a
	 * key's frame totals once, in no particular order (the index by key
	 * and name) */
	TK_STORE_CTRL_FRAME_NAMES = 9,
	/* arg: struct tk_store_timeline *: a run's memory timeline
	 * (core/model/timeline.h), which query_runs does not read */
	TK_STORE_CTRL_TIMELINE = 10,
};

/* One frame's totals in one profile. */
struct tk_store_frame {
	const char *name;
	double self;       /* the weight of the stacks it ends */
	double cumulative; /* of the stacks it is on, each counted once */
};

struct tk_store_frames_put {
	const char *run_id, *kind;        /* in: the stored profile */
	double floor;                     /* in: every frame left out had a
					     smaller cumulative total */
	const struct tk_store_frame *v;   /* in */
	size_t nr;
};

/* A stored profile, as the frame-total operations see it. */
struct tk_store_frame_set {
	const char *run_id, *kind, *unit;
	double total;
	int has_frames;   /* its frame totals are stored */
	double floor;     /* when has_frames: the cut below which frames were left out */
};

struct tk_store_frame_sets {
	const char *key;  /* in: only this key's runs; NULL: every run */
	int missing_only; /* in: only profiles whose frame totals are not stored */
	/* in: each one (valid during the call); non-zero stops, and is returned */
	int (*fn)(const struct tk_store_frame_set *set, void *data);
	void *data;
};

struct tk_store_frame_rows {
	const char *key;                /* in: required */
	const char *run_id;             /* in: NULL: every run of key */
	const char *kind;               /* in: NULL: every kind */
	const char *const *names;       /* in: NULL-terminated; NULL: every name */
	/* in: each row (strings valid during the call); non-zero stops */
	int (*fn)(const char *run_id, const char *kind, const struct tk_store_frame *f,
		  void *data);
	void *data;
};

struct tk_store_frame_names {
	const char *key;                             /* in */
	int (*fn)(const char *name, void *data);     /* in; non-zero stops */
	void *data;
};

struct tk_store_timeline {
	const char *run_id;      /* in */
	struct tk_timeline *out; /* in: replaced by the run's points */
	int found;               /* out: 1 when the run has a timeline */
};

struct tk_store_keys {
	int64_t since_us;                      /* in; 0: any run */
	int (*fn)(const char *key, void *data); /* in: each key; non-zero stops */
	void *data;
};

struct tk_store_profile_total {
	const char *run_id; /* in */
	const char *kind;   /* in */
	int found;          /* out: 1 when the run has such a profile */
	double total;       /* out: its total, when found */
	char unit[16];      /* out: its unit's name (tk_unit_name), when found */
};

struct tk_profile_each {
	/* b and everything it points to are valid during the call only */
	int (*fn)(const struct tk_profile_blob *b, void *data);
	void *data;
};

#define TK_STORE_SKIPPED_IDS 16

struct tk_store {
	const struct tk_store_ops *ops;
	/* A warning the backend wants shown once (e.g. WAL unavailable on a
	 * network filesystem); empty when none. */
	char warning[256];
	/* The caller's cancel flag (core/base/cancel.h), NULL: never cancelled.
	 * Set from tk_store_opts by open; the caller may change it later. */
	const volatile sig_atomic_t *cancel;
	/* Rows query_runs and query_summaries skipped because a figure is out
	 * of tk_run_summary_check's bounds (a row written by hand, or by a
	 * tracker that did not check), and the first one's description
	 * ("run 1b2c... of key 'amip': walltime_s is inf, ..."), for the
	 * caller to show once: one bad row never blocks the others. */
	size_t skipped;
	char skipped_first[256];
	char skipped_ids[TK_STORE_SKIPPED_IDS][37]; /* to count each run once */
	size_t nr_skipped_ids;
};

/* Flags of tk_store_open_flags and tk_store_opts. */
enum tk_store_flags {
	/*
	 * For commands that only read: a database that does not exist yet is
	 * not created, and opening fails with TK_EUNAVAIL "no database at
	 * 'PATH' (nothing recorded yet?)". An existing one is still migrated
	 * (when writable), so an old file stays readable.
	 */
	TK_STORE_NO_CREATE = 1 << 0,
};

/*
 * Opens and migrates the store at url, creating it (and the directories
 * above a SQLite file) when needed. Errors: TK_EUSAGE for an empty url or
 * one no backend accepts ("no store understands the database URL ..."),
 * TK_EUNAVAIL when it cannot be opened or migrated; messages
 * name the database. After a successful open, (*out)->warning may hold a
 * message the caller should show once.
 */
/* The lookups of the backends' table (plugins/store/backends.c): the backend that accepts
 * url (and has this TK_STORE_OPS_VERSION), the i-th backend; NULL when
 * none. */
const struct tk_store_ops *tk_store_backend_for(const char *url);
const struct tk_store_ops *tk_store_backend_at(size_t i);

/*
 * How long a command waits for a database it cannot reach. A writer
 * (tracker run, push, import, fetch) must not lose what it stores, so it
 * keeps trying for as long as the backend's default (PostgreSQL: 30 s of
 * connection retries); a command that only reads answers a person or a
 * merge gate, which should hear within seconds that the database is not
 * there: it asks for TK_STORE_READ_WAIT_S. A backend with nothing to reach
 * (SQLite: a local file) ignores it.
 */
#define TK_STORE_READ_WAIT_S 4.0

/*
 * How long one statement of a command that only reads may wait: for a
 * lock another session holds (a migration, LOCK TABLE), or for a server
 * that has stopped answering. A writer waits as long as the backend's
 * statement deadline (PostgreSQL: 120 s, TRACKER_PG_TIMEOUT_S), then
 * spools its record; a reader has nothing to keep and someone waiting
 * for it, so it gives up after TK_STORE_READ_TIMEOUT_S (PostgreSQL:
 * TRACKER_PG_READ_TIMEOUT_S sets another; TRACKER_PG_TIMEOUT_S may
 * shorten it, never lengthen it). SQLite's busy timeout is its own.
 */
#define TK_STORE_READ_TIMEOUT_S 30.0

struct tk_store_opts {
	unsigned flags;                      /* enum tk_store_flags */
	const volatile sig_atomic_t *cancel; /* NULL: never cancelled */
	/*
	 * The longest wait to reach the database, in seconds, in all: every
	 * connection attempt (each one's own timeout cut to what is left) and
	 * the pauses between them, for the opening and for each later call
	 * that has to connect again. 0: the backend's default.
	 */
	double wait_s;
	/*
	 * The longest wait for one statement, a lock wait included, in
	 * seconds (TK_STORE_READ_TIMEOUT_S for the readers). 0: the
	 * backend's default, which is a writer's.
	 */
	double timeout_s;
};

int tk_store_open(const char *url, struct tk_store **out, struct tk_err *err);

/*
 * The run a user names: `given` is a whole run id, or the start of one
 * (at least TK_RUN_ID_MIN_PREFIX characters), as tracker prints them
 * ("run 61c63795"), of one of keys (NULL-terminated; NULL: any key).
 * Sets out to the whole id of the one such run whose id starts with it;
 * to `given` itself when it is a whole id, when no run starts with it or
 * when it is not the start of an id at all (then the caller's lookup says
 * there is no such run). TK_EUSAGE, naming two of them, when several runs
 * start with it; a store error as the store gives it. Both stores find
 * them as a range of the primary key's index (PostgreSQL's run_id is
 * COLLATE "C": ordered by bytes whatever the database's collation).
 */
#define TK_RUN_ID_MIN_PREFIX 4
int tk_store_resolve_run_id(struct tk_store *s, const char *given, const char *const *keys,
			    struct tk_buf *out, struct tk_err *err);

/* 1 when q (its limit aside) matches a run in s, 0 when none does, or a
 * negative code with err filled. */
int tk_store_any_run(struct tk_store *s, const struct tk_run_query *q, struct tk_err *err);

/* Appends the key of the run whose id is id to out; nothing when s has no
 * such run. Returns 0 or a negative code with err filled. */
int tk_store_run_key(struct tk_store *s, const char *id, struct tk_buf *out,
		     struct tk_err *err);

/*
 * The keys of a store, for the commands that name one (--key): a key
 * typed wrong must not read as a key with no recent runs.
 *
 * tk_store_each_key calls fn for each key with a run started at or after
 * since_us (0: any run), once each, in byte order; fn's non-zero return
 * stops it and is returned. From the backend's key index
 * (TK_STORE_CTRL_KEYS) when it has one, else from one pass over the runs'
 * summaries, holding the distinct keys (twice at most) meanwhile.
 */
int tk_store_each_key(struct tk_store *s, int64_t since_us,
		      int (*fn)(const char *key, void *data), void *data, struct tk_err *err);

/* 1 when s holds a run of key (any branch, any time), 0 when it holds
 * none, or a negative code with err filled. One indexed lookup. */
int tk_store_key_exists(struct tk_store *s, const char *key, struct tk_err *err);

/*
 * The keys of s nearest to name (a key, or a shell pattern, whose '*'s are
 * left out) by edit distance (core/base/suggest.h), nearest first, ties in
 * byte order: at most TK_STORE_NEAR_KEYS, and only those within
 * max(2, length of name / 3) edits, so a key unlike every stored one gets
 * no suggestion. total is how many keys s holds. Every key is looked at:
 * the error path of a command, not its work. tk_store_near_release frees
 * the keys.
 */
#define TK_STORE_NEAR_KEYS 3

struct tk_store_near {
	char *keys[TK_STORE_NEAR_KEYS]; /* NULL past nr */
	size_t nr;
	size_t total;
};

int tk_store_near_keys(struct tk_store *s, const char *name, struct tk_store_near *out,
		       struct tk_err *err);
void tk_store_near_release(struct tk_store_near *n);

/*
 * What a command checks before it reads the history of keys it was given:
 * 0 when each key of keys (NULL-terminated) has a run in s (on any branch,
 * at any time); else TK_EDATA for the first that has none, "no runs of key
 * 'amipp'; the nearest keys are 'amip', 'amip2'" (or "the nearest key is",
 * or "no key is near it (the database has N keys)", or "the database has
 * no runs"). Keys in the message are escaped for a terminal
 * (tk_text_escape) and cut to TK_STORE_SHOWN_KEY bytes. Store errors as
 * the store gives them.
 */
#define TK_STORE_SHOWN_KEY 100
int tk_store_require_keys(struct tk_store *s, const char *const *keys, struct tk_err *err);

/* The same for a shell pattern (fnmatch, as the dashboard's --key-filter):
 * 0 when a key of s matches it, else TK_EDATA "no runs of a key matching
 * 'P'; ..." with the nearest keys. Lists every key of s. */
int tk_store_require_key_match(struct tk_store *s, const char *pattern, struct tk_err *err);

/*
 * Appends url to out with any password replaced by "***": the one in
 * "scheme://user:PASSWORD@host" and a "password=" query parameter. What
 * every message that names a database prints.
 */
void tk_store_redact_url(const char *url, struct tk_buf *out);
/* With the caller's cancel flag: a wait given up because it is set fails
 * with TK_EUNAVAIL "cancelled while waiting for ..." (core/base/cancel.h). */
int tk_store_open_opts(const char *url, const struct tk_store_opts *o,
		       struct tk_store **out, struct tk_err *err);
int tk_store_open_flags(const char *url, unsigned flags, struct tk_store **out,
			struct tk_err *err);
/* For the commands that only read (history, check, diff, flame,
 * dashboard, report): TK_STORE_NO_CREATE, TK_STORE_READ_WAIT_S to
 * reach the database (an unreachable one is TK_EUNAVAIL naming it) and
 * TK_STORE_READ_TIMEOUT_S for each statement. */
int tk_store_open_reader(const char *url, struct tk_store **out, struct tk_err *err);
/*
 * Copies every run of src into dst (put_run: idempotent, a complete run
 * replaces a partial one) and then every profile (put_profile, which
 * replaces one of the same kind), so copying twice stores everything
 * once; a run's memory timeline goes with it. Counts what happened in *stats. Errors: src's or dst's, with
 * the message naming the database; what was copied before stays.
 */
struct tk_store_copy_stats {
	size_t runs, runs_stored, profiles;
};

int tk_store_copy(struct tk_store *src, struct tk_store *dst,
		  struct tk_store_copy_stats *stats, struct tk_err *err);

/*
 * The memory timeline of run run_id (core/model/timeline.h) into out (its
 * points replaced): *found 1 when the run has one, 0 when it has none,
 * is not stored, or the store keeps no timelines. Store errors as the
 * store gives them; TK_EDATA for a stored timeline that cannot be read.
 */
int tk_store_get_timeline(struct tk_store *s, const char *run_id, struct tk_timeline *out,
			  int *found, struct tk_err *err);

/* Closes s; NULL is fine. */
void tk_store_close(struct tk_store *s);

static inline int tk_store_put_run(struct tk_store *s, const struct tk_run *run,
				   int *inserted, struct tk_err *err)
{
	return s->ops->put_run(s, run, inserted, err);
}

static inline int tk_store_put_profile(struct tk_store *s, const struct tk_profile_blob *b,
				       struct tk_err *err)
{
	return s->ops->put_profile(s, b, err);
}

static inline int tk_store_get_profile(struct tk_store *s, const char *run_id,
				       const char *kind, struct tk_buf *out,
				       struct tk_err *err)
{
	return s->ops->get_profile(s, run_id, kind, out, err);
}

/* The backend's query_runs and query_summaries, rows out of bounds
 * skipped and counted in s->skipped. */
int tk_store_query_runs(struct tk_store *s, const struct tk_run_query *q, tk_run_fn fn,
			void *data, struct tk_err *err);
int tk_store_query_summaries(struct tk_store *s, const struct tk_run_query *q,
			     tk_summary_fn fn, void *data, struct tk_err *err);

#endif
