#include "core/model/run.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/base/fsutil.h"
#include "core/base/timeutil.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

static const char *const status_names[] = {
	[TK_RUN_OK] = "ok",
	[TK_RUN_FAILED] = "failed",
	[TK_RUN_SIGNALED] = "signaled",
	[TK_RUN_CANCELLED] = "cancelled",
	[TK_RUN_TIMEOUT] = "timeout",
	[TK_RUN_ERROR] = "error",
	[TK_RUN_STARTED] = "started",
};

const char *tk_run_status_name(enum tk_run_status s)
{
	if ((size_t)s < sizeof(status_names) / sizeof(status_names[0]))
		return status_names[s];
	return "unknown";
}

int tk_run_status_parse(const char *name, enum tk_run_status *out)
{
	size_t i;

	for (i = 0; i < sizeof(status_names) / sizeof(status_names[0]); i++) {
		if (!strcmp(name, status_names[i])) {
			*out = (enum tk_run_status)i;
			return 0;
		}
	}
	return TK_EDATA;
}

void tk_run_init(struct tk_run *r)
{
	memset(r, 0, sizeof(*r));
	tk_ci_context_init(&r->ci);
	r->walltime_s = -1;
	r->user_s = -1;
	r->sys_s = -1;
	r->maxrss_bytes = -1;
	r->tree_rss_bytes = -1;
	r->cgroup_peak_bytes = -1;
	r->wrapper_rss_bytes = -1;
	r->exit_code = -1;
	r->rank = -1;
	tk_sacct_init(&r->slurm);
}

void tk_run_add_profile(struct tk_run *r, const char *kind, const char *unit,
			const char *format, const char *file)
{
	struct tk_run_profile *p;

	TK_ALLOC_GROW(r->profiles, r->nr_profiles + 1, r->alloc_profiles);
	p = &r->profiles[r->nr_profiles++];
	p->kind = tk_xstrdup(kind);
	p->unit = tk_xstrdup(unit);
	p->format = format ? tk_xstrdup(format) : NULL;
	p->file = tk_xstrdup(file);
}

static void free_argv(char **argv)
{
	char **a;

	if (!argv)
		return;
	for (a = argv; *a; a++)
		free(*a);
	free(argv);
}

void tk_run_set_argv(struct tk_run *r, char *const *argv)
{
	size_t i, n = 0;

	free_argv(r->argv);
	while (argv[n])
		n++;
	r->argv = tk_xcalloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		r->argv[i] = tk_xstrdup(argv[i]);
}

void tk_run_release(struct tk_run *r)
{
	size_t i;

	for (i = 0; i < r->nr_profiles; i++) {
		free(r->profiles[i].kind);
		free(r->profiles[i].unit);
		free(r->profiles[i].format);
		free(r->profiles[i].file);
	}
	free(r->profiles);
	free(r->key);
	tk_ci_context_release(&r->ci);
	free_argv(r->argv);
	free(r->maxrss_source);
	tk_kvlist_release(&r->tags);
	free(r->tracker_version);
	free(r->rank_group);
	tk_sacct_release(&r->slurm);
	free(r->machine_class);
	tk_run_init(r);
}

/* 1 when s (len bytes) is valid UTF-8 without control characters. */
static int clean_text(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i;

	if (!tk_utf8_valid(s, len))
		return 0;
	for (i = 0; i < len; i++)
		if (p[i] < 0x20 || p[i] == 0x7f)
			return 0;
	return 1;
}

/* The text goes into a terminal: control characters and invalid bytes as
 * \xNN, cut short after 80 bytes. */
static void show_text(struct tk_buf *shown, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i, seq;

	for (i = 0; i < len && shown->len < 80; i += seq) {
		seq = tk_utf8_seqlen(p + i, len - i);
		if (!seq || p[i] < 0x20 || p[i] == 0x7f) {
			tk_buf_addf(shown, "\\x%02x", p[i]);
			seq = 1;
		} else {
			tk_buf_add(shown, s + i, seq);
		}
	}
	if (i < len)
		tk_buf_adds(shown, "...");
}

