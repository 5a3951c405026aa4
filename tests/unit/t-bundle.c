/*
 * The run bundle (core/store/bundle): a record and its profiles written to a
 * directory as tracker run leaves them, read back, stored in a real
 * SQLite store as tracker push stores them, refused when a profile file
 * is corrupt, and removed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store/bundle.h"
#include "core/store/profstore.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static const char run_id[] = "00000000-0000-4000-8000-0000000000b1";

static void make_run(struct tk_run *r)
{
	tk_run_init(r);
	memcpy(r->id, run_id, sizeof(run_id));
	r->key = tk_xstrdup("amip/low res");
	r->started_at_us = 1000;
	r->exit_code = 0;
}

static void make_profile(struct tk_profile *p)
{
	uint32_t names[2];

	tk_profile_init(p, TK_UNIT_BYTES);
	names[0] = tk_profile_intern(p, "main", 4);
	names[1] = tk_profile_intern(p, "alloc_grid", 10);
	tk_profile_add_stack(p, names, 2, 1 << 20);
	tk_profile_finish(p);
}

static int warned;

static void count_warning(void *data, const char *msg)
{
	(void)data;
	diag(msg);
	warned++;
}

static void cleanup(const char *dir, const char *db)
{
	struct tk_buf b = TK_BUF_INIT;
	static const char *const ext[] = { "", "-wal", "-shm" };
	size_t i;

	for (i = 0; i < 3; i++) {
		tk_buf_reset(&b);
		tk_buf_addf(&b, "%s%s", db, ext[i]);
		unlink(b.buf);
	}
	tk_buf_release(&b);
	rmdir(dir);
}

static void touch(const char *dir, const char *name)
{
	struct tk_buf path = TK_BUF_INIT;
	FILE *f;

	tk_buf_addf(&path, "%s/%s", dir, name);
	f = fopen(path.buf, "w");
	if (f)
		fclose(f);
	tk_buf_release(&path);
}

/* What tracker push takes from a directory, and in which order. */
static void test_list_dir(void)
{
	static const char *const names[] = {
		"b.json", "a.json", ".hidden.json", "notes.txt", "x.js",
		"a.json.tmp.123.0123456789ab", "c.txt.tmp.9.0123456789ab",
	};
	char dir[] = "/tmp/t-bundle-dir.XXXXXX";
	struct tk_bundle_dir d = { NULL, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf with_slash = TK_BUF_INIT, want = TK_BUF_INIT;
	size_t i;

	if (!mkdtemp(dir)) {
		skip(8, "mkdtemp");
		return;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		touch(dir, names[i]);
	tk_buf_addf(&with_slash, "%s//", dir);
	is_int(tk_bundle_list_dir(with_slash.buf, &d, &err), 0, "list a directory");
	is_int(d.nr, 3, "two records and a temporary one; not hidden, not other files");
	if (d.nr == 3) {
		tk_buf_addf(&want, "%s/a.json", dir);
		is_str(d.v[0].path, want.buf, "in name order, the slashes after DIR dropped");
		ok(!d.v[0].is_tmp, "a record");
		tk_buf_reset(&want);
		tk_buf_addf(&want, "%s/a.json.tmp.123.0123456789ab", dir);
		is_str(d.v[1].path, want.buf, "then the temporary record");
		ok(d.v[1].is_tmp && d.v[1].pid == 123, "with its writer's pid");
		ok(strstr(d.v[2].path, "/b.json") && !d.v[2].is_tmp, "then b.json");
	} else {
		skip(5, "not three entries");
	}
	tk_bundle_dir_release(&d);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		tk_buf_reset(&want);
		tk_buf_addf(&want, "%s/%s", dir, names[i]);
		unlink(want.buf);
	}
	rmdir(dir);
	is_int(tk_bundle_list_dir(dir, &d, &err), TK_EUNAVAIL, "a missing directory");
	ok(strstr(err.msg, "cannot read directory") && strstr(err.msg, dir) && !d.nr,
	   "is unavailable, naming it: %s", err.msg);
	tk_buf_release(&with_slash);
	tk_buf_release(&want);
}

int main(void)
{
	char dir[] = "/tmp/t-bundle.XXXXXX";
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf art = TK_BUF_INIT, rec = TK_BUF_INIT, db = TK_BUF_INIT;
	struct tk_buf prof_path = TK_BUF_INIT;
	struct tk_store *s = NULL;
	struct tk_profile p, back;
	struct tk_run r, in;
	FILE *f;
	int inserted = -1;

	if (!mkdtemp(dir))
		return ok(0, "mkdtemp"), done_testing();
	tk_buf_addf(&art, "%s/art", dir);
	tk_buf_addf(&db, "%s/h.db", dir);

	make_run(&r);
	make_profile(&p);
	is_int(tk_bundle_add_profile(&r, art.buf, "alloc", "folded", &p, &err), 0,
	       "a profile goes into the bundle (its directory made)");
	is_int(r.nr_profiles, 1, "and is listed in the record");
	is_str(r.profiles[0].file, "amip_low_res-" "00000000-0000-4000-8000-0000000000b1"
	       ".alloc.tkprof", "by a file name made of the key, the run id and the kind");
	tk_buf_addf(&prof_path, "%s/%s", art.buf, r.profiles[0].file);
	ok(!access(prof_path.buf, R_OK), "the profile file exists");
	is_int(tk_bundle_write_record(&r, art.buf, &rec, &err), 0, "the record is written");

	tk_run_init(&in);
	is_int(tk_bundle_read_record(rec.buf, &in, &err), 0, "and read back");
	is_str(in.key, "amip/low res", "with the real key");
	is_int(in.nr_profiles, 1, "and its profile listed");

	if (!ok(tk_store_open(db.buf, &s, &err) == 0, "open a store"))
		diag(err.msg);
	is_int(tk_bundle_store(s, rec.buf, &in, &inserted, &err), 0, "store the bundle");
	is_int(inserted, 1, "the run is new");
	tk_profile_init(&back, TK_UNIT_SAMPLES);
	is_int(tk_profstore_get(s, run_id, "alloc", &back, &err), 0, "its profile is stored");
	ok(tk_profile_total(&back) == 1 << 20, "whole (%g)", tk_profile_total(&back));
	tk_profile_release(&back);
	is_int(tk_bundle_store(s, rec.buf, &in, &inserted, &err), 0, "storing again is fine");
	is_int(inserted, 0, "and says the run was stored already");

	/* a corrupt profile file: the bundle's own fault */
	f = fopen(prof_path.buf, "w");
	if (f) {
		fputs("not a profile", f);
		fclose(f);
	}
	is_int(tk_bundle_store(s, rec.buf, &in, &inserted, &err), TK_EDATA,
	       "a corrupt profile file is bad data");
	ok(!strncmp(err.msg, "cannot read the alloc profile of '", 34) &&
	   strstr(err.msg, rec.buf) && strstr(err.msg, "corrupt stored profile"),
	   "naming the kind, the record and what is wrong: %s", err.msg);

	warned = 0;
	is_int(tk_bundle_remove(rec.buf, &in, count_warning, NULL), 0, "remove the bundle");
	ok(access(rec.buf, F_OK) && access(prof_path.buf, F_OK), "record and profile are gone");
	is_int(warned, 0, "without a warning");
	is_int(tk_bundle_remove(rec.buf, &in, count_warning, NULL), 0,
	       "removing it again is no failure: another push --remove took it");
	is_int(warned, 0, "and no warning");
	is_int(tk_bundle_read_record(rec.buf, &in, &err), TK_EUNAVAIL, "a missing record");
	ok(strstr(err.msg, rec.buf) != NULL, "is named: %s", err.msg);

	tk_store_close(s);
	tk_run_release(&in);
	tk_run_release(&r);
	tk_profile_release(&p);
	rmdir(art.buf);
	cleanup(dir, db.buf);
	tk_buf_release(&art);
	tk_buf_release(&rec);
	tk_buf_release(&db);
	tk_buf_release(&prof_path);
	test_list_dir();
	return done_testing();
}
