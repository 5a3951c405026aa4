#ifndef TK_YAML_H
#define TK_YAML_H
/*
 * A YAML text as a tree of nodes, read with libyaml: a low-level primitive
 * that knows no schema; .tracker.yml (core/model/config) and pipeline
 * wrap (core/ci/pipewrap) walk it with their own rules.
 *
 * We build our own tree from libyaml's events instead of using its
 * document loader because the loader bounds neither nesting nor the work
 * aliases cause, gives no byte ranges and drops duplicate keys silently.
 *
 * Reading. tk_yaml_parse reads text (UTF-8, with or without a byte order
 * mark; UTF-16 with one) into y. Nodes live in y->nodes and are named by
 * their index; a collection's kids are indexes too (a sequence's items; a
 * mapping's key, value, key, value...). An alias is a node of its own whose
 * target is the anchored node: nothing is copied, so a "billion laughs"
 * text costs what its bytes cost until a walk follows the aliases, and
 * every walk below charges y's work budget. Anchors belong to their
 * document; the latest definition of a name wins. One root per document
 * (none for a text that holds no document).
 *
 * Errors. Every function returns 0 or a negative enum tk_code and fills
 * err with one message, "NAME:LINE:COLUMN: what" (1-based, at the node or
 * where libyaml gave up) unless said otherwise:
 *   - YAML syntax: libyaml's words, then " while parsing ... at L:C" when
 *     the construct began elsewhere, and " (a tab: YAML is indented with
 *     spaces only)" when the offending character is a tab (TK_EDATA);
 *     errors of libyaml's reader (bad UTF-8, a control character) are
 *     placed by their byte offset;
 *   - "undefined alias '*NAME'", "alias '*NAME' refers to a node that
 *     contains it", "a second YAML document; WHY" when opts->one_document
 *     says WHY there must be one (TK_EDATA);
 *   - the limits (TK_EDATA): "NAME: larger than N bytes" (no position),
 *     "nesting deeper than N levels", "more than N nodes", "too many
 *     aliases and merge keys to follow (a work limit of N)", "merge keys
 *     nested too deep (more than N levels)", "more than N entries in one
 *     mapping";
 *   - libyaml out of memory: "NAME: out of memory parsing YAML"
 *     (TK_EINTERNAL).
 *
 * Lifetime. name and text are not copied: they must outlive y. y owns
 * its nodes (values included) until tk_yaml_release, which is needed after
 * tk_yaml_parse whether it succeeded or not, and may be called twice.
 * Nodes are read-only to callers; a walk that needs its own marks on nodes
 * keeps them in an array of y->nr_nodes beside the tree.
 */
#include <stddef.h>

#include "core/base/err.h"

#define TK_YAML_NONE ((size_t)-1)

enum tk_yaml_kind { TK_YAML_SCALAR, TK_YAML_SEQ, TK_YAML_MAP, TK_YAML_ALIAS };

struct tk_yaml_node {
	enum tk_yaml_kind kind;
	int style;         /* libyaml's yaml_{scalar,sequence,mapping}_style_t */
	int closed;        /* its end was read (an alias cannot refer to it before) */
	char *value;       /* scalar: NUL-terminated, but a "\0" escape may sit */
	size_t len;        /* inside: len bytes are the value */
	size_t start, end; /* byte range, anchor and tag included */
	size_t body;       /* where the value starts, past anchor and tag: a
			    * scalar's first character (end for an empty one),
			    * a block sequence's first '-', a flow collection's
			    * '[' or '{', a block mapping's first key */
	size_t line, col;  /* of start, 0-based; col counts characters */
	size_t *kids;      /* seq: items; map: key, value, key, value... */
	size_t nr_kids, alloc_kids;
	size_t target;     /* alias: the anchored node; else TK_YAML_NONE */
};

/* Every bound a caller sets: nothing from outside is unbounded. */
struct tk_yaml_limits {
	size_t bytes;       /* of the text */
	size_t depth;       /* collections nested in one another */
	size_t nodes;       /* in the tree, aliases included */
	size_t work;        /* steps of all walks together: aliases followed,
			     * mapping entries looked at by lookups and flattens */
	size_t merge_depth; /* mappings merged into merged mappings */
	size_t entries;     /* of one flattened mapping */
};

struct tk_yaml_opts {
	struct tk_yaml_limits limits;
	/* NULL: any number of documents; else a second one is an error,
	 * "a second YAML document; <one_document>" */
	const char *one_document;
};

