/*
 * The run bundle: a record file and the encoded profiles beside it
 * (core/store/bundle.h).
 */
#include "core/store/bundle.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/model/import.h"
#include "core/model/profcodec.h"
#include "core/store/profstore.h"
#include "core/model/rank.h"
#include "core/model/record.h"
#include "core/measure/rawprof.h"
#include "core/base/banned.h"

int tk_bundle_add_profile(struct tk_run *run, const char *dir, const char *kind,
			  const char *format, const struct tk_profile *p, struct tk_err *err)
{
	struct tk_buf blob = TK_BUF_INIT, name = TK_BUF_INIT, path = TK_BUF_INIT;
	int ret = tk_profile_encode(p, &blob, err);

	if (!ret) {
		tk_run_record_name(run, &name);
		tk_buf_addf(&name, ".%s%s", kind, TK_PROFCODEC_EXT);
		tk_buf_addf(&path, "%s/%s", dir, name.buf);
		ret = tk_mkdir_p(dir, err);
	}
	if (!ret)
		ret = tk_write_file_atomic(path.buf, blob.buf, blob.len, err);
	if (!ret)
		tk_run_add_profile(run, kind, tk_unit_name(p->unit), format, name.buf);
	tk_buf_release(&blob);
	tk_buf_release(&name);
	tk_buf_release(&path);
	return ret;
}

int tk_bundle_write_record(const struct tk_run *run, const char *dir,
			   struct tk_buf *path_out, struct tk_err *err)
{
	return tk_run_write_record(run, dir, path_out, err);
}

int tk_bundle_read_record(const char *path, struct tk_run *run, struct tk_err *err)
{
	struct tk_buf text = TK_BUF_INIT;
	int ret;

	text.cap = TK_BUNDLE_RECORD_MAX;
	/* records are read from artifacts directories others may write to */
	ret = tk_read_shared_file(&text, path, err);
	if (!ret)
		ret = tk_run_from_json(text.buf, text.len, path, run, err);
	tk_buf_release(&text);
	return ret;
}

/* The directory part of path, with its slash ("" for a bare name). */
static void dir_of(const char *path, struct tk_buf *out)
{
	const char *slash = strrchr(path, '/');

	if (slash)
		tk_buf_add(out, path, (size_t)(slash - path + 1));
}

static int store_profiles(struct tk_store *s, const char *path, const struct tk_run *run,
			  struct tk_err *err)
{
	struct tk_buf dir = TK_BUF_INIT, blob_path = TK_BUF_INIT, blob = TK_BUF_INIT;
	size_t i;
	int ret = 0;

	dir_of(path, &dir);
	for (i = 0; i < run->nr_profiles && !ret; i++) {
		const struct tk_run_profile *rp = &run->profiles[i];
		struct tk_profile prof;

		tk_buf_reset(&blob_path);
		tk_buf_reset(&blob);
		tk_buf_addf(&blob_path, "%s%s", dir.buf, rp->file);
		tk_profile_init(&prof, TK_UNIT_SAMPLES);
		blob.cap = TK_BUNDLE_PROFILE_MAX;
		ret = tk_read_shared_file(&blob, blob_path.buf, err);
		if (!ret)
			ret = tk_profile_decode(blob.buf, blob.len, blob_path.buf, &prof, err);
		if (ret) {
			/* A missing or corrupt profile file is bad input. */
			tk_err_prefix(err, "cannot read the %s profile of '%s'", rp->kind, path);
			ret = TK_EDATA;
			err->code = TK_EDATA;
		} else {
			ret = tk_profstore_put(s, run->id, rp->kind, rp->format, &prof, err);
			if (ret && ret != TK_EUNAVAIL)
				ret = err->code = TK_EDATA;
		}
		tk_profile_release(&prof);
	}
	tk_buf_release(&dir);
	tk_buf_release(&blob_path);
	tk_buf_release(&blob);
	return ret;
}

int tk_bundle_store(struct tk_store *s, const char *path, const struct tk_run *run,
		    int *inserted, struct tk_err *err)
{
	int ret = tk_store_put_run(s, run, inserted, err);

	if (ret == TK_EDATA) {
		tk_err_prefix(err, "cannot store '%s'", path);
		return ret;
	}
	if (ret) {
		err->code = TK_EUNAVAIL;
		return TK_EUNAVAIL;
	}
	return store_profiles(s, path, run, err);
}

int tk_bundle_recover_tmp(const char *path, long pid, int remove_bad, struct tk_buf *final_path,
			  struct tk_err *err)
{
	struct tk_run tmp_run, final_run;
	struct tk_buf final = TK_BUF_INIT;
	const char *t = strstr(path, ".tmp.");
	struct stat sb;
	int ret;

