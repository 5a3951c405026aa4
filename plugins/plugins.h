#ifndef TK_PLUGINS_H
#define TK_PLUGINS_H
/*
 * The plugin registry: static tables of const descriptors, no dlopen.
 *
 * To add a plugin:
 *   1. write plugins/<kind>/<name>.c exporting one symbol, the descriptor
 *      (everything else static; its unit test may #include the .c);
 *   2. declare it below and list it in its table in plugins/registry.c
 *      (order matters for CI providers: the first to detect names the CI);
 *   3. add a unit test (tests/unit/t-<kind>-<name>.c or an entry in the
 *      kind's table-driven test) and fixtures under fixtures/;
 *   4. mention it in docs/ (docs/ci-providers.md, docs/stores.md, ...).
 * Optional plugins sit behind #ifdef TK_WITH_<NAME> and the table says
 * "built without <name>" through tk_store_open's error.
 */
#include "core/ci.h"
#include "core/diffrender.h"
#include "core/import.h"
#include "core/render.h"
#include "core/store.h"

extern const struct tk_ci_provider tk_ci_buildkite;
extern const struct tk_ci_provider tk_ci_github;
extern const struct tk_ci_provider tk_ci_gitlab;
extern const struct tk_ci_provider tk_ci_slurm;
extern const struct tk_ci_provider tk_ci_local;

extern const struct tk_store_ops tk_store_sqlite;

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

/* NULL-terminated tables. */
extern const struct tk_ci_provider *const tk_ci_providers[];
extern const struct tk_store_ops *const tk_store_backends[];
extern const struct tk_importer *const tk_importers[];
extern const struct tk_renderer *const tk_renderers[];
extern const struct tk_diff_renderer *const tk_diff_renderers[];

#endif
