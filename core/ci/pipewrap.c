/*
 * tracker pipeline wrap: the YAML tree with byte ranges (core/base/yaml.h)
 * -> the step commands to wrap -> the input text with those ranges
 * replaced.
 *
 * Why splice the text instead of emitting the parsed document: an emitter
 * loses comments, quoting styles, blank lines and the author's layout, and
 * a pipeline is a file people read. The tree gives every node's byte
 * range; only command values are rewritten.
 *
 * Why one `bash -e -c 'SCRIPT'` for the whole command: the agent joins a
 * `commands:` list with newlines and runs the result as one script with
 * its shell (`bash -e -c` by default), so `cd`, `export` and `set` in one
 * line reach the next. Wrapping each line on its own would lose that and
 * record one run per line. Single quotes keep every byte of the script
 * and the key cannot leave its quotes; a script the upload interpolates
 * (`$VAR`, `${VAR}`) goes in a quoted here-document instead, which a value
 * put in at upload cannot end (add_here_doc).
 *
 * Aliases and merge keys: every node counts the places Buildkite reads it
 * (visits, through aliases and merges, from steps:, env:, agents: and
 * notify: -- other top-level keys are where people keep anchors, which
 * Buildkite ignores), and the uses as a tracked step's command. A command
 * node is rewritten only when the two are equal, so rewriting the text
 * where it is defined changes no other value.
 */
#include "core/base/escape.h"
#include "core/ci/pipewrap.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/ci/ci.h"
#include "core/model/run.h"
#include "core/base/utf8.h"
#include "core/base/yaml.h"
#include "core/base/banned.h"

#define MAX_DEPTH 256          /* nesting of collections */
#define MAX_NODES 2000000
#define MAX_WORK 20000000      /* node visits and key comparisons */
#define MAX_ALIAS_DEPTH 512    /* merges, groups, aliases followed in a row */

static const struct tk_yaml_opts yaml_opts = {
	.limits = {
		.bytes = TK_PIPEWRAP_MAX_BYTES,
		.depth = MAX_DEPTH,
		.nodes = MAX_NODES,
		.work = MAX_WORK,
		.merge_depth = MAX_ALIAS_DEPTH,
		.entries = MAX_NODES, /* lookups only: nothing is flattened */
	},
	.one_document = NULL,         /* a pipeline may hold several */
};

/* What the walks note on a node, beside the tree. */
struct mark {
	int mixed;         /* tracked uses with different keys or tags */
	int matrix;        /* a tracked use is a matrix step's */
	size_t visits;     /* places Buildkite reads it */
	size_t uses;       /* as the command of a tracked step */
	char *name;        /* the first tracked use's step key, for messages */
	char *key;         /* its --key ("amip", "amip[{{matrix}}]") */
	char *tags;        /* its --tag words, each followed by a blank */
	size_t step_line;  /* and its step's line */
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
	struct tk_yaml y;
	struct mark *marks; /* one per node of y */
	size_t *used; /* command nodes with tracked uses, in order */
	size_t nr_used, alloc_used;
	struct edit *edits;
	size_t nr_edits, alloc_edits;
	struct span *refs; /* aliases: (anchor's start, alias's start) */
	size_t nr_refs, alloc_refs;
	int refs_sorted;
	char *key_seen; /* opts->keys[i] matched a step */
};

static void doc_release(struct doc *d)
{
	size_t i;

	for (i = 0; d->marks && i < d->y.nr_nodes; i++) {
		free(d->marks[i].name);
		free(d->marks[i].key);
		free(d->marks[i].tags);
	}
	free(d->marks);
	tk_yaml_release(&d->y);
	free(d->used);
	free(d->refs);
	for (i = 0; i < d->nr_edits; i++)
		free(d->edits[i].text);
	free(d->edits);
	free(d->key_seen);
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
		tk_text_escape_cut(&msg, key, strlen(key), 80);
		tk_buf_adds(&msg, "': ");
	}
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	d->opts->warn(d->opts->warn_arg, msg.buf);
	tk_buf_release(&msg);
}

/* ---- reading the tree: aliases and merge keys ---- */

static const struct tk_yaml_node *node(const struct doc *d, size_t n)
{
	return &d->y.nodes[n];
}

/* The node n stands for: an alias followed, at a step of the work budget. */
static size_t resolve(struct doc *d, size_t n)
{
	return tk_yaml_deref(&d->y, n);
}

static int is_scalar(struct doc *d, size_t n, const char *s)
{
	const struct tk_yaml_node *x = node(d, resolve(d, n));

	return x->kind == TK_YAML_SCALAR && x->len == strlen(s) && !memcmp(x->value, s, x->len);
}

/*
 * The value of key (len bytes) in map, merge keys followed
 * (tk_yaml_lookup). Returns TK_YAML_NONE when absent, or on an error
 * (*ret set); does nothing once *ret is set.
 */
