/*
 * core/ci/bkapi: Buildkite's builds and artifacts lists in the shapes the
 * REST API documents, bad answers, the Link header, record names.
 */
#include <stdlib.h>
#include <string.h>

#include "core/ci/bkapi.h"
#include "tap.h"

/* a string literal and its length */
#define S(lit) (lit), strlen(lit)

static const char builds_page[] =
	"[{\"id\": \"f62a1b4d-10f9-4790-bc1c-e2c3a0c80983\", \"graphql_id\": \"QnVpbGQ\",\n"
	"  \"url\": \"https://api.buildkite.com/v2/organizations/clima/pipelines/coupler/builds/412\",\n"
	"  \"web_url\": \"https://buildkite.com/clima/coupler/builds/412\",\n"
	"  \"number\": 412, \"state\": \"passed\", \"blocked\": false, \"message\": \"Bump\",\n"
	"  \"commit\": \"3f2a9c1e0b7d\", \"branch\": \"main\", \"tag\": null, \"env\": {},\n"
	"  \"source\": \"webhook\", \"creator\": {\"id\": \"3d3c3bf0\", \"name\": \"K\"},\n"
	"  \"jobs\": [{\"id\": \"b63254c0-3271-4a98-8270-7cfbd6c2f14e\", \"type\": \"script\",\n"
	"             \"name\": \":julia: amip\", \"step_key\": \"amip\", \"state\": \"passed\"}],\n"
	"  \"created_at\": \"2026-05-09T21:05:59.874Z\", \"scheduled_at\": null,\n"
	"  \"started_at\": null, \"finished_at\": null, \"meta_data\": {},\n"
	"  \"pull_request\": null, \"pipeline\": {\"slug\": \"coupler\"}},\n"
	" {\"number\": 411, \"branch\": null}]";

static const char artifacts_page[] =
	"[{\"id\": \"76365070-34d5-4104-8b91-952780f8029f\",\n"
	"  \"job_id\": \"aae578fe-994c-44e6-84da-4102616928ba\",\n"
	"  \"url\": \"https://api.buildkite.com/v2/organizations/clima/pipelines/coupler/builds/1/jobs/aae578fe-994c-44e6-84da-4102616928ba/artifacts/76365070-34d5-4104-8b91-952780f8029f\",\n"
	"  \"download_url\": \"https://api.buildkite.com/v2/organizations/clima/pipelines/coupler/builds/1/jobs/aae578fe-994c-44e6-84da-4102616928ba/artifacts/76365070-34d5-4104-8b91-952780f8029f/download\",\n"
	"  \"state\": \"finished\", \"path\": \"tracker-artifacts/amip-8c1d2e3f-0000-4000-8000-0000000000aa.json\",\n"
	"  \"dirname\": \"tracker-artifacts\", \"filename\": \"amip-8c1d2e3f-0000-4000-8000-0000000000aa.json\",\n"
	"  \"mime_type\": \"application/json\", \"file_size\": 2310,\n"
	"  \"sha1sum\": \"884c4ad3f2545c85c69d0d0ef50c5d4f5266f0b7\",\n"
	"  \"glob_path\": null, \"original_path\": null}]";

static void test_builds(void)
{
	struct tk_bk_builds b = { NULL, 0, 0 };
	struct tk_err err = TK_ERR_INIT;

	is_int(tk_bkapi_parse_builds(builds_page, strlen(builds_page), "u", &b, &err), 0,
	       "a page of builds parses");
	is_int(b.nr, 2, "two builds");
	is_int(b.v[0].number, 412, "the number");
	is_str(b.v[0].branch, "main", "the branch");
	is_str(b.v[0].commit, "3f2a9c1e0b7d", "the commit");
	is_str(b.v[0].state, "passed", "the state");
	is_str(b.v[0].created_at, "2026-05-09T21:05:59.874Z", "created_at");
	is_str(b.v[0].web_url, "https://buildkite.com/clima/coupler/builds/412", "web_url");
	ok(b.v[1].branch == NULL && b.v[1].commit == NULL, "null and absent fields are NULL");
	tk_bkapi_builds_release(&b);
	is_int(tk_bkapi_parse_builds("[]", 2, "u", &b, &err), 0, "an empty page");
	is_int(b.nr, 0, "has no builds");
}

