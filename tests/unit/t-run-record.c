/*
 * core/model/run: the JSON record file (roundtrip, atomic write, malformed input)
 * and run ids.
 *
 * Reads fixtures/records/bad/ from the top of the tree (or from tests/unit/).
 */
#include <dirent.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/model/run.h"
#include "core/model/record.h"
#include "core/model/runfield.h"
#include "core/store/recorder.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static const char *const hostile[] = {
	"plain",
	"with spaces and \"double\" and 'single' quotes",
	"new\nline\r\nand\ttab",
	"back\\slash \\u0041 \\n",
	"</script><script>alert(1)</script>",
	"\"; DROP TABLE runs; --",
	"' OR '1'='1",
	"caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x9a\x80",
	"ctl \x01\x02\x1f\x7f end",
	"",
	"$(rm -rf /) `id` ${HOME}",
	"{\"json\": [1, 2]}",
	NULL,
};

static char **argv_dup(const char *const *v)
{
	size_t n = 0, i;
	char **a;

	while (v[n])
		n++;
	a = tk_xcalloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		a[i] = tk_xstrdup(v[i]);
	return a;
}

static void fill_full(struct tk_run *r)
{
	struct tk_ci_context *c = &r->ci;

	tk_run_init(r);
	memcpy(r->id, "0f8e2b1c-3d4a-4e5f-9a6b-7c8d9e0f1a2b", TK_RUN_ID_LEN + 1);
	r->key = tk_xstrdup("amip/low res \"x\" </script>");
	c->provider = tk_xstrdup("buildkite");
	c->organization = tk_xstrdup("clima");
	c->pipeline = tk_xstrdup("\"; DROP TABLE runs; --");
	c->branch = tk_xstrdup("feature/caf\xc3\xa9");
	c->commit = tk_xstrdup("0123456789abcdef0123456789abcdef01234567");
	c->build_number = tk_xstrdup("4711");
	c->build_url = tk_xstrdup("https://buildkite.com/clima/x/builds/4711?a=1&b=<2>");
	c->job_id = tk_xstrdup("01890000-aaaa-bbbb-cccc-000000000000");
	c->step_key = tk_xstrdup("amip");
	c->step_label = tk_xstrdup(":julia: run amip\nsecond line");
	c->base_branch = tk_xstrdup("main");
	c->base_commit = tk_xstrdup("fedcba9876543210fedcba9876543210fedcba98");
	c->head_commit = tk_xstrdup("1111111111111111111111111111111111111111");
	c->default_branch = tk_xstrdup("main");
	c->host = tk_xstrdup("clima-node-07.cluster");
	tk_kvlist_set(&c->agent_tags, "queue", "new-central");
	tk_kvlist_set(&c->agent_tags, "gpu", "a100 \"80GB\"");
	tk_kvlist_set(&c->agent_tags, "</script>", "\xf0\x9f\x9a\x80");
	c->slurm_job_id = tk_xstrdup("4242101");
	c->slurm_step_id = tk_xstrdup("0");
	c->slurm_procid = tk_xstrdup("3");
	c->slurm_ntasks = 64;
	c->slurm_cpus_per_task = 2;
	c->slurm_nodelist = tk_xstrdup("node[07-10,12]");
	c->slurm_partition = tk_xstrdup("gpu");
	r->argv = argv_dup(hostile);
	r->started_at_us = 1769860800123456LL;
	r->walltime_s = 1.0 / 3.0;
	r->user_s = 0.1;
	r->sys_s = 4.9406564584124654e-324; /* the smallest subnormal */
	r->maxrss_bytes = 2147483648LL + 4096;
	r->tree_rss_bytes = 9007199254740993LL; /* 2^53 + 1: not a double */
	r->cgroup_peak_bytes = 0;
	r->maxrss_source = tk_xstrdup("sampled");
	r->tree_samples = 123456;
	r->exit_code = 3;
	r->term_signal = 0;
	r->status = TK_RUN_FAILED;
	r->partial = 1;
	tk_kvlist_set(&r->tags, "resolution", "1deg");
	tk_kvlist_set(&r->tags, "note", "line1\nline2\t\"q\"");
	tk_kvlist_set(&r->tags, "empty", "");
	r->tracker_version = tk_xstrdup("0.1.0-dirty");
}

