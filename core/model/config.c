/*
 * .tracker.yml: the YAML tree (core/base/yaml.h) -> struct tk_config.
 *
 * Aliases point at the anchored node (no copying), so the walk below is
 * bounded by the fixed shape of the schema plus the tree's work budget,
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
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "core/base/buf.h"
#include "core/base/env.h"
#include "core/model/run.h"
#include "core/base/timeutil.h"
#include "core/base/suggest.h"
#include "core/base/yaml.h"
#include "core/model/metric.h"
#include "core/base/banned.h"

#define CONFIG_MAX_BYTES (1024 * 1024)
#define CONFIG_MAX_DEPTH 64
#define CONFIG_MAX_ENTRIES 10000   /* per mapping, after merge keys */
#define CONFIG_MAX_WORK 1000000    /* aliases followed, mapping entries looked at */

static const struct tk_yaml_opts yaml_opts = {
	.limits = {
		.bytes = CONFIG_MAX_BYTES,
		.depth = CONFIG_MAX_DEPTH,
		/* never the bound: YAML spends two bytes on three nodes at most */
		.nodes = 2 * CONFIG_MAX_BYTES,
		.work = CONFIG_MAX_WORK,
		.merge_depth = 1,    /* merged mappings may not merge: note() refuses it */
		.entries = CONFIG_MAX_ENTRIES,
	},
	.one_document = "the config is one document",
};

struct warning {
	size_t line, col;
	char *msg;
};

struct doc {
	struct warning *warnings; /* sorted by position into the config */
	size_t nr_warnings, alloc_warnings;
	char *db_problem;         /* tk_config.db_problem */
	const char *name;
	struct tk_err *err;
	struct tk_yaml y;
};

#define fail(d, n, ...) tk_yaml_fail(&(d)->y, (n), (d)->err, __VA_ARGS__)

/* "<file>:<line>:<column>: " of node at */
static void position(const struct doc *d, size_t at, struct tk_buf *msg)
{
	const struct tk_yaml_node *n = &d->y.nodes[at];

	tk_buf_addf(msg, "%s:%zu:%zu: ", d->name, n->line + 1, n->col + 1);
}

