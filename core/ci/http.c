/*
 * HTTP GET with bounded retries over libcurl (contract in core/ci/http.h).
 *
 * libcurl's own redirect following is off: it would decide on its own
 * whether the Authorization header goes along, and an artifact download
 * is a 302 to a storage host that must never see the API token. Each hop
 * is a request of its own here, with the header only for the API origin.
 */
#include "core/ci/http.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/base/lazy-curl.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#ifndef TRACKER_VERSION
#define TRACKER_VERSION "0"
#endif

#define HEADER_MAX (64 * 1024)

struct tk_http {
	CURL *curl;
	struct tk_http_opts o;
	struct curl_slist *plain, *authed;
	char *auth_header;
	size_t auth_header_len;
	char *origin; /* "scheme://host:port", lower-case; NULL: no auth */
	/* the response being received */
	struct tk_buf *body;
	int over_cap;
	struct tk_buf link, reset, retry_after;
	char errbuf[CURL_ERROR_SIZE];
};

void tk_http_opts_init(struct tk_http_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->retries = -1;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* "scheme://host:port" of url into out; -1 when url is no absolute
 * http(s) URL. */
static int origin_of(const char *url, struct tk_buf *out)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL;
	int ret = -1;

	if (!u)
		return -1;
	if (!curl_url_set(u, CURLUPART_URL, url, 0) &&
	    !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) &&
	    !curl_url_get(u, CURLUPART_HOST, &host, 0) &&
	    !curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT)) {
		lower(scheme);
		lower(host);
		if (!strcmp(scheme, "http") || !strcmp(scheme, "https")) {
			tk_buf_addf(out, "%s://%s:%s", scheme, host, port);
			ret = 0;
		}
	}
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return ret;
}

void tk_http_display_url(const struct tk_http *h, const char *url, struct tk_buf *out)
{
	struct tk_buf origin = TK_BUF_INIT;

	if (h->origin && !origin_of(url, &origin) && !strcmp(origin.buf, h->origin))
		tk_buf_adds(out, url);
	else
		tk_buf_add(out, url, strcspn(url, "?#"));
	tk_buf_release(&origin);
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct tk_http *h = arg;

	if (tk_buf_add(h->body, data, size * n)) {
		h->over_cap = 1;
		return 0;
	}
	return size * n;
}

/* The value of "Name: value" when name matches, trimmed; NULL else. */
static const char *header_value(const char *line, size_t len, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	const char *v, *end = line + len;

	if (len <= nl || strncasecmp(line, name, nl) || line[nl] != ':')
		return NULL;
	v = line + nl + 1;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	*vlen = (size_t)(end - v);
	return v;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	struct tk_http *h = arg;
	size_t len = size * n, vlen;
	const char *v;

	if (len >= 5 && !strncmp(data, "HTTP/", 5)) {
		/* a new response (after a 100 Continue): forget the last one's */
		tk_buf_reset(&h->link);
		tk_buf_reset(&h->reset);
		tk_buf_reset(&h->retry_after);
	} else if ((v = header_value(data, len, "link", &vlen))) {
		/* repeated Link headers are one list */
		if (h->link.len)
			tk_buf_adds(&h->link, ", ");
		tk_buf_add(&h->link, v, vlen);
	} else if ((v = header_value(data, len, "ratelimit-reset", &vlen))) {
		tk_buf_reset(&h->reset);
		tk_buf_add(&h->reset, v, vlen);
	} else if ((v = header_value(data, len, "retry-after", &vlen))) {
		tk_buf_reset(&h->retry_after);
		tk_buf_add(&h->retry_after, v, vlen);
	}
	return len;
}

static int stopped(const struct tk_http *h)
{
	return h->o.stop && *h->o.stop;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	return stopped(arg);
}

