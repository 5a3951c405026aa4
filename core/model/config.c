/*
 * .tracker.yml: libyaml events -> a small node tree -> struct tk_config.
 *
 * We build our own tree from the event stream instead of using libyaml's
 * document loader because the loader neither bounds nesting nor reports
 * duplicate keys, and we want every error to point at a line and column.
 * Aliases point at the anchored node (no copying), so the walk below is
 * bounded by the fixed shape of the schema plus a budget of visited nodes,
 * which keeps "billion laughs" documents cheap to reject.
 *
 * A mistake in one setting (an unknown or misspelled field, a value of the
 * wrong type, a duplicate) is a warning at its line and only that setting
 * is dropped: one typo must not silently take `db:` with it and send the
 * runs to another database. Only a document that cannot be read as a
 * whole (YAML syntax, aliases, limits, a top level that is no mapping) is
 * an error.
 */
#include "core/model/config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "core/base/buf.h"
#include "core/base/env.h"
#include "core/model/run.h"
#include "core/base/timeutil.h"
#include "core/base/suggest.h"
#include "core/model/metric.h"
#include "core/base/banned.h"

#define CONFIG_MAX_BYTES (1024 * 1024)
#define CONFIG_MAX_DEPTH 64
#define CONFIG_MAX_ENTRIES 10000   /* per mapping, after merge keys */
#define CONFIG_MAX_VISITS 1000000  /* nodes visited by the walk, aliases included */

enum node_kind { NODE_SCALAR, NODE_SEQ, NODE_MAP, NODE_ALIAS };

struct node {
	enum node_kind kind;
	size_t line, col;  /* 0-based, as libyaml marks them */
	int closed;        /* its end event has been seen */
	char *value;       /* scalar text */
	int plain;         /* scalar was unquoted (so ~, null and "" are null) */
	size_t *kids;      /* seq: items; map: key, value, key, value... */
	size_t nr_kids, alloc_kids;
	size_t target;     /* alias: the anchored node */
};

struct anchor {
	char *name;
	size_t node;
};

struct warning {
	size_t line, col;
	char *msg;
};

struct doc {
	struct warning *warnings; /* sorted by position into the config */
	size_t nr_warnings, alloc_warnings;
	const char *name;
	const char *text;
	size_t len;
	struct tk_err *err;
	struct node *nodes;
	size_t nr_nodes, alloc_nodes;
	struct anchor *anchors;
	size_t nr_anchors, alloc_anchors;
	size_t root;       /* (size_t)-1: empty document */
	size_t visits;
};

/* A mapping entry after merge keys are applied. */
struct entry {
	const struct node *key_at; /* the key as written (its position) */
	const struct node *key;    /* the scalar it resolves to */
	const struct node *value;  /* as written: may be an alias */
};

struct entries {
	struct entry *items;
	size_t nr, alloc;
};

#define NO_NODE ((size_t)-1)

