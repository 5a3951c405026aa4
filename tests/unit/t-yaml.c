/*
 * The YAML tree (core/base/yaml.h): nodes and byte ranges, aliases and
 * anchors, documents, every limit at its exact bound, merge keys in
 * lookups and flattens, and where errors say they are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/base/buf.h"
#include "core/base/yaml.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static const struct tk_yaml_opts roomy = {
	.limits = {
		.bytes = 1 << 20, .depth = 64, .nodes = 100000, .work = 1000000,
		.merge_depth = 8, .entries = 1000,
	},
	.one_document = NULL,
};

static struct tk_yaml y;
static struct tk_err err;

/* Parses text (strlen) with opts into y; the return code. */
static int parse_with(const char *text, const struct tk_yaml_opts *opts)
{
	tk_yaml_release(&y);
	tk_err_clear(&err);
	return tk_yaml_parse(&y, "t.yml", text, strlen(text), opts, &err);
}

static int parse(const char *text)
{
	return parse_with(text, &roomy);
}

static const struct tk_yaml_node *N(size_t n)
{
	return &y.nodes[n];
}

/* The text of node n's byte range, [from, end), from its start or body. */
static const char *range(size_t n, int from_body)
{
	static char buf[256];
	const struct tk_yaml_node *x = N(n);
	size_t from = from_body ? x->body : x->start;

	snprintf(buf, sizeof(buf), "%.*s", (int)(x->end - from), y.text + from);
	return buf;
}

/* The value of key in the root mapping (TK_YAML_NONE: none). */
static size_t get(const char *key)
{
	size_t v = TK_YAML_NONE;

	if (tk_yaml_lookup(&y, y.roots[0], key, strlen(key), &v, &err))
		return TK_YAML_NONE;
	return v;
}

static void test_nodes(void)
{
	size_t v;

	is_int(parse("a: 1\nlist: [x, 'y']\n"), 0, "a mapping parses");
	is_int(y.nr_roots, 1, "one root");
	is_int(N(y.roots[0])->kind, TK_YAML_MAP, "the root is a mapping");
	is_int(N(y.roots[0])->nr_kids, 4, "key, value, key, value");
	v = get("list");
	ok(v != TK_YAML_NONE && N(v)->kind == TK_YAML_SEQ && N(v)->nr_kids == 2,
	   "a sequence of two");
	is_int(N(v)->style, YAML_FLOW_SEQUENCE_STYLE, "in flow style");
	is_int(N(N(v)->kids[1])->style, YAML_SINGLE_QUOTED_SCALAR_STYLE, "its quoting is kept");
	is_int(N(v)->line, 1, "line is 0-based");
	is_int(N(v)->col, 6, "and so is the column");
	ok(N(v)->closed, "a collection read to its end is closed");

	is_int(parse("s: \"a\\0b\"\n"), 0, "a NUL escape");
	v = get("s");
	is_int(N(v)->len, 3, "does not cut the value");
	ok(!memcmp(N(v)->value, "a\0b", 4), "whose bytes are all kept, then a NUL");

	is_int(parse(""), 0, "an empty text");
	is_int(y.nr_roots, 0, "has no document");
	tk_yaml_release(&y);
	tk_yaml_release(&y);
	ok(y.nodes == NULL && y.nr_nodes == 0, "release twice is harmless");
}

