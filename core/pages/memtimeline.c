/*
 * A run's memory timeline as a picture, a page and a list
 * (core/pages/memtimeline.h). The picture is decided once, by draw(),
 * which tells a small painter what to draw; the SVG painter writes
 * elements, the cairo one paints on a canvas (core/draw/canvas.h).
 */
#include "core/pages/memtimeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/escape.h"
#include "core/base/fsutil.h"
#include "core/base/outfmt.h"
#include "core/base/timeutil.h"
#include "core/draw/canvas.h"
#include "core/draw/htmlout.h"
#include "core/model/record.h"
#include "core/base/banned.h"

#define DEFAULT_WIDTH 900.0
#define HEIGHT 420.0
#define LEFT 84.0
#define RIGHT 30.0
#define TOP 54.0
#define BOTTOM 78.0
/* characters of a name shown in a label */
#define NAME_CHARS 60

#define C_RSS 0x1f77b4
#define C_CGROUP 0x2ca02c
#define C_PEAK 0xd62728
#define C_MARK 0x9467bd
#define C_AXIS 0x444444
#define C_GRID 0xdddddd
#define C_TEXT 0x222222

static const struct tk_outfmt formats[] = {
	{ TK_MEMTL_PNG, NULL, ".png" },
	{ TK_MEMTL_SVG, NULL, ".svg" },
	{ TK_MEMTL_PDF, NULL, ".pdf" },
	{ TK_MEMTL_HTML, NULL, ".html" },
	{ TK_MEMTL_HTML, NULL, ".htm" },
	{ TK_MEMTL_TABLE, "table", NULL },
	{ TK_MEMTL_CSV, "csv", NULL },
	{ TK_MEMTL_JSON, "json", NULL },
};

#define NR_FORMATS (sizeof(formats) / sizeof(formats[0]))

int tk_memtl_format_of(const char *path, enum tk_memtl_format *out, struct tk_err *err)
{
	const struct tk_outfmt *f = tk_outfmt_by_path(formats, NR_FORMATS, path);
	struct tk_buf use = TK_BUF_INIT;

	if (f) {
		*out = (enum tk_memtl_format)f->id;
		return 0;
	}
	tk_outfmt_list(formats, NR_FORMATS, 1, ", ", " or ", &use);
	tk_err_set(err, TK_EUSAGE, "cannot tell the timeline's format from '%s' (use %s)", path,
		   use.buf);
	tk_buf_release(&use);
	return TK_EUSAGE;
}

int tk_memtl_format_named(const char *name, enum tk_memtl_format *out, struct tk_err *err)
{
	const struct tk_outfmt *f = tk_outfmt_by_name(formats, NR_FORMATS, name);

	if (!f)
		return tk_err_set(err, TK_EUSAGE, "the timeline has no format '%s' (use table, "
				  "csv or json)", name);
	*out = (enum tk_memtl_format)f->id;
	return 0;
}

/* ---- loading ---- */

static int take_run(const struct tk_run *r, void *data)
{
	struct tk_run *out = data;
	struct tk_buf json = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	/* the callback's run lives during the call: keep a copy, through
	 * the record that carries every part of it */
	ret = tk_run_to_json(r, &json, &err);
	if (!ret)
		ret = tk_run_from_json(json.buf, json.len, "stored run", out, &err);
	tk_buf_release(&json);
	return ret ? 2 : 1;
}

int tk_memtl_load(struct tk_store *s, const char *run_id, struct tk_run *out,
		  struct tk_err *err)
{
	struct tk_run_query q;
	int ret, found = 0;

	memset(&q, 0, sizeof(q));
	q.run_id = run_id;
	q.limit = 1;
	ret = tk_store_query_runs(s, &q, take_run, out, err);
	if (ret < 0)
		return ret;
	if (ret == 2)
		return tk_err_set(err, TK_EINTERNAL, "cannot copy run %s", run_id);
	if (ret == 0)
		return tk_err_set(err, TK_EDATA, "no run %s", run_id);
	ret = tk_store_get_timeline(s, out->id, &out->timeline, &found, err);
	if (ret)
		return ret;
	if (!found || !out->timeline.nr)
		return tk_err_set(err, TK_EDATA, "run %s has no memory timeline (recorded with "
				  "--no-timeline, or by a tracker that kept none)", out->id);
	return 0;
}

/* ---- the picture, decided once ---- */