	if (kill((pid_t)pid, 0) == 0 || errno == EPERM)
		return 1;
	while (t && strstr(t + 1, ".tmp."))
		t = strstr(t + 1, ".tmp.");
	if (!t)
		return tk_err_set(err, TK_EDATA, "'%s' is no temporary record file", path);
	tk_buf_add(&final, path, (size_t)(t - path));
	tk_run_init(&tmp_run);
	tk_run_init(&final_run);
	/* killed right after creating it: nothing was written, nothing lost */
	if (!stat(path, &sb) && sb.st_size == 0) {
		if (remove_bad)
			unlink(path);
		ret = 2;
		goto out;
	}
	ret = tk_bundle_read_record(path, &tmp_run, err);
	if (ret && access(path, F_OK) && errno == ENOENT) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot recover '%s': it is gone", path);
		goto out;
	}
	if (ret) {
		tk_err_prefix(err, "temporary record '%s' of a tracker that is gone is incomplete%s",
			      path, remove_bad ? "; removed" : "");
		err->code = ret = TK_EDATA;
		if (remove_bad)
			unlink(path);
		goto out;
	}
	if (!tk_bundle_read_record(final.buf, &final_run, NULL) && !final_run.partial)
		ret = unlink(path);
	else
		ret = rename(path, final.buf);
	if (ret) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot recover '%s': %s", path,
				 strerror(errno));
		goto out;
	}
	tk_buf_add(final_path, final.buf, final.len);
out:
	tk_run_release(&tmp_run);
	tk_run_release(&final_run);
	tk_buf_release(&final);
	return ret;
}

static int remove_one(const char *file, void (*warn)(void *data, const char *msg),
		      void *data)
{
	struct tk_buf msg = TK_BUF_INIT;

	/* gone already: another `push --remove` took it */
	if (!unlink(file) || errno == ENOENT)
		return 0;
	if (warn) {
		tk_buf_addf(&msg, "cannot remove '%s': %s", file, strerror(errno));
		warn(data, msg.buf);
		tk_buf_release(&msg);
	}
	return 1;
}

int tk_bundle_remove(const char *path, const struct tk_run *run,
		     void (*warn)(void *data, const char *msg), void *data)
{
	struct tk_buf blob_path = TK_BUF_INIT;
	size_t i;
	int failed = 0;

	for (i = 0; i < run->nr_profiles; i++) {
		tk_buf_reset(&blob_path);
		dir_of(path, &blob_path);
		tk_buf_adds(&blob_path, run->profiles[i].file);
		failed += remove_one(blob_path.buf, warn, data);
	}
	tk_buf_release(&blob_path);
	failed += remove_one(path, warn, data);
	return failed;
}

/* ---- the profiles of a run being recorded ---- */

static void __attribute__((format(printf, 2, 3)))
warn(const struct tk_bundle *b, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	if (!b->warn)
		return;
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	b->warn(b->warn_data, msg.buf);
	tk_buf_release(&msg);
}

static struct tk_bundle_profile *new_profile(struct tk_bundle *b)
{
	struct tk_bundle_profile *pf;

	TK_ALLOC_GROW(b->profiles, b->nr + 1, b->alloc);
	pf = &b->profiles[b->nr++];
	memset(pf, 0, sizeof(*pf));
	tk_profile_init(&pf->profile, TK_UNIT_SAMPLES);
	return pf;
}

void tk_bundle_add_file(struct tk_bundle *b, const char *spec)
{
	struct tk_bundle_profile *pf = new_profile(b);
	struct tk_buf path = TK_BUF_INIT;

	tk_profstore_split_format(spec, &path, &pf->format);
	pf->path = tk_buf_detach(&path, NULL);
}

/*
 * --profile-file paths name the rank with %r, so that the ranks of one job
 * each read their own file. A %r without a rank costs that profile, never
 * the job: a usage error would stop a CI job for a profile.
 */
void tk_bundle_expand_paths(struct tk_bundle *b, int rank)
{
	struct tk_buf path = TK_BUF_INIT;
	size_t i;

	for (i = 0; i < b->nr; i++) {
		struct tk_bundle_profile *pf = &b->profiles[i];
		struct tk_err err = TK_ERR_INIT;

		if (pf->builtin)
			continue;
		if (tk_ranks_path(pf->path, rank, &path, &err)) {
			warn(b, "%s; the run is recorded without this profile", err.msg);
			pf->skip = 1;
			continue;
		}
		free(pf->path);
		pf->path = tk_xstrdup(path.buf);
	}
	tk_buf_release(&path);
}

