/*
 * Buildkite REST API responses (contract in core/ci/bkapi.h).
 */
#include "core/ci/bkapi.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "core/model/run.h"
#include "core/base/banned.h"

static int bad(struct tk_err *err, const char *name, const char *what, size_t index,
	       const char *field)
{
	return tk_err_set(err, TK_EDATA, "cannot parse the response of '%s': %s %zu %s",
			  name, what, index, field);
}

static json_t *load(const char *text, size_t len, const char *name, struct tk_err *err)
{
	json_error_t jerr;
	json_t *doc;

	memset(&jerr, 0, sizeof(jerr));
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		tk_err_set(err, TK_EDATA, "cannot parse the response of '%s' at offset %d: %s",
			   name, jerr.position, jerr.text);
		return NULL;
	}
	if (!json_is_array(doc)) {
		tk_err_set(err, TK_EDATA, "cannot parse the response of '%s' at offset 0: "
			   "expected a JSON array", name);
		json_decref(doc);
		return NULL;
	}
	if (json_array_size(doc) > TK_BKAPI_LIST_MAX) {
		tk_err_set(err, TK_EDATA, "cannot parse the response of '%s': over %d elements",
			   name, TK_BKAPI_LIST_MAX);
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/*
 * A string member: 0 with *out a copy (NULL when absent or null), -1 when
 * it is some other type, too long, or holds a NUL.
 */
static int get_str(json_t *o, const char *key, char **out)
{
	json_t *v = json_object_get(o, key);
	size_t len;

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	len = json_string_length(v);
	if (len > TK_BKAPI_STR_MAX || memchr(json_string_value(v), '\0', len))
		return -1;
	*out = tk_xstrndup(json_string_value(v), len);
	return 0;
}

static void build_release(void *elem)
{
	struct tk_bk_build *b = elem;

	free(b->id);
	free(b->branch);
	free(b->commit);
	free(b->state);
	free(b->created_at);
	free(b->web_url);
	memset(b, 0, sizeof(*b));
}

void tk_bkapi_builds_release(struct tk_bk_builds *b)
{
	size_t i;

	for (i = 0; i < b->nr; i++)
		build_release(&b->v[i]);
	free(b->v);
	memset(b, 0, sizeof(*b));
}

static void artifact_release(void *elem)
{
	struct tk_bk_artifact *a = elem;

	free(a->id);
	free(a->job_id);
	free(a->path);
	free(a->filename);
	free(a->download_url);
	free(a->state);
	memset(a, 0, sizeof(*a));
}

void tk_bkapi_artifacts_release(struct tk_bk_artifacts *a)
{
	size_t i;

	for (i = 0; i < a->nr; i++)
		artifact_release(&a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static const char *parse_build(json_t *o, void *elem)
{
	struct tk_bk_build *b = elem;
	json_t *n = json_object_get(o, "number");

	if (!json_is_integer(n) || json_integer_value(n) < 1 ||
	    json_integer_value(n) > 1000000000000LL)
		return "a positive integer \"number\"";
	b->number = (long)json_integer_value(n);
	if (get_str(o, "id", &b->id) || get_str(o, "branch", &b->branch) ||
	    get_str(o, "commit", &b->commit) || get_str(o, "state", &b->state) ||
	    get_str(o, "created_at", &b->created_at) || get_str(o, "web_url", &b->web_url))
		return "string fields (id, branch, commit, state, created_at, web_url) of at "
		       "most 8192 bytes";
	return NULL;
}

static const char *parse_artifact(json_t *o, void *elem)
{
	struct tk_bk_artifact *a = elem;
	json_t *size = json_object_get(o, "file_size");

	if (get_str(o, "id", &a->id) || get_str(o, "job_id", &a->job_id) ||
	    get_str(o, "path", &a->path) || get_str(o, "filename", &a->filename) ||
	    get_str(o, "download_url", &a->download_url) || get_str(o, "state", &a->state))
		return "string fields (id, job_id, path, filename, download_url, state) of at "
		       "most 8192 bytes";
	if (!a->id || !a->path || !a->download_url)
		return "\"id\", \"path\" and \"download_url\"";
	a->file_size = json_is_integer(size) && json_integer_value(size) >= 0 ?
		json_integer_value(size) : -1;
	return NULL;
}

/* One kind of element of a response's array. */
struct list_kind {
	const char *what; /* in messages: "build 3 needs ..." */
	size_t size;
	/* element i of the list, room made for it */
	void *(*at)(void *list, size_t i);
	/* NULL, or what the element needs (it is released either way) */
	const char *(*parse)(json_t *o, void *elem);
	void (*release)(void *elem);
};

/* Appends the elements of the array text[0..len) to list, whose count is
 * *nr; on an error, the list is left as it was. */
static int parse_list(const char *text, size_t len, const char *name,
		      const struct list_kind *k, void *list, size_t *nr, struct tk_err *err)
{
	json_t *doc = load(text, len, name, err), *o;
	size_t i, nr0 = *nr;

	if (!doc)
		return TK_EDATA;
	json_array_foreach(doc, i, o) {
		const char *why;
		void *e;

		if (!json_is_object(o)) {
			bad(err, name, k->what, i, "is not an object");
			goto fail;
		}
		e = k->at(list, *nr);
		memset(e, 0, k->size);
		why = k->parse(o, e);
		if (why) {
			k->release(e);
			tk_err_set(err, TK_EDATA, "cannot parse the response of '%s': %s %zu "
				   "needs %s", name, k->what, i, why);
			goto fail;
		}
		(*nr)++;
	}
	json_decref(doc);
	return 0;
fail:
	while (*nr > nr0)
		k->release(k->at(list, --*nr));
	json_decref(doc);
	return TK_EDATA;
}

static void *build_at(void *list, size_t i)
{
	struct tk_bk_builds *b = list;

	TK_ALLOC_GROW(b->v, i + 1, b->alloc);
	return &b->v[i];
}

static const struct list_kind build_kind = {
	"build", sizeof(struct tk_bk_build), build_at, parse_build, build_release,
};

int tk_bkapi_parse_builds(const char *text, size_t len, const char *name,
			  struct tk_bk_builds *out, struct tk_err *err)
{
	return parse_list(text, len, name, &build_kind, out, &out->nr, err);
}

static void *artifact_at(void *list, size_t i)
{
	struct tk_bk_artifacts *a = list;

	TK_ALLOC_GROW(a->v, i + 1, a->alloc);
	return &a->v[i];
}

static const struct list_kind artifact_kind = {
	"artifact", sizeof(struct tk_bk_artifact), artifact_at, parse_artifact,
	artifact_release,
};

int tk_bkapi_parse_artifacts(const char *text, size_t len, const char *name,
			     struct tk_bk_artifacts *out, struct tk_err *err)
{
	return parse_list(text, len, name, &artifact_kind, out, &out->nr, err);
}

/* what separates relation types in rel="a b" (and ends the header) */
#define REL_SEP " \t\"\r\n"

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Whether the parameters p..end (after the '>') hold rel="next" (or
 * rel=next, or next among several space-separated relations). */
static int rel_next(const char *p, const char *end)
{
	static const char next[] = "next";

	while (p < end) {
		const char *semi;

		p = skip_ws(p);
		if (*p == ';')
			p = skip_ws(p + 1);
		semi = memchr(p, ';', (size_t)(end - p));
		if (!semi)
			semi = end;
		if (semi - p > 4 && !strncasecmp(p, "rel", 3)) {
			const char *v = skip_ws(p + 3);

			if (*v == '=') {
				const char *w = v + 1;

				/* space-separated relation types, maybe quoted */
				while (w < semi) {
					size_t n;

					while (w < semi && strchr(REL_SEP, *w))
						w++;
					n = strcspn(w, REL_SEP);
					if (w + n > semi)
						n = (size_t)(semi - w);
					if (n == 4 && !strncasecmp(w, next, 4))
						return 1;
					w += n;
				}
			}
		}
		p = semi;
	}
	return 0;
}

int tk_bkapi_next_link(const char *header, struct tk_buf *out)
{
	const char *p = header;

	while (*p) {
		const char *lt, *gt, *end;

		p = skip_ws(p);
		if (*p == ',') {
			p++;
			continue;
		}
		lt = p;
		if (*lt != '<')
			return 0;
		gt = strchr(lt, '>');
		if (!gt)
			return 0;
		/* the parameters end at the next ',' (quoted strings hold none
		 * that matter: rel values are tokens) */
		end = strchr(gt, ',');
		if (!end)
			end = gt + strlen(gt);
		if (rel_next(gt + 1, end)) {
			if (gt - lt - 1 <= 0 || gt - lt - 1 > TK_BKAPI_STR_MAX)
				return 0;
			tk_buf_add(out, lt + 1, (size_t)(gt - lt - 1));
			return 1;
		}
		p = end;
	}
	return 0;
}

int tk_bkapi_record_name(const char *filename, char id[37])
{
	size_t len = strlen(filename);
	const char *u;

	/* "<key>-" + 36 + ".json", the key at least one byte */
	if (len < 1 + 1 + TK_RUN_ID_LEN + 5 || strcmp(filename + len - 5, ".json"))
		return 0;
	u = filename + len - 5 - TK_RUN_ID_LEN;
	if (u[-1] != '-')
		return 0;
	memcpy(id, u, TK_RUN_ID_LEN);
	id[TK_RUN_ID_LEN] = '\0';
	if (!tk_uuid_valid(id)) {
		id[0] = '\0';
		return 0;
	}
	return 1;
}
