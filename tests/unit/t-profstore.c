/*
 * Run profiles in a store (core/store/profstore): the default kinds, the kind
 * names accepted, PATH:FORMAT, and a profile stored, found and loaded
 * back from a real SQLite store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store/profstore.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static void test_kinds(void)
{
	struct tk_buf path = TK_BUF_INIT;
	const char *format;

	is_str(tk_profstore_default_kind(TK_UNIT_BYTES), "alloc", "bytes are alloc");
	is_str(tk_profstore_default_kind(TK_UNIT_COUNT), "alloc_count", "counts are alloc_count");
	is_str(tk_profstore_default_kind(TK_UNIT_SAMPLES), "cpu", "samples are cpu");
	ok(tk_profstore_valid_kind("heap_peak2"), "letters, digits and _ make a kind");
	ok(!tk_profstore_valid_kind(""), "an empty kind is refused");
	ok(!tk_profstore_valid_kind("Cpu"), "upper case is refused");
	ok(!tk_profstore_valid_kind("a-b"), "a dash is refused");
	ok(tk_profstore_valid_kind("abcdefghijklmnopqrstuvwxyz012345"), "32 characters are a kind");
	ok(!tk_profstore_valid_kind("abcdefghijklmnopqrstuvwxyz0123456"), "33 are not");

	tk_profstore_split_format("out.txt:perf", &path, &format);
	is_str(path.buf, "out.txt", "PATH:FORMAT gives the path");
	is_str(format, "perf", "and the format");
	tk_buf_reset(&path);
	tk_profstore_split_format("c:/dir:x/p.folded", &path, &format);
	is_str(path.buf, "c:/dir:x/p.folded", "a colon before no format name is the path's");
	ok(format == NULL, "and there is no format");
	tk_buf_release(&path);
}

static void test_store(void)
{
	char dir[] = "/tmp/t-profstore.XXXXXX";
	static const char id[] = "00000000-0000-4000-8000-000000000001";
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *s = NULL;
	struct tk_profile p, back;
	struct tk_run r;
	char found[TK_RUN_ID_LEN + 1];
	uint32_t names[2];
	int inserted;

	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	tk_buf_addf(&url, "%s/h.db", dir);
	if (!ok(tk_store_open(url.buf, &s, &err) == 0, "open a store")) {
		diag(err.msg);
		return;
	}
	tk_profile_init(&p, TK_UNIT_BYTES);
	names[0] = tk_profile_intern(&p, "main", 4);
	names[1] = tk_profile_intern(&p, "solve", 5);
	tk_profile_add_stack(&p, names, 2, 4096);
	tk_profile_finish(&p);
	is_int(tk_profstore_put(s, id, "alloc", NULL, &p, &err), TK_EDATA,
	       "a profile of a run that is not stored is refused");

	tk_run_init(&r);
	memcpy(r.id, id, sizeof(id));
	r.key = tk_xstrdup("amip");
	r.started_at_us = 1000;
	is_int(tk_store_put_run(s, &r, &inserted, &err), 0, "store a run");
	tk_run_release(&r);
	is_int(tk_profstore_put(s, id, "alloc", "folded", &p, &err), 0, "store its profile");

	is_int(tk_profstore_find_run(s, NULL, "amip", NULL, "alloc", found, &err), 0,
	       "find the newest run of the key with an alloc profile");
	is_str(found, id, "it is the run");
	is_int(tk_profstore_find_run(s, NULL, "amip", "main", "cpu", found, &err), TK_EDATA,
	       "no run has a cpu profile");
	is_str(err.msg, "no run of key 'amip' on branch 'main' with a cpu profile",
	       "the error says what was looked for");

	{
		struct tk_buf label = TK_BUF_INIT;

		tk_profile_init(&back, TK_UNIT_SAMPLES);
		is_int(tk_profstore_load(s, NULL, "amip", NULL, "alloc", &back, &label, &err), 0,
		       "find and load in one call");
		is_str(label.buf, "amip \xc2\xb7 (run 00000000)",
		       "labelled with the key and tk_run_label (no CI context known)");
		tk_profile_release(&back);
		tk_buf_release(&label);
	}
	tk_profile_init(&back, TK_UNIT_SAMPLES);
	is_int(tk_profstore_get(s, id, "alloc", &back, &err), 0, "load it back");
	ok(back.unit == TK_UNIT_BYTES, "in bytes");
	ok(tk_profile_total(&back) == 4096, "with its total (%g)", tk_profile_total(&back));
	tk_profile_release(&back);
	tk_profile_init(&back, TK_UNIT_SAMPLES);
	ok(tk_profstore_get(s, id, "cpu", &back, &err) < 0, "a kind not stored is an error");
	tk_profile_release(&back);
	tk_profile_release(&p);

	tk_store_close(s);
	unlink(url.buf);
	tk_buf_addf(&url, "-wal");
	unlink(url.buf);
	tk_buf_setlen(&url, url.len - 4);
	tk_buf_addf(&url, "-shm");
	unlink(url.buf);
	rmdir(dir);
	tk_buf_release(&url);
}

int main(void)
{
	test_kinds();
	test_store();
	return done_testing();
}