static int fail_at(struct doc *d, size_t line, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail_at(struct doc *d, size_t line, size_t col, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	tk_err_set(d->err, TK_EDATA, "%s:%zu:%zu: %s", d->name, line + 1, col + 1,
		   msg.buf);
	tk_buf_release(&msg);
	return TK_EDATA;
}

#define fail(d, n, ...) fail_at((d), (n)->line, (n)->col, __VA_ARGS__)

/* A mistake local to one setting: noted, the setting dropped, 0 returned. */
static int warn(struct doc *d, const struct node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int warn(struct doc *d, const struct node *n, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	struct warning *w;
	va_list ap;

	tk_buf_addf(&msg, "%s:%zu:%zu: ", d->name, n->line + 1, n->col + 1);
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	TK_ALLOC_GROW(d->warnings, d->nr_warnings + 1, d->alloc_warnings);
	w = &d->warnings[d->nr_warnings++];
	w->line = n->line;
	w->col = n->col;
	w->msg = tk_buf_detach(&msg, NULL);
	return 0;
}

static int by_position(const void *a, const void *b)
{
	const struct warning *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return 0;
}

/* The walk finds duplicates before the fields of a mapping: file order. */
static void take_warnings(struct doc *d, struct tk_config *c)
{
	size_t i;

	if (d->nr_warnings)
		qsort(d->warnings, d->nr_warnings, sizeof(*d->warnings), by_position);
	for (i = 0; i < d->nr_warnings; i++) {
		TK_ALLOC_GROW(c->warnings, c->nr_warnings + 1, c->alloc_warnings);
		c->warnings[c->nr_warnings++] = d->warnings[i].msg;
		d->warnings[i].msg = NULL;
	}
}

/* The field of fields[] nearest to name, or NULL when none is near. */
static const char *nearest(const char *name, const char *const *fields)
{
	const char *best = NULL;
	size_t best_d = 99, n = strlen(name);

	for (; *fields; fields++) {
		size_t d = tk_edit_distance(name, *fields);

		if (d < best_d) {
			best_d = d;
			best = *fields;
		}
	}
	return best && (best_d <= 2 || best_d * 3 <= n) ? best : NULL;
}

static const char *const top_fields[] = { "db", "artifacts", "baseline_branch", "keys",
					  "machine_class", "check", NULL };
static const char *const key_fields[] = { "baseline_branch", "timeout", "tags",
					  "machine_class", NULL };

static int in_list(const char *name, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(name, *list))
			return 1;
	return 0;
}

/* "unknown field 'timout' in key 'amip' (did you mean 'timeout'?); ignored" */
static int unknown_field(struct doc *d, const struct node *at, const char *field,
			 const char *key)
{
	const char *const *fields = key ? key_fields : top_fields;
	const char *near = nearest(field, fields);
	struct tk_buf where = TK_BUF_INIT;
	int ret;

	if (key)
		tk_buf_addf(&where, " in key '%s'", key);
	if (near)
		ret = warn(d, at, "unknown field '%s'%s (did you mean '%s'?); ignored",
			   field, where.buf, near);
	else if (!key && in_list(field, key_fields))
		ret = warn(d, at, "'%s' is a per-key setting: put it under keys: NAME:; "
			   "ignored", field);
	else if (!key && (near = nearest(field, key_fields)))
		ret = warn(d, at, "unknown field '%s' (did you mean '%s'? it is a per-key "
			   "setting, under keys: NAME:); ignored", field, near);
	else if (key)
		ret = warn(d, at, "unknown field '%s'%s (expected baseline_branch, timeout, "
			   "tags or machine_class); ignored", field, where.buf);
	else
		ret = warn(d, at, "unknown field '%s' (expected db, artifacts, "
			   "baseline_branch, keys, machine_class or check); ignored", field);
	tk_buf_release(&where);
	return ret;
}

static void doc_release(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nr_nodes; i++) {
		free(d->nodes[i].value);
		free(d->nodes[i].kids);
	}
	free(d->nodes);
	for (i = 0; i < d->nr_anchors; i++)
		free(d->anchors[i].name);
	free(d->anchors);
	for (i = 0; i < d->nr_warnings; i++)
		free(d->warnings[i].msg);
	free(d->warnings);
}

/* ---- events -> nodes ---- */

static int syntax_error(struct doc *d, yaml_parser_t *p)
{
	struct tk_buf msg = TK_BUF_INIT;
	size_t line = p->problem_mark.line, col = p->problem_mark.column, i;
	int ret;

	if (p->error == YAML_MEMORY_ERROR)
		return tk_err_set(d->err, TK_EINTERNAL, "%s: out of memory parsing YAML",
				  d->name);
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
	if (p->error != YAML_READER_ERROR && p->problem_mark.index < d->len &&
	    d->text[p->problem_mark.index] == '\t')
		tk_buf_adds(&msg, " (a tab: YAML is indented with spaces only)");
	ret = fail_at(d, line, col, "%s", msg.buf);
	tk_buf_release(&msg);
	return ret;
}

