/*
 * .tracker.yml: every field, empty files, per-key lookup, anchors, the
 * exact "file:line:column" of each kind of error, the size and depth caps,
 * the directory walk of tk_config_find, and which database a command uses
 * and what in the file may have changed it (tk_config_db).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/ci/ci.h"
#include "core/model/config.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static struct tk_buf fixtures = TK_BUF_INIT;

/* The test runs from anywhere: fixtures are found under $TRACKER_ROOT,
 * else relative to argv[0], else in the working directory (a build of
 * the tests in a subdirectory, build-san/). */
static void find_fixtures(const char *argv0)
{
	const char *p = strstr(argv0, "tests/unit/"), *root = getenv("TRACKER_ROOT");

	if (root && *root)
		tk_buf_addf(&fixtures, "%s/", root);
	else if (p)
		tk_buf_add(&fixtures, argv0, (size_t)(p - argv0));
	tk_buf_adds(&fixtures, "fixtures/config/");
	if (access(fixtures.buf, F_OK)) {
		tk_buf_reset(&fixtures);
		tk_buf_adds(&fixtures, "fixtures/config/");
	}
}

static int load_fixture(const char *name, struct tk_config *c, struct tk_err *err)
{
	struct tk_buf path = TK_BUF_INIT;
	int ret;

	tk_buf_addf(&path, "%s%s", fixtures.buf, name);
	ret = tk_config_load(path.buf, c, err);
	tk_buf_release(&path);
	return ret;
}

static int parse_str(const char *text, struct tk_config *c, struct tk_err *err)
{
	return tk_config_parse(text, strlen(text), "t.yml", c, err);
}

static void test_full(void)
{
	struct tk_buf want = TK_BUF_INIT;
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_key_config *k;
	int ret;

	tk_config_init(&c);
	ret = load_fixture("full.yml", &c, &err);
	is_int(ret, 0, "full.yml loads (%s)", err.msg);
	ok(c.path && strstr(c.path, "fixtures/config/full.yml"), "path is the file read");
	is_str(c.db, "sqlite:/scratch/perf/history.db", "db");
	tk_buf_addf(&want, "%stracker-artifacts", fixtures.buf);
	is_str(c.artifacts, want.buf, "artifacts, relative to the file's directory");
	tk_buf_release(&want);
	is_str(c.baseline_branch, "main", "baseline_branch");
	is_int(c.nr_keys, 3, "three keys");

	k = tk_config_key(&c, "amip");
	ok(k != NULL, "key amip found");
	if (k) {
		is_str(k->key, "amip", "amip: name");
		is_str(k->baseline_branch, "staging", "amip: baseline_branch");
		ok(k->timeout_s == 7200, "amip: timeout 2h is 7200 s");
		is_int(k->tags.nr, 2, "amip: two tags");
		is_str(tk_kvlist_get(&k->tags, "model"), "amip", "amip: tag model");
		is_str(tk_kvlist_get(&k->tags, "resolution"), "low", "amip: tag resolution");
	}
	k = tk_config_key(&c, "unit tests");
	ok(k != NULL, "quoted key name with a space found");
	if (k) {
		ok(k->baseline_branch == NULL, "unit tests: no baseline_branch");
		ok(k->timeout_s == 90, "unit tests: bare number timeout is seconds");
		is_str(tk_kvlist_get(&k->tags, "ranks"), "4", "numbers are kept as text");
	}
	k = tk_config_key(&c, "lint");
	ok(k != NULL, "key with no settings is known");
	if (k)
		ok(!k->baseline_branch && k->timeout_s == 0 && k->tags.nr == 0,
		   "lint: everything unset");
	ok(tk_config_key(&c, "missing") == NULL, "unknown key gives NULL");
	ok(tk_config_key(&c, NULL) == NULL, "NULL key gives NULL");
	ok(tk_config_key(&c, "Amip") == NULL, "key names are case-sensitive");
	tk_config_release(&c);
	ok(c.db == NULL && c.keys == NULL && c.nr_keys == 0, "release leaves it empty");
}

