/*
 * core/base/escape: the one rule per output language for untrusted text
 * (terminal text, XML/HTML, markdown, shell words), on hostile inputs:
 * markup, quotes, controls, terminal escapes, C1 controls, invalid UTF-8,
 * noncharacters, and limits that must not split a character.
 */
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

#define ELLIPSIS "\xe2\x80\xa6"

static void text_is(const char *in, size_t len, const char *want, const char *what)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_text_escape(&b, in, len);
	is_str(b.buf, want, "text: %s", what);
	tk_buf_release(&b);
}

static void xml_is(const char *in, unsigned flags, size_t max, const char *want,
		   const char *what)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_xml_text(&b, in, flags, max);
	is_str(b.buf, want, "xml: %s", what);
	tk_buf_release(&b);
}

static void md_is(const char *in, size_t max, const char *want, const char *what)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_md_escape(&b, in, max);
	is_str(b.buf, want, "markdown: %s", what);
	tk_buf_release(&b);
}

static void sh_is(const char *in, size_t len, const char *want, const char *what)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_sh_quote(&b, in, len);
	is_str(b.buf, want, "shell: %s", what);
	tk_buf_release(&b);
}

/*
 * One rule: for a name with no markup in it, every language writes the
 * same bytes as the terminal, and tk_escape_char agrees on each
 * character.
 */
static void one_rule(void)
{
	static const char hostile[] = "a\tb\nc\rd\x1b[31m\x7f\xc2\x9b\xc2\x85\xe2\x80\xae"
				      "\xd8\x9c\xef\xbf\xbe\xff\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80"
				      "ab\xe2\x82\xe9\x9b\xaa\xc3\xa9\xe2\x82\xac";
	size_t len = sizeof(hostile) - 1, i = 0, n, k;
	struct tk_buf t = TK_BUF_INIT, x = TK_BUF_INIT, m = TK_BUF_INIT, c = TK_BUF_INIT;
	int hex;

	tk_text_escape(&t, hostile, len);
	tk_xml_escape(&x, hostile, len, TK_XML_QUOTES, 0);
	tk_md_escape(&m, hostile, 0);
	while (i < len) {
		n = tk_escape_char(hostile + i, len - i, &hex);
		for (k = 0; k < n; k++)
			if (hex)
				tk_buf_addf(&c, "\\x%02x", (unsigned char)hostile[i + k]);
			else
				tk_buf_addch(&c, hostile[i + k]);
		i += n;
	}
	ok(strstr(t.buf, "\\x1b") && strstr(t.buf, "\xe9\x9b\xaa\xc3\xa9\xe2\x82\xac"),
	   "one rule: the terminal's text hides the controls and keeps the rest");
	is_str(c.buf, t.buf, "one rule: tk_escape_char agrees with the terminal's text");
	is_str(x.buf, t.buf, "one rule: xml shows what the terminal shows");
	/* markdown also backslash-escapes [ in "\x1b[31m" */
	tk_buf_reset(&c);
	i = 0;
	while (i < len) {
		n = tk_escape_char(hostile + i, len - i, &hex);
		for (k = 0; k < n; k++)
			if (hex)
				tk_buf_addf(&c, "\\x%02x", (unsigned char)hostile[i + k]);
			else if (hostile[i + k] == '[')
				tk_buf_adds(&c, "\\[");
			else
				tk_buf_addch(&c, hostile[i + k]);
		i += n;
	}
	is_str(m.buf, c.buf, "one rule: markdown shows what the terminal shows");
	tk_buf_release(&t);
	tk_buf_release(&x);
	tk_buf_release(&m);
	tk_buf_release(&c);
}