static void test_ranges(void)
{
	size_t v;

	/* two- and three-byte characters before and inside the values */
	is_int(parse("\xc3\xa9t\xc3\xa9: &a !!str \"\xe2\x82\xac x\"\nk: [\xc3\xbc, *a]\n"
		     "m: &m {p: 1}\nb: &b\n  - q\nc: &c\n  r: 1\n"), 0, "multi-byte text parses");
	v = get("\xc3\xa9t\xc3\xa9");
	is_str(range(v, 0), "&a !!str \"\xe2\x82\xac x\"",
	       "a range counts bytes, anchor and tag included");
	is_str(range(v, 1), "\"\xe2\x82\xac x\"", "the body starts past anchor and tag");
	is_int(N(v)->col, 5, "the column counts characters");
	v = get("k");
	is_str(range(v, 0), "[\xc3\xbc, *a]", "a flow sequence's range");
	is_str(range(N(v)->kids[0], 0), "\xc3\xbc", "an item after multi-byte text");
	is_str(range(N(v)->kids[1], 0), "*a", "an alias's range");
	v = get("m");
	is_str(range(v, 1), "{p: 1}", "a flow mapping's body is its '{'");
	v = get("b");
	is_int(y.text[N(v)->body], '-', "a block sequence's body is its first '-'");
	is_str(range(N(v)->kids[0], 1), "q", "its item");
	v = get("c");
	is_str(range(v, 1), "r: 1\n", "a block mapping's body is its first key");

	is_int(parse("\xef\xbb\xbfk: \xc3\xa9\n"), 0, "a UTF-8 byte order mark");
	is_str(range(get("k"), 0), "\xc3\xa9", "is not counted by the marks but is by the bytes");

	/* "k: é" in UTF-16LE with its byte order mark */
	tk_yaml_release(&y);
	is_int(tk_yaml_parse(&y, "t.yml", "\xff\xfek\0:\0 \0\xe9\0\n\0", 12, &roomy, &err), 0,
	       "UTF-16 parses");
	v = get("k");
	ok(v != TK_YAML_NONE && N(v)->start == 8 && N(v)->end == 10 &&
	   !strcmp(N(v)->value, "\xc3\xa9"),
	   "with byte ranges in its own code units and values in UTF-8");

	is_int(parse("a:\n---\nb\n"), 0, "two documents, allowed");
	is_int(y.nr_roots, 2, "one root each");
	is_str(N(y.roots[1])->value, "b", "the second document's root");
}

static void test_aliases(void)
{
	struct tk_yaml_opts one = roomy;
	size_t v;

	is_int(parse("a: &x 1\nb: &x 2\nc: *x\n"), 0, "an anchor defined twice");
	v = get("c");
	is_int(N(v)->kind, TK_YAML_ALIAS, "an alias is a node");
	is_str(N(tk_yaml_deref(&y, v))->value, "2", "the latest definition wins");

	is_int(parse("a: 1\nb: *nope\n"), TK_EDATA, "an undefined alias");
	is_str(err.msg, "t.yml:2:4: undefined alias '*nope'", "is an error where it is");
	is_int(parse("a: &x [1, *x]\n"), TK_EDATA, "an alias inside its own anchor");
	is_str(err.msg, "t.yml:1:11: alias '*x' refers to a node that contains it",
	       "is an error where it is");
	is_int(parse("a: &x 1\n---\nb: *x\n"), TK_EDATA, "an anchor of an earlier document");
	is_str(err.msg, "t.yml:3:4: undefined alias '*x'", "is not defined in the next");

	one.one_document = "one is enough";
	is_int(parse_with("a: 1\n---\nb: 2\n", &one), TK_EDATA, "a second document refused");
	is_str(err.msg, "t.yml:2:1: a second YAML document; one is enough", "says why, where");
	is_int(parse_with("--- \na: 1\n...\n", &one), 0, "one explicit document is fine");
}

