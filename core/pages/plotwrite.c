/*
 * History plots written (core/pages/histplot.h): a layout in the format
 * its file name asks for, each by its own writer: the SVG
 * (core/pages/chartsvg.h), the HTML page (core/pages/plothtml.h), PNG and
 * PDF (core/pages/chartcairo.h); all draw the charts the walk of
 * core/pages/chart.h decides.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/base/fsutil.h"
#include "core/base/outfmt.h"
#include "core/base/timeutil.h"
#include "core/draw/canvas.h"
#include "core/pages/chartcairo.h"
#include "core/pages/chartsvg.h"
#include "core/pages/histplot.h"
#include "core/pages/plotwrite.h"
#include "core/pages/plothtml.h"
#include "core/base/banned.h"

static const struct tk_outfmt plot_formats[] = {
	{ TK_PLOT_PNG, NULL, ".png" },
	{ TK_PLOT_SVG, NULL, ".svg" },
	{ TK_PLOT_PDF, NULL, ".pdf" },
	{ TK_PLOT_HTML, NULL, ".html" },
	{ TK_PLOT_HTML, NULL, ".htm" },
};

#define NR_PLOT_FORMATS (sizeof(plot_formats) / sizeof(plot_formats[0]))

int tk_plot_format_of(const char *path, enum tk_plot_format *out, struct tk_err *err)
{
	const struct tk_outfmt *f = tk_outfmt_by_path(plot_formats, NR_PLOT_FORMATS, path);
	struct tk_buf use = TK_BUF_INIT;

	if (f) {
		*out = (enum tk_plot_format)f->id;
		return 0;
	}
	tk_outfmt_list(plot_formats, NR_PLOT_FORMATS, 1, ", ", " or ", &use);
	tk_err_set(err, TK_EUSAGE, "cannot tell the plot's format from '%s' (use %s)", path,
		   use.buf);
	tk_buf_release(&use);
	return TK_EUSAGE;
}

int tk_plot_write(const struct tk_plot_layout *l, enum tk_plot_format fmt, const char *back,
		  FILE *out, struct tk_err *err)
{
	switch (fmt) {
	case TK_PLOT_SVG:
		return tk_chartsvg_file(l, out, err);
	case TK_PLOT_HTML:
		return tk_plot_html(l, back, out, err);
	case TK_PLOT_PNG:
	case TK_PLOT_PDF:
		break;
	}
	/* cairo's limit for an image surface, and so for the picture */
	if (l->height > 32767 || l->width > 32767)
		return tk_err_set(err, TK_EUSAGE, "%zu charts make a picture %.0f pixels tall, and "
				  "PNG and PDF are drawn at most 32767: plot fewer keys or "
				  "metrics, or write .svg or .html", l->nr, l->height);
	return tk_chartcairo_write(l, fmt == TK_PLOT_PDF ? TK_CANVAS_PDF : TK_CANVAS_PNG, out, err);
}

int tk_plot_write_path(const struct tk_plot_layout *l, const char *path, const char *back,
		       unsigned wflags, struct tk_err *err)
{
	enum tk_plot_format fmt;
	char *mem = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	ret = tk_plot_format_of(path, &fmt, err);
	if (ret)
		return ret;
	f = open_memstream(&mem, &len);
	if (!f)
		return tk_err_set(err, TK_EINTERNAL, "out of memory");
	ret = tk_plot_write(l, fmt, back, f, err);
	if (fclose(f) && !ret)
		ret = tk_err_set(err, TK_EINTERNAL, "out of memory");
	if (!ret)
		ret = tk_write_file_atomic_flags(path, mem, len, wflags, err);
	free(mem);
	return ret;
}