int tk_run_check_key(const char *key, struct tk_err *err)
{
	size_t len = strlen(key);
	struct tk_buf shown = TK_BUF_INIT;
	int ret;

	if (len > 0 && len <= TK_RUN_KEY_MAX && clean_text(key, len))
		return 0;
	show_text(&shown, key, len);
	ret = tk_err_set(err, TK_EDATA, "invalid key '%s' (%zu bytes; a key is 1-%d bytes of "
			 "UTF-8 text without control characters)", shown.buf, len,
			 TK_RUN_KEY_MAX);
	tk_buf_release(&shown);
	return ret;
}

int tk_run_check_tag(const char *name, const char *value, struct tk_err *err)
{
	size_t nlen = strlen(name), vlen = strlen(value);
	struct tk_buf shown = TK_BUF_INIT;
	int ret;

	if (nlen > 0 && nlen <= TK_RUN_KEY_MAX && !strchr(name, '=') &&
	    clean_text(name, nlen) && vlen <= TK_RUN_TAG_VALUE_MAX && clean_text(value, vlen))
		return 0;
	show_text(&shown, name, nlen);
	tk_buf_adds(&shown, "=");
	show_text(&shown, value, vlen);
	ret = tk_err_set(err, TK_EDATA, "invalid tag '%s' (a tag's name is 1-%d bytes, its "
			 "value at most %d, of UTF-8 text without control characters; "
			 "the name without '=')", shown.buf, TK_RUN_KEY_MAX,
			 TK_RUN_TAG_VALUE_MAX);
	tk_buf_release(&shown);
	return ret;
}

size_t tk_run_add_tags(struct tk_run *r, const struct tk_kvlist *tags, struct tk_err *err)
{
	struct tk_err ignored = TK_ERR_INIT;
	size_t i, refused = 0;

	for (i = 0; i < tags->nr; i++) {
		const struct tk_kv *t = &tags->items[i];

		if (!tk_run_check_tag(t->key, t->value, refused ? &ignored : err))
			tk_kvlist_set(&r->tags, t->key, t->value);
		else
			refused++;
	}
	return refused;
}

int tk_run_check(const struct tk_run *r, struct tk_err *err)
{
	size_t i;
	int ret = tk_run_check_key(r->key ? r->key : "", err);

	for (i = 0; !ret && i < r->tags.nr; i++)
		ret = tk_run_check_tag(r->tags.items[i].key, r->tags.items[i].value, err);
	return ret;
}

int tk_uuid_v4(char out[TK_RUN_ID_LEN + 1], struct tk_err *err)
{
	unsigned char b[16];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return tk_err_set(err, TK_EINTERNAL, "cannot get random bytes: %s",
					  strerror(errno));
		got += (size_t)n;
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, TK_RUN_ID_LEN + 1,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9],
		 b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}

int tk_uuid_valid(const char *s)
{
	size_t i;

	if (strlen(s) != TK_RUN_ID_LEN)
		return 0;
	for (i = 0; i < TK_RUN_ID_LEN; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !strchr("0123456789abcdef", s[i]))
			return 0;
	}
	return 1;
}

/* ---- JSON ---- */

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

static json_t *ci_json(const struct tk_ci_context *c)
{
	json_t *o = json_object();

	put_str(o, "provider", c->provider);
	put_str(o, "organization", c->organization);
	put_str(o, "pipeline", c->pipeline);
	put_str(o, "branch", c->branch);
	put_str(o, "commit", c->commit);
	put_str(o, "build_number", c->build_number);
	put_str(o, "build_url", c->build_url);
	put_str(o, "job_id", c->job_id);
	put_str(o, "step_key", c->step_key);
	put_str(o, "step_label", c->step_label);
	put_str(o, "base_branch", c->base_branch);
	put_str(o, "base_commit", c->base_commit);
	put_str(o, "head_commit", c->head_commit);
	put_str(o, "default_branch", c->default_branch);
	put_str(o, "host", c->host);
	json_object_set_new(o, "agent_tags", kvlist_json(&c->agent_tags));
	put_str(o, "slurm_job_id", c->slurm_job_id);
	put_str(o, "slurm_step_id", c->slurm_step_id);
	put_str(o, "slurm_procid", c->slurm_procid);
	put_int(o, "slurm_ntasks", c->slurm_ntasks);
	put_int(o, "slurm_cpus_per_task", c->slurm_cpus_per_task);
	put_str(o, "slurm_nodelist", c->slurm_nodelist);
	put_str(o, "slurm_partition", c->slurm_partition);
	return o;
}

