/*
 * Picks the store backend for a URL from plugins/store/backends.c, opens it and
 * brings its schema up to date.
 */
#include "core/store/store.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "core/base/banned.h"

static int no_backend(const char *url, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	int ret;

	tk_store_redact_url(url, &shown);
	ret = tk_err_set(err, TK_EUSAGE,
			  "no store understands the database URL '%s' "
			  "(use a file path, sqlite:PATH or postgresql://...)", shown.buf);
	tk_buf_release(&shown);
	return ret;
}

void tk_store_redact_url(const char *url, struct tk_buf *out)
{
	const char *scheme = strstr(url, "://");
	const char *p = url, *q;

	if (scheme) {
		const char *auth = scheme + 3;
		size_t end = strcspn(auth, "/?#");
		const char *at = NULL, *colon;

		/* the last '@' of the authority ends the user information */
		for (q = auth; q < auth + end; q++)
			if (*q == '@')
				at = q;
		colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
		if (colon) {
			tk_buf_add(out, url, (size_t)(colon + 1 - url));
			tk_buf_adds(out, "***");
			p = at;
		}
	}
	/* password=... in the query, up to the next '&' */
	while ((q = strstr(p, "password="))) {
		if (q > url && q[-1] != '?' && q[-1] != '&') {
			tk_buf_add(out, p, (size_t)(q + 9 - p));
			p = q + 9;
			continue;
		}
		tk_buf_add(out, p, (size_t)(q + 9 - p));
		tk_buf_adds(out, "***");
		p = q + 9 + strcspn(q + 9, "&#");
	}
	tk_buf_adds(out, p);
}

int tk_store_open_opts(const char *url, const struct tk_store_opts *o,
		       struct tk_store **out, struct tk_err *err)
{
	const struct tk_store_ops *b;
	struct tk_store *s = NULL;
	int ret;

	*out = NULL;
	if (!url || !*url)
		return tk_err_set(err, TK_EUSAGE, "no database given (empty URL)");
	b = tk_store_backend_for(url);
	if (!b)
		return no_backend(url, err);
	ret = b->open(url, o, &s, err);
	if (ret)
		return ret;
	s->cancel = o->cancel;
	ret = s->ops->migrate(s, err);
	if (ret) {
		s->ops->close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int tk_store_open_flags(const char *url, unsigned flags, struct tk_store **out,
			struct tk_err *err)
{
	struct tk_store_opts o = { flags, NULL };

	return tk_store_open_opts(url, &o, out, err);
}

int tk_store_open(const char *url, struct tk_store **out, struct tk_err *err)
{
	return tk_store_open_flags(url, 0, out, err);
}

void tk_store_close(struct tk_store *s)
{
	if (s)
		s->ops->close(s);
}


struct copy {
	struct tk_store *dst;
	struct tk_store_copy_stats *stats;
	struct tk_err *err;
	int failed; /* dst's error code, stored in err */
};

static int copy_run(const struct tk_run *r, void *data)
{
	struct copy *c = data;
	int inserted = 0;

	c->failed = tk_store_put_run(c->dst, r, &inserted, c->err);
	if (c->failed)
		return 1;
	c->stats->runs++;
	c->stats->runs_stored += inserted ? 1 : 0;
	return 0;
}

static int copy_profile(const struct tk_profile_blob *b, void *data)
{
	struct copy *c = data;

	c->failed = tk_store_put_profile(c->dst, b, c->err);
	if (c->failed)
		return 1;
	c->stats->profiles++;
	return 0;
}

int tk_store_copy(struct tk_store *src, struct tk_store *dst,
		  struct tk_store_copy_stats *stats, struct tk_err *err)
{
	struct copy c = { dst, stats, err, 0 };
	struct tk_profile_each each = { copy_profile, &c };
	struct tk_run_query q;
	int ret;

	memset(stats, 0, sizeof(*stats));
	memset(&q, 0, sizeof(q));
	ret = tk_store_query_runs(src, &q, copy_run, &c, err);
	if (ret > 0)
		return c.failed;
	if (ret)
		return ret;
	ret = src->ops->ctrl(src, TK_STORE_CTRL_EACH_PROFILE, &each, err);
	if (ret > 0)
		return c.failed;
	return ret;
}

struct prefix_matches {
	char ids[2][TK_RUN_ID_LEN + 1];
	int n;
};

static int take_match(const struct tk_run_summary *s, void *data)
{
	struct prefix_matches *m = data;

	if (m->n < 2 && s->run_id) {
		snprintf(m->ids[m->n], sizeof(m->ids[m->n]), "%s", s->run_id);
		m->n++;
	}
	return 0;
}

static int found_one(const struct tk_run_summary *r, void *data)
{
	(void)r;
	*(int *)data = 1;
	return 1;
}

int tk_store_any_run(struct tk_store *s, const struct tk_run_query *q, struct tk_err *err)
{
	struct tk_run_query one = *q;
	int found = 0, ret;

	one.limit = 1;
	ret = tk_store_query_summaries(s, &one, found_one, &found, err);
	return ret < 0 ? ret : found;
}

static int take_key(const struct tk_run_summary *r, void *data)
{
	tk_buf_adds(data, r->key ? r->key : "");
	return 1;
}

int tk_store_run_key(struct tk_store *s, const char *id, struct tk_buf *out,
		     struct tk_err *err)
{
	struct tk_run_query q;
	int ret;

	memset(&q, 0, sizeof(q));
	q.run_id = id;
	ret = tk_store_query_summaries(s, &q, take_key, out, err);
	return ret < 0 ? ret : 0;
}

int tk_store_resolve_run_id(struct tk_store *s, const char *given, const char *const *keys,
			    struct tk_buf *out, struct tk_err *err)
{
	struct prefix_matches m;
	struct tk_run_query q;
	size_t len = strlen(given);
	int ret;

	tk_buf_reset(out);
	if (len < TK_RUN_ID_MIN_PREFIX || len >= TK_RUN_ID_LEN ||
	    strspn(given, "0123456789abcdef-") != len) {
		tk_buf_adds(out, given);
		return 0;
	}
	memset(&m, 0, sizeof(m));
	memset(&q, 0, sizeof(q));
	q.run_id_prefix = given;
	q.keys = keys;
	q.limit = 2;
	q.chart_only = 1;
	ret = tk_store_query_summaries(s, &q, take_match, &m, err);
	if (ret)
		return ret;
	if (m.n > 1)
		return tk_err_set(err, TK_EUSAGE, "run id '%s' is ambiguous: more than one run's "
				  "id starts with it (%s, %s); give more of it", given, m.ids[0],
				  m.ids[1]);
	tk_buf_adds(out, m.n ? m.ids[0] : given);
	return 0;
}