static void test_limits(void)
{
	struct tk_yaml_opts o = roomy;
	size_t v;

	o.limits.bytes = 5;
	is_int(parse_with("a: 12", &o), 0, "as many bytes as the limit");
	is_int(parse_with("a: 123", &o), TK_EDATA, "one byte more");
	is_str(err.msg, "t.yml: larger than 5 bytes", "names the limit");
	o = roomy;
	o.limits.depth = 3;
	is_int(parse_with("[[[x]]]", &o), 0, "as deep as the limit");
	is_int(parse_with("[[[[x]]]]", &o), TK_EDATA, "one level more");
	is_str(err.msg, "t.yml:1:4: nesting deeper than 3 levels", "at the collection too deep");
	o = roomy;
	o.limits.nodes = 3;
	is_int(parse_with("[a, b]", &o), 0, "as many nodes as the limit");
	is_int(parse_with("[a, b, c]", &o), TK_EDATA, "one node more");
	is_str(err.msg, "t.yml:1:8: more than 3 nodes", "at the node too many");

	/* a lookup charges the entries of each mapping it looks in: 2 + 1 */
	o = roomy;
	o.limits.work = 3;
	is_int(parse_with("a: 1\nb: 2\n", &o), 0, "parsing spends no work");
	is_int(tk_yaml_lookup(&y, y.roots[0], "b", 1, &v, &err), 0, "a lookup within the budget");
	is_int(y.work, 3, "spends one step an entry and one a mapping");
	is_int(tk_yaml_lookup(&y, y.roots[0], "b", 1, &v, &err), TK_EDATA,
	       "the next one is past it");
	is_str(err.msg, "t.yml:1:1: too many aliases and merge keys to follow (a work limit of 3)",
	       "and says so at the mapping");
	is_int(parse_with("a: &a x\nb: *a\n", &o), 0, "an alias");
	v = N(y.roots[0])->kids[3];
	tk_yaml_deref(&y, v);
	tk_yaml_deref(&y, v);
	is_int(y.work, 2, "costs a step each time it is followed");
	is_int(tk_yaml_charge(&y, 1, v, &err), 0, "the budget's last step");
	is_int(tk_yaml_charge(&y, 1, v, &err), TK_EDATA, "one more");
	is_str(err.msg, "t.yml:2:4: too many aliases and merge keys to follow (a work limit of 3)",
	       "is refused where the walk is");
}

/* Notes as text, "KIND L:C;", for checking; stops at a nested merge when
 * refuse is set. */
struct notes {
	struct tk_buf text;
	int refuse;
};

static int take_note(void *arg, const struct tk_yaml_note *n)
{
	static const char *const kinds[] = { "dup", "key", "merge", "nested" };
	struct notes *ns = arg;

	tk_buf_addf(&ns->text, "%s %zu:%zu", kinds[n->kind], N(n->at)->line + 1,
		    N(n->at)->col + 1);
	if (n->kind == TK_YAML_DUPLICATE_KEY)
		tk_buf_addf(&ns->text, " first %zu:%zu", N(n->first)->line + 1,
			    N(n->first)->col + 1);
	tk_buf_adds(&ns->text, ";");
	if (ns->refuse && n->kind == TK_YAML_NESTED_MERGE)
		return tk_err_set(&err, TK_EDATA, "refused");
	return 0;
}

/* The flattened entries of the root's value of key as "k=v k=v". */
static const char *flat(const char *key, struct notes *ns, int *ret)
{
	static struct tk_buf b = TK_BUF_INIT;
	struct tk_yaml_entries list = { NULL, 0, 0 };
	size_t i;

	tk_buf_reset(&b);
	*ret = tk_yaml_flatten(&y, get(key), &list, take_note, ns, &err);
	for (i = 0; i < list.nr; i++) {
		const struct tk_yaml_node *v = N(tk_yaml_deref(&y, list.items[i].value));

		tk_buf_addf(&b, "%s%s=%s", i ? " " : "", N(list.items[i].key)->value,
			    v->kind == TK_YAML_SCALAR ? v->value : "?");
	}
	tk_yaml_entries_release(&list);
	return b.buf;
}

