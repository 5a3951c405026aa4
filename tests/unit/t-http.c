/*
 * core/ci/http against two tiny HTTP servers on loopback (threads of this
 * test, one connection per response): bodies and Link headers, the
 * credential kept to its origin across a redirect, retries of 5xx and
 * 429, the size cap, bad URLs, and what messages show of a URL; gzip
 * bodies inflated under the cap, bombs refused before inflating; bodies
 * streamed to a file, inflated there, leaving no temporary file; which
 * URLs are plain http to another host.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <stdio.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include "core/ci/http.h"
#include "tap.h"

#define MAX_RESPONSES 8

/* A server that answers the i-th connection with responses[i] and keeps
 * each request's text. */
struct server {
	int fd, port;
	const char *responses[MAX_RESPONSES];
	size_t lens[MAX_RESPONSES]; /* 0: strlen */
	char requests[MAX_RESPONSES][4096];
	int nr, served;
	pthread_t thread;
};

static void *serve(void *arg)
{
	struct server *s = arg;

	while (s->served < s->nr) {
		int c = accept(s->fd, NULL, NULL);
		size_t len = 0;
		char *req = s->requests[s->served];

		if (c < 0)
			break;
		/* read up to the end of the headers */
		while (len < sizeof(s->requests[0]) - 1) {
			ssize_t n = read(c, req + len, sizeof(s->requests[0]) - 1 - len);

			if (n <= 0)
				break;
			len += (size_t)n;
			req[len] = '\0';
			if (strstr(req, "\r\n\r\n"))
				break;
		}
		if (write(c, s->responses[s->served], s->lens[s->served] ? s->lens[s->served] :
			  strlen(s->responses[s->served])) < 0)
			break;
		s->served++;
		close(c);
	}
	return NULL;
}

static void server_start_lens(struct server *s, const char *const *responses,
			      const size_t *lens, int nr)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < nr; i++) {
		s->responses[i] = responses[i];
		s->lens[i] = lens ? lens[i] : 0;
	}
	s->nr = nr;
	s->fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(s->fd, 8) ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &sl)) {
		perror("server");
		exit(1);
	}
	s->port = ntohs(sa.sin_port);
	pthread_create(&s->thread, NULL, serve, s);
}

static void server_start(struct server *s, const char *const *responses, int nr)
{
	server_start_lens(s, responses, NULL, nr);
}

static void server_stop(struct server *s)
{
	shutdown(s->fd, SHUT_RDWR);
	pthread_join(s->thread, NULL);
	close(s->fd);
}

static int has_auth(const char *req)
{
	return strstr(req, "\nAuthorization:") != NULL;
}

static struct tk_http *client(const char *origin, int retries)
{
	struct tk_http_opts o;
	struct tk_http *h = NULL;
	struct tk_err err = TK_ERR_INIT;

	tk_http_opts_init(&o);
	o.auth = "Bearer sekrit-t0ken";
	o.auth_origin = origin;
	o.retries = retries;
	o.backoff_s = 0.01;
	o.stall_timeout_s = 5;
	if (tk_http_new(&o, &h, &err)) {
		printf("# %s\n", err.msg);
		exit(1);
	}
	return h;
}

static void test_redirect(void)
{
	struct server api, storage;
	struct tk_buf url = TK_BUF_INIT, origin = TK_BUF_INIT, body = TK_BUF_INIT;
	struct tk_buf loc = TK_BUF_INIT;
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	const char *sresp[1] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
	};
	const char *aresp[1];
	struct tk_http *h;

	server_start(&storage, sresp, 1);
	tk_buf_addf(&loc, "HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:%d/obj?X-Amz-"
		    "Signature=abc\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
		    storage.port);
	aresp[0] = loc.buf;
	server_start(&api, aresp, 1);
	tk_buf_addf(&origin, "http://127.0.0.1:%d", api.port);
	tk_buf_addf(&url, "%s/v2/download", origin.buf);
	h = client(origin.buf, 0);
	is_int(tk_http_get(h, url.buf, &body, &res, &err), 0, "a 302 is followed");
	is_str(body.buf, "hello", "to the storage host's body");
	is_int(res.status, 200, "the final status");
	is_int(res.authed, 0, "from a host that did not get the credential");
	server_stop(&api);
	server_stop(&storage);
	ok(has_auth(api.requests[0]), "the API got the Authorization header");
	ok(!has_auth(storage.requests[0]), "the storage host did not");
	ok(!strstr(storage.requests[0], "sekrit"), "nor the token in any form");

	tk_buf_reset(&url);
	tk_buf_addf(&url, "http://127.0.0.1:%d/obj?X-Amz-Signature=abc", storage.port);
	tk_buf_reset(&body);
	tk_http_display_url(h, url.buf, &body);
	ok(!strstr(body.buf, "Signature"), "another origin's URL is shown without its query");
	tk_buf_reset(&body);
	tk_buf_reset(&url);
	tk_buf_addf(&url, "%s/v2/builds?page=2", origin.buf);
	tk_http_display_url(h, url.buf, &body);
	is_str(body.buf, url.buf, "the API's URL is shown whole");
	tk_http_free(h);
	tk_buf_release(&url);
	tk_buf_release(&origin);
	tk_buf_release(&body);
	tk_buf_release(&loc);
	tk_buf_release(&res.link);
}

