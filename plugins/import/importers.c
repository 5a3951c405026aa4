/*
 * The table of importers and its lookups (core/model/import.h). The i-th
 * descriptor is the i-th listed with this interface's version
 * (TK_IMPORTER_VERSION): one of another version is skipped, as if it were
 * not listed.
 */
#include "plugins/import/importers.h"

#include <stddef.h>
#include <string.h>

#include "core/base/banned.h"

/* Order matters for content probes: the most specific formats first,
 * folded (the loosest probe) last. */
static const struct tk_importer *const tk_importers[] = {
	&tk_import_pprof,
	&tk_import_speedscope,
	&tk_import_cpuprofile,
	&tk_import_profilecanvas,
	&tk_import_nsys,
	&tk_import_gperf_heap,
	&tk_import_gperf_cpu,
	&tk_import_perf,
	&tk_import_dtrace,
	&tk_import_folded,
};

#define NR (sizeof(tk_importers) / sizeof(tk_importers[0]))

const struct tk_importer *tk_importer_at(size_t i)
{
	size_t k;

	for (k = 0; k < NR; k++)
		if (tk_importers[k]->version == TK_IMPORTER_VERSION && !i--)
			return tk_importers[k];
	return NULL;
}

const struct tk_importer *tk_importer_find(const char *name)
{
	const struct tk_importer *im;
	size_t i;

	for (i = 0; (im = tk_importer_at(i)); i++)
		if (!strcmp(im->name, name))
			return im;
	return NULL;
}

const struct tk_importer *tk_importer_probe(const char *head, size_t len)
{
	const struct tk_importer *im;
	size_t i;

	for (i = 0; (im = tk_importer_at(i)); i++)
		if (im->probe(head, len))
			return im;
	return NULL;
}
