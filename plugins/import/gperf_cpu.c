/*
 * gperftools' legacy binary CPU profile (CPUPROFILE=..., ProfilerStart),
 * the format `pprof` still reads. Words of 32 or 64 bits, little- or
 * big-endian:
 *
 *     header    0, 3, 0, period (microseconds), 0
 *     records   count, depth, pc[0] ... pc[depth-1]   (pc[0] the leaf)
 *     trailer   0, 1, 0
 *     then the text of /proc/self/maps of the profiled process.
 *
 * As in pprof (profile/legacy_profile.go, the reference decoder):
 *  - the word size and byte order are the first of 32-bit little-endian,
 *    32-bit big-endian, 64-bit little-endian, 64-bit big-endian whose
 *    first five words read as a header (the version 1 header of Java
 *    profiles is recognised and refused as unsupported);
 *  - the leaf is the sampled PC; the callers are return addresses, moved
 *    back one byte into the call instruction;
 *  - a second frame that (nearly) every record shares is the signal
 *    handler's, not the program's: it is dropped, at most twice (when all
 *    but one record in 32 have it); a caller one byte below the leaf is
 *    the leaf seen twice (from the signal context and from unwinding) and
 *    is dropped;
 *  - only executable mappings name frames; "name=value" lines are
 *    skipped.
 * Each record weighs count x period: the unit is nanoseconds of CPU time.
 *
 * The file has no symbols: a frame is named "lib+0xoffset", the mapping's
 * file name without its directory and the address's offset in that file
 * (address - start + file offset), "[anon]+0x..." in a mapping with no
 * file, "0x<address>" outside every mapping, as the heap profile importer
 * names them.
 *
 * Unlike pprof, which reads what it can, a damaged file is an error
 * naming the byte offset: a record cut short, a depth of 0 or past
 * TK_PROFILE_MAX_DEPTH, no trailer, a memory map that is not text.
 */
#include "plugins/import/importers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "core/base/banned.h"

/* gperftools writes at most 64 frames a record; files are small. */
#define CPU_MAX_BYTES (1024u << 20)
#define MAX_MAPPINGS 65536
#define MAX_MAP_LINE 4096

struct layout {
	unsigned word;          /* 4 or 8 */
	int big;
};

static const struct layout layouts[] = {
	{ 4, 0 }, { 4, 1 }, { 8, 0 }, { 8, 1 },
};

struct record {
	double count;
	size_t first, depth;    /* into cpu_state.pcs */
	size_t offset;          /* of its count word, for messages */
};

struct mapping {
	uint64_t start, limit, offset;
	const char *file;       /* basename, in names */
	size_t file_len;
};

struct cpu_state {
	const unsigned char *data;
	size_t len;
	struct layout lay;
	uint64_t period_us;
	uint64_t *pcs;
	size_t nr_pcs, alloc_pcs;
	struct record *recs;
	size_t nr_recs, alloc_recs;
	struct mapping *maps;
	size_t nr_maps, alloc_maps;
	/* address -> name id, open addressing; key 0 is never an address
	 * here (a 0 leaf names itself the same every time) */
	uint64_t *keys;
	uint32_t *ids;
	size_t mask, used;
};

static uint64_t word_at(const unsigned char *p, struct layout lay)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < lay.word; i++) {
		unsigned b = lay.big ? i : lay.word - 1 - i;

		v = v << 8 | p[b];
	}
	return v;
}

/* 1: a CPU header in lay; 2: a Java one; 0: neither. */
static int header_in(const unsigned char *p, size_t len, struct layout lay, uint64_t *period)
{
	uint64_t w[5];
	unsigned i;

	if (len < 5u * lay.word)
		return 0;
	for (i = 0; i < 5; i++)
		w[i] = word_at(p + i * lay.word, lay);
	if (w[0] != 0 || w[1] != 3 || w[3] == 0 || w[4] != 0 || w[2] > 1)
		return 0;
	*period = w[3];
	return w[2] == 0 ? 1 : 2;
}

static int find_layout(const unsigned char *p, size_t len, struct layout *lay,
		       uint64_t *period)
{
	size_t i;
	int kind;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		kind = header_in(p, len, layouts[i], period);
		if (kind) {
			*lay = layouts[i];
			return kind;
		}
	}
	return 0;
}

