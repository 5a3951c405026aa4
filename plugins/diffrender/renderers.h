#ifndef TK_PLUGINS_DIFFRENDER_RENDERERS_H
#define TK_PLUGINS_DIFFRENDER_RENDERERS_H
/*
 * The diff renderers: each a const struct tk_diff_renderer
 * (core/draw/diffrender.h) in a file of this folder that exports only it.
 * The table of them is in renderers.c, the one file that names them: core/
 * and cmd/ reach them only through the lookups core/draw/diffrender.h
 * declares. To add one, write the file, declare it here, list it in the
 * table, and test it (plugins/README.md).
 */
#include "core/draw/diffrender.h"

extern const struct tk_diff_renderer tk_diffrender_folded;
extern const struct tk_diff_renderer tk_diffrender_txt;
extern const struct tk_diff_renderer tk_diffrender_html;
extern const struct tk_diff_renderer tk_diffrender_svg;
extern const struct tk_diff_renderer tk_diffrender_png;
extern const struct tk_diff_renderer tk_diffrender_pdf;
extern const struct tk_diff_renderer tk_diffrender_pprof;

#endif
