/*
 * gperftools / tcmalloc legacy heap profiles, the text form:
 *
 *     heap profile:   144:  8498176 [   144:  8498176] @ heapz_v2/524288
 *          1:     9216 [     1:     9216] @ 0xc635c8 0x42ecc3 0x42e14c
 *     ...
 *     MAPPED_LIBRARIES:          (or "--- Memory map: ---")
 *     00400000-00fcb000 r-xp 00000000 08:01 1234   /usr/bin/server
 *
 * Each record is "inuse_count: inuse_bytes [alloc_count: alloc_bytes] @
 * addresses", the stack leaf first (reversed here to root first). As in
 * pprof (profile/legacy_profile.go, the reference decoder):
 *  - heap_v2 / heapz_v2 profiles with a rate R are sampled; each value is
 *    scaled by 1 / (1 - exp(-avg/R)) (avg = bytes / count) and truncated
 *    to an integer; "heap" profiles use R/2; "heapprofile" ones are exact;
 *  - every address is moved back one byte, from the return address into
 *    the call instruction;
 *  - the memory map accepts /proc/<pid>/maps lines and the brief
 *    "start-end: path" form, "name=value" lines defining $name, and skips
 *    mappings that are not executable.
 * There are no symbols in the file: a frame is named "lib+0xoffset" (the
 * mapping's file name without its directory, and the address's offset in
 * that file: address - start + file offset) when a mapping holds the
 * address, else "0x<address>".
 *
 * opts->kind picks the value: "inuse_space" (the default; also "inuse",
 * "space"), "inuse_objects" ("inuse_count", "objects"), "alloc_space"
 * ("alloc") or "alloc_objects" ("alloc_count"); the unit is bytes or
 * count.
 *
 * Samples are merged into a scratch profile named by raw address first,
 * because the map comes after them; the real profile is then built from
 * that tree, so memory grows with the distinct stacks, not the input.
 */
#include "plugins/import/importers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "core/base/banned.h"

#define MAX_MAPPINGS 65536
/* Memory map lines are short; longer ones are ignored, which also bounds
 * the "$name" expansion. */
#define MAX_MAP_LINE 4096
#define MAX_ATTRS 16
#define MAX_ATTR_VALUE 256

struct mapping {
	uint64_t start, limit, offset;
	char *file;
};

struct heap_state {
	int value;              /* 0 inuse bytes, 1 inuse count, 2 alloc bytes, 3 alloc count */
	int scale;              /* sampled (v2) */
	double rate;
	struct tk_profile raw;  /* frames named by address text */
	uint32_t *path;
	size_t alloc_path;
	struct mapping *maps;
	size_t nr_maps, alloc_maps;
	struct tk_buf attrs;    /* "$name\0value\0" pairs */
	size_t nr_attrs;
	unsigned long long records;
};

static const struct {
	const char *name;
	int value;
} kinds[] = {
	{ "inuse_space", 0 }, { "inuse", 0 }, { "space", 0 },
	{ "inuse_objects", 1 }, { "inuse_count", 1 }, { "objects", 1 },
	{ "alloc_space", 2 }, { "alloc", 2 },
	{ "alloc_objects", 3 }, { "alloc_count", 3 },
};

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
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

static void skip_space(const char **s, const char *end)
{
	while (*s < end && is_space(**s))
		(*s)++;
}

/* Decimal digits into *v (at most 18, so no overflow); 0 when none. */
static int take_uint(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	while (p < end && is_digit(*p) && p - *s < 18)
		*v = *v * 10 + (uint64_t)(*p++ - '0');
	if (p == *s || (p < end && is_digit(*p)))
		return 0;
	*s = p;
	return 1;
}

/* Hex digits into *v (at most 16); 0 when none. */
static int take_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;

	*v = 0;
	while (p < end && hex_value(*p) >= 0 && p - *s < 16)
		*v = (*v << 4) | (uint64_t)hex_value(*p++);
	if (p == *s || (p < end && hex_value(*p) >= 0))
		return 0;
	*s = p;
	return 1;
}