static size_t new_node(struct doc *d, enum node_kind kind, const yaml_mark_t *m)
{
	struct node *n;

	TK_ALLOC_GROW(d->nodes, d->nr_nodes + 1, d->alloc_nodes);
	n = &d->nodes[d->nr_nodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->line = m->line;
	n->col = m->column;
	n->target = NO_NODE;
	return d->nr_nodes++;
}

static void add_anchor(struct doc *d, const yaml_char_t *name, size_t node)
{
	if (!name)
		return;
	TK_ALLOC_GROW(d->anchors, d->nr_anchors + 1, d->alloc_anchors);
	d->anchors[d->nr_anchors].name = tk_xstrdup((const char *)name);
	d->anchors[d->nr_anchors].node = node;
	d->nr_anchors++;
}

/* The latest definition of an anchor wins, as YAML says. */
static size_t find_anchor(const struct doc *d, const char *name)
{
	size_t i = d->nr_anchors;

	while (i-- > 0)
		if (!strcmp(d->anchors[i].name, name))
			return d->anchors[i].node;
	return NO_NODE;
}

/* Attaches node to the open collection on top of the stack (or as root). */
static void attach(struct doc *d, const size_t *stack, size_t depth, size_t node)
{
	struct node *parent;

	if (!depth) {
		d->root = node;
		return;
	}
	parent = &d->nodes[stack[depth - 1]];
	TK_ALLOC_GROW(parent->kids, parent->nr_kids + 1, parent->alloc_kids);
	parent->kids[parent->nr_kids++] = node;
}

static int handle_event(struct doc *d, const yaml_event_t *ev, size_t *stack,
			size_t *depth, int *docs)
{
	const yaml_mark_t *m = &ev->start_mark;
	size_t n, target;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		*docs += 1;
		if (*docs > 1)
			return fail_at(d, m->line, m->column,
				       "a second YAML document; the config is one document");
		return 0;
	case YAML_SCALAR_EVENT:
		n = new_node(d, NODE_SCALAR, m);
		d->nodes[n].value = tk_xstrndup((const char *)ev->data.scalar.value,
						ev->data.scalar.length);
		d->nodes[n].plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		d->nodes[n].closed = 1;
		add_anchor(d, ev->data.scalar.anchor, n);
		attach(d, stack, *depth, n);
		return 0;
	case YAML_ALIAS_EVENT:
		target = find_anchor(d, (const char *)ev->data.alias.anchor);
		if (target == NO_NODE)
			return fail_at(d, m->line, m->column, "undefined alias '*%s'",
				       (const char *)ev->data.alias.anchor);
		if (!d->nodes[target].closed)
			return fail_at(d, m->line, m->column,
				       "alias '*%s' refers to a node that contains it",
				       (const char *)ev->data.alias.anchor);
		n = new_node(d, NODE_ALIAS, m);
		d->nodes[n].target = target;
		d->nodes[n].closed = 1;
		attach(d, stack, *depth, n);
		return 0;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		if (*depth >= CONFIG_MAX_DEPTH)
			return fail_at(d, m->line, m->column,
				       "nesting deeper than %d levels", CONFIG_MAX_DEPTH);
		n = new_node(d, ev->type == YAML_SEQUENCE_START_EVENT ? NODE_SEQ : NODE_MAP, m);
		add_anchor(d, ev->type == YAML_SEQUENCE_START_EVENT ?
			   ev->data.sequence_start.anchor : ev->data.mapping_start.anchor, n);
		attach(d, stack, *depth, n);
		stack[(*depth)++] = n;
		return 0;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (*depth)
			d->nodes[stack[--*depth]].closed = 1;
		return 0;
	default:
		return 0;
	}
}

static int build(struct doc *d)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t stack[CONFIG_MAX_DEPTH], depth = 0;
	int docs = 0, ret = 0, done = 0;

	if (!yaml_parser_initialize(&parser))
		return tk_err_set(d->err, TK_EINTERNAL, "%s: cannot initialise the YAML parser",
				  d->name);
	yaml_parser_set_input_string(&parser, (const unsigned char *)d->text, d->len);
	while (!done && !ret) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ret = syntax_error(d, &parser);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		ret = handle_event(d, &ev, stack, &depth, &docs);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return ret;
}

/* ---- nodes -> config ---- */

static const char *kind_name(enum node_kind k)
{
	switch (k) {
	case NODE_SCALAR:
		return "a scalar";
	case NODE_SEQ:
		return "a sequence";
	case NODE_MAP:
		return "a mapping";
	default:
		return "an alias";
	}
}

/* Follows an alias; counts the visit against the budget. */
static const struct node *deref(struct doc *d, const struct node *n)
{
	d->visits++;
	while (n->kind == NODE_ALIAS)
		n = &d->nodes[n->target];
	return n;
}

static int over_budget(struct doc *d, const struct node *at)
{
	if (d->visits <= CONFIG_MAX_VISITS)
		return 0;
	return fail(d, at, "too many values once aliases are expanded (more than %d)",
		    CONFIG_MAX_VISITS);
}

static int is_null(const struct node *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	size_t i;

	if (n->kind != NODE_SCALAR || !n->plain)
		return 0;
	for (i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!strcmp(n->value, nulls[i]))
			return 1;
	return 0;
}

static int merge_into(struct doc *d, struct entries *out,
		      const struct node *at, const struct node *src);

static void add_entry(struct entries *out, const struct node *key_at,
		      const struct node *key, const struct node *value)
{
	TK_ALLOC_GROW(out->items, out->nr + 1, out->alloc);
	out->items[out->nr].key_at = key_at;
	out->items[out->nr].key = key;
	out->items[out->nr].value = value;
	out->nr++;
}

/*
 * The entries of mapping m: its own keys (a duplicate is an error), then
 * those of YAML merge keys ("<<: *defaults") that it does not set itself.
 */
