#include "core/analyze/normalize.h"

#include <string.h>

#include "core/base/banned.h"

/* Hand-rolled classes: <ctype.h> depends on the locale and on signedness. */
static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int is_ident(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int has_prefix_at(const char *s, size_t n, size_t i, const char *pre)
{
	size_t k = strlen(pre);

	return i + k <= n && !memcmp(s + i, pre, k);
}

static size_t digits_at(const char *s, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && is_digit(s[j]))
		j++;
	return j - i;
}

/* "operator" ends right before s[i]. */
static int after_operator(const char *s, size_t i)
{
	return i >= 8 && !memcmp(s + i - 8, "operator", 8) && (i == 8 || !is_ident(s[i - 9]));
}

/* The index just past the '>' matching the '<' at s[i], or 0 when unbalanced. */
static size_t match_angle(const char *s, size_t n, size_t i)
{
	size_t depth = 0;

	for (; i < n; i++) {
		if (s[i] == '<') {
			depth++;
		} else if (s[i] == '>' && !(i && s[i - 1] == '-')) {
			if (!--depth)
				return i + 1;
		}
	}
	return 0;
}

static void templates(const char *s, size_t n, struct tk_buf *o)
{
	size_t i = 0, op_end = (size_t)-1;

	while (i < n) {
		size_t end = 0;

		if (s[i] != '<') {
			tk_buf_addch(o, s[i++]);
			continue;
		}
		if (after_operator(s, i)) {
			/* operator<, <<, <=, <=>, <<= are names, not arguments */
			size_t j = i + 1;

			while (j < n && j < i + 3 && (s[j] == '<' || s[j] == '=' || s[j] == '>'))
				j++;
			tk_buf_add(o, s + i, j - i);
			i = op_end = j;
			continue;
		}
		/* foo<...>, a<b><c>, and gcc's "operator<< <char>" */
		if (i && (is_ident(s[i - 1]) || s[i - 1] == '>' ||
			  (s[i - 1] == ' ' && i - 1 == op_end)))
			end = match_angle(s, n, i);
		if (!end) {
			tk_buf_addch(o, s[i++]);
			continue;
		}
		tk_buf_adds(o, "<>");
		i = end;
	}
}

static void lambdas(const char *s, size_t n, struct tk_buf *o)
{
	size_t i = 0;

	while (i < n) {
		size_t d;

		/* {lambda(int)#3}, {unnamed type#1}, {closure#0} */
		if (s[i] == '#' && (d = digits_at(s, n, i + 1)) && i + 1 + d < n && s[i + 1 + d] == '}') {
			tk_buf_adds(o, "#N");
			i += 1 + d;
			continue;
		}
		/* clang's $_12, Java's Outer$1 and lambda$main$0 */
		if (s[i] == '$') {
			size_t at = i + 1 + (i + 1 < n && s[i + 1] == '_');

			d = digits_at(s, n, at);
			if (d && (at + d == n || !is_ident(s[at + d]))) {
				tk_buf_add(o, s + i, at - i);
				tk_buf_addch(o, 'N');
				i = at + d;
				continue;
			}
		}
		/* Go: main.main.func1.2 */
		if (has_prefix_at(s, n, i, ".func") && (d = digits_at(s, n, i + 5)) &&
		    (i + 5 + d == n || !is_ident(s[i + 5 + d]))) {
			tk_buf_adds(o, ".funcN");
			i += 5 + d;
			while (i < n && s[i] == '.' && (d = digits_at(s, n, i + 1)) &&
			       (i + 1 + d == n || !is_ident(s[i + 1 + d]))) {
				tk_buf_adds(o, ".N");
				i += 1 + d;
			}
			continue;
		}
		tk_buf_addch(o, s[i++]);
	}
}

static int julia_token_end(char c)
{
	return c == ' ' || c == '(' || c == ')' || c == ';' || c == ',' || c == '<' || c == '"';
}

/*
 * A Julia code symbol at s[i] (julia_foo_1234, jfptr_foo_12, tojlinvoke12):
 * returns the end of the token and sets *digits to where its numeric
 * suffix starts; 0 when there is none.
 */