static int take_char(const char **s, const char *end, char c)
{
	if (*s < end && **s == c) {
		(*s)++;
		return 1;
	}
	return 0;
}

/* "N: B [ N: B ]" into v[0..3] (inuse count, bytes, alloc count, bytes). */
static int take_counts(const char **s, const char *end, uint64_t v[4])
{
	skip_space(s, end);
	if (!take_uint(s, end, &v[0]) || !take_char(s, end, ':'))
		return 0;
	skip_space(s, end);
	if (!take_uint(s, end, &v[1]))
		return 0;
	skip_space(s, end);
	if (!take_char(s, end, '['))
		return 0;
	skip_space(s, end);
	if (!take_uint(s, end, &v[2]) || !take_char(s, end, ':'))
		return 0;
	skip_space(s, end);
	if (!take_uint(s, end, &v[3]))
		return 0;
	skip_space(s, end);
	if (!take_char(s, end, ']'))
		return 0;
	skip_space(s, end);
	return take_char(s, end, '@');
}

static int is_header(const char *s, size_t len)
{
	const char *end = s + len;
	uint64_t v[4];

	skip_space(&s, end);
	if ((size_t)(end - s) < 13 || memcmp(s, "heap profile:", 13))
		return 0;
	s += 13;
	return take_counts(&s, end, v);
}

static int heap_probe(const char *head, size_t len)
{
	const char *nl = memchr(head, '\n', len);

	return is_header(head, nl ? (size_t)(nl - head) : len);
}

static int parse_header(struct heap_state *st, struct tk_reader *in, const char *s,
			size_t len, struct tk_err *err)
{
	const char *end = s + len;
	uint64_t v[4], rate = 0;
	size_t n;

	skip_space(&s, end);
	s += 13;
	take_counts(&s, end, v);
	skip_space(&s, end);
	n = 0;
	while (s + n < end && ((s[n] >= 'a' && s[n] <= 'z') || is_digit(s[n]) || s[n] == '_'))
		n++;
	if (s + n < end && s[n] == '/') {
		const char *r = s + n + 1;

		if (r < end && !take_uint(&r, end, &rate))
			rate = 0;
	}
	if ((n == 8 && !memcmp(s, "heapz_v2", 8)) || (n == 7 && !memcmp(s, "heap_v2", 7))) {
		st->scale = 1;
		st->rate = (double)rate;
	} else if (n == 4 && !memcmp(s, "heap", 4)) {
		st->scale = 1;
		st->rate = (double)(rate / 2);
	} else if ((n == 11 && !memcmp(s, "heapprofile", 11)) ||
		   (n >= 6 && !memcmp(s, "growth", 6)) ||
		   (n >= 13 && !memcmp(s, "fragmentation", 13))) {
		st->scale = 0;
	} else {
		return tk_err_set(err, TK_EUNSUPPORTED,
				  "'%s' line %llu: unsupported heap profile kind '%.*s'",
				  in->name, (unsigned long long)in->line_no, (int)n, s);
	}
	return 0;
}

/* pprof's scaleHeapSample, truncating like its int64 conversions. */
static void scale(const struct heap_state *st, uint64_t *count, uint64_t *bytes)
{
	double avg, f;

	if (!*count || !*bytes) {
		*count = *bytes = 0;
		return;
	}
	if (!st->scale || st->rate <= 1)
		return;
	avg = (double)*bytes / (double)*count;
	f = 1 / (1 - exp(-avg / st->rate));
	*count = (uint64_t)((double)*count * f);
	*bytes = (uint64_t)((double)*bytes * f);
}

static int record(struct heap_state *st, struct tk_reader *in, const char *s, size_t len,
		  struct tk_err *err)
{
	const char *end = s + len, *p;
	uint64_t v[4], w;
	size_t depth = 0, i;

