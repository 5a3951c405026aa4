/*
 * The record file (core/model/record.h): two writers, jansson's pretty
 * one (record files) and a direct compact one (the stores' `record`
 * column), and the reader, all three walking tk_run_fields[].
 */
#include "core/model/record.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/fsutil.h"
#include "core/base/utf8.h"
#include "core/model/runfield.h"
#include "core/base/banned.h"

/* Strings from the outside may not be UTF-8; JSON must be. Invalid bytes
 * become U+FFFD rather than silently dropping the value. */
static json_t *str_json(const char *v)
{
	struct tk_buf b = TK_BUF_INIT;
	json_t *s;

	if (!v)
		return json_null();
	if (tk_utf8_valid(v, strlen(v)))
		return json_string(v);
	tk_utf8_sanitize(&b, v, strlen(v));
	s = json_stringn(b.buf, b.len);
	tk_buf_release(&b);
	return s;
}

static void put_str(json_t *o, const char *k, const char *v)
{
	json_object_set_new(o, k, str_json(v));
}

static void put_int(json_t *o, const char *k, int64_t v)
{
	json_object_set_new(o, k, v < 0 ? json_null() : json_integer(v));
}

static void put_real(json_t *o, const char *k, double v)
{
	json_object_set_new(o, k, v < 0 ? json_null() : json_real(v));
}

static json_t *kvlist_json(const struct tk_kvlist *l)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < l->nr; i++) {
		struct tk_buf k = TK_BUF_INIT;

		tk_utf8_sanitize(&k, l->items[i].key, strlen(l->items[i].key));
		json_object_set_new(o, k.buf, str_json(l->items[i].value));
		tk_buf_release(&k);
	}
	return o;
}

/* Whether field f, not a part, is unknown in r. */
static int unknown(const struct tk_run *r, const struct tk_run_field *f)
{
	const void *v = tk_run_field_cat(r, f);

	switch (f->type) {
	case TK_RFT_STR:
		return !*(char *const *)v;
	case TK_RFT_I64:
		return *(const int64_t *)v < 0;
	case TK_RFT_INT:
		return *(const int *)v < 0;
	case TK_RFT_REAL:
		return *(const double *)v < 0;
	default:
		return 0;
	}
}

/* Whether field f, not a part, is a member of r's record. */
static int written(const struct tk_run *r, const struct tk_run_field *f)
{
	if ((f->flags & TK_RF_OMIT_UNRANKED) && r->rank < 0)
		return 0;
	return !(f->flags & TK_RF_OMIT_UNKNOWN) || !unknown(r, f);
}

/* Field f, not a part, as a member of o. */
static void put_field(json_t *o, const struct tk_run *r, const struct tk_run_field *f)
{
	const void *v = tk_run_field_cat(r, f);

	switch (f->type) {
	case TK_RFT_UUID:
		put_str(o, f->name, v);
		break;
	case TK_RFT_STR:
		put_str(o, f->name, *(char *const *)v);
		break;
	case TK_RFT_STATUS:
		put_str(o, f->name, tk_run_status_name(*(const enum tk_run_status *)v));
		break;
	case TK_RFT_BOOL:
		json_object_set_new(o, f->name, json_boolean(*(const int *)v));
		break;
	case TK_RFT_I64:
		put_int(o, f->name, *(const int64_t *)v);
		break;
	case TK_RFT_INT:
		if (f->flags & TK_RF_NEVER_UNKNOWN)
			json_object_set_new(o, f->name, json_integer(*(const int *)v));
		else
			put_int(o, f->name, *(const int *)v);
		break;
	case TK_RFT_REAL:
		put_real(o, f->name, *(const double *)v);
		break;
	case TK_RFT_PART:
		break;
	}
}

static json_t *object_json(const struct tk_run *r, enum tk_rf_place place);

static json_t *slurm_json(const struct tk_run *r)
{
	const struct tk_sacct *s = &r->slurm;
	json_t *o = object_json(r, TK_RF_IN_SLURM), *a = json_array();
	size_t i;

	for (i = 0; i < s->nr; i++) {
		const struct tk_sacct_step *st = &s->steps[i];
		json_t *e = json_object();

		put_str(e, "job_id", st->job_id);
		put_str(e, "name", st->name);
		put_str(e, "kind", tk_sacct_kind_name(st->kind));
		put_str(e, "state", st->state);
		put_str(e, "exit_code", st->exit_code);
		put_real(e, "elapsed_s", st->elapsed_s);
		put_int(e, "maxrss_bytes", st->maxrss_bytes);
		put_int(e, "averss_bytes", st->averss_bytes);
		put_str(e, "tres_usage_in_tot", st->tres_in_tot);
		put_str(e, "tres_usage_in_max", st->tres_in_max);
		put_int(e, "start_s", st->start_s);
		put_int(e, "end_s", st->end_s);
		json_array_append_new(a, e);
	}
	if (s->maxrss_lower_bound)
		json_object_set_new(o, "maxrss_lower_bound", json_true());
	json_object_set_new(o, "steps", a);
	return o;
}