static size_t lookup_key(struct doc *d, size_t map, const char *key, size_t len, int *ret)
{
	size_t v = TK_YAML_NONE;

	if (!*ret)
		*ret = tk_yaml_lookup(&d->y, map, key, len, &v, d->err);
	return *ret ? TK_YAML_NONE : v;
}

static size_t lookup(struct doc *d, size_t map, const char *key, int *ret)
{
	return lookup_key(d, map, key, strlen(key), ret);
}

static int visit(struct doc *d, size_t n, int depth);

/* The entries of map as Buildkite sees them: merged ones only where no
 * own or earlier entry has their key. */
static int visit_map(struct doc *d, size_t top, size_t map, int depth)
{
	const struct tk_yaml_node *m = node(d, map);
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i + 1 < m->nr_kids; i += 2) {
		size_t k = m->kids[i], v = m->kids[i + 1];
		const struct tk_yaml_node *src, *key;

		if (!tk_yaml_is_merge_key(&d->y, k)) {
			key = node(d, resolve(d, k));
			if (map == top || key->kind != TK_YAML_SCALAR) {
				ret = visit(d, v, depth + 1);
			} else if (lookup_key(d, top, key->value, key->len, &ret) == v && !ret) {
				ret = visit(d, v, depth + 1);
			}
			continue;
		}
		src = node(d, resolve(d, v));
		if (src->kind == TK_YAML_MAP) {
			ret = visit_map(d, top, resolve(d, v), depth + 1);
		} else if (src->kind == TK_YAML_SEQ) {
			for (j = 0; !ret && j < src->nr_kids; j++)
				if (node(d, resolve(d, src->kids[j]))->kind == TK_YAML_MAP)
					ret = visit_map(d, top, resolve(d, src->kids[j]),
							depth + 1);
		}
	}
	return ret;
}

static int visit(struct doc *d, size_t n, int depth)
{
	const struct tk_yaml_node *x;
	size_t i;
	int ret;

	if (depth > MAX_ALIAS_DEPTH + MAX_DEPTH)
		return tk_err_set(d->err, TK_EDATA, "%s: aliases nested too deep", d->name);
	ret = tk_yaml_charge(&d->y, 1, n, d->err);
	if (ret)
		return ret;
	n = resolve(d, n);
	x = node(d, n);
	d->marks[n].visits++;
	if (x->kind == TK_YAML_SEQ)
		for (i = 0; !ret && i < x->nr_kids; i++)
			ret = visit(d, x->kids[i], depth + 1);
	else if (x->kind == TK_YAML_MAP)
		ret = visit_map(d, n, n, depth);
	return ret;
}

/* Top-level keys Buildkite reads; the others only hold anchors. */
static int buildkite_reads(struct doc *d, size_t key)
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
	const struct tk_yaml_node *r = node(d, resolve(d, root));
	size_t i;
	int ret = 0;

	if (r->kind != TK_YAML_MAP)
		return visit(d, root, 0);
	for (i = 0; !ret && i + 1 < r->nr_kids; i += 2)
		if (buildkite_reads(d, r->kids[i]))
			ret = visit(d, r->kids[i + 1], 1);
	return ret;
}

/* ---- the steps ---- */

/* A scalar's value, or NULL for anything else and for empty ones. */
static const struct tk_yaml_node *scalar_of(struct doc *d, size_t map, const char *key, int *ret)
{
	size_t v = lookup(d, map, key, ret);
	const struct tk_yaml_node *x;

	if (v == TK_YAML_NONE)
		return NULL;
	x = node(d, resolve(d, v));
	return x->kind == TK_YAML_SCALAR && x->len ? x : NULL;
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
	size_t v = lookup(d, step, "plugins", ret), i;
	const struct tk_yaml_node *p;

	if (v == TK_YAML_NONE)
		return 0;
	p = node(d, resolve(d, v));
	for (i = 0; i < p->nr_kids; i++) {
		const struct tk_yaml_node *item = node(d, resolve(d, p->kids[i]));

		if (p->kind == TK_YAML_MAP && i % 2)
			continue;
		if (item->kind == TK_YAML_MAP && item->nr_kids)
			item = node(d, resolve(d, item->kids[0]));
		if (item->kind == TK_YAML_SCALAR &&
		    uses_tracker_plugin_name(item->value, item->len))
			return 1;
	}
	return 0;
}

/* The script the agent runs: the scalar, or the list joined by newlines.
 * Returns -1 for a list with an item that is no string. */