	if (!take_counts(&s, end, v))
		return tk_err_set(err, TK_EDATA,
				  "'%s' line %llu: expected 'COUNT: BYTES [COUNT: BYTES] @ ADDRESSES'",
				  in->name, (unsigned long long)in->line_no);
	if ((!v[0] && v[1]) || (!v[2] && v[3]))
		return tk_err_set(err, TK_EDATA, "'%s' line %llu: a count of 0 with %s bytes",
				  in->name, (unsigned long long)in->line_no, v[0] ? "alloc" : "in-use");
	scale(st, &v[0], &v[1]);
	scale(st, &v[2], &v[3]);
	w = st->value == 0 ? v[1] : st->value == 1 ? v[0] : st->value == 2 ? v[3] : v[2];
	/* Addresses, leaf first: count them, then fill the path from the end. */
	for (p = s;;) {
		uint64_t a;

		skip_space(&p, end);
		if (p == end)
			break;
		if (end - p < 3 || p[0] != '0' || p[1] != 'x')
			return tk_err_set(err, TK_EDATA, "'%s' line %llu: bad address '%.*s'",
					  in->name, (unsigned long long)in->line_no,
					  (int)((end - p) > 40 ? 40 : (end - p)), p);
		p += 2;
		if (!take_hex(&p, end, &a) || (p < end && !is_space(*p)))
			return tk_err_set(err, TK_EDATA, "'%s' line %llu: bad address",
					  in->name, (unsigned long long)in->line_no);
		if (++depth > TK_PROFILE_MAX_DEPTH)
			return tk_err_set(err, TK_EDATA, "'%s' line %llu: stack deeper than %d frames",
					  in->name, (unsigned long long)in->line_no,
					  TK_PROFILE_MAX_DEPTH);
	}
	TK_ALLOC_GROW(st->path, depth + 1, st->alloc_path);
	for (p = s, i = depth; i > 0; i--) {
		const char *q;
		uint64_t a;

		skip_space(&p, end);
		q = p;
		p += 2;
		take_hex(&p, end, &a);
		st->path[i - 1] = tk_profile_intern(&st->raw, q, (size_t)(p - q));
	}
	st->records++;
	if (tk_profile_weight_error(&st->raw, (double)w))
		return tk_err_set(err, TK_EDATA, "'%s' line %llu: the weight %g %s", in->name,
				  (unsigned long long)in->line_no, (double)w,
				  tk_profile_weight_error(&st->raw, (double)w));
	if (tk_profile_add_stack(&st->raw, st->path, depth, (double)w))
		return tk_err_set(err, TK_EDATA, "'%s' line %llu: more than %u distinct stacks",
				  in->name, (unsigned long long)in->line_no, TK_PROFILE_MAX_NODES);
	return 0;
}

static int is_sentinel(const char *s, size_t len)
{
	return memmem(s, len, "--- Memory map: ---", 19) || memmem(s, len, "MAPPED_LIBRARIES:", 17);
}

/* Replaces "$name" by its value (from "name=value" lines) into out. */
static void expand(const struct heap_state *st, const char *s, size_t len, struct tk_buf *out)
{
	size_t i = 0;

	tk_buf_reset(out);
	while (i < len) {
		const char *a = st->attrs.buf, *aend = st->attrs.buf + st->attrs.len;
		int done = 0;

		if (s[i] == '$') {
			while (a < aend && !done) {
				size_t nl = strlen(a);
				const char *val = a + nl + 1;

				if (nl <= len - i && !memcmp(s + i, a, nl)) {
					tk_buf_adds(out, val);
					i += nl;
					done = 1;
				}
				a = val + strlen(val) + 1;
			}
		}
		if (!done)
			tk_buf_addch(out, s[i++]);
	}
}

/*
 * "start-end [perms [offset dev inode]] [path]" or "start-end: path";
 * addresses may carry "0x". Unrecognised lines are ignored like pprof.
 */
