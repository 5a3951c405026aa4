#ifndef TK_PLUGINS_RENDER_RENDERERS_H
#define TK_PLUGINS_RENDER_RENDERERS_H
/*
 * The flame graph renderers: each a const struct tk_renderer
 * (core/draw/render.h) in a file of this folder that exports only it. The
 * table of them is in renderers.c, the one file that names them: core/ and
 * cmd/ reach them only through the lookups core/draw/render.h declares. To
 * add one, write the file, declare it here, list it in the table, and test
 * it (plugins/README.md).
 */
#include "core/draw/render.h"

extern const struct tk_renderer tk_render_svg;
extern const struct tk_renderer tk_render_html;
extern const struct tk_renderer tk_render_png;
extern const struct tk_renderer tk_render_pdf;
extern const struct tk_renderer tk_render_folded;
extern const struct tk_renderer tk_render_txt;
extern const struct tk_renderer tk_render_pprof;
extern const struct tk_renderer tk_render_speedscope;

#endif
