/*
 * Check outputs (contract in core/pages/checkfmt.h).
 */
#include "core/base/outfmt.h"
#include "core/pages/checkfmt.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/table.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

static const struct tk_outfmt check_formats[] = {
	{ TK_CHECKFMT_TEXT, "text", NULL },
	{ TK_CHECKFMT_JSON, "json", NULL },
	{ TK_CHECKFMT_MARKDOWN, "markdown", NULL },
};

#define NR_CHECK_FORMATS (sizeof(check_formats) / sizeof(check_formats[0]))

int tk_checkfmt_parse(const char *name, enum tk_checkfmt *out, struct tk_err *err)
{
	const struct tk_outfmt *f = tk_outfmt_by_name(check_formats, NR_CHECK_FORMATS, name);
	struct tk_buf use = TK_BUF_INIT;

	if (f) {
		*out = (enum tk_checkfmt)f->id;
		return 0;
	}
	tk_outfmt_list(check_formats, NR_CHECK_FORMATS, 0, ", ", " or ", &use);
	tk_err_set(err, TK_EUSAGE, "unknown format '%s' (use %s)", name, use.buf);
	tk_buf_release(&use);
	return TK_EUSAGE;
}

/* ---- escaping: names by the rules of core/base/escape.h, NULL as "-" ---- */

static void esc_text(struct tk_buf *out, const char *s)
{
	if (!s)
		s = "-";
	tk_text_escape(out, s, strlen(s));
}

static void esc_markdown(struct tk_buf *out, const char *s)
{
	if (!s)
		tk_buf_adds(out, "-");
	else
		tk_md_escape(out, s, 0);
}

/* ---- pieces shared by text and markdown ---- */

static const char *metric_note(const struct tk_check_result *r, const struct tk_check_metric *m)
{
	if (r->note && m->result.verdict == TK_VERDICT_INSUFFICIENT)
		return r->note;
	if (m->note)
		return m->note;
	return m->result.note;
}

static void add_value(struct tk_buf *b, enum tk_metric m, double v, int have)
{
	if (have)
		tk_metric_format(b, m, v);
	else
		tk_buf_adds(b, "-");
}

static void add_number(struct tk_buf *b, double v)
{
	if (isinf(v))
		tk_buf_adds(b, v > 0 ? "inf" : "-inf");
	else if (fabs(v) >= 100)
		tk_buf_addf(b, "%.0f", v);
	else if (fabs(v) >= 0.1 || v == 0)
		tk_buf_addf(b, "%.2f", v);
	else
		tk_buf_addf(b, "%.2g", v);
}

/*
 * "t 9.81 > 3.14 (interval)", "t -4.2 < -3.14", "t 0.93 within ±3.14",
 * "+21.8% > 10% (percent)", "p 0.0035 <= 0.006 (mannwhitney)"
 */
static void add_test(struct tk_buf *b, const struct tk_verdict_result *v)
{
	const char *m = v->method ? v->method : "";
	int pct = !strcmp(m, "percent"), p = !strcmp(m, "mannwhitney");
	int beyond = p ? v->statistic <= v->threshold : fabs(v->statistic) > v->threshold;
	int neg = v->statistic < 0;

	if (v->verdict == TK_VERDICT_INSUFFICIENT) {
		tk_buf_addf(b, "- (%s)", m);
		return;
	}
	if (pct)
		tk_buf_addf(b, "%+.1f%%", v->statistic);
	else {
		tk_buf_adds(b, p ? "p " : !strcmp(m, "zscore") ? "z " : "t ");
		add_number(b, v->statistic);
	}
	if (p)
		tk_buf_adds(b, beyond ? " <= " : " > ");
	else if (!beyond)
		tk_buf_adds(b, " within ±");
	else
		tk_buf_adds(b, neg ? " < -" : " > ");
	if (pct)
		tk_buf_addf(b, "%g%%", v->threshold);
	else
		add_number(b, v->threshold);
	tk_buf_addf(b, " (%s)", m);
}

static void metric_cells(const struct tk_check_result *r, const struct tk_check_metric *m,
			 struct tk_buf cells[6])
{
	const struct tk_verdict_result *v = &m->result;
	int have_base = v->n > 0, have_cur = m->nr_values > 0;