static json_t *timeline_json(const struct tk_run *r)
{
	const struct tk_timeline *tl = &r->timeline;
	struct tk_buf data = TK_BUF_INIT;
	json_t *o = json_object();

	tk_timeline_encode(tl, &data);
	put_str(o, "encoding", TK_TIMELINE_ENCODING);
	put_int(o, "interval_ms", tl->interval_ms > 0 ? tl->interval_ms : -1);
	put_int(o, "points", (int64_t)tl->nr);
	put_int(o, "peak_rss_bytes", tl->p[tk_timeline_peak(tl)].rss_bytes);
	json_object_set_new(o, "data", json_stringn(data.buf, data.len));
	tk_buf_release(&data);
	return o;
}

static json_t *profiles_json(const struct tk_run *r)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < r->nr_profiles; i++) {
		json_t *e = json_object();

		put_str(e, "kind", r->profiles[i].kind);
		put_str(e, "unit", r->profiles[i].unit);
		put_str(e, "format", r->profiles[i].format);
		put_str(e, "file", r->profiles[i].file);
		json_array_append_new(a, e);
	}
	return a;
}

static json_t *argv_json(const struct tk_run *r)
{
	json_t *a = json_array();
	char **arg;

	for (arg = r->argv; arg && *arg; arg++)
		json_array_append_new(a, str_json(*arg));
	return a;
}

/* Part id of r as a member of o; the profiles and the slurm object only
 * when there are some. */
static void put_part(json_t *o, const struct tk_run *r, enum tk_run_field_id id)
{
	const char *name = tk_run_fields[id].name;

	switch (id) {
	case TK_RF_ARGV:
		json_object_set_new(o, name, argv_json(r));
		break;
	case TK_RF_TAGS:
		json_object_set_new(o, name, kvlist_json(&r->tags));
		break;
	case TK_RF_CI:
		json_object_set_new(o, name, object_json(r, TK_RF_IN_CI));
		break;
	case TK_RF_PROFILES:
		if (r->nr_profiles)
			json_object_set_new(o, name, profiles_json(r));
		break;
	case TK_RF_SLURM:
		if (r->slurm.nr)
			json_object_set_new(o, name, slurm_json(r));
		break;
	case TK_RF_TIMELINE:
		if (r->timeline.nr)
			json_object_set_new(o, name, timeline_json(r));
		break;
	case TK_RF_AGENT_TAGS:
		json_object_set_new(o, name, kvlist_json(&r->ci.agent_tags));
		break;
	default:
		break;
	}
}

/* The members of the record's object place, in the table's order. */
static json_t *object_json(const struct tk_run *r, enum tk_rf_place place)
{
	json_t *o = json_object();
	size_t i;

	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = &tk_run_fields[i];

		if (f->place != place)
			continue;
		if (f->type == TK_RFT_PART)
			put_part(o, r, (enum tk_run_field_id)i);
		else if (written(r, f))
			put_field(o, r, f);
	}
	return o;
}

/*
 * The compact record, written directly: the store writes one per run, and
 * building jansson objects only to dump them cost more than the rest of a
 * put. It must give exactly what json_dumps(JSON_COMPACT |
 * JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) gives for the objects
 * tk_run_to_json builds (tests/unit/t-store-record.c compares the two), so
 * records stay the same bytes whichever writer made them.
 */
struct jw {
	struct tk_buf *b;
	struct tk_buf tmp;
	int first; /* no comma before the next member */
	int no_timeline;
};

/* jansson's dump_string without flags: quote, backslash and control
 * characters escaped, everything else (UTF-8 included) as is. */
static void jw_escaped(struct tk_buf *b, const char *s, size_t len)
{
	const char *run = s, *end = s + len, *p;

	tk_buf_addch(b, '"');
	for (p = s; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 0x20 && c != '"' && c != '\\')
			continue;
		tk_buf_add(b, run, (size_t)(p - run));
		run = p + 1;
		switch (c) {
		case '"': tk_buf_adds(b, "\\\""); break;
		case '\\': tk_buf_adds(b, "\\\\"); break;
		case '\b': tk_buf_adds(b, "\\b"); break;
		case '\f': tk_buf_adds(b, "\\f"); break;
		case '\n': tk_buf_adds(b, "\\n"); break;
		case '\r': tk_buf_adds(b, "\\r"); break;
		case '\t': tk_buf_adds(b, "\\t"); break;
		default: tk_buf_addf(b, "\\u%04X", c); break;
		}
	}
	tk_buf_add(b, run, (size_t)(end - run));
	tk_buf_addch(b, '"');
}