static void test_empty(void)
{
	static const char *const files[] = { "empty.yml", "comments-only.yml" };
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;
	size_t i;

	for (i = 0; i < 2; i++) {
		tk_config_init(&c);
		is_int(load_fixture(files[i], &c, &err), 0, "%s is a valid empty config", files[i]);
		ok(!c.db && !c.artifacts && !c.baseline_branch && !c.nr_keys,
		   "%s: nothing set", files[i]);
		tk_config_release(&c);
	}
	tk_config_init(&c);
	is_int(tk_config_load("/dev/null", &c, &err), 0, "/dev/null is an empty config");
	is_int(parse_str("db: ~\nkeys:\nartifacts: null\n", &c, &err), 0,
	       "null values parse (%s)", err.msg);
	ok(!c.db && !c.artifacts && !c.nr_keys, "null values are unset");
	is_int(parse_str("db: ''\n", &c, &err), 0, "quoted empty string parses");
	is_str(c.db, "", "quoted empty string is a string");
	tk_config_release(&c);
}

static void test_anchors(void)
{
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_key_config *k;

	tk_config_init(&c);
	is_int(load_fixture("anchors.yml", &c, &err), 0, "anchors.yml loads (%s)", err.msg);
	k = tk_config_key(&c, "aquaplanet");
	ok(k != NULL, "merged key found");
	if (k) {
		is_str(k->baseline_branch, "staging", "<<: *climate merges baseline_branch");
		ok(k->timeout_s == 45 * 60, "own timeout wins over the merged one");
		is_str(tk_kvlist_get(&k->tags, "model"), "climate", "merged tags");
	}
	k = tk_config_key(&c, "held-suarez");
	ok(k && k->tags.nr == 2 && !strcmp(tk_kvlist_get(&k->tags, "nodes"), "2"),
	   "tags: *alias resolves to the anchored mapping");
	k = tk_config_key(&c, "amip");
	ok(k && k->timeout_s == 5400, "1h30m is 5400 s");
	tk_config_release(&c);
}

struct bad_case {
	const char *file;
	const char *where; /* the exact "line:column: " after the file name */
	const char *what;  /* a substring of the message */
};

static const struct bad_case bad_cases[] = {
	{ "tab-indent.yml", "4:1: ", "cannot start any token" },
	{ "tab-indent.yml", "4:1: ", "a tab" },
	{ "unclosed-quote.yml", "3:1: ", "quoted scalar at 1:5" },
	{ "unclosed-flow.yml", "4:7: ", "flow mapping at 3:11" },
	{ "top-sequence.yml", "1:1: ", "top level must be a mapping" },
	{ "undefined-alias.yml", "2:9: ", "undefined alias '*defaults'" },
	{ "two-documents.yml", "2:1: ", "second YAML document" },
	{ "too-deep.yml", "1:67: ", "nesting deeper than 64 levels" },
};

static void test_bad_files(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *bc = &bad_cases[i];
		struct tk_config c;
		struct tk_err err = TK_ERR_INIT;
		struct tk_buf want = TK_BUF_INIT;
		int ret;

		tk_config_init(&c);
		ret = load_fixture(bc->file, &c, &err);
		is_int(ret, TK_EDATA, "%s is rejected with TK_EDATA", bc->file);
		tk_buf_addf(&want, "%s%s:%s", fixtures.buf, bc->file, bc->where);
		if (!ok(!strncmp(err.msg, want.buf, want.len), "%s: message starts '%s'",
			bc->file, want.buf))
			printf("#   got '%s'\n", err.msg);
		if (!ok(strstr(err.msg, bc->what) != NULL, "%s: message says '%s'",
			bc->file, bc->what))
			printf("#   got '%s'\n", err.msg);
		ok(!c.db && !c.nr_keys && !c.path, "%s: config left empty", bc->file);
		tk_config_release(&c);
		tk_buf_release(&want);
	}
}

/*
 * A mistake in one setting: a warning at its position, and the rest of
 * the file applies (`check` says what must still be there).
 */
struct warn_case {
	const char *file;
	const char *where;  /* the exact "line:column: " after the file name */
	const char *what;   /* a substring of the warning */
	const char *check;  /* "db=VALUE", "artifacts=VALUE", "timeout:KEY=SECONDS",
			       "keys=N" */
};