static void test_artifacts(void)
{
	struct tk_bk_artifacts a = { NULL, 0, 0 };
	struct tk_err err = TK_ERR_INIT;

	is_int(tk_bkapi_parse_artifacts(artifacts_page, strlen(artifacts_page), "u", &a, &err),
	       0, "a page of artifacts parses");
	is_int(a.nr, 1, "one artifact");
	is_str(a.v[0].filename, "amip-8c1d2e3f-0000-4000-8000-0000000000aa.json", "filename");
	is_str(a.v[0].job_id, "aae578fe-994c-44e6-84da-4102616928ba", "job_id");
	ok(a.v[0].download_url && strstr(a.v[0].download_url, "/download"), "download_url");
	is_int(a.v[0].file_size, 2310, "file_size");
	is_str(a.v[0].state, "finished", "state");
	/* a second page appends */
	is_int(tk_bkapi_parse_artifacts(artifacts_page, strlen(artifacts_page), "u", &a, &err),
	       0, "a second page");
	is_int(a.nr, 2, "appends");
	tk_bkapi_artifacts_release(&a);
}

static void test_bad(void)
{
	struct tk_bk_builds b = { NULL, 0, 0 };
	struct tk_bk_artifacts a = { NULL, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	const char *trunc = "[{\"number\": 3, \"branch\": ";

	is_int(tk_bkapi_parse_builds(trunc, strlen(trunc), "https://x/builds?page=2", &b, &err),
	       TK_EDATA, "truncated JSON is bad data");
	ok(strstr(err.msg, "'https://x/builds?page=2' at offset 25") != NULL,
	   "names the URL and the offset: %s", err.msg);
	is_int(tk_bkapi_parse_builds(S("{\"message\": \"Not Found\"}"), "u", &b, &err),
	       TK_EDATA, "an object is not a list");
	ok(strstr(err.msg, "expected a JSON array") != NULL, "says so: %s", err.msg);
	is_int(tk_bkapi_parse_builds(S("[{\"number\": 1}, {\"number\": -4}]"), "u", &b, &err),
	       TK_EDATA, "a negative build number");
	ok(strstr(err.msg, "build 1 needs") != NULL, "names the element: %s", err.msg);
	is_int(b.nr, 0, "nothing is kept from a bad page");
	is_int(tk_bkapi_parse_builds(S("[1]"), "u", &b, &err), TK_EDATA, "a number element");
	is_int(tk_bkapi_parse_builds(S("[{\"number\": 1, \"branch\": 7}]"), "u", &b, &err),
	       TK_EDATA, "a branch that is no string");
	is_int(tk_bkapi_parse_builds(S("[{\"number\": 1, \"number\": 2}]"), "u", &b, &err),
	       TK_EDATA, "duplicate keys");
	is_int(tk_bkapi_parse_artifacts(S("[{\"id\": \"x\", \"path\": \"p\"}]"), "u", &a, &err),
	       TK_EDATA, "an artifact without download_url");
	is_int(tk_bkapi_parse_artifacts(S("[{\"id\": \"x\", \"path\": \"a\\u0000b\", "
					  "\"download_url\": \"d\"}]"), "u", &a, &err),
	       TK_EDATA, "a path with a NUL");
	is_int(tk_bkapi_parse_artifacts("", 0, "u", &a, &err), TK_EDATA, "an empty body");
	/* a bad page after a good one: the good one's artifact is kept, the
	 * bad page's first artifact (good) is dropped */
	is_int(tk_bkapi_parse_artifacts(artifacts_page, strlen(artifacts_page), "u", &a, &err),
	       0, "a good page");
	is_int(tk_bkapi_parse_artifacts(S("[{\"id\": \"x\", \"path\": \"p\", \"download_url\": "
					  "\"d\"}, {\"id\": \"y\"}]"), "u", &a, &err),
	       TK_EDATA, "then a page whose second artifact has no path");
	ok(strstr(err.msg, "'u': artifact 1 needs \"id\", \"path\"") != NULL,
	   "names the element: %s", err.msg);
	is_int(a.nr, 1, "only the good page's artifact is kept");
	is_str(a.v[0].state, "finished", "and it is intact");
	is_int(tk_bkapi_parse_artifacts(S("[\"x\"]"), "u", &a, &err), TK_EDATA,
	       "a string element");
	ok(strstr(err.msg, "artifact 0 is not an object") != NULL, "says so: %s", err.msg);
	tk_bkapi_builds_release(&b);
	tk_bkapi_artifacts_release(&a);
}

static void test_link(void)
{
	struct tk_buf out = TK_BUF_INIT;

	is_int(tk_bkapi_next_link("<https://api.buildkite.com/v2/b?page=3&per_page=100>; "
				  "rel=\"next\", <https://api.buildkite.com/v2/b?page=9>; "
				  "rel=\"last\"", &out), 1, "a next link");
	is_str(out.buf, "https://api.buildkite.com/v2/b?page=3&per_page=100", "its URL");
	tk_buf_reset(&out);
	is_int(tk_bkapi_next_link("<https://x/b?page=1>; rel=\"first\", <https://x/b?page=2>; "
				  "rel=\"prev\"", &out), 0, "the last page has none");
	is_int(tk_bkapi_next_link("<https://x/b?a=1,2>; rel=\"last\",<https://x/b?p=2>;rel=next",
				  &out), 1, "a comma in a URL, an unquoted rel");
	is_str(out.buf, "https://x/b?p=2", "the right one");
	tk_buf_reset(&out);
	is_int(tk_bkapi_next_link("<https://x/b?p=2>; title=\"x\"; rel=\"prev next\"", &out), 1,
	       "one of several relations");
	tk_buf_reset(&out);
	is_int(tk_bkapi_next_link("<https://x/b?p=2>; rel=\"prev\"\n", &out), 0,
	       "a line break after a quoted relation (found by fuzzing: it looped)");
	is_int(tk_bkapi_next_link("<https://x/b?p=2>; rel=\"\"; rel=\"next\"\r\n", &out), 1,
	       "an empty relation, then next");
	tk_buf_reset(&out);
	is_int(tk_bkapi_next_link("", &out), 0, "no header");
	is_int(tk_bkapi_next_link("https://x/b; rel=next", &out), 0, "no angle brackets");
	is_int(tk_bkapi_next_link("<https://x/b; rel=next", &out), 0, "unclosed");
	is_int(tk_bkapi_next_link("<>; rel=next", &out), 0, "an empty URL");
	tk_buf_release(&out);
}

static void test_record_name(void)
{
	char id[37];

	is_int(tk_bkapi_record_name("amip-8c1d2e3f-0000-4000-8000-0000000000aa.json", id), 1,
	       "a record's name");
	is_str(id, "8c1d2e3f-0000-4000-8000-0000000000aa", "its run id");
	is_int(tk_bkapi_record_name("a-b-8c1d2e3f-0000-4000-8000-0000000000aa.json", id), 1,
	       "a key with dashes");
	is_int(tk_bkapi_record_name("-8c1d2e3f-0000-4000-8000-0000000000aa.json", id), 0,
	       "no key");
	is_int(tk_bkapi_record_name("amip-8C1D2E3F-0000-4000-8000-0000000000AA.json", id), 0,
	       "upper-case hex is not tracker's");
	is_int(tk_bkapi_record_name("amip-8c1d2e3f-0000-4000-8000-0000000000aa.cpu.tkprof", id),
	       0, "a profile");
	is_int(tk_bkapi_record_name("package.json", id), 0, "another JSON file");
}

int main(void)
{
	test_builds();
	test_artifacts();
	test_bad();
	test_link();
	test_record_name();
	return done_testing();
}
