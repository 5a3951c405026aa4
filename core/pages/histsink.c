/*
 * The outputs of tracker history (core/pages/histsink.h): one format per entry
 * of formats[], each a begin, a run row, a job row and an end.
 *
 * Numbers in CSV are formatted without printf (see add_i64): history of
 * 10,000 runs spent most of its time in vfprintf.
 */
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/outfmt.h"
#include "core/pages/histsink.h"
#include "core/model/record.h"
#include "core/model/runfield.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

/*
 * One output format. begin and end frame the output (end also runs after
 * a failed query, to close a started document); run writes one run, with
 * the whole run in `full` when the format sets `full_runs`, else NULL;
 * job writes one --ranks row. They return 0 or a negative code with
 * h->err filled.
 */
struct tk_histsink_format {
	const char *name;
	int full_runs;
	void (*begin)(struct tk_histsink *h);
	int (*run)(struct tk_histsink *h, const struct tk_run_summary *r,
		   const struct tk_run *full);
	int (*job)(struct tk_histsink *h, const struct tk_rank_row *row);
	void (*end)(struct tk_histsink *h);
};

static const char *const table_headers[] = {
	"STARTED", "KEY", "BRANCH", "BUILD", "COMMIT", "WALL", "MAXRSS",
	"TREE_RSS", "STATUS",
};
static const unsigned char table_right[] = { 0, 0, 0, 1, 0, 1, 1, 1, 0 };

#define NR_TABLE_COLS (sizeof(table_headers) / sizeof(table_headers[0]))

/*
 * The CSV columns: each a field of the summary (core/model/runfield.h),
 * written as its type says, under history's own name. The documented
 * contract is the first ten columns; append, never reorder.
 */
struct csv_column {
	const char *name;
	const struct tk_run_field *field;
	int iso; /* an int64 time, as tk_format_iso writes it, not a number */
};

#define CSV(name, id, iso) { name, &tk_run_fields[TK_RF_##id], iso }

static const struct csv_column csv_columns[] = {
	CSV("run_id", ID, 0),
	CSV("key", KEY, 0),
	CSV("branch", BRANCH, 0),
	CSV("commit", COMMIT, 0),
	CSV("build", BUILD_NUMBER, 0),
	CSV("started_at", STARTED_AT_US, 1),
	CSV("walltime_s", WALLTIME_S, 0),
	CSV("maxrss_bytes", MAXRSS_BYTES, 0),
	CSV("tree_rss_bytes", TREE_RSS_BYTES, 0),
	CSV("exit_code", EXIT_CODE, 0),
	CSV("user_s", USER_S, 0),
	CSV("sys_s", SYS_S, 0),
	CSV("cgroup_peak_bytes", CGROUP_PEAK_BYTES, 0),
	CSV("signal", SIGNAL, 0),
	CSV("status", STATUS, 0),
	CSV("partial", PARTIAL, 0),
	CSV("provider", PROVIDER, 0),
	CSV("pipeline", PIPELINE, 0),
	CSV("host", HOST, 0),
	CSV("build_url", BUILD_URL, 0),
	CSV("started_at_us", STARTED_AT_US, 0),
	CSV("maxrss_source", MAXRSS_SOURCE, 0),
	CSV("tracker_version", TRACKER_VERSION, 0),
	CSV("wrapper_rss_bytes", WRAPPER_RSS_BYTES, 0),
	CSV("tree_samples", TREE_SAMPLES, 0),
	CSV("machine_class", MACHINE_CLASS, 0),
};

#define NR_CSV_COLS (sizeof(csv_columns) / sizeof(csv_columns[0]))

static void format_started(struct tk_buf *out, int64_t us)
{
	time_t t = (time_t)(us / 1000000);
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%d %H:%M", &tm);
	tk_buf_adds(out, s);
}

