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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

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
	struct tk_buf link, reset, retry_after, encoding;
	double end; /* the deadline of the tk_http_get under way */
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
		tk_buf_reset(&h->encoding);
	} else if ((v = header_value(data, len, "content-encoding", &vlen))) {
		tk_buf_reset(&h->encoding);
		tk_buf_add(&h->encoding, v, vlen);
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
	if (h->o.min_rate <= 0)
		h->o.min_rate = 1024;
	if (h->o.deadline_s <= 0)
		h->o.deadline_s = 600;
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
	tk_buf_init(&h->encoding, 0);
	h->link.cap = h->reset.cap = h->retry_after.cap = h->encoding.cap = HEADER_MAX;
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
	/* gzip only, inflated here under the body's cap (gunzip below):
	 * libcurl would inflate a bomb to the cap before it is refused */
	curl_easy_setopt(h->curl, CURLOPT_ACCEPT_ENCODING, "gzip");
	curl_easy_setopt(h->curl, CURLOPT_HTTP_CONTENT_DECODING, 0L);
	curl_easy_setopt(h->curl, CURLOPT_CONNECTTIMEOUT_MS,
			 (long)(h->o.connect_timeout_s * 1000));
	curl_easy_setopt(h->curl, CURLOPT_LOW_SPEED_LIMIT, (long)h->o.min_rate);
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
	tk_buf_release(&h->encoding);
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

static int too_long(struct tk_http *h, const char *url, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	int ret;

	tk_http_display_url(h, url, &shown);
	ret = tk_err_set(err, TK_EUNAVAIL, "cannot get '%s': took longer than %g s", shown.buf,
			 h->o.deadline_s);
	tk_buf_release(&shown);
	return ret;
}

/* Waits s seconds, or until the deadline: 0, 1 past the deadline, -1 stopped. */
static int wait_within(struct tk_http *h, double s)
{
	double left = h->end - tk_mono_s();

	if (s > h->o.max_wait_s)
		s = h->o.max_wait_s;
	if (s >= left)
		return wait_for(h, left > 0 ? left : 0) ? -1 : 1;
	return wait_for(h, s) ? -1 : 0;
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
		double delay = h->o.backoff_s * pow(2, tries), left;
		CURLcode rc;
		int w;

		if (stopped(h)) {
			ret = interrupted(err);
			goto out;
		}
		tk_buf_setlen(body, start);
		tk_buf_reset(&h->link);
		tk_buf_reset(&h->reset);
		tk_buf_reset(&h->retry_after);
		tk_buf_reset(&h->encoding);
		h->body = body;
		h->over_cap = 0;
		h->errbuf[0] = '\0';
		*status = 0;
		left = h->end - tk_mono_s();
		if (left <= 0) {
			ret = too_long(h, url, err);
			goto out;
		}
		curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, (long)(left * 1000) + 1);
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
		if (rc == CURLE_OPERATION_TIMEDOUT && tk_mono_s() >= h->end) {
			ret = too_long(h, url, err);
			goto out;
		}
		if (rc != CURLE_OK) {
			if (transient(rc) && tries < h->o.retries) {
				w = wait_within(h, delay);
				if (w) {
					ret = w < 0 ? interrupted(err) : too_long(h, url, err);
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
			w = wait_within(h, s);
			if (w) {
				ret = w < 0 ? interrupted(err) : too_long(h, url, err);
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

/* gzip's ISIZE: the inflated size mod 2^32, in the last four bytes */
static uint32_t gzip_isize(const unsigned char *in, size_t len)
{
	return (uint32_t)in[len - 4] | (uint32_t)in[len - 3] << 8 | (uint32_t)in[len - 2] << 16 |
	       (uint32_t)in[len - 1] << 24;
}

/*
 * Inflates the gzip body at body[start..] in place, refusing before a
 * byte is inflated a body whose trailer declares more than the cap, or
 * fewer bytes than its compressed length can hold (deflate grows
 * nothing by more than 5 bytes in 65535: a smaller ISIZE is a lie or
 * wrapped past 4 GiB). Inflating stops once past the declared size (a
 * lie, or members before the last one) and at the cap: memory stays
 * within what the trailer declared.
 */
static int gunzip(struct tk_http *h, const char *url, struct tk_buf *body, size_t start,
		  struct tk_err *err)
{
	struct tk_buf raw = TK_BUF_INIT, shown = TK_BUF_INIT;
	size_t len = body->len - start, room = body->cap ? body->cap - start : SIZE_MAX;
	const unsigned char *in;
	unsigned char chunk[65536];
	uint32_t isize;
	z_stream z;
	int zr, ret = 0;

	tk_http_display_url(h, url, &shown);
	if (len < 18) {
		ret = tk_err_set(err, TK_EDATA, "the gzip body of '%s' is cut short", shown.buf);
		goto out;
	}
	tk_buf_add(&raw, body->buf + start, len);
	tk_buf_setlen(body, start);
	in = (const unsigned char *)raw.buf;
	isize = gzip_isize(in, len);
	if (isize > room) {
		ret = tk_err_set(err, TK_EDATA, "the response of '%s' declares %lu bytes once "
				 "inflated, over %zu bytes: refused before inflating", shown.buf,
				 (unsigned long)isize, body->cap);
		goto out;
	}
	if (len > (size_t)isize + isize / 65535 * 5 + 1024) {
		ret = tk_err_set(err, TK_EDATA, "the response of '%s' declares %lu bytes once "
				 "inflated, fewer than its %zu compressed bytes hold: refused "
				 "before inflating", shown.buf, (unsigned long)isize, len);
		goto out;
	}
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		ret = tk_err_set(err, TK_EINTERNAL, "cannot inflate '%s': out of memory", shown.buf);
		goto out;
	}
	z.next_in = (unsigned char *)raw.buf;
	z.avail_in = (uInt)len;
	for (;;) {
		size_t made;

		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		made = sizeof(chunk) - z.avail_out;
		if (made && tk_buf_add(body, chunk, made)) {
			ret = tk_err_set(err, TK_EDATA, "the response of '%s' is over %zu bytes "
					 "once inflated", shown.buf, body->cap);
			break;
		}
		/* a trailer that lies (or gzip members before the last) */
		if (body->len - start > isize) {
			ret = tk_err_set(err, TK_EDATA, "the response of '%s' inflates to more "
					 "than the %lu bytes its gzip trailer declares", shown.buf,
					 (unsigned long)isize);
			break;
		}
		if (zr == Z_STREAM_END) {
			if (!z.avail_in)
				break;
			inflateReset(&z); /* another gzip member follows */
			continue;
		}
		if (zr == Z_OK || (zr == Z_BUF_ERROR && made))
			continue;
		ret = tk_err_set(err, TK_EDATA, "cannot inflate the response of '%s': %s",
				 shown.buf, zr == Z_BUF_ERROR ? "cut short" : z.msg ? z.msg : "corrupt");
		break;
	}
	inflateEnd(&z);
out:
	if (ret)
		tk_buf_setlen(body, start);
	tk_buf_release(&raw);
	tk_buf_release(&shown);
	return ret;
}

/* The final response's body as sent: identity, or gzip inflated here. */
static int decode(struct tk_http *h, const char *url, struct tk_buf *body, size_t start,
		  struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	const char *e = h->encoding.buf;
	int ret;

	if (!h->encoding.len || !strcasecmp(e, "identity"))
		return 0;
	if (!strcasecmp(e, "gzip") || !strcasecmp(e, "x-gzip"))
		return gunzip(h, url, body, start, err);
	tk_buf_setlen(body, start);
	tk_http_display_url(h, url, &shown);
	ret = tk_err_set(err, TK_EDATA, "the response of '%s' is in the content encoding '%.40s', "
			 "which was not asked for", shown.buf, e);
	tk_buf_release(&shown);
	return ret;
}

int tk_http_is_plain_remote(const char *url)
{
	const char *host, *end, *at;
	char name[256];
	size_t n;

	if (strncasecmp(url, "http://", 7))
		return 0;
	host = url + 7;
	end = host + strcspn(host, "/?#");
	for (at = host; at < end; at++)
		if (*at == '@')
			host = at + 1;
	if (*host == '[') {
		const char *close = memchr(host, ']', (size_t)(end - host));

		end = close ? close + 1 : end;
	} else {
		const char *colon = memchr(host, ':', (size_t)(end - host));

		if (colon)
			end = colon;
	}
	n = (size_t)(end - host);
	if (!n || n >= sizeof(name))
		return 1;
	memcpy(name, host, n);
	name[n] = '\0';
	lower(name);
	if (!strcmp(name, "localhost") || !strcmp(name, "[::1]"))
		return 0;
	if (!strncmp(name, "127.", 4) && strspn(name, "0123456789.") == n)
		return 0;
	return 1;
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

	h->end = tk_mono_s() + h->o.deadline_s;
	for (hops = 0;; hops++) {
		char *next = NULL;

		ret = get_one(h, cur, body, start, &res->status, &res->authed, err);
		if (ret)
			break;
		if (res->status >= 200 && res->status < 300) {
			tk_buf_reset(&res->link);
			tk_buf_add(&res->link, h->link.buf, h->link.len);
			ret = decode(h, cur, body, start, err);
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