static void map_line(struct heap_state *st, const char *line, size_t len, struct tk_buf *tmp)
{
	const char *s, *end, *eq;
	uint64_t start, limit, offset = 0;
	struct mapping *m;

	if (len > MAX_MAP_LINE)
		return;
	expand(st, line, len, tmp);
	s = tmp->buf;
	end = s + tmp->len;
	skip_space(&s, end);
	if (end - s > 2 && s[0] == '0' && s[1] == 'x')
		s += 2;
	if (!take_hex(&s, end, &start) || !take_char(&s, end, '-')) {
		eq = memchr(line, '=', len);
		if (eq && st->nr_attrs < MAX_ATTRS) {
			const char *k = line, *kend = eq, *v = eq + 1, *vend = line + len;

			while (k < kend && is_space(*k))
				k++;
			while (kend > k && is_space(kend[-1]))
				kend--;
			while (v < vend && is_space(*v))
				v++;
			while (vend > v && is_space(vend[-1]))
				vend--;
			if (kend > k && vend - v <= MAX_ATTR_VALUE &&
			    !memchr(k, '\0', (size_t)(kend - k)) &&
			    !memchr(v, '\0', (size_t)(vend - v))) {
				st->nr_attrs++;
				tk_buf_addch(&st->attrs, '$');
				tk_buf_add(&st->attrs, k, (size_t)(kend - k));
				tk_buf_addch(&st->attrs, '\0');
				tk_buf_add(&st->attrs, v, (size_t)(vend - v));
				tk_buf_addch(&st->attrs, '\0');
			}
		}
		return;
	}
	if (end - s > 2 && s[0] == '0' && s[1] == 'x')
		s += 2;
	if (!take_hex(&s, end, &limit))
		return;
	take_char(&s, end, ':');
	skip_space(&s, end);
	/* perms: only executable mappings hold code */
	if (s < end && (*s == 'r' || *s == '-') && end - s >= 4 &&
	    (s[1] == 'w' || s[1] == '-') && (s[2] == 'x' || s[2] == '-')) {
		int exec = s[2] == 'x';

		while (s < end && !is_space(*s))
			s++;
		skip_space(&s, end);
		if (!exec)
			return;
		if (take_hex(&s, end, &offset)) {
			/* dev "08:01" and inode */
			skip_space(&s, end);
			while (s < end && !is_space(*s))
				s++;
			skip_space(&s, end);
			while (s < end && is_digit(*s))
				s++;
			skip_space(&s, end);
		}
	}
	while (end > s && is_space(end[-1]))
		end--;
	if (st->nr_maps >= MAX_MAPPINGS || limit <= start)
		return;
	TK_ALLOC_GROW(st->maps, st->nr_maps + 1, st->alloc_maps);
	m = &st->maps[st->nr_maps++];
	m->start = start;
	m->limit = limit;
	m->offset = offset;
	{
		const char *slash = memrchr(s, '/', (size_t)(end - s));

		if (slash)
			s = slash + 1;
	}
	m->file = tk_xstrndup(s, (size_t)(end - s));
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The frame name of raw name "0x..." (the return address); maps sorted. */
static void frame_name(const struct heap_state *st, const char *raw, struct tk_buf *out)
{
	const char *p = raw + 2;
	uint64_t a;
	size_t lo = 0, hi = st->nr_maps;

	take_hex(&p, p + strlen(p), &a);
	a--; /* into the call instruction, as pprof does */
	tk_buf_reset(out);
	/* the last mapping starting at or below a */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->maps[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && a < st->maps[lo - 1].limit) {
		const struct mapping *m = &st->maps[lo - 1];

		tk_buf_addf(out, "%s+0x%llx", *m->file ? m->file : "[anon]",
			    (unsigned long long)(a - m->start + m->offset));
		return;
	}
	tk_buf_addf(out, "0x%llx", (unsigned long long)a);
}

/* Copies the raw tree into out, renaming frames; iterative (deep stacks). */
static int rebuild(struct heap_state *st, struct tk_reader *in, struct tk_profile *out,
		   struct tk_err *err)
{
	uint32_t *newname = tk_xcalloc(st->raw.nr_names, sizeof(uint32_t));
	uint32_t *map = tk_xcalloc(st->raw.nr_nodes, sizeof(uint32_t));
	uint32_t *stack = NULL;
	size_t nr = 0, alloc = 0;
	struct tk_buf name = TK_BUF_INIT;
	int ret = 0;

	tk_profile_finish(&st->raw);
	TK_ALLOC_GROW(stack, 1, alloc);
	stack[nr++] = TK_PROFILE_ROOT;
	map[TK_PROFILE_ROOT] = TK_PROFILE_ROOT;
	while (nr && !ret) {
		uint32_t n = stack[--nr], c;

		if (st->raw.nodes[n].self)
			tk_profile_add_self(out, map[n], st->raw.nodes[n].self);
		for (c = st->raw.nodes[n].first_child; c; c = st->raw.nodes[c].next_sibling) {
			uint32_t id = st->raw.nodes[c].name;

			if (!newname[id]) {
				frame_name(st, st->raw.names[id], &name);
				newname[id] = tk_profile_intern(out, name.buf, name.len);
			}
			map[c] = tk_profile_child(out, map[n], newname[id]);
			if (!map[c]) {
				ret = tk_err_set(err, TK_EDATA, "'%s': more than %u distinct stacks",
						 in->name, TK_PROFILE_MAX_NODES);
				break;
			}
			TK_ALLOC_GROW(stack, nr + 1, alloc);
			stack[nr++] = c;
		}
	}
	free(stack);
	free(map);
	free(newname);
	tk_buf_release(&name);
	return ret;
}

static int heap_parse(struct tk_reader *in, struct tk_profile *p,
		      const struct tk_import_opts *opts, struct tk_err *err)
{
	struct heap_state st;
	struct tk_buf tmp = TK_BUF_INIT;
	const char *line;
	size_t len, i;
	int ret, in_map = 0;

	memset(&st, 0, sizeof(st));
	if (opts->kind && *opts->kind) {
		st.value = -1;
		for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
			if (!strcmp(opts->kind, kinds[i].name))
				st.value = kinds[i].value;
		if (st.value < 0)
			return tk_err_set(err, TK_EUSAGE,
					  "unknown heap profile kind '%s' (use inuse_space, inuse_objects, alloc_space or alloc_objects)",
					  opts->kind);
	}
	ret = tk_reader_line(in, &line, &len, err);
	if (ret < 0)
		return ret;
	if (!ret || !is_header(line, len))
		return tk_err_set(err, TK_ENOTMINE, "no 'heap profile:' header on line 1");
	ret = parse_header(&st, in, line, len, err);
	if (ret)
		return ret;
	tk_profile_init(&st.raw, TK_UNIT_BYTES);
	tk_buf_init(&st.attrs, 0);
	while ((ret = tk_reader_line(in, &line, &len, err)) > 0) {
		const char *s = line, *end = line + len;

		if (in_map) {
			map_line(&st, line, len, &tmp);
			continue;
		}
		skip_space(&s, end);
		if (s == end || *s == '#')
			continue;
		if (is_sentinel(line, len)) {
			in_map = 1;
			continue;
		}
		ret = record(&st, in, s, (size_t)(end - s), err);
		if (ret)
			break;
	}
	if (!ret) {
		if (st.nr_maps)
			qsort(st.maps, st.nr_maps, sizeof(*st.maps), cmp_mapping);
		ret = rebuild(&st, in, p, err);
	}
	if (!ret) {
		p->unit = st.value == 0 || st.value == 2 ? TK_UNIT_BYTES : TK_UNIT_COUNT;
		if (!st.records)
			snprintf(p->warning, sizeof(p->warning), "'%s': no allocation records",
				 in->name);
	}
	tk_profile_release(&st.raw);
	for (i = 0; i < st.nr_maps; i++)
		free(st.maps[i].file);
	free(st.maps);
	free(st.path);
	tk_buf_release(&st.attrs);
	tk_buf_release(&tmp);
	return ret;
}

const struct tk_importer tk_import_gperf_heap = {
	.version = TK_IMPORTER_VERSION,
	.name = "gperftools-heap",
	.summary = "gperftools / tcmalloc heap profile, legacy text form",
	.probe = heap_probe,
	.parse = heap_parse,
};
