/*
 * libyaml events -> a node tree with byte ranges; lookups and flattens
 * that follow merge keys under one work budget.
 *
 * Positions: libyaml's marks count characters (from after a byte order
 * mark), while callers that splice the text need bytes, so the text is
 * mapped once: the byte offset of every CKPT-th character, plus a fast
 * path for the ASCII prefix most YAML files are made of. A scalar event's
 * range includes its anchor and tag; where the value itself starts comes
 * from a second pass over libyaml's tokens, which the parse has already
 * accepted.
 */
#include "core/base/yaml.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/base/buf.h"
#include "core/base/banned.h"

#define CKPT 64

enum encoding { ENC_UTF8, ENC_UTF16LE, ENC_UTF16BE };

struct anchor {
	char *name;
	size_t node;
};

struct span {
	size_t start, end;
};

/* What reading needs and the tree does not keep. */
struct build {
	struct tk_yaml *y;
	const struct tk_yaml_opts *opts;
	struct tk_err *err;
	enum encoding enc;
	size_t bom;        /* a byte order mark's bytes, which marks do not count */
	size_t ascii;      /* characters before the first that is not ASCII */
	size_t *ckpt;      /* byte offset of every CKPT-th character */
	size_t nr_ckpt, alloc_ckpt;
	struct anchor *anchors;
	size_t nr_anchors, alloc_anchors;
	size_t *stack;     /* the open collections */
	size_t depth, alloc_stack;
	int docs;
	struct span *scalars; /* scalar tokens, in text order */
	size_t nr_scalars, alloc_scalars;
};