#define SAME_STR(field) is_str(b->field, a->field, "%s: " #field " roundtrips", what)
#define SAME_INT(field) is_int(b->field, a->field, "%s: " #field " roundtrips", what)
#define SAME_DBL(field) \
	ok(!memcmp(&b->field, &a->field, sizeof(double)), \
	   "%s: " #field " roundtrips bit for bit (%.17g vs %.17g)", what, b->field, a->field)

static void same_kv(const struct tk_kvlist *a, const struct tk_kvlist *b,
		    const char *what, const char *name)
{
	size_t i;
	int same = a->nr == b->nr;

	for (i = 0; same && i < a->nr; i++)
		if (!tk_kvlist_get(b, a->items[i].key) ||
		    strcmp(tk_kvlist_get(b, a->items[i].key), a->items[i].value))
			same = 0;
	ok(same, "%s: %s roundtrip (%zu vs %zu entries)", what, name, a->nr, b->nr);
}

static void same_run(const struct tk_run *a, const struct tk_run *b, const char *what)
{
	size_t i;
	int same = 1;

	is_str(b->id, a->id, "%s: id roundtrips", what);
	SAME_STR(key);
	SAME_STR(ci.provider);
	SAME_STR(ci.organization);
	SAME_STR(ci.pipeline);
	SAME_STR(ci.branch);
	SAME_STR(ci.commit);
	SAME_STR(ci.build_number);
	SAME_STR(ci.build_url);
	SAME_STR(ci.job_id);
	SAME_STR(ci.step_key);
	SAME_STR(ci.step_label);
	SAME_STR(ci.base_branch);
	SAME_STR(ci.base_commit);
	SAME_STR(ci.head_commit);
	SAME_STR(ci.default_branch);
	SAME_STR(ci.host);
	same_kv(&a->ci.agent_tags, &b->ci.agent_tags, what, "agent_tags");
	SAME_STR(ci.slurm_job_id);
	SAME_STR(ci.slurm_step_id);
	SAME_STR(ci.slurm_procid);
	SAME_INT(ci.slurm_ntasks);
	SAME_INT(ci.slurm_cpus_per_task);
	SAME_STR(ci.slurm_nodelist);
	SAME_STR(ci.slurm_partition);
	if (!a->argv || !b->argv) {
		/* no argv and an empty one are the same record */
		same = (!a->argv || !a->argv[0]) && (!b->argv || !b->argv[0]);
	} else {
		for (i = 0; a->argv[i] && b->argv[i]; i++)
			if (strcmp(a->argv[i], b->argv[i]))
				same = 0;
		if (a->argv[i] || b->argv[i])
			same = 0;
	}
	ok(same, "%s: argv roundtrips", what);
	SAME_INT(started_at_us);
	SAME_DBL(walltime_s);
	SAME_DBL(user_s);
	SAME_DBL(sys_s);
	SAME_INT(maxrss_bytes);
	SAME_INT(tree_rss_bytes);
	SAME_INT(cgroup_peak_bytes);
	SAME_STR(maxrss_source);
	SAME_INT(tree_samples);
	SAME_INT(exit_code);
	SAME_INT(term_signal);
	SAME_INT(status);
	SAME_INT(partial);
	same_kv(&a->tags, &b->tags, what, "tags");
	SAME_STR(tracker_version);
}

static int roundtrip(const struct tk_run *a, struct tk_run *b, struct tk_buf *json)
{
	struct tk_err err = TK_ERR_INIT;
	int ret;

	tk_run_init(b);
	ret = tk_run_to_json(a, json, &err);
	if (ret) {
		diag(err.msg);
		return ret;
	}
	ret = tk_run_from_json(json->buf, json->len, "roundtrip.json", b, &err);
	if (ret)
		diag(err.msg);
	return ret;
}

static void test_roundtrip(void)
{
	struct tk_run a, b;
	struct tk_buf json = TK_BUF_INIT;

	fill_full(&a);
	is_int(roundtrip(&a, &b, &json), 0, "a full record encodes and decodes");
	ok(json.len && json.buf[json.len - 1] == '\n', "the document ends in a newline");
	ok(strstr(json.buf, "\"format\": \"tracker-run\"") && strstr(json.buf, "\"version\": 1"),
	   "the document is self-describing");
	same_run(&a, &b, "full");
	tk_run_release(&b);

	/* A signalled run, and unknown measurements. */
	a.exit_code = -1;
	a.term_signal = 9;
	a.status = TK_RUN_SIGNALED;
	a.partial = 0;
	a.walltime_s = 98765432.123456789; /* under TK_RUN_MAX_SECONDS */
	a.user_s = TK_RUN_MAX_SECONDS;
	a.sys_s = 0;
	a.cgroup_peak_bytes = -1;
	a.ci.slurm_ntasks = -1;
	tk_buf_reset(&json);
	is_int(roundtrip(&a, &b, &json), 0, "a signalled record roundtrips");
	same_run(&a, &b, "signalled");
	tk_run_release(&b);

	/* A figure no run can have is refused, naming it; a store reading its
	 * own column takes it (its reader skips the row). */
	a.walltime_s = 1e300;
	a.user_s = DBL_MAX;
	tk_buf_reset(&json);
	{
		struct tk_err e = TK_ERR_INIT;

		ok(!tk_run_to_json(&a, &json, &e), "1e300 s encodes");
		tk_run_init(&b);
		is_int(tk_run_from_json(json.buf, json.len, "r.json", &b, &e), TK_EDATA,
		       "and is refused as a record");
		ok(strstr(e.msg, "invalid record 'r.json': walltime_s is 1e+300") != NULL,
		   "naming the field: %s", e.msg);
		tk_run_release(&b);
		tk_run_init(&b);
		tk_err_clear(&e);
		is_int(tk_run_from_stored_json(json.buf, json.len, "r.json", &b, &e), 0,
		       "a stored column of it still decodes");
		ok(b.walltime_s == 1e300 && b.user_s == DBL_MAX, "exactly");
		tk_run_release(&b);
	}
	tk_run_release(&a);

	/* Nothing known but id and key: NULLs stay NULL, -1 stays -1. */
	tk_run_init(&a);
	memcpy(a.id, "00000000-0000-4000-8000-000000000000", TK_RUN_ID_LEN + 1);
	a.key = tk_xstrdup("k");
	tk_buf_reset(&json);
	is_int(roundtrip(&a, &b, &json), 0, "a minimal record roundtrips");
	same_run(&a, &b, "minimal");
	ok(b.argv == NULL || b.argv[0] == NULL, "minimal: no argv gives no arguments");
	tk_run_release(&b);
	tk_run_release(&a);

	/* Every status name roundtrips. */
	{
		enum tk_run_status s, got;
		int all = 1;

		for (s = TK_RUN_OK; s <= TK_RUN_ERROR; s++)
			if (tk_run_status_parse(tk_run_status_name(s), &got) || got != s)
				all = 0;
		ok(all, "every status name parses back");
		ok(tk_run_status_parse("bogus", &got) == TK_EDATA, "an unknown status is TK_EDATA");
	}
	tk_buf_release(&json);
}

/* JSON needs valid UTF-8; argv and keys come from the command line and
 * may hold any bytes (e.g. Latin-1 file names). Today such strings are
 * silently dropped from the record. */
static void test_non_utf8(void)
{
	static const char *const argv[] = { "cat", "caf\xe9.txt", "x", NULL };
	struct tk_run a, b;
	struct tk_buf json = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret, n = 0;

	tk_run_init(&a);
	memcpy(a.id, "00000000-0000-4000-8000-000000000001", TK_RUN_ID_LEN + 1);
	a.key = tk_xstrdup("k");
	a.argv = argv_dup(argv);
	ret = roundtrip(&a, &b, &json);
	if (!ret && b.argv)
		while (b.argv[n])
			n++;
	ok(ret == 0 && n == 3, "an argv element that is not UTF-8 is neither dropped nor "
	   "shifts the others");
	tk_run_release(&b);
	tk_run_release(&a);

	tk_run_init(&a);
	memcpy(a.id, "00000000-0000-4000-8000-000000000002", TK_RUN_ID_LEN + 1);
	a.key = tk_xstrdup("caf\xe9");
	tk_buf_reset(&json);
	ret = tk_run_to_json(&a, &json, &err);
	tk_run_init(&b);
	ok(ret != 0 || tk_run_from_json(json.buf, json.len, "k.json", &b, &err) == 0, "a key that is not UTF-8 gives a readable record or an error");
	tk_run_release(&b);
	tk_run_release(&a);
	tk_buf_release(&json);
}

static int count_tmp(const char *dir, int *json_files)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	*json_files = 0;
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (strstr(de->d_name, ".tmp"))
			n++;
		else if (strstr(de->d_name, ".json"))
			(*json_files)++;
	}
	closedir(d);
	return n;
}

