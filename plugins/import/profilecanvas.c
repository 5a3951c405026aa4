/*
 * Julia ProfileCanvas.jl HTML pages (ProfileCanvas.html_file, or the
 * text/html display of @profview / @profview_allocs). The page embeds the
 * profile as the second argument of a JavaScript call:
 *
 *     const viewer = new ProfileCanvas.ProfileViewer("#profiler-container-123",
 *             {"all": TREE, "1": TREE, ...}, "Thread")
 *
 * for CPU profiles (one tree for all threads, one per thread id), and
 *
 *     ... ProfileViewer("#id", {"size": TREE, "count": TREE}, "Allocation")
 *
 * for allocation profiles (bytes and number of allocations). A TREE node
 * is {"func", "file", "path", "line", "count", "countLabel", "flags",
 * "taskId", "children": [...]}; the top node is named "root". The tree is
 * already merged and count is inclusive, so a node's self weight is its
 * count minus its children's counts. ProfileCanvas's allocation trees can
 * give a node less than its children (an upstream quirk when an
 * allocation type first appears); such negative self weights count as 0.
 *
 * Which tree (opts->kind): NULL takes the first viewer on the page and its
 * "all" (CPU) or "size" (allocations) tree; "cpu" the first CPU viewer's
 * "all"; "alloc" the first allocation viewer's "size" (bytes);
 * "alloc-count" its "count"; any other kind names a tree key ("1" for
 * thread 1). Units: samples, bytes, count.
 *
 * Frame names are "func (file:line)" (file is the base name ProfileCanvas
 * shows); the synthetic "root" is not a frame. A node's "flags" become
 * its name's category (core/model/profile.h): runtime dispatch (0x01),
 * GC (0x02), compilation (0x08), task (0x10); REPL (0x04) is none.
 */
#include "plugins/import/importers.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/import.h"
#include "plugins/import/json-util.h"
#include "core/base/banned.h"

#define CALL "ProfileViewer("
#define MAX_VIEWERS 64

struct viewer {
	json_t *data;
	char type[16]; /* "Thread", "Allocation" or "" */
};

struct pc {
	const char *name;
	struct tk_err *err;
	struct tk_buf tmp;
	size_t nodes;
};

static int pc_probe(const char *head, size_t len)
{
	return memmem(head, len, "ProfileCanvas", 13) && memmem(head, len, "<", 1) &&
	       (memmem(head, len, "<html", 5) || memmem(head, len, "<div", 4) ||
		memmem(head, len, "<script", 7));
}

