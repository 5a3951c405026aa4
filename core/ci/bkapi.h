#ifndef TK_BKAPI_H
#define TK_BKAPI_H
/*
 * Buildkite REST API responses, parsed (https://buildkite.com/docs/api):
 * the list of a pipeline's builds, the list of a build's artifacts, and
 * the Link header that pages them. Only the fields tracker uses are kept;
 * unknown fields are ignored.
 *
 * The input is untrusted (a server, a proxy, a truncated transfer):
 * parsing never trusts a length or a type. A response that is not JSON,
 * or not an array of objects, or an element without its required fields,
 * is TK_EDATA "cannot parse the response of 'NAME' at offset N: what"
 * (N the byte offset jansson stopped at, or where the element starts is
 * not known: the element's index is named instead). Strings over
 * TK_BKAPI_STR_MAX bytes and lists over TK_BKAPI_LIST_MAX elements are
 * TK_EDATA too. Nothing here prints or touches the network; the fuzz
 * target fuzz/bkapi.c calls these directly.
 *
 * Lifecycle: a zeroed list is empty; tk_bkapi_*_release frees it.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/base/err.h"

#define TK_BKAPI_STR_MAX 8192
#define TK_BKAPI_LIST_MAX 10000

/* One build: "number" is required (a positive integer); the rest may be
 * NULL when absent or null. */
struct tk_bk_build {
	long number;
	char *id, *branch, *commit, *state, *created_at, *web_url;
};

struct tk_bk_builds {
	struct tk_bk_build *v;
	size_t nr, alloc;
};

/* One artifact: "id", "path" and "download_url" are required strings;
 * file_size is -1 when absent. */
struct tk_bk_artifact {
	char *id, *job_id, *path, *filename, *download_url, *state;
	int64_t file_size;
};

struct tk_bk_artifacts {
	struct tk_bk_artifact *v;
	size_t nr, alloc;
};

/* Appends the builds of text[0..len) (a JSON array) to out; name is the
 * URL the messages name. On error out keeps what it had before. */
int tk_bkapi_parse_builds(const char *text, size_t len, const char *name,
			  struct tk_bk_builds *out, struct tk_err *err);
int tk_bkapi_parse_artifacts(const char *text, size_t len, const char *name,
			     struct tk_bk_artifacts *out, struct tk_err *err);
void tk_bkapi_builds_release(struct tk_bk_builds *b);
void tk_bkapi_artifacts_release(struct tk_bk_artifacts *a);

/*
 * The rel="next" URL of an RFC 8288 Link header value
 * ('<https://...page=2>; rel="next", <...>; rel="last"'), appended to
 * out. Returns 1 when there is one, 0 when not (also for a malformed
 * header: paging simply ends).
 */
int tk_bkapi_next_link(const char *header, struct tk_buf *out);

/*
 * Whether an artifact's file name is a run record's, "<key>-<uuid>.json"
 * (core/model/record.h tk_run_record_name): 1 and the run id copied to id, or 0.
 */
int tk_bkapi_record_name(const char *filename, char id[37]);

#endif