int main(void)
{
	struct tk_buf b = TK_BUF_INIT;
	char raw[TK_XML_ESCAPED_MAX(8)];
	size_t used, n;

	/* text: what reaches a terminal */
	text_is("a\x1b]0;pwned\x07\nb", 13, "a\\x1b]0;pwned\\x07\\x0ab",
		"C0 controls, LF included, as \\xNN");
	text_is("x\xc2\x9b" "2J\xc2\x85y", 8, "x\\xc2\\x9b2J\\xc2\\x85y",
		"C1 controls (8-bit CSI) as their two bytes");
	text_is("c\xff" "d\x9b", 4, "c\\xffd\\x9b", "bytes of no valid sequence as \\xNN");
	text_is("caf\xc3\xa9 | ok \xc2\xa0", 13, "caf\xc3\xa9 | ok \xc2\xa0",
		"UTF-8, punctuation and U+00A0 kept");
	text_is("nul\0byte", 8, "nul\\x00byte", "NUL inside the length");
	ok(!strcmp(tk_text_shown(&b, NULL), "-"), "text: NULL shown as -");
	ok(!strcmp(tk_text_shown(&b, "\x7f"), "\\x7f"), "text: DEL");
	tk_buf_reset(&b);
	tk_text_escape_cut(&b, "abcdef", 6, 3);
	is_str(b.buf, "abc...", "text: cut after max bytes");
	tk_buf_reset(&b);
	tk_text_escape_cut(&b, "ab\xc3\xa9\xc3\xa9", 6, 3);
	is_str(b.buf, "ab...", "text: a cut never splits a character");
	tk_buf_reset(&b);
	tk_text_escape_cut(&b, "abc", 3, 3);
	is_str(b.buf, "abc", "text: no cut when it fits");
	tk_buf_reset(&b);
	tk_text_escape_cut(&b, "\x80\x80\x80\x80\x80\x80", 6, 4);
	is_str(b.buf, "\\x80\\x80\\x80\\x80...", "text: stray continuation bytes are cut anywhere");
	tk_buf_reset(&b);
	tk_text_escape_cut(&b, "ab\xe2\x82\xac", 5, 4);
	is_str(b.buf, "ab...", "text: a character across the cut is left out whole");

	/* xml: element content and attributes */
	xml_is("<b title=\"x\">&'", TK_XML_QUOTES, 0,
	       "&lt;b title=&quot;x&quot;&gt;&amp;&#39;", "markup and quotes (attributes)");
	xml_is("a\"b'c&<>", 0, 0, "a\"b'c&amp;&lt;&gt;", "quotes kept in element content");
	xml_is("\x01\x7f\xff\x1b", 0, 0, "\\x01\\x7f\\xff\\x1b",
	       "C0, DEL, a bad byte: \\xNN each, as in text");
	xml_is("main\xc2\x9b[2J\xc2\x85\xc2\xa0\x9b", 0, 0,
	       "main\\xc2\\x9b[2J\\xc2\\x85\xc2\xa0\\x9b",
	       "a C1 control as its two bytes, U+00A0 kept");
	xml_is("\xef\xbf\xbe\xef\xbf\xbf|", 0, 0, "\\xef\\xbf\\xbe\\xef\\xbf\\xbf|",
	       "U+FFFE and U+FFFF, which XML forbids, byte by byte");
	xml_is("\xed\xa0\x80", 0, 0, "\\xed\\xa0\\x80", "a UTF-16 surrogate, byte by byte");
	xml_is("\xc0\xaf", 0, 0, "\\xc0\\xaf", "an overlong form");
	xml_is("a\tb\nc\rd", 0, 0, "a\\x09b\\x0ac\\x0dd", "TAB, LF and CR as in text");
	xml_is("a\tb\nc\rd", TK_XML_QUOTES, 0, "a\\x09b\\x0ac\\x0dd",
	       "an attribute holds no raw line either");
	xml_is(NULL, 0, 0, "", "NULL is empty");
	xml_is("abcdef", 0, 3, "abc" ELLIPSIS, "cut after max characters, an ellipsis");
	xml_is("abc", 0, 3, "abc", "no ellipsis when it fits");
	xml_is("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 0, 2, "\xc3\xa9\xc3\xa9" ELLIPSIS,
	       "characters are counted, not bytes");
	ok(tk_xml_chars("a\xc3\xa9\xff\xe2\x82\xac", 7) == 7,
	   "xml: characters counted as shown (\\xff is 4)");
	n = tk_xml_escape_raw(raw, "a&b\xff" "cd", 6, 0, 3, &used);
	ok(n == 7 && !memcmp(raw, "a&amp;b", 7) && used == 3,
	   "xml raw: max characters, input bytes taken");
	n = tk_xml_escape_raw(raw, "&&&&&&&&", 8, TK_XML_QUOTES, 0, &used);
	ok(n == 40 && n <= sizeof(raw) && used == 8, "xml raw: within the worst case");
	n = tk_xml_escape_raw(raw, "\xff\xff\xff\xff\xff\xff\xff\xff", 8, 0, 0, &used);
	ok(n == 32 && used == 8, "xml raw: stray bytes, 4 each, within the worst case");
	n = tk_xml_escape_raw(raw, "\xc2\x85\xc2\x85\xc2\x85\xc2\x85", 8, 0, 0, &used);
	ok(n == 32 && used == 8, "xml raw: C1 controls, 8 for 2 bytes, within the worst case");
	n = tk_xml_escape_raw(raw, "\x01\xff" "abcdef", 8, 0, 8, &used);
	ok(n == 8 && used == 2 && !memcmp(raw, "\\x01\\xff", 8),
	   "xml raw: an escaped byte counts as the 4 characters it shows");
	n = tk_xml_escape_raw(raw, "ab\xff" "cd", 5, 0, 5, &used);
	ok(n == 2 && used == 2 && !memcmp(raw, "ab", 2),
	   "xml raw: one that would pass max characters is left out whole");

	/* markdown: cells of a build page */
	md_is("amip", 0, "amip", "plain key");
	md_is(NULL, 0, "", "NULL is empty");
	md_is("<script>alert(1)</script>", 0, "&lt;script&gt;alert\\(1\\)&lt;\\/script&gt;",
	      "HTML markup inert");
	md_is("a|b", 0, "a&#124;b", "a table's cell separator");
	md_is("`x`", 0, "\\`x\\`", "code spans");
	md_is("x](javascript:alert(1))", 0, "x\\]\\(javascript\\:alert\\(1\\)\\)",
	      "no link can be closed and opened");
	md_is("a&b \"q\" 'r'", 0, "a&amp;b &quot;q&quot; &#39;r&#39;", "entities");
	md_is("*_~#!", 0, "\\*\\_\\~\\#\\!", "emphasis, strike, heading");
	md_is("line\none\r\t", 0, "line\\x0aone\\x0d\\x09", "controls as in text");
	md_is("x\xc2\x9b", 0, "x\\xc2\\x9b", "C1 controls as in text");
	md_is("caf\xc3\xa9 \xff", 0, "caf\xc3\xa9 \\xff", "a bad byte as \\xNN, as in text");
	md_is("caf\xc3\xa9", 4, "caf" ELLIPSIS, "a cut never splits a character");
	md_is("abcdef", 3, "abc" ELLIPSIS, "cut after max bytes");
	md_is("\x80\x80\x80\x80", 2, "\\x80\\x80" ELLIPSIS,
	      "stray continuation bytes are cut anywhere");

	/* shell: one word whatever it holds */
	sh_is("amip", 4, "amip", "a plain key stays plain");
	sh_is("a.b_c-d/e:f=g+h@i%j,k", 21, "a.b_c-d/e:f=g+h@i%j,k", "safe punctuation");
	sh_is("", 0, "''", "empty is two quotes");
	sh_is("it's", 4, "'it'\\''s'", "a single quote closes, escapes, reopens");
	sh_is("$(x) `y` \"z\"", 12, "'$(x) `y` \"z\"'", "expansions stay quoted");
	sh_is("a\nb", 3, "'a\nb'", "a newline stays inside the quotes");
	tk_buf_reset(&b);
	tk_sh_quote(&b, "a\0b", 3);
	ok(b.len == 5 && !memcmp(b.buf, "'a\0b'", 5), "shell: a NUL byte is not safe punctuation");
	tk_buf_release(&b);
	/* bidirectional controls reorder what follows them: \xNN everywhere */
#define BIDI_IN "main\xe2\x80\xae" "gpj.exe"
	text_is(BIDI_IN, sizeof(BIDI_IN) - 1, "main\\xe2\\x80\\xaegpj.exe",
		"U+202E (right-to-left override)");
#define BIDI_MORE "a\xe2\x81\xa6" "b\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c"
	text_is(BIDI_MORE, sizeof(BIDI_MORE) - 1,
		"a\\xe2\\x81\\xa6b\\xe2\\x81\\xa9\\xe2\\x80\\x8f\\xd8\\x9c",
		"U+2066, U+2069, U+200F, U+061C");
	text_is("\xe2\x80\xa9\xe2\x80\xa6", 6, "\xe2\x80\xa9\xe2\x80\xa6",
		"U+2029 and U+2026 are not bidi controls");
	xml_is("k\xe2\x80\xae" "ey", 0, 0, "k\\xe2\\x80\\xaeey", "U+202E as \\xNN");
	xml_is("\xe2\x80\xaa\xe2\x80\x8e", 0, 0, "\\xe2\\x80\\xaa\\xe2\\x80\\x8e",
	       "U+202A and U+200E");
	md_is("k\xe2\x80\xae" "ey", 0, "k\\xe2\\x80\\xaeey", "U+202E as \\xNN");
	n = tk_xml_escape_raw(raw, "\xe2\x80\xae\xe2\x80\xae", 6, 0, 0, &used);
	ok(n == 24 && used == 6 && n <= TK_XML_ESCAPED_MAX(6),
	   "xml: two bidi controls take 24 bytes, within TK_XML_ESCAPED_MAX");
	one_rule();
	return done_testing();
}