/* A mistake local to one setting: noted, the setting dropped, 0 returned. */
static int warn(struct doc *d, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int warn(struct doc *d, size_t at, const char *fmt, ...)
{
	const struct tk_yaml_node *n = &d->y.nodes[at];
	struct tk_buf msg = TK_BUF_INIT;
	struct warning *w;
	va_list ap;

	position(d, at, &msg);
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

/*
 * The warning just given concerns `db:`: it becomes the config's
 * db_problem (the first such one), without its "; ignored", for the line
 * that says which database is used instead.
 */
static void db_problem_is_last_warning(struct doc *d)
{
	const char *msg = d->warnings[d->nr_warnings - 1].msg;
	size_t len = strlen(msg);

	if (d->db_problem)
		return;
	if (len > 9 && !strcmp(msg + len - 9, "; ignored"))
		len -= 9;
	d->db_problem = tk_xstrndup(msg, len);
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

/* A field the writer may have meant as db: ("dbb", "DB", "database", "db_url"). */
static int means_db(const char *field, const char *near)
{
	return (near && !strcmp(near, "db")) || !strncasecmp(field, "db", 2) ||
	       strcasestr(field, "database");
}

/* "unknown field 'timout' in key 'amip' (did you mean 'timeout'?); ignored" */
static int unknown_field(struct doc *d, size_t at, const char *field,
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
	if (means_db(field, key ? NULL : nearest(field, top_fields)))
		db_problem_is_last_warning(d);
	tk_buf_release(&where);
	return ret;
}

static void doc_release(struct doc *d)
{
	size_t i;

	tk_yaml_release(&d->y);
	for (i = 0; i < d->nr_warnings; i++)
		free(d->warnings[i].msg);
	free(d->warnings);
	free(d->db_problem);
}

/* ---- the tree -> config ---- */

/* The node n stands for: an alias followed, at a step of the work budget. */
static const struct tk_yaml_node *deref(struct doc *d, size_t n)
{
	return &d->y.nodes[tk_yaml_deref(&d->y, n)];
}

static const char *key_of(const struct doc *d, const struct tk_yaml_entry *e)
{
	return d->y.nodes[e->key].value;
}

static int is_null(const struct tk_yaml_node *n)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	size_t i;

	if (n->kind != TK_YAML_SCALAR || n->style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	for (i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		if (!strcmp(n->value, nulls[i]))
			return 1;
	return 0;
}

/* What flattening a mapping skipped: warnings, and nested merges refused
 * (keeps the walk simple; the merged mappings stay flat). */
static int note(void *arg, const struct tk_yaml_note *n)
{
	struct doc *d = arg;
	const struct tk_yaml_node *x = &d->y.nodes[n->node];
	const struct tk_yaml_node *first;

	switch (n->kind) {
	case TK_YAML_DUPLICATE_KEY:
		first = &d->y.nodes[n->first];
		warn(d, n->at, "duplicate key '%s' (first at %zu:%zu, which is used); "
		     "ignored", x->value, first->line + 1, first->col + 1);
		if (!strcmp(x->value, "db"))
			db_problem_is_last_warning(d);
		return 0;
	case TK_YAML_KEY_NOT_SCALAR:
		return warn(d, n->at, "a mapping key must be a plain string, not %s; ignored",
			    tk_yaml_kind_name(x->kind));
	case TK_YAML_MERGE_NOT_MAPPING:
		return warn(d, n->at, "a merge key '<<' takes a mapping, not %s; ignored",
			    tk_yaml_kind_name(x->kind));
	case TK_YAML_NESTED_MERGE:
		return fail(d, n->node, "nested merge keys are not supported");
	}
	return 0;
}

/*
 * The entries of mapping m: its own keys (a duplicate is a warning), then
 * those of YAML merge keys ("<<: *defaults") that it does not set itself.
 */
static int flatten(struct doc *d, size_t m, struct tk_yaml_entries *out)
{
	return tk_yaml_flatten(&d->y, m, out, note, d, d->err);
}

/* A string setting: a scalar, or null (left unset). */
static int get_string(struct doc *d, const struct tk_yaml_entry *e, char **out)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	const char *name = key_of(d, e);

	if (v->kind != TK_YAML_SCALAR)
		return warn(d, e->value, "'%s' must be a string, not %s; ignored", name,
			    tk_yaml_kind_name(v->kind));
	free(*out);
	*out = is_null(v) ? NULL : tk_xstrdup(v->value);
	return 0;
}

static int read_tags(struct doc *d, const struct tk_yaml_entry *e, struct tk_kvlist *tags)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	struct tk_yaml_entries list = { NULL, 0, 0 };
	struct tk_err terr = TK_ERR_INIT;
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != TK_YAML_MAP)
		return warn(d, e->value, "'tags' must be a mapping of name: value, not %s; "
			    "ignored", tk_yaml_kind_name(v->kind));
	ret = flatten(d, e->value, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct tk_yaml_node *k = &d->y.nodes[list.items[i].key];
		const struct tk_yaml_node *val = deref(d, list.items[i].value);

		if (!*k->value)
			ret = warn(d, list.items[i].key_at, "a tag name cannot be empty; ignored");
		else if (val->kind != TK_YAML_SCALAR)
			ret = warn(d, list.items[i].value, "tag '%s' must be a string, not %s; "
				   "ignored", k->value, tk_yaml_kind_name(val->kind));
		else if (tk_run_check_tag(k->value, is_null(val) ? "" : val->value, &terr))
			ret = warn(d, list.items[i].key_at, "%s; ignored", terr.msg);
		else
			tk_kvlist_set(tags, k->value, is_null(val) ? "" : val->value);
	}
	tk_yaml_entries_release(&list);
	return ret;
}

static int read_timeout(struct doc *d, const struct tk_yaml_entry *e, double *out)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	struct tk_err perr = TK_ERR_INIT;
	double t;

	if (is_null(v)) {
		*out = 0;
		return 0;
	}
	if (v->kind != TK_YAML_SCALAR)
		return warn(d, e->value, "'timeout' must be a duration such as 90s or 2h, "
			    "not %s; ignored", tk_yaml_kind_name(v->kind));
	if (tk_parse_duration(v->value, &t, &perr))
		return warn(d, e->value, "bad timeout '%s': %s; ignored", v->value,
			    perr.msg[0] ? perr.msg : "not a duration");
	if (t < 0)
		return warn(d, e->value, "bad timeout '%s': must not be negative; ignored",
			    v->value);
	*out = t;
	return 0;
}