static size_t julia_symbol(const char *s, size_t n, size_t i, size_t *digits)
{
	static const char *const prefixes[] = {
		"julia_", "j_", "j1_", "jfptr_", "japi1_", "japi3_", "jlcapi_", "jlplt_",
		"jsys1_", "tojlinvoke",
	};
	size_t k, end = i, j;

	for (k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
		if (has_prefix_at(s, n, i, prefixes[k]))
			break;
	if (k == sizeof(prefixes) / sizeof(prefixes[0]))
		return 0;
	while (end < n && !julia_token_end(s[end]))
		end++;
	j = end;
	while (j > i && is_digit(s[j - 1]))
		j--;
	if (j == end || j < i + strlen(prefixes[k]))
		return 0;
	if (strcmp(prefixes[k], "tojlinvoke") && (j == i + strlen(prefixes[k]) || s[j - 1] != '_'))
		return 0;
	*digits = j;
	return end;
}

/* 1 when s[i] starts "#12": a number after '#', not followed by a name
 * character (in a code symbol, '_' separates it from the suffix). */
static int julia_hash(const char *s, size_t n, size_t i, int in_symbol, size_t *d)
{
	size_t e;

	if (s[i] != '#' || !(*d = digits_at(s, n, i + 1)))
		return 0;
	e = i + 1 + *d;
	return e == n || !is_ident(s[e]) || (in_symbol && s[e] == '_');
}

static void julia(const char *s, size_t n, struct tk_buf *o)
{
	size_t i = 0;

	while (i < n) {
		size_t d, end, j;

		/* #12, #foo#12, ##sum#123, var"#f#3" */
		if (julia_hash(s, n, i, 0, &d)) {
			tk_buf_adds(o, "#N");
			i += 1 + d;
			continue;
		}
		/* julia_foo_123, and julia_#foo#12_345 for closures */
		if ((!i || !is_ident(s[i - 1])) && (end = julia_symbol(s, n, i, &d))) {
			for (j = i; j < d;) {
				size_t k;

				if (julia_hash(s, d, j, 1, &k)) {
					tk_buf_adds(o, "#N");
					j += 1 + k;
				} else {
					tk_buf_addch(o, s[j++]);
				}
			}
			tk_buf_addch(o, 'N');
			i = end;
			continue;
		}
		tk_buf_addch(o, s[i++]);
	}
}

static void hex(const char *s, size_t n, struct tk_buf *o)
{
	size_t i = 0;

	while (i < n) {
		size_t j;

		/* +0x1a, +0x1a/0x40: offsets into a symbol */
		if (s[i] == '+' && has_prefix_at(s, n, i + 1, "0x") && i + 3 < n && is_hex(s[i + 3])) {
			j = i + 3;
			while (j < n && is_hex(s[j]))
				j++;
			if (has_prefix_at(s, n, j, "/0x") && j + 3 < n && is_hex(s[j + 3])) {
				j += 3;
				while (j < n && is_hex(s[j]))
					j++;
			}
			i = j;
			continue;
		}
		/* Rust legacy mangling hash: ::h0123456789abcdef */
		if (has_prefix_at(s, n, i, "::h") && i + 19 <= n) {
			for (j = i + 3; j < i + 19 && is_hex(s[j]); j++)
				;
			if (j == i + 19 && (j == n || !is_ident(s[j]))) {
				i = j;
				continue;
			}
		}
		if (s[i] == '0' && i + 2 < n && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
		    is_hex(s[i + 2]) && (!i || !is_ident(s[i - 1]))) {
			j = i + 2;
			while (j < n && is_hex(s[j]))
				j++;
			if (j == n || !is_ident(s[j])) {
				tk_buf_adds(o, "0x...");
				i = j;
				continue;
			}
		}
		tk_buf_addch(o, s[i++]);
	}
}

/* s[0..i) ends with a file name: ".ext" with a short alphanumeric ext. */
static int ends_with_file(const char *s, size_t i)
{
	size_t j = i, ext;

	while (j > 0 && (is_ident(s[j - 1]) || s[j - 1] == '+'))
		j--;
	ext = i - j;
	return ext >= 1 && ext <= 6 && j >= 2 && s[j - 1] == '.' && s[j - 2] != '.' &&
	       s[j - 2] != ' ' && s[j - 2] != '(';
}

static void lines(const char *s, size_t n, struct tk_buf *o)
{
	size_t i = 0;

	while (i < n) {
		size_t d, j;

		if (s[i] == ':' && (d = digits_at(s, n, i + 1)) && ends_with_file(s, i)) {
			j = i + 1 + d;
			if (j < n && s[j] == ':' && (d = digits_at(s, n, j + 1)))
				j += 1 + d;
			if (j == n || !is_ident(s[j])) {
				i = j;
				continue;
			}
		}
		tk_buf_addch(o, s[i++]);
	}
}

int tk_normalize_name(const char *in, size_t len, unsigned flags, struct tk_buf *out)
{
	static void (*const passes[])(const char *, size_t, struct tk_buf *) = {
		templates, lambdas, julia, hex, lines,
	};
	static const unsigned pass_flags[] = {
		TK_NORM_TEMPLATES, TK_NORM_LAMBDAS, TK_NORM_JULIA, TK_NORM_HEX, TK_NORM_LINES,
	};
	struct tk_buf a = TK_BUF_INIT, b = TK_BUF_INIT;
	const char *cur = in;
	size_t cur_len = len, i;
	int ret;

	for (i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
		struct tk_buf *dst = cur == a.buf ? &b : &a;

		if (!(flags & pass_flags[i]))
			continue;
		tk_buf_reset(dst);
		passes[i](cur, cur_len, dst);
		cur = dst->buf;
		cur_len = dst->len;
	}
	ret = tk_buf_add(out, cur, cur_len);
	tk_buf_release(&a);
	tk_buf_release(&b);
	return ret;
}

int tk_normalize_parse(const char *spec, unsigned *flags, struct tk_err *err)
{
	static const struct {
		const char *name;
		unsigned flag;
	} names[] = {
		{ "hex", TK_NORM_HEX }, { "templates", TK_NORM_TEMPLATES },
		{ "lambdas", TK_NORM_LAMBDAS }, { "julia", TK_NORM_JULIA },
		{ "lines", TK_NORM_LINES }, { "all", TK_NORM_ALL }, { "none", 0 },
	};
	const char *p = spec;

	*flags = 0;
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p), i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (len == strlen(names[i].name) && !memcmp(p, names[i].name, len))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return tk_err_set(err, TK_EUSAGE,
					  "unknown normalization '%.*s' (use hex, templates, lambdas, julia, lines, all or none)",
					  (int)(len > 64 ? 64 : len), p);
		*flags |= names[i].flag;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