static int vfail_at(const char *name, size_t line, size_t col, struct tk_err *err,
		    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* The one form of an error in a document: "NAME:LINE:COL: what". */
static int vfail_at(const char *name, size_t line, size_t col, struct tk_err *err,
		    const char *fmt, va_list ap)
{
	struct tk_buf msg = TK_BUF_INIT;

	tk_buf_vaddf(&msg, fmt, ap);
	tk_err_set(err, TK_EDATA, "%s:%zu:%zu: %s", name, line + 1, col + 1, msg.buf);
	tk_buf_release(&msg);
	return TK_EDATA;
}

static int fail_at(struct build *b, size_t line, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(struct build *b, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail_at(b->y->name, line, col, b->err, fmt, ap);
	va_end(ap);
	return ret;
}

int tk_yaml_fail(const struct tk_yaml *y, size_t n, struct tk_err *err, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail_at(y->name, y->nodes[n].line, y->nodes[n].col, err, fmt, ap);
	va_end(ap);
	return ret;
}

/* ---- characters -> bytes ---- */

/* The code unit at byte i: a byte of UTF-8, two bytes of UTF-16. */
static unsigned unit_at(const struct build *b, size_t i)
{
	const unsigned char *t = (const unsigned char *)b->y->text;

	if (b->enc == ENC_UTF8)
		return t[i];
	if (i + 1 >= b->y->len)
		return t[i];
	return b->enc == ENC_UTF16LE ? (unsigned)t[i] | (unsigned)t[i + 1] << 8
				     : (unsigned)t[i] << 8 | (unsigned)t[i + 1];
}

/* The bytes of the character at byte i. */
static size_t char_width(const struct build *b, size_t i)
{
	unsigned u = unit_at(b, i);

	if (b->enc == ENC_UTF8)
		return u < 0xc0 ? 1 : u < 0xe0 ? 2 : u < 0xf0 ? 3 : 4;
	return u >= 0xd800 && u <= 0xdbff ? 4 : 2;
}

static size_t unit_bytes(const struct build *b)
{
	return b->enc == ENC_UTF8 ? 1 : 2;
}

static void map_chars(struct build *b)
{
	const struct tk_yaml *y = b->y;
	size_t i = b->bom, chars = 0;

	if (b->enc == ENC_UTF8)
		while (i < y->len && !((unsigned char)y->text[i] & 0x80))
			i++;
	b->ascii = i - b->bom;
	i = b->bom;
	while (i < y->len) {
		if (chars % CKPT == 0) {
			TK_ALLOC_GROW(b->ckpt, b->nr_ckpt + 1, b->alloc_ckpt);
			b->ckpt[b->nr_ckpt++] = i;
		}
		i += char_width(b, i);
		chars++;
	}
	if (chars % CKPT == 0) {
		TK_ALLOC_GROW(b->ckpt, b->nr_ckpt + 1, b->alloc_ckpt);
		b->ckpt[b->nr_ckpt++] = i < y->len ? i : y->len;
	}
}

/* The byte offset of character idx (past the end: the length). */
static size_t byte_at(const struct build *b, size_t idx)
{
	size_t k = idx / CKPT, i, n, len = b->y->len;

	if (idx < b->ascii)
		return b->bom + idx;
	if (k >= b->nr_ckpt)
		return len;
	i = b->ckpt[k];
	for (n = idx % CKPT; n > 0 && i < len; n--)
		i += char_width(b, i);
	return i < len ? i : len;
}

/* 1 when the character at byte i is c. */
static int char_is(const struct build *b, size_t i, unsigned c)
{
	return i + unit_bytes(b) <= b->y->len && unit_at(b, i) == c;
}

/* 1 when the character before byte i is c (an ASCII one). */
static int char_before_is(const struct build *b, size_t i, unsigned c)
{
	return i >= unit_bytes(b) && char_is(b, i - unit_bytes(b), c);
}

/* ---- events -> nodes ---- */

static int syntax_error(struct build *b, yaml_parser_t *p)
{
	const struct tk_yaml *y = b->y;
	struct tk_buf msg = TK_BUF_INIT;
	size_t line = p->problem_mark.line, col = p->problem_mark.column, i;
	int ret;

	if (p->error == YAML_MEMORY_ERROR)
		return tk_err_set(b->err, TK_EINTERNAL, "%s: out of memory parsing YAML", y->name);
	if (p->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark. */
		line = 0;
		col = 0;
		for (i = 0; i < p->problem_offset && i < y->len; i++) {
			if (y->text[i] == '\n') {
				line++;
				col = 0;
			} else {
				col++;
			}
		}
	}
	tk_buf_adds(&msg, p->problem ? p->problem : "invalid YAML");
	if (p->context && p->error != YAML_READER_ERROR) {
		if (p->context_mark.index == p->problem_mark.index)
			tk_buf_addf(&msg, " %s", p->context);
		else
			tk_buf_addf(&msg, " %s at %zu:%zu", p->context,
				    p->context_mark.line + 1, p->context_mark.column + 1);
	}
	if (p->error != YAML_READER_ERROR && char_is(b, byte_at(b, p->problem_mark.index), '\t'))
		tk_buf_adds(&msg, " (a tab: YAML is indented with spaces only)");
	ret = fail_at(b, line, col, "%s", msg.buf);
	tk_buf_release(&msg);
	return ret;
}

static int new_node(struct build *b, enum tk_yaml_kind kind, const yaml_event_t *ev,
		    size_t *out)
{
	struct tk_yaml *y = b->y;
	struct tk_yaml_node *n;

	if (y->nr_nodes >= y->limits.nodes)
		return fail_at(b, ev->start_mark.line, ev->start_mark.column,
			       "more than %zu nodes", y->limits.nodes);
	TK_ALLOC_GROW(y->nodes, y->nr_nodes + 1, y->alloc_nodes);
	n = &y->nodes[y->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->start = byte_at(b, ev->start_mark.index);
	n->end = byte_at(b, ev->end_mark.index);
	n->body = n->start;
	n->line = ev->start_mark.line;
	n->col = ev->start_mark.column;
	n->target = TK_YAML_NONE;
	*out = y->nr_nodes++;
	return 0;
}

/*
 * Where a collection's content starts; end is where its start event
 * ends: at the first '-' of a block sequence, or just past it when the
 * sequence is as indented as its key; at the first key of a block
 * mapping; just past the '[' or '{' of a flow collection.
 */
static void collection_body(const struct build *b, struct tk_yaml_node *n, size_t end)
{
	n->body = end;
	if (end <= n->start)
		return;
	if (n->kind == TK_YAML_SEQ) {
		if (n->style == YAML_FLOW_SEQUENCE_STYLE ||
		    (end < b->y->len && !char_is(b, end, '-')))
			if (char_before_is(b, end, '[') || char_before_is(b, end, '-'))
				n->body = end - unit_bytes(b);
	} else if (n->style == YAML_FLOW_MAPPING_STYLE && char_before_is(b, end, '{')) {
		n->body = end - unit_bytes(b);
	}
}

static void add_anchor(struct build *b, const yaml_char_t *name, size_t node)
{
	TK_ALLOC_GROW(b->anchors, b->nr_anchors + 1, b->alloc_anchors);
	b->anchors[b->nr_anchors].name = tk_xstrdup((const char *)name);
	b->anchors[b->nr_anchors].node = node;
	b->nr_anchors++;
}

/* Anchors belong to their document. */
static void forget_anchors(struct build *b)
{
	size_t i;

	for (i = 0; i < b->nr_anchors; i++)
		free(b->anchors[i].name);
	b->nr_anchors = 0;
}

/* The latest definition of an anchor wins, as YAML says. */
static size_t find_anchor(const struct build *b, const char *name)
{
	size_t i = b->nr_anchors;

	while (i-- > 0)
		if (!strcmp(b->anchors[i].name, name))
			return b->anchors[i].node;
	return TK_YAML_NONE;
}

static int add_alias(struct build *b, const yaml_event_t *ev, size_t *n)
{
	const yaml_mark_t *m = &ev->start_mark;
	const char *name = (const char *)ev->data.alias.anchor;
	size_t target = find_anchor(b, name);
	int ret;

	if (target == TK_YAML_NONE)
		return fail_at(b, m->line, m->column, "undefined alias '*%s'", name);
	if (!b->y->nodes[target].closed)
		return fail_at(b, m->line, m->column,
			       "alias '*%s' refers to a node that contains it", name);
	ret = new_node(b, TK_YAML_ALIAS, ev, n);
	if (ret)
		return ret;
	b->y->nodes[*n].target = target;
	b->y->nodes[*n].closed = 1;
	return 0;
}

static int handle_event(struct build *b, const yaml_event_t *ev)
{
	struct tk_yaml *y = b->y;
	const yaml_mark_t *m = &ev->start_mark;
	const yaml_char_t *anchor = NULL;
	struct tk_yaml_node *x;
	size_t n = TK_YAML_NONE;
	int ret;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++b->docs > 1 && b->opts->one_document)
			return fail_at(b, m->line, m->column, "a second YAML document; %s",
				       b->opts->one_document);
		forget_anchors(b);
		return 0;
	case YAML_SCALAR_EVENT:
		ret = new_node(b, TK_YAML_SCALAR, ev, &n);
		if (ret)
			return ret;
		x = &y->nodes[n];
		x->value = tk_xstrndup((const char *)ev->data.scalar.value,
				       ev->data.scalar.length);
		x->len = ev->data.scalar.length;
		x->style = ev->data.scalar.style;
		x->closed = 1;
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (b->depth >= y->limits.depth)
			return fail_at(b, m->line, m->column, "nesting deeper than %zu levels",
				       y->limits.depth);
		ret = new_node(b, ev->type == YAML_SEQUENCE_START_EVENT ? TK_YAML_SEQ : TK_YAML_MAP,
			       ev, &n);
		if (ret)
			return ret;
		x = &y->nodes[n];
		if (ev->type == YAML_SEQUENCE_START_EVENT) {
			x->style = ev->data.sequence_start.style;
			anchor = ev->data.sequence_start.anchor;
		} else {
			x->style = ev->data.mapping_start.style;
			anchor = ev->data.mapping_start.anchor;
		}
		collection_body(b, x, x->end);
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (!b->depth)
			return fail_at(b, m->line, m->column, "unbalanced collection end");
		x = &y->nodes[b->stack[--b->depth]];
		x->closed = 1;
		x->end = byte_at(b, ev->end_mark.index);
		return 0;
	case YAML_ALIAS_EVENT:
		ret = add_alias(b, ev, &n);
		if (ret)
			return ret;
		break;
	default:
		return 0;
	}
	if (anchor)
		add_anchor(b, anchor, n);
	if (b->depth) {
		struct tk_yaml_node *p = &y->nodes[b->stack[b->depth - 1]];

		TK_ALLOC_GROW(p->kids, p->nr_kids + 1, p->alloc_kids);
		p->kids[p->nr_kids++] = n;
	} else {
		TK_ALLOC_GROW(y->roots, y->nr_roots + 1, y->alloc_roots);
		y->roots[y->nr_roots++] = n;
	}
	if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT) {
		TK_ALLOC_GROW(b->stack, b->depth + 1, b->alloc_stack);
		b->stack[b->depth++] = n;
	}
	return 0;
}