static int read_key(struct doc *d, const struct tk_yaml_entry *e, struct tk_key_config *kc)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	const char *name = key_of(d, e);
	struct tk_yaml_entries list = { NULL, 0, 0 };
	size_t i;
	int ret = 0;

	if (is_null(v))
		return 0;
	if (v->kind != TK_YAML_MAP)
		return warn(d, e->value, "settings of key '%s' must be a mapping, not %s; "
			    "ignored", name, tk_yaml_kind_name(v->kind));
	ret = flatten(d, e->value, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct tk_yaml_entry *f = &list.items[i];
		const char *field = key_of(d, f);

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
	tk_yaml_entries_release(&list);
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

static int read_keys(struct doc *d, const struct tk_yaml_entry *e, struct tk_config *c)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	struct tk_yaml_entries list = { NULL, 0, 0 };
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != TK_YAML_MAP)
		return warn(d, e->value,
			    "'keys' must be a mapping of key name to settings, not %s; ignored",
			    tk_yaml_kind_name(v->kind));
	ret = flatten(d, e->value, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct tk_yaml_node *k = &d->y.nodes[list.items[i].key];
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
	tk_yaml_entries_release(&list);
	return ret;
}

/* ---- check: ---- */

/* A positive number (threshold, min_effect, window); 0 and *out set, or a
 * warning and -1. */
static int get_number(struct doc *d, const struct tk_yaml_entry *e, double *out)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	char *end;
	double x;

	if (v->kind != TK_YAML_SCALAR || is_null(v)) {
		warn(d, e->value, "'%s' must be a number, not %s; ignored", key_of(d, e),
		     is_null(v) ? "null" : tk_yaml_kind_name(v->kind));
		return -1;
	}
	x = strtod(v->value, &end);
	if (end == v->value || *end || !(x > 0) || x > 1e9) {
		warn(d, e->value, "'%s' must be a positive number, not '%s'; ignored",
		     key_of(d, e), v->value);
		return -1;
	}
	*out = x;
	return 0;
}

static int get_method(struct doc *d, const struct tk_yaml_entry *e, int *set, int *method)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	enum tk_verdict_method m;

	if (v->kind != TK_YAML_SCALAR || tk_verdict_method_parse(v->value, &m))
		return warn(d, e->value, "unknown method '%s' (expected interval, percent, "
			    "zscore or mannwhitney); ignored",
			    v->kind == TK_YAML_SCALAR ? v->value : tk_yaml_kind_name(v->kind));
	*set = 1;
	*method = (int)m;
	return 0;
}

static const char *const rule_fields[] = { "method", "threshold", "min_effect", NULL };

static int read_rule(struct doc *d, const struct tk_yaml_entry *e, const char *key,
		     enum tk_metric metric, struct tk_config *c)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	struct tk_yaml_entries list = { NULL, 0, 0 };
	struct tk_check_rule r;
	size_t threshold_at = TK_YAML_NONE;
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != TK_YAML_MAP)
		return warn(d, e->value, "'%s' must be a mapping such as { method: percent, "
			    "threshold: 15 }, not %s; ignored", key_of(d, e),
			    tk_yaml_kind_name(v->kind));
	memset(&r, 0, sizeof(r));
	r.metric = (int)metric;
	ret = flatten(d, e->value, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct tk_yaml_entry *f = &list.items[i];
		const char *field = key_of(d, f);
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
	tk_yaml_entries_release(&list);
	if (!ret && threshold_at != TK_YAML_NONE && r.threshold >= 0.5) {
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
					     "alloc", "slurm_maxrss", "alloc_count",
					     "heap_peak", "cpu_profile", "metrics",
					     "frames", NULL };

/* The keyset of key (NULL: every key), made when missing. */
static struct tk_check_keyset *keyset(struct tk_config *c, const char *key)
{
	struct tk_check_keyset *s;
	size_t i;

	for (i = 0; i < c->check.nr_sets; i++) {
		s = &c->check.sets[i];
		if ((!key && !s->key) || (key && s->key && !strcmp(key, s->key)))
			return s;
	}
	TK_ALLOC_GROW(c->check.sets, c->check.nr_sets + 1, c->check.alloc_sets);
	s = &c->check.sets[c->check.nr_sets++];
	s->key = key ? tk_xstrdup(key) : NULL;
	s->metrics = 0;
	s->frames = TK_CHECK_FRAMES_UNSET;
	return s;
}

/* metrics: a list of names, or names separated by commas. */
static int read_metrics(struct doc *d, const struct tk_yaml_entry *e, const char *key,
			struct tk_config *c)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	enum tk_metric list[TK_METRIC_COUNT];
	struct tk_buf names = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	unsigned mask = 0;
	size_t i;
	int n;

	if (is_null(v))
		return 0;
	if (v->kind == TK_YAML_SCALAR) {
		tk_buf_adds(&names, v->value);
	} else if (v->kind == TK_YAML_SEQ) {
		for (i = 0; i < v->nr_kids; i++) {
			const struct tk_yaml_node *x = deref(d, v->kids[i]);

			if (x->kind != TK_YAML_SCALAR) {
				tk_buf_release(&names);
				return warn(d, v->kids[i], "'metrics' lists metric names, not %s; "
					    "ignored", tk_yaml_kind_name(x->kind));
			}
			tk_buf_addf(&names, "%s%s", i ? "," : "", x->value);
		}
	} else {
		return warn(d, e->value, "'metrics' is a list of metric names, not %s; ignored",
			    tk_yaml_kind_name(v->kind));
	}
	n = tk_metric_parse_list(names.buf, list, &err);
	tk_buf_release(&names);
	if (n < 0)
		return warn(d, e->value, "%s; ignored", err.msg);
	for (i = 0; i < (size_t)n; i++)
		mask |= 1u << list[i];
	keyset(c, key)->metrics = mask;
	return 0;
}