static void format_ending(struct tk_buf *out, enum tk_run_status status, int exit_code,
			  int term_signal)
{
	const char *sig;

	switch (status) {
	case TK_RUN_FAILED:
		tk_buf_addf(out, "failed %d", exit_code);
		break;
	case TK_RUN_SIGNALED:
		sig = term_signal > 0 ? sigabbrev_np(term_signal) : NULL;
		if (sig)
			tk_buf_addf(out, "SIG%s", sig);
		else
			tk_buf_addf(out, "signal %d", term_signal);
		break;
	default:
		tk_buf_adds(out, tk_run_status_name(status));
		break;
	}
}

static void format_status(struct tk_buf *out, const struct tk_run_summary *r)
{
	format_ending(out, r->status, r->exit_code, r->term_signal);
	if (r->partial)
		tk_buf_adds(out, " (partial)");
}

static void add_cell(struct tk_histsink *h,
		     void (*fmt)(struct tk_buf *, const struct tk_run_summary *),
		     const struct tk_run_summary *r)
{
	tk_buf_reset(&h->line);
	fmt(&h->line, r);
	tk_table_add(&h->table, h->line.buf);
}

static void cell_started(struct tk_buf *b, const struct tk_run_summary *r)
{
	format_started(b, r->started_at_us);
}

static void cell_commit(struct tk_buf *b, const struct tk_run_summary *r)
{
	if (r->commit)
		tk_buf_addf(b, "%.10s", r->commit);
	else
		tk_buf_addch(b, '-');
}

static void cell_wall(struct tk_buf *b, const struct tk_run_summary *r)
{
	tk_format_duration(b, r->walltime_s);
}

static void cell_maxrss(struct tk_buf *b, const struct tk_run_summary *r)
{
	tk_format_bytes(b, r->maxrss_bytes);
}

static void cell_tree(struct tk_buf *b, const struct tk_run_summary *r)
{
	tk_format_bytes(b, r->tree_rss_bytes);
}

static int table_run(struct tk_histsink *h, const struct tk_run_summary *r,
		     const struct tk_run *full)
{
	(void)full;
	add_cell(h, cell_started, r);
	tk_table_add(&h->table, r->key);
	tk_table_add(&h->table, r->branch);
	tk_table_add(&h->table, r->build_number);
	add_cell(h, cell_commit, r);
	add_cell(h, cell_wall, r);
	add_cell(h, cell_maxrss, r);
	add_cell(h, cell_tree, r);
	add_cell(h, format_status, r);
	return 0;
}

/*
 * Number formatting without printf: CSV of 10,000 runs spent most of its
 * time in vfprintf. Each gives exactly what the printf format named in its
 * comment gives.
 */