static int read_events(struct build *b)
{
	const struct tk_yaml *y = b->y;
	yaml_parser_t parser;
	yaml_event_t ev;
	int ret = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return tk_err_set(b->err, TK_EINTERNAL, "%s: cannot start the YAML parser",
				  y->name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)y->text, y->len);
	while (!ret && !done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ret = syntax_error(b, &parser);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		ret = handle_event(b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ret;
}

/* The scalar tokens of the text, for where their values start. */
static int scan_scalars(struct build *b)
{
	const struct tk_yaml *y = b->y;
	yaml_parser_t parser;
	yaml_token_t tok;
	int done = 0, ret = 0;

	if (!yaml_parser_initialize(&parser))
		return tk_err_set(b->err, TK_EINTERNAL, "%s: cannot start the YAML parser",
				  y->name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)y->text, y->len);
	while (!done) {
		if (!yaml_parser_scan(&parser, &tok)) {
			ret = syntax_error(b, &parser);
			break;
		}
		done = tok.type == YAML_STREAM_END_TOKEN;
		if (tok.type == YAML_SCALAR_TOKEN) {
			TK_ALLOC_GROW(b->scalars, b->nr_scalars + 1, b->alloc_scalars);
			b->scalars[b->nr_scalars].start = byte_at(b, tok.start_mark.index);
			b->scalars[b->nr_scalars].end = byte_at(b, tok.end_mark.index);
			b->nr_scalars++;
		}
		yaml_token_delete(&tok);
	}
	yaml_parser_delete(&parser);
	return ret;
}