void tk_bundle_take(struct tk_bundle *b, struct tk_profile *profiles, int *have, size_t n)
{
	size_t v;

	for (v = 0; v < n; v++) {
		struct tk_bundle_profile *pf;

		if (!have[v])
			continue;
		pf = new_profile(b);
		tk_profile_release(&pf->profile);
		pf->profile = profiles[v];
		tk_profile_init(&profiles[v], pf->profile.unit);
		have[v] = 0;
		pf->builtin = 1;
		pf->kind = tk_raw_kind((enum tk_raw_value)v);
		pf->format = "tracker";
		pf->path = tk_xstrdup("(built-in profiler)");
	}
}

/*
 * Each profile is kept, encoded, next to the record file, so that a run
 * that cannot reach the database keeps them too (tracker push stores
 * them).
 */
void tk_bundle_import(struct tk_bundle *b, struct tk_run *run, const char *dir,
		      const char *kind, int no_demangle)
{
	size_t i;
	int ret;

	for (i = 0; i < b->nr; i++) {
		struct tk_bundle_profile *pf = &b->profiles[i];
		struct tk_import_opts io = { .no_demangle = no_demangle,
					     .shared_max = TK_BUNDLE_INPUT_MAX };
		struct tk_err err = TK_ERR_INIT;

		if (pf->builtin)
			goto keep;
		if (pf->skip)
			continue;
		if (access(pf->path, F_OK)) {
			warn(b, "no profile at '%s': the run is recorded without it", pf->path);
			continue;
		}
		if (tk_import_file(pf->path, pf->format, &io, &pf->profile, &err)) {
			warn(b, "%s; the run is recorded without this profile", err.msg);
			continue;
		}
		if (pf->profile.warning[0])
			warn(b, "%s", pf->profile.warning);
		pf->kind = kind ? kind : tk_profstore_default_kind(pf->profile.unit);
keep:
		ret = tk_bundle_add_profile(run, dir, pf->kind, pf->format, &pf->profile, &err);
		if (ret == TK_EINTERNAL) {
			warn(b, "cannot keep the %s profile: %s", pf->kind, err.msg);
			continue;
		}
		/* The database may still take a profile the disk did not. */
		if (ret)
			warn(b, "cannot keep the %s profile beside the record: %s", pf->kind,
			     err.msg);
		pf->loaded = 1;
	}
}

void tk_bundle_store_profiles(struct tk_bundle *b, struct tk_store *s, const char *run_id,
			      const char *db)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		struct tk_bundle_profile *pf = &b->profiles[i];
		struct tk_err err = TK_ERR_INIT;

		if (pf->loaded &&
		    tk_profstore_put(s, run_id, pf->kind, pf->format, &pf->profile, &err))
			warn(b, "could not store the %s profile in '%s': %s", pf->kind, db,
			     err.msg);
	}
}

void tk_bundle_release(struct tk_bundle *b)
{
	size_t i;

	for (i = 0; i < b->nr; i++) {
		tk_profile_release(&b->profiles[i].profile);
		free(b->profiles[i].path);
	}
	free(b->profiles);
	memset(b, 0, sizeof(*b));
}

static int cmp_entry(const void *a, const void *b)
{
	const struct tk_bundle_entry *x = a, *y = b;

	return strcmp(x->path, y->path);
}

int tk_bundle_list_dir(const char *dir, struct tk_bundle_dir *out, struct tk_err *err)
{
	size_t first = out->nr, dirlen = strlen(dir), len;
	struct dirent *de;
	DIR *d = opendir(dir);
	long pid;
	int ret = 0;

	if (!d)
		return tk_err_set(err, TK_EUNAVAIL, "cannot read directory '%s': %s", dir,
				  strerror(errno));
	while (dirlen > 1 && dir[dirlen - 1] == '/')
		dirlen--;
	for (;;) {
		struct tk_buf path = TK_BUF_INIT;
		int is_tmp;

		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		len = strlen(de->d_name);
		is_tmp = !!tk_tmpfile_name_parse(de->d_name, NULL, &pid);
		if (de->d_name[0] == '.' ||
		    ((len < 6 || strcmp(de->d_name + len - 5, ".json")) && !is_tmp))
			continue;
		tk_buf_addf(&path, "%.*s/%s", (int)dirlen, dir, de->d_name);
		TK_ALLOC_GROW(out->v, out->nr + 1, out->alloc);
		out->v[out->nr].path = tk_buf_detach(&path, NULL);
		out->v[out->nr].is_tmp = is_tmp;
		out->v[out->nr].pid = is_tmp ? pid : 0;
		out->nr++;
	}
	if (errno)
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot read directory '%s': %s", dir,
				 strerror(errno));
	closedir(d);
	/* the names sort as the paths do: they share dir */
	if (out->nr > first)
		qsort(out->v + first, out->nr - first, sizeof(*out->v), cmp_entry);
	return ret;
}

void tk_bundle_dir_release(struct tk_bundle_dir *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		free(d->v[i].path);
	free(d->v);
	memset(d, 0, sizeof(*d));
}