static void test_retries(void)
{
	const char *resp[3] = {
		"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"HTTP/1.1 429 Too Many Requests\r\nRateLimit-Reset: 0\r\nContent-Length: 0\r\n"
		"Connection: close\r\n\r\n",
		"HTTP/1.1 200 OK\r\nLink: <http://x/b?page=2>; rel=\"next\"\r\nContent-Length: 2\r\n"
		"Connection: close\r\n\r\n[]",
	};
	struct server s;
	struct tk_buf url = TK_BUF_INIT, body = TK_BUF_INIT;
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_http *h;

	server_start(&s, resp, 3);
	tk_buf_addf(&url, "http://127.0.0.1:%d/b", s.port);
	h = client(url.buf, 2);
	is_int(tk_http_get(h, url.buf, &body, &res, &err), 0, "503, 429, then 200");
	is_str(body.buf, "[]", "the body of the last");
	is_str(res.link.buf, "<http://x/b?page=2>; rel=\"next\"", "its Link header");
	server_stop(&s);
	is_int(s.served, 3, "three requests");
	tk_http_free(h);

	server_start(&s, resp, 1);
	tk_buf_reset(&url);
	tk_buf_addf(&url, "http://127.0.0.1:%d/b", s.port);
	h = client(url.buf, 0);
	tk_buf_reset(&body);
	is_int(tk_http_get(h, url.buf, &body, &res, &err), TK_EUNAVAIL, "no retries: a 503 fails");
	is_int(res.status, 503, "with its status");
	ok(strstr(err.msg, "HTTP 503 from '") != NULL, "and says so: %s", err.msg);
	server_stop(&s);
	tk_http_free(h);
	tk_buf_release(&url);
	tk_buf_release(&body);
	tk_buf_release(&res.link);
}

static void test_limits(void)
{
	const char *resp[1] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789",
	};
	struct server s;
	struct tk_buf url = TK_BUF_INIT, body = TK_BUF_INIT;
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_http *h;
	struct tk_http_opts o;

	server_start(&s, resp, 1);
	tk_buf_addf(&url, "http://127.0.0.1:%d/big", s.port);
	h = client(url.buf, 0);
	body.cap = 4;
	is_int(tk_http_get(h, url.buf, &body, &res, &err), TK_EDATA, "a body over the cap");
	is_int(body.len, 0, "leaves nothing behind");
	server_stop(&s);
	is_int(tk_http_get(h, "file:///etc/passwd", &body, &res, &err), TK_EUSAGE,
	       "a file: URL is refused");
	is_int(tk_http_get(h, "http://127.0.0.1:1/x", &body, &res, &err), TK_EUNAVAIL,
	       "a closed port is unavailable");
	ok(strstr(err.msg, "(1 attempt)") != NULL, "after one attempt: %s", err.msg);
	tk_http_free(h);

	tk_http_opts_init(&o);
	o.auth = "Bearer x";
	o.auth_origin = "ftp://example.com";
	is_int(tk_http_new(&o, &h, &err), TK_EUSAGE, "an API URL that is not http(s)");
	tk_buf_release(&url);
	tk_buf_release(&body);
	tk_buf_release(&res.link);
}

/* A response "HTTP/1.1 200 ... Content-Encoding: ENC" whose body is n
 * bytes of c gzipped, with its trailer's size replaced by isize when
 * that is not 0. */
static void gzip_response(struct tk_buf *out, const char *enc, size_t n, char c,
			  uint32_t isize)
{
	struct tk_buf z = TK_BUF_INIT;
	unsigned char in[65536], buf[65536];
	z_stream zs;
	size_t done = 0;
	int zr;

	memset(in, c, sizeof(in));
	memset(&zs, 0, sizeof(zs));
	deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	do {
		size_t take = n - done < sizeof(in) ? n - done : sizeof(in);

		done += take;
		zs.next_in = in;
		zs.avail_in = (uInt)take;
		do {
			zs.next_out = buf;
			zs.avail_out = sizeof(buf);
			zr = deflate(&zs, done == n ? Z_FINISH : Z_NO_FLUSH);
			tk_buf_add(&z, buf, sizeof(buf) - zs.avail_out);
		} while (zs.avail_out == 0);
	} while (done < n);
	deflateEnd(&zs);
	(void)zr;
	if (isize) {
		unsigned char *t = (unsigned char *)z.buf + z.len - 4;

		t[0] = isize & 255;
		t[1] = isize >> 8 & 255;
		t[2] = isize >> 16 & 255;
		t[3] = isize >> 24 & 255;
	}
	tk_buf_addf(out, "HTTP/1.1 200 OK\r\nContent-Encoding: %s\r\nContent-Length: %zu\r\n"
		    "Connection: close\r\n\r\n", enc, z.len);
	tk_buf_add(out, z.buf, z.len);
	tk_buf_release(&z);
}