int tk_plot_history_to_path(const struct tk_key_history *h, struct tk_store *s,
			    int64_t since_us, const struct tk_plot_opts *o, const char *path,
			    struct tk_err *err)
{
	const char *keys[2] = { h->key, NULL };
	struct tk_run_query q;
	struct tk_plot_data d;
	struct tk_plot_layout l;
	int ret;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.since_us = since_us;
	tk_plot_data_init(&d);
	d.pipeline = o->pipeline;
	ret = tk_plot_data_load_history(&d, h, &q, err);
	if (!ret)
		ret = tk_plot_fill_profiles(&d, h, s, o, err);
	if (!ret && !d.nr)
		ret = tk_err_set(err, TK_EDATA, "no runs of key '%s' to plot", h->key);
	if (!ret)
		ret = tk_plot_layout(&d, o, &l, err);
	if (!ret) {
		ret = tk_plot_write_path(&l, path, NULL, 0, err);
		tk_plot_layout_release(&l);
	}
	tk_plot_data_release(&d);
	return ret;
}

/* The keys q asks for that have no run in d. */
static void find_missing(const struct tk_run_query *q, const struct tk_plot_data *d,
			 struct tk_plot_result *res)
{
	size_t i, j, alloc = 0;

	for (i = 0; q->keys && q->keys[i]; i++) {
		for (j = 0; j < d->nr && strcmp(d->keys[j].key, q->keys[i]); j++)
			;
		if (j < d->nr)
			continue;
		TK_ALLOC_GROW(res->missing, res->nr_missing + 1, alloc);
		res->missing[res->nr_missing++] = q->keys[i];
	}
}

struct plot_job {
	const struct tk_plot_layout *l;
	enum tk_plot_format fmt;
};

static int write_plot(FILE *out, void *data, struct tk_err *err)
{
	struct plot_job *j = data;

	return tk_plot_write(j->l, j->fmt, NULL, out, err);
}

int tk_plot_query_to_path(struct tk_store *s, const struct tk_run_query *q,
			  struct tk_plot_opts *o, const struct tk_ci_context *ci,
			  const struct tk_config *cfg, const char *path, unsigned wflags,
			  struct tk_plot_result *res, struct tk_err *err)
{
	struct tk_plot_data d;
	struct tk_plot_layout l;
	struct plot_job j;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = tk_plot_format_of(path, &j.fmt, err);
	if (ret)
		return ret;
	o->current_build = ci->build_number;
	tk_plot_data_init(&d);
	d.pipeline = ci->pipeline;
	ret = tk_plot_data_load(&d, s, q, err);
	res->nr_keys = d.nr;
	if (!ret && !d.nr) {
		struct tk_buf since = TK_BUF_INIT;

		tk_format_iso(&since, q->since_us);
		ret = tk_err_set(err, TK_EDATA, "no runs to plot%s%s", q->since_us ? " since " : "",
				 q->since_us ? since.buf : "");
		tk_buf_release(&since);
	}
	if (!ret)
		find_missing(q, &d, res);
	if (!ret)
		ret = tk_plot_fill_profiles(&d, NULL, s, o, err);
	if (!ret)
		ret = tk_plot_data_baselines(&d, s, o, ci, cfg, err);
	if (!ret)
		ret = tk_plot_layout(&d, o, &l, err);
	if (!ret && !l.drawn) {
		/* nothing to draw: an axis of 1970 says nothing */
		if (l.skipped)
			ret = tk_err_set(err, TK_EDATA, "no run to plot has a numeric build number "
					 "(--x build)");
		else
			ret = tk_err_set(err, TK_EDATA, "no run to plot has a figure of the metrics "
					 "asked (--metric)");
		tk_plot_layout_release(&l);
	} else if (!ret) {
		j.l = &l;
		ret = tk_write_file_stream(path, write_plot, &j, wflags, err);
		res->skipped = l.skipped;
		tk_plot_layout_release(&l);
	}
	tk_plot_data_release(&d);
	return ret;
}

void tk_plot_result_release(struct tk_plot_result *res)
{
	free(res->missing);
	memset(res, 0, sizeof(*res));
}