/* frames: fail, report or off. */
static int read_frames(struct doc *d, const struct tk_yaml_entry *e, const char *key,
		       struct tk_config *c)
{
	static const char *const names[] = { "off", "report", "fail" };
	const struct tk_yaml_node *v = deref(d, e->value);
	size_t i;

	if (is_null(v))
		return 0;
	for (i = 0; v->kind == TK_YAML_SCALAR && i < 3; i++)
		if (!strcmp(v->value, names[i])) {
			keyset(c, key)->frames = (int)i;
			return 0;
		}
	return warn(d, e->value, "'frames' is fail, report or off, not %s; ignored",
		    v->kind == TK_YAML_SCALAR ? v->value : tk_yaml_kind_name(v->kind));
}

const struct tk_check_keyset *tk_config_check_set(const struct tk_config *c, const char *key)
{
	size_t i;

	for (i = 0; c && i < c->check.nr_sets; i++) {
		const struct tk_check_keyset *s = &c->check.sets[i];

		if ((!key && !s->key) || (key && s->key && !strcmp(key, s->key)))
			return s;
	}
	return NULL;
}

/* The metrics of one key (or, key NULL, of every key) */
static int read_metric_rules(struct doc *d, const struct tk_yaml_entry *e, const char *key,
			     struct tk_config *c)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	struct tk_yaml_entries list = { NULL, 0, 0 };
	enum tk_metric m;
	size_t i;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != TK_YAML_MAP)
		return warn(d, e->value, "check settings of key '%s' must be a mapping of "
			    "metric to settings, not %s; ignored", key, tk_yaml_kind_name(v->kind));
	ret = flatten(d, e->value, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct tk_yaml_entry *f = &list.items[i];

		if (!tk_metric_parse(key_of(d, f), &m)) {
			ret = read_rule(d, f, key, m, c);
		} else if (!strcmp(key_of(d, f), "metrics")) {
			ret = read_metrics(d, f, key, c);
		} else if (!strcmp(key_of(d, f), "frames")) {
			ret = read_frames(d, f, key, c);
		} else {
			const char *near = nearest(key_of(d, f), metric_fields);

			ret = warn(d, f->key_at, "unknown metric '%s' in check of key '%s'%s%s%s; "
				   "ignored", key_of(d, f), key, near ? " (did you mean '" : "",
				   near ? near : "", near ? "'?)" : " (expected "
				   TK_METRIC_NAMES ")");
		}
	}
	tk_yaml_entries_release(&list);
	return ret;
}

static const char *const check_fields[] = { "window", "method", "threshold", "keys",
					    "metrics", "frames", "walltime", "cpu", "maxrss",
					    "tree_rss", "alloc", "slurm_maxrss", "alloc_count",
					    "heap_peak", "cpu_profile", NULL };

static int read_check(struct doc *d, const struct tk_yaml_entry *e, struct tk_config *c)
{
	const struct tk_yaml_node *v = deref(d, e->value);
	struct tk_yaml_entries list = { NULL, 0, 0 }, keys = { NULL, 0, 0 };
	enum tk_metric m;
	size_t i, k;
	int ret;

	if (is_null(v))
		return 0;
	if (v->kind != TK_YAML_MAP)
		return warn(d, e->value, "'check' must be a mapping of settings, not %s; "
			    "ignored", tk_yaml_kind_name(v->kind));
	ret = flatten(d, e->value, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct tk_yaml_entry *f = &list.items[i];
		const char *field = key_of(d, f);
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
		} else if (!strcmp(field, "metrics")) {
			ret = read_metrics(d, f, NULL, c);
		} else if (!strcmp(field, "frames")) {
			ret = read_frames(d, f, NULL, c);
		} else if (!strcmp(field, "keys")) {
			const struct tk_yaml_node *kv = deref(d, f->value);

			if (is_null(kv))
				continue;
			if (kv->kind != TK_YAML_MAP) {
				ret = warn(d, f->value, "'keys' must be a mapping of key name to "
					   "metrics, not %s; ignored", tk_yaml_kind_name(kv->kind));
				continue;
			}
			ret = flatten(d, f->value, &keys);
			for (k = 0; !ret && k < keys.nr; k++)
				ret = read_metric_rules(d, &keys.items[k],
							key_of(d, &keys.items[k]), c);
			tk_yaml_entries_release(&keys);
		} else {
			const char *near = nearest(field, check_fields);

			ret = warn(d, f->key_at, "unknown field '%s' in check%s%s%s; ignored", field,
				   near ? " (did you mean '" : " (expected window, method, "
				   "threshold, metrics, frames, keys or a metric name)",
				   near ? near : "",
				   near ? "'?)" : "");
		}
	}
	tk_yaml_entries_release(&list);
	return ret;
}

