#ifndef TK_IMPORT_JSON_UTIL_H
#define TK_IMPORT_JSON_UTIL_H
/*
 * Helpers shared by the JSON importers (speedscope, cpuprofile,
 * profilecanvas): static functions, so each plugin still exports one
 * symbol.
 *
 * Input is slurped under a cap and parsed by jansson, which refuses
 * nesting deeper than JSON_PARSER_MAX_DEPTH (2048) with an error, so a
 * 100k-deep array is a clean TK_EDATA naming line and column.
 *
 * jansson's tree costs many times the text: about 40 bytes per number
 * ("1," is 20x), 136 per array and 232 per object ("[]," is 45x, "{},"
 * 77x). Before parsing, tk_json_load counts the values and refuses
 * (TK_EDATA) a document whose tree would take more than
 * TK_JSON_TREE_RATIO times its size plus TK_JSON_TREE_SLACK, or more than
 * TK_JSON_MAX_TREE in all: profiles, whose arrays hold stacks and
 * weights, are far below the ratio; inputs built to blow up memory are
 * not. docs/importers.md gives the measured bound.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/model/import.h"

#define TK_JSON_MAX_BYTES (128u << 20)
#define TK_JSON_TREE_RATIO 40
#define TK_JSON_TREE_SLACK ((size_t)16 << 20)
#define TK_JSON_MAX_TREE ((size_t)1 << 30)

/* What jansson allocates per value (measured with glibc malloc), plus
 * its slot in the parent array or object. */
enum { JSON_COST_SLOT = 16, JSON_COST_SCALAR = 40, JSON_COST_STRING = 72,
       JSON_COST_ARRAY = 136, JSON_COST_OBJECT = 232 };

/* An upper estimate of the bytes jansson's tree of text[0..len) takes;
 * invalid JSON is estimated too (jansson then refuses it). */
static size_t __attribute__((unused)) tk_json_tree_cost(const char *text, size_t len)
{
	size_t i = 0, cost = 0;

	while (i < len) {
		char c = text[i];

		if (c == '"') {
			size_t start = ++i;

			while (i < len && text[i] != '"')
				i += text[i] == '\\' ? 2 : 1;
			cost += JSON_COST_SLOT + JSON_COST_STRING + (i - start);
			i++;
		} else if (c == '[') {
			cost += JSON_COST_SLOT + JSON_COST_ARRAY;
			i++;
		} else if (c == '{') {
			cost += JSON_COST_SLOT + JSON_COST_OBJECT;
			i++;
		} else if (c == '-' || (c >= '0' && c <= '9') || c == 't' || c == 'f' || c == 'n') {
			cost += JSON_COST_SLOT + JSON_COST_SCALAR;
			while (i < len && text[i] != ',' && text[i] != ']' && text[i] != '}' &&
			       text[i] != ' ' && text[i] != '\n' && text[i] != '"' && text[i] != '[' &&
			       text[i] != '{')
				i++;
		} else {
			i++;
		}
	}
	return cost;
}

/* TK_EDATA when the tree of text[0..len) would take too much memory. */
static int __attribute__((unused))
tk_json_check_cost(const char *name, const char *text, size_t len, struct tk_err *err)
{
	size_t cost = tk_json_tree_cost(text, len);
	size_t budget = TK_JSON_TREE_RATIO * len + TK_JSON_TREE_SLACK;

	if (budget > TK_JSON_MAX_TREE)
		budget = TK_JSON_MAX_TREE;
	if (cost <= budget)
		return 0;
	return tk_err_set(err, TK_EDATA,
			  "cannot import '%s': its %zu bytes of JSON would take about %zu MiB "
			  "in memory (the limit is %zu MiB: %dx the size plus %zu MiB, at most %zu MiB)",
			  name, len, cost >> 20, budget >> 20, TK_JSON_TREE_RATIO,
			  TK_JSON_TREE_SLACK >> 20, TK_JSON_MAX_TREE >> 20);
}

/* TK_EDATA "cannot parse '<name>': <what>": the JSON importers' one form
 * of a corrupt-input message. */
static int __attribute__((unused, format(printf, 3, 4)))
tk_json_bad(struct tk_err *err, const char *name, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tk_err_set(err, TK_EDATA, "cannot parse '%s': %s", name, what);
}

/* Parses text[0..len) (flags for json_loadb); line/column offsets shift
 * the error position when the JSON is embedded in a larger document. */
static int __attribute__((unused))
tk_json_parse(const char *name, const char *text, size_t len, size_t flags, int line0,
	      int col0, json_t **out, size_t *consumed, struct tk_err *err)
{
	json_error_t jerr;

	memset(&jerr, 0, sizeof(jerr));
	*out = json_loadb(text, len, flags, &jerr);
	if (!*out) {
		int line = jerr.line > 0 ? jerr.line : 1;
		int col = jerr.column > 0 ? jerr.column : 0;

		if (line == 1)
			col += col0;
		return tk_err_set(err, TK_EDATA, "cannot parse '%s' line %d column %d: %s", name,
				  line + line0, col, jerr.text);
	}
	if (consumed)
		*consumed = (size_t)jerr.position;
	return 0;
}

static int __attribute__((unused))
tk_json_load(struct tk_reader *in, struct tk_buf *text, json_t **out, struct tk_err *err)
{
	int ret = tk_reader_slurp(in, text, TK_JSON_MAX_BYTES, err);

	if (ret)
		return ret;
	ret = tk_json_check_cost(in->name, text->buf, text->len, err);
	if (ret)
		return ret;
	return tk_json_parse(in->name, text->buf, text->len, JSON_REJECT_DUPLICATES, 0, 0, out,
			     NULL, err);
}

/*
 * The frame name "NAME (FILE:LINE)": FILE and LINE when known (file
 * non-empty, line > 0), so same-named functions of different files stay
 * apart. Interned; TK_EDATA past TK_PROFILE_MAX_NAME.
 */
static int __attribute__((unused))
tk_json_frame_name(struct tk_profile *p, struct tk_buf *tmp, const char *name, size_t nlen,
		   const char *file, size_t flen, long long line, uint32_t *id)
{
	tk_buf_reset(tmp);
	tk_buf_add(tmp, name, nlen);
	if (flen) {
		tk_buf_adds(tmp, " (");
		tk_buf_add(tmp, file, flen);
		if (line > 0)
			tk_buf_addf(tmp, ":%lld", line);
		tk_buf_addch(tmp, ')');
	}
	if (tmp->len > TK_PROFILE_MAX_NAME)
		return TK_EDATA;
	*id = tk_profile_intern(p, tmp->buf, tmp->len);
	return 0;
}

/* A JSON number as a double; 0 when it is not a number. */
static int __attribute__((unused)) tk_json_number(const json_t *v, double *out)
{
	if (!json_is_number(v))
		return 0;
	*out = json_number_value(v);
	return 1;
}

/* The head, after whitespace and a UTF-8 BOM, starts with c. */
static int __attribute__((unused)) tk_json_starts(const char *head, size_t len, char c)
{
	size_t i = 0;

	if (len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	return i < len && head[i] == c;
}

#endif
