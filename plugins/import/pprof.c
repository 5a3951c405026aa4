/*
 * pprof profiles: the protobuf message `Profile` of google/pprof's
 * proto/profile.proto, gzip-compressed (as pprof and Go write it) or
 * raw. The reader undoes gzip for files; a gzip payload handed over from
 * memory is inflated here, under the same cap.
 *
 * The decoder is a small hand-written protobuf wire-format reader:
 * varints, fixed 32/64-bit values, length-delimited fields and packed
 * repeated varints, every read bounds-checked. Errors are TK_EDATA and
 * name the byte offset (in the decompressed message).
 *
 * Two passes over the top-level fields: the first collects the string
 * table, sample types, mappings, functions and locations (samples may come
 * before them in the stream); the second walks the samples and adds one
 * stack each. Memory is the tables (bounded by the input size) plus the
 * profile tree.
 *
 * Stacks: Sample.location_id lists the leaf first; within a Location,
 * line[] lists inlined functions innermost first, the last entry being
 * the caller the others were inlined into. Both are reversed to get the
 * root-first order. A location without line info is named after its
 * address: "libfoo.so+0x1a2b" (offset in the mapped file) when it has a
 * mapping with a file name, else "0x7f0012ab".
 */
#include "plugins/import/importers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/model/import.h"
#include "core/base/banned.h"

/* Decompressed size cap: real profiles are a few MB; this bounds memory. */
#define PPROF_MAX_BYTES (512u << 20)
/* Table sizes (strings, locations...) are bounded by the input; this
 * keeps hostile inputs made of empty entries from costing 16x its size. */
#define PPROF_MAX_ENTRIES (1u << 24)

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

struct pb {
	const unsigned char *base; /* start of the whole message, for offsets */
	const unsigned char *p, *end;
	const char *name;
	struct tk_err *err;
};

struct span {
	uint32_t off, len; /* into the message */
};

struct mapping {
	uint64_t id, start, offset;
	uint64_t file; /* string index */
};

struct function {
	uint64_t id, name, system_name;
};

struct location {
	uint64_t id, mapping, address;
	struct span lines; /* the Location message, decoded lazily */
	uint32_t first, nr;  /* resolved name ids in frames[], root first */
};

struct pprof {
	const unsigned char *data;
	size_t len;
	const char *name;
	struct span *strings;
	size_t nr_strings, alloc_strings;
	uint64_t (*types)[2]; /* type, unit string indexes */
	size_t nr_types, alloc_types;
	uint64_t default_type;
	struct mapping *mappings;
	size_t nr_mappings, alloc_mappings;
	struct function *functions;
	size_t nr_functions, alloc_functions;
	struct location *locations;
	size_t nr_locations, alloc_locations;
	uint32_t *frames;
	size_t nr_frames, alloc_frames;
};

static size_t pb_off(const struct pb *b)
{
	return (size_t)(b->p - b->base);
}

static int pb_fail(struct pb *b, const char *what)
{
	return tk_err_set(b->err, TK_EDATA, "cannot parse '%s' at byte %zu: %s", b->name,
			  pb_off(b), what);
}

static int pb_varint(struct pb *b, uint64_t *v)
{
	uint64_t r = 0;
	unsigned shift = 0;

	for (;;) {
		unsigned c;

		if (b->p >= b->end)
			return pb_fail(b, "truncated varint");
		c = *b->p;
		if (shift == 63 && c > 1)
			return pb_fail(b, "varint longer than 64 bits");
		b->p++;
		r |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		shift += 7;
	}
	*v = r;
	return 0;
}

/*
 * The next field: its number, wire type, and value (varints and fixed
 * values in *v; length-delimited fields as a sub-reader in *sub).
 */