static int script_of(struct doc *d, size_t cmd, struct tk_buf *out)
{
	const struct tk_yaml_node *c = &d->y.nodes[cmd];
	size_t i;

	if (c->kind == TK_YAML_SCALAR)
		return tk_buf_add(out, c->value, c->len);
	for (i = 0; i < c->nr_kids; i++) {
		const struct tk_yaml_node *item = node(d, resolve(d, c->kids[i]));

		if (item->kind != TK_YAML_SCALAR)
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
static int is_null(const struct tk_yaml_node *x)
{
	return !x->len || (x->style == YAML_PLAIN_SCALAR_STYLE &&
			   (!strcmp(x->value, "~") || !strcmp(x->value, "null") ||
			    !strcmp(x->value, "Null") || !strcmp(x->value, "NULL")));
}

/* ---- matrix steps ---- */

/*
 * Buildkite makes a job of each combination of a matrix step's values and
 * puts the job's values, as text, where its command says {{matrix}} (a
 * list of values) or {{matrix.NAME}} (the dimensions of setup:), after
 * the upload. The wrapper's --key and --tag words hold those tokens
 * inside single quotes, so that each job gets a key and tags of its own.
 * That is safe only for values that cannot end the quotes nor make an
 * invalid key, and that the upload does not change into something
 * unknown: every value of setup: and adjustments: is checked here, and a
 * step with one that fails is left as it is.
 */

#define MAX_DIMS 32

struct dim {
	const char *name; /* NULL: the one dimension of a list of values */
	size_t longest;   /* bytes of its longest value */
};

struct matrix {
	struct dim dims[MAX_DIMS];
	size_t nr_dims;
	size_t line;       /* of what a warning is about */
	struct tk_buf why; /* why the step is left as it is */
};

/*
 * 1 when the upload's interpolation (buildkite-agent pipeline upload) may
 * put text of its own in s: a $NAME or ${...} that $$ or \$ does not
 * escape ("$(" it leaves to the shell).
 */
static int upload_expands(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		if (i + 1 < len && s[i + 1] &&
		    ((s[i] == '\\' && strchr("\\$", s[i + 1])) ||
		     (s[i] == '$' && strchr("$(", s[i + 1]))))
			i += 2;
		else if (s[i] == '$' && i + 1 < len)
			return 1;
		else
			i++;
	}
	return 0;
}

/* A dimension's name as Buildkite's {{matrix.NAME}} takes it. */
static int dim_name_ok(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || (s[i] && strchr("_.-", s[i]))))
			return 0;
	return len > 0;
}

/* "matrix" or "matrix.NAME": the tag of a dimension, and its token
 * inside {{ }}. */
static void add_dim_word(struct tk_buf *out, const struct dim *dim)
{
	tk_buf_adds(out, "matrix");
	if (dim->name) {
		tk_buf_addch(out, '.');
		tk_buf_adds(out, dim->name);
	}
}

/* Value n of dim: 0, or -1 with mx->why saying what is wrong with it. */
static int check_value(struct doc *d, struct matrix *mx, struct dim *dim, size_t n)
{
	const struct tk_yaml_node *x = node(d, resolve(d, n));
	struct tk_buf tag = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	int ret = -1;

	mx->line = x->line;
	if (x->kind != TK_YAML_SCALAR) {
		tk_buf_adds(&mx->why, "a value of its matrix is not a string, number or boolean");
		return -1;
	}
	add_dim_word(&tag, dim);
	if (memchr(x->value, '\0', x->len)) {
		tk_buf_adds(&mx->why, "its matrix value '");
		tk_text_escape_cut(&mx->why, x->value, x->len, 80);
		tk_buf_adds(&mx->why, "' holds a NUL character");
	} else if (tk_run_check_tag(tag.buf, x->value, &err)) {
		tk_buf_addf(&mx->why, "its matrix value would make an %s", err.msg);
	} else if (memchr(x->value, '\'', x->len)) {
		tk_buf_adds(&mx->why, "its matrix value '");
		tk_text_escape_cut(&mx->why, x->value, x->len, 80);
		tk_buf_adds(&mx->why, "' holds a single quote, which would end the quotes of "
			    "the key it is put in");
	} else if (upload_expands(x->value, x->len)) {
		tk_buf_adds(&mx->why, "its matrix value '");
		tk_text_escape_cut(&mx->why, x->value, x->len, 80);
		tk_buf_adds(&mx->why, "' is interpolated at upload ($NAME, ${NAME}), into "
			    "text not known here");
	} else {
		if (x->len > dim->longest)
			dim->longest = x->len;
		ret = 0;
	}
	tk_buf_release(&tag);
	return ret;
}

static int check_values(struct doc *d, struct matrix *mx, struct dim *dim, size_t seq)
{
	const struct tk_yaml_node *x = node(d, resolve(d, seq));
	size_t i;

	if (x->kind != TK_YAML_SEQ) {
		mx->line = x->line;
		tk_buf_adds(&mx->why, "a dimension of its matrix is not a list of values");
		return -1;
	}
	for (i = 0; i < x->nr_kids; i++)
		if (check_value(d, mx, dim, x->kids[i]))
			return -1;
	return 0;
}

