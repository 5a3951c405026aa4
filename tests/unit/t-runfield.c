/*
 * core/model/runfield: the table of the run record's fields. Its names
 * are unique and its order is the record's; and every field in it, with
 * a value of its own, goes through the record file (pretty and compact),
 * the summary, and a SQLite store (the record column; the summary
 * columns) and comes back, with no code of this test naming a field.
 * A field added to the table is checked here as it is added.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/record.h"
#include "core/model/runfield.h"
#include "core/store/store.h"
#include "plugins/store/columns.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static const struct tk_run_field *field(size_t i)
{
	return &tk_run_fields[i];
}

static int is_part(const struct tk_run_field *f)
{
	return f->type == TK_RFT_PART;
}

static void test_names(void)
{
	size_t i, j;
	int holes = 0, dup_name = 0, dup_column = 0, columns = 1, order = 1;

	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = field(i);

		if (!f->name) {
			holes++;
			continue;
		}
		/* a part has no flat name nor a summary place; a field both */
		if (is_part(f) != !f->column ||
		    (is_part(f) && f->summary != TK_RF_NO_SUMMARY))
			columns = 0;
		/* the record's objects, in order: run, run.ci, run.slurm */
		if (i && field(i - 1)->name && f->place < field(i - 1)->place)
			order = 0;
		for (j = 0; j < i; j++) {
			if (!field(j)->name)
				continue;
			if (f->place == field(j)->place && !strcmp(f->name, field(j)->name))
				dup_name = 1;
			if (f->column && field(j)->column && !strcmp(f->column, field(j)->column))
				dup_column = 1;
		}
	}
	is_int(holes, 0, "every field id has its entry");
	ok(!dup_name, "member names are unique in each object of the record");
	ok(!dup_column, "flat names (history's CSV, the stores' columns) are unique");
	ok(columns, "fields have a flat name, parts none and no summary place");
	ok(order, "entries go run, run.ci, run.slurm, as the record file does");
}

/* tk_run_init (which frees nothing it does not know) marks every field
 * unknown, or 0 for those that are never unknown. */
static void test_init(void)
{
	struct tk_run r;
	size_t i;
	int unknown = 1;

	tk_run_init(&r);
	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = field(i);
		const void *v = tk_run_field_cat(&r, f);
		int never = (f->flags & TK_RF_NEVER_UNKNOWN) != 0;
		int64_t n = 0;

		switch (f->type) {
		case TK_RFT_I64:
			n = *(const int64_t *)v;
			break;
		case TK_RFT_INT:
			n = *(const int *)v;
			break;
		case TK_RFT_REAL:
			n = *(const double *)v < 0 ? -1 : 0;
			break;
		case TK_RFT_STR:
			n = *(char *const *)v ? 0 : -1;
			break;
		default:
			continue;
		}
		if (never ? n != 0 : n >= 0) {
			printf("# tk_run_init: %s is not %s\n", f->name, never ? "0" : "unknown");
			unknown = 0;
		}
	}
	ok(unknown, "tk_run_init leaves each field unknown (0 when never unknown)");
	tk_run_release(&r);
}

/* A value of field i's own, set in r. */
static void set_value(struct tk_run *r, size_t i)
{
	const struct tk_run_field *f = field(i);
	void *v = tk_run_field_at(r, f);
	char s[64];

	switch (f->type) {
	case TK_RFT_UUID:
		snprintf(s, sizeof(s), "00000000-0000-4000-8000-%012zu", 100 + i);
		memcpy(v, s, TK_RUN_ID_LEN + 1);
		break;
	case TK_RFT_STR:
		snprintf(s, sizeof(s), "v-%s \"%zu\" \xc3\xa9", f->column, i);
		free(*(char **)v);
		*(char **)v = tk_xstrdup(s);
		break;
	case TK_RFT_STATUS:
		*(enum tk_run_status *)v = TK_RUN_TIMEOUT;
		break;
	case TK_RFT_BOOL:
		*(int *)v = 1;
		break;
	case TK_RFT_I64:
		*(int64_t *)v = 1000000007 * (int64_t)(i + 1);
		break;
	case TK_RFT_INT:
		*(int *)v = 10 + (int)i;
		break;
	case TK_RFT_REAL:
		*(double *)v = 0.25 + (double)i;
		break;
	case TK_RFT_PART:
		break;
	}
}

/* Whether field f holds the same value at a and b (strings by value). */
static int same(const struct tk_run_field *f, const void *a, const void *b, int a_sum, int b_sum)
{
	const char *sa, *sb;

	switch (f->type) {
	case TK_RFT_UUID:
	case TK_RFT_STR:
		sa = a_sum || f->type == TK_RFT_STR ? *(const char *const *)a : a;
		sb = b_sum || f->type == TK_RFT_STR ? *(const char *const *)b : b;
		return sa && sb && !strcmp(sa, sb);
	case TK_RFT_STATUS:
		return *(const enum tk_run_status *)a == *(const enum tk_run_status *)b;
	case TK_RFT_BOOL:
	case TK_RFT_INT:
		return *(const int *)a == *(const int *)b;
	case TK_RFT_I64:
		return *(const int64_t *)a == *(const int64_t *)b;
	case TK_RFT_REAL:
		return *(const double *)a == *(const double *)b;
	case TK_RFT_PART:
		break;
	}
	return 1;
}

