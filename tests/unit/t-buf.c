/*
 * core/base/buf: the growable buffer, its cap, and TK_ALLOC_GROW.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static void test_init(void)
{
	struct tk_buf a = TK_BUF_INIT, b;

	ok(a.buf == tk_buf_empty && a.len == 0 && a.alloc == 0,
	   "TK_BUF_INIT points at tk_buf_empty");
	is_str(a.buf, "", "an initialized buffer is an empty string");
	tk_buf_init(&b, 0);
	ok(b.buf == tk_buf_empty && !b.alloc, "tk_buf_init(0) allocates nothing");
	tk_buf_release(&b);
	tk_buf_init(&b, 100);
	ok(b.alloc >= 101 && b.len == 0 && b.buf[0] == '\0',
	   "tk_buf_init with a hint allocates room for it and the NUL");
	tk_buf_release(&b);
	ok(b.buf == tk_buf_empty && !b.len && !b.alloc, "release leaves the buffer empty");
	tk_buf_release(&b);
	ok(b.buf == tk_buf_empty, "release twice is harmless");
}

static void test_add(void)
{
	struct tk_buf b = TK_BUF_INIT;
	char big[5001];
	int i, all = 1;

	is_int(tk_buf_add(&b, "abc", 3), 0, "add returns 0");
	is_str(b.buf, "abc", "add appends");
	is_int(b.len, 3, "len follows");
	is_int(tk_buf_add(&b, "zzz", 0), 0, "adding nothing succeeds");
	is_str(b.buf, "abc", "adding nothing changes nothing");
	tk_buf_adds(&b, "def");
	tk_buf_addch(&b, 'g');
	tk_buf_addch(&b, 0xe9); /* a byte >= 0x80 survives the int -> char */
	ok(b.len == 8 && !memcmp(b.buf, "abcdefg\xe9", 9), "adds and addch append");
	tk_buf_reset(&b);
	is_str(b.buf, "", "reset empties");
	ok(b.alloc > 0, "reset keeps the allocation");
	is_int(tk_buf_addf(&b, "%d-%s-%.2f", 42, "x", 1.5), 0, "addf returns 0");
	is_str(b.buf, "42-x-1.50", "addf formats");
	tk_buf_addf(&b, "%s", "");
	is_str(b.buf, "42-x-1.50", "addf of an empty string changes nothing");

	/* Binary data with NULs: len is authoritative, still NUL-terminated. */
	tk_buf_reset(&b);
	tk_buf_add(&b, "a\0b", 3);
	ok(b.len == 3 && b.buf[1] == '\0' && b.buf[2] == 'b' && b.buf[3] == '\0',
	   "embedded NULs are kept and the buffer stays terminated");

	/* Growth across many reallocations keeps contents. */
	tk_buf_reset(&b);
	for (i = 0; i < 5000; i++)
		big[i] = (char)('a' + i % 26);
	big[5000] = '\0';
	for (i = 0; i < 50; i++)
		tk_buf_add(&b, big, 5000);
	for (i = 0; i < 50; i++)
		if (memcmp(b.buf + (size_t)i * 5000, big, 5000))
			all = 0;
	ok(all && b.len == 50 * 5000 && b.buf[b.len] == '\0',
	   "many appends keep every byte and the terminator");
	ok(b.alloc > b.len, "alloc always leaves room for the NUL");

	/* A long addf crosses the vsnprintf size guess. */
	tk_buf_reset(&b);
	tk_buf_addf(&b, "%s|%s", big + 4000, big + 4000);
	is_int(b.len, 2001, "addf of a long string has the right length");
	tk_buf_release(&b);
}

static void test_trim(void)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_trim(&b);
	ok(b.buf == tk_buf_empty && b.len == 0, "trim of an unallocated buffer is a no-op");
	tk_buf_adds(&b, " \t\r\n hello world \n\t ");
	tk_buf_trim(&b);
	is_str(b.buf, "hello world", "trim strips both ends, keeps inner spaces");
	is_int(b.len, 11, "trim fixes len");
	tk_buf_reset(&b);
	tk_buf_adds(&b, " \n\t ");
	tk_buf_trim(&b);
	ok(b.len == 0 && b.buf[0] == '\0', "trim of only whitespace gives an empty string");
	tk_buf_reset(&b);
	tk_buf_adds(&b, "x");
	tk_buf_trim(&b);
	is_str(b.buf, "x", "trim leaves a bare word alone");
	tk_buf_release(&b);
}

static void test_detach(void)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t len = 99;
	char *s;

	s = tk_buf_detach(&b, &len);
	ok(s && s != tk_buf_empty && !*s && len == 0,
	   "detach of an empty buffer gives a fresh empty string");
	free(s);
	tk_buf_adds(&b, "owned");
	s = tk_buf_detach(&b, &len);
	is_str(s, "owned", "detach hands over the contents");
	is_int(len, 5, "detach reports the length");
	ok(b.buf == tk_buf_empty && !b.len && !b.alloc, "detach leaves the buffer empty");
	free(s);
	tk_buf_adds(&b, "again");
	s = tk_buf_detach(&b, NULL);
	is_str(s, "again", "detach with a NULL length pointer");
	free(s);
	tk_buf_release(&b);
}