/* The dimensions of a setup: mapping, and their values. Returns 0, -1
 * (mx->why set) or a negative code in *ret. */
static int setup_dims(struct doc *d, struct matrix *mx, size_t setup, int *ret)
{
	struct tk_yaml_entries e = { NULL, 0, 0 };
	size_t i;
	int r = 0;

	*ret = tk_yaml_flatten(&d->y, resolve(d, setup), &e, NULL, NULL, d->err);
	for (i = 0; !*ret && !r && i < e.nr; i++) {
		const struct tk_yaml_node *k = node(d, e.items[i].key);
		struct dim *dim = &mx->dims[mx->nr_dims];

		mx->line = k->line;
		if (!dim_name_ok(k->value, k->len)) {
			tk_buf_adds(&mx->why, "its matrix dimension '");
			tk_text_escape_cut(&mx->why, k->value, k->len, 80);
			tk_buf_adds(&mx->why, "' is not a name of letters, digits, '_', '-' and '.'");
			r = -1;
		} else if (mx->nr_dims == MAX_DIMS) {
			tk_buf_addf(&mx->why, "its matrix has more than %d dimensions", MAX_DIMS);
			r = -1;
		} else {
			dim->name = k->value;
			mx->nr_dims++;
			r = check_values(d, mx, dim, e.items[i].value);
		}
	}
	if (!*ret && !r && !mx->nr_dims) {
		tk_buf_adds(&mx->why, "its matrix setup: has no dimension");
		r = -1;
	}
	tk_yaml_entries_release(&e);
	return r;
}

/* The values of one adjustment's with: (a combination, maybe a new one). */
static int with_values(struct doc *d, struct matrix *mx, size_t with, int *ret)
{
	const struct tk_yaml_node *x = node(d, resolve(d, with));
	struct tk_yaml_entries e = { NULL, 0, 0 };
	size_t i, k;
	int r = 0;

	if (!mx->dims[0].name && x->kind == TK_YAML_SEQ)
		return check_values(d, mx, &mx->dims[0], with);
	if (!mx->dims[0].name && x->kind == TK_YAML_SCALAR)
		return check_value(d, mx, &mx->dims[0], with);
	if (!mx->dims[0].name || x->kind != TK_YAML_MAP) {
		mx->line = x->line;
		tk_buf_adds(&mx->why, "an adjustment's with: does not match its matrix setup:");
		return -1;
	}
	*ret = tk_yaml_flatten(&d->y, resolve(d, with), &e, NULL, NULL, d->err);
	for (i = 0; !*ret && !r && i < e.nr; i++) {
		const struct tk_yaml_node *name = node(d, e.items[i].key);

		/* a dimension setup: lacks has no token in the key */
		for (k = 0; k < mx->nr_dims; k++)
			if (strlen(mx->dims[k].name) == name->len &&
			    !memcmp(mx->dims[k].name, name->value, name->len))
				r = check_value(d, mx, &mx->dims[k], e.items[i].value);
	}
	tk_yaml_entries_release(&e);
	return r;
}

/*
 * The matrix of step in mx: 0 when it has none (no matrix:, or a null
 * one), 1 when every value it can give a job can be in a key, -1 when the
 * step is to be left as it is (mx->why says why, mx->line where), and 0
 * with *ret set on an error.
 */
static int matrix_of(struct doc *d, size_t step, struct matrix *mx, int *ret)
{
	size_t m = lookup(d, step, "matrix", ret), setup, adj, i, with;
	const struct tk_yaml_node *x;
	int r = 0;

	if (m == TK_YAML_NONE)
		return 0;
	m = resolve(d, m);
	x = node(d, m);
	mx->line = x->line;
	if (x->kind == TK_YAML_SCALAR && is_null(x))
		return 0;
	mx->nr_dims = 1; /* a list of values, until setup: names dimensions */
	if (x->kind == TK_YAML_SEQ)
		return check_values(d, mx, &mx->dims[0], m) ? -1 : 1;
	if (x->kind != TK_YAML_MAP) {
		tk_buf_adds(&mx->why, "its matrix is neither a list nor a mapping");
		return -1;
	}
	setup = lookup(d, m, "setup", ret);
	adj = lookup(d, m, "adjustments", ret);
	if (*ret)
		return 0;
	x = setup == TK_YAML_NONE ? NULL : node(d, resolve(d, setup));
	if (x && x->kind == TK_YAML_SEQ) {
		r = check_values(d, mx, &mx->dims[0], setup);
	} else if (x && x->kind == TK_YAML_MAP) {
		mx->nr_dims = 0;
		r = setup_dims(d, mx, setup, ret);
	} else {
		tk_buf_adds(&mx->why, "its matrix has no setup: list or mapping");
		r = -1;
	}
	x = adj == TK_YAML_NONE ? NULL : node(d, resolve(d, adj));
	for (i = 0; !r && !*ret && x && x->kind == TK_YAML_SEQ && i < x->nr_kids; i++) {
		with = lookup(d, resolve(d, x->kids[i]), "with", ret);
		if (with != TK_YAML_NONE && !*ret)
			r = with_values(d, mx, with, ret);
	}
	return *ret ? 0 : r ? -1 : 1;
}