static const struct warn_case warn_cases[] = {
	{ "keys-sequence.yml", "2:7: ", "'keys' must be a mapping", "db=history.db" },
	{ "unknown-field.yml", "2:1: ",
	  "unknown field 'baseline-branch' (did you mean 'baseline_branch'?); ignored",
	  "db=history.db" },
	{ "unknown-key-field.yml", "4:5: ",
	  "unknown field 'timout' in key 'amip' (did you mean 'timeout'?); ignored",
	  "keys=1" },
	{ "typo-next-to-db.yml", "2:1: ", "unknown field 'timout' (did you mean", "db=/scratch/perf/history.db" },
	{ "bad-timeout.yml", "3:14: ", "bad timeout 'two hours'", "timeout:amip=0" },
	{ "duplicate-key.yml", "3:1: ", "duplicate key 'db' (first at 1:1, which is used)",
	  "db=one.db" },
	{ "duplicate-key-name.yml", "4:3: ", "duplicate key 'amip' (first at 2:3",
	  "timeout:amip=3600" },
	{ "db-mapping.yml", "2:3: ", "'db' must be a string, not a mapping", "keys=0" },
};

static void check_applied(const struct warn_case *wc, const struct tk_config *c)
{
	const char *eq = strchr(wc->check, '=');
	const struct tk_key_config *k;
	char *key;

	if (!strncmp(wc->check, "db=", 3)) {
		ok(c->db && strstr(c->db, eq + 1), "%s: db still applies (%s)", wc->file,
		   c->db ? c->db : "(null)");
	} else if (!strncmp(wc->check, "keys=", 5)) {
		is_int((int)c->nr_keys, (int)strtol(eq + 1, NULL, 10), "%s: the keys still apply", wc->file);
	} else {
		key = tk_xstrndup(wc->check + 8, (size_t)(eq - wc->check - 8));
		k = tk_config_key(c, key);
		ok(k && k->timeout_s == strtod(eq + 1, NULL), "%s: timeout of %s", wc->file, key);
		free(key);
	}
}

static void test_warn_files(void)
{
	size_t i;

	for (i = 0; i < sizeof(warn_cases) / sizeof(warn_cases[0]); i++) {
		const struct warn_case *wc = &warn_cases[i];
		struct tk_config c;
		struct tk_err err = TK_ERR_INIT;
		struct tk_buf want = TK_BUF_INIT;

		tk_config_init(&c);
		is_int(load_fixture(wc->file, &c, &err), 0, "%s loads (%s)", wc->file, err.msg);
		is_int((int)c.nr_warnings, 1, "%s: one warning", wc->file);
		tk_buf_addf(&want, "%s%s:%s", fixtures.buf, wc->file, wc->where);
		if (c.nr_warnings) {
			if (!ok(!strncmp(c.warnings[0], want.buf, want.len),
				"%s: warning starts '%s'", wc->file, want.buf))
				printf("#   got '%s'\n", c.warnings[0]);
			if (!ok(strstr(c.warnings[0], wc->what) != NULL, "%s: warning says '%s'",
				wc->file, wc->what))
				printf("#   got '%s'\n", c.warnings[0]);
		}
		check_applied(wc, &c);
		tk_config_release(&c);
		tk_buf_release(&want);
	}
}

static void expect_parse_warning(const char *text, const char *msg, const char *desc)
{
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;

	tk_config_init(&c);
	is_int(parse_str(text, &c, &err), 0, "%s: parses", desc);
	if (!ok(c.nr_warnings == 1 && !strncmp(c.warnings[0], msg, strlen(msg)),
		"%s: warns '%s'", desc, msg))
		printf("#   got %zu warnings, first '%s'\n", c.nr_warnings,
		       c.nr_warnings ? c.warnings[0] : "");
	tk_config_release(&c);
}