struct mark {
	const struct tk_sacct_step *step;
	double y, x_end; /* x_end: where its Elapsed is, at most the plot's right */
	double label_y;  /* its label's baseline: above its line, below the label
			    of a mark just above it */
	int ends_inside;
};

struct layout {
	const struct tk_run *run;
	double w, h, x0, y0, x1, y1;
	double t_max;   /* seconds at the right edge */
	double y_max;   /* bytes at the top */
	size_t peak;
	struct mark marks[TK_MEMTL_MARKS];
	size_t nr_marks, marks_left_out;
};

static double px(const struct layout *l, double t_s)
{
	return l->x0 + (l->x1 - l->x0) * t_s / l->t_max;
}

static double py(const struct layout *l, double bytes)
{
	return l->y1 - (l->y1 - l->y0) * bytes / l->y_max;
}

/* A step whose MaxRSS is the memory of code the job ran. */
static int marked(const struct tk_sacct_step *st)
{
	return st->maxrss_bytes >= 0 && st->kind != TK_SACCT_JOB && st->kind != TK_SACCT_EXTERN;
}

/* The TK_MEMTL_MARKS steps of largest MaxRSS, in the order sacct gave. */
static void pick_marks(struct layout *l)
{
	const struct tk_sacct *s = &l->run->slurm;
	size_t i, j, n = 0;

	for (i = 0; i < s->nr; i++) {
		const struct tk_sacct_step *st = &s->steps[i];
		size_t smaller = 0;

		if (!marked(st))
			continue;
		n++;
		/* how many marked steps are larger (ties: earlier wins) */
		for (j = 0; j < s->nr; j++)
			if (j != i && marked(&s->steps[j]) &&
			    (s->steps[j].maxrss_bytes > st->maxrss_bytes ||
			     (s->steps[j].maxrss_bytes == st->maxrss_bytes && j < i)))
				smaller++;
		if (smaller < TK_MEMTL_MARKS && l->nr_marks < TK_MEMTL_MARKS)
			l->marks[l->nr_marks++].step = st;
	}
	l->marks_left_out = n - l->nr_marks;
}

/* Labels of steps of close MaxRSS would be drawn over each other: from
 * the top down, each goes at least a line below the one above it. */
static void place_labels(struct layout *l)
{
	struct mark *order[TK_MEMTL_MARKS];
	size_t i, j;

	for (i = 0; i < l->nr_marks; i++) {
		struct mark *m = &l->marks[i];

		for (j = i; j > 0 && order[j - 1]->y > m->y; j--)
			order[j] = order[j - 1];
		order[j] = m;
	}
	for (i = 0; i < l->nr_marks; i++) {
		order[i]->label_y = order[i]->y - 4;
		if (i && order[i]->label_y < order[i - 1]->label_y + 12)
			order[i]->label_y = order[i - 1]->label_y + 12;
	}
}

static void lay_out(struct layout *l, const struct tk_run *r, double width)
{
	const struct tk_timeline *tl = &r->timeline;
	size_t i;

	memset(l, 0, sizeof(*l));
	l->run = r;
	l->w = width > 0 ? width : DEFAULT_WIDTH;
	l->h = HEIGHT;
	l->x0 = LEFT;
	l->x1 = l->w - RIGHT;
	l->y0 = TOP;
	l->y1 = l->h - BOTTOM;
	l->peak = tk_timeline_peak(tl);
	l->t_max = tl->nr ? (double)tl->p[tl->nr - 1].t_ms / 1000.0 : 0;
	if (r->walltime_s > l->t_max)
		l->t_max = r->walltime_s;
	for (i = 0; i < tl->nr; i++) {
		if ((double)tl->p[i].rss_bytes > l->y_max)
			l->y_max = (double)tl->p[i].rss_bytes;
		if ((double)tl->p[i].cgroup_bytes > l->y_max)
			l->y_max = (double)tl->p[i].cgroup_bytes;
	}
	pick_marks(l);
	for (i = 0; i < l->nr_marks; i++)
		if ((double)l->marks[i].step->maxrss_bytes > l->y_max)
			l->y_max = (double)l->marks[i].step->maxrss_bytes;
	if (l->t_max <= 0)
		l->t_max = 1;
	if (l->y_max <= 0)
		l->y_max = 1024 * 1024;
	l->y_max *= 1.12; /* room for the peak's label */
	for (i = 0; i < l->nr_marks; i++) {
		struct mark *m = &l->marks[i];
		double e = m->step->elapsed_s;

		m->y = py(l, (double)m->step->maxrss_bytes);
		m->ends_inside = e >= 0 && e <= l->t_max;
		m->x_end = m->ends_inside ? px(l, e) : l->x1;
	}
	place_labels(l);
}