/*
 * A matrix step's --key, key[{{matrix}}] or key[res={{matrix.res}},...]
 * in the order of setup:, in wkey; the same with the longest values in
 * longest (the key's length); its --tag words, one per dimension, in tags.
 */
static void matrix_words(const struct matrix *mx, const char *key, struct tk_buf *wkey,
			 struct tk_buf *longest, struct tk_buf *tags)
{
	struct tk_buf word = TK_BUF_INIT;
	size_t i, k;

	tk_buf_adds(wkey, key);
	tk_buf_adds(longest, key);
	for (i = 0; i < mx->nr_dims; i++) {
		const struct dim *dim = &mx->dims[i];

		tk_buf_addch(wkey, i ? ',' : '[');
		tk_buf_addch(longest, i ? ',' : '[');
		if (dim->name) {
			tk_buf_addf(wkey, "%s=", dim->name);
			tk_buf_addf(longest, "%s=", dim->name);
		}
		tk_buf_adds(wkey, "{{");
		add_dim_word(wkey, dim);
		tk_buf_adds(wkey, "}}");
		for (k = 0; k < dim->longest; k++)
			tk_buf_addch(longest, 'x');
		tk_buf_reset(&word);
		add_dim_word(&word, dim);
		tk_buf_adds(&word, "={{");
		add_dim_word(&word, dim);
		tk_buf_adds(&word, "}}");
		tk_buf_adds(tags, "--tag ");
		tk_sh_quote(tags, word.buf, word.len);
		tk_buf_addch(tags, ' ');
	}
	tk_buf_addch(wkey, ']');
	tk_buf_addch(longest, ']');
	tk_buf_release(&word);
}

/* Notes that command cmd is step's, whose key is key: with --key key,
 * or a key of each job of its matrix. */
static int use_command(struct doc *d, size_t step, size_t cmd, const char *key)
{
	struct tk_buf wkey = TK_BUF_INIT, longest = TK_BUF_INIT, tags = TK_BUF_INIT;
	struct mark *m = &d->marks[cmd];
	struct matrix mx;
	int r, ret = 0;

	memset(&mx, 0, sizeof(mx));
	tk_buf_init(&mx.why, 0);
	r = matrix_of(d, step, &mx, &ret);
	if (!ret && r > 0) {
		matrix_words(&mx, key, &wkey, &longest, &tags);
		if (longest.len > TK_RUN_KEY_MAX) {
			tk_buf_addf(&mx.why, "its key with its longest matrix values is %zu bytes, "
				    "more than %d", longest.len, TK_RUN_KEY_MAX);
			mx.line = d->y.nodes[step].line;
			r = -1;
		}
	} else {
		tk_buf_adds(&wkey, key);
	}
	if (ret) {
		/* an error of the tree: reported by the caller */
	} else if (r < 0) {
		warn(d, mx.line, key, "%s; left as it is", mx.why.buf);
		d->stats->left++;
	} else if (!m->uses++) {
		m->name = tk_xstrdup(key);
		m->key = tk_buf_detach(&wkey, NULL);
		m->tags = tk_buf_detach(&tags, NULL);
		m->step_line = d->y.nodes[step].line;
		TK_ALLOC_GROW(d->used, d->nr_used + 1, d->alloc_used);
		d->used[d->nr_used++] = cmd;
	} else if (strcmp(m->key, wkey.buf) || strcmp(m->tags, tags.buf)) {
		m->mixed = 1;
	}
	m->matrix |= r > 0;
	tk_buf_release(&mx.why);
	tk_buf_release(&wkey);
	tk_buf_release(&longest);
	tk_buf_release(&tags);
	return ret;
}

static int command_step(struct doc *d, size_t step, size_t cmd)
{
	const struct tk_yaml_node *s = &d->y.nodes[step], *k, *label;
	struct tk_buf script = TK_BUF_INIT, key = TK_BUF_INIT;
	const struct tk_yaml_node *c;
	int ret = 0;

	cmd = resolve(d, cmd);
	c = node(d, cmd);
	if ((c->kind == TK_YAML_SCALAR && is_null(c)) || (c->kind == TK_YAML_SEQ && !c->nr_kids) ||
	    c->kind == TK_YAML_MAP)
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
		ret = use_command(d, step, cmd, key.buf);
	}
	tk_buf_release(&script);
	tk_buf_release(&key);
	return ret;
}