static void test_write_record(void)
{
	char tmpl[] = "/tmp/t-run-record-XXXXXX";
	char *top = mkdtemp(tmpl);
	struct tk_buf dir = TK_BUF_INIT, path = TK_BUF_INIT, want = TK_BUF_INIT;
	struct tk_buf text = TK_BUF_INIT, cmd = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run a, b;
	const char *base;
	int ret, njson;
	struct stat st;
	char longkey[301];

	ok(top != NULL, "made a temporary directory");
	if (!top)
		return;
	tk_buf_addf(&dir, "%s/new/sub dir", top);
	fill_full(&a);
	free(a.key);
	a.key = tk_xstrdup("amip/low res");
	ret = tk_run_write_record(&a, dir.buf, &path, &err);
	is_int(ret, 0, "write_record succeeds and creates the directory: %s", err.msg);
	tk_buf_addf(&want, "%s/amip_low_res-%s.json", dir.buf, a.id);
	is_str(path.buf, want.buf, "the file is DIR/<safe key>-<id>.json");
	ok(stat(want.buf, &st) == 0 && S_ISREG(st.st_mode), "and it exists");
	is_int(count_tmp(dir.buf, &njson), 0, "no temporary file is left behind");
	is_int(njson, 1, "exactly one record file");
	is_int(tk_buf_read_file(&text, path.buf, &err), 0, "the record can be read");
	tk_run_init(&b);
	is_int(tk_run_from_json(text.buf, text.len, path.buf, &b, &err), 0,
	       "the record file parses: %s", err.msg);
	same_run(&a, &b, "file");
	tk_run_release(&b);

	/* Writing again replaces the file atomically (same id, same name). */
	a.exit_code = 0;
	a.status = TK_RUN_OK;
	tk_buf_reset(&path);
	ret = tk_run_write_record(&a, dir.buf, &path, &err);
	is_int(ret, 0, "writing the same run again succeeds");
	ok(count_tmp(dir.buf, &njson) == 0 && njson == 1, "still one file, no temporaries");

	/* Hostile keys stay inside DIR and make a plain file name. */
	{
		static const char *const keys[] = {
			"../../etc/passwd", ".hidden", "a\nb", "x y/z\\w:*?", "\xc3\xa9t\xc3\xa9",
			"..", NULL,
		};
		size_t i;

		for (i = 0; keys[i]; i++) {
			free(a.key);
			a.key = tk_xstrdup(keys[i]);
			tk_buf_reset(&path);
			ret = tk_run_write_record(&a, dir.buf, &path, &err);
			base = strrchr(path.buf, '/');
			ok(ret == 0 && base && (size_t)(base - path.buf) == dir.len &&
			   !strncmp(path.buf, dir.buf, dir.len) && base[1] != '.' &&
			   !strchr(base, '\n') && !strchr(base, '\\') && !strchr(base, ' '),
			   "hostile key %zu maps to a safe name in DIR: %s", i, base ? base + 1 : "?");
		}
		memset(longkey, 'k', 300);
		longkey[300] = '\0';
		free(a.key);
		a.key = tk_xstrdup(longkey);
		tk_buf_reset(&path);
		ret = tk_run_write_record(&a, dir.buf, &path, &err);
		base = strrchr(path.buf, '/');
		ok(ret == 0 && base && strlen(base + 1) < 255,
		   "a 300-byte key gives a file name below NAME_MAX");
		free(a.key);
		a.key = NULL;
		tk_buf_reset(&path);
		ret = tk_run_write_record(&a, dir.buf, &path, &err);
		base = strrchr(path.buf, '/');
		ok(ret == 0 && base && !strncmp(base + 1, "run-", 4), "no key gives run-<id>.json");
		ok(count_tmp(dir.buf, &njson) == 0, "no temporaries after all writes");
	}

	/* DIR is a file: an error naming it. */
	tk_buf_reset(&dir);
	tk_buf_addf(&dir, "%s", want.buf);
	tk_buf_reset(&path);
	a.key = tk_xstrdup("k");
	ret = tk_run_write_record(&a, dir.buf, &path, &err);
	is_int(ret, TK_EUNAVAIL, "writing under a regular file is TK_EUNAVAIL");
	ok(strstr(err.msg, top) != NULL, "the message names the path: %s", err.msg);
	is_int(path.len, 0, "no path is reported on failure");

	tk_run_release(&a);
	tk_buf_addf(&cmd, "rm -rf '%s'", top);
	if (system(cmd.buf))
		diag("cannot remove the temporary directory");
	tk_buf_release(&cmd);
	tk_buf_release(&dir);
	tk_buf_release(&path);
	tk_buf_release(&want);
	tk_buf_release(&text);
}