static void test_gzip(void)
{
	struct tk_buf r[4] = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT };
	const char *resp[5];
	size_t lens[5];
	struct server s;
	struct tk_buf url = TK_BUF_INIT, body = TK_BUF_INIT;
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_http *h;
	int i;

	gzip_response(&r[0], "gzip", 100000, 'a', 0);
	gzip_response(&r[1], "gzip", 100000, 'a', 0);
	gzip_response(&r[2], "gzip", 64u << 20, 0, 10);
	gzip_response(&r[3], "br", 1000, 'a', 0);
	for (i = 0; i < 4; i++) {
		resp[i] = r[i].buf;
		lens[i] = r[i].len;
	}
	resp[4] = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 20\r\n"
		  "Connection: close\r\n\r\n\x1f\x8bnot-really-gzip!!!";
	lens[4] = 0;
	server_start_lens(&s, resp, lens, 5);
	tk_buf_addf(&url, "http://127.0.0.1:%d/p", s.port);
	h = client(url.buf, 0);
	body.cap = 200000;
	is_int(tk_http_get(h, url.buf, &body, &res, &err), 0, "a gzip body");
	is_int(body.len, 100000, "is inflated");
	ok(body.buf[0] == 'a' && body.buf[99999] == 'a', "to what was sent");
	ok(strstr(s.requests[0], "\nAccept-Encoding: gzip\r\n") != NULL, "only gzip is asked for");
	tk_buf_reset(&body);
	body.cap = 50000;
	is_int(tk_http_get(h, url.buf, &body, &res, &err), TK_EDATA, "declaring more than the cap");
	ok(strstr(err.msg, "declares 100000 bytes once inflated, over 50000 bytes: refused "
		  "before inflating") != NULL, "is refused before inflating: %s", err.msg);
	is_int(body.len, 0, "leaving nothing");
	tk_buf_reset(&body);
	body.cap = 1u << 30;
	is_int(tk_http_get(h, url.buf, &body, &res, &err), TK_EDATA, "a bomb whose trailer lies");
	ok(strstr(err.msg, "declares 10 bytes once inflated, fewer than its") != NULL,
	   "is refused before inflating: %s", err.msg);
	is_int(body.len, 0, "leaving nothing");
	is_int(tk_http_get(h, url.buf, &body, &res, &err), TK_EDATA, "an encoding not asked for");
	ok(strstr(err.msg, "content encoding 'br'") != NULL, "is refused: %s", err.msg);
	is_int(tk_http_get(h, url.buf, &body, &res, &err), TK_EDATA, "corrupt gzip");
	ok(strstr(err.msg, "gzip body") != NULL || strstr(err.msg, "inflate") != NULL ||
	   strstr(err.msg, "declares") != NULL, "is refused: %s", err.msg);
	server_stop(&s);
	tk_http_free(h);
	for (i = 0; i < 4; i++)
		tk_buf_release(&r[i]);
	tk_buf_release(&url);
	tk_buf_release(&body);
	tk_buf_release(&res.link);
}

/* The entries of dir but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* The size of the file at path, -1 when there is none; its first byte
 * in *first. */
static long file_size(const char *path, int *first)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return -1;
	*first = fgetc(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n;
}

