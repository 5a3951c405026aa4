/*
 * The HTML page renderer: escaping of untrusted names inside the page's
 * JSON and HTML, number encoding, frame ordering, and the page's data
 * for a small profile. The page's behaviour in a browser is checked by
 * tests/t3002-flame-browser.sh.
 */
#include "plugins/render/html.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "core/draw/svgout.h"
#include "tests/unit/tap.h"

static void json_is(const char *in, size_t len, const char *want, const char *what)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_html_json_str(&b, in, len);
	is_str(b.buf, want, "json: %s", what);
	tk_buf_release(&b);
}

static void data_is(const char *in, size_t len, const char *want, const char *what)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_html_json_data(&b, in, len);
	is_str(b.buf, want, "json data: %s", what);
	tk_buf_release(&b);
}

static void num_is(double v, const char *want)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_html_json_num(&b, v);
	is_str(b.buf, want, "number %s", want);
	tk_buf_release(&b);
}

/* Renders folded text to a string. */
static char *render_folded(const char *folded, int inverted)
{
	struct tk_profile p;
	struct tk_flame f;
	struct tk_render_opts o;
	struct tk_err err = TK_ERR_INIT;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	/* "" is an empty profile (the importer rejects empty input). */
	if (*folded && tk_import_mem("t.folded", folded, strlen(folded), "folded", NULL, &p, &err)) {
		diag(err.msg);
		tk_profile_release(&p);
		fclose(fp);
		free(out);
		return NULL;
	}
	tk_profile_finish(&p);
	if (tk_flame_layout(&p, NULL, &f, &err)) {
		diag(err.msg);
		tk_profile_release(&p);
		fclose(fp);
		free(out);
		return NULL;
	}
	tk_render_opts_init(&o);
	o.inverted = inverted;
	if (tk_render_html.render(&p, &f, &o, fp, &err))
		diag(err.msg);
	fclose(fp);
	tk_flame_release(&f);
	tk_profile_release(&p);
	return out;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

int main(void)
{
	struct tk_buf b = TK_BUF_INIT;
	char *page;

	json_is("plain name", 10, "\"plain name\"", "plain");
	json_is("</script><!--", 13, "\"\\u003c/script\\u003e\\u003c!--\"", "</script> and <!--");
	json_is("a\"b\\c&d", 7, "\"a\\\"b\\\\c\\u0026d\"", "quote, backslash, ampersand");
	/* a page shows a name as the terminal does (core/base/escape.h) */
	json_is("\x01\t\n\x7f", 4, "\"\\\\x01\\\\x09\\\\x0a\\\\x7f\"", "control characters as \\xNN");
	json_is("a\0b", 3, "\"a\\\\x00b\"", "embedded NUL");
	json_is("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 14, "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5\"",
		"valid UTF-8 kept");
	json_is("x\xe2\x80\xa8y\xe2\x80\xa9", 8, "\"x\\u2028y\\u2029\"", "U+2028 and U+2029");
	json_is("\xff\xfe", 2, "\"\\\\xff\\\\xfe\"", "invalid bytes");
	json_is("\xc0\xaf", 2, "\"\\\\xc0\\\\xaf\"", "overlong form");
	json_is("\xed\xa0\x80", 3, "\"\\\\xed\\\\xa0\\\\x80\"", "UTF-16 surrogate");
	json_is("ab\xe2\x82", 4, "\"ab\\\\xe2\\\\x82\"", "truncated sequence at the end");
	json_is("\xf4\x90\x80\x80", 4, "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"", "past U+10FFFF");
	json_is("k\xe2\x80\xae" "ey\xc2\x85\xef\xbf\xbf", 11,
		"\"k\\\\xe2\\\\x80\\\\xaeey\\\\xc2\\\\x85\\\\xef\\\\xbf\\\\xbf\"",
		"U+202E, a C1 control, U+FFFF");
	json_is("a\\b\"c", 5, "\"a\\\\b\\\"c\"", "a literal backslash stays one character");
	/* data keeps every character, repairing only what JSON cannot hold */
	data_is("\x01\t\n\x7f", 4, "\"\\u0001\\u0009\\u000a\\u007f\"", "control characters");
	data_is("a\0b<", 4, "\"a\\u0000b\\u003c\"", "embedded NUL, markup");
	data_is("k\xe2\x80\xae" "y\xc2\x85", 7, "\"k\xe2\x80\xae" "y\xc2\x85\"",
		"U+202E and a C1 control kept");
	data_is("\xff\xfe", 2, "\"\\ufffd\\ufffd\"", "invalid bytes");
	data_is("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"", "UTF-16 surrogate");
	data_is("x\xe2\x80\xa8", 4, "\"x\\u2028\"", "U+2028");

	tk_buf_release(&b);
	num_is(0, "0");
	num_is(-0.0, "0");
	num_is(42, "42");
	num_is(-7, "-7");
	num_is(1234567890123.0, "1234567890123");
	num_is(0.5, "0.5");
	num_is(0.1, "0.1");
	num_is(1.0 / 3, "0.33333333333333331");
	num_is(1e300 * 1e300, "0");

	{
		struct tk_flame_frame fr[] = {
			{ 0, 0, 0, 10 }, { 3, 1, 6, 4 }, { 1, 1, 0, 6 }, { 4, 2, 7, 1 }, { 2, 2, 0, 5 },
		};
		struct tk_flame f = { fr, 5, 5, 10, 2 };
		uint32_t *levels, *order;
		size_t nl;

		order = order_frames(&f, &levels, &nl);
		is_int(nl, 3, "three depths");
		ok(levels[0] == 1 && levels[1] == 2 && levels[2] == 2, "frames per depth");
		ok(order[0] == 0 && order[1] == 2 && order[2] == 1 && order[3] == 4 && order[4] == 3,
		   "frames sorted by depth, then start, whatever the input order");
		free(order);
		free(levels);
	}

	page = render_folded("main;a;b 5\nmain;a;c 3\nmain;d 2\nmain 1\nother;x_[k] 4\n"
			     "main;</script><script>alert(1)</script> 1\n", 0);
	ok(page != NULL, "render a small profile");
	if (page) {
		ok(strstr(page, "\"levels\":[1,2,4,2]") != NULL, "levels");
		ok(strstr(page, "\"gap\":[0,0,0,1,0,0,0,2,0]") != NULL, "gaps: self weight before children");
		ok(strstr(page, "\"width\":[16,12,4,1,8,2,4,5,3]") != NULL, "widths");
		ok(strstr(page, "\"x\"") != NULL && !strstr(page, "x_[k]"), "_[k] not shown");
		is_int(count(page, "<script"), 2, "two script elements");
		is_int(count(page, "</script"), 2, "no name closes a script element");
		ok(strstr(page, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)") != NULL,
		   "the hostile name is in the data, escaped");
		ok(strstr(page, "\"inverted\":false") != NULL, "not inverted");
		ok(strstr(page, "<title>Flame Graph</title>") != NULL, "title");
		free(page);
	}
	page = render_folded("a;b 1\n", 1);
	ok(page && strstr(page, "\"inverted\":true") && strstr(page, "<title>Icicle Graph</title>"),
	   "inverted: an icicle graph");
	free(page);
	page = render_folded("", 0);
	ok(page && strstr(page, "\"levels\":[1]") && strstr(page, "\"total\":0"),
	   "an empty profile gives a page with the root only");
	free(page);
	return done_testing();
}