enum anchor { START, MIDDLE, END };

struct painter {
	void *ctx;
	void (*line)(void *ctx, double x1, double y1, double x2, double y2, uint32_t colour,
		     double width, int dashed);
	/* the points joined; fill_to >= 0: also the area down to y fill_to */
	void (*poly)(void *ctx, const double *xy, size_t n, uint32_t colour, double fill_to);
	void (*dot)(void *ctx, double x, double y, double r, uint32_t colour);
	/* s untrusted, at most max characters of it */
	void (*text)(void *ctx, const char *s, size_t max, double x, double y, double size,
		     enum anchor a, uint32_t colour);
};

/* The binary unit the memory axis counts in, so its ticks are round
 * numbers of it (100 MiB, not 95.4 MiB). */
static double byte_unit(double max, const char **name)
{
	if (max >= 2.0 * 1024 * 1024 * 1024) {
		*name = "GiB";
		return 1024.0 * 1024 * 1024;
	}
	if (max >= 2.0 * 1024 * 1024) {
		*name = "MiB";
		return 1024.0 * 1024;
	}
	*name = "KiB";
	return 1024.0;
}

/* The unit the time axis counts in: its ticks are round numbers of it. */
static double time_unit(double max_s, const char **name)
{
	if (max_s >= 2.0 * 3600) {
		*name = "h";
		return 3600;
	}
	if (max_s >= 2.0 * 60) {
		*name = "min";
		return 60;
	}
	*name = "s";
	return 1;
}

static void label_seconds(double v, struct tk_buf *b)
{
	if (v == 0)
		tk_buf_adds(b, "0");
	else
		tk_format_duration(b, v);
}

static void draw_axes(const struct layout *l, const struct painter *p)
{
	double ticks[16];
	struct tk_buf b = TK_BUF_INIT;
	size_t i, n;

	const char *unit_name;
	double unit = byte_unit(l->y_max, &unit_name);

	n = tk_canvas_ticks(0, l->y_max / unit, 6, ticks);
	for (i = 0; i < n; i++) {
		double y = py(l, ticks[i] * unit);

		p->line(p->ctx, l->x0, y, l->x1, y, C_GRID, 1, 0);
		tk_buf_reset(&b);
		tk_buf_addf(&b, "%g %s", ticks[i], unit_name);
		p->text(p->ctx, b.buf, 0, l->x0 - 6, y + 4, 11, END, C_TEXT);
	}
	unit = time_unit(l->t_max, &unit_name);
	n = tk_canvas_ticks(0, l->t_max / unit, 8, ticks);
	for (i = 0; i < n; i++) {
		double x = px(l, ticks[i] * unit);

		p->line(p->ctx, x, l->y1, x, l->y1 + 5, C_AXIS, 1, 0);
		tk_buf_reset(&b);
		tk_buf_addf(&b, "%g %s", ticks[i], unit_name);
		p->text(p->ctx, b.buf, 0, x, l->y1 + 18, 11, MIDDLE, C_TEXT);
	}
	p->line(p->ctx, l->x0, l->y0, l->x0, l->y1, C_AXIS, 1, 0);
	p->line(p->ctx, l->x0, l->y1, l->x1, l->y1, C_AXIS, 1, 0);
	p->text(p->ctx, "time since the job started", 0, (l->x0 + l->x1) / 2, l->y1 + 36, 11,
		MIDDLE, C_TEXT);
	tk_buf_release(&b);
}

static void draw_series(const struct layout *l, const struct painter *p, int cgroup)
{
	const struct tk_timeline *tl = &l->run->timeline;
	double *xy = tk_xcalloc(2 * tl->nr + 2, sizeof(*xy));
	size_t i;

	for (i = 0; i < tl->nr; i++) {
		xy[2 * i] = px(l, (double)tl->p[i].t_ms / 1000.0);
		xy[2 * i + 1] = py(l, (double)(cgroup ? tl->p[i].cgroup_bytes : tl->p[i].rss_bytes));
	}
	p->poly(p->ctx, xy, tl->nr, cgroup ? C_CGROUP : C_RSS, cgroup ? -1 : l->y1);
	free(xy);
}