/* "%lld" */
static void add_i64(struct tk_buf *b, int64_t v)
{
	char s[24];
	size_t i = sizeof(s);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		s[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		s[--i] = '-';
	tk_buf_add(b, s + i, sizeof(s) - i);
}

/*
 * "%.6f" for 0 <= v < 1e6: v * 1e6 is then below 2^40, where its rounding
 * error (under 1e-4) cannot move it across a rounding boundary unless it
 * lies within 1e-3 of one; those and larger values go to printf, which
 * rounds the exact binary value.
 */
static void add_fixed6(struct tk_buf *b, double v)
{
	double r = v * 1e6, f;
	uint64_t u;
	char s[8];
	int i;

	if (!(v >= 0 && v < 1e6)) {
		tk_buf_addf(b, "%.6f", v);
		return;
	}
	u = (uint64_t)r;
	f = r - (double)u;
	if (f > 0.499 && f < 0.501) {
		tk_buf_addf(b, "%.6f", v);
		return;
	}
	if (f > 0.5)
		u++;
	add_i64(b, (int64_t)(u / 1000000));
	s[0] = '.';
	u %= 1000000;
	for (i = 6; i > 0; i--) {
		s[i] = (char)('0' + u % 10);
		u /= 10;
	}
	tk_buf_add(b, s, 7);
}

/* An unknown number is an empty cell; a number that is never unknown is
 * written whatever it is. */
static void add_number(struct tk_buf *b, const struct tk_run_field *f, int64_t v)
{
	if (v >= 0 || (f->flags & TK_RF_NEVER_UNKNOWN))
		add_i64(b, v);
}

static void csv_int(struct tk_buf *b, int64_t v)
{
	tk_buf_addch(b, ',');
	if (v >= 0)
		add_i64(b, v);
}

static void csv_real(struct tk_buf *b, double v)
{
	tk_buf_addch(b, ',');
	if (v >= 0)
		add_fixed6(b, v);
}

static void add_2(struct tk_buf *b, int v)
{
	char s[2] = { (char)('0' + v / 10), (char)('0' + v % 10) };

	tk_buf_add(b, s, 2);
}

/* tk_format_iso ("2024-02-10T08:00:00Z"), the date part computed once per
 * day: history lists runs in time order, so most rows share it. */
static void csv_iso(struct tk_histsink *h, struct tk_buf *b, int64_t us)
{
	int64_t s = us / 1000000, day, sec;

	if (us < 0 && us % 1000000)
		s--;
	day = s >= 0 ? s / 86400 : -((-s + 86399) / 86400);
	sec = s - day * 86400;
	if (!h->iso_date.len || day != h->iso_day) {
		tk_buf_reset(&h->iso_date);
		tk_format_iso(&h->iso_date, day * 86400 * 1000000);
		tk_buf_setlen(&h->iso_date, h->iso_date.len - 9); /* "00:00:00Z" */
		h->iso_day = day;
	}
	tk_buf_add(b, h->iso_date.buf, h->iso_date.len);
	add_2(b, (int)(sec / 3600));
	tk_buf_addch(b, ':');
	add_2(b, (int)(sec / 60 % 60));
	tk_buf_addch(b, ':');
	add_2(b, (int)(sec % 60));
	tk_buf_addch(b, 'Z');
}

static void csv_text(struct tk_buf *b, const char *s)
{
	tk_buf_addch(b, ',');
	tk_csv_text(b, s);
}

/* Column c of run r: its field's value, as its type says (a run id is
 * safe as it is). */
static void csv_cell(struct tk_histsink *h, struct tk_buf *b, const struct csv_column *c,
		     const struct tk_run_summary *r)
{
	const struct tk_run_field *f = c->field;
	const void *v = tk_run_field_sum(r, f);

	switch (f->type) {
	case TK_RFT_UUID:
		tk_csv_raw(b, *(const char *const *)v);
		break;
	case TK_RFT_STR:
		tk_csv_text(b, *(const char *const *)v);
		break;
	case TK_RFT_STATUS:
		tk_buf_adds(b, tk_run_status_name(*(const enum tk_run_status *)v));
		break;
	case TK_RFT_BOOL:
		tk_buf_addch(b, *(const int *)v ? '1' : '0');
		break;
	case TK_RFT_I64:
		if (c->iso)
			csv_iso(h, b, *(const int64_t *)v);
		else
			add_number(b, f, *(const int64_t *)v);
		break;
	case TK_RFT_INT:
		add_number(b, f, *(const int *)v);
		break;
	case TK_RFT_REAL:
		if (*(const double *)v >= 0)
			add_fixed6(b, *(const double *)v);
		break;
	case TK_RFT_PART:
		break;
	}
}

static int csv_run(struct tk_histsink *h, const struct tk_run_summary *r,
		   const struct tk_run *full)
{
	struct tk_buf *b = &h->line;
	size_t i;

	(void)full;
	tk_buf_reset(b);
	for (i = 0; i < NR_CSV_COLS; i++) {
		if (i)
			tk_buf_addch(b, ',');
		csv_cell(h, b, &csv_columns[i], r);
	}
	tk_buf_addch(b, '\n');
	fwrite(b->buf, 1, b->len, h->out);
	return 0;
}

/* Prints the record's "run" object, indented as an element of the array. */
static int json_run(struct tk_histsink *h, const struct tk_run_summary *sum,
		    const struct tk_run *r)
{
	const char *p, *nl;

	(void)sum;
	tk_buf_reset(&h->line);
	if (tk_run_to_json_flags(r, TK_RUN_JSON_RUN, &h->line, &h->err))
		return h->err.code;
	fputs(h->count ? ",\n  " : "\n  ", h->out);
	for (p = h->line.buf; (nl = strchr(p, '\n')); p = nl + 1) {
		fwrite(p, 1, (size_t)(nl + 1 - p), h->out);
		fputs("  ", h->out);
	}
	fputs(p, h->out);
	return 0;
}


/* ---- --ranks: one row per job ---- */

static const char *const ranks_headers[] = {
	"STARTED", "KEY", "BRANCH", "BUILD", "COMMIT", "JOB", "RANKS", "WALL",
	"MAXRSS", "MAXRSS_SUM", "TREE_RSS", "TREE_SUM", "STATUS",
};
static const unsigned char ranks_right[] = { 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0 };

#define NR_RANKS_COLS (sizeof(ranks_headers) / sizeof(ranks_headers[0]))

/* The first ten columns are history's contract, with a job's values in
 * them (the longest walltime, the largest peaks, the worst exit code). */
static const char ranks_csv_header[] =
	"run_id,key,branch,commit,build,started_at,walltime_s,maxrss_bytes,"
	"tree_rss_bytes,exit_code,rank_group,ranks,ntasks,maxrss_sum_bytes,"
	"tree_rss_sum_bytes,signal,status,not_ok_ranks,worst_rank,partial,"
	"started_at_us";

static const struct tk_rank_entry *worst_of(const struct tk_rank_row *row)
{
	return &row->e[row->worst];
}

/* "failed 3 (rank 2 of 4)": the worst ending, and which rank or how many
 * ranks did not end ok. */
static void format_job_status(struct tk_buf *b, const struct tk_rank_row *row)
{
	const struct tk_rank_entry *w = worst_of(row);

	format_ending(b, w->status, w->exit_code, w->term_signal);
	if (row->group && row->not_ok == 1)
		tk_buf_addf(b, " (rank %d of %zu)", w->rank, row->nr);
	else if (row->group && row->not_ok > 1)
		tk_buf_addf(b, " (%zu of %zu ranks)", row->not_ok, row->nr);
	if (row->partial)
		tk_buf_adds(b, " (partial)");
}

static void job_cell_bytes(struct tk_histsink *h, int64_t v)
{
	tk_buf_reset(&h->line);
	tk_format_bytes(&h->line, v);
	tk_table_add(&h->table, h->line.buf);
}

static int job_table_row(struct tk_histsink *h, const struct tk_rank_row *row)
{
	struct tk_buf *b = &h->line;

	tk_buf_reset(b);
	format_started(b, row->started_at_us);
	tk_table_add(&h->table, b->buf);
	tk_table_add(&h->table, row->key);
	tk_table_add(&h->table, row->branch);
	tk_table_add(&h->table, row->build_number);
	tk_buf_reset(b);
	if (row->commit)
		tk_buf_addf(b, "%.10s", row->commit);
	else
		tk_buf_addch(b, '-');
	tk_table_add(&h->table, b->buf);
	tk_table_add(&h->table, row->group);
	tk_buf_reset(b);
	if (row->group && row->ntasks > 0 && (size_t)row->ntasks != row->nr)
		tk_buf_addf(b, "%zu/%d", row->nr, row->ntasks);
	else if (row->group)
		tk_buf_addf(b, "%zu", row->nr);
	tk_table_add(&h->table, row->group ? b->buf : NULL);
	tk_buf_reset(b);
	tk_format_duration(b, row->walltime_s);
	tk_table_add(&h->table, b->buf);
	job_cell_bytes(h, row->maxrss_max);
	job_cell_bytes(h, row->maxrss_sum);
	job_cell_bytes(h, row->tree_rss_max);
	job_cell_bytes(h, row->tree_rss_sum);
	tk_buf_reset(b);
	format_job_status(b, row);
	tk_table_add(&h->table, b->buf);
	return 0;
}

static int job_csv_row(struct tk_histsink *h, const struct tk_rank_row *row)
{
	const struct tk_rank_entry *w = worst_of(row);
	struct tk_buf *b = &h->line;

	tk_buf_reset(b);
	/* a job is many runs: their ids are in the json output */
	if (!row->group)
		tk_csv_raw(b, row->e[0].id);
	csv_text(b, row->key);
	csv_text(b, row->branch);
	csv_text(b, row->commit);
	csv_text(b, row->build_number);
	tk_buf_addch(b, ',');
	tk_format_iso(b, row->started_at_us);
	csv_real(b, row->walltime_s);
	csv_int(b, row->maxrss_max);
	csv_int(b, row->tree_rss_max);
	csv_int(b, w->exit_code);
	csv_text(b, row->group);
	if (row->group) {
		tk_buf_addf(b, ",%zu", row->nr);
		csv_int(b, row->ntasks);
	} else {
		tk_buf_adds(b, ",,");
	}
	csv_int(b, row->maxrss_sum);
	csv_int(b, row->tree_rss_sum);
	tk_buf_addf(b, ",%d", w->term_signal);
	tk_buf_addf(b, ",%s", tk_run_status_name(w->status));
	if (row->group)
		tk_buf_addf(b, ",%zu,%d", row->not_ok, w->rank);
	else
		tk_buf_adds(b, ",,");
	tk_buf_addf(b, ",%d", row->partial);
	tk_buf_addf(b, ",%lld", (long long)row->started_at_us);
	tk_buf_addch(b, '\n');
	fwrite(b->buf, 1, b->len, h->out);
	return 0;
}

static json_t *json_str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *json_int_or_null(int64_t v)
{
	return v >= 0 ? json_integer(v) : json_null();
}

static json_t *json_real_or_null(double v)
{
	return v >= 0 ? json_real(v) : json_null();
}

static json_t *job_json_entry(const struct tk_rank_entry *e)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_string(e->id));
	json_object_set_new(o, "rank", json_int_or_null(e->rank));
	json_object_set_new(o, "started_at_us", json_integer(e->started_at_us));
	json_object_set_new(o, "walltime_s", json_real_or_null(e->walltime_s));
	json_object_set_new(o, "maxrss_bytes", json_int_or_null(e->maxrss_bytes));
	json_object_set_new(o, "tree_rss_bytes", json_int_or_null(e->tree_rss_bytes));
	json_object_set_new(o, "status", json_string(tk_run_status_name(e->status)));
	json_object_set_new(o, "exit_code", json_int_or_null(e->exit_code));
	json_object_set_new(o, "signal", json_integer(e->term_signal));
	json_object_set_new(o, "partial", json_boolean(e->partial));
	return o;
}