	tk_buf_adds(&cells[0], tk_verdict_name(v->verdict));
	add_value(&cells[1], m->metric, v->base_median, have_base);
	if (have_base && v->verdict != TK_VERDICT_INSUFFICIENT)
		tk_buf_addf(&cells[1], " ±%.1f%%", v->base_spread * 100);
	add_value(&cells[2], m->metric, v->current, have_cur);
	if (have_base && have_cur)
		tk_buf_addf(&cells[3], "%+.1f%%", v->delta_pct);
	else
		tk_buf_adds(&cells[3], "-");
	add_test(&cells[4], v);
}

/* ---- text ---- */

static void run_label(struct tk_buf *b, const struct tk_check_run *run, int markdown)
{
	void (*esc)(struct tk_buf *, const char *) =
		markdown ? esc_markdown : esc_text;

	if (run->branch) {
		esc(b, run->branch);
		tk_buf_adds(b, " ");
	}
	if (run->build) {
		tk_buf_adds(b, "#");
		esc(b, run->build);
		tk_buf_adds(b, " ");
	}
	if (run->commit) {
		struct tk_buf c = TK_BUF_INIT;

		tk_buf_add(&c, run->commit, strnlen(run->commit, 10));
		esc(b, c.buf);
		tk_buf_adds(b, " ");
		tk_buf_release(&c);
	}
	tk_buf_addf(b, "(run %.8s)", run->id);
}

static void header_line(struct tk_buf *b, const struct tk_check_result *r, int markdown)
{
	void (*esc)(struct tk_buf *, const char *) =
		markdown ? esc_markdown : esc_text;

	esc(b, r->key);
	if (r->nr_current) {
		tk_buf_adds(b, ": ");
		run_label(b, &r->current[0], markdown);
		if (r->nr_current > 1)
			tk_buf_addf(b, " and %zu more run%s of the build", r->nr_current - 1,
				    r->nr_current > 2 ? "s" : "");
	}
	if (r->baseline_branch) {
		tk_buf_addf(b, " against %zu run%s of ", r->nr_base, r->nr_base == 1 ? "" : "s");
		esc(b, r->baseline_branch);
	}
	if (r->machine_class) {
		tk_buf_adds(b, ", machine class ");
		esc(b, r->machine_class);
	}
}

/* a commit's first 10 characters, escaped; "?" when unknown */
static void short_commit(struct tk_buf *b, const char *commit, int markdown)
{
	struct tk_buf c = TK_BUF_INIT;

	if (commit)
		tk_buf_add(&c, commit, strnlen(commit, 10));
	else
		tk_buf_adds(&c, "?");
	if (markdown)
		esc_markdown(b, c.buf);
	else
		esc_text(b, c.buf);
	tk_buf_release(&c);
}

/*
 * Result i's key, escaped for a table cell; with " on CLASS" when another
 * result of the output has the same key (a build that ran it on several
 * kinds of machine).
 */
static void key_cell(struct tk_buf *b, const struct tk_check_result *r, size_t nr, size_t i,
		     int markdown)
{
	void (*esc)(struct tk_buf *, const char *) =
		markdown ? esc_markdown : esc_text;
	size_t k;

	esc(b, r[i].key);
	if (!r[i].machine_class)
		return;
	for (k = 0; k < nr; k++)
		if (k != i && !strcmp(r[k].key, r[i].key)) {
			tk_buf_adds(b, " on ");
			esc(b, r[i].machine_class);
			return;
		}
}

static void change_cells(struct tk_table *t, const char *key, const struct tk_check_metric *m,
			 const struct tk_check_change *c)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_table_add(t, key);
	tk_table_add(t, tk_metric_name(m->metric));
	tk_buf_reset(&b);
	if (c->first.build) {
		tk_buf_adds(&b, "#");
		esc_text(&b, c->first.build);
	} else {
		tk_buf_addf(&b, "run %.8s", c->first.id);
	}
	tk_table_add(t, b.buf);
	tk_buf_reset(&b);
	short_commit(&b, c->last_before.commit, 0);
	tk_buf_adds(&b, "..");
	short_commit(&b, c->first.commit, 0);
	tk_table_add(t, b.buf);
	tk_buf_reset(&b);
	tk_metric_format(&b, m->metric, c->cp.before);
	tk_table_add(t, b.buf);
	tk_buf_reset(&b);
	tk_metric_format(&b, m->metric, c->cp.after);
	tk_table_add(t, b.buf);
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%+.1f%%", c->cp.before ? (c->cp.after / c->cp.before - 1) * 100 : 0);
	tk_table_add(t, b.buf);
	tk_buf_release(&b);
}