/* Sleeps s seconds in short steps; -1 when stopped meanwhile. */
static int wait_for(const struct tk_http *h, double s)
{
	double end = tk_mono_s() + s;

	for (;;) {
		double left = end - tk_mono_s();
		struct timespec ts;

		if (stopped(h))
			return -1;
		if (left <= 0)
			return 0;
		if (left > 0.05)
			left = 0.05;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
}

int tk_http_new(const struct tk_http_opts *o, struct tk_http **out, struct tk_err *err)
{
	struct tk_http *h;
	struct tk_buf origin = TK_BUF_INIT, hdr = TK_BUF_INIT;
	const char *ua = "User-Agent: tracker/" TRACKER_VERSION;
	long stall;
	int ret;

	*out = NULL;
	ret = tk_curl_load(err);
	if (ret)
		return ret;
	h = tk_xcalloc(1, sizeof(*h));
	h->o = *o;
	if (h->o.connect_timeout_s <= 0)
		h->o.connect_timeout_s = 10;
	if (h->o.stall_timeout_s <= 0)
		h->o.stall_timeout_s = 30;
	if (h->o.retries < 0)
		h->o.retries = 4;
	if (h->o.backoff_s <= 0)
		h->o.backoff_s = 1;
	if (h->o.max_wait_s <= 0)
		h->o.max_wait_s = 60;
	h->o.auth = h->o.auth_origin = NULL;
	tk_buf_init(&h->link, 0);
	tk_buf_init(&h->reset, 0);
	tk_buf_init(&h->retry_after, 0);
	h->link.cap = h->reset.cap = h->retry_after.cap = HEADER_MAX;
	if (o->auth) {
		if (!o->auth_origin || origin_of(o->auth_origin, &origin)) {
			tk_http_free(h);
			return tk_err_set(err, TK_EUSAGE, "the API URL must be an http or "
					  "https URL");
		}
		h->origin = tk_buf_detach(&origin, NULL);
		tk_buf_addf(&hdr, "Authorization: %s", o->auth);
		h->auth_header = tk_buf_detach(&hdr, &h->auth_header_len);
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		tk_http_free(h);
		return tk_err_set(err, TK_EINTERNAL, "cannot initialise libcurl");
	}
	h->curl = curl_easy_init();
	h->plain = curl_slist_append(NULL, ua);
	h->authed = curl_slist_append(NULL, ua);
	if (h->authed && h->auth_header)
		h->authed = curl_slist_append(h->authed, h->auth_header);
	if (!h->curl || !h->plain || !h->authed) {
		tk_http_free(h);
		return tk_err_set(err, TK_EINTERNAL, "cannot initialise libcurl");
	}
	stall = (long)ceil(h->o.stall_timeout_s);
	curl_easy_setopt(h->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(h->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h->curl, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(h->o.connect_timeout_s * 1000));
	curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_TIME, stall < 1 ? 1L : stall);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h->curl, CURLOPT_HEADERDATA, h);
	curl_easy_setopt(h->curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h->curl, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(h->curl, CURLOPT_XFERINFODATA, h);
	curl_easy_setopt(h->curl, CURLOPT_ERRORBUFFER, h->errbuf);
	*out = h;
	return 0;
}

void tk_http_free(struct tk_http *h)
{
	if (!h)
		return;
	if (h->curl) {
		curl_easy_cleanup(h->curl);
		curl_global_cleanup();
	}
	curl_slist_free_all(h->plain);
	if (h->authed) {
		struct curl_slist *l;

		for (l = h->authed; l; l = l->next)
			explicit_bzero(l->data, strlen(l->data));
		curl_slist_free_all(h->authed);
	}
	if (h->auth_header) {
		explicit_bzero(h->auth_header, h->auth_header_len);
		free(h->auth_header);
	}
	free(h->origin);
	tk_buf_release(&h->link);
	tk_buf_release(&h->reset);
	tk_buf_release(&h->retry_after);
	free(h);
}

static int transient(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return 1;
	default:
		return 0;
	}
}

/* Seconds from a RateLimit-Reset or Retry-After value; -1 when it is
 * not a number of seconds. */
static double header_seconds(const struct tk_buf *v)
{
	double s;

	if (!v->len || tk_parse_double(v->buf, &s) || !(s >= 0))
		return -1;
	return s;
}

static int interrupted(struct tk_err *err)
{
	return tk_err_set(err, TK_EUNAVAIL, "interrupted");
}

