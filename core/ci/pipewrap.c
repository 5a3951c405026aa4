/*
 * tracker pipeline wrap: libyaml events -> a node tree with byte ranges ->
 * the step commands to wrap -> the input text with those ranges replaced.
 *
 * Why splice the text instead of emitting the parsed document: an emitter
 * loses comments, quoting styles, blank lines and the author's layout, and
 * a pipeline is a file people read. libyaml's marks give every node's
 * byte range; only command values are rewritten.
 *
 * Why one `bash -e -c 'SCRIPT'` for the whole command: the agent joins a
 * `commands:` list with newlines and runs the result as one script with
 * its shell (`bash -e -c` by default), so `cd`, `export` and `set` in one
 * line reach the next. Wrapping each line on its own would lose that and
 * record one run per line. Single quotes keep every byte of the script
 * (including `$` and `${VAR}`, which Buildkite interpolates at upload, in
 * the wrapped command as it did in the original) and the key cannot leave
 * its quotes.
 *
 * Aliases and merge keys: every node counts the places Buildkite reads it
 * (visits, through aliases and merges, from steps:, env:, agents: and
 * notify: -- other top-level keys are where people keep anchors, which
 * Buildkite ignores), and the uses as a tracked step's command. A command
 * node is rewritten only when the two are equal, so rewriting the text
 * where it is defined changes no other value.
 */
#include "core/ci/pipewrap.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/ci/ci.h"
#include "core/model/run.h"
#include "core/base/utf8.h"
#include "core/base/banned.h"

#define MAX_DEPTH 256          /* nesting of collections */
#define MAX_NODES 2000000
#define MAX_WORK 20000000      /* node visits and key comparisons */
#define MAX_ALIAS_DEPTH 512

enum kind { N_SCALAR, N_SEQ, N_MAP, N_ALIAS };

struct node {
	enum kind kind;
	int style;         /* yaml_scalar_style_t / yaml_sequence_style_t */
	int closed;        /* its end event has been seen */
	int mixed;         /* tracked uses with different keys */
	size_t start, end; /* byte range, properties (anchor, tag) included */
	size_t body;       /* where the value itself starts */
	size_t body_col;   /* its column (block sequence: the first '-') */
	size_t line, col;  /* 0-based, of start */
	char *value;       /* scalar */
	size_t len;
	size_t *kids;      /* seq: items; map: key, value, key, value ... */
	size_t nr_kids, alloc_kids;
	size_t target;     /* alias */
	size_t visits;     /* places Buildkite reads it */
	size_t uses;       /* as the command of a tracked step */
	char *key;         /* the first tracked use's key */
	size_t step_line;  /* and its step's line */
};

struct anchor {
	char *name;
	size_t node;
};

struct span {
	size_t start, end;
};

struct edit {
	size_t start, end;
	char *text;
	size_t len;
};

struct doc {
	const char *name;
	const char *text;
	size_t len;
	const struct tk_pipewrap_opts *opts;
	struct tk_pipewrap_stats *stats;
	struct tk_err *err;
	struct node *nodes;
	size_t nr_nodes, alloc_nodes;
	struct anchor *anchors;
	size_t nr_anchors, alloc_anchors;
	size_t *roots;
	size_t nr_roots, alloc_roots;
	size_t *used; /* command nodes with tracked uses, in order */
	size_t nr_used, alloc_used;
	struct span *scalars; /* scalar tokens, by end */
	size_t nr_scalars, alloc_scalars;
	struct edit *edits;
	size_t nr_edits, alloc_edits;
	struct span *refs; /* aliases: (anchor's start, alias's start) */
	size_t nr_refs, alloc_refs;
	int refs_sorted;
	char *key_seen; /* opts->keys[i] matched a step */
	size_t work;
	size_t bom;     /* a UTF-8 byte order mark, which marks do not count */
	size_t *ckpt;   /* byte offset of every CKPT-th character */
	size_t nr_ckpt;
	size_t ascii;   /* characters before the first that is not ASCII */
};

/* libyaml's marks count characters; the text is spliced by bytes. */
#define CKPT 64

static size_t utf8_len(unsigned char c)
{
	return c < 0xc0 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

static void map_chars(struct doc *d)
{
	size_t i = d->bom, chars = 0, alloc = 0;

	while (i < d->len && !((unsigned char)d->text[i] & 0x80))
		i++;
	d->ascii = i - d->bom;
	i = d->bom;
	while (i < d->len) {
		if (chars % CKPT == 0) {
			TK_ALLOC_GROW(d->ckpt, d->nr_ckpt + 1, alloc);
			d->ckpt[d->nr_ckpt++] = i;
		}
		i += utf8_len((unsigned char)d->text[i]);
		chars++;
	}
	TK_ALLOC_GROW(d->ckpt, d->nr_ckpt + 1, alloc);
	if (chars % CKPT == 0)
		d->ckpt[d->nr_ckpt++] = i;
}

/* The byte offset of character index idx (past the end: the length). */
static size_t byte_at(const struct doc *d, size_t idx)
{
	size_t k = idx / CKPT, i, n;

	if (idx < d->ascii)
		return d->bom + idx;
	if (k >= d->nr_ckpt)
		return d->len;
	i = d->ckpt[k];
	for (n = idx % CKPT; n > 0 && i < d->len; n--)
		i += utf8_len((unsigned char)d->text[i]);
	return i < d->len ? i : d->len;
}

static void doc_release(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nr_nodes; i++) {
		free(d->nodes[i].value);
		free(d->nodes[i].kids);
		free(d->nodes[i].key);
	}
	free(d->nodes);
	for (i = 0; i < d->nr_anchors; i++)
		free(d->anchors[i].name);
	free(d->anchors);
	free(d->roots);
	free(d->used);
	free(d->scalars);
	free(d->refs);
	for (i = 0; i < d->nr_edits; i++)
		free(d->edits[i].text);
	free(d->edits);
	free(d->key_seen);
	free(d->ckpt);
}