/* A string value or key, made valid UTF-8 as str_json does. */
static void jw_string(struct jw *w, const char *v)
{
	size_t len;

	if (!v) {
		tk_buf_adds(w->b, "null");
		return;
	}
	len = strlen(v);
	if (tk_utf8_valid(v, len)) {
		jw_escaped(w->b, v, len);
		return;
	}
	tk_buf_reset(&w->tmp);
	tk_utf8_sanitize(&w->tmp, v, len);
	jw_escaped(w->b, w->tmp.buf, w->tmp.len);
}

static void jw_key(struct jw *w, const char *k)
{
	if (!w->first)
		tk_buf_addch(w->b, ',');
	w->first = 0;
	jw_string(w, k);
	tk_buf_addch(w->b, ':');
}

static void jw_open(struct jw *w, int c)
{
	tk_buf_addch(w->b, (char)c);
	w->first = 1;
}

static void jw_close(struct jw *w, int c)
{
	tk_buf_addch(w->b, (char)c);
	w->first = 0;
}

static void jw_str(struct jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	jw_string(w, v);
}

static void jw_int(struct jw *w, const char *k, int64_t v)
{
	jw_key(w, k);
	if (v < 0)
		tk_buf_adds(w->b, "null");
	else
		tk_buf_addf(w->b, "%lld", (long long)v);
}

/* jansson's real: "%.17g", ".0" added when it has neither '.' nor 'e',
 * and the exponent without '+' or leading zeros. It has no NaN or
 * infinity: json_real refuses them and the member is left out. */
static void jw_real(struct jw *w, const char *k, double v)
{
	char s[64], *e, *d;

	if (!(v < 0) && !isfinite(v))
		return;
	jw_key(w, k);
	if (v < 0) {
		tk_buf_adds(w->b, "null");
		return;
	}
	snprintf(s, sizeof(s), "%.17g", v);
	if (!strchr(s, '.') && !strchr(s, 'e'))
		memcpy(s + strlen(s), ".0", 3); /* "%.17g" is at most 24 bytes */
	e = strchr(s, 'e');
	if (e) {
		e++;
		if (*e == '+')
			memmove(e, e + 1, strlen(e + 1) + 1);
		else if (*e == '-')
			e++;
		for (d = e; *d == '0' && d[1]; d++)
			;
		memmove(e, d, strlen(d) + 1);
	}
	tk_buf_adds(w->b, s);
}

/*
 * An object of strings. Keys made valid UTF-8 may collide; jansson then
 * keeps the first key's place and the last value, and so do we.
 */
static void jw_kvlist(struct jw *w, const char *k, const struct tk_kvlist *l)
{
	struct tk_buf a = TK_BUF_INIT, b = TK_BUF_INIT;
	size_t i, j;

	jw_key(w, k);
	jw_open(w, '{');
	for (i = 0; i < l->nr; i++) {
		const char *ki = l->items[i].key, *value = l->items[i].value;
		int seen = 0;

		tk_buf_reset(&a);
		tk_utf8_sanitize(&a, ki, strlen(ki));
		for (j = 0; j < l->nr && !seen; j++) {
			if (j == i)
				continue;
			tk_buf_reset(&b);
			tk_utf8_sanitize(&b, l->items[j].key, strlen(l->items[j].key));
			if (strcmp(a.buf, b.buf))
				continue;
			if (j < i)
				seen = 1;
			else
				value = l->items[j].value;
		}
		if (seen)
			continue;
		jw_str(w, a.buf, value);
	}
	jw_close(w, '}');
	tk_buf_release(&a);
	tk_buf_release(&b);
}

/* put_field's member, compactly. */
static void jw_field(struct jw *w, const struct tk_run *r, const struct tk_run_field *f)
{
	const void *v = tk_run_field_cat(r, f);

	switch (f->type) {
	case TK_RFT_UUID:
		jw_str(w, f->name, v);
		break;
	case TK_RFT_STR:
		jw_str(w, f->name, *(char *const *)v);
		break;
	case TK_RFT_STATUS:
		jw_str(w, f->name, tk_run_status_name(*(const enum tk_run_status *)v));
		break;
	case TK_RFT_BOOL:
		jw_key(w, f->name);
		tk_buf_adds(w->b, *(const int *)v ? "true" : "false");
		break;
	case TK_RFT_I64:
		jw_int(w, f->name, *(const int64_t *)v);
		break;
	case TK_RFT_INT:
		if (f->flags & TK_RF_NEVER_UNKNOWN) {
			jw_key(w, f->name);
			tk_buf_addf(w->b, "%d", *(const int *)v);
		} else {
			jw_int(w, f->name, *(const int *)v);
		}
		break;
	case TK_RFT_REAL:
		jw_real(w, f->name, *(const double *)v);
		break;
	case TK_RFT_PART:
		break;
	}
}

