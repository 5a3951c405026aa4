#ifndef TK_PLOTHTML_H
#define TK_PLOTHTML_H
/*
 * History charts as a self-contained HTML page: the charts as inline SVG
 * (core/pages/chartsvg.h), the runs as JSON, and a script for tooltips,
 * series toggles and zooming the time axis. Untrusted names reach the
 * page's text through tk_xml_text and its JSON through tk_html_json_str;
 * the script puts them in the document with textContent and links only
 * http(s) build URLs. The page's Content-Security-Policy runs only the
 * script whose hash it names.
 */
#include <stdio.h>

#include "core/base/err.h"
#include "core/pages/histplot.h"

/* The page of l written to out, then flushed; back: the link above the
 * charts (our own file name, escaped anyway), NULL for none. TK_EUNAVAIL
 * when a write failed. */
int tk_plot_html(const struct tk_plot_layout *l, const char *back, FILE *out, struct tk_err *err);

#endif