struct bad_case {
	const char *file;
	const char *needle; /* in the message, besides the file name */
	int syntax;         /* 1: message names a line and a column */
};

static const struct bad_case bad_cases[] = {
	{ "truncated.json", "premature end of input", 1 },
	{ "empty.json", "line", 1 },
	{ "scalar.json", "line", 1 },
	{ "duplicate-keys.json", "line 7", 1 },
	{ "deep-nesting.json", "depth", 1 },
	{ "not-object.json", "not a tracker run record", 0 },
	{ "wrong-format.json", "not a tracker run record", 0 },
	{ "no-format.json", "not a tracker run record", 0 },
	{ "version-2.json", "version", 0 },
	{ "version-string.json", "version", 0 },
	{ "run-array.json", "'run'", 0 },
	{ "missing-id.json", "'id'", 0 },
	{ "short-uuid.json", "'id'", 0 },
	{ "upper-uuid.json", "'id'", 0 },
	{ "invalid-uuid.json", "'id'", 0 },
	{ "empty-key.json", "'key'", 0 },
	{ "walltime-string.json", "'walltime_s'", 0 },
	{ "maxrss-real.json", "'maxrss_bytes'", 0 },
	{ "bad-status.json", "'status'", 0 },
	{ "argv-number.json", "'argv'", 0 },
	{ "tag-number.json", "'tags'", 0 },
	{ "ci-string.json", "'ci'", 0 },
	{ "exit-code-huge.json", "'exit_code'", 0 },
	{ NULL, NULL, 0 },
};