static int flatten(struct doc *d, const struct node *m, struct entries *out)
{
	size_t i, j;
	int ret;

	for (i = 0; i + 1 < m->nr_kids; i += 2) {
		const struct node *key = deref(d, &d->nodes[m->kids[i]]);

		int dup = 0;

		if (key->kind != NODE_SCALAR) {
			warn(d, &d->nodes[m->kids[i]],
			     "a mapping key must be a plain string, not %s; ignored",
			     kind_name(key->kind));
			continue;
		}
		if (key->plain && !strcmp(key->value, "<<"))
			continue;
		for (j = 0; j < out->nr && !dup; j++)
			if (!strcmp(out->items[j].key->value, key->value)) {
				warn(d, &d->nodes[m->kids[i]],
				     "duplicate key '%s' (first at %zu:%zu, which is used); "
				     "ignored", key->value, out->items[j].key_at->line + 1,
				     out->items[j].key_at->col + 1);
				dup = 1;
			}
		if (dup)
			continue;
		if (out->nr >= CONFIG_MAX_ENTRIES)
			return fail(d, key, "more than %d entries in one mapping",
				    CONFIG_MAX_ENTRIES);
		add_entry(out, &d->nodes[m->kids[i]], key, &d->nodes[m->kids[i + 1]]);
	}
	for (i = 0; i + 1 < m->nr_kids; i += 2) {
		const struct node *key = deref(d, &d->nodes[m->kids[i]]);
		const struct node *at = &d->nodes[m->kids[i + 1]];
		const struct node *v = deref(d, at);

		if (key->kind != NODE_SCALAR || !key->plain || strcmp(key->value, "<<"))
			continue;
		if (v->kind == NODE_SEQ) {
			for (j = 0; j < v->nr_kids; j++) {
				ret = merge_into(d, out, &d->nodes[v->kids[j]],
						 deref(d, &d->nodes[v->kids[j]]));
				if (ret)
					return ret;
			}
		} else {
			ret = merge_into(d, out, at, v);
			if (ret)
				return ret;
		}
	}
	return over_budget(d, m);
}

/* Adds src's entries whose keys are not yet in out. Merged mappings may not
 * nest merges themselves: it keeps the walk simple and bounded. */
static int merge_into(struct doc *d, struct entries *out,
		      const struct node *at, const struct node *src)
{
	size_t i, j;

	if (src->kind != NODE_MAP)
		return warn(d, at, "a merge key '<<' takes a mapping, not %s; ignored",
			    kind_name(src->kind));
	for (i = 0; i + 1 < src->nr_kids; i += 2) {
		const struct node *key = deref(d, &d->nodes[src->kids[i]]);
		int seen = 0;

		if (key->kind != NODE_SCALAR) {
			warn(d, &d->nodes[src->kids[i]],
			     "a mapping key must be a plain string, not %s; ignored",
			     kind_name(key->kind));
			continue;
		}
		if (key->plain && !strcmp(key->value, "<<"))
			return fail(d, key, "nested merge keys are not supported");
		for (j = 0; j < out->nr && !seen; j++)
			seen = !strcmp(out->items[j].key->value, key->value);
		if (seen)
			continue;
		if (out->nr >= CONFIG_MAX_ENTRIES)
			return fail(d, key, "more than %d entries in one mapping",
				    CONFIG_MAX_ENTRIES);
		add_entry(out, &d->nodes[src->kids[i]], key, &d->nodes[src->kids[i + 1]]);
	}
	return over_budget(d, at);
}

/* A string setting: a scalar, or null (left unset). */
static int get_string(struct doc *d, const struct entry *e, char **out)
{
	const struct node *v = deref(d, e->value);
	const char *name = e->key->value;

	if (v->kind != NODE_SCALAR)
		return warn(d, e->value, "'%s' must be a string, not %s; ignored", name,
			    kind_name(v->kind));
	free(*out);
	*out = is_null(v) ? NULL : tk_xstrdup(v->value);
	return 0;
}

static int read_tags(struct doc *d, const struct entry *e, struct tk_kvlist *tags)
{
	const struct node *v = deref(d, e->value);
	struct entries list = { NULL, 0, 0 };
	struct tk_err terr = TK_ERR_INIT;
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != NODE_MAP)
		return warn(d, e->value, "'tags' must be a mapping of name: value, not %s; "
			    "ignored", kind_name(v->kind));
	ret = flatten(d, v, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct node *k = list.items[i].key;
		const struct node *val = deref(d, list.items[i].value);

		if (!*k->value)
			ret = warn(d, list.items[i].key_at, "a tag name cannot be empty; ignored");
		else if (val->kind != NODE_SCALAR)
			ret = warn(d, list.items[i].value, "tag '%s' must be a string, not %s; "
				   "ignored", k->value, kind_name(val->kind));
		else if (tk_run_check_tag(k->value, is_null(val) ? "" : val->value, &terr))
			ret = warn(d, list.items[i].key_at, "%s; ignored", terr.msg);
		else
			tk_kvlist_set(tags, k->value, is_null(val) ? "" : val->value);
	}
	free(list.items);
	return ret;
}

