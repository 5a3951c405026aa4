#ifndef TK_ESCAPE_H
#define TK_ESCAPE_H
/*
 * Untrusted text in each output language, by one rule per language.
 *
 * Frame names, keys, branches, commits, labels and machine classes come
 * from outside (a profile, a CI variable, a record someone pushed): they
 * may hold markup, quotes, control characters, terminal escape sequences
 * and bytes that are not UTF-8. They reach an output only through these
 * functions; every renderer, page and message that shows them calls the
 * one for its language, so the rules that keep them inert exist once.
 *
 * One rule decides which characters no output shows as they are: C0
 * controls (TAB, LF and CR included), DEL, C1 controls (U+0080-U+009F),
 * the bidirectional controls (U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069: shown, they would reorder the text around them), the
 * noncharacters U+FFFE and U+FFFF (which XML forbids), and every byte
 * that starts no valid UTF-8 sequence (a lone 0x9b is an 8-bit CSI to
 * some terminals). Each of their bytes is written as the four characters
 * "\xNN" (lower-case hex), in every language below and in the pages'
 * JSON and cairo's text (tk_escape_char): a name reads the same, byte for
 * byte, in a terminal, a markdown summary, an SVG, an HTML page, a PNG and
 * a PDF. Nothing written moves the cursor, ends a line or reorders text.
 *
 *   text      a terminal or a text file: the rule above; everything else
 *             as it is.
 *   xml       XML text and HTML text or quoted attributes (SVG, the pages):
 *             the rule above; & < > as entities, " and ' too with
 *             TK_XML_QUOTES. The result is well-formed whatever the input.
 *   markdown  a cell or line of GitHub or Buildkite markdown: the rule
 *             above; & < > " ' as entities and | as &#124; (tables),
 *             markdown's punctuation backslash-escaped so that nothing
 *             becomes a link, emphasis, a heading or code.
 *   shell     one word of a POSIX shell's command line: as it is when it
 *             is made only of [A-Za-z0-9_./:=+@%,-] and not empty, else in
 *             single quotes, each ' written '\''. Every byte is kept: the
 *             word is for a shell (pipeline wrap's commands, a run's
 *             command shown as one would type it); a terminal shows it
 *             through the text rule.
 *
 * Every function appends; none fails or allocates beyond growing out.
 * Limits count characters (xml) or input bytes (text, markdown), never
 * splitting a character; each says what it appends when it cut.
 */
#include <stddef.h>

#include "core/base/buf.h"

/* ---- text (terminal) ---- */

/* Appends s[0..len) for a terminal or a text file (the rule above). */
void tk_text_escape(struct tk_buf *out, const char *s, size_t len);
/* tmp reset to the escaped form of the C string s (NULL: "-"); returns
 * tmp->buf, for printf's "%s". */
const char *tk_text_shown(struct tk_buf *tmp, const char *s);
/* At most max input bytes of s[0..len) escaped, then "..." when some were
 * left: untrusted text quoted in a one-line message. */
void tk_text_escape_cut(struct tk_buf *out, const char *s, size_t len, size_t max);

/* ---- xml (SVG, HTML) ---- */

enum tk_xml_flags {
	TK_XML_QUOTES = 1 << 0, /* " and ' as &quot; and &#39;: attributes */
};

/* The most bytes tk_xml_escape_raw writes for len input bytes ("&quot;"
 * for '"'; "\xNN" is 4 per byte). */
#define TK_XML_ESCAPED_MAX(len) ((len) * 6)

/*
 * The core of the xml rule, for writers with a buffer of their own (the
 * SVG writer): writes the escaped form of at most max_chars characters
 * (0: all) of s[0..len) to dst, which has room for
 * TK_XML_ESCAPED_MAX(len) bytes. Returns the bytes written; *used (may
 * be NULL) gets the input bytes taken.
 */
size_t tk_xml_escape_raw(char *dst, const char *s, size_t len, unsigned flags,
			 size_t max_chars, size_t *used);
/* The same into a buffer; returns the input bytes taken. */
size_t tk_xml_escape(struct tk_buf *out, const char *s, size_t len, unsigned flags,
		     size_t max_chars);
/* Characters in s[0..len) as shown, counted as tk_xml_escape counts
 * them: a byte shown as "\xNN" is 4, so a cut at max_chars fits the
 * picture's width. */
size_t tk_xml_chars(const char *s, size_t len);
/*
 * The C string s (NULL: "") as tk_xml_escape writes it; when it has more
 * than max_chars characters (0: no limit), its first max_chars and an
 * ellipsis ("\xe2\x80\xa6").
 */
void tk_xml_text(struct tk_buf *out, const char *s, unsigned flags, size_t max_chars);

/* ---- markdown ---- */

/*
 * The C string s (NULL: nothing) as markdown text, cut after max input
 * bytes (0: no limit) with an ellipsis.
 */
void tk_md_escape(struct tk_buf *out, const char *s, size_t max);

/* ---- any of them ---- */

/* The languages above, for writers that make several (the report's
 * markdown and HTML, check's text and markdown). */
enum tk_esc_lang {
	TK_ESC_TEXT,
	TK_ESC_XML,
	TK_ESC_MARKDOWN,
};

/* The C string s (NULL: "-") by lang's rule: tk_text_escape, tk_xml_text
 * or tk_md_escape, whole. XML text only: quotes are
 * not escaped, so never inside an attribute (tk_xml_text with
 * TK_XML_QUOTES is for those). */
void tk_escape(struct tk_buf *out, enum tk_esc_lang lang, const char *s);
/*
 * The rule above for a writer of another language (the pages' JSON,
 * cairo's text): the length in bytes of the character at s (left > 0
 * bytes available; 1 for a byte that starts no valid UTF-8 sequence),
 * with *hex set when its bytes are to be shown as "\xNN" each.
 */
size_t tk_escape_char(const char *s, size_t left, int *hex);

/* ---- shell ---- */

/* Appends s[0..len) as one shell word (the rule above). */
void tk_sh_quote(struct tk_buf *out, const char *s, size_t len);

#endif
