#ifndef TK_PLUGINS_H
#define TK_PLUGINS_H
/*
 * The plugin registry: static tables of const descriptors, no dlopen.
 *
 * To add a plugin:
 *   1. write plugins/<kind>/<name>.c exporting one symbol, the descriptor
 *      (everything else static; its unit test may #include the .c);
 *   2. declare it below and list it in its table in plugins/registry.c
 *      (order matters for CI providers: the first to detect names the CI,
 *      and for importers: the most specific probe first); core and the
 *      commands reach it only through the registry's lookups
 *      (tk_importer_find, tk_renderer_for_path, tk_ci_provider_at, ...);
 *   3. add a unit test (tests/unit/t-<kind>-<name>.c or an entry in the
 *      kind's table-driven test) and fixtures under fixtures/;
 *   4. mention it in docs/ (docs/ci-providers.md, docs/stores.md, ...).
 * Only plugins/registry.c includes this header (and a plugin's own unit
 * test): nothing in core/ or cmd/ names a descriptor or a table.
 */
#include "core/ci/ci.h"
#include "core/draw/diffrender.h"
#include "core/model/import.h"
#include "core/draw/render.h"
#include "core/store/store.h"

extern const struct tk_ci_provider tk_ci_buildkite;
extern const struct tk_ci_provider tk_ci_github;
extern const struct tk_ci_provider tk_ci_gitlab;
extern const struct tk_ci_provider tk_ci_slurm;
extern const struct tk_ci_provider tk_ci_local;

extern const struct tk_store_ops tk_store_sqlite;
extern const struct tk_store_ops tk_store_postgres;

extern const struct tk_importer tk_import_pprof;
extern const struct tk_importer tk_import_speedscope;
extern const struct tk_importer tk_import_cpuprofile;
extern const struct tk_importer tk_import_profilecanvas;
extern const struct tk_importer tk_import_perf;
extern const struct tk_importer tk_import_gperf_heap;
extern const struct tk_importer tk_import_gperf_cpu;
extern const struct tk_importer tk_import_nsys;
extern const struct tk_importer tk_import_dtrace;
extern const struct tk_importer tk_import_folded;

extern const struct tk_renderer tk_render_svg;
extern const struct tk_renderer tk_render_html;
extern const struct tk_renderer tk_render_png;
extern const struct tk_renderer tk_render_pdf;
extern const struct tk_renderer tk_render_folded;
extern const struct tk_renderer tk_render_txt;

extern const struct tk_diff_renderer tk_diffrender_folded;
extern const struct tk_diff_renderer tk_diffrender_txt;
extern const struct tk_diff_renderer tk_diffrender_html;
extern const struct tk_diff_renderer tk_diffrender_svg;
extern const struct tk_diff_renderer tk_diffrender_png;
extern const struct tk_diff_renderer tk_diffrender_pdf;

#endif