static int read_timeout(struct doc *d, const struct entry *e, double *out)
{
	const struct node *v = deref(d, e->value);
	struct tk_err perr = TK_ERR_INIT;
	double t;

	if (is_null(v)) {
		*out = 0;
		return 0;
	}
	if (v->kind != NODE_SCALAR)
		return warn(d, e->value, "'timeout' must be a duration such as 90s or 2h, "
			    "not %s; ignored", kind_name(v->kind));
	if (tk_parse_duration(v->value, &t, &perr))
		return warn(d, e->value, "bad timeout '%s': %s; ignored", v->value,
			    perr.msg[0] ? perr.msg : "not a duration");
	if (t < 0)
		return warn(d, e->value, "bad timeout '%s': must not be negative; ignored",
			    v->value);
	*out = t;
	return 0;
}

static int read_key(struct doc *d, const struct entry *e, struct tk_key_config *kc)
{
	const struct node *v = deref(d, e->value);
	const char *name = e->key->value;
	struct entries list = { NULL, 0, 0 };
	size_t i;
	int ret = 0;

	if (is_null(v))
		return 0;
	if (v->kind != NODE_MAP)
		return warn(d, e->value, "settings of key '%s' must be a mapping, not %s; "
			    "ignored", name, kind_name(v->kind));
	ret = flatten(d, v, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct entry *f = &list.items[i];
		const char *field = f->key->value;

		if (!strcmp(field, "baseline_branch"))
			ret = get_string(d, f, &kc->baseline_branch);
		else if (!strcmp(field, "timeout"))
			ret = read_timeout(d, f, &kc->timeout_s);
		else if (!strcmp(field, "tags"))
			ret = read_tags(d, f, &kc->tags);
		else if (!strcmp(field, "machine_class"))
			ret = get_string(d, f, &kc->machine_class);
		else
			ret = unknown_field(d, f->key_at, field, name);
	}
	free(list.items);
	return ret;
}

static void key_release(struct tk_key_config *kc)
{
	free(kc->key);
	free(kc->baseline_branch);
	free(kc->machine_class);
	tk_kvlist_release(&kc->tags);
	memset(kc, 0, sizeof(*kc));
}

static int read_keys(struct doc *d, const struct entry *e, struct tk_config *c)
{
	const struct node *v = deref(d, e->value);
	struct entries list = { NULL, 0, 0 };
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != NODE_MAP)
		return warn(d, e->value,
			    "'keys' must be a mapping of key name to settings, not %s; ignored",
			    kind_name(v->kind));
	ret = flatten(d, v, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct node *k = list.items[i].key;
		struct tk_key_config *kc;

		if (!*k->value) {
			warn(d, list.items[i].key_at, "a key name cannot be empty; ignored");
			continue;
		}
		TK_ALLOC_GROW(c->keys, c->nr_keys + 1, c->alloc_keys);
		kc = &c->keys[c->nr_keys++];
		memset(kc, 0, sizeof(*kc));
		kc->key = tk_xstrdup(k->value);
		ret = read_key(d, &list.items[i], kc);
	}
	free(list.items);
	return ret;
}

/* ---- check: ---- */

/* A positive number (threshold, min_effect, window); 0 and *out set, or a
 * warning and -1. */
static int get_number(struct doc *d, const struct entry *e, double *out)
{
	const struct node *v = deref(d, e->value);
	char *end;
	double x;

	if (v->kind != NODE_SCALAR || is_null(v)) {
		warn(d, e->value, "'%s' must be a number, not %s; ignored", e->key->value,
		     is_null(v) ? "null" : kind_name(v->kind));
		return -1;
	}
	x = strtod(v->value, &end);
	if (end == v->value || *end || !(x > 0) || x > 1e9) {
		warn(d, e->value, "'%s' must be a positive number, not '%s'; ignored",
		     e->key->value, v->value);
		return -1;
	}
	*out = x;
	return 0;
}

static int get_method(struct doc *d, const struct entry *e, int *set, int *method)
{
	const struct node *v = deref(d, e->value);
	enum tk_verdict_method m;

	if (v->kind != NODE_SCALAR || tk_verdict_method_parse(v->value, &m))
		return warn(d, e->value, "unknown method '%s' (expected interval, percent, "
			    "zscore or mannwhitney); ignored",
			    v->kind == NODE_SCALAR ? v->value : kind_name(v->kind));
	*set = 1;
	*method = (int)m;
	return 0;
}