static void test_merge_keys(void)
{
	static const char doc[] =
		"d: &d {a: 1, b: 2}\n"
		"e: &e {b: 3, c: 4, <<: {z: 9}}\n"
		"one: {<<: *d, b: own}\n"
		"two: {x: 0, <<: [*d, *e]}\n"
		"quoted: {'<<': *d}\n"
		"bad: {<<: 5, [k]: 1, x: 1, x: 2, <<: [*d, [1]]}\n";
	struct notes ns = { TK_BUF_INIT, 0 };
	struct tk_yaml_opts o = roomy;
	size_t v, w;
	int ret;

	is_int(parse(doc), 0, "merge keys parse");
	tk_yaml_lookup(&y, get("one"), "a", 1, &v, &err);
	is_str(N(v)->value, "1", "a lookup finds a merged key");
	tk_yaml_lookup(&y, get("one"), "b", 1, &v, &err);
	is_str(N(v)->value, "own", "an own key wins over a merged one, wherever written");
	tk_yaml_lookup(&y, get("two"), "b", 1, &v, &err);
	is_str(N(v)->value, "2", "the merges of a list in order: the first wins");
	tk_yaml_lookup(&y, get("two"), "z", 1, &v, &err);
	is_str(N(v)->value, "9", "a merged mapping's merges are followed");
	tk_yaml_lookup(&y, get("quoted"), "a", 1, &v, &err);
	ok(v == TK_YAML_NONE, "a quoted '<<' is a key like any other");
	w = N(get("quoted"))->kids[0];
	ok(!tk_yaml_is_merge_key(&y, w) && tk_yaml_is_merge_key(&y, N(get("one"))->kids[0]),
	   "only a plain << is the merge key");

	is_str(flat("two", &ns, &ret), "x=0 a=1 b=2 c=4 z=9",
	       "a flatten: own keys, then the merged ones not yet there, in order");
	is_int(ret, 0, "with nothing refused");
	is_str(ns.text.buf, "nested 2:20;", "the nested merge was noted, then followed");
	tk_buf_reset(&ns.text);
	ns.refuse = 1;
	flat("two", &ns, &ret);
	ok(ret == TK_EDATA && !strcmp(err.msg, "refused"), "a note can stop the flatten");
	tk_buf_reset(&ns.text);
	is_str(flat("bad", &ns, &ret), "x=1 a=1 b=2", "what cannot be used is skipped");
	is_str(ns.text.buf, "key 6:14;dup 6:28 first 6:22;merge 6:11;merge 6:43;",
	       "and noted: a collection as a key, a duplicate own key, merges of no mapping");

	o.limits.entries = 2;
	is_int(parse_with(doc, &o), 0, "with room for two entries");
	is_str(flat("one", &ns, &ret), "b=own a=1", "two entries fit");
	flat("two", &ns, &ret);
	is_int(ret, TK_EDATA, "a third is refused");
	is_str(err.msg, "t.yml:1:14: more than 2 entries in one mapping",
	       "at the key that would be it");

	o = roomy;
	o.limits.merge_depth = 1;
	is_int(parse_with(doc, &o), 0, "merges one level deep");
	tk_yaml_lookup(&y, get("one"), "a", 1, &v, &err);
	is_str(N(v)->value, "1", "a merge is within the limit");
	is_int(tk_yaml_lookup(&y, get("two"), "z", 1, &v, &err), TK_EDATA,
	       "a merge in a merged mapping is past it");
	is_str(err.msg, "t.yml:2:24: merge keys nested too deep (more than 1 levels)",
	       "at the mapping too deep");
	tk_buf_release(&ns.text);
}

static void test_errors(void)
{
	is_int(parse("a: [1\n"), TK_EDATA, "a syntax error");
	is_str(err.msg, "t.yml:2:1: did not find expected ',' or ']' while parsing a flow "
	       "sequence at 1:4",
	       "with where the parser gave up and where the construct began");
	is_int(parse("\xc3\xa9: 1\n\tb: 2\n"), TK_EDATA, "a tab after multi-byte text");
	is_str(err.msg, "t.yml:2:1: found a tab character that violates indentation while scanning "
	       "a plain scalar at 1:4 (a tab: YAML is indented with spaces only)",
	       "is named as a tab");
	is_int(parse("a: 1\nb: \xff\n"), TK_EDATA, "bytes that are not UTF-8");
	is_str(err.msg, "t.yml:2:4: invalid leading UTF-8 octet", "placed by their byte offset");
}

int main(void)
{
	test_nodes();
	test_ranges();
	test_aliases();
	test_limits();
	test_merge_keys();
	test_errors();
	tk_yaml_release(&y);
	return done_testing();
}
