#include "plugins/plugins.h"

#include <stddef.h>

/* Order matters: the first provider that detects itself names the CI. */
const struct tk_ci_provider *const tk_ci_providers[] = {
	&tk_ci_buildkite,
	&tk_ci_github,
	&tk_ci_gitlab,
	&tk_ci_slurm,
	&tk_ci_local,
	NULL,
};

const struct tk_store_ops *const tk_store_backends[] = {
	&tk_store_sqlite,
	NULL,
};

/* Order matters for content probes: the most specific formats first,
 * folded (the loosest probe) last. */
const struct tk_importer *const tk_importers[] = {
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
const struct tk_renderer *const tk_renderers[] = {
	&tk_render_svg,
	&tk_render_html,
	&tk_render_png,
	&tk_render_pdf,
	&tk_render_folded,
	&tk_render_txt,
	NULL,
};

/* Picked by the output file's extension (tk_diff_renderer_for_path). */
const struct tk_diff_renderer *const tk_diff_renderers[] = {
	&tk_diffrender_folded,
	&tk_diffrender_txt,
	&tk_diffrender_html,
	&tk_diffrender_svg,
	&tk_diffrender_png,
	&tk_diffrender_pdf,
	NULL,
};
