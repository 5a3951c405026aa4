/*
 * Chrome DevTools / V8 / Node `.cpuprofile` (the Profiler.Profile of the
 * Chrome DevTools protocol):
 *
 *     { "nodes": [ { "id": 1, "callFrame": { "functionName": "(root)",
 *                    "url": "", "lineNumber": -1 }, "children": [2] }, ... ],
 *       "startTime": 100, "endTime": 900,          (microseconds)
 *       "samples": [2, 2, 3], "timeDeltas": [10, 250, 250] }
 *
 * Weights are time, as DevTools computes self time: sample i lasts from
 * its timestamp to the next sample's (timeDeltas[i + 1]); the last one
 * lasts until endTime. Negative deltas (V8 sometimes emits samples
 * slightly out of order) count as zero. Microseconds become nanoseconds.
 * Without timeDeltas each sample weighs 1 (unit samples); without samples
 * the nodes' hitCount is used (unit samples).
 *
 * Frame names: "functionName (url:line)" with the 1-based line DevTools
 * shows, "(anonymous)" for an empty function name, and just the name when
 * the url is empty ("(program)", "(garbage collector)", "(idle)", native
 * code). The "(root)" node is the tree's root, not a frame.
 *
 * Node parents come from "children" lists or from a "parent" field (the
 * trace-event variant); cycles and unknown ids are TK_EDATA.
 */
#include "plugins/import/importers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "plugins/import/json-util.h"
#include "core/base/banned.h"

#define NO_NODE ((size_t)-1)

struct cnode {
	json_int_t id;
	size_t index;     /* in nodes[] */
	size_t parent;    /* index, NO_NODE for none */
	uint32_t pnode;   /* profile node, valid when resolved */
	uint32_t depth;   /* frames from the root, valid when resolved */
	int resolved;
};

struct cp {
	const char *name;
	struct tk_err *err;
	struct cnode *nodes;
	size_t nr;
	size_t *by_id; /* indexes sorted by id */
};

static int cp_probe(const char *head, size_t len)
{
	return tk_json_starts(head, len, '{') && memmem(head, len, "\"nodes\"", 7) &&
	       memmem(head, len, "\"callFrame\"", 11);
}

#define bad(c, ...) tk_json_bad((c)->err, (c)->name, __VA_ARGS__)

