/*
 * Untrusted text in each output language (contract in
 * core/base/escape.h).
 *
 * The xml rule runs over every frame name of a flame graph's SVG, so its
 * loop takes printable ASCII from a table and only looks further at what
 * is not: the whole SVG of 200k frames spends most of its time here.
 */
#include "core/base/escape.h"

#include <string.h>

#include "core/base/utf8.h"
#include "core/base/banned.h"

/* 1 when the valid sequence at p (n bytes) is a C1 control, U+0080-U+009F. */
static int is_c1(const unsigned char *p, size_t n)
{
	return n == 2 && p[0] == 0xc2 && p[1] < 0xa0;
}

/*
 * 1 when the valid sequence at p (n bytes) is a bidirectional control:
 * U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069. Shown as they
 * are, they reorder the text around them (a branch "main\u202e..." reads
 * backwards), so every rule writes them as "\xNN".
 */
static int is_bidi(const unsigned char *p, size_t n)
{
	if (n == 2)
		return p[0] == 0xd8 && p[1] == 0x9c;
	if (n != 3 || p[0] != 0xe2)
		return 0;
	if (p[1] == 0x80)
		return p[2] == 0x8e || p[2] == 0x8f || (p[2] >= 0xaa && p[2] <= 0xae);
	return p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9;
}

/* 1 when the valid sequence at p (n bytes) is U+FFFE or U+FFFF, which
 * XML forbids. */
static int is_nonchar(const unsigned char *p, size_t n)
{
	return n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe;
}

/*
 * The one rule of every language: 1 when the character at p (n bytes of
 * a valid sequence; 0: a byte that starts none) is written as "\xNN" per
 * byte. C0 controls, DEL and the C1 controls would move the cursor or
 * end a line, stray bytes are an 8-bit CSI to some terminals and no
 * character to XML, JSON or cairo, bidirectional controls reorder the
 * text around them: every output shows the same visible bytes for them.
 */
static int hidden(const unsigned char *p, size_t n)
{
	return !n || p[0] < 0x20 || p[0] == 0x7f || is_c1(p, n) || is_bidi(p, n) ||
	       is_nonchar(p, n);
}

size_t tk_escape_char(const char *s, size_t left, int *hex)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = tk_utf8_seqlen(u, left);

	*hex = hidden(u, n);
	return n ? n : 1;
}

static size_t put_hex(char *d, const unsigned char *u, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t k;

	for (k = 0; k < n; k++) {
		d[4 * k] = '\\';
		d[4 * k + 1] = 'x';
		d[4 * k + 2] = hex[u[k] >> 4];
		d[4 * k + 3] = hex[u[k] & 15];
	}
	return 4 * n;
}

/* ---- text ---- */

void tk_text_escape(struct tk_buf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, plain = 0, n;

	while (i < len) {
		n = tk_utf8_seqlen(u + i, len - i);
		if (!hidden(u + i, n)) {
			i += n;
			continue;
		}
		n = n ? n : 1;
		tk_buf_add(out, s + plain, i - plain);
		if (tk_buf_grow(out, 4 * n))
			return; /* a capped buffer: nothing half-written */
		tk_buf_setlen(out, out->len + put_hex(out->buf + out->len, u + i, n));
		i += n;
		plain = i;
	}
	tk_buf_add(out, s + plain, len - plain);
}

const char *tk_text_shown(struct tk_buf *tmp, const char *s)
{
	tk_buf_reset(tmp);
	if (!s)
		s = "-";
	tk_text_escape(tmp, s, strlen(s));
	return tmp->buf;
}

/*
 * Where to cut s[0..len) to keep at most max bytes without splitting a
 * character: before a valid sequence that starts at most 3 bytes before
 * max and runs past it. Bytes of no valid sequence are cut anywhere.
 */
static size_t cut_at(const char *s, size_t len, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t k;

	if (len <= max)
		return len;
	for (k = 1; k <= 3 && k <= max; k++) {
		if ((u[max - k] & 0xc0) == 0x80)
			continue; /* a continuation byte: its lead is further back */
		if (tk_utf8_seqlen(u + max - k, len - (max - k)) > k)
			return max - k;
		break;
	}
	return max;
}

void tk_text_escape_cut(struct tk_buf *out, const char *s, size_t len, size_t max)
{
	size_t cut = cut_at(s, len, max);

	tk_text_escape(out, s, cut);
	if (cut < len)
		tk_buf_adds(out, "...");
}

/* ---- xml ---- */

