#include "core/base/escape.h"
#include "core/model/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

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
	[TK_RUN_OOM] = "oom",
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
	tk_timeline_release(&r->timeline);
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

int tk_run_check_key(const char *key, struct tk_err *err)
{
	size_t len = strlen(key);
	struct tk_buf shown = TK_BUF_INIT;
	int ret;

	if (len > 0 && len <= TK_RUN_KEY_MAX && clean_text(key, len))
		return 0;
	tk_text_escape_cut(&shown, key, len, 80);
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
	tk_text_escape_cut(&shown, name, nlen, 80);
	tk_buf_adds(&shown, "=");
	tk_text_escape_cut(&shown, value, vlen, 80);
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