static int cpu_probe(const char *head, size_t len)
{
	struct layout lay;
	uint64_t period;

	return find_layout((const unsigned char *)head, len, &lay, &period) != 0;
}

/* Reads the records up to the trailer; *end gets the offset after it. */
static int read_records(struct cpu_state *st, const char *name, size_t *end,
			struct tk_err *err)
{
	size_t w = st->lay.word, off = 5 * w;

	for (;;) {
		uint64_t count, depth, i;
		size_t at = off;
		struct record *r;

		if (st->len - off < 2 * w) {
			if (off == st->len)
				return tk_err_set(err, TK_EDATA,
						  "'%s' byte offset %zu: the file ends before the end-of-data record (0, 1, 0): cut short?",
						  name, off);
			return tk_err_set(err, TK_EDATA,
					  "'%s' byte offset %zu: the file ends inside a record header: cut short?",
					  name, off);
		}
		count = word_at(st->data + off, st->lay);
		depth = word_at(st->data + off + w, st->lay);
		off += 2 * w;
		if (depth == 0)
			return tk_err_set(err, TK_EDATA,
					  "'%s' byte offset %zu: a record with depth 0 (a damaged file?)",
					  name, at);
		if (depth > TK_PROFILE_MAX_DEPTH)
			return tk_err_set(err, TK_EDATA,
					  "'%s' byte offset %zu: a record of depth %llu, more than %u frames (a damaged file?)",
					  name, at, (unsigned long long)depth, TK_PROFILE_MAX_DEPTH);
		if (depth > (st->len - off) / w)
			return tk_err_set(err, TK_EDATA,
					  "'%s' byte offset %zu: the file ends inside a record of depth %llu (%zu bytes left): cut short?",
					  name, at, (unsigned long long)depth, st->len - off);
		if (count == 0 && depth == 1 && word_at(st->data + off, st->lay) == 0) {
			*end = off + w;
			return 0;
		}
		TK_ALLOC_GROW(st->pcs, st->nr_pcs + depth, st->alloc_pcs);
		for (i = 0; i < depth; i++) {
			uint64_t pc = word_at(st->data + off + i * w, st->lay);

			/* callers: return addresses, into the call instruction */
			st->pcs[st->nr_pcs + i] = i > 0 ? pc - 1 : pc;
		}
		TK_ALLOC_GROW(st->recs, st->nr_recs + 1, st->alloc_recs);
		r = &st->recs[st->nr_recs++];
		r->count = (double)count;
		r->first = st->nr_pcs;
		r->depth = depth;
		r->offset = at;
		st->nr_pcs += depth;
		off += depth * w;
	}
}