/* tk_buf_empty must never be written: after every operation on an empty
 * buffer, the shared byte is still NUL. */
static void test_never_null(void)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_buf_reset(&b);
	tk_buf_setlen(&b, 0);
	tk_buf_trim(&b);
	tk_buf_add(&b, "", 0);
	tk_buf_addf(&b, "%s", "");
	tk_buf_release(&b);
	ok(b.buf != NULL, "buf is never NULL");
	is_int(tk_buf_empty[0], 0, "tk_buf_empty is still an empty string");
}

static void test_cap(void)
{
	struct tk_buf b = TK_BUF_INIT;
	size_t alloc;

	b.cap = 8;
	is_int(tk_buf_adds(&b, "12345678"), 0, "filling exactly to the cap succeeds");
	is_int(tk_buf_addch(&b, 'x'), TK_EDATA, "addch past the cap is TK_EDATA");
	is_str(b.buf, "12345678", "and leaves the contents unchanged");
	is_int(b.len, 8, "and the length unchanged");
	tk_buf_reset(&b);
	tk_buf_adds(&b, "1234");
	alloc = b.alloc;
	is_int(tk_buf_add(&b, "56789", 5), TK_EDATA, "add past the cap is TK_EDATA");
	is_str(b.buf, "1234", "a failed add changes nothing");
	is_int(tk_buf_addf(&b, "%s", "abcdefgh"), TK_EDATA, "addf past the cap is TK_EDATA");
	is_str(b.buf, "1234", "a failed addf changes nothing");
	is_int(b.alloc, alloc, "a failed append does not grow the allocation");
	is_int(tk_buf_grow(&b, 5), TK_EDATA, "grow past the cap is TK_EDATA");
	is_int(tk_buf_adds(&b, "5678"), 0, "appending up to the cap still works");
	tk_buf_release(&b);
}

static void test_read_file(void)
{
	struct tk_buf b = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	char path[] = "/tmp/t-buf-XXXXXX";
	int fd = mkstemp(path), ret;
	const char *missing = "/nonexistent/t-buf/missing.txt";

	ok(fd >= 0, "made a temporary file");
	if (write(fd, "line one\nline two\n", 18) != 18)
		diag("short write");
	close(fd);
	tk_buf_adds(&b, ">");
	ret = tk_buf_read_file(&b, path, &err);
	is_int(ret, 0, "read_file reads an existing file");
	is_str(b.buf, ">line one\nline two\n", "read_file appends the whole file");

	tk_buf_reset(&b);
	ret = tk_buf_read_file(&b, missing, &err);
	is_int(ret, TK_EUNAVAIL, "a missing file is TK_EUNAVAIL");
	is_int(err.code, TK_EUNAVAIL, "err.code is set");
	ok(strstr(err.msg, missing) != NULL, "the message names the path: %s", err.msg);
	ok(strstr(err.msg, "No such file") != NULL, "and says why");

	tk_buf_reset(&b);
	b.cap = 10;
	tk_err_clear(&err);
	ret = tk_buf_read_file(&b, path, &err);
	is_int(ret, TK_EDATA, "a file larger than the cap is TK_EDATA");
	ok(strstr(err.msg, path) != NULL, "the cap message names the path: %s", err.msg);
	ok(b.len <= 10, "the buffer never passes its cap");

	tk_buf_reset(&b);
	b.cap = 0;
	tk_err_clear(&err);
	ret = tk_buf_read_file(&b, "/tmp", &err);
	is_int(ret, TK_EUNAVAIL, "reading a directory is TK_EUNAVAIL: %s", err.msg);

	unlink(path);
	tk_buf_release(&b);
}

static void test_alloc_grow(void)
{
	int *v = NULL;
	size_t nr = 0, alloc = 0, i;
	int all = 1;

	TK_ALLOC_GROW(v, 1, alloc);
	ok(v != NULL && alloc >= 1, "TK_ALLOC_GROW from nothing allocates");
	is_int(alloc, 16, "the first allocation is 16 elements");
	TK_ALLOC_GROW(v, 10, alloc);
	is_int(alloc, 16, "no growth while want <= alloc");
	TK_ALLOC_GROW(v, 17, alloc);
	is_int(alloc, 24, "then it grows by half");
	TK_ALLOC_GROW(v, 1000, alloc);
	is_int(alloc, 1000, "a large want is met exactly");
	for (i = 0; i < 100000; i++) {
		TK_ALLOC_GROW(v, nr + 1, alloc);
		v[nr++] = (int)i;
	}
	for (i = 0; i < nr; i++)
		if (v[i] != (int)i)
			all = 0;
	ok(all && alloc >= nr, "100000 pushes keep every element");
	free(v);
}

static void test_xstr(void)
{
	char *s = tk_xstrndup("abcdef", 3);

	is_str(s, "abc", "tk_xstrndup copies n bytes and terminates");
	free(s);
	s = tk_xstrdup("");
	is_str(s, "", "tk_xstrdup of an empty string");
	free(s);
}

int main(void)
{
	test_init();
	test_add();
	test_trim();
	test_detach();
	test_never_null();
	test_cap();
	test_read_file();
	test_alloc_grow();
	test_xstr();
	return done_testing();
}