static void test_file(void)
{
	struct tk_buf r[4] = { TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT, TK_BUF_INIT };
	const char *resp[6];
	size_t lens[6];
	struct server s;
	struct tk_buf url = TK_BUF_INIT, path = TK_BUF_INIT, missing = TK_BUF_INIT;
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_http *h;
	char dir[] = "/tmp/t-http.XXXXXX";
	uint64_t size = 1;
	int i, first = 0;

	if (!mkdtemp(dir)) {
		ok(0, "file: a temporary directory");
		return;
	}
	tk_buf_addf(&path, "%s/out.bin", dir);
	resp[0] = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nhello file";
	gzip_response(&r[0], "gzip", 100000, 'a', 0);
	gzip_response(&r[1], "gzip", 100000, 'a', 0);
	gzip_response(&r[2], "gzip", 64u << 20, 0, 10);
	gzip_response(&r[3], "gzip", 100000, 'a', 50000);
	for (i = 0; i < 4; i++) {
		resp[i + 1] = r[i].buf;
		lens[i + 1] = r[i].len;
	}
	lens[0] = 0;
	resp[5] = resp[0];
	lens[5] = 0;
	server_start_lens(&s, resp, lens, 6);
	tk_buf_addf(&url, "http://127.0.0.1:%d/p", s.port);
	h = client(url.buf, 0);
	is_int(tk_http_get_file(h, url.buf, path.buf, 1000, &size, &res, &err), 0,
	       "file: a body");
	ok(size == 10 && file_size(path.buf, &first) == 10 && first == 'h',
	   "file: written whole to the path");
	is_int(entries(dir), 1, "file: no temporary file beside it");
	is_int(tk_http_get_file(h, url.buf, path.buf, 200000, &size, &res, &err), 0,
	       "file: a gzip body");
	ok(size == 100000 && file_size(path.buf, &first) == 100000 && first == 'a',
	   "file: inflated into the path, replacing the last");
	is_int(entries(dir), 1, "file: neither temporary file is left");
	unlink(path.buf);
	is_int(tk_http_get_file(h, url.buf, path.buf, 50000, &size, &res, &err), TK_EDATA,
	       "file: declaring more than the cap");
	ok(strstr(err.msg, "declares 100000 bytes once inflated, over 50000 bytes: refused "
		  "before inflating") != NULL, "file: is refused before inflating: %s", err.msg);
	ok(size == 0 && entries(dir) == 0 && !res.local, "file: leaving nothing");
	is_int(tk_http_get_file(h, url.buf, path.buf, 1u << 30, &size, &res, &err), TK_EDATA,
	       "file: a bomb whose trailer lies");
	ok(strstr(err.msg, "declares 10 bytes once inflated, fewer than its") != NULL,
	   "file: is refused before inflating: %s", err.msg);
	is_int(entries(dir), 0, "file: leaving nothing");
	is_int(tk_http_get_file(h, url.buf, path.buf, 1u << 30, &size, &res, &err), TK_EDATA,
	       "file: a trailer that declares less than the body inflates to");
	ok(strstr(err.msg, "inflates to more than the 50000 bytes its gzip trailer declares") !=
	   NULL, "file: is refused as it inflates: %s", err.msg);
	is_int(entries(dir), 0, "file: leaving nothing");
	is_int(tk_http_get_file(h, url.buf, path.buf, 5, &size, &res, &err), TK_EDATA,
	       "file: a body over the cap");
	ok(strstr(err.msg, "is over 5 bytes") != NULL && entries(dir) == 0,
	   "file: is cut there, leaving nothing: %s", err.msg);
	tk_buf_addf(&missing, "%s/no/such/dir/out.bin", dir);
	is_int(tk_http_get_file(h, url.buf, missing.buf, 0, &size, &res, &err), TK_EUNAVAIL,
	       "file: a file that cannot be made");
	ok(res.local && strstr(err.msg, "no/such/dir/out.bin") != NULL,
	   "file: is this machine's error, naming the file: %s", err.msg);
	server_stop(&s);
	tk_http_free(h);
	rmdir(dir);
	for (i = 0; i < 4; i++)
		tk_buf_release(&r[i]);
	tk_buf_release(&url);
	tk_buf_release(&path);
	tk_buf_release(&missing);
	tk_buf_release(&res.link);
}

static void test_plain_remote(void)
{
	ok(tk_http_is_plain_remote("http://api.example.com/v2"), "http to a remote host");
	ok(tk_http_is_plain_remote("HTTP://10.0.0.5:8080"), "http to a private address");
	ok(tk_http_is_plain_remote("http://127.0.0.1.evil.com/"), "a name that starts like loopback");
	ok(tk_http_is_plain_remote("http://127.0.0.1@evil.com/"), "loopback as user info");
	ok(!tk_http_is_plain_remote("https://api.buildkite.com"), "https");
	ok(!tk_http_is_plain_remote("http://127.0.0.1:8080/v2"), "127.0.0.1");
	ok(!tk_http_is_plain_remote("http://127.1.2.3"), "127/8");
	ok(!tk_http_is_plain_remote("http://LocalHost:80/x"), "localhost");
	ok(!tk_http_is_plain_remote("http://[::1]:9000/"), "::1");
	ok(!tk_http_is_plain_remote("http://user:pw@localhost/"), "user info and localhost");
}

int main(void)
{
	test_redirect();
	test_retries();
	test_limits();
	test_gzip();
	test_file();
	test_plain_remote();
	return done_testing();
}