static json_t *slurm_json(const struct tk_sacct *s)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	put_int(o, "maxrss_bytes", s->maxrss_bytes);
	put_str(o, "maxrss_step", s->maxrss_step);
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
		json_array_append_new(a, e);
	}
	json_object_set_new(o, "steps", a);
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

static void jw_ci(struct jw *w, const struct tk_ci_context *c)
{
	jw_key(w, "ci");
	jw_open(w, '{');
	jw_str(w, "provider", c->provider);
	jw_str(w, "organization", c->organization);
	jw_str(w, "pipeline", c->pipeline);
	jw_str(w, "branch", c->branch);
	jw_str(w, "commit", c->commit);
	jw_str(w, "build_number", c->build_number);
	jw_str(w, "build_url", c->build_url);
	jw_str(w, "job_id", c->job_id);
	jw_str(w, "step_key", c->step_key);
	jw_str(w, "step_label", c->step_label);
	jw_str(w, "base_branch", c->base_branch);
	jw_str(w, "base_commit", c->base_commit);
	jw_str(w, "head_commit", c->head_commit);
	jw_str(w, "default_branch", c->default_branch);
	jw_str(w, "host", c->host);
	jw_kvlist(w, "agent_tags", &c->agent_tags);
	jw_str(w, "slurm_job_id", c->slurm_job_id);
	jw_str(w, "slurm_step_id", c->slurm_step_id);
	jw_str(w, "slurm_procid", c->slurm_procid);
	jw_int(w, "slurm_ntasks", c->slurm_ntasks);
	jw_int(w, "slurm_cpus_per_task", c->slurm_cpus_per_task);
	jw_str(w, "slurm_nodelist", c->slurm_nodelist);
	jw_str(w, "slurm_partition", c->slurm_partition);
	jw_close(w, '}');
}

/* slurm_json's members, in its order. */
static void jw_slurm(struct jw *w, const struct tk_sacct *s)
{
	size_t i;

	jw_key(w, "slurm");
	jw_open(w, '{');
	jw_int(w, "maxrss_bytes", s->maxrss_bytes);
	jw_str(w, "maxrss_step", s->maxrss_step);
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
		jw_close(w, '}');
	}
	jw_close(w, ']');
	jw_close(w, '}');
}