static const char *const rule_fields[] = { "method", "threshold", "min_effect", NULL };

static int read_rule(struct doc *d, const struct entry *e, const char *key,
		     enum tk_metric metric, struct tk_config *c)
{
	const struct node *v = deref(d, e->value);
	struct entries list = { NULL, 0, 0 };
	struct tk_check_rule r;
	const struct node *threshold_at = NULL;
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != NODE_MAP)
		return warn(d, e->value, "'%s' must be a mapping such as { method: percent, "
			    "threshold: 15 }, not %s; ignored", e->key->value, kind_name(v->kind));
	memset(&r, 0, sizeof(r));
	r.metric = (int)metric;
	ret = flatten(d, v, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct entry *f = &list.items[i];
		const char *field = f->key->value;
		double x;

		if (!strcmp(field, "method"))
			ret = get_method(d, f, &r.method_set, &r.method);
		else if (!strcmp(field, "threshold")) {
			if (!get_number(d, f, &x)) {
				r.threshold = x;
				threshold_at = f->value;
			}
		} else if (!strcmp(field, "min_effect")) {
			if (!get_number(d, f, &x))
				r.min_effect = x / 100;
		} else {
			const char *near = nearest(field, rule_fields);

			if (near)
				ret = warn(d, f->key_at, "unknown field '%s' in check of %s "
					   "(did you mean '%s'?); ignored", field,
					   tk_metric_name(metric), near);
			else
				ret = warn(d, f->key_at, "unknown field '%s' in check of %s "
					   "(expected method, threshold or min_effect); ignored",
					   field, tk_metric_name(metric));
		}
	}
	free(list.items);
	if (!ret && threshold_at && r.threshold >= 0.5) {
		/* a level for the tests; the method is the rule's, else the
		 * file's when it came before, else the default interval */
		enum tk_verdict_method m = r.method_set ? r.method
					   : c->check.method_set ? c->check.method
					   : TK_VERDICT_INTERVAL;

		if (m == TK_VERDICT_INTERVAL || m == TK_VERDICT_MANNWHITNEY) {
			ret = warn(d, threshold_at, "the threshold of %s in check of %s is a test "
				   "level below 0.5, not %g; ignored", tk_verdict_method_name(m),
				   tk_metric_name(metric), r.threshold);
			r.threshold = 0;
		}
	}
	if (ret)
		return ret;
	r.key = key ? tk_xstrdup(key) : NULL;
	TK_ALLOC_GROW(c->check.rules, c->check.nr_rules + 1, c->check.alloc_rules);
	c->check.rules[c->check.nr_rules++] = r;
	return 0;
}

static const char *const metric_fields[] = { "walltime", "cpu", "maxrss", "tree_rss",
					     "alloc", "slurm_maxrss", NULL };

/* The metrics of one key (or, key NULL, of every key) */
static int read_metric_rules(struct doc *d, const struct entry *e, const char *key,
			     struct tk_config *c)
{
	const struct node *v = deref(d, e->value);
	struct entries list = { NULL, 0, 0 };
	enum tk_metric m;
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != NODE_MAP)
		return warn(d, e->value, "check settings of key '%s' must be a mapping of "
			    "metric to settings, not %s; ignored", key, kind_name(v->kind));
	ret = flatten(d, v, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct entry *f = &list.items[i];

		if (!tk_metric_parse(f->key->value, &m)) {
			ret = read_rule(d, f, key, m, c);
		} else {
			const char *near = nearest(f->key->value, metric_fields);

			ret = warn(d, f->key_at, "unknown metric '%s' in check of key '%s'%s%s%s; "
				   "ignored", f->key->value, key, near ? " (did you mean '" : "",
				   near ? near : "", near ? "'?)" : " (expected "
				   TK_METRIC_NAMES ")");
		}
	}
	free(list.items);
	return ret;
}

static const char *const check_fields[] = { "window", "method", "threshold", "keys",
					    "walltime", "cpu", "maxrss", "tree_rss",
					    "alloc", "slurm_maxrss", NULL };