static int pb_field(struct pb *b, uint32_t *field, int *wt, uint64_t *v, struct pb *sub)
{
	uint64_t key, n;
	int ret;

	ret = pb_varint(b, &key);
	if (ret)
		return ret;
	if (key >> 3 == 0 || key >> 3 > 0x1fffffff)
		return pb_fail(b, "invalid field number");
	*field = (uint32_t)(key >> 3);
	*wt = (int)(key & 7);
	switch (*wt) {
	case WT_VARINT:
		return pb_varint(b, v);
	case WT_I64:
	case WT_I32:
		n = *wt == WT_I64 ? 8 : 4;
		if ((uint64_t)(b->end - b->p) < n)
			return pb_fail(b, "truncated fixed-size field");
		*v = 0;
		memcpy(v, b->p, n); /* little-endian hosts; the value is unused */
		b->p += n;
		return 0;
	case WT_LEN:
		ret = pb_varint(b, &n);
		if (ret)
			return ret;
		if (n > (uint64_t)(b->end - b->p))
			return pb_fail(b, "length-delimited field runs past the end of its message");
		*sub = *b;
		sub->end = b->p + n;
		b->p += n;
		return 0;
	default:
		return pb_fail(b, "unsupported wire type (groups or invalid)");
	}
}

static int pb_expect(struct pb *b, int wt, int want, const char *what)
{
	char msg[96];

	if (wt == want)
		return 0;
	snprintf(msg, sizeof(msg), "%s has wire type %d, expected %d", what, wt, want);
	return pb_fail(b, msg);
}

static struct span make_span(const struct pb *b)
{
	struct span s;

	s.off = (uint32_t)(b->p - b->base);
	s.len = (uint32_t)(b->end - b->p);
	return s;
}

static int too_many(struct pb *b, const char *what)
{
	char msg[96];

	snprintf(msg, sizeof(msg), "more than %u %s", PPROF_MAX_ENTRIES, what);
	return pb_fail(b, msg);
}

/*
 * Reads a message whose fields 1..nr are all varints (ValueType, Mapping,
 * Function) into vals[field - 1], zero when absent; later fields (build
 * ids, flags) are skipped.
 */
static int pb_varint_fields(struct pb *b, uint64_t *vals, uint32_t nr, const char *what)
{
	memset(vals, 0, nr * sizeof(*vals));
	while (b->p < b->end) {
		uint32_t f;
		int wt, ret;
		uint64_t v = 0;
		struct pb sub;

		ret = pb_field(b, &f, &wt, &v, &sub);
		if (ret)
			return ret;
		if (f > nr)
			continue;
		ret = pb_expect(b, wt, WT_VARINT, what);
		if (ret)
			return ret;
		vals[f - 1] = v;
	}
	return 0;
}

static int parse_value_type(struct pprof *pp, struct pb *b)
{
	uint64_t v[2]; /* type, unit */
	int ret = pb_varint_fields(b, v, 2, "ValueType field");

	if (ret)
		return ret;
	if (pp->nr_types >= 4096)
		return pb_fail(b, "more than 4096 sample types");
	TK_ALLOC_GROW(pp->types, pp->nr_types + 1, pp->alloc_types);
	pp->types[pp->nr_types][0] = v[0];
	pp->types[pp->nr_types][1] = v[1];
	pp->nr_types++;
	return 0;
}

static int parse_mapping(struct pprof *pp, struct pb *b)
{
	uint64_t v[5]; /* id, memory_start, memory_limit, file_offset, filename */
	struct mapping m;
	int ret = pb_varint_fields(b, v, 5, "Mapping field");

	if (ret)
		return ret;
	memset(&m, 0, sizeof(m));
	m.id = v[0];
	m.start = v[1];
	m.offset = v[3];
	m.file = v[4];
	if (pp->nr_mappings >= PPROF_MAX_ENTRIES)
		return too_many(b, "mappings");
	TK_ALLOC_GROW(pp->mappings, pp->nr_mappings + 1, pp->alloc_mappings);
	pp->mappings[pp->nr_mappings++] = m;
	return 0;
}