static void jw_object(struct jw *w, const struct tk_run *r, enum tk_rf_place place);

/* slurm_json's members, in its order. */
static void jw_slurm(struct jw *w, const struct tk_run *r)
{
	const struct tk_sacct *s = &r->slurm;
	size_t i;

	jw_object(w, r, TK_RF_IN_SLURM);
	if (s->maxrss_lower_bound) {
		jw_key(w, "maxrss_lower_bound");
		tk_buf_adds(w->b, "true");
	}
	jw_key(w, "steps");
	jw_open(w, '[');
	for (i = 0; i < s->nr; i++) {
		const struct tk_sacct_step *st = &s->steps[i];

		if (!w->first)
			tk_buf_addch(w->b, ',');
		jw_open(w, '{');
		jw_str(w, "job_id", st->job_id);
		jw_str(w, "name", st->name);
		jw_str(w, "kind", tk_sacct_kind_name(st->kind));
		jw_str(w, "state", st->state);
		jw_str(w, "exit_code", st->exit_code);
		jw_real(w, "elapsed_s", st->elapsed_s);
		jw_int(w, "maxrss_bytes", st->maxrss_bytes);
		jw_int(w, "averss_bytes", st->averss_bytes);
		jw_str(w, "tres_usage_in_tot", st->tres_in_tot);
		jw_str(w, "tres_usage_in_max", st->tres_in_max);
		jw_int(w, "start_s", st->start_s);
		jw_int(w, "end_s", st->end_s);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

/* timeline_json's members, in its order. */
static void jw_timeline(struct jw *w, const struct tk_run *r)
{
	const struct tk_timeline *tl = &r->timeline;

	tk_buf_reset(&w->tmp);
	tk_timeline_encode(tl, &w->tmp);
	jw_open(w, '{');
	jw_str(w, "encoding", TK_TIMELINE_ENCODING);
	jw_int(w, "interval_ms", tl->interval_ms > 0 ? tl->interval_ms : -1);
	jw_int(w, "points", (int64_t)tl->nr);
	jw_int(w, "peak_rss_bytes", tl->p[tk_timeline_peak(tl)].rss_bytes);
	jw_key(w, "data");
	jw_escaped(w->b, w->tmp.buf, w->tmp.len);
	jw_close(w, '}');
}

static void jw_profiles(struct jw *w, const struct tk_run *r)
{
	size_t i;

	jw_open(w, '[');
	for (i = 0; i < r->nr_profiles; i++) {
		if (!w->first)
			tk_buf_addch(w->b, ',');
		jw_open(w, '{');
		jw_str(w, "kind", r->profiles[i].kind);
		jw_str(w, "unit", r->profiles[i].unit);
		jw_str(w, "format", r->profiles[i].format);
		jw_str(w, "file", r->profiles[i].file);
		jw_close(w, '}');
	}
	jw_close(w, ']');
}

static void jw_argv(struct jw *w, const struct tk_run *r)
{
	char **arg;

	jw_open(w, '[');
	for (arg = r->argv; arg && *arg; arg++) {
		if (!w->first)
			tk_buf_addch(w->b, ',');
		w->first = 0;
		jw_string(w, *arg);
	}
	jw_close(w, ']');
}

/* put_part's member, compactly. */
static void jw_part(struct jw *w, const struct tk_run *r, enum tk_run_field_id id)
{
	const char *name = tk_run_fields[id].name;

	switch (id) {
	case TK_RF_ARGV:
		jw_key(w, name);
		jw_argv(w, r);
		break;
	case TK_RF_TAGS:
		jw_kvlist(w, name, &r->tags);
		break;
	case TK_RF_CI:
		jw_key(w, name);
		jw_open(w, '{');
		jw_object(w, r, TK_RF_IN_CI);
		jw_close(w, '}');
		break;
	case TK_RF_PROFILES:
		if (r->nr_profiles) {
			jw_key(w, name);
			jw_profiles(w, r);
		}
		break;
	case TK_RF_SLURM:
		if (r->slurm.nr) {
			jw_key(w, name);
			jw_open(w, '{');
			jw_slurm(w, r);
			jw_close(w, '}');
		}
		break;
	case TK_RF_TIMELINE:
		if (r->timeline.nr && !w->no_timeline) {
			jw_key(w, name);
			jw_timeline(w, r);
		}
		break;
	case TK_RF_AGENT_TAGS:
		jw_kvlist(w, name, &r->ci.agent_tags);
		break;
	default:
		break;
	}
}

/* object_json's members, compactly, without the braces. */
static void jw_object(struct jw *w, const struct tk_run *r, enum tk_rf_place place)
{
	size_t i;

	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = &tk_run_fields[i];

		if (f->place != place)
			continue;
		if (f->type == TK_RFT_PART)
			jw_part(w, r, (enum tk_run_field_id)i);
		else if (written(r, f))
			jw_field(w, r, f);
	}
}

/* The members and their order are tk_run_to_json's. */
static void write_compact(const struct tk_run *r, unsigned flags, struct tk_buf *out)
{
	struct jw w = { out, TK_BUF_INIT, 1, (flags & TK_RUN_JSON_NO_TIMELINE) != 0 };

	jw_open(&w, '{');
	jw_str(&w, "format", "tracker-run");
	jw_int(&w, "version", 1);
	jw_key(&w, "run");
	jw_open(&w, '{');
	jw_object(&w, r, TK_RF_IN_RUN);
	jw_close(&w, '}');
	jw_close(&w, '}');
	tk_buf_release(&w.tmp);
}

int tk_run_to_json(const struct tk_run *r, struct tk_buf *out, struct tk_err *err)
{
	return tk_run_to_json_flags(r, 0, out, err);
}

int tk_run_to_json_flags(const struct tk_run *r, unsigned flags, struct tk_buf *out,
			 struct tk_err *err)
{
	json_t *doc, *o;
	char *text;

	if (flags & TK_RUN_JSON_COMPACT) {
		write_compact(r, flags, out);
		return 0;
	}
	o = object_json(r, TK_RF_IN_RUN);
	if (flags & TK_RUN_JSON_NO_TIMELINE)
		json_object_del(o, tk_run_fields[TK_RF_TIMELINE].name);
	if (flags & TK_RUN_JSON_RUN) {
		doc = o;
	} else {
		doc = json_object();
		json_object_set_new(doc, "format", json_string("tracker-run"));
		json_object_set_new(doc, "version", json_integer(1));
		json_object_set_new(doc, "run", o);
	}
	/* A record is read back, so it keeps every bit; what history lists is
	 * read by people and scripts, so 15 digits: exact for the microseconds
	 * a run measured, without float noise (200.801, not 200.80099999999999). */
	text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
			  JSON_REAL_PRECISION(flags & TK_RUN_JSON_RUN ? 15 : 17));
	json_decref(doc);
	if (!text)
		return tk_err_set(err, TK_EINTERNAL, "cannot encode run record as JSON");
	tk_buf_adds(out, text);
	if (!(flags & TK_RUN_JSON_RUN))
		tk_buf_addch(out, '\n');
	free(text);
	return 0;
}