static int read_check(struct doc *d, const struct entry *e, struct tk_config *c)
{
	const struct node *v = deref(d, e->value);
	struct entries list = { NULL, 0, 0 }, keys = { NULL, 0, 0 };
	enum tk_metric m;
	size_t i, k;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != NODE_MAP)
		return warn(d, e->value, "'check' must be a mapping of settings, not %s; "
			    "ignored", kind_name(v->kind));
	ret = flatten(d, v, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct entry *f = &list.items[i];
		const char *field = f->key->value;
		double x;

		if (!strcmp(field, "window")) {
			if (!get_number(d, f, &x)) {
				if (x != (double)(size_t)x || x < TK_CHECK_WINDOW_MIN ||
				    x > TK_CHECK_WINDOW_MAX)
					warn(d, f->value, "'window' must be a whole number of runs "
					     "from %d to %d; ignored", TK_CHECK_WINDOW_MIN,
					     TK_CHECK_WINDOW_MAX);
				else
					c->check.window = (size_t)x;
			}
		} else if (!strcmp(field, "method")) {
			ret = get_method(d, f, &c->check.method_set, &c->check.method);
		} else if (!strcmp(field, "threshold")) {
			if (!get_number(d, f, &x))
				c->check.threshold = x;
		} else if (!tk_metric_parse(field, &m)) {
			ret = read_rule(d, f, NULL, m, c);
		} else if (!strcmp(field, "keys")) {
			const struct node *kv = deref(d, f->value);

			if (is_null(kv))
				continue;
			if (kv->kind != NODE_MAP) {
				ret = warn(d, f->value, "'keys' must be a mapping of key name to "
					   "metrics, not %s; ignored", kind_name(kv->kind));
				continue;
			}
			ret = flatten(d, kv, &keys);
			for (k = 0; !ret && k < keys.nr; k++)
				ret = read_metric_rules(d, &keys.items[k],
							keys.items[k].key->value, c);
			free(keys.items);
			memset(&keys, 0, sizeof(keys));
		} else {
			const char *near = nearest(field, check_fields);

			ret = warn(d, f->key_at, "unknown field '%s' in check%s%s%s; ignored", field,
				   near ? " (did you mean '" : " (expected window, method, "
				   "threshold, keys or a metric name)", near ? near : "",
				   near ? "'?)" : "");
		}
	}
	free(list.items);
	return ret;
}

static int read_top(struct doc *d, struct tk_config *c)
{
	const struct node *root;
	struct entries list = { NULL, 0, 0 };
	size_t i;
	int ret;

	if (d->root == NO_NODE)
		return 0;
	root = deref(d, &d->nodes[d->root]);
	if (is_null(root))
		return 0;
	if (root->kind != NODE_MAP)
		return fail(d, root, "the top level must be a mapping of settings, not %s",
			    kind_name(root->kind));
	ret = flatten(d, root, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct entry *e = &list.items[i];
		const char *field = e->key->value;

		if (!strcmp(field, "db"))
			ret = get_string(d, e, &c->db);
		else if (!strcmp(field, "artifacts"))
			ret = get_string(d, e, &c->artifacts);
		else if (!strcmp(field, "baseline_branch"))
			ret = get_string(d, e, &c->baseline_branch);
		else if (!strcmp(field, "keys"))
			ret = read_keys(d, e, c);
		else if (!strcmp(field, "machine_class"))
			ret = get_string(d, e, &c->machine_class);
		else if (!strcmp(field, "check"))
			ret = read_check(d, e, c);
		else
			ret = unknown_field(d, e->key_at, field, NULL);
	}
	free(list.items);
	return ret;
}

/* ---- public ---- */

void tk_config_init(struct tk_config *c)
{
	memset(c, 0, sizeof(*c));
}

void tk_config_release(struct tk_config *c)
{
	size_t i;

	free(c->path);
	free(c->db);
	free(c->artifacts);
	free(c->baseline_branch);
	free(c->machine_class);
	for (i = 0; i < c->check.nr_rules; i++)
		free(c->check.rules[i].key);
	free(c->check.rules);
	for (i = 0; i < c->nr_keys; i++)
		key_release(&c->keys[i]);
	free(c->keys);
	for (i = 0; i < c->nr_warnings; i++)
		free(c->warnings[i]);
	free(c->warnings);
	memset(c, 0, sizeof(*c));
}

/* Replaces dst's contents by src's, keeping dst->path. */
static void config_move(struct tk_config *dst, struct tk_config *src)
{
	char *path = dst->path;

	dst->path = NULL;
	tk_config_release(dst);
	*dst = *src;
	dst->path = path;
	memset(src, 0, sizeof(*src));
}

int tk_config_parse(const char *text, size_t len, const char *name,
		    struct tk_config *c, struct tk_err *err)
{
	struct doc d;
	struct tk_config tmp;
	int ret;