static void drop_frame(struct cpu_state *st, struct record *r, size_t i)
{
	uint64_t *f = st->pcs + r->first;

	memmove(f + i, f + i + 1, (r->depth - i - 1) * sizeof(*f));
	r->depth--;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* pprof's two clean-ups of what the profiler's signal handler leaves. */
static void clean_up(struct cpu_state *st)
{
	size_t margin = st->nr_recs / 32, iter, i, n;
	uint64_t *second = tk_realloc_array(NULL, st->nr_recs ? st->nr_recs : 1,
					    sizeof(*second));

	for (iter = 0; iter < 2; iter++) {
		uint64_t best = 0;
		size_t best_n = 0, run;

		for (i = 0, n = 0; i < st->nr_recs; i++)
			if (st->recs[i].depth > 1)
				second[n++] = st->pcs[st->recs[i].first + 1];
		if (!n)
			break;
		qsort(second, n, sizeof(*second), cmp_u64);
		for (i = 0; i < n; i += run) {
			for (run = 1; i + run < n && second[i + run] == second[i]; run++)
				;
			if (run > best_n) {
				best_n = run;
				best = second[i];
			}
		}
		if (best_n + margin < st->nr_recs)
			break;
		for (i = 0; i < st->nr_recs; i++)
			if (st->recs[i].depth > 1 && st->pcs[st->recs[i].first + 1] == best)
				drop_frame(st, &st->recs[i], 1);
	}
	free(second);
	for (i = 0; i < st->nr_recs; i++) {
		struct record *r = &st->recs[i];
		const uint64_t *f = st->pcs + r->first;

		if (r->depth > 1 && f[0] == f[1] + 1)
			drop_frame(st, r, 1);
	}
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int take_hex(const char **s, const char *end, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	while (p < end && p - *s < 16) {
		char c = *p;
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			break;
		x = x << 4 | (unsigned)d;
		p++;
	}
	if (p == *s || (p < end && !is_space(*p) && *p != '-'))
		return 0;
	*v = x;
	*s = p;
	return 1;
}

static const char *next_field(const char *s, const char *end)
{
	while (s < end && !is_space(*s))
		s++;
	while (s < end && is_space(*s))
		s++;
	return s;
}

/*
 * One line of /proc/self/maps: "start-end perms offset dev inode [path]".
 * Returns 0 (kept or skipped), or -1 for a line that is none of a maps
 * line, a "name=value" line, a blank line.
 */
static int map_line(struct cpu_state *st, const char *line, size_t len)
{
	const char *s = line, *end = line + len, *perms, *slash;
	uint64_t start, limit, offset;
	struct mapping *m;

	while (s < end && is_space(*s))
		s++;
	if (s == end)
		return 0;
	if (!take_hex(&s, end, &start) || s == end || *s != '-') {
		/* pprof's "name=value" attribute lines */
		return memchr(line, '=', len) ? 0 : -1;
	}
	s++;
	if (!take_hex(&s, end, &limit) || limit <= start)
		return -1;
	perms = next_field(s, end);
	if (end - perms < 4 || (perms[0] != 'r' && perms[0] != '-') ||
	    (perms[1] != 'w' && perms[1] != '-') || (perms[2] != 'x' && perms[2] != '-'))
		return -1;
	s = next_field(perms, end);
	if (!take_hex(&s, end, &offset))
		return -1;
	s = next_field(next_field(next_field(s, end), end), end); /* dev, inode */
	if (perms[2] != 'x' || st->nr_maps >= MAX_MAPPINGS)
		return 0;
	while (end > s && is_space(end[-1]))
		end--;
	slash = memrchr(s, '/', (size_t)(end - s));
	if (slash)
		s = slash + 1;
	TK_ALLOC_GROW(st->maps, st->nr_maps + 1, st->alloc_maps);
	m = &st->maps[st->nr_maps++];
	m->start = start;
	m->limit = limit;
	m->offset = offset;
	m->file = s;
	m->file_len = (size_t)(end - s);
	return 0;
}

static int read_maps(struct cpu_state *st, const char *name, size_t off, struct tk_err *err)
{
	const char *text = (const char *)st->data;
	size_t line_no = 0;

	while (off < st->len) {
		const char *nl = memchr(text + off, '\n', st->len - off);
		size_t len = nl ? (size_t)(nl - (text + off)) : st->len - off;

		line_no++;
		if (memchr(text + off, '\0', len) || len > MAX_MAP_LINE ||
		    map_line(st, text + off, len)) {
			if (!nl)
				return tk_err_set(err, TK_EDATA,
						  "'%s' byte offset %zu: the memory map ends inside line %zu: cut short?",
						  name, off, line_no);
			return tk_err_set(err, TK_EDATA,
					  "'%s' byte offset %zu: line %zu of the memory map is not a /proc/self/maps line",
					  name, off, line_no);
		}
		off += len + (nl != NULL);
	}
	return 0;
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static uint32_t name_of(struct cpu_state *st, struct tk_profile *p, uint64_t a,
			struct tk_buf *tmp)
{
	size_t h = (size_t)((a * 0x9e3779b97f4a7c15ull) >> 20) & st->mask, lo = 0, hi;
	uint32_t id;

	while (st->ids[h]) {
		if (st->keys[h] == a)
			return st->ids[h];
		h = (h + 1) & st->mask;
	}
	/* the last mapping starting at or below a */
	hi = st->nr_maps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->maps[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	tk_buf_reset(tmp);
	if (lo && a < st->maps[lo - 1].limit) {
		const struct mapping *m = &st->maps[lo - 1];

		if (m->file_len)
			tk_buf_add(tmp, m->file, m->file_len);
		else
			tk_buf_adds(tmp, "[anon]");
		tk_buf_addf(tmp, "+0x%llx", (unsigned long long)(a - m->start + m->offset));
	} else {
		tk_buf_addf(tmp, "0x%llx", (unsigned long long)a);
	}
	id = tk_profile_intern(p, tmp->buf, tmp->len);
	st->keys[h] = a;
	st->ids[h] = id;
	if (++st->used * 2 > st->mask) {
		size_t n = (st->mask + 1) * 2, i;
		uint64_t *keys = tk_xcalloc(n, sizeof(*keys));
		uint32_t *ids = tk_xcalloc(n, sizeof(*ids));

		for (i = 0; i <= st->mask; i++) {
			size_t k;

			if (!st->ids[i])
				continue;
			k = (size_t)((st->keys[i] * 0x9e3779b97f4a7c15ull) >> 20) & (n - 1);
			while (ids[k])
				k = (k + 1) & (n - 1);
			keys[k] = st->keys[i];
			ids[k] = st->ids[i];
		}
		free(st->keys);
		free(st->ids);
		st->keys = keys;
		st->ids = ids;
		st->mask = n - 1;
	}
	return id;
}

static int build(struct cpu_state *st, const char *name, struct tk_profile *p,
		 struct tk_err *err)
{
	struct tk_buf tmp = TK_BUF_INIT;
	uint32_t *path = NULL;
	size_t alloc = 0, i, k;
	double period_ns = (double)st->period_us * 1000.0;
	int ret = 0;

	st->mask = 1023;
	st->keys = tk_xcalloc(st->mask + 1, sizeof(*st->keys));
	st->ids = tk_xcalloc(st->mask + 1, sizeof(*st->ids));
	for (i = 0; i < st->nr_recs && !ret; i++) {
		const struct record *r = &st->recs[i];

		TK_ALLOC_GROW(path, r->depth, alloc);
		for (k = 0; k < r->depth; k++)
			path[r->depth - 1 - k] = name_of(st, p, st->pcs[r->first + k], &tmp);
		if (tk_profile_weight_error(p, r->count * period_ns))
			ret = tk_err_set(err, TK_EDATA, "'%s' byte offset %zu: the weight %g %s",
					 name, r->offset, r->count * period_ns,
					 tk_profile_weight_error(p, r->count * period_ns));
		else if (tk_profile_add_stack(p, path, r->depth, r->count * period_ns))
			ret = tk_err_set(err, TK_EDATA,
					 "'%s' byte offset %zu: more than %u distinct frames",
					 name, r->offset, TK_PROFILE_MAX_NODES);
	}
	free(path);
	tk_buf_release(&tmp);
	return ret;
}

static int cpu_parse(struct tk_reader *in, struct tk_profile *p,
		     const struct tk_import_opts *opts, struct tk_err *err)
{
	struct tk_buf raw = TK_BUF_INIT;
	struct cpu_state st;
	size_t maps_at = 0;
	int ret, kind;

	memset(&st, 0, sizeof(st));
	ret = tk_reader_slurp(in, &raw, CPU_MAX_BYTES, err);
	if (ret)
		goto out;
	st.data = (const unsigned char *)raw.buf;
	st.len = raw.len;
	kind = find_layout(st.data, st.len, &st.lay, &st.period_us);
	if (!kind) {
		ret = tk_err_set(err, TK_ENOTMINE,
				 "no gperftools CPU profile header (0, 3, 0, period, 0) at byte offset 0");
		goto out;
	}
	if (kind == 2) {
		ret = tk_err_set(err, TK_EUNSUPPORTED,
				 "'%s' is a Java CPU profile (header version 1), which tracker does not read",
				 in->name);
		goto out;
	}
	ret = read_records(&st, in->name, &maps_at, err);
	if (!ret)
		ret = read_maps(&st, in->name, maps_at, err);
	if (ret)
		goto out;
	if (st.nr_maps)
		qsort(st.maps, st.nr_maps, sizeof(*st.maps), cmp_mapping);
	clean_up(&st);
	p->unit = TK_UNIT_NANOSECONDS;
	ret = build(&st, in->name, p, err);
	if (!ret && !st.nr_recs)
		snprintf(p->warning, sizeof(p->warning), "'%s': no samples", in->name);
out:
	free(st.pcs);
	free(st.recs);
	free(st.maps);
	free(st.keys);
	free(st.ids);
	tk_buf_release(&raw);
	return ret;
}

const struct tk_importer tk_import_gperf_cpu = {
	.version = TK_IMPORTER_VERSION,
	.name = "gperftools-cpu",
	.summary = "gperftools' legacy binary CPU profile (CPUPROFILE), as pprof reads it",
	.probe = cpu_probe,
	.parse = cpu_parse,
};