/* A scalar event ends where its token ends; no token: an empty scalar. */
static void find_scalar_bodies(struct build *b)
{
	struct tk_yaml *y = b->y;
	size_t i;

	for (i = 0; i < y->nr_nodes; i++) {
		struct tk_yaml_node *n = &y->nodes[i];
		size_t lo = 0, hi = b->nr_scalars;

		if (n->kind != TK_YAML_SCALAR)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (b->scalars[mid].end < n->end)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < b->nr_scalars && b->scalars[lo].end == n->end &&
		    b->scalars[lo].start >= n->start)
			n->body = b->scalars[lo].start;
		else
			n->body = n->end;
	}
}

static void build_release(struct build *b)
{
	forget_anchors(b);
	free(b->anchors);
	free(b->ckpt);
	free(b->stack);
	free(b->scalars);
}

int tk_yaml_parse(struct tk_yaml *y, const char *name, const char *text, size_t len,
		  const struct tk_yaml_opts *opts, struct tk_err *err)
{
	const unsigned char *t = (const unsigned char *)text;
	struct build b;
	int ret;

	memset(y, 0, sizeof(*y));
	y->name = name;
	y->text = text;
	y->len = len;
	y->limits = opts->limits;
	if (len > opts->limits.bytes)
		return tk_err_set(err, TK_EDATA, "%s: larger than %zu bytes", name,
				  opts->limits.bytes);
	memset(&b, 0, sizeof(b));
	b.y = y;
	b.opts = opts;
	b.err = err;
	/* as libyaml tells the encoding: by the byte order mark */
	if (len >= 2 && t[0] == 0xff && t[1] == 0xfe) {
		b.enc = ENC_UTF16LE;
		b.bom = 2;
	} else if (len >= 2 && t[0] == 0xfe && t[1] == 0xff) {
		b.enc = ENC_UTF16BE;
		b.bom = 2;
	} else if (len >= 3 && t[0] == 0xef && t[1] == 0xbb && t[2] == 0xbf) {
		b.bom = 3;
	}
	map_chars(&b);
	ret = read_events(&b);
	if (!ret)
		ret = scan_scalars(&b);
	if (!ret)
		find_scalar_bodies(&b);
	build_release(&b);
	if (ret)
		tk_yaml_release(y);
	return ret;
}