/* A run with every field of the table set to a value of its own; the
 * slurm fields through a step, as they are worked out from the steps. */
static void full_run(struct tk_run *r)
{
	struct tk_sacct_step st;
	size_t i;

	tk_run_init(r);
	for (i = 0; i < TK_RF_NR; i++)
		if (!(field(i)->flags & TK_RF_DERIVED))
			set_value(r, i);
	memset(&st, 0, sizeof(st));
	st.job_id = "77.batch";
	st.kind = TK_SACCT_BATCH;
	st.elapsed_s = -1;
	st.maxrss_bytes = 123456789;
	st.averss_bytes = -1;
	tk_sacct_add(&r->slurm, &st);
	tk_sacct_finish(&r->slurm);
	tk_run_add_profile(r, "cpu", "samples", "folded", "p.tkpf");
	tk_timeline_add(&r->timeline, 12, 2 << 20, -1);
	tk_timeline_add(&r->timeline, 25, 3 << 20, -1);
	r->timeline.interval_ms = 10;
}

/* The member of the record's JSON that holds field f, or NULL. */
static json_t *member(json_t *doc, const struct tk_run_field *f)
{
	json_t *o = json_object_get(doc, "run");

	if (f->place == TK_RF_IN_CI)
		o = json_object_get(o, "ci");
	else if (f->place == TK_RF_IN_SLURM)
		o = json_object_get(o, "slurm");
	return json_object_get(o, f->name);
}

/* Every field, a member where the table says, back from the record. */
static void test_record(const struct tk_run *r, unsigned flags, const char *what)
{
	struct tk_buf b = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run back;
	json_t *doc;
	size_t i;
	int members = 1, values = 1;

	tk_run_init(&back);
	is_int(tk_run_to_json_flags(r, flags, &b, &err), 0, "%s: written", what);
	doc = json_loadb(b.buf, b.len, 0, NULL);
	is_int(tk_run_from_json(b.buf, b.len, "t.json", &back, &err), 0, "%s: read back", what);
	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = field(i);

		if (!member(doc, f)) {
			printf("# %s: no member %s\n", what, f->name);
			members = 0;
		}
		if (!is_part(f) && !same(f, tk_run_field_cat(r, f), tk_run_field_cat(&back, f), 0, 0)) {
			printf("# %s: %s differs once read\n", what, f->name);
			values = 0;
		}
	}
	ok(members, "%s: every entry is a member of its object", what);
	ok(values, "%s: every field reads back as written", what);
	json_decref(doc);
	tk_run_release(&back);
	tk_buf_release(&b);
}

/* The members of the record's run and run.ci objects, in order, are the
 * table's entries there: the table is the record's order. */
static void test_order(const struct tk_run *r)
{
	struct tk_buf b = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	json_t *doc, *o, *v;
	const char *name;
	size_t i = 0;
	int in_order = 1;

	tk_run_to_json(r, &b, &err);
	doc = json_loadb(b.buf, b.len, 0, NULL);
	o = json_object_get(doc, "run");
	json_object_foreach(o, name, v) {
		while (i < TK_RF_NR && field(i)->place != TK_RF_IN_RUN)
			i++;
		if (i == TK_RF_NR || strcmp(field(i)->name, name))
			in_order = 0;
		i++;
	}
	o = json_object_get(o, "ci");
	i = 0;
	json_object_foreach(o, name, v) {
		while (i < TK_RF_NR && field(i)->place != TK_RF_IN_CI)
			i++;
		if (i == TK_RF_NR || strcmp(field(i)->name, name))
			in_order = 0;
		i++;
	}
	ok(in_order, "the record's members come in the table's order");
	json_decref(doc);
	tk_buf_release(&b);
}

static void test_summary(const struct tk_run *r)
{
	struct tk_run_summary sum;
	size_t i, n = 0;
	int values = 1;

	memset(&sum, 0, sizeof(sum));
	tk_run_summarize(r, &sum);
	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = field(i);

		if (f->summary == TK_RF_NO_SUMMARY)
			continue;
		n++;
		if (!same(f, tk_run_field_cat(r, f), tk_run_field_sum(&sum, f), 0, 1)) {
			printf("# summary: %s differs\n", f->column);
			values = 0;
		}
	}
	ok(n > 20, "the summary carries %zu fields", n);
	ok(values, "every field the summary carries is summarized");
}

