#ifndef TK_BUNDLE_H
#define TK_BUNDLE_H
/*
 * The run bundle: what `tracker run` leaves under its artifacts directory
 * and `tracker push` stores, the unit a run travels in when the database
 * is out of reach (a CI artifact, a full disk, a compute node).
 *
 *   DIR/<key>-<id>.json            the run record (core/run.h)
 *   DIR/<key>-<id>.<kind>.tkprof   each profile, encoded (core/profcodec.h)
 *
 * The record lists its profiles (run->profiles: kind, unit, format and
 * the file's name, relative to the record's directory). Files are written
 * atomically (a temporary file renamed), so a reader never sees half of
 * one; a record is written after its profiles, so a record's profiles
 * exist unless someone removed them.
 *
 * Nothing here prints. Errors are negative enum tk_code with err filled,
 * naming the file.
 */
#include "core/buf.h"
#include "core/err.h"
#include "core/profile.h"
#include "core/run.h"
#include "core/store.h"

/* A record is a few KiB; the cap only stops a stray huge file. */
#define TK_BUNDLE_RECORD_MAX (16 * 1024 * 1024)
/* An encoded profile read back is capped at this many bytes. */
#define TK_BUNDLE_PROFILE_MAX (1u << 30)

/*
 * Encodes p as the kind profile of run into dir (made when missing) and
 * lists it in the run's record (tk_run_add_profile), with format (may be
 * NULL), the file format it was imported from. Call before
 * tk_bundle_write_record. On error nothing is listed: TK_EINTERNAL when
 * the profile cannot be encoded, TK_EUNAVAIL when dir or the file cannot
 * be written (the profile itself is fine: a database may still take it).
 */
int tk_bundle_add_profile(struct tk_run *run, const char *dir, const char *kind,
			  const char *format, const struct tk_profile *p, struct tk_err *err);
/* Writes the record as dir/<key>-<id>.json; appends its path to path_out
 * (may be NULL). */
int tk_bundle_write_record(const struct tk_run *run, const char *dir,
			   struct tk_buf *path_out, struct tk_err *err);

/* Reads the record file path into run (initialised): TK_EUNAVAIL for a
 * file that cannot be read, TK_EDATA for one that is no record (over
 * TK_BUNDLE_RECORD_MAX bytes, not JSON, a bad field), naming path. */
int tk_bundle_read_record(const char *path, struct tk_run *run, struct tk_err *err);
/*
 * Stores the record read from path and its profiles, in that order; the
 * bundle counts as stored only when all of them are. *inserted as
 * put_run gives it (0: the run was stored already). Returns 0, TK_EDATA
 * for this bundle's own fault (the store refuses the run or a profile; a
 * profile file missing or corrupt: "cannot read the KIND profile of
 * 'PATH': ..."), or TK_EUNAVAIL when the store cannot take anything (the
 * message is the store's).
 */
int tk_bundle_store(struct tk_store *s, const char *path, const struct tk_run *run,
		    int *inserted, struct tk_err *err);
/*
 * Removes the record file path and the profile files it lists. A file
 * that cannot be removed is reported to warn ("cannot remove 'F': why")
 * and the others are still removed; returns the number of such files.
 */
int tk_bundle_remove(const char *path, const struct tk_run *run,
		     void (*warn)(void *data, const char *msg), void *data);

#endif