static void draw_marks(const struct layout *l, const struct painter *p)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t i;

	for (i = 0; i < l->nr_marks; i++) {
		const struct mark *m = &l->marks[i];
		const struct tk_sacct_step *st = m->step;

		p->line(p->ctx, l->x0, m->y, m->x_end, m->y, C_MARK, 1.5, 1);
		if (m->ends_inside)
			p->line(p->ctx, m->x_end, m->y - 6, m->x_end, m->y + 6, C_MARK, 2, 0);
		tk_buf_reset(&b);
		tk_buf_addf(&b, "step %s", st->job_id);
		if (st->name)
			tk_buf_addf(&b, " (%.*s)", NAME_CHARS, st->name);
		tk_buf_adds(&b, ": MaxRSS ");
		tk_format_bytes(&b, st->maxrss_bytes);
		if (st->elapsed_s >= 0) {
			tk_buf_adds(&b, ", elapsed ");
			tk_format_duration(&b, st->elapsed_s);
		}
		/* a label longer than its line starts at the axis instead (its
		 * width estimated a little wide, as a viewer lays Verdana out) */
		if (m->x_end - 4 - 0.62 * 10 * (double)tk_xml_chars(b.buf, b.len) < l->x0 + 4)
			p->text(p->ctx, b.buf, NAME_CHARS + 60, l->x0 + 4, m->label_y, 10, START,
				C_MARK);
		else
			p->text(p->ctx, b.buf, NAME_CHARS + 60, m->x_end - 4, m->label_y, 10, END,
				C_MARK);
	}
	tk_buf_release(&b);
}

static void draw_peak(const struct layout *l, const struct painter *p)
{
	const struct tk_timeline_point *pk = &l->run->timeline.p[l->peak];
	double x = px(l, (double)pk->t_ms / 1000.0), y = py(l, (double)pk->rss_bytes);
	struct tk_buf b = TK_BUF_INIT;
	enum anchor a = x > (l->x0 + l->x1) / 2 ? END : START;
	double ly = y - 8;
	size_t i;

	/* a step's mark just above the peak would run through its label:
	 * the label goes under the dot then */
	for (i = 0; i < l->nr_marks; i++)
		if (fabs(l->marks[i].y - (y - 12)) < 14)
			ly = y + 20;
	p->dot(p->ctx, x, y, 4.5, C_PEAK);
	tk_buf_adds(&b, "peak ");
	tk_format_bytes(&b, pk->rss_bytes);
	tk_buf_adds(&b, " at ");
	label_seconds((double)pk->t_ms / 1000.0, &b);
	p->text(p->ctx, b.buf, 0, a == END ? x - 8 : x + 8, ly, 12, a, C_PEAK);
	tk_buf_release(&b);
}

static void draw_legend(const struct layout *l, const struct painter *p)
{
	double x = l->x0, y = l->h - 16;

	p->line(p->ctx, x, y - 4, x + 22, y - 4, C_RSS, 2, 0);
	p->text(p->ctx, "process tree RSS", 0, x + 28, y, 11, START, C_TEXT);
	x += 150;
	if (l->run->timeline.has_cgroup) {
		p->line(p->ctx, x, y - 4, x + 22, y - 4, C_CGROUP, 2, 0);
		p->text(p->ctx, "cgroup memory", 0, x + 28, y, 11, START, C_TEXT);
		x += 140;
	}
	p->dot(p->ctx, x + 11, y - 4, 4.5, C_PEAK);
	p->text(p->ctx, "peak", 0, x + 28, y, 11, START, C_TEXT);
	x += 70;
	if (l->nr_marks) {
		struct tk_buf b = TK_BUF_INIT;

		p->line(p->ctx, x, y - 4, x + 22, y - 4, C_MARK, 1.5, 1);
		tk_buf_adds(&b, "sacct step MaxRSS until its Elapsed");
		if (l->marks_left_out)
			tk_buf_addf(&b, " (%zu smaller steps not drawn)", l->marks_left_out);
		p->text(p->ctx, b.buf, 0, x + 28, y, 11, START, C_TEXT);
		tk_buf_release(&b);
	}
}