static const char *fixture_dir(void)
{
	static const char *const dirs[] = {
		"fixtures/records/bad", "../../fixtures/records/bad", NULL,
	};
	const char *env = getenv("TRACKER_SRCDIR");
	static char buf[4096];
	size_t i;

	if (env && *env) {
		snprintf(buf, sizeof(buf), "%s/fixtures/records/bad", env);
		return buf;
	}
	for (i = 0; dirs[i]; i++)
		if (!access(dirs[i], R_OK))
			return dirs[i];
	return dirs[0];
}

static void test_bad_records(void)
{
	const char *dir = fixture_dir();
	const struct bad_case *c;
	struct tk_buf path = TK_BUF_INIT, text = TK_BUF_INIT;

	for (c = bad_cases; c->file; c++) {
		struct tk_err err = TK_ERR_INIT;
		struct tk_run r;
		int ret;

		tk_buf_reset(&path);
		tk_buf_reset(&text);
		tk_buf_addf(&path, "%s/%s", dir, c->file);
		if (tk_buf_read_file(&text, path.buf, &err)) {
			ok(0, "read fixture: %s", err.msg);
			continue;
		}
		tk_run_init(&r);
		ret = tk_run_from_json(text.buf, text.len, path.buf, &r, &err);
		is_int(ret, TK_EDATA, "%s is TK_EDATA", c->file);
		ok(strstr(err.msg, path.buf) && strstr(err.msg, c->needle),
		   "%s: message names the file and '%s': %s", c->file, c->needle, err.msg);
		if (c->syntax)
			ok(strstr(err.msg, " line ") && strstr(err.msg, " column "),
			   "%s: message gives line and column", c->file);
		tk_run_release(&r);
	}

	/* Sanity: the good record these were made from parses, and unknown
	 * fields are ignored. */
	{
		static const char good[] =
			"{\"format\": \"tracker-run\", \"version\": 1, \"future\": [1],"
			" \"run\": {\"id\": \"3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e01\","
			" \"key\": \"amip\", \"walltime_s\": 12, \"new_field\": {\"x\": 1}}}";
		struct tk_err err = TK_ERR_INIT;
		struct tk_run r;

		tk_run_init(&r);
		is_int(tk_run_from_json(good, strlen(good), "good.json", &r, &err), 0,
		       "a record with unknown fields parses: %s", err.msg);
		ok(r.walltime_s == 12, "an integer is accepted for a real field");
		tk_run_release(&r);
	}
	tk_buf_release(&path);
	tk_buf_release(&text);
}