struct reader {
	const char *name;
	struct tk_err *err;
	int failed;
};

static int bad_field(struct reader *rd, const char *field, const char *want)
{
	if (!rd->failed)
		tk_err_set(rd->err, TK_EDATA, "invalid record '%s': field '%s' must be %s",
			   rd->name, field, want);
	rd->failed = 1;
	return TK_EDATA;
}

static void get_str(struct reader *rd, json_t *o, const char *k, char **out)
{
	json_t *v = json_object_get(o, k);

	if (!v || json_is_null(v))
		return;
	if (!json_is_string(v)) {
		bad_field(rd, k, "a string");
		return;
	}
	free(*out);
	*out = tk_xstrndup(json_string_value(v), json_string_length(v));
}

static void get_int(struct reader *rd, json_t *o, const char *k, int64_t *out)
{
	json_t *v = json_object_get(o, k);

	if (!v || json_is_null(v))
		return;
	if (!json_is_integer(v)) {
		bad_field(rd, k, "an integer");
		return;
	}
	*out = json_integer_value(v);
}

static void get_intn(struct reader *rd, json_t *o, const char *k, int *out)
{
	int64_t v = *out;

	get_int(rd, o, k, &v);
	if (v < -1 || v > 0x7fffffff) {
		bad_field(rd, k, "a small integer");
		return;
	}
	*out = (int)v;
}

static void get_real(struct reader *rd, json_t *o, const char *k, double *out)
{
	json_t *v = json_object_get(o, k);

	if (!v || json_is_null(v))
		return;
	if (!json_is_number(v)) {
		bad_field(rd, k, "a number");
		return;
	}
	*out = json_number_value(v);
}