static void title(const struct tk_run *r, struct tk_buf *b)
{
	tk_buf_addf(b, "memory of %s, run %.8s", r->key ? r->key : "?", r->id);
}

static void subtitle(const struct tk_run *r, struct tk_buf *b)
{
	const struct tk_timeline *tl = &r->timeline;

	if (r->started_at_us > 0) {
		tk_format_iso(b, r->started_at_us);
		tk_buf_adds(b, ", ");
	}
	tk_buf_addf(b, "%zu samples", tl->nr);
	if (tl->interval_ms > 0)
		tk_buf_addf(b, ", every %lld ms at the end", (long long)tl->interval_ms);
}

static void draw(const struct layout *l, const struct painter *p)
{
	struct tk_buf b = TK_BUF_INIT;

	title(l->run, &b);
	p->text(p->ctx, b.buf, NAME_CHARS + 30, l->w / 2, 22, 15, MIDDLE, C_TEXT);
	tk_buf_reset(&b);
	subtitle(l->run, &b);
	p->text(p->ctx, b.buf, 0, l->w / 2, 40, 11, MIDDLE, C_TEXT);
	draw_axes(l, p);
	draw_series(l, p, 0);
	if (l->run->timeline.has_cgroup)
		draw_series(l, p, 1);
	draw_marks(l, p);
	draw_peak(l, p);
	draw_legend(l, p);
	tk_buf_release(&b);
}

/* ---- SVG ---- */

static void rgb(struct tk_buf *b, uint32_t c)
{
	tk_buf_addf(b, "#%06x", (unsigned)c);
}

static void svg_line(void *ctx, double x1, double y1, double x2, double y2, uint32_t colour,
		     double width, int dashed)
{
	struct tk_buf *b = ctx;

	tk_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"", x1, y1,
		    x2, y2);
	rgb(b, colour);
	tk_buf_addf(b, "\" stroke-width=\"%.1f\"%s/>\n", width,
		    dashed ? " stroke-dasharray=\"6 4\"" : "");
}

static void svg_points(struct tk_buf *b, const double *xy, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		tk_buf_addf(b, "%s%.1f,%.1f", i ? " " : "", xy[2 * i], xy[2 * i + 1]);
}

static void svg_poly(void *ctx, const double *xy, size_t n, uint32_t colour, double fill_to)
{
	struct tk_buf *b = ctx;

	if (!n)
		return;
	if (fill_to >= 0) {
		tk_buf_addf(b, "<polygon points=\"%.1f,%.1f ", xy[0], fill_to);
		svg_points(b, xy, n);
		tk_buf_addf(b, " %.1f,%.1f\" fill=\"", xy[2 * (n - 1)], fill_to);
		rgb(b, colour);
		tk_buf_adds(b, "\" fill-opacity=\"0.15\" stroke=\"none\"/>\n");
	}
	tk_buf_adds(b, "<polyline class=\"series\" points=\"");
	svg_points(b, xy, n);
	tk_buf_adds(b, "\" fill=\"none\" stroke=\"");
	rgb(b, colour);
	tk_buf_adds(b, "\" stroke-width=\"2\" stroke-linejoin=\"round\"/>\n");
}

static void svg_dot(void *ctx, double x, double y, double r, uint32_t colour)
{
	struct tk_buf *b = ctx;

	tk_buf_addf(b, "<circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"", x, y, r);
	rgb(b, colour);
	tk_buf_adds(b, "\"/>\n");
}

static void svg_text(void *ctx, const char *s, size_t max, double x, double y, double size,
		     enum anchor a, uint32_t colour)
{
	static const char *const anchors[] = { "start", "middle", "end" };
	struct tk_buf *b = ctx;

	tk_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" text-anchor=\"%s\" "
		    "fill=\"", x, y, size, anchors[a]);
	rgb(b, colour);
	tk_buf_adds(b, "\">");
	tk_xml_text(b, s, 0, max);
	tk_buf_adds(b, "</text>\n");
}

static void svg(const struct layout *l, struct tk_buf *b)
{
	const struct painter p = { b, svg_line, svg_poly, svg_dot, svg_text };

	tk_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"timeline\" width=\"%.0f\" "
		    "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\">\n",
		    l->w, l->h, l->w, l->h);
	tk_buf_addf(b, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", l->w, l->h);
	draw(l, &p);
	tk_buf_adds(b, "</svg>\n");
}