static void test_uuid(void)
{
	enum { N = 1000 };
	static char ids[N][TK_RUN_ID_LEN + 1];
	struct tk_err err = TK_ERR_INIT;
	int i, j, valid = 1, distinct = 1, v4 = 1;

	for (i = 0; i < N; i++) {
		if (tk_uuid_v4(ids[i], &err))
			valid = 0;
		if (!tk_uuid_valid(ids[i]))
			valid = 0;
		if (ids[i][14] != '4' || !strchr("89ab", ids[i][19]))
			v4 = 0;
	}
	for (i = 0; i < N; i++)
		for (j = i + 1; j < N; j++)
			if (!strcmp(ids[i], ids[j]))
				distinct = 0;
	ok(valid, "tk_uuid_v4 gives valid ids (%s)", ids[0]);
	ok(v4, "with version 4 and the RFC 4122 variant");
	ok(distinct, "%d ids are distinct", N);
	is_int(strlen(ids[0]), TK_RUN_ID_LEN, "an id is 36 characters");

	ok(tk_uuid_valid("3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e01"), "uuid_valid accepts lower case");
	ok(!tk_uuid_valid("3F0C1A52-7D4E-4B8A-9C61-0A1B2C3D4E01"), "uuid_valid rejects upper case");
	ok(!tk_uuid_valid("3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e0"), "uuid_valid rejects short ids");
	ok(!tk_uuid_valid("3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e011"), "uuid_valid rejects long ids");
	ok(!tk_uuid_valid("3f0c1a527d4e-4b8a-9c61-0a1b2c3d4e01-"), "uuid_valid wants dashes in place");
	ok(!tk_uuid_valid("3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e0g"), "uuid_valid rejects non-hex");
	ok(!tk_uuid_valid(""), "uuid_valid rejects the empty string");
	ok(!tk_uuid_valid("3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e\0001"), "uuid_valid rejects a NUL inside");
}

