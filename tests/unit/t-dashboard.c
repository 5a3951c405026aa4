/*
 * core/pages/dashboard.h: file names safe from any key, the index path, and
 * the same page from a store that lists its keys (TK_STORE_CTRL_KEYS) and
 * from one that does not; the sparkline of the current run's machine
 * class. The page itself is tested end to end (t2204, t2205, t2206).
 */
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>
#include <jansson.h>

#include "core/base/buf.h"
#include "core/pages/dashboard.h"
#include "core/model/run.h"
#include "tests/unit/tap.h"

static const struct tk_store_ops *real_ops;

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* A backend without the key list. */
static int no_keys_ctrl(struct tk_store *s, int op, void *arg, struct tk_err *err)
{
	if (op == TK_STORE_CTRL_KEYS)
		return tk_err_set(err, TK_EUSAGE, "no such operation");
	return real_ops->ctrl(s, op, arg, err);
}

static void put_walltime(struct tk_store *s, int n, const char *key, const char *mclass,
			 double walltime)
{
	struct tk_run r;
	struct tk_err err = TK_ERR_INIT;
	int inserted;

	tk_run_init(&r);
	snprintf(r.id, sizeof(r.id), "00000000-0000-4000-8000-%012d", n);
	r.key = tk_xstrdup(key);
	r.ci.branch = tk_xstrdup("main");
	r.ci.default_branch = tk_xstrdup("main");
	r.ci.build_number = tk_xstrdup("7");
	r.started_at_us = (int64_t)(1767225600 + n * 3600) * 1000000;
	r.walltime_s = walltime;
	r.maxrss_bytes = 1000000;
	r.tree_rss_bytes = 2000000;
	r.exit_code = 0;
	r.status = TK_RUN_OK;
	r.machine_class = mclass ? tk_xstrdup(mclass) : NULL;
	if (tk_store_put_run(s, &r, &inserted, &err))
		diag(err.msg);
	tk_run_release(&r);
}

static void put_class(struct tk_store *s, int n, const char *key, const char *mclass)
{
	put_walltime(s, n, key, mclass, 10 + n % 3);
}

static void put(struct tk_store *s, int n, const char *key)
{
	put_class(s, n, key, NULL);
}

static void test_fallback(void)
{
	char dir[] = "/tmp/t-dashboard.XXXXXX";
	struct tk_buf path = TK_BUF_INIT, a = TK_BUF_INIT, b = TK_BUF_INIT;
	struct tk_store_ops ops;
	struct tk_dashboard_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	int i;

	if (!mkdtemp(dir)) {
		skip(4, "no temporary directory");
		return;
	}
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		skip(4, "cannot open a store");
		return;
	}
	for (i = 0; i < 36; i++)
		put(s, i, i % 3 == 0 ? "ocean" : i % 3 == 1 ? "amip" : "land");
	tk_dashboard_opts_init(&o);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/a", dir);
	is_int(tk_dashboard_write(s, path.buf, &o, &err), 0, "the dashboard, keys listed by the store");
	is_int(o.nr_keys, 3, "three keys");
	real_ops = s->ops;
	ops = *s->ops;
	ops.ctrl = no_keys_ctrl;
	s->ops = &ops;
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/b", dir);
	is_int(tk_dashboard_write(s, path.buf, &o, &err), 0, "the dashboard, keys read from the runs");
	s->ops = real_ops;
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/a/index.html", dir);
	tk_buf_read_file(&a, path.buf, &err);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/b/index.html", dir);
	tk_buf_read_file(&b, path.buf, &err);
	ok(a.len > 1000 && a.len == b.len && !memcmp(a.buf, b.buf, a.len), "the same page");
	tk_store_close(s);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	tk_buf_release(&a);
	tk_buf_release(&b);
	tk_buf_release(&path);
}

/* A key of more runs than its chart has pixel columns: its page is
 * thinned and says how many runs it shows. */
