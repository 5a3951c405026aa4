#ifndef TK_CHARTSVG_H
#define TK_CHARTSVG_H
/*
 * History charts as SVG: the painter of core/pages/chart.h that writes
 * our own SVG, text as text, for a .svg file and inline in the
 * interactive page (core/pages/plothtml.h). Untrusted names are escaped
 * by tk_xml_text (core/base/escape.h). The same layout gives the same
 * bytes. Nothing here prints except to the writer it is given.
 */
#include <stdio.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/draw/htmlout.h"
#include "core/pages/histplot.h"

/* v with at most one decimal, trimmed ("12", "12.5"): the SVG's numbers,
 * and those of the pages around it. */
void tk_chartsvg_num(struct tk_buf *b, double v);

/* The charts of l as one <svg id="plot"> element appended to w (with the
 * XML declaration before it when standalone: a .svg file). */
void tk_chartsvg_write(struct tk_htmlout *w, const struct tk_plot_layout *l, int standalone);

/* l as a .svg file written to out, then flushed. TK_EUNAVAIL when a
 * write failed. */
int tk_chartsvg_file(const struct tk_plot_layout *l, FILE *out, struct tk_err *err);

#endif
