/*
 * DTrace stack aggregations (`dtrace -n '... { @[stack()] = count(); }'`),
 * collapsed the way FlameGraph's stackcollapse.pl does:
 *
 *     CPU     ID                    FUNCTION:NAME      (optional header,
 *       0  64091                        :tick-60s       two lines)
 *
 *                   genunix`kmem_cache_free+0xce       frames, leaf first
 *                   unix`thread_start+0x8
 *                    18                                the count
 *
 * Each frame loses its "+offset", C++ arguments after the last '(' or
 * '<' that follows a "::" are cut, an empty frame becomes "-", and a
 * frame "a->b" (inlined, Java) becomes frames a and b_[i] with ';' turned
 * into ':' and a leading 'L' dropped, as stackcollapse.pl does.
 */
#include "plugins/import/importers.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/model/demangle.h"
#include "core/model/import.h"
#include "core/base/banned.h"

static int blank(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return 0;
	return 1;
}

static int is_header(const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	return n >= 3 && !memcmp(s, "CPU", 3) && memmem(s, n, "FUNCTION:NAME", 13);
}

/* "   18": a count line. */
static int count_line(const char *s, size_t n, double *count)
{
	size_t i = 0;
	double v = 0;

	while (i < n && isspace((unsigned char)s[i]))
		i++;
	if (i == n)
		return 0;
	for (; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return 0;
		v = v * 10 + (s[i] - '0');
	}
	*count = v;
	return 1;
}

static int dtrace_probe(const char *head, size_t len)
{
	const char *p = head, *end = head + len;
	int frames = 0, header = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		double c;

		if (!header && !frames && is_header(p, n)) {
			header = 1;
			/* the probe-description line after the header */
			p = nl ? nl + 1 : end;
			nl = memchr(p, '\n', (size_t)(end - p));
		} else if (!blank(p, n)) {
			if (!isspace((unsigned char)p[0]))
				return 0;
			if (count_line(p, n, &c))
				return frames > 0;
			frames++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return header && frames > 0;
}

/* Appends the tidied frame(s) of one line to the stack (leaf first). */
static void add_frame(struct tk_buf *tidy, const char *s, size_t n, struct tk_profile *p,
		      uint32_t **ids, size_t *nr, size_t *alloc)
{
	const char *plus, *colons, *cut = NULL, *q, *part, *end;
	size_t first, count = 0;

	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	/* drop the "+offset" after the last '+' */
	plus = NULL;
	for (q = s; q < s + n; q++)
		if (*q == '+')
			plus = q;
	if (plus)
		n = (size_t)(plus - s);
	/* cut C++ arguments: at the last '(' or '<' after the first "::" */
	colons = memmem(s, n, "::", 2);
	if (colons)
		for (q = colons + 2; q < s + n; q++)
			if (*q == '(' || *q == '<')
				cut = q;
	if (cut)
		n = (size_t)(cut - s);
	first = *nr;
	end = s + n;
	part = s;
	for (;;) {
		const char *arrow = memmem(part, (size_t)(end - part), "->", 2);
		const char *stop = arrow ? arrow : end;
		size_t i;

		tk_buf_reset(tidy);
		for (i = 0; part + i < stop; i++)
			tk_buf_addch(tidy, part[i] == ';' ? ':' : part[i]);
		if (tidy->len && tidy->buf[0] == 'L') {
			memmove(tidy->buf, tidy->buf + 1, tidy->len - 1);
			tk_buf_setlen(tidy, tidy->len - 1);
		}
		if (count)
			tk_buf_adds(tidy, "_[i]");
		if (!n && !count)
			tk_buf_adds(tidy, "-");
		TK_ALLOC_GROW(*ids, *nr + 1, *alloc);
		(*ids)[(*nr)++] = tk_profile_intern(p, tidy->buf, tidy->len);
		count++;
		if (!arrow)
			break;
		part = arrow + 2;
	}
	/* The parts of one line keep their order; reverse them so that the
	 * whole (leaf-first) stack can be reversed once at the end. */
	{
		size_t i, j;

		for (i = first, j = *nr - 1; i < j; i++, j--) {
			uint32_t t = (*ids)[i];

			(*ids)[i] = (*ids)[j];
			(*ids)[j] = t;
		}
	}
}

static int dtrace_parse(struct tk_reader *in, struct tk_profile *p,
			const struct tk_import_opts *opts, struct tk_err *err)
{
	struct tk_buf tidy = TK_BUF_INIT;
	uint32_t *ids = NULL;
	size_t nr = 0, alloc = 0;
	unsigned long long stacks = 0;
	const char *line;
	size_t len;
	int ret, skip = 0, seen = 0;

	p->unit = TK_UNIT_SAMPLES;
	while ((ret = tk_reader_line(in, &line, &len, err)) > 0) {
		double count;

		if (skip) {
			skip--;
			continue;
		}
		if (!seen && is_header(line, len)) {
			skip = 1;
			continue;
		}
		if (blank(line, len))
			continue;
		seen = 1;
		if (count_line(line, len, &count)) {
			size_t i, j;

			/* leaf first in the file; the profile wants the root first */
			for (i = 0, j = nr ? nr - 1 : 0; i < j; i++, j--) {
				uint32_t t = ids[i];

				ids[i] = ids[j];
				ids[j] = t;
			}
			if (tk_profile_weight_error(p, count)) {
				ret = tk_err_set(err, TK_EDATA, "'%s' line %llu: the count %g %s",
						 in->name, (unsigned long long)in->line_no, count,
						 tk_profile_weight_error(p, count));
				break;
			}
			if (tk_profile_add_stack(p, ids, nr, count)) {
				ret = tk_err_set(err, TK_EDATA, "'%s' line %llu: too many stacks",
						 in->name, (unsigned long long)in->line_no);
				break;
			}
			nr = 0;
			stacks++;
			continue;
		}
		if (nr >= TK_PROFILE_MAX_DEPTH) {
			ret = tk_err_set(err, TK_EDATA, "'%s' line %llu: stack deeper than %d frames",
					 in->name, (unsigned long long)in->line_no,
					 TK_PROFILE_MAX_DEPTH);
			break;
		}
		if (len > TK_PROFILE_MAX_NAME) {
			ret = tk_err_set(err, TK_EDATA, "'%s' line %llu: frame longer than %u bytes",
					 in->name, (unsigned long long)in->line_no,
					 TK_PROFILE_MAX_NAME);
			break;
		}
		add_frame(&tidy, line, len, p, &ids, &nr, &alloc);
	}
	tk_buf_release(&tidy);
	free(ids);
	(void)opts;
	if (ret < 0)
		return ret;
	if (!stacks)
		return tk_err_set(err, TK_ENOTMINE, "no stack followed by a count");
	if (nr)
		snprintf(p->warning, sizeof(p->warning),
			 "'%s': the last stack has no count and was left out (a cut file?)",
			 in->name);
	return 0;
}

const struct tk_importer tk_import_dtrace = {
	.version = TK_IMPORTER_VERSION,
	.name = "dtrace",
	.summary = "DTrace stack aggregations (stackcollapse.pl input)",
	.probe = dtrace_probe,
	.parse = dtrace_parse,
	/* readable C++ names lose their arguments here */
	.demangle = TK_DEMANGLE_NO_PARAMS,
};