struct tk_yaml {
	const char *name;  /* for messages */
	const char *text;  /* as given to tk_yaml_parse */
	size_t len;
	struct tk_yaml_node *nodes;
	size_t nr_nodes, alloc_nodes;
	size_t *roots;     /* one per document */
	size_t nr_roots, alloc_roots;
	struct tk_yaml_limits limits;
	size_t work;       /* spent so far */
};

/* Reads text into y (which needs no initialising). */
int tk_yaml_parse(struct tk_yaml *y, const char *name, const char *text, size_t len,
		  const struct tk_yaml_opts *opts, struct tk_err *err);

void tk_yaml_release(struct tk_yaml *y);

/* TK_EDATA with err "NAME:LINE:COL: what", positioned at node n: the one
 * form of every error in a document. */
int tk_yaml_fail(const struct tk_yaml *y, size_t n, struct tk_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "a scalar", "a sequence", "a mapping", "an alias": for messages. */
const char *tk_yaml_kind_name(enum tk_yaml_kind kind);

/*
 * The node n stands for: an alias's target, else n. Following an alias
 * costs one step of work; past the budget, the next tk_yaml_charge,
 * lookup or flatten fails.
 */
size_t tk_yaml_deref(struct tk_yaml *y, size_t n);

/* Spends n steps of work; TK_EDATA (positioned at node at) past the
 * budget. For a caller's own walks (a visit of every node, say). */
int tk_yaml_charge(struct tk_yaml *y, size_t n, size_t at, struct tk_err *err);

/* 1 when node n (an alias followed) is the merge key: a plain "<<". */
int tk_yaml_is_merge_key(const struct tk_yaml *y, size_t n);

/*
 * The value of key (len bytes) in mapping map, as written (it may be an
 * alias), in *value; TK_YAML_NONE when map is no mapping or has no such
 * key. Merge keys are followed: the mapping's own keys first (the first
 * of two equal ones), then the mappings of `<<: *m` or `<<: [*a, *b]` in
 * order, each searched the same way (merged mappings may merge, up to
 * limits.merge_depth levels). Charges the entries it looks at.
 */
int tk_yaml_lookup(struct tk_yaml *y, size_t map, const char *key, size_t len,
		   size_t *value, struct tk_err *err);

/* One entry of a flattened mapping. */
struct tk_yaml_entry {
	size_t key_at; /* the key as written (its position) */
	size_t key;    /* the scalar it stands for */
	size_t value;  /* as written: may be an alias */
};

struct tk_yaml_entries {
	struct tk_yaml_entry *items;
	size_t nr, alloc;
};

/* What a flatten met and skipped; the callback says whether to go on. */
enum tk_yaml_note_kind {
	TK_YAML_DUPLICATE_KEY,     /* an own key equal to an earlier one */
	TK_YAML_KEY_NOT_SCALAR,    /* a key that is a collection */
	TK_YAML_MERGE_NOT_MAPPING, /* `<<:` of (or a list item that is) no mapping */
	TK_YAML_NESTED_MERGE       /* a `<<` key inside a merged mapping */
};

struct tk_yaml_note {
	enum tk_yaml_note_kind kind;
	size_t at;    /* the node as written: the key, or the merged value */
	size_t node;  /* what at stands for (an alias followed) */
	size_t first; /* TK_YAML_DUPLICATE_KEY: the earlier key, as written */
};

/*
 * The entries of mapping map (an alias followed) as a reader of the
 * mapping sees them, in out (emptied first; release it with
 * tk_yaml_entries_release): its own keys in order, then the entries of
 * its merged mappings whose keys it does not have yet, in the order the
 * merge keys name them, each flattened the same way. Keys are compared
 * byte for byte. A duplicate own key, a key that is no scalar and a merge
 * of something that is no mapping are skipped after note() is told; a
 * nested merge is followed after note() is told. note returns 0 to go on
 * or a negative code, which flatten then returns (with note's message in
 * err); note may be NULL. More than limits.entries entries are an error,
 * at the key that would pass them. Charges the entries it looks at.
 */
int tk_yaml_flatten(struct tk_yaml *y, size_t map, struct tk_yaml_entries *out,
		    int (*note)(void *arg, const struct tk_yaml_note *n), void *arg,
		    struct tk_err *err);

void tk_yaml_entries_release(struct tk_yaml_entries *list);

#endif
