#ifndef TK_HTTP_H
#define TK_HTTP_H
/*
 * A small HTTP GET client over libcurl for talking to a CI system's API
 * (core/ci/bkfetch.c): bounded retries, rate limits, timeouts, and a
 * credential that never leaves the API's own origin.
 *
 *   credential  o->auth ("Bearer TOKEN", the value of the Authorization
 *               header) is sent only to URLs whose scheme, host and port
 *               are o->auth_origin's. Redirects are followed here, not by
 *               libcurl, so the storage host an artifact download answers
 *               302 to never sees the header. The credential is never put
 *               in an error message; URLs of other origins are named
 *               without their query (a presigned storage URL's query is a
 *               credential too).
 *   redirects   301, 302, 303, 307 and 308 with a Location, at most
 *               TK_HTTP_MAX_REDIRECTS of them, to http or https only.
 *   retries     HTTP 429 waits for RateLimit-Reset seconds (else
 *               Retry-After, else the backoff), 5xx, timeouts and dropped
 *               connections wait o->backoff_s, doubled after each try;
 *               every wait is capped at o->max_wait_s, and at most
 *               o->retries retries are made per request.
 *   timeouts    o->connect_timeout_s to connect; a transfer slower than
 *               o->min_rate bytes a second over o->stall_timeout_s is
 *               timed out (a hung server, or one that drips); a whole
 *               tk_http_get, its redirects, retries and waits included,
 *               ends after o->deadline_s ("took longer than N s").
 *   encodings   only gzip is asked for, and tracker inflates it itself:
 *               a body whose gzip trailer declares more than body->cap
 *               bytes, or a size its compressed length belies (a gzip
 *               bomb), is refused before a byte is inflated; inflating
 *               stops at body->cap. Any other Content-Encoding is
 *               refused (TK_EDATA). tk_http_get_file does the same on
 *               the disk, in 64 KiB pieces.
 *   stopping    when *o->stop becomes non-zero (a signal handler sets it)
 *               a transfer or a wait ends within about a second, with
 *               TK_EUNAVAIL "interrupted".
 *
 * Errors are negative enum tk_code with err filled:
 *   TK_EUNAVAIL  the server cannot be reached or answered an error after
 *                the retries; res->status holds the last HTTP status (0
 *                when no response came), the message names the URL
 *   TK_EDATA     the body is larger than body->cap (compressed or
 *                inflated), or its encoding is not gzip or corrupt
 *   TK_EUSAGE    a URL libcurl cannot parse, or a scheme other than
 *                http/https
 * Nothing here prints.
 */
#include <signal.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"

#define TK_HTTP_MAX_REDIRECTS 5

struct tk_http_opts {
	double connect_timeout_s; /* 0: 10 */
	double stall_timeout_s;   /* 0: 30 */
	double min_rate;          /* bytes/s over stall_timeout_s; 0: 1024 */
	double deadline_s;        /* of a whole tk_http_get; 0: 600 */
	int retries;              /* < 0: 4 */
	double backoff_s;         /* 0: 1 */
	double max_wait_s;        /* 0: 60 */
	const char *auth;         /* the Authorization header's value; NULL: none */
	const char *auth_origin;  /* a URL: the origin auth may go to */
	const volatile sig_atomic_t *stop; /* NULL: never stopped */
};

/* Defaults as above: retries -1, every other field 0 or NULL. */
void tk_http_opts_init(struct tk_http_opts *o);

struct tk_http;

/* A client with a copy of o's settings (the strings are copied, the
 * stop flag is borrowed). tk_http_free wipes the copy of o->auth. */
int tk_http_new(const struct tk_http_opts *o, struct tk_http **out, struct tk_err *err);
void tk_http_free(struct tk_http *h);

struct tk_http_result {
	long status;       /* of the final response; 0 when none came */
	struct tk_buf link; /* its Link header, "" when none; caller releases */
	int authed;        /* the final request went to the auth origin, with
			    * the credential (a 401 there is the credential's) */
	int local;         /* the error is this machine's: a file the body
			    * goes to cannot be made or written */
};

/*
 * GETs url, following redirects, and appends the final 2xx response's
 * body to body (bounded by body->cap). On an error status after the
 * retries, returns TK_EUNAVAIL with "HTTP <status> from <url>" and res->status
 * set. res must be initialised (status 0, link TK_BUF_INIT, authed and
 * local 0).
 */
int tk_http_get(struct tk_http *h, const char *url, struct tk_buf *body,
		struct tk_http_result *res, struct tk_err *err);

/*
 * tk_http_get into a file, for bodies of any size (a profile): the final
 * 2xx response's body streams to a temporary file beside path
 * (tk_tmpfile_beside), renamed to path once whole, so memory stays a few
 * 64 KiB buffers whatever the body's size. cap (0: none) bounds the bytes
 * received and, once inflated, a gzip body, as body->cap does for
 * tk_http_get. A gzip body is kept in its own temporary file beside path
 * until its trailer is checked (refused before inflating, as in
 * tk_http_get) and then inflated into the other. *size gets the file's
 * size. On any error path is left as it was and no temporary file
 * remains; a file that cannot be made or written is TK_EUNAVAIL with
 * res->local set ("cannot keep the response of 'URL': ...").
 */
int tk_http_get_file(struct tk_http *h, const char *url, const char *path, uint64_t cap,
		     uint64_t *size, struct tk_http_result *res, struct tk_err *err);

/* Whether url is plain http to a host other than this machine's loopback
 * (localhost, 127.0.0.0/8, ::1): a credential sent there travels in clear. */
int tk_http_is_plain_remote(const char *url);

/* url as error messages show it: whole for the auth origin, else without
 * its query and fragment. Appends to out. */
void tk_http_display_url(const struct tk_http *h, const char *url, struct tk_buf *out);

#endif