static void get_kv(struct reader *rd, json_t *o, const char *k, struct tk_kvlist *l)
{
	json_t *v = json_object_get(o, k), *val;
	const char *name;

	if (!v || json_is_null(v))
		return;
	if (!json_is_object(v)) {
		bad_field(rd, k, "an object");
		return;
	}
	json_object_foreach(v, name, val) {
		if (!json_is_string(val)) {
			bad_field(rd, k, "an object of strings");
			return;
		}
		tk_kvlist_set(l, name, json_string_value(val));
	}
}

static void read_fields(struct reader *rd, json_t *o, enum tk_rf_place place,
			struct tk_run *r);

static void read_ci(struct reader *rd, json_t *o, struct tk_run *r)
{
	if (!o || json_is_null(o))
		return;
	if (!json_is_object(o)) {
		bad_field(rd, "ci", "an object");
		return;
	}
	read_fields(rd, o, TK_RF_IN_CI, r);
}

/* Attachment file names must stay inside the record's directory. */
static int safe_file_name(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/') && !strchr(s, '\\');
}

static void read_profiles(struct reader *rd, json_t *o, struct tk_run *r)
{
	json_t *a = json_object_get(o, "profiles");
	size_t i;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		bad_field(rd, "profiles", "an array");
		return;
	}
	for (i = 0; i < json_array_size(a) && !rd->failed; i++) {
		json_t *e = json_array_get(a, i);
		char *kind = NULL, *unit = NULL, *format = NULL, *file = NULL;

		if (!json_is_object(e)) {
			bad_field(rd, "profiles", "an array of objects");
			break;
		}
		get_str(rd, e, "kind", &kind);
		get_str(rd, e, "unit", &unit);
		get_str(rd, e, "format", &format);
		get_str(rd, e, "file", &file);
		if (!rd->failed && (!kind || !unit || !file || !safe_file_name(file)))
			bad_field(rd, "profiles", "entries with kind, unit and a plain file name");
		if (!rd->failed)
			tk_run_add_profile(r, kind, unit, format, file);
		free(kind);
		free(unit);
		free(format);
		free(file);
	}
}

static void read_slurm_step(struct reader *rd, json_t *e, struct tk_sacct *s)
{
	struct tk_sacct_step st;
	char *kind = NULL;

	memset(&st, 0, sizeof(st));
	st.elapsed_s = -1;
	st.maxrss_bytes = -1;
	st.averss_bytes = -1;
	st.start_s = -1;
	st.end_s = -1;
	get_str(rd, e, "job_id", &st.job_id);
	get_str(rd, e, "name", &st.name);
	get_str(rd, e, "kind", &kind);
	get_str(rd, e, "state", &st.state);
	get_str(rd, e, "exit_code", &st.exit_code);
	get_real(rd, e, "elapsed_s", &st.elapsed_s);
	get_int(rd, e, "maxrss_bytes", &st.maxrss_bytes);
	get_int(rd, e, "averss_bytes", &st.averss_bytes);
	get_str(rd, e, "tres_usage_in_tot", &st.tres_in_tot);
	get_str(rd, e, "tres_usage_in_max", &st.tres_in_max);
	get_int(rd, e, "start_s", &st.start_s);
	get_int(rd, e, "end_s", &st.end_s);
	if (!rd->failed && (!st.job_id || !*st.job_id || !kind ||
			    tk_sacct_kind_parse(kind, &st.kind)))
		bad_field(rd, "slurm", "steps with a job_id and a kind");
	if (!rd->failed)
		tk_sacct_add(s, &st);
	free(st.job_id);
	free(st.name);
	free(kind);
	free(st.state);
	free(st.exit_code);
	free(st.tres_in_tot);
	free(st.tres_in_max);
}

/* The steps; the largest step is worked out again from them. */
static void read_slurm(struct reader *rd, json_t *o, struct tk_run *r)
{
	json_t *v = json_object_get(o, "slurm"), *a;
	size_t i;

	if (!v || json_is_null(v))
		return;
	a = json_is_object(v) ? json_object_get(v, "steps") : NULL;
	if (!json_is_array(a) || json_array_size(a) > TK_SACCT_STEPS_MAX) {
		bad_field(rd, "slurm", "an object with an array of at most 4096 steps");
		return;
	}
	for (i = 0; i < json_array_size(a) && !rd->failed; i++) {
		if (!json_is_object(json_array_get(a, i))) {
			bad_field(rd, "slurm", "an object whose steps are objects");
			break;
		}
		read_slurm_step(rd, json_array_get(a, i), &r->slurm);
	}
	tk_sacct_finish(&r->slurm);
	r->slurm.maxrss_lower_bound = json_is_true(json_object_get(v, "maxrss_lower_bound"));
}