static void write_text(FILE *f, const struct tk_check_result *r, size_t nr, int history)
{
	static const char *const heads[] = { "key", "metric", "verdict", "baseline", "current",
					     "change", "test", "note" };
	static const unsigned char right[] = { 0, 0, 0, 1, 1, 1, 0, 0 };
	static const char *const cheads[] = { "key", "metric", "build", "commits", "before",
					      "after", "change" };
	static const unsigned char cright[] = { 0, 0, 0, 0, 1, 1, 1 };
	struct tk_table t, ct;
	struct tk_buf b = TK_BUF_INIT, cells[6];
	size_t i, k, c, n_changes = 0;

	if (!nr)
		return;
	for (k = 0; k < 6; k++)
		tk_buf_init(&cells[k], 0);
	tk_table_init(&t, 8, heads, right);
	tk_table_init(&ct, 7, cheads, cright);
	for (i = 0; i < nr; i++) {
		tk_buf_reset(&b);
		header_line(&b, &r[i], 0);
		fprintf(f, "%s\n", b.buf);
	}
	for (i = 0; i < nr; i++)
		for (k = 0; k < r[i].nr_metrics; k++) {
			const struct tk_check_metric *m = &r[i].metrics[k];
			const char *note = metric_note(&r[i], m);

			for (c = 0; c < 6; c++)
				tk_buf_reset(&cells[c]);
			metric_cells(&r[i], m, cells);
			tk_buf_reset(&b);
			key_cell(&b, r, nr, i, 0);
			tk_table_add(&t, b.buf);
			tk_table_add(&t, tk_metric_name(m->metric));
			for (c = 0; c < 5; c++)
				tk_table_add(&t, cells[c].buf);
			tk_table_add(&t, note ? note : "");
			for (c = 0; c < m->nr_changes; c++, n_changes++)
				change_cells(&ct, b.buf, m, &m->changes[c]);
		}
	if (nr)
		fputc('\n', f);
	tk_table_print(&t, f);
	if (history) {
		fprintf(f, "\nchange points of the baseline branch:%s\n", n_changes ? "" : " none");
		if (n_changes)
			tk_table_print(&ct, f);
	}
	tk_table_release(&t);
	tk_table_release(&ct);
	for (k = 0; k < 6; k++)
		tk_buf_release(&cells[k]);
	tk_buf_release(&b);
}

/* ---- markdown ---- */

/* "- warning: KEY: the current run's command differs ...", when it does. */
static void command_line(FILE *f, const struct tk_check_result *r)
{
	struct tk_buf say = TK_BUF_INIT, b = TK_BUF_INIT;

	tk_check_command_say(r, &say);
	if (say.len) {
		tk_buf_adds(&b, "- **warning**: ");
		esc_markdown(&b, r->key);
		tk_buf_adds(&b, ": ");
		tk_md_escape(&b, say.buf, 0);
		fprintf(f, "%s\n", b.buf);
	}
	tk_buf_release(&say);
	tk_buf_release(&b);
}

