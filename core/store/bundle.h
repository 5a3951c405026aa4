#ifndef TK_BUNDLE_H
#define TK_BUNDLE_H
/*
 * The run bundle: what `tracker run` leaves under its artifacts directory
 * and `tracker push` stores, the unit a run travels in when the database
 * is out of reach (a CI artifact, a full disk, a compute node).
 *
 *   DIR/<key>-<id>.json            the run record (core/model/run.h)
 *   DIR/<key>-<id>.<kind>.tkprof   each profile, encoded (core/model/profcodec.h)
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
#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/profile.h"
#include "core/model/run.h"
#include "core/store/store.h"

/* A record is a few KiB; the cap only stops a stray huge file. */
#define TK_BUNDLE_RECORD_MAX (16 * 1024 * 1024)
/* An encoded profile read back is capped at this many bytes. */
#define TK_BUNDLE_PROFILE_MAX (1u << 30)
/* A --profile-file as the job left it (perf script text may be large):
 * read only when a regular file of at most this size, not a link. */
#define TK_BUNDLE_INPUT_MAX (4ull << 30)

/*
 * The profiles of one run as tracker run gathers them: files the job
 * wrote (--profile-file PATH[:FORMAT], %r for the rank), and the built-in
 * profiler's. Importing, keeping and storing them are warnings only:
 * they never cost the run its record. Warnings go to warn(warn_data, msg)
 * (NULL: dropped). A zeroed struct tk_bundle is empty; tk_bundle_release
 * frees it and its profiles.
 */
struct tk_bundle_profile {
	struct tk_profile profile;
	int builtin;        /* from the built-in profiler: nothing to import */
	const char *kind;   /* set once imported; borrowed */
	const char *format; /* points into the spec, or static */
	char *path;
	int loaded;         /* imported: tk_bundle_store_profiles stores it */
	int skip;           /* its path could not be made: warned already */
};

struct tk_bundle {
	struct tk_bundle_profile *profiles;
	size_t nr, alloc;
	void (*warn)(void *data, const char *msg);
	void *warn_data;
};

/* A file to import after the job: spec is PATH[:FORMAT] and must outlive b. */
void tk_bundle_add_file(struct tk_bundle *b, const char *spec);
/* Expands %r in the paths (tk_ranks_path); a path that needs a rank it
 * does not have is skipped, with a warning. */
void tk_bundle_expand_paths(struct tk_bundle *b, int rank);
/* Takes the profiles out of have[v] != 0 slots of profiles[] (the
 * built-in profiler's results, TK_RAW_NVALUES of them), leaving those
 * slots empty and have[v] 0. */
void tk_bundle_take(struct tk_bundle *b, struct tk_profile *profiles, int *have, size_t n);
/*
 * Imports each file (kind: the given one, else tk_profstore_default_kind
 * of its unit) and keeps every profile beside the record in dir
 * (tk_bundle_add_profile), listed in run. no_demangle as for importers.
 */
void tk_bundle_import(struct tk_bundle *b, struct tk_run *run, const char *dir,
		      const char *kind, int no_demangle);
/* Stores the imported profiles with run_id in s; db names the store in
 * the warnings. */
void tk_bundle_store_profiles(struct tk_bundle *b, struct tk_store *s, const char *run_id,
			      const char *db);
void tk_bundle_release(struct tk_bundle *b);

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
 * A temporary record file at path, written by process pid
 * (tk_tmpfile_name_parse), that was never renamed to its record's name
 * because its writer was killed in between. Returns 1, leaving it alone,
 * while pid still runs (the write may be under way); else, when it holds
 * a whole record, renames it to the record's name (the path without
 * ".tmp.PID.HEX", appended to final_path) unless that file holds a
 * complete record already (then the temporary copy is removed), and
 * returns 0; 2 when it is empty (its writer was killed before writing:
 * nothing is lost; removed when remove_bad); TK_EDATA when it holds no
 * whole record (err says so, naming
 * it; it is removed when remove_bad); TK_EUNAVAIL when it vanished (another
 * push took it) or cannot be renamed. Records are written whole before
 * the rename (core/base/fsutil.h), so only a temporary file cut short by a
 * full disk or a crash of the machine holds half of one.
 */
int tk_bundle_recover_tmp(const char *path, long pid, int remove_bad, struct tk_buf *final_path,
			  struct tk_err *err);

/*
 * What tracker push takes from a directory, in name order: each record
 * file directly in dir (*.json, not hidden) and each temporary record
 * file a killed writer left (tk_tmpfile_name_parse: is_tmp set, pid its
 * writer's), as "DIR/NAME" with dir's trailing slashes dropped. Appends
 * to out (a zeroed struct is empty; tk_bundle_dir_release frees it).
 * TK_EUNAVAIL "cannot read directory 'DIR': why" when dir cannot be
 * opened, or reading it fails midway: the entries read before are kept.
 */
struct tk_bundle_entry {
	char *path;
	int is_tmp;
	long pid;
};
struct tk_bundle_dir {
	struct tk_bundle_entry *v;
	size_t nr, alloc;
};
int tk_bundle_list_dir(const char *dir, struct tk_bundle_dir *out, struct tk_err *err);
void tk_bundle_dir_release(struct tk_bundle_dir *d);

/*
 * Removes the record file path and the profile files it lists. A file
 * that cannot be removed is reported to warn ("cannot remove 'F': why")
 * and the others are still removed; returns the number of such files. A
 * file already gone (another push --remove took it) is no failure.
 */
int tk_bundle_remove(const char *path, const struct tk_run *run,
		     void (*warn)(void *data, const char *msg), void *data);

#endif
