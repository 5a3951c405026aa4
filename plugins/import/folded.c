/*
 * Folded stacks, flamegraph.pl's input: one line per stack,
 *
 *     main;parse;read_line 42
 *
 * frames root first, separated by ';', then whitespace and a count that
 * may be fractional. The differential form "stack BEFORE AFTER" is
 * accepted; the profile takes AFTER, as flamegraph.pl draws widths from
 * it. Frame names keep every byte (spaces, '<', '&', invalid UTF-8):
 * renderers escape them. "\xHH" (two hex digits) is the byte HH: the
 * escape tracker's folded outputs write for ';', line breaks, NUL and
 * the rest core/model/stacks.h lists, so they read back as the same frames. As in flamegraph.pl, lines that do not end in a
 * count are skipped (blank lines and '#' comments silently, others
 * counted in the profile's warning); a file with no valid line, or with
 * a NUL byte (binary data), is not folded.
 *
 * Sorted input (what stackcollapse tools write) is the fast path:
 * consecutive lines share a prefix, and frames inside the shared prefix
 * reuse the previous line's nodes without hashing.
 */
#include "plugins/import/importers.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "core/base/banned.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Finds a trailing count `\s+\d+(\.\d*)?` in s[0..*len). On success sets
 * *value, shortens *len to the text before the whitespace and returns 1.
 */
static int take_count(const char *s, size_t *len, double *value)
{
	size_t end = *len, i = end, digits_end, int_start;
	double v = 0, scale = 1;
	int frac = 0;

	while (i > 0 && (is_digit(s[i - 1]) || s[i - 1] == '.'))
		i--;
	if (i == end || i == 0 || (s[i - 1] != ' ' && s[i - 1] != '\t'))
		return 0;
	int_start = i;
	if (!is_digit(s[int_start]))
		return 0;
	digits_end = int_start;
	while (digits_end < end && is_digit(s[digits_end]))
		digits_end++;
	if (digits_end < end) {
		size_t j;

		if (s[digits_end] != '.')
			return 0;
		for (j = digits_end + 1; j < end; j++)
			if (!is_digit(s[j]))
				return 0;
		frac = 1;
	}
	for (i = int_start; i < digits_end; i++)
		v = v * 10 + (s[i] - '0');
	if (frac)
		for (i = digits_end + 1; i < end; i++) {
			scale /= 10;
			v += (s[i] - '0') * scale;
		}
	i = int_start;
	while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
		i--;
	*len = i;
	*value = v;
	return 1;
}

/* The first line that is not blank or a '#' comment must be a stack. */
static int folded_probe(const char *head, size_t len)
{
	while (len) {
		const char *nl = memchr(head, '\n', len);
		size_t n = nl ? (size_t)(nl - head) : len;
		double v;

		if (n && head[n - 1] == '\r')
			n--;
		if (n && head[0] != '#')
			return head[0] != '{' && head[0] != '<' && take_count(head, &n, &v) && n > 0;
		if (!nl)
			break;
		len -= (size_t)(nl - head) + 1;
		head = nl + 1;
	}
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The id of frame s[0..len), "\xHH" escapes decoded (tmp is scratch). */
static uint32_t intern_frame(struct tk_profile *p, const char *s, size_t len,
			     struct tk_buf *tmp)
{
	size_t i;

	if (!memchr(s, '\\', len))
		return tk_profile_intern(p, s, len);
	tk_buf_reset(tmp);
	for (i = 0; i < len; i++) {
		int hi, lo;

		if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' &&
		    (hi = hex_value(s[i + 2])) >= 0 && (lo = hex_value(s[i + 3])) >= 0) {
			tk_buf_addch(tmp, (char)(hi << 4 | lo));
			i += 3;
		} else {
			tk_buf_addch(tmp, s[i]);
		}
	}
	return tk_profile_intern(p, tmp->buf, tmp->len);
}

struct prefix {
	struct tk_buf name;    /* scratch for decoding escapes */
	struct tk_buf stack;   /* previous line's stack text */
	size_t *end;           /* end offset of each frame */
	uint32_t *node;        /* node of each frame */
	size_t depth, alloc;
};