static int parse_function(struct pprof *pp, struct pb *b)
{
	uint64_t v[5]; /* id, name, system_name, filename, start_line */
	struct function fn;
	int ret = pb_varint_fields(b, v, 5, "Function field");

	if (ret)
		return ret;
	memset(&fn, 0, sizeof(fn));
	fn.id = v[0];
	fn.name = v[1];
	fn.system_name = v[2];
	if (pp->nr_functions >= PPROF_MAX_ENTRIES)
		return too_many(b, "functions");
	TK_ALLOC_GROW(pp->functions, pp->nr_functions + 1, pp->alloc_functions);
	pp->functions[pp->nr_functions++] = fn;
	return 0;
}

static int parse_location(struct pprof *pp, struct pb *b)
{
	struct location loc;

	memset(&loc, 0, sizeof(loc));
	loc.lines = make_span(b);
	while (b->p < b->end) {
		uint32_t f;
		int wt, ret;
		uint64_t v = 0;
		struct pb sub;

		ret = pb_field(b, &f, &wt, &v, &sub);
		if (ret)
			return ret;
		if (f >= 1 && f <= 3) {
			ret = pb_expect(b, wt, WT_VARINT, "Location field");
			if (ret)
				return ret;
		} else if (f == 4) {
			ret = pb_expect(b, wt, WT_LEN, "Location.line");
			if (ret)
				return ret;
		}
		if (f == 1)
			loc.id = v;
		else if (f == 2)
			loc.mapping = v;
		else if (f == 3)
			loc.address = v;
	}
	if (pp->nr_locations >= PPROF_MAX_ENTRIES)
		return too_many(b, "locations");
	TK_ALLOC_GROW(pp->locations, pp->nr_locations + 1, pp->alloc_locations);
	pp->locations[pp->nr_locations++] = loc;
	return 0;
}

/* Pass 1: everything but the samples. */
static int parse_tables(struct pprof *pp, struct tk_err *err)
{
	struct pb b;

	b.base = b.p = pp->data;
	b.end = pp->data + pp->len;
	b.name = pp->name;
	b.err = err;
	while (b.p < b.end) {
		uint32_t f;
		int wt, ret = 0;
		uint64_t v = 0;
		struct pb sub;

		ret = pb_field(&b, &f, &wt, &v, &sub);
		if (ret)
			return ret;
		switch (f) {
		case 1: case 3: case 4: case 5: case 6:
			ret = pb_expect(&b, wt, WT_LEN, "a Profile table entry");
			break;
		case 2:
			/* samples: pass 2, which relies on this check */
			ret = pb_expect(&b, wt, WT_LEN, "Profile.sample");
			if (ret)
				return ret;
			continue;
		case 14:
			ret = pb_expect(&b, wt, WT_VARINT, "Profile.default_sample_type");
			pp->default_type = v;
			break;
		default:
			continue;
		}
		if (ret)
			return ret;
		if (f == 1)
			ret = parse_value_type(pp, &sub);
		else if (f == 3)
			ret = parse_mapping(pp, &sub);
		else if (f == 4)
			ret = parse_location(pp, &sub);
		else if (f == 5)
			ret = parse_function(pp, &sub);
		else if (f == 6) {
			if (pp->nr_strings >= PPROF_MAX_ENTRIES)
				return too_many(&b, "strings");
			TK_ALLOC_GROW(pp->strings, pp->nr_strings + 1, pp->alloc_strings);
			pp->strings[pp->nr_strings++] = make_span(&sub);
		}
		if (ret)
			return ret;
	}
	if (!pp->nr_strings || pp->strings[0].len)
		return tk_err_set(err, TK_EDATA,
				  "cannot parse '%s': the string table must start with \"\"", pp->name);
	return 0;
}

static int cmp_mapping(const void *a, const void *b)
{
	uint64_t x = ((const struct mapping *)a)->id, y = ((const struct mapping *)b)->id;

	return x < y ? -1 : x > y;
}

static int cmp_function(const void *a, const void *b)
{
	uint64_t x = ((const struct function *)a)->id, y = ((const struct function *)b)->id;

	return x < y ? -1 : x > y;
}

static int cmp_location(const void *a, const void *b)
{
	uint64_t x = ((const struct location *)a)->id, y = ((const struct location *)b)->id;

	return x < y ? -1 : x > y;
}