/* The members and their order are tk_run_to_json's. */
static void write_compact(const struct tk_run *r, struct tk_buf *out)
{
	struct jw w = { out, TK_BUF_INIT, 1 };
	size_t i;

	jw_open(&w, '{');
	jw_str(&w, "format", "tracker-run");
	jw_int(&w, "version", 1);
	jw_key(&w, "run");
	jw_open(&w, '{');
	jw_str(&w, "id", r->id);
	jw_str(&w, "key", r->key);
	jw_str(&w, "status", tk_run_status_name(r->status));
	jw_key(&w, "partial");
	tk_buf_adds(out, r->partial ? "true" : "false");
	jw_int(&w, "started_at_us", r->started_at_us);
	jw_real(&w, "walltime_s", r->walltime_s);
	jw_real(&w, "user_s", r->user_s);
	jw_real(&w, "sys_s", r->sys_s);
	jw_int(&w, "maxrss_bytes", r->maxrss_bytes);
	jw_str(&w, "maxrss_source", r->maxrss_source);
	jw_int(&w, "wrapper_rss_bytes", r->wrapper_rss_bytes);
	jw_int(&w, "tree_rss_bytes", r->tree_rss_bytes);
	jw_int(&w, "tree_samples", r->tree_samples);
	jw_int(&w, "cgroup_peak_bytes", r->cgroup_peak_bytes);
	jw_int(&w, "exit_code", r->exit_code);
	jw_key(&w, "signal");
	tk_buf_addf(out, "%d", r->term_signal);
	if (r->rank >= 0) {
		jw_int(&w, "rank", r->rank);
		jw_str(&w, "rank_group", r->rank_group);
	}
	if (r->machine_class)
		jw_str(&w, "machine_class", r->machine_class);
	jw_key(&w, "argv");
	jw_open(&w, '[');
	if (r->argv) {
		char **a;

		for (a = r->argv; *a; a++) {
			if (!w.first)
				tk_buf_addch(out, ',');
			w.first = 0;
			jw_string(&w, *a);
		}
	}
	jw_close(&w, ']');
	jw_kvlist(&w, "tags", &r->tags);
	jw_ci(&w, &r->ci);
	if (r->nr_profiles) {
		jw_key(&w, "profiles");
		jw_open(&w, '[');
		for (i = 0; i < r->nr_profiles; i++) {
			if (!w.first)
				tk_buf_addch(out, ',');
			jw_open(&w, '{');
			jw_str(&w, "kind", r->profiles[i].kind);
			jw_str(&w, "unit", r->profiles[i].unit);
			jw_str(&w, "format", r->profiles[i].format);
			jw_str(&w, "file", r->profiles[i].file);
			jw_close(&w, '}');
		}
		jw_close(&w, ']');
	}
	if (r->slurm.nr)
		jw_slurm(&w, &r->slurm);
	jw_str(&w, "tracker_version", r->tracker_version);
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
	json_t *doc, *o, *argv;
	char *text;

	if (flags & TK_RUN_JSON_COMPACT) {
		write_compact(r, out);
		return 0;
	}
	doc = json_object();
	o = json_object();
	put_str(o, "id", r->id);
	put_str(o, "key", r->key);
	put_str(o, "status", tk_run_status_name(r->status));
	json_object_set_new(o, "partial", json_boolean(r->partial));
	put_int(o, "started_at_us", r->started_at_us);
	put_real(o, "walltime_s", r->walltime_s);
	put_real(o, "user_s", r->user_s);
	put_real(o, "sys_s", r->sys_s);
	put_int(o, "maxrss_bytes", r->maxrss_bytes);
	put_str(o, "maxrss_source", r->maxrss_source);
	put_int(o, "wrapper_rss_bytes", r->wrapper_rss_bytes);
	put_int(o, "tree_rss_bytes", r->tree_rss_bytes);
	put_int(o, "tree_samples", r->tree_samples);
	put_int(o, "cgroup_peak_bytes", r->cgroup_peak_bytes);
	put_int(o, "exit_code", r->exit_code);
	json_object_set_new(o, "signal", json_integer(r->term_signal));
	if (r->rank >= 0) {
		put_int(o, "rank", r->rank);
		put_str(o, "rank_group", r->rank_group);
	}
	if (r->machine_class)
		put_str(o, "machine_class", r->machine_class);
	argv = json_array();
	if (r->argv) {
		char **a;

		for (a = r->argv; *a; a++)
			json_array_append_new(argv, str_json(*a));
	}
	json_object_set_new(o, "argv", argv);
	json_object_set_new(o, "tags", kvlist_json(&r->tags));
	json_object_set_new(o, "ci", ci_json(&r->ci));
	if (r->nr_profiles) {
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
		json_object_set_new(o, "profiles", a);
	}
	if (r->slurm.nr)
		json_object_set_new(o, "slurm", slurm_json(&r->slurm));
	put_str(o, "tracker_version", r->tracker_version);

	json_object_set_new(doc, "format", json_string("tracker-run"));
	json_object_set_new(doc, "version", json_integer(1));
	json_object_set_new(doc, "run", o);
	text = json_dumps(doc, (flags & TK_RUN_JSON_COMPACT ? JSON_COMPACT : JSON_INDENT(2)) |
			  JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
	json_decref(doc);
	if (!text)
		return tk_err_set(err, TK_EINTERNAL, "cannot encode run record as JSON");
	tk_buf_adds(out, text);
	if (!(flags & TK_RUN_JSON_COMPACT))
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

static void read_ci(struct reader *rd, json_t *o, struct tk_ci_context *c)
{
	if (!o || json_is_null(o))
		return;
	if (!json_is_object(o)) {
		bad_field(rd, "ci", "an object");
		return;
	}
	get_str(rd, o, "provider", &c->provider);
	get_str(rd, o, "organization", &c->organization);
	get_str(rd, o, "pipeline", &c->pipeline);
	get_str(rd, o, "branch", &c->branch);
	get_str(rd, o, "commit", &c->commit);
	get_str(rd, o, "build_number", &c->build_number);
	get_str(rd, o, "build_url", &c->build_url);
	get_str(rd, o, "job_id", &c->job_id);
	get_str(rd, o, "step_key", &c->step_key);
	get_str(rd, o, "step_label", &c->step_label);
	get_str(rd, o, "base_branch", &c->base_branch);
	get_str(rd, o, "base_commit", &c->base_commit);
	get_str(rd, o, "head_commit", &c->head_commit);
	get_str(rd, o, "default_branch", &c->default_branch);
	get_str(rd, o, "host", &c->host);
	get_kv(rd, o, "agent_tags", &c->agent_tags);
	get_str(rd, o, "slurm_job_id", &c->slurm_job_id);
	get_str(rd, o, "slurm_step_id", &c->slurm_step_id);
	get_str(rd, o, "slurm_procid", &c->slurm_procid);
	get_intn(rd, o, "slurm_ntasks", &c->slurm_ntasks);
	get_intn(rd, o, "slurm_cpus_per_task", &c->slurm_cpus_per_task);
	get_str(rd, o, "slurm_nodelist", &c->slurm_nodelist);
	get_str(rd, o, "slurm_partition", &c->slurm_partition);
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

int tk_run_from_json(const char *text, size_t len, const char *name,
		     struct tk_run *r, struct tk_err *err)
{
	struct reader rd = { name, err, 0 };
	json_error_t jerr;
	json_t *doc, *o, *v;
	char *status = NULL, *id = NULL;
	int64_t signal = 0, partial = 0;

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
	get_str(&rd, o, "id", &id);
	if (!rd.failed && (!id || !tk_uuid_valid(id)))
		bad_field(&rd, "id", "a lower-case UUID");
	else if (id)
		memcpy(r->id, id, TK_RUN_ID_LEN + 1);
	free(id);
	get_str(&rd, o, "key", &r->key);
	if (!rd.failed && (!r->key || !*r->key))
		bad_field(&rd, "key", "a non-empty string");
	get_str(&rd, o, "status", &status);
	if (status && tk_run_status_parse(status, &r->status))
		bad_field(&rd, "status", "one of ok, failed, signaled, cancelled, timeout, error");
	free(status);
	v = json_object_get(o, "partial");
	if (v && json_is_boolean(v))
		partial = json_is_true(v);
	r->partial = (int)partial;
	get_int(&rd, o, "started_at_us", &r->started_at_us);
	get_real(&rd, o, "walltime_s", &r->walltime_s);
	get_real(&rd, o, "user_s", &r->user_s);
	get_real(&rd, o, "sys_s", &r->sys_s);
	get_int(&rd, o, "maxrss_bytes", &r->maxrss_bytes);
	get_str(&rd, o, "maxrss_source", &r->maxrss_source);
	get_int(&rd, o, "wrapper_rss_bytes", &r->wrapper_rss_bytes);
	get_int(&rd, o, "tree_rss_bytes", &r->tree_rss_bytes);
	get_int(&rd, o, "tree_samples", &r->tree_samples);
	get_int(&rd, o, "cgroup_peak_bytes", &r->cgroup_peak_bytes);
	get_intn(&rd, o, "exit_code", &r->exit_code);
	get_int(&rd, o, "signal", &signal);
	r->term_signal = (int)signal;
	get_intn(&rd, o, "rank", &r->rank);
	get_str(&rd, o, "rank_group", &r->rank_group);
	get_str(&rd, o, "machine_class", &r->machine_class);
	if (!rd.failed && (r->rank >= 0) != (r->rank_group && *r->rank_group))
		bad_field(&rd, "rank", "given together with a non-empty rank_group");
	read_argv(&rd, o, r);
	get_kv(&rd, o, "tags", &r->tags);
	read_ci(&rd, json_object_get(o, "ci"), &r->ci);
	read_profiles(&rd, o, r);
	read_slurm(&rd, o, r);
	get_str(&rd, o, "tracker_version", &r->tracker_version);
	json_decref(doc);
	return rd.failed ? TK_EDATA : 0;
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

void tk_run_format_summary(const struct tk_run *r, struct tk_buf *b)
{
	tk_buf_addf(b, "%s: %s, wall ", r->key, tk_run_status_name(r->status));
	tk_format_duration(b, r->walltime_s);
	tk_buf_adds(b, ", max RSS ");
	tk_format_bytes(b, r->maxrss_bytes);
	tk_buf_adds(b, ", tree RSS ");
	tk_format_bytes(b, r->tree_rss_bytes);
	if (r->term_signal)
		tk_buf_addf(b, ", signal %d", r->term_signal);
	else
		tk_buf_addf(b, ", exit %d", r->exit_code);
	tk_buf_addf(b, " (run %.8s)", r->id);
}