static void test_suggestions(void)
{
	expect_parse_warning("artefacts: out\n", "t.yml:1:1: unknown field 'artefacts' "
			     "(did you mean 'artifacts'?); ignored", "artefacts");
	expect_parse_warning("Db: x\n", "t.yml:1:1: unknown field 'Db' (did you mean 'db'?)",
			     "Db");
	expect_parse_warning("database: x\n", "t.yml:1:1: unknown field 'database' "
			     "(expected db, artifacts, baseline_branch, keys, machine_class or check); ignored",
			     "nothing near: the list");
	expect_parse_warning("timeout: 2h\n", "t.yml:1:1: 'timeout' is a per-key setting",
			     "a per-key field at the top");
	expect_parse_warning("keys:\n  a:\n    tag: {x: y}\n",
			     "t.yml:3:5: unknown field 'tag' in key 'a' (did you mean 'tags'?)",
			     "tag for tags");
	expect_parse_warning("keys:\n  a:\n    color: red\n",
			     "t.yml:3:5: unknown field 'color' in key 'a' (expected "
			     "baseline_branch, timeout, tags or machine_class); ignored",
			     "per key: the list");
}

static void test_warning_order(void)
{
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;

	tk_config_init(&c);
	is_int(parse_str("db: a.db\nkeys:\n  k:\n    timout: 1\n  k: {}\nbogus: 1\n", &c, &err),
	       0, "three mistakes parse");
	ok(c.nr_warnings == 3 && strstr(c.warnings[0], "t.yml:4:5:") &&
	   strstr(c.warnings[1], "t.yml:5:3: duplicate") && strstr(c.warnings[2], "t.yml:6:1:"),
	   "warnings in file order");
	is_str(c.db, "a.db", "and db applies");
	tk_config_release(&c);
}

static void expect_parse_error(const char *text, const char *msg, const char *desc)
{
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;

	tk_config_init(&c);
	is_int(parse_str(text, &c, &err), TK_EDATA, "%s: rejected", desc);
	if (!ok(!strncmp(err.msg, msg, strlen(msg)), "%s: '%s'", desc, msg))
		printf("#   got '%s'\n", err.msg);
	tk_config_release(&c);
}

static void test_bad_strings(void)
{
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf big = TK_BUF_INIT;
	size_t i;

	expect_parse_warning("keys:\n  a:\n    tags: [x]\n", "t.yml:3:11: 'tags' must be a mapping",
			     "tags as a sequence");
	expect_parse_warning("keys:\n  a:\n    tags: {x: [1]}\n",
			     "t.yml:3:15: tag 'x' must be a string", "tag value not a string");
	expect_parse_warning("keys:\n  a: 3\n", "t.yml:2:6: settings of key 'a' must be a mapping",
			     "key settings as a scalar");
	expect_parse_warning("keys:\n  '': {}\n", "t.yml:2:3: a key name cannot be empty",
			     "empty key name");
	expect_parse_error("hello\n", "t.yml:1:1: the top level must be a mapping",
			   "top level scalar");
	expect_parse_warning("[a]: 1\n", "t.yml:1:1: a mapping key must be a plain string",
			     "sequence as a key");
	expect_parse_warning("keys:\n  a: {timeout: -5s}\n", "t.yml:2:16: bad timeout",
			     "negative timeout");
	expect_parse_error("keys: &k\n  a: *k\n", "t.yml:2:6: alias '*k' refers to a node that contains it",
			   "recursive alias");
	expect_parse_warning("keys:\n  a:\n    <<: 1\n", "t.yml:3:9: a merge key '<<' takes a mapping",
			     "merge of a scalar");
	expect_parse_error("keys:\n  a:\n    <<: {<<: {}}\n", "t.yml:3:10: nested merge keys",
			   "nested merge");

	/* 64 levels are fine (the top-level mapping plus 63 sequences) */
	tk_buf_adds(&big, "a: ");
	for (i = 0; i < 63; i++)
		tk_buf_addch(&big, '[');
	for (i = 0; i < 63; i++)
		tk_buf_addch(&big, ']');
	tk_config_init(&c);
	is_int(tk_config_parse(big.buf, big.len, "deep.yml", &c, &err), 0,
	       "64 levels nest fine; the unknown field is only a warning");
	ok(c.nr_warnings == 1 && strstr(c.warnings[0], "unknown field 'a'") != NULL,
	   "depth 64 reaches the field check");
	tk_buf_reset(&big);

	tk_buf_adds(&big, "db: x\n");
	while (big.len <= 1024 * 1024)
		tk_buf_adds(&big, "# padding padding padding padding padding padding\n");
	is_int(tk_config_parse(big.buf, big.len, "big.yml", &c, &err), TK_EDATA,
	       "over 1 MiB is refused");
	ok(strstr(err.msg, "big.yml: larger than") != NULL, "size error names the file");
	tk_buf_release(&big);
	tk_config_release(&c);
}

