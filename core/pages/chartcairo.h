#ifndef TK_CHARTCAIRO_H
#define TK_CHARTCAIRO_H
/*
 * History charts as PNG or PDF: the painter of core/pages/chart.h that
 * paints with cairo on a canvas (core/draw/canvas.h). Text is only text
 * to cairo, drawn as a terminal shows it ("\xNN" for controls and bytes
 * of no valid UTF-8, core/draw/canvas.h). The same layout
 * gives the same bytes (the PDF dated by the layout's newest run).
 */
#include <stdio.h>

#include "core/base/err.h"
#include "core/draw/canvas.h"
#include "core/pages/histplot.h"

/*
 * Paints l as fmt and writes it to out (tk_canvas_render's errors:
 * TK_EINTERNAL when cairo cannot make a picture of l's size, TK_EUNAVAIL
 * when drawing or writing fails).
 */
int tk_chartcairo_write(const struct tk_plot_layout *l, enum tk_canvas_format fmt, FILE *out,
			struct tk_err *err);

#endif