static size_t skip_ws(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* Skips a JavaScript string literal at s[i]; returns the index after it,
 * or 0 when there is none. The contents (unescaped) go to out. */
static size_t skip_string(const char *s, size_t len, size_t i, char *out, size_t outlen)
{
	char q;
	size_t o = 0;

	if (i >= len || (s[i] != '"' && s[i] != '\''))
		return 0;
	q = s[i++];
	while (i < len && s[i] != q) {
		if (s[i] == '\\')
			i++;
		if (i < len && o + 1 < outlen)
			out[o++] = s[i];
		i++;
	}
	if (outlen)
		out[o] = 0;
	return i < len ? i + 1 : 0;
}

static void position(const char *s, size_t at, int *line, int *col)
{
	size_t i;

	*line = 0;
	*col = 0;
	for (i = 0; i < at; i++) {
		if (s[i] == '\n') {
			(*line)++;
			*col = 0;
		} else {
			(*col)++;
		}
	}
}

/* Finds the viewers' data on the page. */
static int find_viewers(struct pc *c, const struct tk_buf *html, struct viewer *v, size_t *nr)
{
	const char *s = html->buf;
	size_t len = html->len, at = 0;
	int ret0 = tk_json_check_cost(c->name, s, len, c->err);

	*nr = 0;
	if (ret0)
		return ret0;
	for (;;) {
		const char *hit = memmem(s + at, len - at, CALL, sizeof(CALL) - 1);
		size_t i, used = 0;
		int line, col, ret;
		char dummy[1];

		if (!hit)
			break;
		i = (size_t)(hit - s) + sizeof(CALL) - 1;
		at = i;
		i = skip_ws(s, len, i);
		i = skip_string(s, len, i, dummy, 0);
		if (!i)
			continue;
		i = skip_ws(s, len, i);
		if (i >= len || s[i] != ',')
			continue;
		i = skip_ws(s, len, i + 1);
		if (i >= len || s[i] != '{')
			continue;
		if (*nr >= MAX_VIEWERS)
			break;
		position(s, i, &line, &col);
		ret = tk_json_parse(c->name, s + i, len - i, JSON_DISABLE_EOF_CHECK, line, col,
				    &v[*nr].data, &used, c->err);
		if (ret)
			return ret;
		i = skip_ws(s, len, i + used);
		v[*nr].type[0] = 0;
		if (i < len && s[i] == ',')
			skip_string(s, len, skip_ws(s, len, i + 1), v[*nr].type, sizeof(v[*nr].type));
		(*nr)++;
		at = i;
	}
	if (!*nr)
		return tk_err_set(c->err, TK_ENOTMINE, "no ProfileCanvas.ProfileViewer call with data");
	return 0;
}

#define bad(c, ...) tk_json_bad((c)->err, (c)->name, __VA_ARGS__)

static double count_of(json_t *node)
{
	double v = 0;

	tk_json_number(json_object_get(node, "count"), &v);
	return v;
}

/* ProfileCanvas.ProfileFrameFlag: the bits of a node's "flags" and the
 * category each stands for (REPL, 0x04, is none). */
static void set_categories(struct tk_profile *p, uint32_t name, json_t *flags)
{
	static const struct {
		unsigned bit;
		enum tk_category cat;
	} bits[] = {
		{ 0x01, TK_CAT_DISPATCH },
		{ 0x02, TK_CAT_GC },
		{ 0x08, TK_CAT_COMPILATION },
		{ 0x10, TK_CAT_TASK },
	};
	json_int_t f;
	size_t i;

	if (!json_is_integer(flags))
		return;
	f = json_integer_value(flags);
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (f & bits[i].bit)
			tk_profile_set_category(p, name, bits[i].cat);
}

/* Adds node's subtree under parent. Depth is bounded by jansson's nesting limit. */
static int walk(struct pc *c, struct tk_profile *p, json_t *node, uint32_t parent, int top)
{
	json_t *children = json_object_get(node, "children");
	uint32_t me = parent, name;
	double self = count_of(node);
	size_t i;
	int ret;

	if (!json_is_object(node))
		return bad(c, "a tree node is not an object");
	if (!top) {
		json_t *fn = json_object_get(node, "func"), *file = json_object_get(node, "file");
		json_t *line = json_object_get(node, "line");

		if (!json_is_string(fn))
			return bad(c, "a tree node has no func string");
		if (tk_json_frame_name(p, &c->tmp, json_string_value(fn), json_string_length(fn),
				       json_is_string(file) ? json_string_value(file) : "",
				       json_is_string(file) ? json_string_length(file) : 0,
				       json_is_integer(line) ? (long long)json_integer_value(line) : 0,
				       &name))
			return bad(c, "a frame name is longer than %u bytes", TK_PROFILE_MAX_NAME);
		me = tk_profile_child(p, parent, name);
		if (!me)
			return bad(c, "more than %u distinct stacks", TK_PROFILE_MAX_NODES);
		set_categories(p, name, json_object_get(node, "flags"));
	}
	if (children && !json_is_array(children))
		return bad(c, "a tree node's children is not an array");
	for (i = 0; i < json_array_size(children); i++) {
		json_t *child = json_array_get(children, i);

		self -= count_of(child);
		ret = walk(c, p, child, me, 0);
		if (ret)
			return ret;
	}
	if (!top && self > 0 && tk_profile_add_self(p, me, self))
		return bad(c, "a count of %g %s", self, tk_profile_weight_error(p, self));
	return 0;
}

static int pick(struct pc *c, const struct viewer *v, size_t nr, const char *kind,
		json_t **tree, enum tk_unit *unit)
{
	const char *key = NULL, *want = NULL;
	size_t i;

	if (!kind) {
		want = v[0].type;
	} else if (!strcmp(kind, "cpu")) {
		want = "Thread";
		key = "all";
	} else if (!strcmp(kind, "alloc")) {
		want = "Allocation";
		key = "size";
	} else if (!strcmp(kind, "alloc-count")) {
		want = "Allocation";
		key = "count";
	}
	for (i = 0; i < nr; i++) {
		const char *k = key;

		if (want && strcmp(v[i].type, want))
			continue;
		if (!want) {
			if (!json_object_get(v[i].data, kind))
				continue;
			k = kind;
		}
		if (!k)
			k = !strcmp(v[i].type, "Allocation") ? "size" : "all";
		*tree = json_object_get(v[i].data, k);
		if (!*tree && !key && want) {
			/* an unknown layout: its first tree */
			const char *first;
			json_t *val;

			json_object_foreach(v[i].data, first, val) {
				*tree = val;
				k = first;
				break;
			}
		}
		if (!*tree)
			continue;
		*unit = !strcmp(v[i].type, "Allocation") ?
			(!strcmp(k, "count") ? TK_UNIT_COUNT : TK_UNIT_BYTES) : TK_UNIT_SAMPLES;
		return 0;
	}
	return tk_err_set(c->err, TK_EUSAGE, "'%s' has no %s profile (its first viewer is '%s')",
			  c->name, kind ? kind : "default", v[0].type);
}

static int pc_parse(struct tk_reader *in, struct tk_profile *p,
		    const struct tk_import_opts *opts, struct tk_err *err)
{
	struct tk_buf html = TK_BUF_INIT;
	struct viewer v[MAX_VIEWERS];
	struct pc c;
	json_t *tree = NULL;
	size_t nr = 0, i;
	enum tk_unit unit = TK_UNIT_SAMPLES;
	int ret;

	memset(&c, 0, sizeof(c));
	c.name = in->name;
	c.err = err;
	tk_buf_init(&c.tmp, 0);
	ret = tk_reader_slurp(in, &html, TK_JSON_MAX_BYTES, err);
	if (!ret)
		ret = find_viewers(&c, &html, v, &nr);
	if (!ret)
		ret = pick(&c, v, nr, opts->kind, &tree, &unit);
	if (!ret) {
		p->unit = unit;
		ret = walk(&c, p, tree, TK_PROFILE_ROOT, 1);
	}
	for (i = 0; i < nr; i++)
		json_decref(v[i].data);
	tk_buf_release(&c.tmp);
	tk_buf_release(&html);
	return ret;
}

const struct tk_importer tk_import_profilecanvas = {
	.version = TK_IMPORTER_VERSION,
	.name = "profilecanvas",
	.summary = "Julia ProfileCanvas.jl HTML pages (CPU and allocation profiles)",
	.probe = pc_probe,
	.parse = pc_parse,
};