static void write_markdown(FILE *f, const struct tk_check_result *r, size_t nr, int history)
{
	struct tk_buf b = TK_BUF_INIT, cells[6];
	size_t i, k, c;
	int any_change = 0;

	for (k = 0; k < 6; k++)
		tk_buf_init(&cells[k], 0);
	fprintf(f, "### Performance check\n\n");
	if (!nr) {
		fprintf(f, "No run to check.\n");
		return;
	}
	for (i = 0; i < nr; i++) {
		tk_buf_reset(&b);
		header_line(&b, &r[i], 1);
		fprintf(f, "- %s\n", b.buf);
		command_line(f, &r[i]);
	}
	fprintf(f, "\n| key | metric | verdict | baseline | current | change | test | note |\n"
		   "| --- | --- | --- | ---: | ---: | ---: | --- | --- |\n");
	for (i = 0; i < nr; i++)
		for (k = 0; k < r[i].nr_metrics; k++) {
			const struct tk_check_metric *m = &r[i].metrics[k];
			const char *note = metric_note(&r[i], m);

			for (c = 0; c < 6; c++)
				tk_buf_reset(&cells[c]);
			metric_cells(&r[i], m, cells);
			tk_buf_reset(&b);
			key_cell(&b, r, nr, i, 1);
			fprintf(f, "| %s | %s | %s%s%s |", b.buf, tk_metric_name(m->metric),
				m->result.verdict == TK_VERDICT_REGRESSION ? "**" : "",
				cells[0].buf,
				m->result.verdict == TK_VERDICT_REGRESSION ? "**" : "");
			/* the cells and notes are tracker's own text */
			for (c = 1; c < 5; c++)
				fprintf(f, " %s |", cells[c].buf);
			fprintf(f, " %s |\n", note ? note : "");
			any_change |= m->nr_changes > 0;
		}
	if (history) {
		fprintf(f, "\n#### Change points of the baseline branch\n\n");
		if (!any_change)
			fprintf(f, "None.\n");
		else
			fprintf(f, "| key | metric | build | commits | before | after | change |\n"
				   "| --- | --- | --- | --- | ---: | ---: | ---: |\n");
		for (i = 0; i < nr; i++)
			for (k = 0; k < r[i].nr_metrics; k++)
				for (c = 0; c < r[i].metrics[k].nr_changes; c++) {
					const struct tk_check_metric *m = &r[i].metrics[k];
					const struct tk_check_change *ch = &m->changes[c];
					struct tk_buf v = TK_BUF_INIT;

					tk_buf_reset(&b);
					key_cell(&b, r, nr, i, 1);
					tk_buf_addf(&b, " | %s | ", tk_metric_name(m->metric));
					esc_markdown(&b, ch->first.build);
					tk_buf_adds(&b, " | ");
					short_commit(&b, ch->last_before.commit, 1);
					tk_buf_adds(&b, "..");
					short_commit(&b, ch->first.commit, 1);
					tk_metric_format(&v, m->metric, ch->cp.before);
					tk_buf_addf(&b, " | %s | ", v.buf);
					tk_buf_reset(&v);
					tk_metric_format(&v, m->metric, ch->cp.after);
					tk_buf_addf(&v, " | %+.1f%%", ch->cp.before
						    ? (ch->cp.after / ch->cp.before - 1) * 100 : 0);
					fprintf(f, "| %s%s |\n", b.buf, v.buf);
					tk_buf_release(&v);
				}
	}
	for (k = 0; k < 6; k++)
		tk_buf_release(&cells[k]);
	tk_buf_release(&b);
}

/* ---- json ---- */

static json_t *str_or_null(const char *s)
{
	struct tk_buf b = TK_BUF_INIT;
	json_t *j;

	if (!s)
		return json_null();
	if (tk_utf8_valid(s, strlen(s)))
		return json_string(s);
	tk_utf8_sanitize(&b, s, strlen(s));
	j = json_string(b.buf);
	tk_buf_release(&b);
	return j;
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *run_json(const struct tk_check_run *run)
{
	json_t *o = json_object();

	json_object_set_new(o, "run_id", json_string(run->id));
	json_object_set_new(o, "branch", str_or_null(run->branch));
	json_object_set_new(o, "build", str_or_null(run->build));
	json_object_set_new(o, "commit", str_or_null(run->commit));
	json_object_set_new(o, "machine_class", str_or_null(run->machine_class));
	return o;
}

static json_t *change_json(const struct tk_check_change *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "index", json_integer((json_int_t)c->cp.index));
	json_object_set_new(o, "build", str_or_null(c->first.build));
	json_object_set_new(o, "run_id", json_string(c->first.id));
	json_object_set_new(o, "commit", str_or_null(c->first.commit));
	json_object_set_new(o, "build_before", str_or_null(c->last_before.build));
	json_object_set_new(o, "commit_before", str_or_null(c->last_before.commit));
	json_object_set_new(o, "before", num_or_null(c->cp.before));
	json_object_set_new(o, "after", num_or_null(c->cp.after));
	json_object_set_new(o, "change_pct", num_or_null(c->cp.before ?
				    (c->cp.after / c->cp.before - 1) * 100 : NAN));
	return o;
}

static json_t *metric_json(const struct tk_check_result *r, const struct tk_check_metric *m,
			   int history)
{
	const struct tk_verdict_result *v = &m->result;
	int judged = v->verdict != TK_VERDICT_INSUFFICIENT;
	json_t *o = json_object(), *a;
	size_t c;

	json_object_set_new(o, "metric", json_string(tk_metric_name(m->metric)));
	json_object_set_new(o, "unit", json_string(tk_metric_unit(m->metric) ==
						   TK_METRIC_SECONDS ? "s" : "bytes"));
	json_object_set_new(o, "verdict", json_string(tk_verdict_name(v->verdict)));
	json_object_set_new(o, "method", str_or_null(v->method));
	json_object_set_new(o, "baseline_runs", json_integer((json_int_t)v->n));
	json_object_set_new(o, "baseline_median", v->n ? num_or_null(v->base_median) : json_null());
	json_object_set_new(o, "baseline_spread", judged ? num_or_null(v->base_spread) : json_null());
	json_object_set_new(o, "current", m->nr_values ? num_or_null(v->current) : json_null());
	json_object_set_new(o, "delta_pct", judged ? num_or_null(v->delta_pct) : json_null());
	json_object_set_new(o, "statistic", judged ? num_or_null(v->statistic) : json_null());
	json_object_set_new(o, "threshold", judged ? num_or_null(v->threshold) : json_null());
	json_object_set_new(o, "note", str_or_null(metric_note(r, m)));
	if (history) {
		a = json_array();
		for (c = 0; c < m->nr_changes; c++)
			json_array_append_new(a, change_json(&m->changes[c]));
		json_object_set_new(o, "series_runs", json_integer((json_int_t)m->series_n));
		json_object_set_new(o, "changepoints", a);
	}
	return o;
}

