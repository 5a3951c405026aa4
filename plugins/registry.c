/*
 * The registry: the tables of plugin descriptors and the lookups on
 * them, together. Core declares the lookups in its interface headers
 * (core/ci.h, core/store.h, core/import.h, core/render.h,
 * core/diffrender.h) and never names a table or a plugin: data flows
 * from core up to the plugins only through these functions.
 */
#include "plugins/plugins.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "core/base/banned.h"

/* Order matters: the first provider that detects itself names the CI. */
static const struct tk_ci_provider *const tk_ci_providers[] = {
	&tk_ci_buildkite,
	&tk_ci_github,
	&tk_ci_gitlab,
	&tk_ci_slurm,
	&tk_ci_local,
	NULL,
};

static const struct tk_store_ops *const tk_store_backends[] = {
	&tk_store_sqlite,
	&tk_store_postgres,
	NULL,
};

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
	NULL,
};

/* Picked by the output file's extension (tk_renderer_for_path). */
static const struct tk_renderer *const tk_renderers[] = {
	&tk_render_svg,
	&tk_render_html,
	&tk_render_png,
	&tk_render_pdf,
	&tk_render_folded,
	&tk_render_txt,
	NULL,
};

/* Picked by the output file's extension (tk_diff_renderer_for_path). */
static const struct tk_diff_renderer *const tk_diff_renderers[] = {
	&tk_diffrender_folded,
	&tk_diffrender_txt,
	&tk_diffrender_html,
	&tk_diffrender_svg,
	&tk_diffrender_png,
	&tk_diffrender_pdf,
	NULL,
};

#define COUNT(t) (sizeof(t) / sizeof((t)[0]) - 1)

const struct tk_ci_provider *tk_ci_provider_at(size_t i)
{
	return i < COUNT(tk_ci_providers) ? tk_ci_providers[i] : NULL;
}

const struct tk_store_ops *tk_store_backend_at(size_t i)
{
	return i < COUNT(tk_store_backends) ? tk_store_backends[i] : NULL;
}

const struct tk_store_ops *tk_store_backend_for(const char *url)
{
	size_t i;

	for (i = 0; tk_store_backends[i]; i++)
		if (tk_store_backends[i]->version == TK_STORE_OPS_VERSION &&
		    tk_store_backends[i]->accepts(url))
			return tk_store_backends[i];
	return NULL;
}

const struct tk_importer *tk_importer_at(size_t i)
{
	return i < COUNT(tk_importers) ? tk_importers[i] : NULL;
}

const struct tk_importer *tk_importer_find(const char *name)
{
	size_t i;

	for (i = 0; tk_importers[i]; i++)
		if (!strcmp(tk_importers[i]->name, name))
			return tk_importers[i];
	return NULL;
}

const struct tk_importer *tk_importer_probe(const char *head, size_t len)
{
	size_t i;

	for (i = 0; tk_importers[i]; i++)
		if (tk_importers[i]->probe(head, len))
			return tk_importers[i];
	return NULL;
}

/* The extension of path's last component, with its dot, or NULL. */
static const char *extension(const char *path)
{
	const char *slash = strrchr(path, '/');

	return strrchr(slash ? slash + 1 : path, '.');
}

const struct tk_renderer *tk_renderer_at(size_t i)
{
	return i < COUNT(tk_renderers) ? tk_renderers[i] : NULL;
}

const struct tk_renderer *tk_renderer_for_path(const char *path)
{
	const char *dot = extension(path);
	size_t i;

	for (i = 0; dot && tk_renderers[i]; i++)
		if (!strcasecmp(dot, tk_renderers[i]->ext))
			return tk_renderers[i];
	return NULL;
}

const struct tk_diff_renderer *tk_diff_renderer_at(size_t i)
{
	return i < COUNT(tk_diff_renderers) ? tk_diff_renderers[i] : NULL;
}

const struct tk_diff_renderer *tk_diff_renderer_for_path(const char *path)
{
	const char *dot = extension(path);
	size_t i;

	for (i = 0; dot && tk_diff_renderers[i]; i++)
		if (!strcasecmp(dot, tk_diff_renderers[i]->ext))
			return tk_diff_renderers[i];
	return NULL;
}
