#ifndef TK_PLOTPAGE_H
#define TK_PLOTPAGE_H
/*
 * What the plot renderers (core/plotrender.c), the plot page
 * (core/plothtml.c) and the dashboard (core/dashboard.c) share: text and
 * numbers for SVG, the plot as SVG, and the page. Callers outside these
 * files use core/histplot.h and core/dashboard.h instead.
 */
#include <stdio.h>

#include "core/base/buf.h"
#include "core/pages/histplot.h"
#include "core/draw/htmlout.h"

/* v with at most one decimal, trimmed ("12", "12.5"). */
void tk_plot_num(struct tk_buf *b, double v);
/*
 * The machine classes of l's runs, each once (NULL too, when a run has
 * none), in the order of the keys and their runs: the page's list of
 * classes. In a chart with several baseline series, the elements of
 * class j's series carry the class s-mc<j> in SVG. *names is malloc'd
 * (the caller frees it; its strings are the data's); returns how many.
 */
size_t tk_plot_page_classes(const struct tk_plot_layout *l, const char ***names);
/* The charts as one <svg id="plot"> element (standalone: with the XML
 * declaration, for a .svg file). */
void tk_plot_svg(struct tk_htmlout *w, const struct tk_plot_layout *l, int standalone);
/* The self-contained HTML page of l; back: the link above the charts
 * (our own file name, escaped anyway), NULL for none. */
int tk_plot_html(const struct tk_plot_layout *l, const char *back, FILE *out, struct tk_err *err);

#endif