/* ---- cairo ---- */

static void set_rgb(cairo_t *cr, uint32_t c, double a)
{
	cairo_set_source_rgba(cr, (c >> 16 & 255) / 255.0, (c >> 8 & 255) / 255.0,
			      (c & 255) / 255.0, a);
}

struct cairo_ctx {
	const struct tk_canvas *cv;
	const struct layout *l;
};

static void cr_line(void *ctx, double x1, double y1, double x2, double y2, uint32_t colour,
		    double width, int dashed)
{
	cairo_t *cr = ((struct cairo_ctx *)ctx)->cv->cr;
	static const double dash[] = { 6, 4 };

	set_rgb(cr, colour, 1);
	cairo_set_line_width(cr, width);
	if (dashed)
		cairo_set_dash(cr, dash, 2, 0);
	cairo_move_to(cr, x1, y1);
	cairo_line_to(cr, x2, y2);
	cairo_stroke(cr);
	if (dashed)
		cairo_set_dash(cr, NULL, 0, 0);
}

static void cr_poly(void *ctx, const double *xy, size_t n, uint32_t colour, double fill_to)
{
	cairo_t *cr = ((struct cairo_ctx *)ctx)->cv->cr;
	size_t i;

	if (!n)
		return;
	if (fill_to >= 0) {
		cairo_move_to(cr, xy[0], fill_to);
		for (i = 0; i < n; i++)
			cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
		cairo_line_to(cr, xy[2 * (n - 1)], fill_to);
		cairo_close_path(cr);
		set_rgb(cr, colour, 0.15);
		cairo_fill(cr);
	}
	cairo_move_to(cr, xy[0], xy[1]);
	for (i = 1; i < n; i++)
		cairo_line_to(cr, xy[2 * i], xy[2 * i + 1]);
	set_rgb(cr, colour, 1);
	cairo_set_line_width(cr, 2);
	cairo_stroke(cr);
}

static void cr_dot(void *ctx, double x, double y, double r, uint32_t colour)
{
	cairo_t *cr = ((struct cairo_ctx *)ctx)->cv->cr;

	cairo_new_sub_path(cr);
	cairo_arc(cr, x, y, r, 0, 2 * M_PI);
	set_rgb(cr, colour, 1);
	cairo_fill(cr);
}

static void cr_text(void *ctx, const char *s, size_t max, double x, double y, double size,
		    enum anchor a, uint32_t colour)
{
	const struct tk_canvas *cv = ((struct cairo_ctx *)ctx)->cv;
	struct tk_buf b = TK_BUF_INIT;
	cairo_text_extents_t ext;

	tk_canvas_add_utf8(&b, s, strlen(s), max ? max : 200);
	cairo_select_font_face(cv->cr, "Verdana", CAIRO_FONT_SLANT_NORMAL,
			       CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cv->cr, size);
	cairo_text_extents(cv->cr, b.buf, &ext);
	if (a == MIDDLE)
		x -= ext.x_advance / 2;
	else if (a == END)
		x -= ext.x_advance;
	set_rgb(cv->cr, colour, 1);
	cairo_move_to(cv->cr, x, y);
	cairo_show_text(cv->cr, b.buf);
	tk_buf_release(&b);
}

static void cairo_draw(void *arg)
{
	struct cairo_ctx *c = arg;
	const struct painter p = { c, cr_line, cr_poly, cr_dot, cr_text };

	cairo_set_source_rgb(c->cv->cr, 1, 1, 1);
	cairo_paint(c->cv->cr);
	draw(c->l, &p);
}

/* ---- the page ---- */

static const char page_style[] =
	"<style>body{font-family:Verdana,sans-serif;margin:16px;color:#222}"
	"h1{font-size:18px}table{border-collapse:collapse;margin-top:12px}"
	"td,th{border:1px solid #ccc;padding:2px 8px;font-size:12px;text-align:right}"
	"th{background:#f4f4f4}td.n{text-align:left}</style>\n";