/* A step's own key written twice: Buildkite's reader keeps one of the
 * two, so which command runs is not what the file seems to say. */
static int duplicate_key(void *arg, const struct tk_yaml_note *n)
{
	struct doc *d = arg;
	const struct tk_yaml_node *k = node(d, n->node), *first;

	if (n->kind != TK_YAML_DUPLICATE_KEY)
		return 0;
	first = node(d, n->first);
	return tk_err_set(d->err, TK_EDATA,
			  "%s:%zu: a step has the key '%.*s' twice (first at line %zu); "
			  "which one Buildkite runs is not what the file shows: remove one",
			  d->name, k->line + 1, (int)(k->len > 64 ? 64 : k->len), k->value,
			  first->line + 1);
}

static int no_duplicate_keys(struct doc *d, size_t step)
{
	struct tk_yaml_entries e;
	int ret;

	memset(&e, 0, sizeof(e));
	ret = tk_yaml_flatten(&d->y, step, &e, duplicate_key, d, d->err);
	tk_yaml_entries_release(&e);
	return ret;
}

static int walk_steps(struct doc *d, size_t seq, int depth)
{
	static const char *const not_commands[] = {
		"wait", "waiter", "block", "input", "trigger"
	};
	const struct tk_yaml_node *s = node(d, resolve(d, seq));
	size_t i, j, v;
	int ret = 0;

	if (s->kind != TK_YAML_SEQ)
		return 0;
	if (depth > MAX_ALIAS_DEPTH)
		return tk_err_set(d->err, TK_EDATA, "%s: groups nested too deep", d->name);
	for (i = 0; !ret && i < s->nr_kids; i++) {
		size_t step = resolve(d, s->kids[i]);
		int skip = 0;

		if (d->y.nodes[step].kind != TK_YAML_MAP)
			continue; /* "wait", "block" ... */
		if (lookup(d, step, "group", &ret) != TK_YAML_NONE) {
			v = lookup(d, step, "steps", &ret);
			if (v != TK_YAML_NONE)
				ret = walk_steps(d, v, depth + 1);
			continue;
		}
		for (j = 0; j < sizeof(not_commands) / sizeof(not_commands[0]); j++)
			if (lookup(d, step, not_commands[j], &ret) != TK_YAML_NONE)
				skip = 1;
		if (skip || ret)
			continue;
		ret = no_duplicate_keys(d, step);
		if (ret)
			break;
		v = lookup(d, step, "command", &ret);
		if (v == TK_YAML_NONE)
			v = lookup(d, step, "commands", &ret);
		if (v != TK_YAML_NONE && !ret)
			ret = command_step(d, step, v);
	}
	return ret;
}

/* ---- writing the wrapped command ---- */

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

/* A shell word's end: a blank, a newline or an operator. */
static int word_end(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || strchr(";&|()<>`", c);
}

static int word_is(const char *w, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(w, s, n);
}

/* "tracker" or a path ending in "/tracker". */
static int is_tracker(const char *w, size_t n)
{
	return word_is(w, n, "tracker") || (n > 8 && !memcmp(w + n - 8, "/tracker", 8));
}

/* A launcher whose later words are a command (srun, mpirun ...), or a
 * prefix word that runs the command after it (exec, env, time ...). */