/* db: as a string; a value of another type, or none, is its problem. */
static int read_db(struct doc *d, const struct tk_yaml_entry *e, struct tk_config *c)
{
	size_t before = d->nr_warnings;
	struct tk_buf msg = TK_BUF_INIT;
	int ret = get_string(d, e, &c->db);

	if (d->nr_warnings > before) {
		db_problem_is_last_warning(d);
	} else if ((!c->db || !*c->db) && !d->db_problem) {
		/* `db:` or `db: ""`, as a template with an unset variable leaves it */
		position(d, e->value, &msg);
		tk_buf_adds(&msg, "'db' has no value");
		d->db_problem = tk_buf_detach(&msg, NULL);
	}
	tk_buf_release(&msg);
	return ret;
}

static int read_top(struct doc *d, struct tk_config *c)
{
	const struct tk_yaml_node *root;
	struct tk_yaml_entries list = { NULL, 0, 0 };
	size_t i, r;
	int ret;

	if (!d->y.nr_roots)
		return 0;
	r = tk_yaml_deref(&d->y, d->y.roots[0]);
	root = &d->y.nodes[r];
	if (is_null(root))
		return 0;
	if (root->kind != TK_YAML_MAP)
		return fail(d, r, "the top level must be a mapping of settings, not %s",
			    tk_yaml_kind_name(root->kind));
	ret = flatten(d, r, &list);
	for (i = 0; !ret && i < list.nr; i++) {
		const struct tk_yaml_entry *e = &list.items[i];
		const char *field = key_of(d, e);

		if (!strcmp(field, "db"))
			ret = read_db(d, e, c);
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
	tk_yaml_entries_release(&list);
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
	free(c->db_problem);
	for (i = 0; i < c->check.nr_rules; i++)
		free(c->check.rules[i].key);
	free(c->check.rules);
	for (i = 0; i < c->check.nr_sets; i++)
		free(c->check.sets[i].key);
	free(c->check.sets);
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

	memset(&d, 0, sizeof(d));
	d.name = name;
	d.err = err;
	tk_config_init(&tmp);
	ret = tk_yaml_parse(&d.y, name, text, len, &yaml_opts, err);
	if (!ret)
		ret = read_top(&d, &tmp);
	if (!ret) {
		take_warnings(&d, &tmp);
		tmp.db_problem = d.db_problem;
		d.db_problem = NULL;
	}
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
			return; /* a URL (postgresql://...), not a path */
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

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

void tk_config_db(const struct tk_config *c, const struct tk_env *env, const char *opt,
		  struct tk_buf *url, struct tk_db_choice *out)
{
	const char *v, *home;

	if (!env)
		env = &tk_env_process;
	out->problem = NULL;
	out->from = TK_DB_FROM_OPTION;
	v = nonempty(opt);
	if (!v) {
		out->from = TK_DB_FROM_ENV;
		v = nonempty(tk_env_get(env, "TRACKER_DB"));
	}
	if (v) {
		tk_buf_adds(url, v);
		return;
	}
	out->problem = c->db_problem;
	v = nonempty(c->db);
	if (v) {
		out->from = TK_DB_FROM_CONFIG;
		tk_buf_adds(url, v);
		return;
	}
	out->from = TK_DB_FROM_DEFAULT;
	home = nonempty(tk_env_get(env, "XDG_DATA_HOME"));
	if (home) {
		tk_buf_addf(url, "%s/tracker/history.db", home);
		return;
	}
	home = nonempty(tk_env_get(env, "HOME"));
	tk_buf_addf(url, "%s/.local/share/tracker/history.db", home ? home : ".");
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