void tk_yaml_release(struct tk_yaml *y)
{
	size_t i;

	for (i = 0; i < y->nr_nodes; i++) {
		free(y->nodes[i].value);
		free(y->nodes[i].kids);
	}
	free(y->nodes);
	free(y->roots);
	memset(y, 0, sizeof(*y));
}

const char *tk_yaml_kind_name(enum tk_yaml_kind kind)
{
	switch (kind) {
	case TK_YAML_SCALAR:
		return "a scalar";
	case TK_YAML_SEQ:
		return "a sequence";
	case TK_YAML_MAP:
		return "a mapping";
	default:
		return "an alias";
	}
}

/* ---- walks ---- */

/* An alias's target without charging: for looking at keys, which the
 * walks charge as entries. */
static const struct tk_yaml_node *peek(const struct tk_yaml *y, size_t n)
{
	const struct tk_yaml_node *x = &y->nodes[n];

	return x->kind == TK_YAML_ALIAS ? &y->nodes[x->target] : x;
}

size_t tk_yaml_deref(struct tk_yaml *y, size_t n)
{
	if (y->nodes[n].kind != TK_YAML_ALIAS)
		return n;
	if (y->work < SIZE_MAX)
		y->work++;
	return y->nodes[n].target;
}

int tk_yaml_charge(struct tk_yaml *y, size_t n, size_t at, struct tk_err *err)
{
	const struct tk_yaml_node *x = &y->nodes[at];

	y->work = n > SIZE_MAX - y->work ? SIZE_MAX : y->work + n;
	if (y->work <= y->limits.work)
		return 0;
	return tk_err_set(err, TK_EDATA, "%s:%zu:%zu: too many aliases and merge keys to follow "
			  "(a work limit of %zu)", y->name, x->line + 1, x->col + 1,
			  y->limits.work);
}

static int merge_too_deep(const struct tk_yaml *y, size_t at, struct tk_err *err)
{
	const struct tk_yaml_node *x = &y->nodes[at];

	return tk_err_set(err, TK_EDATA, "%s:%zu:%zu: merge keys nested too deep "
			  "(more than %zu levels)", y->name, x->line + 1, x->col + 1,
			  y->limits.merge_depth);
}

int tk_yaml_is_merge_key(const struct tk_yaml *y, size_t n)
{
	const struct tk_yaml_node *x = peek(y, n);

	return x->kind == TK_YAML_SCALAR && x->style == YAML_PLAIN_SCALAR_STYLE &&
	       x->len == 2 && !memcmp(x->value, "<<", 2);
}

static int scalar_is(const struct tk_yaml *y, size_t n, const char *s, size_t len)
{
	const struct tk_yaml_node *x = peek(y, n);

	return x->kind == TK_YAML_SCALAR && x->len == len && !memcmp(x->value, s, len);
}