/* The points from the compact form; "points" must agree with them. */
static void read_timeline(struct reader *rd, json_t *o, struct tk_run *r)
{
	json_t *v = json_object_get(o, "timeline"), *data;
	char *encoding = NULL;
	int64_t points = -1, interval = -1;
	struct tk_err derr = TK_ERR_INIT;

	if (!v || json_is_null(v))
		return;
	if (!json_is_object(v)) {
		bad_field(rd, "timeline", "an object");
		return;
	}
	get_str(rd, v, "encoding", &encoding);
	get_int(rd, v, "points", &points);
	get_int(rd, v, "interval_ms", &interval);
	data = json_object_get(v, "data");
	if (!rd->failed && (!encoding || strcmp(encoding, TK_TIMELINE_ENCODING) ||
			    !json_is_string(data)))
		bad_field(rd, "timeline", "an object with encoding \"" TK_TIMELINE_ENCODING
			  "\" and a data string");
	free(encoding);
	if (rd->failed)
		return;
	if (tk_timeline_decode(json_string_value(data), json_string_length(data), &r->timeline,
			       &derr) ||
	    (points >= 0 && (size_t)points != r->timeline.nr)) {
		tk_timeline_release(&r->timeline);
		bad_field(rd, "timeline", "points of the compact form (" TK_TIMELINE_ENCODING
			  "), as many as it says");
		return;
	}
	r->timeline.interval_ms = interval > 0 ? interval : 0;
}

static void read_argv(struct reader *rd, json_t *o, struct tk_run *r)
{
	json_t *a = json_object_get(o, "argv");
	size_t i, n;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a)) {
		bad_field(rd, "argv", "an array of strings");
		return;
	}
	n = json_array_size(a);
	r->argv = tk_xcalloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		json_t *s = json_array_get(a, i);

		if (!json_is_string(s)) {
			bad_field(rd, "argv", "an array of strings");
			return;
		}
		r->argv[i] = tk_xstrdup(json_string_value(s));
	}
}

/* Field f, not a part, from member f->name of o. */
static void read_field(struct reader *rd, json_t *o, const struct tk_run_field *f,
		       struct tk_run *r)
{
	void *at = tk_run_field_at(r, f);
	char *s = NULL;
	int64_t v = 0;
	json_t *b;

	switch (f->type) {
	case TK_RFT_UUID:
		get_str(rd, o, f->name, &s);
		if (!rd->failed && (!s || !tk_uuid_valid(s)))
			bad_field(rd, f->name, "a lower-case UUID");
		else if (s && tk_uuid_valid(s))
			memcpy(at, s, TK_RUN_ID_LEN + 1);
		free(s);
		break;
	case TK_RFT_STR:
		get_str(rd, o, f->name, at);
		s = *(char **)at;
		if ((f->flags & TK_RF_REQUIRED) && !rd->failed && (!s || !*s))
			bad_field(rd, f->name, "a non-empty string");
		break;
	case TK_RFT_STATUS:
		get_str(rd, o, f->name, &s);
		if (s && tk_run_status_parse(s, at))
			bad_field(rd, f->name,
				  "one of ok, failed, signaled, cancelled, timeout, error");
		free(s);
		break;
	case TK_RFT_BOOL:
		/* anything but true or false is false, as ever */
		b = json_object_get(o, f->name);
		*(int *)at = b && json_is_true(b);
		break;
	case TK_RFT_I64:
		get_int(rd, o, f->name, at);
		break;
	case TK_RFT_INT:
		if (f->flags & TK_RF_NEVER_UNKNOWN) {
			get_int(rd, o, f->name, &v);
			*(int *)at = (int)v;
		} else {
			get_intn(rd, o, f->name, at);
		}
		break;
	case TK_RFT_REAL:
		get_real(rd, o, f->name, at);
		break;
	case TK_RFT_PART:
		break;
	}
}

/* Part id of r from o. */
static void read_part(struct reader *rd, json_t *o, enum tk_run_field_id id,
		      struct tk_run *r)
{
	const char *name = tk_run_fields[id].name;

	switch (id) {
	case TK_RF_ARGV:
		/* The first part: the scalar fields before it, the rank and
		 * its group among them, are read. */
		if (!rd->failed && (r->rank >= 0) != (r->rank_group && *r->rank_group))
			bad_field(rd, "rank", "given together with a non-empty rank_group");
		read_argv(rd, o, r);
		break;
	case TK_RF_TAGS:
		get_kv(rd, o, name, &r->tags);
		break;
	case TK_RF_CI:
		read_ci(rd, json_object_get(o, name), r);
		break;
	case TK_RF_PROFILES:
		read_profiles(rd, o, r);
		break;
	case TK_RF_SLURM:
		read_slurm(rd, o, r);
		break;
	case TK_RF_TIMELINE:
		read_timeline(rd, o, r);
		break;
	case TK_RF_AGENT_TAGS:
		get_kv(rd, o, name, &r->ci.agent_tags);
		break;
	default:
		break;
	}
}

