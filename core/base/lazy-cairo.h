#ifndef TK_LAZY_CAIRO_H
#define TK_LAZY_CAIRO_H
/*
 * cairo, loaded when the first picture is drawn (core/base/lazylib.h). Code
 * that draws includes this, not <cairo.h>: the cairo functions it calls
 * are the pointers of tk_cairo under their own names. tk_canvas_render
 * loads it; a test that calls cairo itself calls tk_cairo_load first.
 * A function not listed here is a link error: add it to the list.
 */
#include <cairo.h>
#include <cairo-pdf.h>

#include "core/base/err.h"

#define TK_CAIRO_FUNCS(X) \
	X(cairo_arc) \
	X(cairo_clip) \
	X(cairo_close_path) \
	X(cairo_create) \
	X(cairo_destroy) \
	X(cairo_fill) \
	X(cairo_fill_preserve) \
	X(cairo_font_options_create) \
	X(cairo_font_options_destroy) \
	X(cairo_font_options_set_antialias) \
	X(cairo_font_options_set_hint_metrics) \
	X(cairo_font_options_set_hint_style) \
	X(cairo_get_target) \
	X(cairo_image_surface_create) \
	X(cairo_image_surface_create_from_png) \
	X(cairo_image_surface_get_data) \
	X(cairo_image_surface_get_stride) \
	X(cairo_line_to) \
	X(cairo_move_to) \
	X(cairo_new_sub_path) \
	X(cairo_paint) \
	X(cairo_pattern_add_color_stop_rgb) \
	X(cairo_pattern_create_linear) \
	X(cairo_pattern_destroy) \
	X(cairo_pdf_surface_create_for_stream) \
	X(cairo_pdf_surface_set_metadata) \
	X(cairo_rectangle) \
	X(cairo_restore) \
	X(cairo_save) \
	X(cairo_select_font_face) \
	X(cairo_set_dash) \
	X(cairo_set_font_options) \
	X(cairo_set_font_size) \
	X(cairo_set_line_width) \
	X(cairo_set_source) \
	X(cairo_set_source_rgb) \
	X(cairo_set_source_rgba) \
	X(cairo_set_source_surface) \
	X(cairo_show_text) \
	X(cairo_status_to_string) \
	X(cairo_stroke) \
	X(cairo_surface_destroy) \
	X(cairo_surface_finish) \
	X(cairo_surface_flush) \
	X(cairo_surface_get_type) \
	X(cairo_surface_status) \
	X(cairo_surface_write_to_png_stream) \
	X(cairo_text_extents)

struct tk_cairo_api {
#define TK_CAIRO_PTR(f) __typeof__(f) *f;
	TK_CAIRO_FUNCS(TK_CAIRO_PTR)
#undef TK_CAIRO_PTR
};
extern struct tk_cairo_api tk_cairo;

/* Loads libcairo.so.2 (core/base/lazylib.h): 0, or TK_EUNAVAIL saying what
 * is missing. Call it before any of the functions below. */
int tk_cairo_load(struct tk_err *err);

#ifndef TK_LAZY_CAIRO_IMPL
#define cairo_arc (*tk_cairo.cairo_arc)
#define cairo_clip (*tk_cairo.cairo_clip)
#define cairo_close_path (*tk_cairo.cairo_close_path)
#define cairo_create (*tk_cairo.cairo_create)
#define cairo_destroy (*tk_cairo.cairo_destroy)
#define cairo_fill (*tk_cairo.cairo_fill)
#define cairo_fill_preserve (*tk_cairo.cairo_fill_preserve)
#define cairo_font_options_create (*tk_cairo.cairo_font_options_create)
#define cairo_font_options_destroy (*tk_cairo.cairo_font_options_destroy)
#define cairo_font_options_set_antialias (*tk_cairo.cairo_font_options_set_antialias)
#define cairo_font_options_set_hint_metrics (*tk_cairo.cairo_font_options_set_hint_metrics)
#define cairo_font_options_set_hint_style (*tk_cairo.cairo_font_options_set_hint_style)
#define cairo_get_target (*tk_cairo.cairo_get_target)
#define cairo_image_surface_create (*tk_cairo.cairo_image_surface_create)
#define cairo_image_surface_create_from_png (*tk_cairo.cairo_image_surface_create_from_png)
#define cairo_image_surface_get_data (*tk_cairo.cairo_image_surface_get_data)
#define cairo_image_surface_get_stride (*tk_cairo.cairo_image_surface_get_stride)
#define cairo_line_to (*tk_cairo.cairo_line_to)
#define cairo_move_to (*tk_cairo.cairo_move_to)
#define cairo_new_sub_path (*tk_cairo.cairo_new_sub_path)
#define cairo_paint (*tk_cairo.cairo_paint)
#define cairo_pattern_add_color_stop_rgb (*tk_cairo.cairo_pattern_add_color_stop_rgb)
#define cairo_pattern_create_linear (*tk_cairo.cairo_pattern_create_linear)
#define cairo_pattern_destroy (*tk_cairo.cairo_pattern_destroy)
#define cairo_pdf_surface_create_for_stream (*tk_cairo.cairo_pdf_surface_create_for_stream)
#define cairo_pdf_surface_set_metadata (*tk_cairo.cairo_pdf_surface_set_metadata)
#define cairo_rectangle (*tk_cairo.cairo_rectangle)
#define cairo_restore (*tk_cairo.cairo_restore)
#define cairo_save (*tk_cairo.cairo_save)
#define cairo_select_font_face (*tk_cairo.cairo_select_font_face)
#define cairo_set_dash (*tk_cairo.cairo_set_dash)
#define cairo_set_font_options (*tk_cairo.cairo_set_font_options)
#define cairo_set_font_size (*tk_cairo.cairo_set_font_size)
#define cairo_set_line_width (*tk_cairo.cairo_set_line_width)
#define cairo_set_source (*tk_cairo.cairo_set_source)
#define cairo_set_source_rgb (*tk_cairo.cairo_set_source_rgb)
#define cairo_set_source_rgba (*tk_cairo.cairo_set_source_rgba)
#define cairo_set_source_surface (*tk_cairo.cairo_set_source_surface)
#define cairo_show_text (*tk_cairo.cairo_show_text)
#define cairo_status_to_string (*tk_cairo.cairo_status_to_string)
#define cairo_stroke (*tk_cairo.cairo_stroke)
#define cairo_surface_destroy (*tk_cairo.cairo_surface_destroy)
#define cairo_surface_finish (*tk_cairo.cairo_surface_finish)
#define cairo_surface_flush (*tk_cairo.cairo_surface_flush)
#define cairo_surface_get_type (*tk_cairo.cairo_surface_get_type)
#define cairo_surface_status (*tk_cairo.cairo_surface_status)
#define cairo_surface_write_to_png_stream (*tk_cairo.cairo_surface_write_to_png_stream)
#define cairo_text_extents (*tk_cairo.cairo_text_extents)
#endif

#endif
