/*
 * Content probes do not steal each other's files: every fixture and every
 * real-data file under ../shared is claimed by the right importer (the
 * first in tk_importers[] whose probe accepts its head, as tk_import_file
 * does). Real data is skipped when ../shared is absent.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "core/import.h"
#include "core/reader.h"
#include "plugins/plugins.h"
#include "tests/unit/tap.h"

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
	for (i = 0; tk_importers[i]; i++)
		if (tk_importers[i]->probe(head, len)) {
			name = tk_importers[i]->name;
			break;
		}
	tk_reader_close(&r);
	return name;
}

/* Checks every file in dir whose name contains `match` (NULL: all). */
static void check_dir(const char *dir, const char *match, const char *want)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];

	if (!d) {
		ok(1, "# SKIP %s absent", dir);
		return;
	}
	if (!tk_importer_find(want)) {
		ok(1, "# SKIP importer %s not built", want);
		closedir(d);
		return;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || (match && !strstr(e->d_name, match)) ||
		    strstr(e->d_name, ".md") || strstr(e->d_name, ".py"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		is_str(probed(path), want, "%s is probed as %s", path, want);
	}
	closedir(d);
}

/* Files of other formats are not claimed by the binary/JSON/HTML importers. */
static void check_not_mine(const char *dir)
{
	static const char *const mine[] = { "pprof", "speedscope", "cpuprofile", "profilecanvas" };
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[4096];
	size_t i;

	if (!d) {
		ok(1, "# SKIP %s absent", dir);
		return;
	}
	while ((e = readdir(d))) {
		const char *got;
		int stolen = 0;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		got = probed(path);
		for (i = 0; i < sizeof(mine) / sizeof(mine[0]); i++)
			stolen |= !strcmp(got, mine[i]);
		ok(!stolen, "%s is not claimed by a pprof/JSON/HTML importer (got %s)", path, got);
	}
	closedir(d);
}

int main(void)
{
	check_dir("fixtures/pprof", NULL, "pprof");
	check_dir("fixtures/speedscope", NULL, "speedscope");
	check_dir("fixtures/cpuprofile", NULL, "cpuprofile");
	check_dir("fixtures/profilecanvas", NULL, "profilecanvas");
	check_dir("fixtures/folded", NULL, "folded");
	check_dir("../shared/real-data/pprof", "speedscope_simple.prof", "pprof");
	check_dir("../shared/real-data/speedscope-json", NULL, "speedscope");
	check_dir("../shared/real-data/v8-cpuprofile", NULL, "cpuprofile");
	check_dir("../shared/real-data/folded", NULL, "folded");
	check_dir("../shared/real-data/perf-script", NULL, "perf");
	check_not_mine("../shared/real-data/other-formats");
	check_not_mine("../shared/real-data/dtrace");
	check_not_mine("../shared/real-data/diff-folded-golden");
	return done_testing();
}
