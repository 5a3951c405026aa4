#ifndef TK_PROFSTORE_H
#define TK_PROFSTORE_H
/*
 * Run profiles in a store: the kind a profile is stored under, storing
 * one with its run, finding the run a profile command means, loading it
 * back.
 *
 * Nothing here prints. Errors are negative enum tk_code with err filled:
 * the store's own codes, TK_EDATA for a profile that cannot be decoded or
 * a run that is not there (the message says what was looked for).
 */
#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/profile.h"
#include "core/model/run.h"
#include "core/store/store.h"

/* "alloc" for bytes, "alloc_count" for counts, else "cpu". */
const char *tk_profstore_default_kind(enum tk_unit unit);
/* 1 when kind is lower-case letters, digits and '_', 1 to 32 of them. */
int tk_profstore_valid_kind(const char *kind);
/*
 * "PATH[:FORMAT]": the suffix counts as a format only when an importer
 * has that name, so a path with a colon still works. Appends the path to
 * path; *format points into spec, or is NULL.
 */
void tk_profstore_split_format(const char *spec, struct tk_buf *path, const char **format);
/* Stores p (finished) as the kind profile of the stored run run_id,
 * replacing one of the same kind, and then its frame totals
 * (core/store/frametot.h; nothing more on a store that keeps none);
 * format (may be NULL) is the file format it came from. */
int tk_profstore_put(struct tk_store *s, const char *run_id, const char *kind,
		     const char *format, const struct tk_profile *p, struct tk_err *err);
/* Loads the kind profile of run_id into out (initialised, empty). */
int tk_profstore_get(struct tk_store *s, const char *run_id, const char *kind,
		     struct tk_profile *out, struct tk_err *err);
/*
 * The run a profile command means: run_id when given, else the newest run
 * of key (on branch, when given) that has a profile of kind (any run when
 * kind is NULL). Fills id; TK_EDATA with a message saying what was looked
 * for when there is none.
 */
int tk_profstore_find_run(struct tk_store *s, const char *run_id, const char *key,
			  const char *branch, const char *kind, char id[TK_RUN_ID_LEN + 1],
			  struct tk_err *err);
/*
 * tk_profstore_find_run, then tk_profstore_get of the run found into out.
 * label, when not NULL, gets what the profile is of, the key and the
 * run's label (tk_run_label): "amip · staging #412 3f2a9c1e0b (run
 * 8c1d2e3f)"; it stays empty when the run cannot be read back.
 */
int tk_profstore_load(struct tk_store *s, const char *run_id, const char *key,
		      const char *branch, const char *kind, struct tk_profile *out,
		      struct tk_buf *label, struct tk_err *err);

/*
 * The totals of n stored runs' profiles of kind: out[i] is the total of
 * ids[i]'s, or -1 when the run has none, and units[i] (units may be
 * NULL) its unit's name (tk_unit_name: static), NULL when none. One
 * indexed lookup per run that reads the stored total, never the profile
 * itself (TK_STORE_CTRL_PROFILE_TOTAL); a backend without that operation
 * falls back to loading each profile. Returns 0 or the store's error.
 */
int tk_profstore_totals(struct tk_store *s, const char *const *ids, size_t n,
			const char *kind, double *out, const char **units, struct tk_err *err);
/* The totals of the "alloc" profiles (bytes). */
int tk_profstore_alloc_totals(struct tk_store *s, const char *const *ids, size_t n,
			   double *out, struct tk_err *err);

#endif