/* The members of the record's object place, in the table's order. */
static void read_fields(struct reader *rd, json_t *o, enum tk_rf_place place,
			struct tk_run *r)
{
	size_t i;

	for (i = 0; i < TK_RF_NR; i++) {
		const struct tk_run_field *f = &tk_run_fields[i];

		if (f->place != place || (f->flags & TK_RF_DERIVED))
			continue;
		if (f->type == TK_RFT_PART)
			read_part(rd, o, (enum tk_run_field_id)i, r);
		else
			read_field(rd, o, f, r);
	}
}

/* A record from outside with a figure no run can have (a walltime of
 * 1e308 s, an exit code of 99999) is refused, as a malformed one is:
 * stored, it would stop every check and chart of its key. */
static int values_in_bounds(struct reader *rd, const struct tk_run *r)
{
	struct tk_run_summary sum;
	struct tk_buf why = TK_BUF_INIT;
	int ret = 0;

	tk_run_summarize(r, &sum);
	if (tk_run_summary_check(&sum, &why))
		ret = tk_err_set(rd->err, TK_EDATA, "invalid record '%s': %s", rd->name,
				 why.buf);
	tk_buf_release(&why);
	return ret;
}

static int from_json(const char *text, size_t len, const char *name, int bounds,
		     struct tk_run *r, struct tk_err *err)
{
	struct reader rd = { name, err, 0 };
	json_error_t jerr;
	json_t *doc, *o, *v;

	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc)
		return tk_err_set(err, TK_EDATA,
				  "cannot parse record '%s' line %d column %d: %s",
				  name, jerr.line, jerr.column, jerr.text);
	v = json_object_get(doc, "format");
	if (!json_is_object(doc) || !json_is_string(v) ||
	    strcmp(json_string_value(v), "tracker-run")) {
		json_decref(doc);
		return tk_err_set(err, TK_EDATA,
				  "'%s' is not a tracker run record (no \"format\": \"tracker-run\")",
				  name);
	}
	v = json_object_get(doc, "version");
	if (!json_is_integer(v) || json_integer_value(v) != 1) {
		json_decref(doc);
		return tk_err_set(err, TK_EDATA,
				  "record '%s' has an unsupported version (this tracker reads version 1)",
				  name);
	}
	o = json_object_get(doc, "run");
	if (!json_is_object(o)) {
		json_decref(doc);
		return bad_field(&rd, "run", "an object");
	}
	read_fields(&rd, o, TK_RF_IN_RUN, r);
	json_decref(doc);
	if (rd.failed)
		return TK_EDATA;
	return bounds ? values_in_bounds(&rd, r) : 0;
}

int tk_run_from_json(const char *text, size_t len, const char *name,
		     struct tk_run *r, struct tk_err *err)
{
	return from_json(text, len, name, 1, r, err);
}

int tk_run_from_stored_json(const char *text, size_t len, const char *name,
			    struct tk_run *r, struct tk_err *err)
{
	return from_json(text, len, name, 0, r, err);
}

/* Keys are free text; in a file name keep [A-Za-z0-9._-] and map the rest
 * to '_' (the record itself carries the real key). */
static void add_file_safe(struct tk_buf *b, const char *s)
{
	size_t n = 0;

	for (; *s && n < 100; s++, n++) {
		int ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			 (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '_';

		tk_buf_addch(b, ok && !(n == 0 && *s == '.') ? *s : '_');
	}
}

void tk_run_record_name(const struct tk_run *r, struct tk_buf *out)
{
	add_file_safe(out, r->key ? r->key : "run");
	tk_buf_addf(out, "-%s", r->id);
}

int tk_run_write_record(const struct tk_run *r, const char *dir,
			struct tk_buf *path_out, struct tk_err *err)
{
	struct tk_buf json = TK_BUF_INIT, path = TK_BUF_INIT;
	int ret;

	ret = tk_run_to_json(r, &json, err);
	if (ret)
		goto out;
	ret = tk_mkdir_p(dir, err);
	if (ret)
		goto out;
	tk_buf_addf(&path, "%s/", dir);
	tk_run_record_name(r, &path);
	tk_buf_adds(&path, ".json");
	ret = tk_write_file_atomic(path.buf, json.buf, json.len, err);
	if (!ret && path_out)
		tk_buf_add(path_out, path.buf, path.len);
out:
	tk_buf_release(&json);
	tk_buf_release(&path);
	return ret;
}

