/*
 * core/base/table: aligned tables, CSV fields, and the terminal escape every
 * text sink of user strings uses (tk_text_escape).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/escape.h"
#include "core/base/buf.h"
#include "core/base/table.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static char *escaped(const char *s, size_t len)
{
	struct tk_buf b = TK_BUF_INIT;

	tk_text_escape(&b, s, len);
	return tk_buf_detach(&b, NULL);
}

#define is_escaped(in, want, ...) do { \
		char *got_ = escaped(in, sizeof(in) - 1); \
		is_str(got_, want, __VA_ARGS__); \
		free(got_); \
	} while (0)

int main(void)
{
	static const char *const headers[] = { "KEY", "BRANCH" };
	struct tk_table t;
	struct tk_buf b = TK_BUF_INIT, csv = TK_BUF_INIT;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	is_escaped("plain text, ünïcode", "plain text, ünïcode", "printable text is kept");
	is_escaped("a\033[2Jb", "a\\x1b[2Jb", "ESC");
	is_escaped("t\033]0;title\007", "t\\x1b]0;title\\x07", "an OSC sequence with BEL");
	is_escaped("cr\rlf\ntab\t", "cr\\x0dlf\\x0atab\\x09", "CR, LF, TAB");
	is_escaped("del\177", "del\\x7f", "DEL");
	is_escaped("nul\0x", "nul\\x00x", "NUL inside the length");
	is_escaped("c1\302\233[31m", "c1\\xc2\\x9b[31m", "the C1 CSI (U+009B)");
	is_escaped("nbsp\302\240", "nbsp\302\240", "U+00A0 is not a control");
	is_escaped("bad\377\302", "bad\\xff\\xc2", "invalid UTF-8 is escaped, a lone C2 too");
	is_escaped("fix\2332J\377", "fix\\x9b2J\\xff", "a lone 0x9b (an 8-bit CSI) is escaped");
	is_escaped("over\300\257long", "over\\xc0\\xaflong", "an overlong form is escaped byte by byte");
	is_escaped("cut\342\202", "cut\\xe2\\x82", "a truncated sequence is escaped byte by byte");
	is_escaped("euro\342\202\254!", "euro\342\202\254!", "a valid three-byte sequence is kept");
	is_str(tk_text_shown(&b, NULL), "-", "tk_text_shown: NULL is -");
	is_str(tk_text_shown(&b, "x\ny"), "x\\x0ay", "tk_text_shown escapes");

	tk_table_init(&t, 2, headers, NULL);
	tk_table_add(&t, "k");
	tk_table_add(&t, "evil\033[31m\nline");
	f = open_memstream(&text, &len);
	tk_table_print(&t, f);
	fclose(f);
	is_str(text, "KEY  BRANCH\nk    evil\\x1b[31m\\x0aline\n",
	       "a table cell is escaped and aligned by its escaped width");
	free(text);
	tk_table_release(&t);

	/* Display width, not code points: a CJK key takes two columns a
	 * character, a combining accent none, an invalid byte four (its \xNN). */
	tk_table_init(&t, 2, headers, NULL);
	tk_table_add(&t, "\xe6\xb0\x94\xe5\x80\x99"); /* 2 CJK: 4 columns */
	tk_table_add(&t, "a");
	tk_table_add(&t, "e\xcc\x81t\xc3\xa9"); /* e + U+0301, t, U+00E9: 3 */
	tk_table_add(&t, "b");
	tk_table_add(&t, "x\377");
	tk_table_add(&t, "c");
	f = open_memstream(&text, &len);
	tk_table_print(&t, f);
	fclose(f);
	is_str(text, "KEY    BRANCH\n\xe6\xb0\x94\xe5\x80\x99   a\n"
	       "e\xcc\x81t\xc3\xa9    b\nx\\xff  c\n",
	       "cells are aligned by display width: CJK two, combining none");
	free(text);
	tk_table_release(&t);

	/* Streaming: a window of two rows is printed as a table of two
	 * would be, later rows at once on its widths, a wider cell widening
	 * its column from there on; only the current row is held. */
	f = open_memstream(&text, &len);
	tk_table_init(&t, 2, headers, NULL);
	tk_table_stream(&t, f, 2);
	tk_table_add(&t, "ab");
	tk_table_add(&t, "x");
	tk_table_add(&t, "a");
	tk_table_add(&t, "y");
	fflush(f);
	is_str(text, "KEY  BRANCH\nab   x\na    y\n", "the window is printed when it fills");
	tk_table_add(&t, "b");
	ok(t.nr_cells == 1, "a later row's cells are held until the row is full");
	tk_table_add(&t, "z");
	ok(t.nr_cells == 0, "and printed then");
	tk_table_add(&t, "wider");
	tk_table_add(&t, "w");
	tk_table_add(&t, "c");
	tk_table_add(&t, "v");
	tk_table_print(&t, f);
	fclose(f);
	is_str(text, "KEY  BRANCH\nab   x\na    y\nb    z\nwider  w\nc      v\n",
	       "later rows on the window's widths; a wider cell widens its column");
	free(text);
	tk_table_release(&t);

	f = open_memstream(&text, &len);
	tk_table_init(&t, 2, headers, NULL);
	tk_table_stream(&t, f, 1000);
	tk_table_add(&t, "k");
	tk_table_add(&t, "v");
	fflush(f);
	is_str(text, "", "a table short of its window prints nothing before tk_table_print");
	tk_table_print(&t, f);
	fclose(f);
	is_str(text, "KEY  BRANCH\nk    v\n", "and then prints as a table that does not stream");
	free(text);
	tk_table_release(&t);

	tk_csv_text(&csv, "evil\033[31m\nline");
	is_str(csv.buf, "\"evil\033[31m\nline\"", "CSV keeps the exact value, quoted");
	tk_buf_release(&csv);
	tk_buf_release(&b);
	return done_testing();
}