static int fail_at(struct doc *d, size_t line, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(struct doc *d, size_t line, size_t col, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	tk_err_set(d->err, TK_EDATA, "%s:%zu:%zu: %s", d->name, line + 1, col + 1, msg.buf);
	tk_buf_release(&msg);
	return TK_EDATA;
}

/* Untrusted text in a message: control characters as \xNN, at most 80 bytes. */
static void add_shown(struct tk_buf *b, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && i < 80; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			tk_buf_addf(b, "\\x%02x", c);
		else
			tk_buf_addch(b, c);
	}
	if (len > 80)
		tk_buf_adds(b, "...");
}

static void warn(struct doc *d, size_t line, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void warn(struct doc *d, size_t line, const char *key, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	if (!d->opts->warn)
		return;
	if (line == SIZE_MAX)
		tk_buf_addf(&msg, "%s: ", d->name);
	else
		tk_buf_addf(&msg, "%s:%zu: ", d->name, line + 1);
	if (key) {
		tk_buf_adds(&msg, "step '");
		add_shown(&msg, key, strlen(key));
		tk_buf_adds(&msg, "': ");
	}
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	d->opts->warn(d->opts->warn_arg, msg.buf);
	tk_buf_release(&msg);
}

static int charge(struct doc *d, size_t n)
{
	d->work += n;
	if (d->work > MAX_WORK)
		return tk_err_set(d->err, TK_EDATA,
				  "%s: too many aliases and merge keys to follow", d->name);
	return 0;
}

/* ---- events -> nodes ---- */

static int syntax_error(struct doc *d, yaml_parser_t *p)
{
	struct tk_buf msg = TK_BUF_INIT;
	size_t line = p->problem_mark.line, col = p->problem_mark.column, i;
	int ret;

	if (p->error == YAML_MEMORY_ERROR)
		return tk_err_set(d->err, TK_EINTERNAL, "%s: out of memory parsing YAML", d->name);
	if (p->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark. */
		line = 0;
		col = 0;
		for (i = 0; i < p->problem_offset && i < d->len; i++) {
			if (d->text[i] == '\n') {
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
	if (p->error != YAML_READER_ERROR && byte_at(d, p->problem_mark.index) < d->len &&
	    d->text[byte_at(d, p->problem_mark.index)] == '\t')
		tk_buf_adds(&msg, " (a tab: YAML is indented with spaces only)");
	ret = fail_at(d, line, col, "%s", msg.buf);
	tk_buf_release(&msg);
	return ret;
}

static size_t new_node(struct doc *d, enum kind kind, const yaml_event_t *ev)
{
	struct node *n;

	TK_ALLOC_GROW(d->nodes, d->nr_nodes + 1, d->alloc_nodes);
	n = &d->nodes[d->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->start = byte_at(d, ev->start_mark.index);
	n->end = byte_at(d, ev->end_mark.index);
	n->body = n->start;
	n->line = ev->start_mark.line;
	n->col = ev->start_mark.column;
	return d->nr_nodes++;
}

/*
 * Where a sequence's items start: its start event ends at the first '-'
 * of a block sequence, or just past it when the sequence is as indented
 * as its key; just past the '[' of a flow sequence.
 */
static void seq_body(const struct doc *d, struct node *n, size_t end)
{
	size_t i;

	n->body = end;
	if (n->style == YAML_FLOW_SEQUENCE_STYLE || (end < d->len && d->text[end] != '-'))
		if (end > n->start && (d->text[end - 1] == '[' || d->text[end - 1] == '-'))
			n->body = end - 1;
	n->body_col = 0;
	for (i = n->body; i > 0 && d->text[i - 1] != '\n'; i--)
		if (((unsigned char)d->text[i - 1] & 0xc0) != 0x80)
			n->body_col++;
}

static void add_anchor(struct doc *d, const yaml_char_t *name, size_t node)
{
	TK_ALLOC_GROW(d->anchors, d->nr_anchors + 1, d->alloc_anchors);
	d->anchors[d->nr_anchors].name = tk_xstrdup((const char *)name);
	d->anchors[d->nr_anchors].node = node;
	d->nr_anchors++;
}

static void forget_anchors(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nr_anchors; i++)
		free(d->anchors[i].name);
	d->nr_anchors = 0;
}

static int handle_event(struct doc *d, const yaml_event_t *ev, size_t *stack, size_t *depth)
{
	const yaml_mark_t *m = &ev->start_mark;
	const yaml_char_t *anchor = NULL;
	size_t i, n;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		forget_anchors(d);
		return 0;
	case YAML_SCALAR_EVENT:
		n = new_node(d, N_SCALAR, ev);
		d->nodes[n].value = tk_xstrndup((const char *)ev->data.scalar.value,
						 ev->data.scalar.length);
		/* a NUL from an escape ends the C string; keep the real length */
		d->nodes[n].len = ev->data.scalar.length;
		d->nodes[n].style = ev->data.scalar.style;
		d->nodes[n].closed = 1;
		anchor = ev->data.scalar.anchor;
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (*depth >= MAX_DEPTH)
			return fail_at(d, m->line, m->column, "nested deeper than %d levels",
				       MAX_DEPTH);
		if (ev->type == YAML_SEQUENCE_START_EVENT) {
			n = new_node(d, N_SEQ, ev);
			d->nodes[n].style = ev->data.sequence_start.style;
			anchor = ev->data.sequence_start.anchor;
			/* after the properties: the first '-', or the '[' */
			seq_body(d, &d->nodes[n], byte_at(d, ev->end_mark.index));
		} else {
			n = new_node(d, N_MAP, ev);
			anchor = ev->data.mapping_start.anchor;
		}
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (!*depth)
			return fail_at(d, m->line, m->column, "unbalanced collection end");
		n = stack[--*depth];
		d->nodes[n].closed = 1;
		d->nodes[n].end = byte_at(d, ev->end_mark.index);
		return 0;
	case YAML_ALIAS_EVENT:
		n = SIZE_MAX;
		for (i = d->nr_anchors; i-- > 0;)
			if (!strcmp(d->anchors[i].name, (const char *)ev->data.alias.anchor)) {
				n = d->anchors[i].node;
				break;
			}
		if (n == SIZE_MAX)
			return fail_at(d, m->line, m->column, "undefined alias '*%s'",
				       (const char *)ev->data.alias.anchor);
		if (!d->nodes[n].closed)
			return fail_at(d, m->line, m->column,
				       "alias '*%s' refers to a node that contains it",
				       (const char *)ev->data.alias.anchor);
		i = n;
		n = new_node(d, N_ALIAS, ev);
		d->nodes[n].target = i;
		d->nodes[n].closed = 1;
		break;
	default:
		return 0;
	}
	if (d->nr_nodes > MAX_NODES)
		return fail_at(d, m->line, m->column, "more than %d nodes", MAX_NODES);
	if (anchor)
		add_anchor(d, anchor, n);
	if (*depth) {
		struct node *p = &d->nodes[stack[*depth - 1]];

		TK_ALLOC_GROW(p->kids, p->nr_kids + 1, p->alloc_kids);
		p->kids[p->nr_kids++] = n;
	} else {
		TK_ALLOC_GROW(d->roots, d->nr_roots + 1, d->alloc_roots);
		d->roots[d->nr_roots++] = n;
	}
	if (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT)
		stack[(*depth)++] = n;
	return 0;
}

static int parse(struct doc *d)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t stack[MAX_DEPTH], depth = 0;
	int ret = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return tk_err_set(d->err, TK_EINTERNAL, "cannot start the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)d->text, d->len);
	while (!ret && !done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ret = syntax_error(d, &parser);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		ret = handle_event(d, &ev, stack, &depth);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ret;
}

/*
 * Where each scalar's text starts, past its anchor and tag (the scalar
 * event's range includes them): the tokens of the same text, which parse()
 * has already accepted.
 */
static int scan_scalars(struct doc *d)
{
	yaml_parser_t parser;
	yaml_token_t tok;
	int done = 0, ret = 0;

	if (!yaml_parser_initialize(&parser))
		return tk_err_set(d->err, TK_EINTERNAL, "cannot start the YAML parser");
	yaml_parser_set_input_string(&parser, (const unsigned char *)d->text, d->len);
	while (!done) {
		if (!yaml_parser_scan(&parser, &tok)) {
			ret = syntax_error(d, &parser);
			break;
		}
		done = tok.type == YAML_STREAM_END_TOKEN;
		if (tok.type == YAML_SCALAR_TOKEN) {
			TK_ALLOC_GROW(d->scalars, d->nr_scalars + 1, d->alloc_scalars);
			d->scalars[d->nr_scalars].start = byte_at(d, tok.start_mark.index);
			d->scalars[d->nr_scalars].end = byte_at(d, tok.end_mark.index);
			d->nr_scalars++;
		}
		yaml_token_delete(&tok);
	}
	yaml_parser_delete(&parser);
	return ret;
}

static void find_scalar_bodies(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nr_nodes; i++) {
		struct node *n = &d->nodes[i];
		size_t lo = 0, hi = d->nr_scalars;

		if (n->kind != N_SCALAR)
			continue;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (d->scalars[mid].end < n->end)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < d->nr_scalars && d->scalars[lo].end == n->end &&
		    d->scalars[lo].start >= n->start)
			n->body = d->scalars[lo].start;
		else
			n->body = n->end; /* an empty scalar: nothing to rewrite */
	}
}

/* ---- reading the tree: aliases and merge keys ---- */

static size_t resolve(const struct doc *d, size_t n)
{
	return d->nodes[n].kind == N_ALIAS ? d->nodes[n].target : n;
}

static int is_scalar(const struct doc *d, size_t n, const char *s)
{
	const struct node *x = &d->nodes[resolve(d, n)];

	return x->kind == N_SCALAR && x->len == strlen(s) && !memcmp(x->value, s, x->len);
}

static int is_merge_key(const struct doc *d, size_t k)
{
	const struct node *x = &d->nodes[k];

	return x->kind == N_SCALAR && x->style == YAML_PLAIN_SCALAR_STYLE &&
	       !strcmp(x->value, "<<");
}

/*
 * The value of key in map, own entries first, then the merged mappings
 * in order (YAML merge keys). Returns SIZE_MAX when absent, or on
 * running out of work (*ret set).
 */
static size_t lookup(struct doc *d, size_t map, const char *key, int depth, int *ret)
{
	const struct node *m = &d->nodes[resolve(d, map)];
	size_t i, j, v;

	if (m->kind != N_MAP || *ret)
		return SIZE_MAX;
	if (depth > MAX_ALIAS_DEPTH || charge(d, m->nr_kids / 2 + 1)) {
		*ret = depth > MAX_ALIAS_DEPTH ?
			tk_err_set(d->err, TK_EDATA, "%s: merge keys nested too deep", d->name) :
			TK_EDATA;
		return SIZE_MAX;
	}
	for (i = 0; i + 1 < m->nr_kids; i += 2)
		if (!is_merge_key(d, m->kids[i]) && is_scalar(d, m->kids[i], key))
			return m->kids[i + 1];
	for (i = 0; i + 1 < m->nr_kids; i += 2) {
		const struct node *src;

		if (!is_merge_key(d, m->kids[i]))
			continue;
		src = &d->nodes[resolve(d, m->kids[i + 1])];
		if (src->kind == N_MAP) {
			v = lookup(d, m->kids[i + 1], key, depth + 1, ret);
			if (v != SIZE_MAX || *ret)
				return v;
		} else if (src->kind == N_SEQ) {
			for (j = 0; j < src->nr_kids; j++) {
				v = lookup(d, src->kids[j], key, depth + 1, ret);
				if (v != SIZE_MAX || *ret)
					return v;
			}
		}
	}
	return SIZE_MAX;
}

static int visit(struct doc *d, size_t n, int depth);

/* The entries of map as Buildkite sees them: merged ones only where no
 * own or earlier entry has their key. */
static int visit_map(struct doc *d, size_t top, size_t map, int depth)
{
	const struct node *m = &d->nodes[map];
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i + 1 < m->nr_kids; i += 2) {
		size_t k = m->kids[i], v = m->kids[i + 1];
		const struct node *src, *key;

		if (!is_merge_key(d, k)) {
			key = &d->nodes[resolve(d, k)];
			if (map == top || key->kind != N_SCALAR) {
				ret = visit(d, v, depth + 1);
			} else if (lookup(d, top, key->value, 0, &ret) == v && !ret) {
				ret = visit(d, v, depth + 1);
			}
			continue;
		}
		src = &d->nodes[resolve(d, v)];
		if (src->kind == N_MAP) {
			ret = visit_map(d, top, resolve(d, v), depth + 1);
		} else if (src->kind == N_SEQ) {
			for (j = 0; !ret && j < src->nr_kids; j++)
				if (d->nodes[resolve(d, src->kids[j])].kind == N_MAP)
					ret = visit_map(d, top, resolve(d, src->kids[j]), depth + 1);
		}
	}
	return ret;
}

static int visit(struct doc *d, size_t n, int depth)
{
	struct node *x;
	size_t i;
	int ret = 0;

	if (depth > MAX_ALIAS_DEPTH + MAX_DEPTH)
		return tk_err_set(d->err, TK_EDATA, "%s: aliases nested too deep", d->name);
	if (charge(d, 1))
		return TK_EDATA;
	n = resolve(d, n);
	x = &d->nodes[n];
	x->visits++;
	if (x->kind == N_SEQ)
		for (i = 0; !ret && i < x->nr_kids; i++)
			ret = visit(d, x->kids[i], depth + 1);
	else if (x->kind == N_MAP)
		ret = visit_map(d, n, n, depth);
	return ret;
}

/* Top-level keys Buildkite reads; the others only hold anchors. */
static int buildkite_reads(const struct doc *d, size_t key)
{
	static const char *const keys[] = { "steps", "env", "agents", "notify" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (is_scalar(d, key, keys[i]))
			return 1;
	return 0;
}

static int count_visits(struct doc *d, size_t root)
{
	const struct node *r = &d->nodes[resolve(d, root)];
	size_t i;
	int ret = 0;

	if (r->kind != N_MAP)
		return visit(d, root, 0);
	for (i = 0; !ret && i + 1 < r->nr_kids; i += 2)
		if (buildkite_reads(d, r->kids[i]))
			ret = visit(d, r->kids[i + 1], 1);
	return ret;
}

/* ---- the steps ---- */

/* A scalar's value, or NULL for anything else and for empty ones. */
static const struct node *scalar_of(struct doc *d, size_t map, const char *key, int *ret)
{
	size_t v = lookup(d, map, key, 0, ret);
	const struct node *x;

	if (v == SIZE_MAX)
		return NULL;
	x = &d->nodes[resolve(d, v)];
	return x->kind == N_SCALAR && x->len ? x : NULL;
}

static int uses_tracker_plugin_name(const char *name, size_t len)
{
	const char *end = memchr(name, '#', len), *base = name, *p;
	static const char suffix[] = "-buildkite-plugin";

	if (!end)
		end = name + len;
	while (end > name && end[-1] == '/')
		end--;
	for (p = name; p < end; p++)
		if (*p == '/')
			base = p + 1;
	if (end - base > 4 && !memcmp(end - 4, ".git", 4))
		end -= 4;
	if ((size_t)(end - base) > sizeof(suffix) - 1 &&
	    !memcmp(end - (sizeof(suffix) - 1), suffix, sizeof(suffix) - 1))
		end -= sizeof(suffix) - 1;
	return end - base == 7 && !memcmp(base, "tracker", 7);
}

/* The step runs the tracker Buildkite plugin, which wraps the command. */
static int uses_tracker_plugin(struct doc *d, size_t step, int *ret)
{
	size_t v = lookup(d, step, "plugins", 0, ret), i;
	const struct node *p;

	if (v == SIZE_MAX)
		return 0;
	p = &d->nodes[resolve(d, v)];
	for (i = 0; i < p->nr_kids; i++) {
		const struct node *item = &d->nodes[resolve(d, p->kids[i])];

		if (p->kind == N_MAP && i % 2)
			continue;
		if (item->kind == N_MAP && item->nr_kids)
			item = &d->nodes[resolve(d, item->kids[0])];
		if (item->kind == N_SCALAR && uses_tracker_plugin_name(item->value, item->len))
			return 1;
	}
	return 0;
}

/* The script the agent runs: the scalar, or the list joined by newlines.
 * Returns -1 for a list with an item that is no string. */
static int script_of(struct doc *d, size_t cmd, struct tk_buf *out)
{
	const struct node *c = &d->nodes[cmd];
	size_t i;

	if (c->kind == N_SCALAR)
		return tk_buf_add(out, c->value, c->len);
	for (i = 0; i < c->nr_kids; i++) {
		const struct node *item = &d->nodes[resolve(d, c->kids[i])];

		if (item->kind != N_SCALAR)
			return -1;
		if (i)
			tk_buf_addch(out, '\n');
		tk_buf_add(out, item->value, item->len);
	}
	return 0;
}

static int listed(struct doc *d, const char *key)
{
	size_t i;
	int found = 0;

	if (!d->opts->keys)
		return 1;
	for (i = 0; i < d->opts->nr_keys; i++)
		if (!strcmp(d->opts->keys[i], key)) {
			d->key_seen[i] = 1;
			found = 1;
		}
	return found;
}

/* A plain ~, null or nothing: no command at all. */
static int is_null(const struct node *x)
{
	return !x->len || (x->style == YAML_PLAIN_SCALAR_STYLE &&
			   (!strcmp(x->value, "~") || !strcmp(x->value, "null") ||
			    !strcmp(x->value, "Null") || !strcmp(x->value, "NULL")));
}

static int command_step(struct doc *d, size_t step, size_t cmd)
{
	const struct node *s = &d->nodes[step], *k, *label;
	struct tk_buf script = TK_BUF_INIT, key = TK_BUF_INIT;
	struct node *c;
	int ret = 0;

	cmd = resolve(d, cmd);
	c = &d->nodes[cmd];
	if ((c->kind == N_SCALAR && is_null(c)) || (c->kind == N_SEQ && !c->nr_kids) ||
	    c->kind == N_MAP)
		return 0;
	d->stats->steps++;
	k = scalar_of(d, step, "key", &ret);
	if (!k)
		k = scalar_of(d, step, "identifier", &ret);
	if (!k)
		k = scalar_of(d, step, "id", &ret);
	if (k && memchr(k->value, '\0', k->len)) {
		warn(d, s->line, NULL, "its key holds a NUL character; left as it is");
		d->stats->left++;
		return ret;
	}
	if (k) {
		tk_buf_add(&key, k->value, k->len);
	} else if (d->opts->derive_keys) {
		label = scalar_of(d, step, "label", &ret);
		if (!label)
			label = scalar_of(d, step, "name", &ret);
		if (label)
			tk_ci_slug(label->value, &key);
	}
	if (script_of(d, cmd, &script)) {
		warn(d, c->line, key.len ? key.buf : NULL,
		     "a command list item is not a string; left as it is");
		d->stats->left++;
	} else if (tk_pipewrap_runs_tracker(script.buf, script.len) ||
		   uses_tracker_plugin(d, step, &ret)) {
		d->stats->already++;
	} else if (!key.len) {
		d->stats->no_key++;
	} else if (!listed(d, key.buf)) {
		d->stats->not_listed++;
	} else {
		if (tk_run_check_key(key.buf, d->err))
			warn(d, s->line, NULL, "%s: tracker run will not use it", d->err->msg);
		tk_err_clear(d->err);
		if (!c->uses++) {
			c->key = tk_xstrdup(key.buf);
			c->step_line = s->line;
			TK_ALLOC_GROW(d->used, d->nr_used + 1, d->alloc_used);
			d->used[d->nr_used++] = cmd;
		} else if (strcmp(c->key, key.buf)) {
			c->mixed = 1;
		}
	}
	tk_buf_release(&script);
	tk_buf_release(&key);
	return ret;
}

static int walk_steps(struct doc *d, size_t seq, int depth)
{
	static const char *const not_commands[] = {
		"wait", "waiter", "block", "input", "trigger"
	};
	const struct node *s = &d->nodes[resolve(d, seq)];
	size_t i, j, v;
	int ret = 0;

	if (s->kind != N_SEQ)
		return 0;
	if (depth > MAX_ALIAS_DEPTH)
		return tk_err_set(d->err, TK_EDATA, "%s: groups nested too deep", d->name);
	for (i = 0; !ret && i < s->nr_kids; i++) {
		size_t step = resolve(d, s->kids[i]);
		int skip = 0;

		if (d->nodes[step].kind != N_MAP)
			continue; /* "wait", "block" ... */
		if (lookup(d, step, "group", 0, &ret) != SIZE_MAX) {
			v = lookup(d, step, "steps", 0, &ret);
			if (v != SIZE_MAX)
				ret = walk_steps(d, v, depth + 1);
			continue;
		}
		for (j = 0; j < sizeof(not_commands) / sizeof(not_commands[0]); j++)
			if (lookup(d, step, not_commands[j], 0, &ret) != SIZE_MAX)
				skip = 1;
		if (skip || ret)
			continue;
		v = lookup(d, step, "command", 0, &ret);
		if (v == SIZE_MAX)
			v = lookup(d, step, "commands", 0, &ret);
		if (v != SIZE_MAX && !ret)
			ret = command_step(d, step, v);
	}
	return ret;
}

/* ---- writing the wrapped command ---- */

void tk_sh_quote(struct tk_buf *out, const char *s, size_t len)
{
	size_t i;
	int plain = len > 0;

	for (i = 0; plain && i < len; i++)
		plain = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9') || strchr("_./:=+@%,-", s[i]) != NULL;
	if (plain) {
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

/*
 * 1 when word is a command word of script s: at the start or after
 * whitespace, '/', ';', '&', '|', '(' or '`', followed by a blank and
 * then next (when not NULL), or by a blank or the end.
 */
static int has_command(const char *s, size_t len, const char *word, const char *next)
{
	size_t wl = strlen(word), nl = next ? strlen(next) : 0, i, j;

	for (i = 0; i + wl <= len; i++) {
		if (memcmp(s + i, word, wl) || (i && !strchr(" \t\n/;&|(`", s[i - 1])))
			continue;
		j = i + wl;
		if (!next) {
			if (j == len || strchr(" \t\n", s[j]))
				return 1;
			continue;
		}
		if (j >= len || (s[j] != ' ' && s[j] != '\t'))
			continue;
		while (j < len && (s[j] == ' ' || s[j] == '\t'))
			j++;
		if (j + nl <= len && !memcmp(s + j, next, nl) &&
		    (j + nl == len || strchr(" \t\n", s[j + nl])))
			return 1;
	}
	return 0;
}

int tk_pipewrap_runs_tracker(const char *s, size_t len)
{
	/* tracker's commands, those to come included: "echo tracker runs"
	 * is not tracker running */
	static const char *const cmds[] = {
		"run", "report", "check", "push", "fetch", "history", "dashboard",
		"flame", "diff", "import", "pipeline", "config"
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (has_command(s, len, "tracker", cmds[i]))
			return 1;
	return 0;
}

/* The code point of the UTF-8 sequence at p, or -1. */
static long code_point(const unsigned char *p, size_t n)
{
	if (n == 1)
		return p[0];
	if (n == 2)
		return ((long)(p[0] & 0x1f) << 6) | (p[1] & 0x3f);
	if (n == 3)
		return ((long)(p[0] & 0x0f) << 12) | ((long)(p[1] & 0x3f) << 6) | (p[2] & 0x3f);
	if (n == 4)
		return ((long)(p[0] & 0x07) << 18) | ((long)(p[1] & 0x3f) << 12) |
		       ((long)(p[2] & 0x3f) << 6) | (p[3] & 0x3f);
	return -1;
}

/* Printable as it is in a YAML block or double-quoted scalar. */
static int yaml_printable(long c)
{
	return c == '\t' || (c >= 0x20 && c <= 0x7e) ||
	       (c >= 0xa0 && c <= 0xd7ff && c != 0x2028 && c != 0x2029) ||
	       (c >= 0xe000 && c <= 0xfffd && c != 0xfeff) || (c >= 0x10000 && c <= 0x10ffff);
}

/* Fits a literal block scalar: printable lines, no carriage return. */
static int literal_ok(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		const unsigned char *p = (const unsigned char *)s + i;

		if (*p == '\n') {
			i++;
			continue;
		}
		n = tk_utf8_seqlen(p, len - i);
		if (!n || !yaml_printable(code_point(p, n)))
			return 0;
		i += n;
	}
	return 1;
}

static void add_double_quoted(struct tk_buf *out, const char *s, size_t len)
{
	size_t i = 0, n;

	tk_buf_addch(out, '"');
	while (i < len) {
		const unsigned char *p = (const unsigned char *)s + i;
		long c;

		n = tk_utf8_seqlen(p, len - i);
		c = n ? code_point(p, n) : 0xfffd;
		if (!n)
			n = 1; /* never from libyaml, which checks its input */
		if (c == '"' || c == '\\') {
			tk_buf_addch(out, '\\');
			tk_buf_addch(out, (int)c);
		} else if (c == '\n') {
			tk_buf_adds(out, "\\n");
		} else if (c == '\t') {
			tk_buf_adds(out, "\\t");
		} else if (yaml_printable(c)) {
			tk_buf_add(out, p, n);
		} else if (c <= 0xff) {
			tk_buf_addf(out, "\\x%02lx", c);
		} else if (c <= 0xffff) {
			tk_buf_addf(out, "\\u%04lx", c);
		} else {
			tk_buf_addf(out, "\\U%08lx", c);
		}
		i += n;
	}
	tk_buf_addch(out, '"');
}

/* Each line of s, indented by indent spaces, ending in a newline (s
 * ends without one). */
static void add_literal_lines(struct tk_buf *out, const char *s, size_t len, size_t indent)
{
	size_t i = 0;

	while (i <= len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - s) : len;

		if (end > i) {
			tk_buf_addf(out, "%*s", (int)indent, "");
			tk_buf_add(out, s + i, end - i);
		}
		tk_buf_addch(out, '\n');
		i = end + 1;
	}
}

/* The newlines after the last character that is not a space or newline
 * in [from, to). */
static size_t trailing_newlines(const struct doc *d, size_t from, size_t to)
{
	size_t n = 0;

	while (to > from && strchr(" \t\r\n", d->text[to - 1])) {
		if (d->text[to - 1] == '\n')
			n++;
		to--;
	}
	return n;
}

/* The comment in text[from, to) (a gap between tokens), appended as
 * "\n<indent>#...". */
static void move_comments(const struct doc *d, size_t from, size_t to, size_t indent,
			  struct tk_buf *out)
{
	size_t i = from;

	while (i < to) {
		if (d->text[i] == '#' && (i == 0 || strchr(" \t\n", d->text[i - 1]))) {
			size_t e = i;

			while (e < to && d->text[e] != '\n' && d->text[e] != '\r')
				e++;
			tk_buf_addf(out, "\n%*s", (int)indent, "");
			tk_buf_add(out, d->text + i, e - i);
			i = e;
		} else {
			i++;
		}
	}
}

/* The indentation of a block scalar's content, or 0 when none shows. */
static size_t block_indent(const struct doc *d, const struct node *c)
{
	const char *nl = memchr(d->text + c->body, '\n', c->end - c->body);
	size_t i, n;

	if (!nl)
		return 0;
	for (i = (size_t)(nl - d->text) + 1; i < c->end; i++) {
		for (n = 0; i < c->end && d->text[i] == ' '; i++)
			n++;
		if (i < c->end && d->text[i] != '\n' && d->text[i] != '\r')
			return n;
		while (i < c->end && d->text[i] != '\n')
			i++;
	}
	return 0;
}

/* A block scalar's header comment ("| # comment"), kept on its line. */
static void add_header_comment(const struct doc *d, const struct node *c, struct tk_buf *out)
{
	size_t i = c->body, e;

	while (i < c->end && d->text[i] != '\n' && d->text[i] != '#')
		i++;
	if (i >= c->end || d->text[i] != '#')
		return;
	for (e = i; e < c->end && d->text[e] != '\n' && d->text[e] != '\r'; e++)
		;
	tk_buf_adds(out, " ");
	tk_buf_add(out, d->text + i, e - i);
}

/* An anchor inside [start, end) that an alias outside uses: rewriting the
 * range would leave that alias dangling. */
static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int anchors_escape(struct doc *d, size_t start, size_t end)
{
	size_t i, lo, hi;

	if (!d->refs_sorted) {
		/* every alias as (where its anchor is, where it is) */
		for (i = 0; i < d->nr_nodes; i++) {
			if (d->nodes[i].kind != N_ALIAS)
				continue;
			TK_ALLOC_GROW(d->refs, d->nr_refs + 1, d->alloc_refs);
			d->refs[d->nr_refs].start = d->nodes[d->nodes[i].target].start;
			d->refs[d->nr_refs].end = d->nodes[i].start;
			d->nr_refs++;
		}
		if (d->nr_refs)
			qsort(d->refs, d->nr_refs, sizeof(*d->refs), cmp_span);
		d->refs_sorted = 1;
	}
	lo = 0;
	hi = d->nr_refs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->refs[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < d->nr_refs && d->refs[i].start < end; i++)
		if (d->refs[i].end < start || d->refs[i].end >= end)
			return 1;
	return 0;
}

static void add_edit(struct doc *d, size_t start, size_t end, struct tk_buf *text)
{
	struct edit *e;

	TK_ALLOC_GROW(d->edits, d->nr_edits + 1, d->alloc_edits);
	e = &d->edits[d->nr_edits++];
	e->start = start;
	e->end = end;
	e->text = tk_buf_detach(text, &e->len);
}

/* Rewrites command node cmd as the wrapped command w. */
static int rewrite(struct doc *d, size_t cmd, const struct tk_buf *w)
{
	const struct node *c = &d->nodes[cmd];
	struct tk_buf out = TK_BUF_INIT;
	size_t start = c->body, end = c->end, i, indent, nl;
	int block = c->style == YAML_LITERAL_SCALAR_STYLE || c->style == YAML_FOLDED_SCALAR_STYLE;
	int literal = literal_ok(w->buf, w->len);

	if (c->kind == N_SCALAR) {
		if (start >= end)
			return -1;
		/* "&a:x" is an anchor and the scalar ":x"; "&a\"x\"" is no YAML */
		if (start > c->start && !strchr(" \t\r\n", d->text[start - 1]))
			tk_buf_addch(&out, ' ');
		indent = block ? block_indent(d, c) : 0;
		if (block && literal && indent) {
			tk_buf_adds(&out, "|-");
			add_header_comment(d, c, &out);
			tk_buf_addch(&out, '\n');
			add_literal_lines(&out, w->buf, w->len, indent);
			nl = trailing_newlines(d, start, end);
			for (i = 1; i < nl; i++)
				tk_buf_addch(&out, '\n');
		} else {
			add_double_quoted(&out, w->buf, w->len);
			if (block) {
				add_header_comment(d, c, &out);
				nl = trailing_newlines(d, start, end);
				for (i = 0; i < (nl ? nl : 1); i++)
					tk_buf_addch(&out, '\n');
			}
		}
	} else if (c->style == YAML_FLOW_SEQUENCE_STYLE) {
		if (start >= end || d->text[start] != '[')
			return -1;
		tk_buf_addch(&out, '[');
		add_double_quoted(&out, w->buf, w->len);
		tk_buf_addch(&out, ']');
	} else {
		const struct node *last = &d->nodes[c->kids[c->nr_kids - 1]];
		struct tk_buf comments = TK_BUF_INIT;
		int ends_line;

		if (start >= d->len || d->text[start] != '-')
			return -1;
		for (i = 0; i + 1 < c->nr_kids; i++)
			move_comments(d, d->nodes[c->kids[i]].end, d->nodes[c->kids[i + 1]].start,
				      c->body_col, &comments);
		end = last->end;
		ends_line = end > 0 && d->text[end - 1] == '\n';
		nl = ends_line ? trailing_newlines(d, start, end) : 0;
		if (!ends_line) {
			/* the last item's comment, on its line */
			size_t e = end;

			while (e < d->len && d->text[e] != '\n' && d->text[e] != '\r')
				e++;
			move_comments(d, end, e, c->body_col, &comments);
			end = e;
		}
		tk_buf_adds(&out, "- ");
		if (literal) {
			tk_buf_adds(&out, "|-\n");
			add_literal_lines(&out, w->buf, w->len, c->body_col + 2);
			tk_buf_setlen(&out, out.len - 1);
		} else {
			add_double_quoted(&out, w->buf, w->len);
		}
		tk_buf_add(&out, comments.buf, comments.len);
		for (i = 0; i < nl; i++)
			tk_buf_addch(&out, '\n');
		tk_buf_release(&comments);
	}
	if (anchors_escape(d, start, end)) {
		tk_buf_release(&out);
		return -2;
	}
	add_edit(d, start, end, &out);
	return 0;
}

static void wrap_used(struct doc *d)
{
	size_t i, j;

	for (i = 0; i < d->nr_used; i++) {
		struct node *c = &d->nodes[d->used[i]];
		struct tk_buf script = TK_BUF_INIT, w = TK_BUF_INIT;
		int r;

		if (c->visits != c->uses) {
			warn(d, c->step_line, c->key,
			     "its command (line %zu) is also used through an alias or merge key "
			     "where tracker does not wrap it; left as it is", c->line + 1);
			d->stats->left += c->uses;
			continue;
		}
		script_of(d, d->used[i], &script);
		tk_buf_adds(&w, "tracker run ");
		if (!c->mixed) {
			tk_buf_adds(&w, "--key ");
			tk_sh_quote(&w, c->key, strlen(c->key));
			tk_buf_addch(&w, ' ');
		}
		tk_buf_adds(&w, "-- bash -e -c '");
		for (j = 0; j < script.len; j++) {
			if (script.buf[j] == '\'')
				tk_buf_adds(&w, "'\\''");
			else
				tk_buf_addch(&w, script.buf[j]);
		}
		tk_buf_addch(&w, '\'');
		if (has_command(script.buf, script.len, "srun", NULL) ||
		    has_command(script.buf, script.len, "mpiexec", NULL) ||
		    has_command(script.buf, script.len, "mpirun", NULL))
			warn(d, c->step_line, c->key,
			     "its command starts MPI ranks (srun, mpiexec or mpirun): wrapped, "
			     "tracker measures the launcher and not the ranks; for the ranks, write "
			     "'srun tracker run --per-rank ... -- CMD' into the command");
		r = rewrite(d, d->used[i], &w);
		if (r == -2) {
			warn(d, c->step_line, c->key,
			     "its command defines an anchor used elsewhere; left as it is");
			d->stats->left += c->uses;
		} else if (r) {
			warn(d, c->step_line, c->key, "cannot rewrite its command; left as it is");
			d->stats->left += c->uses;
		} else {
			d->stats->wrapped += c->uses;
		}
		tk_buf_release(&script);
		tk_buf_release(&w);
	}
}

static int cmp_edit(const void *a, const void *b)
{
	const struct edit *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int tk_pipewrap(const char *name, const char *text, size_t len,
		const struct tk_pipewrap_opts *opts, struct tk_buf *out,
		struct tk_pipewrap_stats *stats, struct tk_err *err)
{
	static const struct tk_pipewrap_opts no_opts;
	struct tk_pipewrap_stats no_stats;
	struct doc d;
	size_t i, pos;
	int ret;

	memset(&d, 0, sizeof(d));
	memset(&no_stats, 0, sizeof(no_stats));
	d.name = name;
	d.text = text;
	d.len = len;
	d.opts = opts ? opts : &no_opts;
	d.stats = stats ? stats : &no_stats;
	memset(d.stats, 0, sizeof(*d.stats));
	d.err = err;
	if (len > TK_PIPEWRAP_MAX_BYTES)
		return tk_err_set(err, TK_EDATA, "%s: larger than %u bytes", name,
				  TK_PIPEWRAP_MAX_BYTES);
	if (len >= 2 && ((text[0] == '\xfe' && text[1] == '\xff') ||
			 (text[0] == '\xff' && text[1] == '\xfe')))
		return tk_err_set(err, TK_EDATA, "%s: UTF-16 text; a pipeline is read as UTF-8",
				  name);
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		d.bom = 3;
	map_chars(&d);
	if (d.opts->keys)
		d.key_seen = tk_xcalloc(d.opts->nr_keys ? d.opts->nr_keys : 1, 1);
	ret = parse(&d);
	if (!ret)
		ret = scan_scalars(&d);
	if (ret)
		goto out;
	find_scalar_bodies(&d);
	for (i = 0; !ret && i < d.nr_roots; i++)
		ret = count_visits(&d, d.roots[i]);
	for (i = 0; !ret && i < d.nr_roots; i++) {
		size_t root = resolve(&d, d.roots[i]), steps = root;

		if (d.nodes[root].kind == N_MAP)
			steps = lookup(&d, root, "steps", 0, &ret);
		if (steps != SIZE_MAX && !ret)
			ret = walk_steps(&d, steps, 0);
	}
	if (ret)
		goto out;
	wrap_used(&d);
	for (i = 0; d.opts->keys && i < d.opts->nr_keys; i++)
		if (!d.key_seen[i])
			warn(&d, SIZE_MAX, NULL, "no command step has the key '%s'",
			     d.opts->keys[i]);
	if (d.nr_edits)
		qsort(d.edits, d.nr_edits, sizeof(*d.edits), cmp_edit);
	pos = 0;
	for (i = 0; i < d.nr_edits; i++) {
		if (d.edits[i].start < pos)
			continue; /* overlapping: cannot happen (anchors_escape) */
		tk_buf_add(out, text + pos, d.edits[i].start - pos);
		tk_buf_add(out, d.edits[i].text, d.edits[i].len);
		pos = d.edits[i].end;
	}
	tk_buf_add(out, text + pos, len - pos);
out:
	doc_release(&d);
	return ret;
}