static void test_thinned(void)
{
	char dir[] = "/tmp/t-dashboard.XXXXXX";
	struct tk_buf path = TK_BUF_INIT, page = TK_BUF_INIT, name = TK_BUF_INIT;
	struct tk_dashboard_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	const char *p;
	long shown = 0;
	int i;

	if (!mkdtemp(dir)) {
		skip(4, "no temporary directory");
		return;
	}
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		skip(4, "cannot open a store");
		return;
	}
	for (i = 0; i < 1000; i++)
		put(s, i, "big");
	tk_dashboard_opts_init(&o);
	o.plot.width = 300;
	o.plot.max_points = 100;
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/d", dir);
	is_int(tk_dashboard_write(s, path.buf, &o, &err), 0, "the dashboard of a 1000-run key");
	tk_dashboard_file_name(&name, "big");
	tk_buf_addf(&path, "/%s", name.buf);
	tk_buf_read_file(&page, path.buf, &err);
	p = page.len ? strstr(page.buf, " runs shown of 1000 ") : NULL;
	ok(p != NULL, "the key's page says how many of its 1000 runs it shows");
	if (p) {
		while (p > page.buf && p[-1] >= '0' && p[-1] <= '9')
			p--;
		shown = strtol(p, NULL, 10);
	}
	ok(shown > 0 && shown < 1000, "fewer runs shown (%ld)", shown);
	/* each run in the page's data starts with its time: [1767225600, ... */
	for (p = page.len ? page.buf : "", i = 0; (p = strstr(p, "[17")); p++)
		i++;
	is_int(i, (int)shown, "only the runs shown are in the page's data");
	/* every point a tooltip can name is a run of the page's data */
	{
		const char *start = page.len ? strstr(page.buf, "id=\"tk-data\">") : NULL;
		const char *end = start ? strstr(start, "</script>") : NULL;
		json_t *root = NULL, *runs, *charts, *c, *pts;
		size_t ci, j, bad = 0, npts = 0;

		if (start && end) {
			start += strlen("id=\"tk-data\">");
			root = json_loadb(start, (size_t)(end - start), 0, NULL);
		}
		runs = json_object_get(json_array_get(json_object_get(root, "keys"), 0), "runs");
		charts = json_object_get(root, "charts");
		is_int((int)json_array_size(runs), 1000, "the page's data has a place for each run");
		json_array_foreach(charts, ci, c) {
			pts = json_object_get(c, "p");
			for (j = 2; j < json_array_size(pts); j += 3, npts++)
				bad += !json_is_array(json_array_get(runs,
					(size_t)json_integer_value(json_array_get(pts, j))));
		}
		ok(npts > 0 && !bad, "each of the %zu points names a run in the data", npts);
		json_decref(root);
	}
	tk_store_close(s);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	tk_buf_release(&page);
	tk_buf_release(&name);
	tk_buf_release(&path);
}

/* The sparkline is the current run's machine class: 30 runs with no
 * class (recorded before classes; they match any, as in tracker check),
 * then 30 taking turns on cpu-large and cpu-small, the newest on
 * cpu-small. */
static void test_spark_class(void)
{
	char dir[] = "/tmp/t-dashboard.XXXXXX";
	struct tk_buf path = TK_BUF_INIT, page = TK_BUF_INIT;
	struct tk_dashboard_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	const char *p, *e;
	int i, n = 0;

	if (!mkdtemp(dir)) {
		skip(3, "no temporary directory");
		return;
	}
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		skip(3, "cannot open a store");
		return;
	}
	for (i = 0; i < 60; i++)
		put_class(s, i, "k", i < 30 ? NULL : i % 2 ? "cpu-small" : "cpu-large");
	tk_dashboard_opts_init(&o);
	o.plot.metrics[0] = TK_METRIC_WALLTIME;
	o.plot.nr_metrics = 1;
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/d", dir);
	is_int(tk_dashboard_write(s, path.buf, &o, &err), 0, "the dashboard of a key on two classes");
	tk_buf_addf(&path, "/index.html");
	tk_buf_read_file(&page, path.buf, &err);
	p = page.len ? strstr(page.buf, "stroke-width=\"1.2\" d=\"") : NULL;
	e = p ? strchr(p + 24, '"') : NULL;
	for (; p && p < e; p++)
		n += *p == 'M' || *p == 'L';
	is_int(n, 44, "the sparkline: 30 runs with no class and 14 on cpu-small");
	ok(page.len && strstr(page.buf, "<td>main \xc2\xb7 cpu-small</td>") != NULL,
	   "the row names the baseline branch and the class");
	tk_store_close(s);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	tk_buf_release(&page);
	tk_buf_release(&path);
}

static int safe(const char *name)
{
	const char *p;

	if (!*name || *name == '.')
		return 0;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return strlen(name) <= 60 + 14;
}

/* A key's first run: no baseline run yet, but the row shows its
 * current value (as tracker check does) and the verdict insufficient
 * data; the page's subtitle says "1 key". */