static int job_json_row(struct tk_histsink *h, const struct tk_rank_row *row)
{
	const struct tk_rank_entry *w = worst_of(row);
	json_t *o = json_object(), *runs = json_array();
	char *text, *p;
	size_t i;

	/* The strings come from JSON records, so they are UTF-8 already. */
	json_object_set_new(o, "key", json_str_or_null(row->key));
	json_object_set_new(o, "rank_group", json_str_or_null(row->group));
	json_object_set_new(o, "ranks", row->group ? json_integer((json_int_t)row->nr)
				 : json_null());
	json_object_set_new(o, "ntasks", json_int_or_null(row->group ? row->ntasks : -1));
	json_object_set_new(o, "branch", json_str_or_null(row->branch));
	json_object_set_new(o, "commit", json_str_or_null(row->commit));
	json_object_set_new(o, "build_number", json_str_or_null(row->build_number));
	json_object_set_new(o, "started_at_us", json_integer(row->started_at_us));
	json_object_set_new(o, "walltime_s", json_real_or_null(row->walltime_s));
	json_object_set_new(o, "maxrss_bytes", json_int_or_null(row->maxrss_max));
	json_object_set_new(o, "maxrss_sum_bytes", json_int_or_null(row->maxrss_sum));
	json_object_set_new(o, "tree_rss_bytes", json_int_or_null(row->tree_rss_max));
	json_object_set_new(o, "tree_rss_sum_bytes", json_int_or_null(row->tree_rss_sum));
	json_object_set_new(o, "status", json_string(tk_run_status_name(w->status)));
	json_object_set_new(o, "exit_code", json_int_or_null(w->exit_code));
	json_object_set_new(o, "signal", json_integer(w->term_signal));
	json_object_set_new(o, "partial", json_boolean(row->partial));
	json_object_set_new(o, "not_ok_ranks", row->group ?
			    json_integer((json_int_t)row->not_ok) : json_null());
	json_object_set_new(o, "worst_rank", json_int_or_null(row->group ? w->rank : -1));
	for (i = 0; i < row->nr; i++)
		json_array_append_new(runs, job_json_entry(&row->e[i]));
	json_object_set_new(o, "runs", runs);
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
	json_decref(o);
	if (!text)
		return tk_err_set(&h->err, TK_EINTERNAL, "cannot encode the job of run %s as JSON",
				  row->e[0].id);
	fputs(h->count ? ",\n  " : "\n  ", h->out);
	for (p = text; *p; p++) {
		fputc(*p, h->out);
		if (*p == '\n')
			fputs("  ", h->out);
	}
	free(text);
	return 0;
}