/*
 * Finds id in an array sorted by id (elements of `size` bytes, the id a
 * uint64_t first member). Ids are usually 1..n, so try id-1 first.
 */
static const void *find_id(const void *arr, size_t n, size_t size, uint64_t id)
{
	const char *base = arr;
	size_t lo = 0, hi = n;
	uint64_t got;

	if (!id)
		return NULL;
	if (id <= n) {
		memcpy(&got, base + (id - 1) * size, sizeof(got));
		if (got == id)
			return base + (id - 1) * size;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		memcpy(&got, base + mid * size, sizeof(got));
		if (got == id)
			return base + mid * size;
		if (got < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *string_at(const struct pprof *pp, uint64_t i, size_t *len)
{
	if (i >= pp->nr_strings) {
		*len = 0;
		return NULL;
	}
	*len = pp->strings[i].len;
	return (const char *)pp->data + pp->strings[i].off;
}

static int name_ok(const struct pprof *pp, size_t len, struct tk_err *err)
{
	if (len > TK_PROFILE_MAX_NAME)
		return tk_err_set(err, TK_EDATA, "cannot parse '%s': frame name longer than %u bytes",
				  pp->name, TK_PROFILE_MAX_NAME);
	return 0;
}

/* The name of a location without line info. */
static uint32_t address_name(struct tk_profile *p, const struct pprof *pp,
			     const struct location *loc)
{
	const struct mapping *m = find_id(pp->mappings, pp->nr_mappings, sizeof(*m),
					  loc->mapping);
	char tmp[512];
	size_t flen = 0;
	const char *file = m ? string_at(pp, m->file, &flen) : NULL;
	int n;

	if (file && flen) {
		const char *slash = memrchr(file, '/', flen);

		if (slash) {
			flen -= (size_t)(slash + 1 - file);
			file = slash + 1;
		}
		if (flen > 256)
			flen = 256;
		n = snprintf(tmp, sizeof(tmp), "%.*s+0x%llx", (int)flen, file,
			     (unsigned long long)(loc->address - m->start + m->offset));
	} else {
		n = snprintf(tmp, sizeof(tmp), "0x%llx", (unsigned long long)loc->address);
	}
	return tk_profile_intern(p, tmp, (size_t)n);
}

/* Resolves every location to its frames (name ids, root first). */
static int resolve_locations(struct tk_profile *p, struct pprof *pp, struct tk_err *err)
{
	size_t i;

	for (i = 0; i < pp->nr_locations; i++) {
		struct location *loc = &pp->locations[i];
		struct pb b;
		size_t start = pp->nr_frames, a, z;

		b.base = pp->data;
		b.p = pp->data + loc->lines.off;
		b.end = b.p + loc->lines.len;
		b.name = pp->name;
		b.err = err;
		while (b.p < b.end) {
			uint32_t f, g;
			int wt, ret;
			uint64_t v = 0, fid = 0;
			struct pb sub, sub2;
			const struct function *fn;
			const char *s;
			size_t len;

			ret = pb_field(&b, &f, &wt, &v, &sub);
			if (ret)
				return ret;
			if (f != 4)
				continue;
			while (sub.p < sub.end) {
				ret = pb_field(&sub, &g, &wt, &v, &sub2);
				if (ret)
					return ret;
				if (g == 1) {
					ret = pb_expect(&sub, wt, WT_VARINT, "Line.function_id");
					if (ret)
						return ret;
					fid = v;
				}
			}
			fn = find_id(pp->functions, pp->nr_functions, sizeof(*fn), fid);
			if (!fn)
				continue;
			if (fn->name >= pp->nr_strings || fn->system_name >= pp->nr_strings)
				return tk_err_set(err, TK_EDATA,
						  "cannot parse '%s' at byte %zu: function %llu names string %llu of %zu",
						  pp->name, pb_off(&b), (unsigned long long)fn->id,
						  (unsigned long long)(fn->name >= pp->nr_strings ?
								       fn->name : fn->system_name),
						  pp->nr_strings);
			s = string_at(pp, fn->name, &len);
			if (!s || !len)
				s = string_at(pp, fn->system_name, &len);
			if (!s || !len) {
				s = "[unknown]";
				len = 9;
			}
			ret = name_ok(pp, len, err);
			if (ret)
				return ret;
			TK_ALLOC_GROW(pp->frames, pp->nr_frames + 1, pp->alloc_frames);
			pp->frames[pp->nr_frames++] = tk_profile_intern(p, s, len);
		}
		if (pp->nr_frames == start) {
			TK_ALLOC_GROW(pp->frames, pp->nr_frames + 1, pp->alloc_frames);
			pp->frames[pp->nr_frames++] = address_name(p, pp, loc);
		}
		/* line[] is innermost first: reverse to root first. */
		for (a = start, z = pp->nr_frames - 1; a < z; a++, z--) {
			uint32_t t = pp->frames[a];

			pp->frames[a] = pp->frames[z];
			pp->frames[z] = t;
		}
		loc->first = (uint32_t)start;
		loc->nr = (uint32_t)(pp->nr_frames - start);
		if (pp->nr_frames > (size_t)UINT32_MAX / 2)
			return tk_err_set(err, TK_EDATA, "cannot parse '%s': too many frames",
					  pp->name);
	}
	return 0;
}

static int string_is(const struct pprof *pp, uint64_t i, const char *s)
{
	size_t len;
	const char *t = string_at(pp, i, &len);

	return t && len == strlen(s) && !memcmp(t, s, len);
}

/* The sample value index to use, and the unit and scale it implies. */
static int pick_type(struct tk_profile *p, const struct pprof *pp,
		     const struct tk_import_opts *opts, size_t *index, double *scale,
		     struct tk_err *err)
{
	static const struct {
		const char *name;
		enum tk_unit unit;
		double scale;
	} units[] = {
		{ "nanoseconds", TK_UNIT_NANOSECONDS, 1 },
		{ "microseconds", TK_UNIT_NANOSECONDS, 1e3 },
		{ "milliseconds", TK_UNIT_NANOSECONDS, 1e6 },
		{ "seconds", TK_UNIT_NANOSECONDS, 1e9 },
		{ "bytes", TK_UNIT_BYTES, 1 },
		{ "samples", TK_UNIT_SAMPLES, 1 },
		{ "count", TK_UNIT_COUNT, 1 },
	};
	size_t i;

	if (!pp->nr_types)
		return tk_err_set(err, TK_EDATA, "cannot parse '%s': no sample types", pp->name);
	*index = pp->nr_types - 1;
	if (opts->sample_type) {
		for (i = 0; i < pp->nr_types; i++)
			if (string_is(pp, pp->types[i][0], opts->sample_type))
				break;
		if (i == pp->nr_types) {
			struct tk_buf have = TK_BUF_INIT;
			int ret;

			for (i = 0; i < pp->nr_types && have.len < 400; i++) {
				size_t len;
				const char *s = string_at(pp, pp->types[i][0], &len);

				tk_buf_addf(&have, "%s%.*s", i ? ", " : "", (int)(len > 64 ? 64 : len),
					    s ? s : "?");
			}
			ret = tk_err_set(err, TK_EUSAGE, "'%s' has no sample type '%s' (it has: %s)",
					 pp->name, opts->sample_type, have.buf);
			tk_buf_release(&have);
			return ret;
		}
		*index = i;
	} else if (pp->default_type) {
		for (i = 0; i < pp->nr_types; i++)
			if (pp->types[i][0] == pp->default_type)
				*index = i;
	}
	p->unit = TK_UNIT_COUNT;
	*scale = 1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (string_is(pp, pp->types[*index][1], units[i].name)) {
			p->unit = units[i].unit;
			*scale = units[i].scale;
		}
	/* Go's CPU profiles, and tracker's own exports, count samples as
	 * the sample type "samples" in the unit "count" */
	if (p->unit == TK_UNIT_COUNT && string_is(pp, pp->types[*index][0], "samples"))
		p->unit = TK_UNIT_SAMPLES;
	return 0;
}

struct sample_state {
	uint32_t *stack;
	size_t alloc;
	uint64_t *locs;
	size_t nr_locs, alloc_locs;
	int64_t *values;
	size_t nr_values, alloc_values;
};

static int packed_or_single(struct pb *b, int wt, uint64_t v, struct pb *sub,
			    uint64_t **arr, size_t *nr, size_t *alloc)
{
	if (wt == WT_VARINT) {
		TK_ALLOC_GROW(*arr, *nr + 1, *alloc);
		(*arr)[(*nr)++] = v;
		return 0;
	}
	if (wt != WT_LEN)
		return pb_fail(b, "repeated integer field with a wrong wire type");
	while (sub->p < sub->end) {
		int ret = pb_varint(sub, &v);

		if (ret)
			return ret;
		TK_ALLOC_GROW(*arr, *nr + 1, *alloc);
		(*arr)[(*nr)++] = v;
	}
	return 0;
}

static int add_sample(struct tk_profile *p, struct pprof *pp, struct pb *b, size_t vi,
		      double scale, struct sample_state *st)
{
	size_t i, depth = 0;
	size_t at = pb_off(b);
	int ret;

	st->nr_locs = st->nr_values = 0;
	while (b->p < b->end) {
		uint32_t f;
		int wt;
		uint64_t v = 0;
		struct pb sub;

		ret = pb_field(b, &f, &wt, &v, &sub);
		if (ret)
			return ret;
		if (f == 1)
			ret = packed_or_single(b, wt, v, &sub, &st->locs, &st->nr_locs,
					       &st->alloc_locs);
		else if (f == 2)
			ret = packed_or_single(b, wt, v, &sub, (uint64_t **)&st->values,
					       &st->nr_values, &st->alloc_values);
		if (ret)
			return ret;
		if (st->nr_locs > TK_PROFILE_MAX_DEPTH)
			return tk_err_set(b->err, TK_EDATA,
					  "cannot parse '%s' at byte %zu: stack deeper than %d frames",
					  pp->name, at, TK_PROFILE_MAX_DEPTH);
	}
	if (st->nr_values != pp->nr_types)
		return tk_err_set(b->err, TK_EDATA,
				  "cannot parse '%s' at byte %zu: sample has %zu values for %zu sample types",
				  pp->name, at, st->nr_values, pp->nr_types);
	if (st->values[vi] < 0)
		return tk_err_set(b->err, TK_EDATA,
				  "cannot parse '%s' at byte %zu: sample value %lld is negative",
				  pp->name, at, (long long)st->values[vi]);
	if (!st->values[vi])
		return 0;
	if (tk_profile_weight_error(p, (double)st->values[vi] * scale))
		return tk_err_set(b->err, TK_EDATA, "cannot parse '%s' at byte %zu: sample value %s",
				  pp->name, at,
				  tk_profile_weight_error(p, (double)st->values[vi] * scale));
	for (i = st->nr_locs; i-- > 0;) {
		const struct location *loc = find_id(pp->locations, pp->nr_locations,
						     sizeof(*loc), st->locs[i]);

		if (!loc)
			return tk_err_set(b->err, TK_EDATA,
					  "cannot parse '%s' at byte %zu: sample refers to unknown location %llu",
					  pp->name, at, (unsigned long long)st->locs[i]);
		if (depth + loc->nr > TK_PROFILE_MAX_DEPTH)
			return tk_err_set(b->err, TK_EDATA,
					  "cannot parse '%s' at byte %zu: stack deeper than %d frames",
					  pp->name, at, TK_PROFILE_MAX_DEPTH);
		TK_ALLOC_GROW(st->stack, depth + loc->nr, st->alloc);
		memcpy(st->stack + depth, pp->frames + loc->first, loc->nr * sizeof(uint32_t));
		depth += loc->nr;
	}
	ret = tk_profile_add_stack(p, st->stack, depth, (double)st->values[vi] * scale);
	if (ret)
		return tk_err_set(b->err, TK_EDATA,
				  "cannot parse '%s' at byte %zu: more than %u distinct stacks",
				  pp->name, at, TK_PROFILE_MAX_NODES);
	return 0;
}

/* Pass 2: the samples. */
static int parse_samples(struct tk_profile *p, struct pprof *pp, size_t vi, double scale,
			 struct tk_err *err)
{
	struct sample_state st;
	struct pb b;
	int ret = 0;

	memset(&st, 0, sizeof(st));
	b.base = b.p = pp->data;
	b.end = pp->data + pp->len;
	b.name = pp->name;
	b.err = err;
	while (b.p < b.end && !ret) {
		uint32_t f;
		int wt;
		uint64_t v = 0;
		struct pb sub;

		ret = pb_field(&b, &f, &wt, &v, &sub);
		/* sub is only set for length-delimited fields */
		if (!ret && f == 2 && wt == WT_LEN)
			ret = add_sample(p, pp, &sub, vi, scale, &st);
	}
	free(st.stack);
	free(st.locs);
	free(st.values);
	return ret;
}

/* Inflates a gzip payload given from memory (files are inflated by the reader). */
static int gunzip(const char *name, const struct tk_buf *in, struct tk_buf *out,
		  struct tk_err *err)
{
	z_stream zs;
	int zret = Z_OK;

	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return tk_err_set(err, TK_EINTERNAL, "cannot inflate '%s': zlib init failed", name);
	zs.next_in = (unsigned char *)in->buf;
	zs.avail_in = (uInt)(in->len > UINT32_MAX ? UINT32_MAX : in->len);
	while (zret != Z_STREAM_END) {
		if (out->len >= PPROF_MAX_BYTES) {
			inflateEnd(&zs);
			return tk_err_set(err, TK_EDATA, "'%s' is larger than %u bytes uncompressed",
					  name, PPROF_MAX_BYTES);
		}
		tk_buf_grow(out, 256 * 1024);
		zs.next_out = (unsigned char *)out->buf + out->len;
		zs.avail_out = (uInt)(out->alloc - out->len - 1);
		zret = inflate(&zs, Z_NO_FLUSH);
		tk_buf_setlen(out, (size_t)((char *)zs.next_out - out->buf));
		if (zret != Z_OK && zret != Z_STREAM_END) {
			size_t at = (size_t)((const char *)zs.next_in - in->buf);

			inflateEnd(&zs);
			if (zret == Z_BUF_ERROR)
				return tk_err_set(err, TK_EDATA,
						  "cannot read '%s': truncated gzip data at byte %zu",
						  name, at);
			return tk_err_set(err, TK_EDATA, "cannot read '%s' at byte %zu: %s", name,
					  at, zs.msg ? zs.msg : "corrupt gzip data");
		}
	}
	inflateEnd(&zs);
	return 0;
}

/* Reads a varint from [*p, end); 0 when it does not fit. */
static int probe_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	do {
		if (*p >= end || shift > 63)
			return 0;
		*v |= (uint64_t)(**p & 0x7f) << shift;
		shift += 7;
	} while (*(*p)++ & 0x80);
	return 1;
}

/*
 * Every field that fits in the head must be a Profile field with the
 * right wire type, and every sample_type (field 1) a ValueType made of
 * varint fields 1 and 2; at least two fields, one of them a table. Text
 * fails within a few bytes (most letters are invalid keys).
 */
static int probe_message(const unsigned char *p, const unsigned char *end)
{
	int fields = 0, tables = 0;

	while (p < end) {
		uint64_t key, n;
		uint32_t f;
		int wt;

		if (!probe_varint(&p, end, &key))
			break;
		f = (uint32_t)(key >> 3);
		wt = (int)(key & 7);
		if (f < 1 || f > 15)
			return 0;
		if (f <= 6 || f == 11) {
			if (wt != WT_LEN)
				return 0;
		} else if (wt != WT_VARINT && !(f == 13 && wt == WT_LEN)) {
			return 0;
		}
		if (!probe_varint(&p, end, &n))
			break;
		if (wt != WT_LEN) {
			fields++;
			continue;
		}
		if (n > (uint64_t)(end - p))
			break;
		if (f == 1) {
			const unsigned char *q = p, *qe = p + n;
			uint64_t k, v;

			while (q < qe) {
				if (!probe_varint(&q, qe, &k) || (k != 0x08 && k != 0x10) ||
				    !probe_varint(&q, qe, &v))
					return 0;
			}
		}
		tables += f <= 6;
		p += n;
		fields++;
	}
	return fields >= 2 && tables >= 1;
}

/* Files arrive inflated; gzip from memory is inflated here, head only. */
static int pprof_probe(const char *head, size_t len)
{
	const unsigned char *p = (const unsigned char *)head;
	unsigned char out[4096];
	z_stream zs;
	int ret;

	if (len < 2 || p[0] != 0x1f || p[1] != 0x8b)
		return probe_message(p, p + len);
	memset(&zs, 0, sizeof(zs));
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
		return 0;
	zs.next_in = (unsigned char *)p;
	zs.avail_in = (uInt)(len > 65536 ? 65536 : len);
	zs.next_out = out;
	zs.avail_out = sizeof(out);
	ret = inflate(&zs, Z_SYNC_FLUSH);
	inflateEnd(&zs);
	if (ret != Z_OK && ret != Z_STREAM_END && ret != Z_BUF_ERROR)
		return 0;
	return probe_message(out, zs.next_out);
}

static int pprof_parse(struct tk_reader *in, struct tk_profile *p,
		       const struct tk_import_opts *opts, struct tk_err *err)
{
	struct tk_buf raw = TK_BUF_INIT, inflated = TK_BUF_INIT;
	struct pprof pp;
	size_t vi = 0;
	double scale = 1;
	int ret;

	memset(&pp, 0, sizeof(pp));
	ret = tk_reader_slurp(in, &raw, PPROF_MAX_BYTES, err);
	if (ret)
		goto out;
	if (raw.len >= 2 && (unsigned char)raw.buf[0] == 0x1f &&
	    (unsigned char)raw.buf[1] == 0x8b) {
		ret = gunzip(in->name, &raw, &inflated, err);
		if (ret)
			goto out;
		pp.data = (const unsigned char *)inflated.buf;
		pp.len = inflated.len;
	} else {
		pp.data = (const unsigned char *)raw.buf;
		pp.len = raw.len;
	}
	if (!pp.len) {
		ret = tk_err_set(err, TK_ENOTMINE, "it is empty");
		goto out;
	}
	pp.name = in->name;
	ret = parse_tables(&pp, err);
	if (ret)
		goto out;
	/* qsort's pointer must not be NULL, even for 0 elements */
	if (pp.nr_mappings > 1)
		qsort(pp.mappings, pp.nr_mappings, sizeof(*pp.mappings), cmp_mapping);
	if (pp.nr_functions > 1)
		qsort(pp.functions, pp.nr_functions, sizeof(*pp.functions), cmp_function);
	if (pp.nr_locations > 1)
		qsort(pp.locations, pp.nr_locations, sizeof(*pp.locations), cmp_location);
	ret = pick_type(p, &pp, opts, &vi, &scale, err);
	if (!ret)
		ret = resolve_locations(p, &pp, err);
	if (!ret)
		ret = parse_samples(p, &pp, vi, scale, err);
out:
	free(pp.strings);
	free(pp.types);
	free(pp.mappings);
	free(pp.functions);
	free(pp.locations);
	free(pp.frames);
	tk_buf_release(&raw);
	tk_buf_release(&inflated);
	return ret;
}

const struct tk_importer tk_import_pprof = {
	.version = TK_IMPORTER_VERSION,
	.name = "pprof",
	.summary = "pprof protobuf profiles (Go, gperftools via pprof, gzip'd or raw)",
	.probe = pprof_probe,
	.parse = pprof_parse,
};