static size_t find(const struct cp *c, json_int_t id)
{
	size_t lo = 0, hi = c->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		json_int_t got = c->nodes[c->by_id[mid]].id;

		if (got == id)
			return c->by_id[mid];
		if (got < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NO_NODE;
}

/* For sorting: qsort's comparator only sees elements, so ids travel with indexes. */
struct idx {
	json_int_t id;
	size_t index;
};

static int cmp_idx(const void *a, const void *b)
{
	json_int_t x = ((const struct idx *)a)->id, y = ((const struct idx *)b)->id;

	return x < y ? -1 : x > y;
}

static int index_nodes(struct cp *c, json_t *nodes)
{
	struct idx *tmp;
	size_t i;

	c->nr = json_array_size(nodes);
	c->nodes = tk_xcalloc(c->nr + 1, sizeof(*c->nodes));
	c->by_id = tk_xcalloc(c->nr + 1, sizeof(size_t));
	tmp = tk_xcalloc(c->nr + 1, sizeof(*tmp));
	for (i = 0; i < c->nr; i++) {
		json_t *id = json_object_get(json_array_get(nodes, i), "id");

		if (!json_is_integer(id)) {
			free(tmp);
			return bad(c, "nodes[%zu].id is not an integer", i);
		}
		c->nodes[i].id = json_integer_value(id);
		c->nodes[i].index = i;
		c->nodes[i].parent = NO_NODE;
		tmp[i].id = c->nodes[i].id;
		tmp[i].index = i;
	}
	qsort(tmp, c->nr, sizeof(*tmp), cmp_idx);
	for (i = 0; i < c->nr; i++) {
		if (i && tmp[i].id == tmp[i - 1].id) {
			json_int_t dup = tmp[i].id;

			free(tmp);
			return bad(c, "node id %lld appears twice", (long long)dup);
		}
		c->by_id[i] = tmp[i].index;
	}
	free(tmp);
	return 0;
}

static int link_parents(struct cp *c, json_t *nodes)
{
	size_t i, j;

	for (i = 0; i < c->nr; i++) {
		json_t *n = json_array_get(nodes, i);
		json_t *children = json_object_get(n, "children"), *parent = json_object_get(n, "parent");

		if (parent) {
			size_t pi = json_is_integer(parent) ? find(c, json_integer_value(parent)) : NO_NODE;

			if (pi == NO_NODE)
				return bad(c, "nodes[%zu].parent is not a node id", i);
			c->nodes[i].parent = pi;
		}
		if (!children)
			continue;
		if (!json_is_array(children))
			return bad(c, "nodes[%zu].children is not an array", i);
		for (j = 0; j < json_array_size(children); j++) {
			json_t *v = json_array_get(children, j);
			size_t ci = json_is_integer(v) ? find(c, json_integer_value(v)) : NO_NODE;

			if (ci == NO_NODE)
				return bad(c, "nodes[%zu].children[%zu] is not a node id", i, j);
			if (c->nodes[ci].parent != NO_NODE && c->nodes[ci].parent != i)
				return bad(c, "node %lld has two parents", (long long)c->nodes[ci].id);
			c->nodes[ci].parent = i;
		}
	}
	return 0;
}

static int frame_name(struct cp *c, struct tk_profile *p, json_t *node, size_t i,
		      struct tk_buf *tmp, uint32_t *id)
{
	json_t *cf = json_object_get(node, "callFrame");
	json_t *fn = json_object_get(cf, "functionName"), *url = json_object_get(cf, "url");
	json_t *line = json_object_get(cf, "lineNumber");
	const char *name = json_string_value(fn);
	size_t nlen = json_string_length(fn);

	if (!json_is_object(cf))
		return bad(c, "nodes[%zu] has no callFrame", i);
	if (!name || !nlen) {
		name = "(anonymous)";
		nlen = 11;
	}
	if (tk_json_frame_name(p, tmp, name, nlen, json_is_string(url) ? json_string_value(url) : "",
			       json_is_string(url) ? json_string_length(url) : 0,
			       json_is_integer(line) ? (long long)json_integer_value(line) + 1 : 0, id))
		return bad(c, "nodes[%zu]: name longer than %u bytes", i, TK_PROFILE_MAX_NAME);
	return 0;
}

static int is_root(json_t *node)
{
	const char *fn = json_string_value(json_object_get(json_object_get(node, "callFrame"),
							   "functionName"));

	return fn && !strcmp(fn, "(root)");
}

/* Gives every node its profile node, parents first, without recursion. */
static int resolve(struct cp *c, struct tk_profile *p, json_t *nodes)
{
	struct tk_buf tmp = TK_BUF_INIT;
	size_t *chain = tk_xcalloc(c->nr + 1, sizeof(size_t));
	size_t i;
	int ret = 0;

	for (i = 0; i < c->nr && !ret; i++) {
		size_t len = 0, at = i;

		while (at != NO_NODE && !c->nodes[at].resolved) {
			if (len >= c->nr) {
				ret = bad(c, "the parent links of node %lld form a cycle",
					  (long long)c->nodes[i].id);
				break;
			}
			chain[len++] = at;
			at = c->nodes[at].parent;
		}
		while (!ret && len) {
			size_t k = chain[--len], parent = c->nodes[k].parent;
			uint32_t pp = parent == NO_NODE ? TK_PROFILE_ROOT : c->nodes[parent].pnode;
			json_t *n = json_array_get(nodes, k);
			uint32_t name = 0;

			if (parent == NO_NODE && is_root(n)) {
				c->nodes[k].pnode = TK_PROFILE_ROOT;
			} else {
				c->nodes[k].depth = (parent == NO_NODE ? 0 : c->nodes[parent].depth) + 1;
				if (c->nodes[k].depth > TK_PROFILE_MAX_DEPTH) {
					ret = bad(c, "node %lld is deeper than %d frames",
						  (long long)c->nodes[k].id, TK_PROFILE_MAX_DEPTH);
					break;
				}
				ret = frame_name(c, p, n, k, &tmp, &name);
				if (ret)
					break;
				c->nodes[k].pnode = tk_profile_child(p, pp, name);
				if (!c->nodes[k].pnode) {
					ret = bad(c, "more than %u distinct stacks", TK_PROFILE_MAX_NODES);
					break;
				}
			}
			c->nodes[k].resolved = 1;
		}
	}
	free(chain);
	tk_buf_release(&tmp);
	return ret;
}

static int add_samples(struct cp *c, struct tk_profile *p, json_t *root, json_t *nodes)
{
	json_t *samples = json_object_get(root, "samples"), *deltas = json_object_get(root, "timeDeltas");
	size_t n = json_array_size(samples), i;
	double t = 0, end = 0, start = 0;
	int timed;

	if (!json_is_array(samples) || !n) {
		/* hitCount per node */
		p->unit = TK_UNIT_SAMPLES;
		for (i = 0; i < c->nr; i++) {
			double hits = 0;

			tk_json_number(json_object_get(json_array_get(nodes, i), "hitCount"), &hits);
			if (hits < 0)
				return bad(c, "nodes[%zu].hitCount is negative", i);
			if (hits > 0 && tk_profile_add_self(p, c->nodes[i].pnode, hits))
				return bad(c, "nodes[%zu].hitCount %g %s", i, hits,
					   tk_profile_weight_error(p, hits));
		}
		return 0;
	}
	timed = json_is_array(deltas);
	if (timed && json_array_size(deltas) != n)
		return bad(c, "samples has %zu entries but timeDeltas %zu", n, json_array_size(deltas));
	p->unit = timed ? TK_UNIT_NANOSECONDS : TK_UNIT_SAMPLES;
	if (timed) {
		tk_json_number(json_object_get(root, "startTime"), &start);
		for (i = 0; i < n; i++) {
			double d;

			if (!tk_json_number(json_array_get(deltas, i), &d))
				return bad(c, "timeDeltas[%zu] is not a number", i);
			t += d;
		}
		t += start;
		if (!tk_json_number(json_object_get(root, "endTime"), &end))
			end = t;
	}
	for (i = 0; i < n; i++) {
		json_t *v = json_array_get(samples, i);
		size_t k = json_is_integer(v) ? find(c, json_integer_value(v)) : NO_NODE;
		double w = 1;

		if (k == NO_NODE)
			return bad(c, "samples[%zu] is not a node id", i);
		if (timed) {
			if (i + 1 < n)
				w = json_number_value(json_array_get(deltas, i + 1));
			else
				w = end - t;
			if (!(w > 0))
				w = 0;
			w *= 1000;
		}
		if (w > 0 && tk_profile_add_self(p, c->nodes[k].pnode, w))
			return bad(c, "samples[%zu]: the time %g %s", i, w,
				   tk_profile_weight_error(p, w));
	}
	return 0;
}

static int cp_parse(struct tk_reader *in, struct tk_profile *p,
		    const struct tk_import_opts *opts, struct tk_err *err)
{
	struct tk_buf text = TK_BUF_INIT;
	json_t *root = NULL, *nodes;
	struct cp c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.name = in->name;
	c.err = err;
	ret = tk_json_load(in, &text, &root, err);
	if (ret)
		goto out;
	nodes = json_object_get(root, "nodes");
	if (!json_is_array(nodes)) {
		if (json_object_get(root, "head"))
			ret = tk_err_set(err, TK_EUNSUPPORTED,
					 "cannot import '%s': the old cpuprofile format (a \"head\" tree) is not supported",
					 in->name);
		else
			ret = tk_err_set(err, TK_ENOTMINE, "no nodes array");
		goto out;
	}
	ret = index_nodes(&c, nodes);
	if (!ret)
		ret = link_parents(&c, nodes);
	if (!ret)
		ret = resolve(&c, p, nodes);
	if (!ret)
		ret = add_samples(&c, p, root, nodes);
	(void)opts;
out:
	json_decref(root);
	tk_buf_release(&text);
	free(c.nodes);
	free(c.by_id);
	return ret;
}

const struct tk_importer tk_import_cpuprofile = {
	.version = TK_IMPORTER_VERSION,
	.name = "cpuprofile",
	.summary = "Chrome DevTools / V8 / Node .cpuprofile JSON",
	.probe = cp_probe,
	.parse = cp_parse,
};