static void page(const struct layout *l, struct tk_buf *b)
{
	const struct tk_run *r = l->run;
	const struct tk_timeline_point *pk = &r->timeline.p[l->peak];
	struct tk_buf t = TK_BUF_INIT;
	size_t i;

	title(r, &t);
	tk_buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		    "style-src 'unsafe-inline'\">\n<title>");
	tk_xml_text(b, t.buf, 0, 200);
	tk_buf_adds(b, "</title>\n");
	tk_buf_adds(b, page_style);
	tk_buf_adds(b, "</head><body>\n<h1>");
	tk_xml_text(b, t.buf, 0, 200);
	tk_buf_adds(b, "</h1>\n<p id=\"summary\">Peak ");
	tk_format_bytes(b, pk->rss_bytes);
	tk_buf_adds(b, " at ");
	label_seconds((double)pk->t_ms / 1000.0, b);
	tk_buf_adds(b, "; ");
	tk_buf_reset(&t);
	subtitle(r, &t);
	tk_xml_text(b, t.buf, 0, 0);
	tk_buf_adds(b, ". Run ");
	tk_xml_text(b, r->id, 0, 0);
	tk_buf_adds(b, ".</p>\n");
	svg(l, b);
	if (l->nr_marks) {
		tk_buf_adds(b, "<table id=\"steps\"><tr><th>step</th><th>name</th><th>MaxRSS</th>"
			    "<th>elapsed</th></tr>\n");
		for (i = 0; i < l->nr_marks; i++) {
			const struct tk_sacct_step *st = l->marks[i].step;

			tk_buf_adds(b, "<tr><td class=\"n\">");
			tk_xml_text(b, st->job_id, 0, NAME_CHARS);
			tk_buf_adds(b, "</td><td class=\"n\">");
			tk_xml_text(b, st->name, 0, NAME_CHARS);
			tk_buf_adds(b, "</td><td>");
			tk_format_bytes(b, st->maxrss_bytes);
			tk_buf_adds(b, "</td><td>");
			if (st->elapsed_s >= 0)
				tk_format_duration(b, st->elapsed_s);
			tk_buf_adds(b, "</td></tr>\n");
		}
		tk_buf_adds(b, "</table>\n");
	}
	tk_buf_adds(b, "</body></html>\n");
	tk_buf_release(&t);
}

/* ---- the lists ---- */

static void json(const struct layout *l, struct tk_buf *b)
{
	const struct tk_run *r = l->run;
	const struct tk_timeline *tl = &r->timeline;
	size_t i;

	tk_buf_adds(b, "{\n  \"run_id\": ");
	tk_html_json_cstr(b, r->id);
	tk_buf_adds(b, ",\n  \"key\": ");
	tk_html_json_cstr(b, r->key);
	tk_buf_adds(b, ",\n  \"interval_ms\": ");
	tk_html_json_int(b, tl->interval_ms);
	tk_buf_addf(b, ",\n  \"has_cgroup\": %s", tl->has_cgroup ? "true" : "false");
	tk_buf_addf(b, ",\n  \"peak\": {\"t_ms\": %lld, \"rss_bytes\": %lld}",
		    (long long)tl->p[l->peak].t_ms, (long long)tl->p[l->peak].rss_bytes);
	tk_buf_adds(b, ",\n  \"samples\": [");
	for (i = 0; i < tl->nr; i++) {
		tk_buf_addf(b, "%s\n    {\"t_ms\": %lld, \"rss_bytes\": %lld", i ? "," : "",
			    (long long)tl->p[i].t_ms, (long long)tl->p[i].rss_bytes);
		if (tl->has_cgroup)
			tk_buf_addf(b, ", \"cgroup_bytes\": %lld", (long long)tl->p[i].cgroup_bytes);
		tk_buf_adds(b, "}");
	}
	tk_buf_adds(b, "\n  ],\n  \"sacct_marks\": [");
	for (i = 0; i < l->nr_marks; i++) {
		const struct tk_sacct_step *st = l->marks[i].step;

		tk_buf_adds(b, i ? ",\n    {\"job_id\": " : "\n    {\"job_id\": ");
		tk_html_json_cstr(b, st->job_id);
		tk_buf_adds(b, ", \"name\": ");
		tk_html_json_cstr(b, st->name);
		tk_buf_addf(b, ", \"maxrss_bytes\": %lld, \"elapsed_s\": ",
			    (long long)st->maxrss_bytes);
		if (st->elapsed_s >= 0)
			tk_html_json_num(b, st->elapsed_s);
		else
			tk_buf_adds(b, "null");
		tk_buf_adds(b, "}");
	}
	tk_buf_adds(b, l->nr_marks ? "\n  ]\n}\n" : "]\n}\n");
}

