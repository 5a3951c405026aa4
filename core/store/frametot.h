#ifndef TK_FRAMETOT_H
#define TK_FRAMETOT_H
/*
 * Frame totals: for each stored profile, each function's self and
 * cumulative total, kept in a table of their own beside the profile
 * (TK_STORE_CTRL_PUT_FRAMES and friends, core/store/store.h), so that
 * one function's history over a thousand runs is one indexed read, and
 * no profile is decoded to answer it.
 *
 *   self        the weight of the stacks the function ends
 *   cumulative  the weight of the stacks the function is on, each stack
 *               counted once even when the function recurses
 *
 * What is kept of a profile: the frames whose cumulative total is at
 * least TK_FRAMETOT_SHARE of the profile's total, and at least the
 * TK_FRAMETOT_TOP largest, never more than TK_FRAMETOT_MAX; the profile
 * records the cut (floor): a function not stored had a smaller
 * cumulative total. Names longer than TK_FRAMETOT_MAX_NAME bytes or not
 * valid UTF-8 are left out (a database's text must be text); the
 * profile still has them.
 *
 * Nothing here prints. Errors are negative enum tk_code with err filled:
 * the store's, TK_EUSAGE when the store keeps no frame totals (an old
 * database a reader may not migrate), TK_EDATA for what the user asked
 * that the totals do not have (the message names the nearest names).
 * Names are untrusted: callers escape them for their output.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/metric.h"
#include "core/model/profile.h"
#include "core/model/run.h"
#include "core/model/runref.h"
#include "core/store/store.h"

#define TK_FRAMETOT_SHARE 0.001
#define TK_FRAMETOT_TOP 200
#define TK_FRAMETOT_MAX 2000
#define TK_FRAMETOT_MAX_NAME 1024

/* One profile's frame totals: largest cumulative first, then by name. */
struct tk_frametot {
	struct tk_store_frame *v; /* names point into the profile */
	size_t nr;
	double floor;             /* the cut (see above); 0 when nothing was cut */
	size_t left_out;          /* names too long or not UTF-8 */
};

/* The frame totals of p (finished: tk_profile_finish). */
void tk_frametot_compute(const struct tk_profile *p, struct tk_frametot *out);
void tk_frametot_release(struct tk_frametot *t);

/*
 * Computes p's frame totals and stores them as those of run_id's stored
 * profile of kind, replacing any. TK_EUSAGE when the store keeps none.
 */
int tk_frametot_put(struct tk_store *s, const char *run_id, const char *kind,
		    const struct tk_profile *p, struct tk_err *err);

/*
 * tracker backfill: the frame totals of every stored profile that has
 * none (stored before they were kept, or by an older tracker), each
 * decoded once. A profile that cannot be decoded is counted in
 * `corrupt` (the first message in first_error) and left as it is;
 * store errors stop.
 */
struct tk_frametot_backfill {
	size_t missing;     /* profiles that had no frame totals */
	size_t filled;      /* of them, now have them */
	size_t corrupt;
	struct tk_buf first_error;
};

int tk_frametot_backfill(struct tk_store *s, struct tk_frametot_backfill *out,
			 struct tk_err *err);
void tk_frametot_backfill_release(struct tk_frametot_backfill *b);

/*
 * The stored names of key's frame totals that a user's name means: the
 * name itself, or a name that reads the same once demangled
 * (core/model/demangle.h) on either side, so "_ZN5Model9radiationEv" and
 * "Model::radiation()" find each other; or, for a pattern, every name
 * that the POSIX extended regular expression matches (raw or
 * demangled), at most TK_FRAMETOT_MATCH_MAX of them. Appends the stored
 * names to out (each once). TK_EDATA when a name or pattern matches
 * nothing: "no function 'radiaton' in the frame totals of key 'amip';
 * the nearest are 'radiation', ..." (names escaped for a terminal), or
 * when the key has no frame totals at all (and whether tracker backfill
 * would give it some) or the store keeps none (an old database this
 * reader may not migrate); TK_EUSAGE for a pattern that does not compile,
 * over TK_FRAMETOT_MAX_PATTERN bytes, or matching too many names.
 */