static size_t common_prefix(const char *a, size_t alen, const char *b, size_t blen)
{
	size_t n = alen < blen ? alen : blen, i = 0;

	/* word at a time; fixed-size memcpy compiles to plain loads */
	while (i + 8 <= n) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static int add_line(struct tk_reader *in, struct tk_profile *p, struct prefix *pf,
		    const char *stack, size_t len, double weight, struct tk_err *err)
{
	size_t shared = common_prefix(stack, len, pf->stack.buf, pf->stack.len);
	size_t pos = 0, depth = 0;
	uint32_t node = TK_PROFILE_ROOT;

	while (pos <= len && len) {
		const char *semi = memchr(stack + pos, ';', len - pos);
		size_t end = semi ? (size_t)(semi - stack) : len;

		if (depth >= TK_PROFILE_MAX_DEPTH)
			return tk_err_set(err, TK_EDATA, "'%s' line %llu: stack deeper than %d frames",
					  in->name, (unsigned long long)in->line_no,
					  TK_PROFILE_MAX_DEPTH);
		if (end - pos > TK_PROFILE_MAX_NAME)
			return tk_err_set(err, TK_EDATA,
					  "'%s' line %llu: frame name longer than %u bytes",
					  in->name, (unsigned long long)in->line_no,
					  TK_PROFILE_MAX_NAME);
		if (depth + 1 > pf->alloc) {
			TK_ALLOC_GROW(pf->end, depth + 1, pf->alloc);
			pf->node = tk_realloc_array(pf->node, pf->alloc, sizeof(uint32_t));
		}
		if (depth < pf->depth && pf->end[depth] == end && end <= shared &&
		    (end == len) == (end == pf->stack.len)) {
			node = pf->node[depth];
		} else {
			node = tk_profile_child(p, node, intern_frame(p, stack + pos, end - pos, &pf->name));
			if (!node)
				return tk_err_set(err, TK_EDATA, "'%s' line %llu: more than %u distinct stacks",
						  in->name, (unsigned long long)in->line_no,
						  TK_PROFILE_MAX_NODES);
			pf->depth = depth; /* later saved frames are stale */
		}
		pf->end[depth] = end;
		pf->node[depth] = node;
		depth++;
		pos = end + 1;
	}
	pf->depth = depth;
	tk_buf_reset(&pf->stack);
	tk_buf_add(&pf->stack, stack, len);
	return tk_profile_add_self(p, node, weight);
}

static int folded_parse(struct tk_reader *in, struct tk_profile *p,
			const struct tk_import_opts *opts, struct tk_err *err)
{
	struct prefix pf;
	unsigned long long skipped = 0, first_skipped = 0, stacks = 0;
	const char *line;
	size_t len;
	int ret;

	memset(&pf, 0, sizeof(pf));
	tk_buf_init(&pf.stack, 0);
	tk_buf_init(&pf.name, 0);
	p->unit = TK_UNIT_SAMPLES;
	while ((ret = tk_reader_line(in, &line, &len, err)) > 0) {
		double count, before;
		size_t n = len;

		if (!len || line[0] == '#')
			continue;
		/* text never holds NUL (tracker's outputs write it \x00): binary */
		if (memchr(line, '\0', len)) {
			ret = tk_err_set(err, TK_ENOTMINE, "line %llu holds a NUL byte: not text",
					 (unsigned long long)in->line_no);
			break;
		}
		if (!take_count(line, &n, &count)) {
			if (!skipped++)
				first_skipped = in->line_no;
			continue;
		}
		/* A second count: the differential form; keep the last. */
		take_count(line, &n, &before);
		if (tk_profile_weight_error(p, count)) {
			ret = tk_err_set(err, TK_EDATA, "'%s' line %llu: the count %g %s", in->name,
					 (unsigned long long)in->line_no, count,
					 tk_profile_weight_error(p, count));
			break;
		}
		ret = add_line(in, p, &pf, line, n, count, err);
		if (ret)
			break;
		stacks++;
	}
	tk_buf_release(&pf.stack);
	tk_buf_release(&pf.name);
	free(pf.end);
	free(pf.node);
	if (ret < 0)
		return ret;
	if (!stacks && skipped)
		return tk_err_set(err, TK_ENOTMINE,
				  "no line of the form 'frame;frame;... COUNT' (line %llu has no count)",
				  first_skipped);
	if (!stacks)
		return tk_err_set(err, TK_ENOTMINE, "no stacks in it");
	if (skipped)
		snprintf(p->warning, sizeof(p->warning),
			 "'%s': skipped %llu line(s) without a trailing count (first: line %llu)",
			 in->name, skipped, first_skipped);
	(void)opts;
	return 0;
}

const struct tk_importer tk_import_folded = {
	.version = TK_IMPORTER_VERSION,
	.name = "folded",
	.summary = "folded stacks (flamegraph.pl / stackcollapse output)",
	.probe = folded_probe,
	.parse = folded_parse,
};
