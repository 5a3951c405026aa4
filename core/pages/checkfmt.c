/*
 * Check outputs (contract in core/pages/checkfmt.h).
 */
#include "core/base/outfmt.h"
#include "core/pages/checkfmt.h"
#include "core/pages/framehist.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "core/analyze/diffsum.h"
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

/* tracker check's two languages: the terminal's and markdown */
static enum tk_esc_lang lang_of(int markdown)
{
	return markdown ? TK_ESC_MARKDOWN : TK_ESC_TEXT;
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

static void add_value(struct tk_buf *b, enum tk_metric_unit unit, double v, int have)
{
	if (have)
		tk_metric_format_unit(b, unit, v);
	else
		tk_buf_adds(b, "-");
}

/* A run as a short name: "#14", else "run 1a2b3c4d". */
/* A note's language: a terminal's, markdown, or RAW for JSON, whose
 * strings keep exact values (jansson escapes them). */
#define RAW (-1)

static void say(struct tk_buf *b, int lang, const char *s)
{
	if (lang == RAW)
		tk_buf_adds(b, s ? s : "-");
	else
		tk_escape(b, (enum tk_esc_lang)lang, s);
}

static void run_short(struct tk_buf *b, const struct tk_check_run *run, int lang)
{
	if (run->build) {
		tk_buf_adds(b, "#");
		say(b, lang, run->build);
	} else {
		tk_buf_addf(b, "run %.8s", run->id);
	}
}

/*
 * The note of a metric: why it is not judged (a current run that did not
 * succeed, with its status), and where its baseline starts when a level
 * shift moved it ("baseline: 6 runs of main since #14").
 */
static void add_note(struct tk_buf *b, const struct tk_check_result *r,
		     const struct tk_check_metric *m, int lang)
{
	const char *note = metric_note(r, m);
	const struct tk_check_run *cur = r->nr_current ? &r->current[0] : NULL;

	if (!m->nr_values && cur && cur->status != TK_RUN_OK &&
	    cur->status != TK_RUN_STARTED) {
		tk_buf_adds(b, "the current run ");
		tk_check_add_outcome(b, cur);
	} else if (note) {
		tk_buf_adds(b, note);
	}
	if (m->since && m->result.verdict != TK_VERDICT_INSUFFICIENT) {
		tk_buf_addf(b, "%sbaseline: %zu run%s of ", b->len ? "; " : "", m->result.n,
			    m->result.n == 1 ? "" : "s");
		say(b, lang, r->baseline_branch);
		tk_buf_adds(b, " since ");
		run_short(b, m->since, lang);
	}
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
	add_value(&cells[1], m->unit, v->base_median, have_base);
	if (have_base && v->verdict != TK_VERDICT_INSUFFICIENT)
		tk_buf_addf(&cells[1], " ±%.1f%%", v->base_spread * 100);
	add_value(&cells[2], m->unit, v->current, have_cur);
	if (have_base && have_cur)
		tk_buf_addf(&cells[3], "%+.1f%%", v->delta_pct);
	else
		tk_buf_adds(&cells[3], "-");
	add_test(&cells[4], v);
}

/* ---- text ---- */

static void run_label(struct tk_buf *b, const struct tk_check_run *run, int markdown)
{
	enum tk_esc_lang lang = lang_of(markdown);

	if (run->branch) {
		tk_escape(b, lang, run->branch);
		tk_buf_adds(b, " ");
	}
	if (run->build) {
		tk_buf_adds(b, "#");
		tk_escape(b, lang, run->build);
		tk_buf_adds(b, " ");
	}
	if (run->commit) {
		struct tk_buf c = TK_BUF_INIT;

		tk_buf_add(&c, run->commit, strnlen(run->commit, 10));
		tk_escape(b, lang, c.buf);
		tk_buf_adds(b, " ");
		tk_buf_release(&c);
	}
	tk_buf_addf(b, "(run %.8s)", run->id);
}

static void header_line(struct tk_buf *b, const struct tk_check_result *r, int markdown)
{
	enum tk_esc_lang lang = lang_of(markdown);

	tk_escape(b, lang, r->key);
	if (r->nr_current) {
		tk_buf_adds(b, ": ");
		run_label(b, &r->current[0], markdown);
		if (r->nr_current > 1)
			tk_buf_addf(b, " and %zu more run%s of the build", r->nr_current - 1,
				    r->nr_current > 2 ? "s" : "");
	}
	if (r->baseline_branch) {
		tk_buf_addf(b, " against %zu run%s of ", r->nr_base, r->nr_base == 1 ? "" : "s");
		tk_escape(b, lang, r->baseline_branch);
	}
	if (r->machine_class) {
		tk_buf_adds(b, ", machine class ");
		tk_escape(b, lang, r->machine_class);
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
	tk_escape(b, lang_of(markdown), c.buf);
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
	enum tk_esc_lang lang = lang_of(markdown);
	size_t k;

	tk_escape(b, lang, r[i].key);
	if (!r[i].machine_class)
		return;
	for (k = 0; k < nr; k++)
		if (k != i && !strcmp(r[k].key, r[i].key)) {
			tk_buf_adds(b, " on ");
			tk_escape(b, lang, r[i].machine_class);
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
		tk_escape(&b, TK_ESC_TEXT, c->first.build);
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
	tk_metric_format_unit(&b, m->unit, c->cp.before);
	tk_table_add(t, b.buf);
	tk_buf_reset(&b);
	tk_metric_format_unit(&b, m->unit, c->cp.after);
	tk_table_add(t, b.buf);
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%+.1f%%", c->cp.before ? (c->cp.after / c->cp.before - 1) * 100 : 0);
	tk_table_add(t, b.buf);
	tk_buf_release(&b);
}

/* ---- the functions that moved ---- */

/* The verdict on k's profiles: its total's, or a regression when a
 * function grew and `frames: fail` asks; NULL when nothing judged it. */
static const char *kind_verdict(const struct tk_check_result *r, const struct tk_check_kind *k)
{
	const struct tk_check_metric *m = tk_check_kind_metric(r, k);

	if (r->frames == TK_CHECK_FRAMES_FAIL && k->frames_up)
		return tk_verdict_name(TK_VERDICT_REGRESSION);
	return m ? tk_verdict_name(m->result.verdict) : NULL;
}

void tk_checkfmt_kind_head(struct tk_buf *b, const struct tk_check_result *r,
			   const struct tk_check_kind *k, enum tk_esc_lang lang)
{
	static const char *const strong[][2] = {
		[TK_ESC_TEXT] = { "", "" },
		[TK_ESC_XML] = { "<b>", "</b>" },
		[TK_ESC_MARKDOWN] = { "**", "**" },
	};
	const char *v = kind_verdict(r, k);
	int s = v && !strcmp(v, tk_verdict_name(TK_VERDICT_REGRESSION));

	tk_buf_addf(b, "%s profile", k->kind);
	if (v)
		tk_buf_addf(b, " %s%s%s", s ? strong[lang][0] : "", v, s ? strong[lang][1] : "");
	tk_buf_adds(b, ": ");
	/* tracker's own text: a quantity and numbers */
	tk_buf_adds(b, k->headline ? k->headline : "");
}

void tk_checkfmt_frame(struct tk_buf *b, const struct tk_check_kind *k,
		       const struct tk_check_frame *f, enum tk_esc_lang lang)
{
	enum tk_unit unit = TK_UNIT_SAMPLES;

	tk_escape(b, lang, f->path);
	tk_buf_adds(b, " ");
	tk_diff_add_percent(b, f->base, f->now);
	tk_buf_adds(b, " (");
	tk_unit_parse(k->unit, &unit);
	tk_diff_add_value(b, unit, f->now - f->base, 1);
	tk_buf_adds(b, f->cumulative ? " in total)" : ")");
}

/*
 * Each kind of each result that changed: the head, then its functions,
 * one a line; the kinds that did not, in one line per verdict of their
 * totals ("cpu, alloc: no change, ..."; "not judged" when --metric left
 * the total out); a diff that could not be made, in a line.
 */
static void write_kinds(FILE *f, const struct tk_check_result *r, size_t nr, int markdown)
{
	struct tk_buf b = TK_BUF_INIT, same[5];
	const char *labels[5];
	size_t i, k, j, g, nr_groups, any = 0;

	for (i = 0; i < nr; i++)
		any += r[i].nr_kinds || r[i].frames_error;
	if (!any)
		return;
	for (g = 0; g < 5; g++)
		tk_buf_init(&same[g], 0);
	fprintf(f, markdown ? "\n#### Profiles against the baseline's\n\n"
			    : "\nprofiles against the baseline's:\n");
	for (i = 0; i < nr; i++) {
		nr_groups = 0;
		for (k = 0; k < r[i].nr_kinds; k++) {
			const struct tk_check_kind *kd = &r[i].kinds[k];
			const char *v = kind_verdict(&r[i], kd);

			if (!tk_check_kind_changed(&r[i], kd)) {
				v = v ? v : "not judged";
				for (g = 0; g < nr_groups && strcmp(labels[g], v); g++)
					;
				if (g == nr_groups && nr_groups < 5) {
					labels[nr_groups] = v;
					tk_buf_reset(&same[nr_groups++]);
				}
				if (g < nr_groups)
					tk_buf_addf(&same[g], "%s%s", same[g].len ? ", " : "",
						    kd->kind);
				continue;
			}
			tk_buf_reset(&b);
			key_cell(&b, r, nr, i, markdown);
			tk_buf_adds(&b, " ");
			tk_checkfmt_kind_head(&b, &r[i], kd, lang_of(markdown));
			fprintf(f, markdown ? "- %s\n" : "  %s\n", b.buf);
			for (j = 0; j < kd->nr_frames; j++) {
				tk_buf_reset(&b);
				tk_checkfmt_frame(&b, kd, &kd->frames[j], lang_of(markdown));
				fprintf(f, markdown ? "  - %s\n" : "      %s\n", b.buf);
			}
			if (!kd->nr_frames)
				fprintf(f, markdown ? "  - no function moved beyond the noise\n"
						    : "      no function moved beyond the noise\n");
		}
		for (g = 0; g < nr_groups; g++) {
			tk_buf_reset(&b);
			key_cell(&b, r, nr, i, markdown);
			fprintf(f, markdown ? "- %s %s: %s, no function moved beyond the noise\n"
					    : "  %s %s: %s, no function moved beyond the noise\n",
				b.buf, same[g].buf, labels[g]);
		}
		if (r[i].frames_error) {
			tk_buf_reset(&b);
			key_cell(&b, r, nr, i, markdown);
			tk_buf_adds(&b, ": ");
			tk_escape(&b, lang_of(markdown), r[i].frames_error);
			fprintf(f, markdown ? "- %s\n" : "  %s\n", b.buf);
		}
	}
	for (g = 0; g < 5; g++)
		tk_buf_release(&same[g]);
	tk_buf_release(&b);
}

static void write_hints(FILE *f, const struct tk_check_result *r, size_t nr, int markdown)
{
	struct tk_buf b = TK_BUF_INIT, cmd = TK_BUF_INIT;
	size_t i, k, c;
	int any = 0;

	for (i = 0; i < nr; i++)
		for (k = 0; k < r[i].nr_metrics; k++)
			for (c = 0; c < r[i].metrics[k].nr_changes; c++) {
				const struct tk_check_metric *m = &r[i].metrics[k];
				const struct tk_check_change *ch = &m->changes[c];

				if (!ch->frames_compared)
					continue;
				if (!any++)
					fprintf(f, markdown ? "\n#### Functions that moved at the change "
						"points\n\n" : "\nfunctions that moved at the change "
						"points:\n");
				tk_buf_reset(&b);
				key_cell(&b, r, nr, i, markdown);
				tk_buf_addf(&b, " %s at ", tk_metric_name(m->metric));
				if (ch->first.build) {
					tk_buf_adds(&b, "#");
					tk_escape(&b, lang_of(markdown), ch->first.build);
				} else {
					tk_buf_addf(&b, "run %.8s", ch->first.id);
				}
				tk_buf_addf(&b, " (%s profiles): ", ch->frames_kind);
				tk_framehist_add_moves(&b, lang_of(markdown), ch->frames, ch->nr_frames);
				tk_buf_reset(&cmd);
				tk_framehist_diff_command(&cmd, r[i].key, ch->last_before.id, ch->first.id,
							  ch->frames_kind);
				if (markdown) {
					fprintf(f, "- %s; diff: ", b.buf);
					tk_buf_reset(&b);
					tk_escape(&b, TK_ESC_MARKDOWN, cmd.buf);
					fprintf(f, "%s\n", b.buf);
				} else {
					fprintf(f, "  %s\n", b.buf);
					tk_buf_reset(&b);
					tk_escape(&b, TK_ESC_TEXT, cmd.buf);
					fprintf(f, "    %s\n", b.buf);
				}
			}
	tk_buf_release(&b);
	tk_buf_release(&cmd);
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

			for (c = 0; c < 6; c++)
				tk_buf_reset(&cells[c]);
			metric_cells(&r[i], m, cells);
			add_note(&cells[5], &r[i], m, TK_ESC_TEXT);
			tk_buf_reset(&b);
			key_cell(&b, r, nr, i, 0);
			tk_table_add(&t, b.buf);
			tk_table_add(&t, tk_metric_name(m->metric));
			for (c = 0; c < 6; c++)
				tk_table_add(&t, cells[c].buf);
			for (c = 0; c < m->nr_changes; c++, n_changes++)
				change_cells(&ct, b.buf, m, &m->changes[c]);
		}
	if (nr)
		fputc('\n', f);
	tk_table_print(&t, f);
	write_kinds(f, r, nr, 0);
	if (history) {
		fprintf(f, "\nchange points of the baseline branch:%s\n", n_changes ? "" : " none");
		if (n_changes)
			tk_table_print(&ct, f);
		write_hints(f, r, nr, 0);
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
		tk_escape(&b, TK_ESC_MARKDOWN, r->key);
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

			for (c = 0; c < 6; c++)
				tk_buf_reset(&cells[c]);
			metric_cells(&r[i], m, cells);
			add_note(&cells[5], &r[i], m, TK_ESC_MARKDOWN);
			tk_buf_reset(&b);
			key_cell(&b, r, nr, i, 1);
			fprintf(f, "| %s | %s | %s%s%s |", b.buf, tk_metric_name(m->metric),
				m->result.verdict == TK_VERDICT_REGRESSION ? "**" : "",
				cells[0].buf,
				m->result.verdict == TK_VERDICT_REGRESSION ? "**" : "");
			/* the cells and notes are tracker's own text */
			for (c = 1; c < 6; c++)
				fprintf(f, " %s |", cells[c].buf);
			fputc('\n', f);
			any_change |= m->nr_changes > 0;
		}
	write_kinds(f, r, nr, 1);
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
					tk_escape(&b, TK_ESC_MARKDOWN, ch->first.build);
					tk_buf_adds(&b, " | ");
					short_commit(&b, ch->last_before.commit, 1);
					tk_buf_adds(&b, "..");
					short_commit(&b, ch->first.commit, 1);
					tk_metric_format_unit(&v, m->unit, ch->cp.before);
					tk_buf_addf(&b, " | %s | ", v.buf);
					tk_buf_reset(&v);
					tk_metric_format_unit(&v, m->unit, ch->cp.after);
					tk_buf_addf(&v, " | %+.1f%%", ch->cp.before
						    ? (ch->cp.after / ch->cp.before - 1) * 100 : 0);
					fprintf(f, "| %s%s |\n", b.buf, v.buf);
					tk_buf_release(&v);
				}
		write_hints(f, r, nr, 1);
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

/* A statistic (a percentage, a spread, a test statistic) is an estimate:
 * six significant digits say all it knows ("-0.210709", not
 * "-0.2107094049"). */
static json_t *stat_or_null(double v)
{
	char tmp[32];

	if (!isfinite(v))
		return json_null();
	snprintf(tmp, sizeof(tmp), "%.6g", v);
	return json_real(strtod(tmp, NULL));
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

static json_t *change_json(const char *key, const struct tk_check_change *c)
{
	json_t *o = json_object(), *fr;
	struct tk_buf cmd = TK_BUF_INIT;
	size_t i;

	json_object_set_new(o, "index", json_integer((json_int_t)c->cp.index));
	json_object_set_new(o, "build", str_or_null(c->first.build));
	json_object_set_new(o, "run_id", json_string(c->first.id));
	json_object_set_new(o, "commit", str_or_null(c->first.commit));
	json_object_set_new(o, "build_before", str_or_null(c->last_before.build));
	json_object_set_new(o, "commit_before", str_or_null(c->last_before.commit));
	json_object_set_new(o, "before", num_or_null(c->cp.before));
	json_object_set_new(o, "after", num_or_null(c->cp.after));
	json_object_set_new(o, "change_pct", stat_or_null(c->cp.before ?
				    (c->cp.after / c->cp.before - 1) * 100 : NAN));
	/* the functions that moved: null when the runs have no frame totals */
	json_object_set_new(o, "frames_kind", str_or_null(c->frames_kind));
	fr = c->frames_compared ? json_array() : json_null();
	for (i = 0; c->frames_compared && i < c->nr_frames; i++) {
		const struct tk_frame_move *mv = &c->frames[i];
		json_t *m = json_object();

		json_object_set_new(m, "function", str_or_null(mv->name));
		json_object_set_new(m, "total", json_string(mv->cumulative ? "cumulative" : "self"));
		json_object_set_new(m, "unit", str_or_null(mv->unit));
		json_object_set_new(m, "before", num_or_null(mv->before));
		json_object_set_new(m, "after", num_or_null(mv->after));
		json_object_set_new(m, "change_pct", num_or_null(mv->before > 0 ?
				    (mv->after / mv->before - 1) * 100 : NAN));
		json_array_append_new(fr, m);
	}
	json_object_set_new(o, "frames", fr);
	if (c->frames_compared)
		tk_framehist_diff_command(&cmd, key, c->last_before.id, c->first.id, c->frames_kind);
	json_object_set_new(o, "diff_command", c->frames_compared ? str_or_null(cmd.buf)
							   : json_null());
	tk_buf_release(&cmd);
	return o;
}

static json_t *metric_json(const struct tk_check_result *r, const struct tk_check_metric *m,
			   int history)
{
	const struct tk_verdict_result *v = &m->result;
	int judged = v->verdict != TK_VERDICT_INSUFFICIENT;
	json_t *o = json_object(), *a;
	struct tk_buf note = TK_BUF_INIT;
	size_t c;

	json_object_set_new(o, "metric", json_string(tk_metric_name(m->metric)));
	json_object_set_new(o, "unit", json_string(m->unit == TK_METRIC_SECONDS ? "s" :
						   m->unit == TK_METRIC_BYTES ? "bytes" : "count"));
	json_object_set_new(o, "verdict", json_string(tk_verdict_name(v->verdict)));
	json_object_set_new(o, "method", str_or_null(v->method));
	json_object_set_new(o, "baseline_runs", json_integer((json_int_t)v->n));
	json_object_set_new(o, "baseline_median", v->n ? num_or_null(v->base_median) : json_null());
	json_object_set_new(o, "baseline_spread", judged ? stat_or_null(v->base_spread) : json_null());
	json_object_set_new(o, "current", m->nr_values ? num_or_null(v->current) : json_null());
	json_object_set_new(o, "delta_pct", judged ? stat_or_null(v->delta_pct) : json_null());
	json_object_set_new(o, "statistic", judged ? stat_or_null(v->statistic) : json_null());
	json_object_set_new(o, "threshold", judged ? stat_or_null(v->threshold) : json_null());
	tk_buf_reset(&note);
	add_note(&note, r, m, RAW);
	json_object_set_new(o, "note", note.len ? str_or_null(note.buf) : json_null());
	json_object_set_new(o, "since", m->since ? run_json(m->since) : json_null());
	tk_buf_release(&note);
	if (history) {
		a = json_array();
		for (c = 0; c < m->nr_changes; c++)
			json_array_append_new(a, change_json(r->key, &m->changes[c]));
		json_object_set_new(o, "series_runs", json_integer((json_int_t)m->series_n));
		json_object_set_new(o, "changepoints", a);
	}
	return o;
}

static json_t *kind_json(const struct tk_check_result *r, const struct tk_check_kind *k)
{
	const char *v = kind_verdict(r, k);
	json_t *o = json_object(), *a = json_array();
	size_t j;

	json_object_set_new(o, "kind", json_string(k->kind));
	json_object_set_new(o, "unit", str_or_null(k->unit));
	json_object_set_new(o, "quantity", str_or_null(k->quantity));
	json_object_set_new(o, "verdict", str_or_null(v));
	json_object_set_new(o, "headline", str_or_null(k->headline));
	json_object_set_new(o, "run_id", json_string(k->new_run.id));
	json_object_set_new(o, "baseline_runs", json_integer((json_int_t)k->nr_base));
	json_object_set_new(o, "baseline_total", num_or_null(k->base_total));
	json_object_set_new(o, "total", num_or_null(k->new_total));
	for (j = 0; j < k->nr_frames; j++) {
		const struct tk_check_frame *fr = &k->frames[j];
		json_t *fo = json_object();

		json_object_set_new(fo, "path", str_or_null(fr->path));
		json_object_set_new(fo, "weight", json_string(fr->cumulative ? "total" : "self"));
		json_object_set_new(fo, "baseline", num_or_null(fr->base));
		json_object_set_new(fo, "current", num_or_null(fr->now));
		json_object_set_new(fo, "change_pct", fr->base > 0
				    ? stat_or_null((fr->now / fr->base - 1) * 100) : json_null());
		json_object_set_new(fo, "new", json_boolean(fr->is_new));
		json_array_append_new(a, fo);
	}
	json_object_set_new(o, "functions", a);
	return o;
}

static const char *frames_name(int frames)
{
	switch (frames) {
	case TK_CHECK_FRAMES_OFF: return "off";
	case TK_CHECK_FRAMES_FAIL: return "fail";
	default: return "report";
	}
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
		json_object_set_new(o, "frames", json_string(frames_name(r[i].frames)));
		json_object_set_new(o, "frames_error", str_or_null(r[i].frames_error));
		a = json_array();
		for (k = 0; k < r[i].nr_kinds; k++)
			json_array_append_new(a, kind_json(&r[i], &r[i].kinds[k]));
		json_object_set_new(o, "profiles", a);
		if (r[i].command.differ)
			json_object_set_new(o, "command_differs", command_json(&r[i]));
		json_array_append_new(results, o);
	}
	json_object_set_new(doc, "format", json_string("tracker-check"));
	json_object_set_new(doc, "version", json_integer(1));
	json_object_set_new(doc, "verdict", json_string(tk_verdict_name(worst)));
	json_object_set_new(doc, "results", results);
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)))
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