static int is_launcher(const char *w, size_t n)
{
	static const char *const words[] = {
		"srun", "mpirun", "mpiexec", "exec", "env", "time", "nice", "command"
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (word_is(w, n, words[i]))
			return 1;
	return 0;
}

/*
 * Only at a command's start, as documented: the first word of a line, or
 * after `;`, `&&`, `||`, `|`, `&`, `(` or a backquote, after assignments
 * (FOO=1), and the words after a launcher (`srun -n2 tracker run`). A
 * word inside quotes, after `echo` or `make`, or in a comment is an
 * argument or text, not tracker running: "echo tracker run" and
 * "# tracker run" are measured.
 */
int tk_pipewrap_runs_tracker(const char *s, size_t len)
{
	/* tracker's commands, those to come included */
	static const char *const cmds[] = {
		"run", "report", "check", "push", "fetch", "history", "dashboard",
		"flame", "diff", "import", "pipeline", "config"
	};
	int at_start = 1, launched = 0, want_cmd = 0;
	size_t i = 0, j, k, n;

	while (i < len) {
		char c = s[i];

		if (c == ' ' || c == '\t' || c == '\r') {
			i++;
			continue;
		}
		if (c == '\n' || strchr(";&|(`", c)) {
			at_start = 1;
			launched = want_cmd = 0;
			i++;
			continue;
		}
		if (c == '#') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		}
		if (c == ')' || c == '<' || c == '>') {
			/* the end of a subshell, a redirection: no command starts */
			i++;
			continue;
		}
		/* a word, quotes and escapes kept inside it */
		j = i;
		while (j < len && !word_end((unsigned char)s[j])) {
			if (s[j] == '\\' && j + 1 < len) {
				j += 2;
			} else if (s[j] == '\'' || s[j] == '"') {
				char q = s[j++];

				while (j < len && s[j] != q)
					j += s[j] == '\\' && q == '"' && j + 1 < len ? 2 : 1;
				if (j < len)
					j++;
			} else {
				j++;
			}
		}
		n = j - i;
		if (want_cmd) {
			for (k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++)
				if (word_is(s + i, n, cmds[k]))
					return 1;
			want_cmd = 0;
		}
		if ((at_start || launched) && is_tracker(s + i, n)) {
			want_cmd = 1;
			at_start = launched = 0;
		} else if (at_start && memchr(s + i, '=', n) && s[i] != '=') {
			/* an assignment before the command */
		} else if ((at_start || launched) && is_launcher(s + i, n)) {
			launched = 1;
			at_start = 0;
		} else {
			at_start = 0;
		}
		i = j;
	}
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
static size_t block_indent(const struct doc *d, const struct tk_yaml_node *c)
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
static void add_header_comment(const struct doc *d, const struct tk_yaml_node *c,
			       struct tk_buf *out)
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
		for (i = 0; i < d->y.nr_nodes; i++) {
			if (d->y.nodes[i].kind != TK_YAML_ALIAS)
				continue;
			TK_ALLOC_GROW(d->refs, d->nr_refs + 1, d->alloc_refs);
			d->refs[d->nr_refs].start = d->y.nodes[d->y.nodes[i].target].start;
			d->refs[d->nr_refs].end = d->y.nodes[i].start;
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

/* The column of byte pos: the characters before it on its line. */
static size_t column_of(const struct doc *d, size_t pos)
{
	size_t i, col = 0;

	for (i = pos; i > 0 && d->text[i - 1] != '\n'; i--)
		if (((unsigned char)d->text[i - 1] & 0xc0) != 0x80)
			col++;
	return col;
}

/* Rewrites command node cmd as the wrapped command w. */
static int rewrite(struct doc *d, size_t cmd, const struct tk_buf *w)
{
	const struct tk_yaml_node *c = &d->y.nodes[cmd];
	struct tk_buf out = TK_BUF_INIT;
	size_t start = c->body, end = c->end, i, indent, nl, body_col;
	int block = c->style == YAML_LITERAL_SCALAR_STYLE || c->style == YAML_FOLDED_SCALAR_STYLE;
	int literal = literal_ok(w->buf, w->len);

	if (c->kind == TK_YAML_SCALAR) {
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
		const struct tk_yaml_node *last = &d->y.nodes[c->kids[c->nr_kids - 1]];
		struct tk_buf comments = TK_BUF_INIT;
		int ends_line;

		if (start >= d->len || d->text[start] != '-')
			return -1;
		body_col = column_of(d, start);
		for (i = 0; i + 1 < c->nr_kids; i++)
			move_comments(d, d->y.nodes[c->kids[i]].end, d->y.nodes[c->kids[i + 1]].start,
				      body_col, &comments);
		end = last->end;
		ends_line = end > 0 && d->text[end - 1] == '\n';
		nl = ends_line ? trailing_newlines(d, start, end) : 0;
		if (!ends_line) {
			/* the last item's comment, on its line */
			size_t e = end;

			while (e < d->len && d->text[e] != '\n' && d->text[e] != '\r')
				e++;
			move_comments(d, end, e, body_col, &comments);
			end = e;
		}
		tk_buf_adds(&out, "- ");
		if (literal) {
			tk_buf_adds(&out, "|-\n");
			add_literal_lines(&out, w->buf, w->len, body_col + 2);
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

/* 1 when a line of s (len bytes) is word. */
static int has_line(const char *s, size_t len, const char *word)
{
	size_t wl = strlen(word), i = 0;

	while (i < len) {
		const char *nl = memchr(s + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (s + i)) : len - i;

		if (n == wl && !memcmp(s + i, word, wl))
			return 1;
		i += n + 1;
	}
	return 0;
}

/*
 * The script as a quoted here-document read back by the agent's shell:
 *     "$(cat <<'TRACKER_SCRIPT'
 *     SCRIPT
 *     TRACKER_SCRIPT
 *     )"
 * for a script the upload interpolates ($NAME, ${NAME}): the upload puts
 * its values in the text after wrapping, and a value holding a `'` would
 * end single quotes early (the branch x';touch${IFS}PWNED;' ran a command
 * in the wrapped step only). Nothing a line-free value holds ends a
 * quoted here-document, and inside it the shell expands nothing, so the
 * inner bash gets the script the original command was (less its trailing
 * newlines, which a script does not need). The delimiter is a line the
 * script does not have.
 */
static void add_here_doc(struct tk_buf *w, const char *script, size_t len)
{
	struct tk_buf delim = TK_BUF_INIT;
	unsigned n = 0;

	tk_buf_adds(&delim, "TRACKER_SCRIPT");
	while (has_line(script, len, delim.buf)) {
		tk_buf_reset(&delim);
		tk_buf_addf(&delim, "TRACKER_SCRIPT_%u", ++n);
	}
	tk_buf_addf(w, "\"$(cat <<'%s'\n", delim.buf);
	tk_buf_add(w, script, len);
	if (!len || script[len - 1] != '\n')
		tk_buf_addch(w, '\n');
	tk_buf_addf(w, "%s\n)\"", delim.buf);
	tk_buf_release(&delim);
}

static void wrap_used(struct doc *d)
{
	size_t i, j;

	for (i = 0; i < d->nr_used; i++) {
		const struct tk_yaml_node *c = node(d, d->used[i]);
		const struct mark *m = &d->marks[d->used[i]];
		struct tk_buf script = TK_BUF_INIT, w = TK_BUF_INIT;
		int r;

		if (m->visits != m->uses) {
			warn(d, m->step_line, m->name,
			     "its command (line %zu) is also used through an alias or merge key "
			     "where tracker does not wrap it; left as it is", c->line + 1);
			d->stats->left += m->uses;
			continue;
		}
		if (m->mixed && m->matrix) {
			/* without --key, every job of a matrix would get its step's key */
			warn(d, m->step_line, m->name,
			     "its command (line %zu) is shared through an alias or merge key with "
			     "steps of other keys or matrices; a matrix step's command must be "
			     "its own to give each job a key; left as it is", c->line + 1);
			d->stats->left += m->uses;
			continue;
		}
		script_of(d, d->used[i], &script);
		tk_buf_adds(&w, "tracker run ");
		if (!m->mixed) {
			tk_buf_adds(&w, "--key ");
			tk_sh_quote(&w, m->key, strlen(m->key));
			tk_buf_addch(&w, ' ');
			tk_buf_adds(&w, m->tags);
		}
		tk_buf_adds(&w, "-- bash -e -c ");
		if (upload_expands(script.buf, script.len)) {
			add_here_doc(&w, script.buf, script.len);
		} else {
			tk_buf_addch(&w, '\'');
			for (j = 0; j < script.len; j++) {
				if (script.buf[j] == '\'')
					tk_buf_adds(&w, "'\\''");
				else
					tk_buf_addch(&w, script.buf[j]);
			}
			tk_buf_addch(&w, '\'');
		}
		if (has_command(script.buf, script.len, "srun", NULL) ||
		    has_command(script.buf, script.len, "mpiexec", NULL) ||
		    has_command(script.buf, script.len, "mpirun", NULL))
			warn(d, m->step_line, m->name,
			     "its command starts MPI ranks (srun, mpiexec or mpirun): wrapped, "
			     "tracker measures the launcher and not the ranks; for the ranks, write "
			     "'srun tracker run --per-rank ... -- CMD' into the command");
		r = rewrite(d, d->used[i], &w);
		if (r == -2) {
			warn(d, m->step_line, m->name,
			     "its command defines an anchor used elsewhere; left as it is");
			d->stats->left += m->uses;
		} else if (r) {
			warn(d, m->step_line, m->name, "cannot rewrite its command; left as it is");
			d->stats->left += m->uses;
		} else {
			d->stats->wrapped += m->uses;
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
	/* the output is the input with UTF-8 spliced in: no UTF-16 */
	if (len >= 2 && ((text[0] == '\xfe' && text[1] == '\xff') ||
			 (text[0] == '\xff' && text[1] == '\xfe')))
		return tk_err_set(err, TK_EDATA, "%s: UTF-16 text; a pipeline is read as UTF-8",
				  name);
	ret = tk_yaml_parse(&d.y, name, text, len, &yaml_opts, err);
	if (ret)
		goto out;
	d.marks = tk_xcalloc(d.y.nr_nodes ? d.y.nr_nodes : 1, sizeof(*d.marks));
	if (d.opts->keys)
		d.key_seen = tk_xcalloc(d.opts->nr_keys ? d.opts->nr_keys : 1, 1);
	for (i = 0; !ret && i < d.y.nr_roots; i++)
		ret = count_visits(&d, d.y.roots[i]);
	for (i = 0; !ret && i < d.y.nr_roots; i++) {
		size_t root = resolve(&d, d.y.roots[i]), steps = root;

		if (d.y.nodes[root].kind == TK_YAML_MAP)
			steps = lookup(&d, root, "steps", &ret);
		if (steps != TK_YAML_NONE && !ret)
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