static void test_columns(void)
{
	size_t i, k;
	int covered = 1, strings = 1, uuids = 1;

	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = field(i);
		int found = 0;

		/* the stores' summary read has no run to take the id from */
		if (f->type == TK_RFT_UUID && f->summary == TK_RF_NO_SUMMARY)
			uuids = 0;
		if (f->summary == TK_RF_NO_SUMMARY)
			continue;
		for (k = 0; k < NR_RUN_COLUMNS; k++)
			found |= run_columns[k].field == f;
		if (!found) {
			printf("# no store column for %s\n", f->column);
			covered = 0;
		}
	}
	for (k = 0; k < NR_RUN_COLUMNS; k++)
		if (run_columns[k].field && !col_summary(&run_columns[k]) &&
		    run_columns[k].field->type != TK_RFT_STR)
			strings = 0;
	ok(covered, "every field of the summary has a store column (a schema version)");
	ok(strings, "a store column of a field the summary lacks is a string (taken from the run)");
	ok(uuids, "a run id field is in the summary");
}

struct got {
	struct tk_run run;
	struct tk_run_summary sum;
	int runs, sums;
};

static int got_run(const struct tk_run *r, void *data)
{
	struct got *g = data;
	struct tk_buf b = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;

	/* a deep copy: the record again */
	tk_run_to_json(r, &b, &err);
	tk_run_from_json(b.buf, b.len, "copy", &g->run, &err);
	tk_buf_release(&b);
	g->runs++;
	return 0;
}

static int got_summary(const struct tk_run_summary *s, void *data)
{
	struct got *g = data;
	size_t i;

	g->sum = *s;
	/* the strings are the store's only during the call: keep ours */
	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = field(i);
		const char **at = (const char **)(void *)((char *)&g->sum + f->summary);

		if (f->summary == TK_RF_NO_SUMMARY ||
		    (f->type != TK_RFT_STR && f->type != TK_RFT_UUID))
			continue;
		*at = *at ? tk_xstrdup(*at) : NULL;
	}
	g->sums++;
	return 0;
}

static void test_store(const struct tk_run *r)
{
	char dir[] = "/tmp/t-runfield.XXXXXX";
	struct tk_buf url = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;
	struct tk_store *s = NULL;
	struct got g;
	size_t i;
	int runs = 1, sums = 1;

	memset(&q, 0, sizeof(q));
	memset(&g, 0, sizeof(g));
	tk_run_init(&g.run);
	if (!mkdtemp(dir)) {
		skip(4, "no temporary directory");
		return;
	}
	tk_buf_addf(&url, "sqlite:%s/t.db", dir);
	if (tk_store_open(url.buf, &s, &err)) {
		ok(0, "open %s: %s", url.buf, err.msg);
		goto out;
	}
	is_int(tk_store_put_run(s, r, NULL, &err), 0, "the run is stored");
	tk_store_query_runs(s, &q, got_run, &g, &err);
	tk_store_query_summaries(s, &q, got_summary, &g, &err);
	ok(g.runs == 1 && g.sums == 1, "it is listed, whole and summarized");
	for (i = 0; i < TK_RF_NR && g.runs && g.sums; i++) {
		const struct tk_run_field *f = field(i);

		if (is_part(f))
			continue;
		if (!same(f, tk_run_field_cat(r, f), tk_run_field_cat(&g.run, f), 0, 0)) {
			printf("# store: %s differs in the record\n", f->name);
			runs = 0;
		}
		if (f->summary != TK_RF_NO_SUMMARY &&
		    !same(f, tk_run_field_cat(r, f), tk_run_field_sum(&g.sum, f), 0, 1)) {
			printf("# store: %s differs in the summary\n", f->column);
			sums = 0;
		}
	}
	ok(runs, "every field comes back from the store's record");
	ok(sums, "every field of the summary comes back from the store's columns");
	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = field(i);

		if (f->summary != TK_RF_NO_SUMMARY &&
		    (f->type == TK_RFT_STR || f->type == TK_RFT_UUID))
			free(*(char **)(void *)((char *)&g.sum + f->summary));
	}
	tk_store_close(s);
out:
	tk_buf_reset(&url);
	tk_buf_addf(&url, "%s/t.db", dir);
	unlink(url.buf);
	tk_buf_reset(&url);
	tk_buf_addf(&url, "%s/t.db-wal", dir);
	unlink(url.buf);
	tk_buf_reset(&url);
	tk_buf_addf(&url, "%s/t.db-shm", dir);
	unlink(url.buf);
	rmdir(dir);
	tk_buf_release(&url);
	tk_run_release(&g.run);
}

int main(void)
{
	struct tk_run r;

	test_names();
	test_init();
	full_run(&r);
	test_record(&r, 0, "pretty");
	test_record(&r, TK_RUN_JSON_COMPACT, "compact");
	test_order(&r);
	test_summary(&r);
	test_columns();
	test_store(&r);
	tk_run_release(&r);
	return done_testing();
}