/* ---- the sinks ---- */

static void table_begin(struct tk_histsink *h)
{
	if (h->ranks)
		tk_table_init(&h->table, NR_RANKS_COLS, ranks_headers, ranks_right);
	else
		tk_table_init(&h->table, NR_TABLE_COLS, table_headers, table_right);
	/* a million runs would otherwise all be held to align the columns */
	tk_table_stream(&h->table, h->out, TK_HISTSINK_TABLE_WINDOW);
}

static void table_end(struct tk_histsink *h)
{
	if (h->count)
		tk_table_print(&h->table, h->out);
}

static void csv_begin(struct tk_histsink *h)
{
	size_t i;

	if (h->ranks) {
		fprintf(h->out, "%s\n", ranks_csv_header);
		return;
	}
	for (i = 0; i < NR_CSV_COLS; i++)
		fprintf(h->out, "%s%s", i ? "," : "", csv_columns[i].name);
	fputc('\n', h->out);
}

static void csv_end(struct tk_histsink *h)
{
	(void)h;
}

static void json_begin(struct tk_histsink *h)
{
	(void)h;
	fputc('[', h->out);
}

static void json_end(struct tk_histsink *h)
{
	fputs(h->count ? "\n]\n" : "]\n", h->out);
}

static const struct tk_histsink_format formats[] = {
	{ "table", 0, table_begin, table_run, job_table_row, table_end },
	{ "csv", 0, csv_begin, csv_run, job_csv_row, csv_end },
	{ "json", 1, json_begin, json_run, job_json_row, json_end },
};