/* The ASCII written as it is: printable but & < > " '. */
static const unsigned char plain[256] = {
	[' '] = 1, ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1,
	['('] = 1, [')'] = 1, ['*'] = 1, ['+'] = 1, [','] = 1, ['-'] = 1, ['.'] = 1,
	['/'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1, [':'] = 1, [';'] = 1, ['='] = 1,
	['?'] = 1, ['@'] = 1, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1,
	['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1,
	['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
	['['] = 1, ['\\'] = 1, [']'] = 1, ['^'] = 1, ['_'] = 1, ['`'] = 1, ['a'] = 1,
	['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1,
	['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1,
	['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1, ['{'] = 1, ['|'] = 1, ['}'] = 1,
	['~'] = 1,
};

static size_t put(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
	return n;
}

/*
 * One character of the xml rule at u (left bytes, the first not in
 * plain[]) written to d; *took gets the input bytes it was.
 */
static size_t xml_char(char *d, const unsigned char *u, size_t left, unsigned flags,
		       size_t *took)
{
	size_t n;

	*took = 1;
	switch (*u) {
	case '&':
		return put(d, "&amp;", 5);
	case '<':
		return put(d, "&lt;", 4);
	case '>':
		return put(d, "&gt;", 4);
	case '"':
		return flags & TK_XML_QUOTES ? put(d, "&quot;", 6) : put(d, "\"", 1);
	case '\'':
		return flags & TK_XML_QUOTES ? put(d, "&#39;", 5) : put(d, "'", 1);
	}
	/* the rest of ASCII here is C0 and DEL */
	n = *u < 0x80 ? 0 : tk_utf8_seqlen(u, left);
	*took = n ? n : 1;
	if (hidden(u, n))
		return put_hex(d, u, *took);
	return put(d, (const char *)u, n);
}

/*
 * The characters the one rule shows for the character at u (left bytes,
 * not in plain[]): 4 per byte of what it writes as "\xNN", else 1; *took
 * gets its bytes.
 */
static size_t shown_width(const unsigned char *u, size_t left, size_t *took)
{
	size_t n = *u < 0x80 ? (*u < 0x20 || *u == 0x7f ? 0 : 1) : tk_utf8_seqlen(u, left);

	if (*u < 0x80 && n) {
		*took = 1;
		return 1;
	}
	*took = n ? n : 1;
	return hidden(u, n) ? 4 * *took : 1;
}

size_t tk_xml_escape_raw(char *dst, const char *s, size_t len, unsigned flags,
			 size_t max_chars, size_t *used)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, out = 0, chars = 0, took, width;

	while (i < len && (!max_chars || chars < max_chars)) {
		if (plain[u[i]]) {
			chars++;
			dst[out++] = (char)u[i++];
			continue;
		}
		/* "\xNN" is 4 characters of the picture a byte: a cut never
		 * lets one run past max_chars */
		width = shown_width(u + i, len - i, &took);
		if (max_chars && chars + width > max_chars)
			break;
		chars += width;
		out += xml_char(dst + out, u + i, len - i, flags, &took);
		i += took;
	}
	if (used)
		*used = i;
	return out;
}

size_t tk_xml_escape(struct tk_buf *out, const char *s, size_t len, unsigned flags,
		     size_t max_chars)
{
	size_t used, n;

	if (tk_buf_grow(out, TK_XML_ESCAPED_MAX(len)))
		return 0; /* a capped buffer without room for the worst case */
	n = tk_xml_escape_raw(out->buf + out->len, s, len, flags, max_chars, &used);
	tk_buf_setlen(out, out->len + n);
	return used;
}

size_t tk_xml_chars(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n = 0, k;

	while (i < len) {
		if (plain[u[i]]) {
			i++;
			n++;
			continue;
		}
		n += shown_width(u + i, len - i, &k);
		i += k;
	}
	return n;
}

void tk_xml_text(struct tk_buf *out, const char *s, unsigned flags, size_t max_chars)
{
	size_t len;

	if (!s)
		s = "";
	len = strlen(s);
	if (tk_xml_escape(out, s, len, flags, max_chars) < len)
		tk_buf_adds(out, "\xe2\x80\xa6");
}

/* ---- markdown ---- */

void tk_md_escape(struct tk_buf *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len, cut, i = 0, n;

	if (!s)
		return;
	len = strlen(s);
	cut = max ? cut_at(s, len, max) : len;
	while (i < cut) {
		n = tk_utf8_seqlen(p + i, cut - i);
		if (hidden(p + i, n)) {
			n = n ? n : 1;
			tk_text_escape(out, s + i, n);
		} else if (n > 1) {
			tk_buf_add(out, s + i, n);
		} else if (p[i] == '&') {
			tk_buf_adds(out, "&amp;");
		} else if (p[i] == '<') {
			tk_buf_adds(out, "&lt;");
		} else if (p[i] == '>') {
			tk_buf_adds(out, "&gt;");
		} else if (p[i] == '"') {
			tk_buf_adds(out, "&quot;");
		} else if (p[i] == '\'') {
			tk_buf_adds(out, "&#39;");
		} else if (p[i] == '|') {
			tk_buf_adds(out, "&#124;");
		} else {
			if (strchr("\\`*_{}[]()#+-.!~=:$%^;@/?", p[i]))
				tk_buf_addch(out, '\\');
			tk_buf_addch(out, (char)p[i]);
		}
		i += n;
	}
	if (cut < len)
		tk_buf_adds(out, "\xe2\x80\xa6");
}

void tk_escape(struct tk_buf *out, enum tk_esc_lang lang, const char *s)
{
	if (!s)
		s = "-";
	switch (lang) {
	case TK_ESC_XML:
		tk_xml_text(out, s, 0, 0);
		break;
	case TK_ESC_MARKDOWN:
		tk_md_escape(out, s, 0);
		break;
	default:
		tk_text_escape(out, s, strlen(s));
		break;
	}
}

/* ---- shell ---- */

void tk_sh_quote(struct tk_buf *out, const char *s, size_t len)
{
	size_t i;
	int bare = len > 0;

	for (i = 0; bare && i < len; i++)
		bare = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9') || (s[i] && strchr("_./:=+@%,-", s[i]));
	if (bare) {
		tk_buf_add(out, s, len);
		return;
	}
	tk_buf_addch(out, '\'');
	for (i = 0; i < len; i++) {
		if (s[i] == '\'')
			tk_buf_adds(out, "'\\''");
		else
			tk_buf_addch(out, s[i]);
	}
	tk_buf_addch(out, '\'');
}