static void test_helpers(void)
{
	struct tk_kvlist l = { NULL, 0, 0 };
	struct tk_job_result jr;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_run r;

	is_int(tk_kvlist_set_pair(&l, "res=low=1"), 0, "KEY=VALUE");
	is_str(tk_kvlist_get(&l, "res"), "low=1", "the value keeps its '='");
	is_int(tk_kvlist_set_pair(&l, "=x"), -1, "no key is refused");
	is_int(tk_kvlist_set_pair(&l, "x"), -1, "no '=' is refused");
	is_int(l.nr, 1, "and adds nothing");
	tk_kvlist_release(&l);

	tk_run_init(&r);
	memcpy(r.id, "8c1d2e3f-0000-4000-8000-000000000000", TK_RUN_ID_LEN + 1);
	r.key = tk_xstrdup("amip");
	memset(&jr, 0, sizeof(jr));
	jr.walltime_s = 62;
	jr.maxrss_bytes = 2254857830;
	jr.tree_rss_bytes = -1;
	jr.exit_code = 3;
	tk_job_result_to_run(&jr, &r);
	ok(r.status == TK_RUN_FAILED, "a non-zero exit is a failure");
	tk_run_format_summary(&r, &b);
	is_str(b.buf, "amip: failed, wall 1m 02s, max RSS 2.10 GiB, tree RSS -, exit 3 "
	       "(run 8c1d2e3f)", "the summary line tracker run prints");
	jr.timed_out = 1;
	jr.term_signal = 15;
	tk_job_result_to_run(&jr, &r);
	ok(r.status == TK_RUN_TIMEOUT, "a timeout is a timeout though it ended by a signal");
	tk_buf_release(&b);
	tk_run_release(&r);
}

static void test_check_key(void)
{
	struct tk_err err = TK_ERR_INIT;
	char long_key[TK_RUN_KEY_MAX + 2];

	is_int(tk_run_check_key("amip-low_res.1", &err), 0, "a plain key");
	is_int(tk_run_check_key("\xc3\xa9t\xc3\xa9 run", &err), 0, "UTF-8 and spaces");
	is_int(tk_run_check_key("", &err), TK_EDATA, "an empty key is refused");
	is_int(tk_run_check_key("a\tb", &err), TK_EDATA, "a tab is refused");
	is_str(err.msg, "invalid key 'a\\x09b' (3 bytes; a key is 1-200 bytes of UTF-8 text "
	       "without control characters)", "shown escaped");
	is_int(tk_run_check_key("a\x7f", &err), TK_EDATA, "DEL is refused");
	is_int(tk_run_check_key("\xff", &err), TK_EDATA, "invalid UTF-8 is refused");
	ok(strstr(err.msg, "'\\xff'") != NULL, "shown escaped: %s", err.msg);
	memset(long_key, 'k', sizeof(long_key));
	long_key[TK_RUN_KEY_MAX] = '\0';
	is_int(tk_run_check_key(long_key, &err), 0, "200 bytes are a key");
	long_key[TK_RUN_KEY_MAX] = 'k';
	long_key[TK_RUN_KEY_MAX + 1] = '\0';
	is_int(tk_run_check_key(long_key, &err), TK_EDATA, "201 are not");
	ok(strstr(err.msg, "...' (201 bytes") != NULL, "cut short, with its length");
}

int main(void)
{
	test_check_key();
	test_helpers();
	test_roundtrip();
	test_non_utf8();
	test_write_record();
	test_bad_records();
	test_uuid();
	return done_testing();
}
