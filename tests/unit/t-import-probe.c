/*
 * Content probes do not steal each other's files: every fixture of every
 * importer in the registry (tk_importer_at), and every real-data file under ../shared,
 * is taken by exactly the expected importer (the first in the registry (tk_importer_at)
 * whose probe accepts its head, as tk_import_file does).
 *
 * Each importer's inputs live in fixtures/<importer name>/; a directory
 * missing, or holding fewer or more inputs than the table below says,
 * fails, so a renamed or emptied directory cannot pass by asserting
 * nothing. An importer added to the registry is covered without editing
 * this file (it needs a fixture directory with at least one input); add
 * its count to fixture_counts[] to pin it.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/model/import.h"
#include "core/base/reader.h"
#include "plugins/import/importers.h"
#include "tests/unit/tap.h"

/* How many inputs fixtures/<importer>/ holds. */
static const struct {
	const char *importer;
	int count;
} fixture_counts[] = {
	{ "pprof", 3 },
	{ "speedscope", 3 },
	{ "cpuprofile", 1 },
	{ "profilecanvas", 4 },
	{ "nsys", 1 },
	{ "gperftools-heap", 2 },
	{ "gperftools-cpu", 2 },
	{ "perf", 3 },
	{ "dtrace", 2 },
	{ "folded", 10 },
};

/* Real data under ../shared/real-data: which importer takes each file. */
static const struct {
	const char *dir;
	const char *match; /* only files whose name contains this; NULL: all */
	const char *want;  /* "(none)": no importer may take it */
	int count;
} real_data[] = {
	{ "pprof", "speedscope_simple.prof", "pprof", 1 },
	{ "pprof", "heap.legacy", "gperftools-heap", 1 },
	{ "pprof", "cpu.legacy", "gperftools-cpu", 1 },
	{ "speedscope-json", NULL, "speedscope", 2 },
	{ "v8-cpuprofile", NULL, "cpuprofile", 1 },
	{ "folded", NULL, "folded", 2 },
	{ "perf-script", NULL, "perf", 8 },
	{ "dtrace", NULL, "dtrace", 2 },
	{ "diff-folded-golden", NULL, "folded", 4 },
	/* formats tracker does not read (callgrind, vtune, ghc, ...) */
	{ "other-formats", NULL, "(none)", 5 },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *probed(const char *path)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_reader r;
	const char *head, *name = "(none)";
	size_t len, i;

	if (tk_reader_open(&r, path, &err) || tk_reader_peek(&r, 4096, &head, &len, &err)) {
		tk_reader_close(&r);
		return "(unreadable)";
	}
	if (len > 4096)
		len = 4096;
	for (i = 0; tk_importer_at(i); i++)
		if (tk_importer_at(i)->probe(head, len)) {
			name = tk_importer_at(i)->name;
			break;
		}
	tk_reader_close(&r);
	return name;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Fixture directories also hold notes (README.md), the generators of
 * binary fixtures (gen.py, small.sql) and expected outputs (*.expected,
 * golden/): those are not inputs. */
static int is_input(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	if (name[0] == '.' || ends_with(name, ".md") || ends_with(name, ".py") ||
	    ends_with(name, ".expected") || ends_with(name, ".sql"))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Asserts that every input in dir whose name contains match is taken by
 * want; returns how many there were, -1 when dir cannot be read. */
static int check_dir(const char *dir, const char *match, const char *want)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (!is_input(dir, e->d_name) || (match && !strstr(e->d_name, match)))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		is_str(probed(path), want, "%s is taken by the right importer (%s)", path, want);
		n++;
	}
	closedir(d);
	return n;
}

static void check_fixtures(void)
{
	size_t i, j;

	for (i = 0; tk_importer_at(i); i++) {
		const char *name = tk_importer_at(i)->name;
		char dir[256];
		int n, want = -1;

		snprintf(dir, sizeof(dir), "fixtures/%s", name);
		for (j = 0; j < ARRAY_SIZE(fixture_counts); j++)
			if (!strcmp(fixture_counts[j].importer, name))
				want = fixture_counts[j].count;
		n = check_dir(dir, NULL, name);
		if (!ok(n >= 0, "importer %s has a fixture directory %s", name, dir))
			continue;
		if (want >= 0)
			is_int(n, want, "%s holds the %d inputs of %s", dir, want, name);
		else
			ok(n > 0, "%s holds at least one input of %s (%d)", dir, name, n);
	}
	/* Every pinned count belongs to an importer that is built. */
	for (j = 0; j < ARRAY_SIZE(fixture_counts); j++)
		ok(tk_importer_find(fixture_counts[j].importer) != NULL,
		   "importer %s of fixture_counts[] is in the registry",
		   fixture_counts[j].importer);
}

static void check_real_data(void)
{
	struct stat st;
	size_t i;

	if (stat("../shared/real-data", &st)) {
		skip((int)ARRAY_SIZE(real_data),
		     "../shared/real-data is absent (real data lives outside the repo)");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(real_data); i++) {
		char dir[256];
		int n;

		snprintf(dir, sizeof(dir), "../shared/real-data/%s", real_data[i].dir);
		n = check_dir(dir, real_data[i].match, real_data[i].want);
		is_int(n, real_data[i].count, "%s%s%s: %d files checked", dir,
		       real_data[i].match ? "/*" : "",
		       real_data[i].match ? real_data[i].match : "", real_data[i].count);
	}
}

int main(void)
{
	check_fixtures();
	check_real_data();
	return done_testing();
}