/* Only when the commands differ: outputs without it stay as they were. */
static json_t *command_json(const struct tk_check_result *r)
{
	const struct tk_check_command *c = &r->command;
	struct tk_buf say = TK_BUF_INIT;
	json_t *o = json_object();

	tk_check_command_say(r, &say);
	json_object_set_new(o, "differing", json_integer((json_int_t)c->differ));
	json_object_set_new(o, "of", json_integer((json_int_t)c->known));
	json_object_set_new(o, "current", str_or_null(c->current));
	json_object_set_new(o, "baseline", str_or_null(c->other));
	json_object_set_new(o, "note", str_or_null(say.buf));
	tk_buf_release(&say);
	return o;
}

static int write_json(FILE *f, const struct tk_check_result *r, size_t nr, int history,
		      struct tk_err *err)
{
	json_t *doc = json_object(), *results = json_array(), *o, *a;
	enum tk_verdict worst = TK_VERDICT_INSUFFICIENT, w;
	size_t i, k;
	int ret = 0;

	for (i = 0; i < nr; i++) {
		o = json_object();
		json_object_set_new(o, "key", str_or_null(r[i].key));
		json_object_set_new(o, "branch", str_or_null(r[i].branch));
		json_object_set_new(o, "baseline_branch", str_or_null(r[i].baseline_branch));
		json_object_set_new(o, "machine_class", str_or_null(r[i].machine_class));
		w = tk_check_worst(&r[i]);
		json_object_set_new(o, "verdict", json_string(tk_verdict_name(w)));
		if (w == TK_VERDICT_REGRESSION || (w == TK_VERDICT_IMPROVEMENT &&
						   worst != TK_VERDICT_REGRESSION) ||
		    (w == TK_VERDICT_NO_CHANGE && worst == TK_VERDICT_INSUFFICIENT))
			worst = w;
		json_object_set_new(o, "note", str_or_null(r[i].note));
		a = json_array();
		for (k = 0; k < r[i].nr_current; k++)
			json_array_append_new(a, run_json(&r[i].current[k]));
		json_object_set_new(o, "current", a);
		a = json_array();
		for (k = 0; k < r[i].nr_base; k++)
			json_array_append_new(a, run_json(&r[i].base[k]));
		json_object_set_new(o, "baseline", a);
		a = json_array();
		for (k = 0; k < r[i].nr_metrics; k++)
			json_array_append_new(a, metric_json(&r[i], &r[i].metrics[k], history));
		json_object_set_new(o, "metrics", a);
		if (r[i].command.differ)
			json_object_set_new(o, "command_differs", command_json(&r[i]));
		json_array_append_new(results, o);
	}
	json_object_set_new(doc, "format", json_string("tracker-check"));
	json_object_set_new(doc, "version", json_integer(1));
	json_object_set_new(doc, "verdict", json_string(tk_verdict_name(worst)));
	json_object_set_new(doc, "results", results);
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10)))
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the check's JSON");
	else
		fputc('\n', f);
	json_decref(doc);
	return ret;
}

int tk_checkfmt_write(FILE *f, enum tk_checkfmt fmt, const struct tk_check_result *r,
		      size_t nr, int history, struct tk_err *err)
{
	int ret = 0;

	switch (fmt) {
	case TK_CHECKFMT_JSON:
		ret = write_json(f, r, nr, history, err);
		break;
	case TK_CHECKFMT_MARKDOWN:
		write_markdown(f, r, nr, history);
		break;
	default:
		write_text(f, r, nr, history);
		break;
	}
	if (!ret && ferror(f))
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write the check's output");
	return ret;
}