/* The --format names, as every command picks an output (core/base/outfmt.h):
 * ids are indexes into formats[]. */
static const struct tk_outfmt format_names[] = {
	{ 0, "table", NULL },
	{ 1, "csv", NULL },
	{ 2, "json", NULL },
};

#define NR_FORMATS (sizeof(format_names) / sizeof(format_names[0]))

int tk_histsink_find_format(const char *name, struct tk_err *err)
{
	const struct tk_outfmt *f = tk_outfmt_by_name(format_names, NR_FORMATS, name);
	struct tk_buf use = TK_BUF_INIT;

	if (f)
		return f->id;
	tk_outfmt_list(format_names, NR_FORMATS, 0, ", ", " or ", &use);
	tk_err_set(err, TK_EUSAGE, "unknown format '%s' (use %s)", name, use.buf);
	tk_buf_release(&use);
	return TK_EUSAGE;
}

int tk_histsink_init(struct tk_histsink *h, const char *name, int ranks, FILE *out)
{
	int f = 0;

	memset(h, 0, sizeof(*h));
	tk_buf_init(&h->line, 256);
	tk_buf_init(&h->iso_date, 16);
	h->out = out;
	h->ranks = ranks;
	if (name)
		f = tk_histsink_find_format(name, &h->err);
	if (f < 0)
		return f;
	h->fmt = &formats[f];
	return 0;
}