/* One hop: GET url with retries. Returns 0 with *status set, or an error. */
static int get_one(struct tk_http *h, const char *url, struct tk_buf *body, size_t start,
		   long *status, int *authed, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	struct tk_buf origin = TK_BUF_INIT;
	int with_auth = 0, tries, ret = 0;

	*authed = 0;
	if (origin_of(url, &origin)) {
		tk_http_display_url(h, url, &shown);
		ret = tk_err_set(err, TK_EUSAGE, "not an http or https URL: '%s'", shown.buf);
		goto out;
	}
	with_auth = h->origin && !strcmp(origin.buf, h->origin);
	*authed = with_auth;
	curl_easy_setopt(h->curl, CURLOPT_URL, url);
	curl_easy_setopt(h->curl, CURLOPT_HTTPHEADER, with_auth ? h->authed : h->plain);
	for (tries = 0;; tries++) {
		double delay = h->o.backoff_s * pow(2, tries);
		CURLcode rc;

		if (stopped(h)) {
			ret = interrupted(err);
			goto out;
		}
		tk_buf_setlen(body, start);
		tk_buf_reset(&h->link);
		tk_buf_reset(&h->reset);
		tk_buf_reset(&h->retry_after);
		h->body = body;
		h->over_cap = 0;
		h->errbuf[0] = '\0';
		*status = 0;
		rc = curl_easy_perform(h->curl);
		if (h->over_cap) {
			tk_buf_setlen(body, start);
			tk_http_display_url(h, url, &shown);
			ret = tk_err_set(err, TK_EDATA, "the response of '%s' is over %zu bytes",
					 shown.buf, body->cap);
			goto out;
		}
		if (stopped(h) || rc == CURLE_ABORTED_BY_CALLBACK) {
			ret = interrupted(err);
			goto out;
		}
		if (rc != CURLE_OK) {
			if (transient(rc) && tries < h->o.retries) {
				if (wait_for(h, delay < h->o.max_wait_s ? delay : h->o.max_wait_s)) {
					ret = interrupted(err);
					goto out;
				}
				continue;
			}
			tk_http_display_url(h, url, &shown);
			ret = tk_err_set(err, TK_EUNAVAIL, "cannot get '%s': %s (%d attempt%s)",
					 shown.buf, h->errbuf[0] ? h->errbuf : curl_easy_strerror(rc),
					 tries + 1, tries ? "s" : "");
			goto out;
		}
		curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, status);
		if ((*status == 429 || *status >= 500) && tries < h->o.retries) {
			double s = *status == 429 ? header_seconds(&h->reset) : -1;

			if (s < 0 && *status == 429)
				s = header_seconds(&h->retry_after);
			if (s < 0)
				s = delay;
			if (wait_for(h, s < h->o.max_wait_s ? s : h->o.max_wait_s)) {
				ret = interrupted(err);
				goto out;
			}
			continue;
		}
		break;
	}
out:
	tk_buf_release(&shown);
	tk_buf_release(&origin);
	return ret;
}

static int is_redirect(long status)
{
	return status == 301 || status == 302 || status == 303 || status == 307 ||
	       status == 308;
}

int tk_http_get(struct tk_http *h, const char *url, struct tk_buf *body,
		struct tk_http_result *res, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	size_t start = body->len;
	char *cur = tk_xstrdup(url);
	int hops, ret;

	for (hops = 0;; hops++) {
		char *next = NULL;

		ret = get_one(h, cur, body, start, &res->status, &res->authed, err);
		if (ret)
			break;
		if (res->status >= 200 && res->status < 300) {
			tk_buf_reset(&res->link);
			tk_buf_add(&res->link, h->link.buf, h->link.len);
			break;
		}
		tk_buf_setlen(body, start);
		tk_buf_reset(&shown);
		tk_http_display_url(h, cur, &shown);
		if (!is_redirect(res->status)) {
			ret = tk_err_set(err, TK_EUNAVAIL, "HTTP %ld from '%s'", res->status,
					 shown.buf);
			break;
		}
		curl_easy_getinfo(h->curl, CURLINFO_REDIRECT_URL, &next);
		if (!next) {
			ret = tk_err_set(err, TK_EUNAVAIL, "HTTP %ld from '%s' without a Location",
					 res->status, shown.buf);
			break;
		}
		if (hops >= TK_HTTP_MAX_REDIRECTS) {
			tk_buf_reset(&shown);
			tk_http_display_url(h, url, &shown);
			ret = tk_err_set(err, TK_EUNAVAIL, "too many redirects from '%s'",
					 shown.buf);
			break;
		}
		free(cur);
		cur = tk_xstrdup(next);
	}
	free(cur);
	tk_buf_release(&shown);
	return ret;
}