static int lookup_in(struct tk_yaml *y, size_t map, const char *key, size_t len,
		     size_t depth, size_t *value, struct tk_err *err)
{
	size_t at = tk_yaml_deref(y, map), i, j;
	const struct tk_yaml_node *m = &y->nodes[at];
	int ret;

	*value = TK_YAML_NONE;
	if (m->kind != TK_YAML_MAP)
		return 0;
	if (depth > y->limits.merge_depth)
		return merge_too_deep(y, at, err);
	ret = tk_yaml_charge(y, m->nr_kids / 2 + 1, at, err);
	if (ret)
		return ret;
	for (i = 0; i + 1 < m->nr_kids; i += 2)
		if (!tk_yaml_is_merge_key(y, m->kids[i]) && scalar_is(y, m->kids[i], key, len)) {
			*value = m->kids[i + 1];
			return 0;
		}
	for (i = 0; i + 1 < m->nr_kids; i += 2) {
		const struct tk_yaml_node *src;

		if (!tk_yaml_is_merge_key(y, m->kids[i]))
			continue;
		src = &y->nodes[tk_yaml_deref(y, m->kids[i + 1])];
		if (src->kind == TK_YAML_MAP) {
			ret = lookup_in(y, m->kids[i + 1], key, len, depth + 1, value, err);
			if (ret || *value != TK_YAML_NONE)
				return ret;
		} else if (src->kind == TK_YAML_SEQ) {
			for (j = 0; j < src->nr_kids; j++) {
				ret = lookup_in(y, src->kids[j], key, len, depth + 1, value, err);
				if (ret || *value != TK_YAML_NONE)
					return ret;
			}
		}
	}
	return 0;
}

int tk_yaml_lookup(struct tk_yaml *y, size_t map, const char *key, size_t len,
		   size_t *value, struct tk_err *err)
{
	return lookup_in(y, map, key, len, 0, value, err);
}

/* A flatten in progress: out, and its keys hashed. */
struct flat {
	struct tk_yaml *y;
	struct tk_yaml_entries *out;
	int (*note)(void *arg, const struct tk_yaml_note *n);
	void *arg;
	struct tk_err *err;
	size_t *slots; /* an entry's index + 1, or 0 */
	size_t nr_slots;
};

static size_t hash_of(const struct tk_yaml_node *k)
{
	uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
	size_t i;

	for (i = 0; i < k->len; i++) {
		h ^= (unsigned char)k->value[i];
		h *= UINT64_C(1099511628211);
	}
	return (size_t)h;
}

/* The slot of key k: the entry that has it, or the empty one it would take. */
static size_t *slot_of(const struct flat *f, const struct tk_yaml_node *k)
{
	size_t mask = f->nr_slots - 1, i = hash_of(k) & mask;

	for (;; i = (i + 1) & mask) {
		const struct tk_yaml_node *e;

		if (!f->slots[i])
			return &f->slots[i];
		e = &f->y->nodes[f->out->items[f->slots[i] - 1].key];
		if (e->len == k->len && !memcmp(e->value, k->value, k->len))
			return &f->slots[i];
	}
}

static void add_entry(struct flat *f, size_t key_at, size_t key, size_t value)
{
	struct tk_yaml_entries *out = f->out;
	struct tk_yaml_entry *e;
	size_t i;

	if ((out->nr + 1) * 2 > f->nr_slots) {
		/* grow and rehash: at most half full keeps the probes short */
		free(f->slots);
		f->nr_slots = f->nr_slots ? f->nr_slots * 2 : 16;
		f->slots = tk_xcalloc(f->nr_slots, sizeof(*f->slots));
		for (i = 0; i < out->nr; i++)
			*slot_of(f, &f->y->nodes[out->items[i].key]) = i + 1;
	}
	TK_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
	e = &out->items[out->nr++];
	e->key_at = key_at;
	e->key = key;
	e->value = value;
	*slot_of(f, &f->y->nodes[key]) = out->nr;
}

