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
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "core/base/fsutil.h"
#include "core/base/lazy-curl.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

#ifndef TRACKER_VERSION
#define TRACKER_VERSION "0"
#endif

#define HEADER_MAX (64 * 1024)
#define CHUNK (64 * 1024)
#define DEADLINE_SLACK_S 0.25

/*
 * Where a response's body goes: appended to buf (from start on), or
 * written to the file fd (tk_http_get_file) from its start. cap bounds
 * the bytes kept; got counts them in a file.
 */
struct sink {
	struct tk_buf *buf;
	size_t start;
	int fd;
	uint64_t cap, got;
	int write_errno; /* the file could not be written */
};

struct tk_http {
	CURL *curl;
	struct tk_http_opts o;
	struct curl_slist *plain, *authed;
	char *auth_header;
	size_t auth_header_len;
	char *origin; /* "scheme://host:port", lower-case; NULL: no auth */
	/* the response being received */
	struct sink *sink;
	int over_cap;
	struct tk_buf link, reset, retry_after, encoding;
	double end; /* the deadline of the tk_http_get under way */
	int local_error; /* its error is the file's, not the server's */
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

/* All of data[0..len) to fd; 0, or -1 with errno set. */
static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct tk_http *h = arg;
	struct sink *s = h->sink;
	size_t len = size * n;

	if (s->fd < 0) {
		if (tk_buf_add(s->buf, data, len)) {
			h->over_cap = 1;
			return 0;
		}
		return len;
	}
	if (s->cap && len > s->cap - s->got) {
		h->over_cap = 1;
		return 0;
	}
	if (write_all(s->fd, data, len)) {
		s->write_errno = errno;
		return 0;
	}
	s->got += len;
	return len;
}