#define TK_FRAMETOT_MATCH_MAX 50
#define TK_FRAMETOT_MAX_PATTERN 1024
#define TK_FRAMETOT_NEAR 3

struct tk_frametot_names {
	char **v;
	size_t nr, alloc;
};

int tk_frametot_match(struct tk_store *s, const char *key, const char *const *names,
		      size_t nr_names, const char *const *patterns, size_t nr_patterns,
		      struct tk_frametot_names *out, struct tk_err *err);
void tk_frametot_names_release(struct tk_frametot_names *n);

/*
 * The functions' history: the runs q selects (its keys must name exactly
 * one key), newest first, and a point for each run that has a stored
 * profile, each kind of profile it has and each name: the function's
 * totals. names must outlive the history.
 */
struct tk_frame_point {
	size_t run;        /* index into runs */
	size_t name;       /* index into names */
	const char *kind;  /* interned in the history */
	const char *unit;  /* the weights' unit (tk_unit_name): the profile's,
			      bytes for an alloc or heap_peak profile whose
			      format names none ("samples") */
	double self, cumulative; /* NaN: unknown (the run's frame totals are
				    not stored); 0 with below set: under the
				    floor */
	double total;      /* the profile's total */
	double floor;      /* the profile's cut, when its frame totals are stored */
	int below;         /* not stored: under the profile's floor */
};

struct tk_frame_history {
	char *key;
	struct tk_run_ref *runs;   /* newest first */
	size_t nr_runs, alloc_runs;
	const char *const *names;  /* the matched stored names (borrowed) */
	size_t nr_names;
	struct tk_frame_point *points; /* by run, then kind, then name */
	size_t nr_points, alloc_points;
	char **kinds;              /* every kind seen, in byte order */
	size_t nr_kinds;
	size_t not_stored;         /* profiles of these runs without frame totals */
};

int tk_frametot_history(struct tk_store *s, const struct tk_run_query *q,
			const struct tk_frametot_names *names, struct tk_frame_history *out,
			struct tk_err *err);
void tk_frame_history_release(struct tk_frame_history *h);

/*
 * The functions that moved across a change point: given the runs before
 * and after it (ids, any order), the frame totals of kind of each run
 * (one indexed read per run), and per name the medians of each side.
 * A name moved when its self total's medians differ by more than
 * TK_FRAMETOT_MOVE_SHARE of the larger median of the profile's total, by
 * more than TK_FRAMETOT_MOVE_REL of its own before-median, and by more
 * than TK_FRAMETOT_MOVE_SIGMAS times its robust spread (1.4826 MAD
 * pooled over both sides, and at least sampling's sqrt(value) spread).
 * Then the cumulative totals that moved by more than the listed self
 * moves of the same direction explain (an ancestor's total carries its
 * callees' moves), the same way. Largest move first, at most max.
 * Runs whose frame totals are not stored are left out; *compared says
 * whether both sides kept a run (else there is no mover to find).
 * TK_EUSAGE from a store without frame totals.
 */
#define TK_FRAMETOT_MOVE_SHARE 0.005
#define TK_FRAMETOT_MOVE_REL 0.05
#define TK_FRAMETOT_MOVE_SIGMAS 4.0

struct tk_frame_move {
	char *name;        /* untrusted */
	int cumulative;    /* its cumulative total moved (0: its self) */
	double before, after; /* medians */
	const char *unit;  /* the profiles' unit (tk_unit_name: static) */
};

int tk_frametot_movers(struct tk_store *s, const char *key, const char *kind,
		       const char *const *before, size_t nb, const char *const *after,
		       size_t na, size_t max, struct tk_frame_move **out, size_t *nout,
		       int *compared, struct tk_err *err);
void tk_frame_moves_free(struct tk_frame_move *m, size_t n);

/* 1 when key has frame totals (any run, any kind), 0 when it has none or
 * the store keeps none, or the store's error: one index seek in SQLite. */
int tk_frametot_key_has(struct tk_store *s, const char *key, struct tk_err *err);

/* The kind of profile whose functions explain a metric's moves: the
 * metric's own kind for a profile total, "cpu" for walltime and cpu,
 * "alloc" for the RSS figures. Static. */
const char *tk_frametot_kind_for(enum tk_metric m);

#endif