static void test_error_keeps_config(void)
{
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;

	tk_config_init(&c);
	is_int(parse_str("db: first.db\n", &c, &err), 0, "first parse");
	is_int(parse_str("db: second.db\nbogus: [1\n", &c, &err), TK_EDATA, "bad second parse");
	is_str(c.db, "first.db", "a failed parse leaves the config as it was");
	is_int(parse_str("artifacts: out\n", &c, &err), 0, "third parse");
	ok(c.db == NULL, "a successful parse replaces the whole config");
	is_str(c.artifacts, "out", "with the new values");
	is_int(tk_config_load("/nonexistent/.tracker.yml", &c, &err), TK_EDATA,
	       "a missing file is TK_EDATA");
	ok(strstr(err.msg, "/nonexistent/.tracker.yml") != NULL, "and names the path");
	tk_config_release(&c);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

struct rel_case {
	const char *db, *artifacts;       /* as written */
	const char *want_db, *want_art;   /* after load; "@" is the file's dir */
};

static const struct rel_case rel_cases[] = {
	{ "history.db", "out", "@/history.db", "@/out" },
	{ "sqlite:sub/h.db", "a/b", "sqlite:@/sub/h.db", "@/a/b" },
	{ "/abs/h.db", "/abs/out", "/abs/h.db", "/abs/out" },
	{ "sqlite:/abs/h.db", "/x", "sqlite:/abs/h.db", "/x" },
	{ "postgresql://db.example.org/perf", "/x", "postgresql://db.example.org/perf", "/x" },
};

static void expand_at(struct tk_buf *out, const char *pattern, const char *dir)
{
	const char *at = strchr(pattern, '@');

	tk_buf_reset(out);
	if (!at) {
		tk_buf_adds(out, pattern);
		return;
	}
	tk_buf_addf(out, "%.*s%s%s", (int)(at - pattern), pattern, dir, at + 1);
}

static void test_relative_paths(void)
{
	struct tk_buf dir = TK_BUF_INIT, path = TK_BUF_INIT, text = TK_BUF_INIT;
	struct tk_buf want = TK_BUF_INIT;
	const char *tmp = getenv("TMPDIR");
	size_t i;

	tk_buf_addf(&dir, "%s/t-config-rel.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!ok(mkdtemp(dir.buf) != NULL, "temporary directory for relative paths"))
		return;
	tk_buf_addf(&path, "%s/.tracker.yml", dir.buf);
	for (i = 0; i < sizeof(rel_cases) / sizeof(rel_cases[0]); i++) {
		const struct rel_case *rc = &rel_cases[i];
		struct tk_config c;
		struct tk_err err = TK_ERR_INIT;

		tk_buf_reset(&text);
		tk_buf_addf(&text, "db: %s\nartifacts: %s\n", rc->db, rc->artifacts);
		write_file(path.buf, text.buf);
		tk_config_init(&c);
		is_int(tk_config_load(path.buf, &c, &err), 0, "load db: %s", rc->db);
		expand_at(&want, rc->want_db, dir.buf);
		is_str(c.db, want.buf, "db: %s resolves", rc->db);
		expand_at(&want, rc->want_art, dir.buf);
		is_str(c.artifacts, want.buf, "artifacts: %s resolves", rc->artifacts);
		tk_config_release(&c);
		tk_config_init(&c);
		is_int(tk_config_parse(text.buf, text.len, "mem.yml", &c, &err), 0,
		       "parse db: %s", rc->db);
		is_str(c.db, rc->db, "tk_config_parse keeps db: %s as written", rc->db);
		tk_config_release(&c);
	}
	unlink(path.buf);
	rmdir(dir.buf);
	tk_buf_release(&dir);
	tk_buf_release(&path);
	tk_buf_release(&text);
	tk_buf_release(&want);
}

/* ---- tk_config_find ---- */

struct fake_env {
	const char *config;
};

static const char *fake_get(void *data, const char *name)
{
	const struct fake_env *f = data;

	if (!strcmp(name, "TRACKER_CONFIG"))
		return f->config;
	return NULL;
}

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (f)
		fclose(f);
}

static void test_find(void)
{
	struct fake_env fe = { NULL };
	struct tk_env env = { fake_get, &fe, NULL };
	struct tk_buf root = TK_BUF_INIT, p = TK_BUF_INIT, out = TK_BUF_INIT;
	const char *tmp = getenv("TMPDIR");
	char *dir;

	tk_buf_addf(&root, "%s/t-config.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	dir = mkdtemp(root.buf);
	if (!ok(dir != NULL, "temporary directory")) {
		tk_buf_release(&root);
		return;
	}
	tk_buf_addf(&p, "%s/a", dir);
	mkdir(p.buf, 0700);
	tk_buf_adds(&p, "/b");
	mkdir(p.buf, 0700);
	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a/.tracker.yml", dir);
	touch(p.buf);

	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a/b", dir);
	env.workdir = p.buf;
	is_int(tk_config_find(&env, &out), 1, "found in a parent directory");
	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a/.tracker.yml", dir);
	is_str(out.buf, p.buf, "the nearest parent's file");

	tk_buf_reset(&out);
	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a/", dir);
	env.workdir = p.buf;
	is_int(tk_config_find(&env, &out), 1, "found in the directory itself");
	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a/.tracker.yml", dir);
	is_str(out.buf, p.buf, "trailing slash of workdir is dropped");

	tk_buf_reset(&out);
	env.workdir = dir;
	is_int(tk_config_find(&env, &out), 0, "not found above the file (unless / has one)");
	is_int(out.len, 0, "nothing appended when not found");

	fe.config = "/nonexistent/tracker.yml";
	is_int(tk_config_find(&env, &out), 1, "TRACKER_CONFIG is found even when missing");
	is_str(out.buf, "/nonexistent/tracker.yml", "as given");
	tk_buf_reset(&out);
	fe.config = "";
	env.workdir = p.buf;
	*strrchr(p.buf, '/') = '\0';
	is_int(tk_config_find(&env, &out), 1, "empty TRACKER_CONFIG is ignored");

	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a/.tracker.yml", dir);
	unlink(p.buf);
	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a/b", dir);
	rmdir(p.buf);
	tk_buf_reset(&p);
	tk_buf_addf(&p, "%s/a", dir);
	rmdir(p.buf);
	rmdir(dir);
	tk_buf_release(&root);
	tk_buf_release(&p);
	tk_buf_release(&out);
}

/* What keeps db from being what the file meant (tk_config.db_problem). */
struct db_case {
	const char *text;
	const char *problem; /* NULL: none */
	size_t warnings;     /* the warnings stay as they were */
};

static const struct db_case db_cases[] = {
	{ "dbb: x.db\n", "t.yml:1:1: unknown field 'dbb' (did you mean 'db'?)", 1 },
	{ "DB: x.db\n", "t.yml:1:1: unknown field 'DB' (did you mean 'db'?)", 1 },
	{ "database: x.db\n", "t.yml:1:1: unknown field 'database' (expected db, artifacts, "
	  "baseline_branch, keys, machine_class or check)", 1 },
	{ "db: [a.db]\n", "t.yml:1:5: 'db' must be a string, not a sequence", 1 },
	{ "db: {a: 1}\n", "t.yml:1:5: 'db' must be a string, not a mapping", 1 },
	{ "db:\n", "t.yml:1:4: 'db' has no value", 0 },
	{ "db: \"\"\n", "t.yml:1:5: 'db' has no value", 0 },
	{ "db: a.db\ndb: b.db\n", "t.yml:2:1: duplicate key 'db' (first at 1:1, which is used)", 1 },
	{ "keys:\n  amip:\n    db: x.db\n", "t.yml:3:5: unknown field 'db' in key 'amip' "
	  "(expected baseline_branch, timeout, tags or machine_class)", 1 },
	{ "dbb: x.db\ndb: [a]\n", "t.yml:1:1: unknown field 'dbb' (did you mean 'db'?)", 2 },
	{ "db: a.db\n", NULL, 0 },
	{ "", NULL, 0 },
	{ "artefacts: out\n", NULL, 1 },
	{ "keys:\n  amip:\n    timout: 5\n", NULL, 1 },
	{ "db: a.db\nkeys: [a]\n", NULL, 1 },
};

static void test_db_problem(void)
{
	size_t i;

	for (i = 0; i < sizeof(db_cases) / sizeof(db_cases[0]); i++) {
		const struct db_case *dc = &db_cases[i];
		struct tk_err err = TK_ERR_INIT;
		struct tk_config c;

		tk_config_init(&c);
		is_int(parse_str(dc->text, &c, &err), 0, "db case %zu parses", i);
		if (dc->problem)
			is_str(c.db_problem ? c.db_problem : "(none)", dc->problem,
			       "db case %zu: the problem", i);
		else
			ok(!c.db_problem, "db case %zu: no problem (%s)", i,
			   c.db_problem ? c.db_problem : "");
		is_int((int)c.nr_warnings, (int)dc->warnings, "db case %zu: the warnings", i);
		tk_config_release(&c);
	}
}

struct db_env {
	const char *tracker_db, *xdg, *home;
};

static const char *db_env_get(void *data, const char *name)
{
	const struct db_env *e = data;

	if (!strcmp(name, "TRACKER_DB"))
		return e->tracker_db;
	if (!strcmp(name, "XDG_DATA_HOME"))
		return e->xdg;
	if (!strcmp(name, "HOME"))
		return e->home;
	return NULL;
}

static void expect_db(const struct tk_config *c, struct db_env *e, const char *opt,
		      const char *url, enum tk_db_from from, int problem, const char *desc)
{
	struct tk_env env = { db_env_get, e, NULL, NULL };
	struct tk_db_choice how;
	struct tk_buf got = TK_BUF_INIT;

	tk_config_db(c, &env, opt, &got, &how);
	is_str(got.buf, url, "%s: the database", desc);
	ok(how.from == from && !how.problem == !problem, "%s: why (%d, %s)", desc, how.from,
	   how.problem ? how.problem : "no problem");
	tk_buf_release(&got);
}

/* --db, $TRACKER_DB, db:, the default; the problem only where it matters. */
static void test_db_choice(void)
{
	struct db_env e = { "env.db", "/xdg", "/home/u" };
	struct tk_err err = TK_ERR_INIT;
	struct tk_config fine, broken, none;

	tk_config_init(&fine);
	tk_config_init(&broken);
	tk_config_init(&none);
	parse_str("db: cfg.db\n", &fine, &err);
	parse_str("dbb: cfg.db\n", &broken, &err);
	expect_db(&broken, &e, "opt.db", "opt.db", TK_DB_FROM_OPTION, 0, "--db");
	expect_db(&broken, &e, "", "env.db", TK_DB_FROM_ENV, 0, "an empty --db: $TRACKER_DB");
	expect_db(&broken, &e, NULL, "env.db", TK_DB_FROM_ENV, 0, "$TRACKER_DB");
	e.tracker_db = "";
	expect_db(&fine, &e, NULL, "cfg.db", TK_DB_FROM_CONFIG, 0, "db:");
	expect_db(&broken, &e, NULL, "/xdg/tracker/history.db", TK_DB_FROM_DEFAULT, 1,
		  "a broken db: falls to the default, saying why");
	expect_db(&none, &e, NULL, "/xdg/tracker/history.db", TK_DB_FROM_DEFAULT, 0,
		  "no config: the default, no problem");
	e.xdg = NULL;
	expect_db(&none, &e, NULL, "/home/u/.local/share/tracker/history.db",
		  TK_DB_FROM_DEFAULT, 0, "without XDG_DATA_HOME: under HOME");
	e.home = NULL;
	expect_db(&none, &e, NULL, "./.local/share/tracker/history.db", TK_DB_FROM_DEFAULT, 0,
		  "without HOME: here");
	tk_config_release(&fine);
	tk_config_release(&broken);
	tk_config_release(&none);
}

int main(int argc, char **argv)
{
	find_fixtures(argc > 0 ? argv[0] : "");
	test_full();
	test_empty();
	test_anchors();
	test_bad_files();
	test_bad_strings();
	test_warn_files();
	test_suggestions();
	test_warning_order();
	test_error_keeps_config();
	test_relative_paths();
	test_find();
	test_db_problem();
	test_db_choice();
	tk_buf_release(&fixtures);
	return done_testing();
}