/* Empties the sink for another try: nothing of an earlier one is kept. */
static int sink_reset(struct sink *s)
{
	if (s->fd < 0) {
		tk_buf_setlen(s->buf, s->start);
		return 0;
	}
	s->got = 0;
	if (ftruncate(s->fd, 0) || lseek(s->fd, 0, SEEK_SET) < 0) {
		s->write_errno = errno;
		return -1;
	}
	return 0;
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

/* The file a body goes to cannot be written (a full disk): TK_EUNAVAIL. */
static int cannot_write(struct tk_http *h, const char *url, const struct sink *s,
			struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	int ret;

	h->local_error = 1;
	tk_http_display_url(h, url, &shown);
	ret = tk_err_set(err, TK_EUNAVAIL, "cannot keep the response of '%s': %s", shown.buf,
			 strerror(s->write_errno ? s->write_errno : EIO));
	tk_buf_release(&shown);
	return ret;
}

/* One hop: GET url with retries. Returns 0 with *status set, or an error. */
static int get_one(struct tk_http *h, const char *url, struct sink *sink, long *status,
		   int *authed, struct tk_err *err)
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
		if (sink_reset(sink)) {
			ret = cannot_write(h, url, sink, err);
			goto out;
		}
		tk_buf_reset(&h->link);
		tk_buf_reset(&h->reset);
		tk_buf_reset(&h->retry_after);
		tk_buf_reset(&h->encoding);
		h->sink = sink;
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
			sink_reset(sink);
			tk_http_display_url(h, url, &shown);
			ret = tk_err_set(err, TK_EDATA, "the response of '%s' is over %llu bytes",
					 shown.buf, (unsigned long long)sink->cap);
			goto out;
		}
		if (sink->write_errno) {
			ret = cannot_write(h, url, sink, err);
			goto out;
		}
		if (stopped(h) || rc == CURLE_ABORTED_BY_CALLBACK) {
			ret = interrupted(err);
			goto out;
		}
		/* libcurl's whole-transfer timeout was seen to end a transfer
		 * before our clock reached the deadline (after 2957 ms of a
		 * 3 s deadline, on a loaded machine): a timeout that close to
		 * it is the deadline's, not a slow server's */
		if (rc == CURLE_OPERATION_TIMEDOUT && tk_mono_s() >= h->end - DEADLINE_SLACK_S) {
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

/* gzip's ISIZE: the inflated size mod 2^32, the four bytes at t (a
 * body's last four) */
static uint32_t gzip_isize(const unsigned char *t)
{
	return (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 | (uint32_t)t[3] << 24;
}

/*
 * A gzip body of len bytes whose trailer declares isize, to be inflated
 * into room bytes (of a cap of cap): refused before a byte is inflated
 * when isize is over the room, or fewer bytes than its compressed length
 * can hold (deflate grows nothing by more than 5 bytes in 65535: a
 * smaller ISIZE is a lie or wrapped past 4 GiB).
 */
static int gzip_precheck(const char *shown, uint32_t isize, uint64_t len, uint64_t room,
			 uint64_t cap, struct tk_err *err)
{
	if (isize > room)
		return tk_err_set(err, TK_EDATA, "the response of '%s' declares %lu bytes once "
				  "inflated, over %llu bytes: refused before inflating", shown,
				  (unsigned long)isize, (unsigned long long)cap);
	if (len > (uint64_t)isize + isize / 65535 * 5 + 1024)
		return tk_err_set(err, TK_EDATA, "the response of '%s' declares %lu bytes once "
				  "inflated, fewer than its %llu compressed bytes hold: refused "
				  "before inflating", shown, (unsigned long)isize,
				  (unsigned long long)len);
	return 0;
}

/*
 * Inflates the gzip body at body[start..] in place, after gzip_precheck.
 * Inflating stops once past the declared size (a lie, or members before
 * the last one) and at the cap: memory stays within what the trailer
 * declared.
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
	isize = gzip_isize(in + len - 4);
	ret = gzip_precheck(shown.buf, isize, len, room, body->cap, err);
	if (ret)
		goto out;
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

/* n bytes at offset off of fd into buf; 0, or -1 with errno set (EIO: the
 * file is shorter). */
static int read_at(int fd, void *buf, size_t n, off_t off)
{
	char *p = buf;

	while (n) {
		ssize_t got = pread(fd, p, n, off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (!got)
				errno = EIO;
			return -1;
		}
		p += got;
		off += got;
		n -= (size_t)got;
	}
	return 0;
}

/*
 * The gzip body of s->got bytes in the file in_fd, after gzip_precheck,
 * inflated into out_fd in CHUNK pieces, with the bounds of gunzip: at
 * most s->cap bytes and never past the declared size. Memory is two
 * chunks and zlib's window, whatever the sizes.
 */
static int gunzip_file(struct tk_http *h, const char *url, struct sink *s, int in_fd,
		       int out_fd, uint64_t *made_out, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	unsigned char *in = tk_xmalloc(CHUNK), *chunk = tk_xmalloc(CHUNK), t[4];
	uint64_t off = 0, made = 0;
	uint32_t isize;
	z_stream z;
	int zr = Z_OK, ret = 0, started = 0;

	tk_http_display_url(h, url, &shown);
	if (s->got < 18) {
		ret = tk_err_set(err, TK_EDATA, "the gzip body of '%s' is cut short", shown.buf);
		goto out;
	}
	if (read_at(in_fd, t, 4, (off_t)(s->got - 4))) {
		s->write_errno = errno;
		ret = cannot_write(h, url, s, err);
		goto out;
	}
	isize = gzip_isize(t);
	ret = gzip_precheck(shown.buf, isize, s->got, s->cap ? s->cap : UINT64_MAX, s->cap, err);
	if (ret)
		goto out;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		ret = tk_err_set(err, TK_EINTERNAL, "cannot inflate '%s': out of memory", shown.buf);
		goto out;
	}
	started = 1;
	for (;;) {
		size_t n;

		if (!z.avail_in && off < s->got) {
			n = s->got - off < CHUNK ? (size_t)(s->got - off) : CHUNK;
			if (read_at(in_fd, in, n, (off_t)off)) {
				s->write_errno = errno;
				ret = cannot_write(h, url, s, err);
				break;
			}
			off += n;
			z.next_in = in;
			z.avail_in = (uInt)n;
		}
		z.next_out = chunk;
		z.avail_out = CHUNK;
		zr = inflate(&z, Z_NO_FLUSH);
		n = CHUNK - z.avail_out;
		if (s->cap && n > s->cap - made) {
			ret = tk_err_set(err, TK_EDATA, "the response of '%s' is over %llu bytes "
					 "once inflated", shown.buf, (unsigned long long)s->cap);
			break;
		}
		if (n && write_all(out_fd, chunk, n)) {
			s->write_errno = errno;
			ret = cannot_write(h, url, s, err);
			break;
		}
		made += n;
		/* a trailer that lies (or gzip members before the last) */
		if (made > isize) {
			ret = tk_err_set(err, TK_EDATA, "the response of '%s' inflates to more "
					 "than the %lu bytes its gzip trailer declares", shown.buf,
					 (unsigned long)isize);
			break;
		}
		if (zr == Z_STREAM_END) {
			if (!z.avail_in && off == s->got)
				break;
			inflateReset(&z); /* another gzip member follows */
			continue;
		}
		if (zr == Z_OK || (zr == Z_BUF_ERROR && (n || (!z.avail_in && off < s->got))))
			continue;
		ret = tk_err_set(err, TK_EDATA, "cannot inflate the response of '%s': %s",
				 shown.buf, zr == Z_BUF_ERROR ? "cut short" : z.msg ? z.msg : "corrupt");
		break;
	}
out:
	if (started)
		inflateEnd(&z);
	*made_out = made;
	free(in);
	free(chunk);
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

/* The encoding of the final response: 0 identity, 1 gzip, -1 another
 * (TK_EDATA in err). */
static int encoding_of(struct tk_http *h, const char *url, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	const char *e = h->encoding.buf;

	if (!h->encoding.len || !strcasecmp(e, "identity"))
		return 0;
	if (!strcasecmp(e, "gzip") || !strcasecmp(e, "x-gzip"))
		return 1;
	tk_http_display_url(h, url, &shown);
	tk_err_set(err, TK_EDATA, "the response of '%s' is in the content encoding '%.40s', "
		   "which was not asked for", shown.buf, e);
	tk_buf_release(&shown);
	return -1;
}

/*
 * GETs url into sink, following redirects, up to the final 2xx response
 * (its body in the sink as sent); *final gets the URL that answered
 * (the caller frees it, also on error).
 */
static int get(struct tk_http *h, const char *url, struct sink *sink,
	       struct tk_http_result *res, char **final, struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	char *cur = tk_xstrdup(url);
	int hops, ret;

	h->end = tk_mono_s() + h->o.deadline_s;
	h->local_error = 0;
	for (hops = 0;; hops++) {
		char *next = NULL;

		ret = get_one(h, cur, sink, &res->status, &res->authed, err);
		if (ret)
			break;
		if (res->status >= 200 && res->status < 300) {
			tk_buf_reset(&res->link);
			tk_buf_add(&res->link, h->link.buf, h->link.len);
			break;
		}
		sink_reset(sink);
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
	res->local = h->local_error;
	*final = cur;
	tk_buf_release(&shown);
	return ret;
}

int tk_http_get(struct tk_http *h, const char *url, struct tk_buf *body,
		struct tk_http_result *res, struct tk_err *err)
{
	struct sink sink = { body, body->len, -1, body->cap, 0, 0 };
	char *cur = NULL;
	int ret, enc;

	ret = get(h, url, &sink, res, &cur, err);
	if (!ret) {
		enc = encoding_of(h, cur, err);
		if (enc < 0)
			ret = TK_EDATA;
		else if (enc)
			ret = gunzip(h, cur, body, sink.start, err);
		if (ret)
			tk_buf_setlen(body, sink.start);
	}
	free(cur);
	return ret;
}

/* Closes fd and removes the file named name (when it has a name). */
static void drop_file(int fd, struct tk_buf *name)
{
	if (fd >= 0)
		close(fd);
	if (name->len)
		unlink(name->buf);
	tk_buf_reset(name);
}

int tk_http_get_file(struct tk_http *h, const char *url, const char *path, uint64_t cap,
		     uint64_t *size, struct tk_http_result *res, struct tk_err *err)
{
	struct tk_buf body_name = TK_BUF_INIT, out_name = TK_BUF_INIT;
	struct sink sink = { NULL, 0, -1, cap, 0, 0 };
	struct tk_err ferr = TK_ERR_INIT;
	char *cur = NULL;
	int ret, enc, out_fd = -1;

	*size = 0;
	sink.fd = tk_tmpfile_beside(path, &body_name, &ferr);
	if (sink.fd < 0) {
		res->local = 1;
		ret = tk_err_set(err, TK_EUNAVAIL, "%s", ferr.msg);
		goto out;
	}
	ret = get(h, url, &sink, res, &cur, err);
	if (ret)
		goto out;
	enc = encoding_of(h, cur, err);
	if (enc < 0) {
		ret = TK_EDATA;
		goto out;
	}
	if (!enc) {
		*size = sink.got;
		out_fd = sink.fd;
		sink.fd = -1;
		out_name = body_name; /* the body is the file: it only moves */
		tk_buf_init(&body_name, 0);
	} else {
		/* the body's file was made write-only: read it anew */
		int in_fd = open(body_name.buf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

		out_fd = in_fd < 0 ? -1 : tk_tmpfile_beside(path, &out_name, &ferr);
		if (out_fd < 0) {
			res->local = 1;
			ret = tk_err_set(err, TK_EUNAVAIL, "%s", in_fd < 0 ? strerror(errno) :
					 ferr.msg);
			if (in_fd >= 0)
				close(in_fd);
			goto out;
		}
		ret = gunzip_file(h, cur, &sink, in_fd, out_fd, size, err);
		close(in_fd);
		res->local = h->local_error;
		if (ret)
			goto out;
	}
	if (close(out_fd) || rename(out_name.buf, path)) {
		out_fd = -1;
		res->local = 1;
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	out_fd = -1;
	tk_buf_reset(&out_name);
out:
	if (ret)
		*size = 0;
	drop_file(sink.fd, &body_name);
	drop_file(out_fd, &out_name);
	free(cur);
	tk_buf_release(&body_name);
	tk_buf_release(&out_name);
	return ret;
}