	if (len > CONFIG_MAX_BYTES)
		return tk_err_set(err, TK_EDATA, "%s: larger than %d bytes", name,
				  CONFIG_MAX_BYTES);
	memset(&d, 0, sizeof(d));
	d.name = name;
	d.text = text;
	d.len = len;
	d.err = err;
	d.root = NO_NODE;
	tk_config_init(&tmp);
	ret = build(&d);
	if (!ret)
		ret = read_top(&d, &tmp);
	if (!ret)
		take_warnings(&d, &tmp);
	doc_release(&d);
	if (ret) {
		tk_config_release(&tmp);
		return ret;
	}
	config_move(c, &tmp);
	return 0;
}

/*
 * A relative path in a file that was found in a parent directory must not
 * depend on where tracker was started, so it is taken relative to the
 * file's directory, as git and most tools do with their config files.
 */
static void resolve_path(char **value, const char *config_path, int is_db)
{
	const char *v = *value, *slash = strrchr(config_path, '/');
	const char *prefix = "";
	struct tk_buf b = TK_BUF_INIT;

	if (!v || !*v || !slash)
		return;
	if (is_db) {
		if (strstr(v, "://"))
			return; /* a URL: no store takes it, say so later */
		if (!strncmp(v, "sqlite:", 7)) {
			prefix = "sqlite:";
			v += 7;
		}
	}
	if (*v == '/' || !*v)
		return;
	tk_buf_addf(&b, "%s%.*s/%s", prefix, (int)(slash - config_path),
		    config_path, v);
	free(*value);
	*value = tk_buf_detach(&b, NULL);
}

int tk_config_load(const char *path, struct tk_config *c, struct tk_err *err)
{
	struct tk_buf text = TK_BUF_INIT;
	int ret;

	text.cap = CONFIG_MAX_BYTES + 1;
	ret = tk_buf_read_file(&text, path, err);
	if (ret == TK_EDATA || (!ret && text.len > CONFIG_MAX_BYTES))
		ret = tk_err_set(err, TK_EDATA, "%s: larger than %d bytes", path,
				 CONFIG_MAX_BYTES);
	else if (ret) {
		/* A config file that was named or found but cannot be read is
		 * bad input, not an unavailable service. */
		tk_err_prefix(err, "config file");
		ret = TK_EDATA;
		if (err)
			err->code = ret;
	}
	if (!ret)
		ret = tk_config_parse(text.buf, text.len, path, c, err);
	tk_buf_release(&text);
	if (!ret) {
		free(c->path);
		c->path = tk_xstrdup(path);
		resolve_path(&c->db, path, 1);
		resolve_path(&c->artifacts, path, 0);
	}
	return ret;
}

static void append_cwd(struct tk_buf *out)
{
	size_t size = 256;

	for (;;) {
		tk_buf_grow(out, size);
		if (getcwd(out->buf + out->len, size)) {
			tk_buf_setlen(out, out->len + strlen(out->buf + out->len));
			return;
		}
		if (errno != ERANGE || size > 65536) {
			tk_buf_adds(out, ".");
			return;
		}
		size *= 2;
	}
}

int tk_config_find(const struct tk_env *env, struct tk_buf *out)
{
	struct tk_buf dir = TK_BUF_INIT, path = TK_BUF_INIT;
	const char *v;
	struct stat st;
	int found = 0;

	if (!env)
		env = &tk_env_process;
	v = tk_env_get(env, "TRACKER_CONFIG");
	if (v && *v) {
		/* Named explicitly: found even if missing, so load says why. */
		tk_buf_adds(out, v);
		return 1;
	}
	if (env->workdir && env->workdir[0] == '/') {
		tk_buf_adds(&dir, env->workdir);
	} else {
		append_cwd(&dir);
		if (env->workdir && *env->workdir)
			tk_buf_addf(&dir, "/%s", env->workdir);
	}
	while (dir.len > 1 && dir.buf[dir.len - 1] == '/')
		tk_buf_setlen(&dir, dir.len - 1);
	for (;;) {
		char *slash;

		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/.tracker.yml", dir.len == 1 && dir.buf[0] == '/' ? "" : dir.buf);
		if (!stat(path.buf, &st)) {
			tk_buf_add(out, path.buf, path.len);
			found = 1;
			break;
		}
		slash = strrchr(dir.buf, '/');
		if (!slash || dir.len <= 1)
			break;
		tk_buf_setlen(&dir, slash == dir.buf ? 1 : (size_t)(slash - dir.buf));
	}
	tk_buf_release(&dir);
	tk_buf_release(&path);
	return found;
}

const struct tk_key_config *tk_config_key(const struct tk_config *c, const char *key)
{
	size_t i;

	if (!key)
		return NULL;
	for (i = 0; i < c->nr_keys; i++)
		if (!strcmp(c->keys[i].key, key))
			return &c->keys[i];
	return NULL;
}