static void csv(const struct tk_timeline *tl, struct tk_buf *b)
{
	size_t i;

	tk_buf_adds(b, "t_ms,rss_bytes,cgroup_bytes\n");
	for (i = 0; i < tl->nr; i++) {
		tk_buf_addf(b, "%lld,%lld,", (long long)tl->p[i].t_ms, (long long)tl->p[i].rss_bytes);
		if (tl->has_cgroup)
			tk_buf_addf(b, "%lld", (long long)tl->p[i].cgroup_bytes);
		tk_buf_addch(b, '\n');
	}
}

static void table(const struct layout *l, struct tk_buf *b)
{
	const struct tk_timeline *tl = &l->run->timeline;
	struct tk_buf cell = TK_BUF_INIT;
	size_t i;

	tk_buf_addf(b, "%10s  %12s%s\n", "TIME", "RSS", tl->has_cgroup ? "  CGROUP" : "");
	for (i = 0; i < tl->nr; i++) {
		tk_buf_reset(&cell);
		tk_buf_addf(&cell, "%.3f s", (double)tl->p[i].t_ms / 1000.0);
		tk_buf_addf(b, "%10s  ", cell.buf);
		tk_buf_reset(&cell);
		tk_format_bytes(&cell, tl->p[i].rss_bytes);
		tk_buf_addf(b, "%12s", cell.buf);
		if (tl->has_cgroup) {
			tk_buf_reset(&cell);
			tk_format_bytes(&cell, tl->p[i].cgroup_bytes);
			tk_buf_addf(b, "  %s", cell.buf);
		}
		tk_buf_adds(b, i == l->peak ? "  peak\n" : "\n");
	}
	tk_buf_release(&cell);
}

/* ---- writing ---- */

static int put(const struct tk_buf *b, FILE *out, struct tk_err *err)
{
	if ((b->len && fwrite(b->buf, 1, b->len, out) != b->len) || fflush(out) || ferror(out))
		return tk_err_set(err, TK_EUNAVAIL, "cannot write the memory timeline");
	return 0;
}

int tk_memtl_write(const struct tk_run *r, enum tk_memtl_format fmt, double width, FILE *out,
		   struct tk_err *err)
{
	struct layout l;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_canvas cv;
	struct cairo_ctx cc;
	int ret;

	if (!r->timeline.nr)
		return tk_err_set(err, TK_EDATA, "run %s has no memory timeline", r->id);
	lay_out(&l, r, width);
	switch (fmt) {
	case TK_MEMTL_PNG:
	case TK_MEMTL_PDF:
		tk_canvas_init(&cv, l.w, l.h, 11);
		/* dated by the run, so the same run makes the same bytes */
		if (r->started_at_us > 0) {
			tk_format_iso(&b, r->started_at_us);
			cv.pdf_date = b.buf;
		}
		cc.cv = &cv;
		cc.l = &l;
		ret = tk_canvas_render(&cv, fmt == TK_MEMTL_PDF ? TK_CANVAS_PDF : TK_CANVAS_PNG,
				       out, cairo_draw, &cc, err);
		tk_buf_release(&b);
		return ret;
	case TK_MEMTL_SVG:
		tk_buf_adds(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
		svg(&l, &b);
		break;
	case TK_MEMTL_HTML:
		page(&l, &b);
		break;
	case TK_MEMTL_JSON:
		json(&l, &b);
		break;
	case TK_MEMTL_CSV:
		csv(&r->timeline, &b);
		break;
	case TK_MEMTL_TABLE:
		table(&l, &b);
		break;
	}
	ret = put(&b, out, err);
	tk_buf_release(&b);
	return ret;
}

struct write_arg {
	const struct tk_run *r;
	enum tk_memtl_format fmt;
	double width;
};

static int write_one(FILE *out, void *data, struct tk_err *err)
{
	const struct write_arg *a = data;

	return tk_memtl_write(a->r, a->fmt, a->width, out, err);
}

int tk_memtl_write_path(const struct tk_run *r, const char *path, double width,
			struct tk_err *err)
{
	struct write_arg a = { r, TK_MEMTL_PNG, width };
	int ret = tk_memtl_format_of(path, &a.fmt, err);

	if (ret)
		return ret;
	return tk_write_file_stream(path, write_one, &a, TK_WRITE_NO_FSYNC, err);
}