static void test_first_run(void)
{
	char dir[] = "/tmp/t-dashboard.XXXXXX";
	struct tk_buf path = TK_BUF_INIT, page = TK_BUF_INIT;
	struct tk_dashboard_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;

	if (!mkdtemp(dir)) {
		skip(4, "no temporary directory");
		return;
	}
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		skip(4, "cannot open a store");
		return;
	}
	put(s, 0, "first");
	tk_dashboard_opts_init(&o);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/d", dir);
	is_int(tk_dashboard_write(s, path.buf, &o, &err), 0, "the dashboard of a key's first run");
	tk_buf_addf(&path, "/index.html");
	tk_buf_read_file(&page, path.buf, &err);
	ok(page.len && strstr(page.buf, "<td class=\"num\">10.00 s</td><td class=\"num\">-</td>"),
	   "its current walltime, no change");
	ok(page.len && strstr(page.buf, ">insufficient data<"), "insufficient data");
	ok(page.len && strstr(page.buf, "1 key;") && !strstr(page.buf, "1 keys"),
	   "the subtitle: 1 key");
	tk_store_close(s);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	tk_buf_release(&page);
	tk_buf_release(&path);
}

/* A change is coloured only when its verdict is one; every sparkline
 * shades its baseline band; the key's whole name is on hover. */
static void test_delta_colour(void)
{
	char dir[] = "/tmp/t-dashboard.XXXXXX";
	struct tk_buf path = TK_BUF_INIT, page = TK_BUF_INIT;
	struct tk_dashboard_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	const char *slow, *steady;
	int i;

	if (!mkdtemp(dir)) {
		skip(4, "no temporary directory");
		return;
	}
	tk_buf_addf(&path, "%s/h.db", dir);
	if (tk_store_open(path.buf, &s, &err)) {
		skip(4, "cannot open a store");
		return;
	}
	for (i = 0; i < 20; i++) {
		put_walltime(s, i, "slow", NULL, 100 + i % 3);
		put_walltime(s, 100 + i, "steady", NULL, 100 + i % 3);
	}
	put_walltime(s, 20, "slow", NULL, 150);    /* +49%: a regression */
	put_walltime(s, 120, "steady", NULL, 102); /* +1%: no change */
	tk_dashboard_opts_init(&o);
	tk_buf_reset(&path);
	tk_buf_addf(&path, "%s/d", dir);
	is_int(tk_dashboard_write(s, path.buf, &o, &err), 0, "the dashboard of two keys");
	tk_buf_addf(&path, "/index.html");
	tk_buf_read_file(&page, path.buf, &err);
	slow = page.len ? strstr(page.buf, "<td class=\"key\" title=\"slow\">") : NULL;
	steady = page.len ? strstr(page.buf, "<td class=\"key\" title=\"steady\">") : NULL;
	ok(slow && steady, "each key's cell has its whole name as its title");
	ok(slow && strstr(slow, "<td class=\"num up\">+4") &&
	   (!steady || strstr(slow, "<td class=\"num up\">") < steady),
	   "the regression's change is coloured");
	ok(steady && strstr(steady, "<td class=\"num\">+1") && !strstr(steady, "num up"),
	   "a change of no change is plain");
	ok(page.len && strstr(page.buf, "<rect class=\"band\""), "a sparkline shades its band");
	tk_store_close(s);
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	tk_buf_release(&page);
	tk_buf_release(&path);
}

int main(void)
{
	static const char *const keys[] = {
		"amip", "../../etc/passwd", "<script>", "a b", ".hidden", "x/y",
		"\xc3\xa9t\xc3\xa9", "", "index",
	};
	struct tk_buf a = TK_BUF_INIT, b = TK_BUF_INIT;
	char long_key[500];
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		tk_buf_reset(&a);
		tk_dashboard_file_name(&a, keys[i]);
		ok(safe(a.buf), "'%s' -> %s", keys[i], a.buf);
	}
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, "amip");
	ok(!strncmp(a.buf, "amip-", 5) && strlen(a.buf) == 5 + 8 + 5, "a plain key keeps its name");
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, "a/b");
	tk_dashboard_file_name(&b, "a_b");
	ok(strcmp(a.buf, b.buf) != 0, "keys that clean to the same name differ by hash");
	memset(long_key, 'k', sizeof(long_key) - 1);
	long_key[sizeof(long_key) - 1] = 0;
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, long_key);
	ok(safe(a.buf), "a 499-byte key gets a short name");
	tk_buf_reset(&a);
	tk_dashboard_file_name(&a, "");
	ok(!strncmp(a.buf, "key-", 4), "an empty key: key-HASH");
	ok(tk_dashboard_index_path("out/index.html"), "out/index.html");
	ok(tk_dashboard_index_path("index.html"), "index.html");
	ok(!tk_dashboard_index_path("out/amip.html"), "not amip.html");
	ok(!tk_dashboard_index_path("out/myindex.html"), "not myindex.html");
	tk_buf_release(&a);
	tk_buf_release(&b);
	test_fallback();
	test_thinned();
	test_spark_class();
	test_first_run();
	test_delta_colour();
	return done_testing();
}