static int tell(struct flat *f, enum tk_yaml_note_kind kind, size_t at, size_t node,
		size_t first)
{
	struct tk_yaml_note n;

	if (!f->note)
		return 0;
	n.kind = kind;
	n.at = at;
	n.node = node;
	n.first = first;
	return f->note(f->arg, &n);
}

static int merge_in(struct flat *f, size_t at, size_t depth);

/* Mapping m's entries into f->out: depth 0 for the mapping flattened,
 * more for the mappings merged into it. */
static int flatten_map(struct flat *f, size_t at, size_t m, size_t depth)
{
	struct tk_yaml *y = f->y;
	const struct tk_yaml_node *x = &y->nodes[m];
	size_t i, j;
	int ret;

	ret = tk_yaml_charge(y, x->nr_kids / 2 + 1, at, f->err);
	for (i = 0; !ret && i + 1 < x->nr_kids; i += 2) {
		size_t k = tk_yaml_deref(y, x->kids[i]), *slot;
		const struct tk_yaml_node *key = &y->nodes[k];

		if (key->kind != TK_YAML_SCALAR) {
			ret = tell(f, TK_YAML_KEY_NOT_SCALAR, x->kids[i], k, TK_YAML_NONE);
			continue;
		}
		if (tk_yaml_is_merge_key(y, k)) {
			if (depth)
				ret = tell(f, TK_YAML_NESTED_MERGE, x->kids[i], k, TK_YAML_NONE);
			continue;
		}
		slot = f->nr_slots ? slot_of(f, key) : NULL;
		if (slot && *slot) {
			if (!depth)
				ret = tell(f, TK_YAML_DUPLICATE_KEY, x->kids[i], k,
					   f->out->items[*slot - 1].key_at);
			continue;
		}
		if (f->out->nr >= y->limits.entries)
			return tk_err_set(f->err, TK_EDATA, "%s:%zu:%zu: more than %zu entries in "
					  "one mapping", y->name, key->line + 1, key->col + 1,
					  y->limits.entries);
		add_entry(f, x->kids[i], k, x->kids[i + 1]);
	}
	for (i = 0; !ret && i + 1 < x->nr_kids; i += 2) {
		const struct tk_yaml_node *v;

		if (!tk_yaml_is_merge_key(y, x->kids[i]))
			continue;
		v = &y->nodes[tk_yaml_deref(y, x->kids[i + 1])];
		if (v->kind != TK_YAML_SEQ) {
			ret = merge_in(f, x->kids[i + 1], depth + 1);
			continue;
		}
		for (j = 0; !ret && j < v->nr_kids; j++)
			ret = merge_in(f, v->kids[j], depth + 1);
	}
	return ret;
}

/* The mapping at (as written) merged at depth. */
static int merge_in(struct flat *f, size_t at, size_t depth)
{
	size_t src = tk_yaml_deref(f->y, at);

	if (f->y->nodes[src].kind != TK_YAML_MAP)
		return tell(f, TK_YAML_MERGE_NOT_MAPPING, at, src, TK_YAML_NONE);
	if (depth > f->y->limits.merge_depth)
		return merge_too_deep(f->y, src, f->err);
	return flatten_map(f, at, src, depth);
}

int tk_yaml_flatten(struct tk_yaml *y, size_t map, struct tk_yaml_entries *out,
		    int (*note)(void *arg, const struct tk_yaml_note *n), void *arg,
		    struct tk_err *err)
{
	struct flat f;
	size_t m = tk_yaml_deref(y, map);
	int ret;

	out->nr = 0;
	if (y->nodes[m].kind != TK_YAML_MAP)
		return 0;
	memset(&f, 0, sizeof(f));
	f.y = y;
	f.out = out;
	f.note = note;
	f.arg = arg;
	f.err = err;
	ret = flatten_map(&f, m, m, 0);
	free(f.slots);
	return ret;
}

void tk_yaml_entries_release(struct tk_yaml_entries *list)
{
	free(list->items);
	memset(list, 0, sizeof(*list));
}