int tk_histsink_full_runs(const struct tk_histsink *h)
{
	return h->fmt->full_runs && !h->ranks;
}

void tk_histsink_begin(struct tk_histsink *h)
{
	h->fmt->begin(h);
}

int tk_histsink_add_summary(const struct tk_run_summary *r, void *data)
{
	struct tk_histsink *h = data;
	int ret;

	if (h->ranks) {
		tk_rank_rows_add(&h->jobs, r);
		return 0;
	}
	ret = h->fmt->run(h, r, NULL);
	h->count++;
	return ret;
}

int tk_histsink_add_run(const struct tk_run *r, void *data)
{
	struct tk_histsink *h = data;
	struct tk_run_summary sum;
	int ret;

	tk_run_summarize(r, &sum);
	if (h->ranks) {
		tk_rank_rows_add(&h->jobs, &sum);
		return 0;
	}
	ret = h->fmt->run(h, &sum, r);
	h->count++;
	return ret;
}

int tk_histsink_write_jobs(struct tk_histsink *h, long limit)
{
	size_t i, n;
	int ret = 0;

	tk_rank_rows_finish(&h->jobs);
	n = h->jobs.nr;
	if (limit > 0 && (size_t)limit < n)
		n = (size_t)limit;
	for (i = 0; i < n && !ret; i++) {
		ret = h->fmt->job(h, &h->jobs.rows[i]);
		h->count++;
	}
	return ret;
}

int tk_histsink_end(struct tk_histsink *h)
{
	h->fmt->end(h);
	return !h->count && h->fmt->end == table_end;
}

void tk_histsink_release(struct tk_histsink *h)
{
	tk_table_release(&h->table);
	tk_rank_rows_release(&h->jobs);
	tk_buf_release(&h->line);
	tk_buf_release(&h->iso_date);
}

int tk_histsink_write_query(struct tk_store *s, const struct tk_run_query *q,
			    const char *format, int ranks, FILE *out, int *empty,
			    struct tk_err *err)
{
	struct tk_run_query all = *q;
	struct tk_histsink h;
	int ret;

	*empty = 0;
	ret = tk_histsink_init(&h, format, ranks, out);
	if (ret) {
		*err = h.err;
		tk_histsink_release(&h);
		return ret;
	}
	/* --limit counts jobs: gather every run first */
	if (ranks)
		all.limit = 0;
	tk_histsink_begin(&h);
	if (tk_histsink_full_runs(&h))
		ret = tk_store_query_runs(s, &all, tk_histsink_add_run, &h, &h.err);
	else
		ret = tk_store_query_summaries(s, &all, tk_histsink_add_summary, &h, &h.err);
	if (!ret && ranks)
		ret = tk_histsink_write_jobs(&h, q->limit);
	*empty = tk_histsink_end(&h);
	if (ret)
		*err = h.err;
	tk_histsink_release(&h);
	return ret;
}
