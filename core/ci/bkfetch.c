/*
 * Backfilling the history from Buildkite's REST API (contract in
 * core/ci/bkfetch.h): builds, their artifacts, the run records among them and
 * the profiles the records list, stored as tracker push stores them.
 */
#include "core/ci/bkfetch.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ci/bkapi.h"
#include "core/store/bundle.h"
#include "core/base/fsutil.h"
#include "core/ci/http.h"
#include "core/model/profcodec.h"
#include "core/model/run.h"
#include "core/model/record.h"
#include "core/base/timeutil.h"
#include "core/base/banned.h"

/* An API page of 100 builds with their jobs is a few hundred KiB. */
#define PAGE_MAX (64u << 20)

struct walk {
	struct tk_store *s;
	const struct tk_bkfetch_opts *o;
	struct tk_bkfetch_stats *st;
	struct tk_http *h;
	struct tk_buf api;    /* the base URL without a trailing slash */
	struct tk_buf dir;    /* the private temporary directory */
	struct tk_buf keyname; /* o->key as record names spell it */
	int done;             /* want_runs reached */
	uint64_t bytes;       /* received in all: pages and downloads */
	uint64_t build_bytes; /* downloaded for the build under way */
	uint64_t max_bytes;
	size_t pages;         /* list pages received in all */
};

/* The URLs of one list's pages, as hashes: a next link seen before is a
 * loop the API should never make. */
struct seen_urls {
	uint64_t *v;
	size_t nr, alloc;
};

static int seen_before(struct seen_urls *s, const char *url)
{
	uint64_t hash = 1469598103934665603ull;
	size_t i;

	for (; *url; url++)
		hash = (hash ^ (unsigned char)*url) * 1099511628211ull;
	for (i = 0; i < s->nr; i++)
		if (s->v[i] == hash)
			return 1;
	TK_ALLOC_GROW(s->v, s->nr + 1, s->alloc);
	s->v[s->nr++] = hash;
	return 0;
}

void tk_bkfetch_opts_init(struct tk_bkfetch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->retries = -1;
}

static const char *nonempty(const char *s)
{
	return s && *s ? s : NULL;
}

int tk_bkfetch_opts_from_env(struct tk_bkfetch_opts *o, const struct tk_env *env,
			     struct tk_err *err)
{
	const char *v;
	long n;

	if (!o->token)
		o->token = nonempty(tk_env_get(env, "BUILDKITE_API_TOKEN"));
	if (!o->org)
		o->org = nonempty(tk_env_get(env, "BUILDKITE_ORGANIZATION_SLUG"));
	if (!o->pipeline)
		o->pipeline = nonempty(tk_env_get(env, "BUILDKITE_PIPELINE_SLUG"));
	if (!o->api)
		o->api = nonempty(tk_env_get(env, "TRACKER_BUILDKITE_API"));
	if (!o->tmpdir)
		o->tmpdir = nonempty(tk_env_get(env, "TMPDIR"));
	v = nonempty(tk_env_get(env, "TRACKER_FETCH_DEADLINE"));
	if (v && o->deadline_s <= 0) {
		if (tk_parse_duration(v, &o->deadline_s, err) || !(o->deadline_s > 0))
			return tk_err_set(err, TK_EUSAGE, "TRACKER_FETCH_DEADLINE wants a "
					  "duration such as 10m, not '%s'", v);
	}
	v = nonempty(tk_env_get(env, "TRACKER_FETCH_TIMEOUT"));
	if (v && o->timeout_s <= 0) {
		if (tk_parse_duration(v, &o->timeout_s, err) || !(o->timeout_s > 0))
			return tk_err_set(err, TK_EUSAGE, "TRACKER_FETCH_TIMEOUT wants a "
					  "duration such as 30s, not '%s'", v);
	}
	v = nonempty(tk_env_get(env, "TRACKER_FETCH_RETRIES"));
	if (v && o->retries < 0) {
		if (tk_parse_long(v, &n) || n < 0 || n > 100)
			return tk_err_set(err, TK_EUSAGE, "TRACKER_FETCH_RETRIES wants 0 to 100, "
					  "not '%s'", v);
		o->retries = (int)n;
	}
	return 0;
}

/* ---- URLs ---- */

/* Percent-encodes s as one path segment or query value. */
static void add_escaped(struct tk_buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '.' || c == '_' || c == '~') {
			tk_buf_addch(b, c);
		} else {
			tk_buf_addch(b, '%');
			tk_buf_addch(b, hex[c >> 4]);
			tk_buf_addch(b, hex[c & 15]);
		}
	}
}

static void pipeline_url(struct walk *w, struct tk_buf *url)
{
	tk_buf_addf(url, "%s/v2/organizations/", w->api.buf);
	add_escaped(url, w->o->org);
	tk_buf_adds(url, "/pipelines/");
	add_escaped(url, w->o->pipeline);
}

static void builds_url(struct walk *w, struct tk_buf *url)
{
	pipeline_url(w, url);
	tk_buf_adds(url, "/builds?per_page=100");
	if (w->o->branch) {
		tk_buf_adds(url, "&branch=");
		add_escaped(url, w->o->branch);
	}
	if (w->o->since_us > 0) {
		struct tk_buf iso = TK_BUF_INIT;

		tk_format_iso(&iso, w->o->since_us);
		tk_buf_adds(url, "&created_from=");
		add_escaped(url, iso.buf);
		tk_buf_release(&iso);
	}
}

/* ---- talking to the API ---- */

/*
 * What an HTTP error means for the walk: the API's 401/403, 404 of a
 * list, and failures past the retries stop it (returned as they are,
 * with the token advice for 401/403); whatever else went wrong with one
 * artifact (a 404, a storage host's 403 for an expired link, a body over
 * the cap) is that record's fault.
 */
static int api_error(struct walk *w, int ret, const struct tk_http_result *res, int list,
		     struct tk_err *err)
{
	long status = res->status;

	if (res->authed && (status == 401 || status == 403))
		return tk_err_prefix(err, "the Buildkite API refused the token (check "
				     "BUILDKITE_API_TOKEN and its read_builds and "
				     "read_artifacts scopes)");
	if (list && status == 404) {
		tk_err_prefix(err, "no pipeline '%s/%s' this token can read", w->o->org,
			      w->o->pipeline);
		return err->code = TK_EUNAVAIL;
	}
	if (ret == TK_EUNAVAIL && (status == 0 || status == 429 || status >= 500))
		return ret;
	return list ? ret : 1;
}

/* The walk's budget in all: TK_EDATA once max_bytes were received. */
static int over_budget(struct walk *w, struct tk_err *err)
{
	if (w->bytes < w->max_bytes)
		return 0;
	return tk_err_set(err, TK_EDATA, "received %llu bytes from the API and its storage, "
			  "the bound of %llu (--max-bytes): stopped", (unsigned long long)w->bytes,
			  (unsigned long long)w->max_bytes);
}

/* GETs one page of a list into body; 0, or a negative error. */
static int get_page(struct walk *w, const char *url, struct tk_buf *body,
		    struct tk_buf *next, struct tk_err *err)
{
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	int ret;

	tk_buf_reset(body);
	body->cap = PAGE_MAX;
	ret = over_budget(w, err);
	if (!ret && ++w->pages > TK_BKFETCH_PAGES_MAX)
		ret = tk_err_set(err, TK_EDATA, "the API's lists ran past %u pages in all: "
				 "stopped", TK_BKFETCH_PAGES_MAX);
	if (!ret) {
		ret = tk_http_get(w->h, url, body, &res, err);
		w->bytes += body->len;
	}
	if (ret)
		ret = api_error(w, ret, &res, 1, err);
	tk_buf_reset(next);
	if (!ret)
		tk_bkapi_next_link(res.link.buf, next);
	tk_buf_release(&res.link);
	return ret;
}

/* ---- one record ---- */

static void __attribute__((format(printf, 2, 3)))
warn(struct walk *w, const char *fmt, ...)
{
	struct tk_buf msg = TK_BUF_INIT;
	va_list ap;

	if (!w->o->warn)
		return;
	va_start(ap, fmt);
	tk_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	w->o->warn(w->o->cb_data, msg.buf);
	tk_buf_release(&msg);
}

struct seen {
	int found, partial, ok;
};

static int on_summary(const struct tk_run_summary *s, void *data)
{
	struct seen *sn = data;

	sn->found = 1;
	sn->partial = s->partial;
	sn->ok = s->status == TK_RUN_OK && !s->partial;
	return 1;
}

/* Whether run id is stored (complete), and whether it counts toward
 * want_runs. */
static int stored_before(struct walk *w, const char *id, int *present, int *counts,
			 struct tk_err *err)
{
	struct tk_run_query q;
	struct seen sn;
	const char *keys[2] = { w->o->key, NULL };
	int ret;

	memset(&q, 0, sizeof(q));
	memset(&sn, 0, sizeof(sn));
	q.run_id = id;
	ret = tk_store_query_summaries(w->s, &q, on_summary, &sn, err);
	if (ret < 0)
		return ret;
	*present = sn.found && !sn.partial;
	*counts = 0;
	if (!*present || !w->o->want_runs)
		return 0;
	if (w->o->key)
		q.keys = keys;
	q.profile_kind = w->o->want_kind;
	memset(&sn, 0, sizeof(sn));
	ret = tk_store_query_summaries(w->s, &q, on_summary, &sn, err);
	if (ret < 0)
		return ret;
	*counts = sn.found && (!w->o->want_ok || sn.ok);
	return 0;
}

/* A profile file name a record may list: a plain name in its directory. */
static int plain_name(const char *f)
{
	return f && *f && f[0] != '.' && !strchr(f, '/') && strlen(f) <= 255;
}

/* The artifact at path dir + file, of job_id when there is one. */
static const struct tk_bk_artifact *find_artifact(const struct tk_bk_artifacts *arts,
						  const char *dir, size_t dlen,
						  const char *file, const char *job_id)
{
	const struct tk_bk_artifact *any = NULL;
	size_t i, flen = strlen(file);

	for (i = 0; i < arts->nr; i++) {
		const struct tk_bk_artifact *a = &arts->v[i];

		if (strlen(a->path) != dlen + flen || strncmp(a->path, dir, dlen) ||
		    strcmp(a->path + dlen, file))
			continue;
		if (a->state && strcmp(a->state, "finished"))
			continue;
		if (job_id && a->job_id && !strcmp(job_id, a->job_id))
			return a;
		if (!any)
			any = a;
	}
	return any;
}

/*
 * Downloads artifact a into body (capped). Returns 0; 1 when this
 * artifact cannot be had (err says why); a negative error that stops the
 * walk.
 */
static int download(struct walk *w, const struct tk_bk_artifact *a, struct tk_buf *body,
		    size_t cap, struct tk_err *err)
{
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	int ret;

	tk_buf_reset(body);
	body->cap = cap;
	ret = over_budget(w, err);
	if (ret)
		return ret;
	if (w->build_bytes >= TK_BKFETCH_BUILD_BYTES) {
		tk_err_set(err, TK_EDATA, "the build's downloads passed %llu bytes",
			   (unsigned long long)TK_BKFETCH_BUILD_BYTES);
		return 1;
	}
	ret = tk_http_get(w->h, a->download_url, body, &res, err);
	w->bytes += body->len;
	w->build_bytes += body->len;
	if (ret)
		ret = api_error(w, ret, &res, 0, err);
	tk_buf_release(&res.link);
	return ret;
}

/*
 * Whether the file at path (a profile just downloaded) can be a stored
 * profile by its first bytes (tk_profile_check_head): junk is refused
 * here, before the store would read all of it. 0, or TK_EDATA; a file
 * that cannot be read is TK_EUNAVAIL.
 */
static int check_profile_file(const char *path, const char *name, struct tk_err *err)
{
	unsigned char head[8];
	struct stat st;
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), ret;

	if (fd >= 0 && !fstat(fd, &st)) {
		do
			n = read(fd, head, sizeof(head));
		while (n < 0 && errno == EINTR);
	}
	if (n < 0) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot read '%s': %s", path, strerror(errno));
	} else {
		ret = tk_profile_check_head(head, (size_t)n, (uint64_t)st.st_size, name, err);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * Downloads artifact a, a profile, to path (capped), streamed to the
 * disk (tk_http_get_file): memory does not grow with its size. Returns
 * 0; 1 when this artifact cannot be had or is no stored profile (err
 * says why, path is not there); a negative error that stops the walk (a
 * file that cannot be written among them: the disk is full).
 */
static int download_file(struct walk *w, const struct tk_bk_artifact *a, const char *path,
			 uint64_t cap, struct tk_err *err)
{
	struct tk_http_result res = { 0, TK_BUF_INIT, 0, 0 };
	uint64_t size = 0;
	int ret;

	ret = over_budget(w, err);
	if (ret)
		return ret;
	if (w->build_bytes >= TK_BKFETCH_BUILD_BYTES) {
		tk_err_set(err, TK_EDATA, "the build's downloads passed %llu bytes",
			   (unsigned long long)TK_BKFETCH_BUILD_BYTES);
		return 1;
	}
	ret = tk_http_get_file(w->h, a->download_url, path, cap, &size, &res, err);
	w->bytes += size;
	w->build_bytes += size;
	if (ret && res.local)
		ret = TK_EUNAVAIL;
	else if (ret)
		ret = api_error(w, ret, &res, 0, err);
	else
		ret = check_profile_file(path, a->path, err);
	if (ret == TK_EDATA) {
		unlink(path);
		ret = 1;
	}
	tk_buf_release(&res.link);
	return ret;
}

static void drop_profile(struct tk_run *run, size_t i)
{
	struct tk_run_profile *rp = &run->profiles[i];

	free(rp->kind);
	free(rp->unit);
	free(rp->format);
	free(rp->file);
	memmove(rp, rp + 1, (run->nr_profiles - i - 1) * sizeof(*rp));
	run->nr_profiles--;
}

static int has_kind(const struct tk_run *run, const char *kind)
{
	size_t i;

	if (!kind)
		return 1;
	for (i = 0; i < run->nr_profiles; i++)
		if (run->profiles[i].kind && !strcmp(run->profiles[i].kind, kind))
			return 1;
	return 0;
}

/*
 * Fetches the profiles run lists into w->dir, dropping (with a warning)
 * those that cannot be had. Paths written are appended to files, one per
 * line, for removal.
 */
static int fetch_profiles(struct walk *w, const struct tk_bk_build *b,
			  const struct tk_bk_artifacts *arts, const struct tk_bk_artifact *rec,
			  struct tk_run *run, struct tk_buf *files, struct tk_err *err)
{
	const char *slash = strrchr(rec->path, '/');
	size_t dlen = slash ? (size_t)(slash - rec->path + 1) : 0;
	struct tk_buf path = TK_BUF_INIT;
	size_t i = 0;
	int ret = 0;

	while (i < run->nr_profiles) {
		struct tk_run_profile *rp = &run->profiles[i];
		const struct tk_bk_artifact *a = NULL;
		struct tk_err perr = TK_ERR_INIT;

		if (plain_name(rp->file))
			a = find_artifact(arts, rec->path, dlen, rp->file, rec->job_id);
		if (!a) {
			warn(w, "build #%ld: the %s profile '%s' of '%s' is not among the "
			     "build's artifacts; the run is stored without it", b->number,
			     rp->kind ? rp->kind : "?", rp->file ? rp->file : "", rec->path);
			drop_profile(run, i);
			continue;
		}
		tk_buf_reset(&path);
		tk_buf_addf(&path, "%s/%s", w->dir.buf, rp->file);
		ret = download_file(w, a, path.buf, TK_BUNDLE_PROFILE_MAX, &perr);
		if (ret < 0) {
			*err = perr;
			break;
		}
		if (ret) {
			warn(w, "build #%ld: cannot download the %s profile '%s': %s; the run is "
			     "stored without it", b->number, rp->kind ? rp->kind : "?", a->path,
			     perr.msg);
			drop_profile(run, i);
			ret = 0;
			continue;
		}
		tk_buf_addf(files, "%s\n", path.buf);
		i++;
	}
	tk_buf_release(&path);
	return ret;
}

static void remove_files(struct tk_buf *files)
{
	char *p = files->buf, *nl;

	while ((nl = strchr(p, '\n'))) {
		*nl = '\0';
		unlink(p);
		p = nl + 1;
	}
	tk_buf_reset(files);
}

static void count_wanted(struct walk *w, int counts)
{
	if (counts)
		w->st->wanted++;
	if (w->o->want_runs && w->st->wanted >= w->o->want_runs)
		w->done = 1;
}

/*
 * A record artifact's first half: 0 with *ready set when run holds the
 * parsed record, which needs its profiles and storing (store_record);
 * 0 with *ready clear when it was stored before, skipped or failed (as
 * counted); or a negative error that stops the walk.
 */
static int read_record(struct walk *w, const struct tk_bk_build *b,
		       const struct tk_bk_artifact *rec, const char *id, struct tk_run *run,
		       int *ready, struct tk_err *err)
{
	struct tk_buf body = TK_BUF_INIT;
	struct tk_err rerr = TK_ERR_INIT;
	int present = 0, counts = 0, ret;

	*ready = 0;
	ret = stored_before(w, id, &present, &counts, err);
	if (ret < 0)
		goto out;
	if (present) {
		w->st->already++;
		count_wanted(w, counts);
		goto out;
	}
	ret = download(w, rec, &body, TK_BUNDLE_RECORD_MAX, &rerr);
	if (ret < 0) {
		*err = rerr;
		goto out;
	}
	/* the parser tracker push reads record files with */
	if (!ret)
		ret = tk_run_from_json(body.buf, body.len, rec->path, run, &rerr);
	if (!ret)
		ret = tk_run_check_key(run->key, &rerr);
	if (ret) {
		warn(w, "build #%ld: cannot store '%s': %s", b->number, rec->path, rerr.msg);
		w->st->failed++;
		ret = 0;
		goto out;
	}
	if (w->o->key && strcmp(run->key, w->o->key)) {
		w->st->records--;
		goto out;
	}
	*ready = 1;
out:
	tk_buf_release(&body);
	return ret;
}

/* The second half: the profiles run lists, then the run, stored. */
static int store_record(struct walk *w, const struct tk_bk_build *b,
			const struct tk_bk_artifacts *arts, const struct tk_bk_artifact *rec,
			struct tk_run *run, struct tk_err *err)
{
	struct tk_buf files = TK_BUF_INIT, path = TK_BUF_INIT;
	struct tk_err rerr = TK_ERR_INIT;
	int inserted = 0, ret;

	ret = fetch_profiles(w, b, arts, rec, run, &files, err);
	if (ret < 0)
		goto out;
	/* the profiles are beside it; the record itself is in memory */
	tk_buf_addf(&path, "%s/", w->dir.buf);
	tk_run_record_name(run, &path);
	tk_buf_adds(&path, ".json");
	ret = tk_bundle_store(w->s, path.buf, run, &inserted, &rerr);
	if (ret == TK_EDATA) {
		warn(w, "build #%ld: cannot store '%s': %s", b->number, rec->path, rerr.msg);
		w->st->failed++;
		ret = 0;
		goto out;
	}
	if (ret) {
		*err = rerr;
		goto out;
	}
	if (inserted)
		w->st->stored++;
	else
		w->st->already++;
	count_wanted(w, (!w->o->want_ok || (run->status == TK_RUN_OK && !run->partial)) &&
			has_kind(run, w->o->want_kind));
out:
	remove_files(&files);
	tk_buf_release(&files);
	tk_buf_release(&path);
	return ret;
}

/* Whether every profile run lists is among the artifacts listed so far
 * (or can never be: a name that is not plain is dropped anyway). */
static int profiles_listed(const struct tk_bk_artifacts *arts, const struct tk_bk_artifact *rec,
			   const struct tk_run *run)
{
	const char *slash = strrchr(rec->path, '/');
	size_t i, dlen = slash ? (size_t)(slash - rec->path + 1) : 0;

	for (i = 0; i < run->nr_profiles; i++) {
		const char *f = run->profiles[i].file;

		if (plain_name(f) && !find_artifact(arts, rec->path, dlen, f, rec->job_id))
			return 0;
	}
	return 1;
}

/* Whether a record artifact's name is one of o->key's. */
static int key_matches(struct walk *w, const char *filename)
{
	size_t klen = w->keyname.len;

	if (!w->o->key)
		return 1;
	return strlen(filename) == klen + 1 + TK_RUN_ID_LEN + 5 &&
	       !strncmp(filename, w->keyname.buf, klen) && filename[klen] == '-';
}

/* A record parsed while its profiles were not listed yet. */
struct pending {
	size_t idx; /* in arts: the array grows, pointers would not last */
	struct tk_run run;
};

/*
 * The records among arts->v[from..]: each is read as its page arrives,
 * and stored at once when its profiles are listed already; the others
 * wait in *pend for the end of the list.
 */
static int records_of_page(struct walk *w, const struct tk_bk_build *b,
			   const struct tk_bk_artifacts *arts, size_t from, struct pending **pend,
			   size_t *nr_pend, size_t *alloc_pend, struct tk_err *err)
{
	size_t i;
	int ret = 0;

	for (i = from; i < arts->nr && !w->done && !ret; i++) {
		const struct tk_bk_artifact *a = &arts->v[i];
		const char *name = a->filename;
		char id[TK_RUN_ID_LEN + 1];
		struct tk_run run;
		int ready = 0;

		if (a->state && strcmp(a->state, "finished"))
			continue;
		if (!name) {
			name = strrchr(a->path, '/');
			name = name ? name + 1 : a->path;
		}
		if (!tk_bkapi_record_name(name, id) || !key_matches(w, name))
			continue;
		w->st->records++;
		tk_run_init(&run);
		ret = read_record(w, b, a, id, &run, &ready, err);
		if (!ret && ready && profiles_listed(arts, a, &run)) {
			ret = store_record(w, b, arts, a, &run, err);
		} else if (!ret && ready) {
			TK_ALLOC_GROW(*pend, *nr_pend + 1, *alloc_pend);
			(*pend)[*nr_pend].idx = i;
			(*pend)[*nr_pend].run = run;
			(*nr_pend)++;
			continue;
		}
		tk_run_release(&run);
	}
	return ret;
}

/* Why a build's artifact list is cut short, into why; 0 while it is not. */
static int list_cut(size_t pages, size_t nr, uint64_t bytes, int repeated, struct tk_buf *why)
{
	if (repeated)
		tk_buf_adds(why, "its next link repeats an earlier page");
	else if (pages > TK_BKFETCH_BUILD_PAGES_MAX)
		tk_buf_addf(why, "it runs past %d pages", TK_BKFETCH_BUILD_PAGES_MAX);
	else if (nr > TK_BKFETCH_BUILD_ARTIFACTS_MAX)
		tk_buf_addf(why, "it lists more than %d artifacts", TK_BKFETCH_BUILD_ARTIFACTS_MAX);
	else if (bytes > TK_BKFETCH_BUILD_LIST_BYTES)
		tk_buf_addf(why, "it is larger than %llu bytes",
			    (unsigned long long)TK_BKFETCH_BUILD_LIST_BYTES);
	return why->len > 0;
}

static int fetch_build(struct walk *w, const struct tk_bk_build *b, struct tk_err *err)
{
	struct tk_bk_artifacts arts = { NULL, 0, 0 };
	struct tk_buf url = TK_BUF_INIT, body = TK_BUF_INIT, next = TK_BUF_INIT;
	struct seen_urls seen = { NULL, 0, 0 };
	struct pending *pend = NULL;
	size_t i, pages = 0, nr_pend = 0, alloc_pend = 0, from = 0;
	uint64_t list_bytes = 0;
	struct tk_buf cut = TK_BUF_INIT;
	int ret = 0;

	w->build_bytes = 0;
	pipeline_url(w, &url);
	tk_buf_addf(&url, "/builds/%ld/artifacts?per_page=100", b->number);
	while (url.len && !w->done) {
		if (list_cut(++pages, arts.nr, list_bytes, seen_before(&seen, url.buf), &cut))
			break;
		ret = get_page(w, url.buf, &body, &next, err);
		list_bytes += body.len;
		if (!ret) {
			struct tk_buf shown = TK_BUF_INIT;

			tk_http_display_url(w->h, url.buf, &shown);
			ret = tk_bkapi_parse_artifacts(body.buf, body.len, shown.buf, &arts, err);
			tk_buf_release(&shown);
		}
		if (!ret)
			ret = records_of_page(w, b, &arts, from, &pend, &nr_pend, &alloc_pend, err);
		if (ret)
			goto out;
		from = arts.nr;
		tk_buf_reset(&url);
		tk_buf_add(&url, next.buf, next.len);
	}
	if (cut.len) {
		warn(w, "build #%ld: its artifact list is cut short, as %s; the records past "
		     "it are not fetched", b->number, cut.buf);
		w->st->failed++;
	}
	/* the list is whole (or cut): a profile still missing never comes */
	for (i = 0; i < nr_pend && !w->done && !ret; i++)
		ret = store_record(w, b, &arts, &arts.v[pend[i].idx], &pend[i].run, err);
out:
	for (i = 0; i < nr_pend; i++)
		tk_run_release(&pend[i].run);
	free(pend);
	free(seen.v);
	tk_buf_release(&cut);
	tk_bkapi_artifacts_release(&arts);
	tk_buf_release(&url);
	tk_buf_release(&body);
	tk_buf_release(&next);
	return ret;
}

static int walk_builds(struct walk *w, struct tk_err *err)
{
	struct tk_buf url = TK_BUF_INIT, body = TK_BUF_INIT, next = TK_BUF_INIT;
	struct seen_urls seen = { NULL, 0, 0 };
	int ret = 0;

	builds_url(w, &url);
	while (url.len && !w->done) {
		struct tk_bk_builds builds = { NULL, 0, 0 };
		size_t i;

		if (seen_before(&seen, url.buf)) {
			struct tk_buf shown = TK_BUF_INIT;

			tk_http_display_url(w->h, url.buf, &shown);
			ret = tk_err_set(err, TK_EDATA, "the builds list's next link repeats an "
					 "earlier page, '%s': stopped", shown.buf);
			tk_buf_release(&shown);
			break;
		}
		ret = get_page(w, url.buf, &body, &next, err);
		if (!ret) {
			struct tk_buf shown = TK_BUF_INIT;

			tk_http_display_url(w->h, url.buf, &shown);
			ret = tk_bkapi_parse_builds(body.buf, body.len, shown.buf, &builds, err);
			tk_buf_release(&shown);
		}
		for (i = 0; !ret && i < builds.nr && !w->done; i++) {
			if (w->o->max_builds && w->st->builds >= w->o->max_builds) {
				w->done = 1;
				break;
			}
			ret = fetch_build(w, &builds.v[i], err);
			w->st->builds++;
			if (w->o->progress)
				w->o->progress(w->o->cb_data, w->st);
		}
		tk_bkapi_builds_release(&builds);
		if (ret)
			break;
		tk_buf_reset(&url);
		tk_buf_add(&url, next.buf, next.len);
	}
	free(seen.v);
	tk_buf_release(&url);
	tk_buf_release(&body);
	tk_buf_release(&next);
	return ret;
}

static int check_opts(const struct tk_bkfetch_opts *o, struct tk_err *err)
{
	const char *t;

	if (!nonempty(o->token))
		return tk_err_set(err, TK_EUSAGE, "no Buildkite API token: set "
				  "BUILDKITE_API_TOKEN to a token with the read_builds and "
				  "read_artifacts scopes");
	for (t = o->token; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7f)
			return tk_err_set(err, TK_EUSAGE, "BUILDKITE_API_TOKEN holds a control "
					  "character");
	if (!nonempty(o->org))
		return tk_err_set(err, TK_EUSAGE, "no Buildkite organization: name it with "
				  "--org or BUILDKITE_ORGANIZATION_SLUG");
	if (!nonempty(o->pipeline))
		return tk_err_set(err, TK_EUSAGE, "no Buildkite pipeline: name it with "
				  "--pipeline or BUILDKITE_PIPELINE_SLUG");
	return 0;
}

int tk_bkfetch_run(struct tk_store *s, const struct tk_bkfetch_opts *o,
		   struct tk_bkfetch_stats *st, struct tk_err *err)
{
	struct tk_http_opts ho;
	struct tk_buf auth = TK_BUF_INIT;
	struct walk w;
	int ret;

	memset(st, 0, sizeof(*st));
	memset(&w, 0, sizeof(w));
	w.s = s;
	w.o = o;
	w.st = st;
	tk_buf_init(&w.api, 0);
	tk_buf_init(&w.dir, 0);
	tk_buf_init(&w.keyname, 0);
	ret = check_opts(o, err);
	if (ret)
		goto out;
	tk_buf_adds(&w.api, nonempty(o->api) ? o->api : TK_BKFETCH_API);
	while (w.api.len && w.api.buf[w.api.len - 1] == '/')
		tk_buf_setlen(&w.api, w.api.len - 1);
	if (o->key) {
		struct tk_run r;

		tk_run_init(&r);
		r.key = (char *)o->key;
		tk_run_record_name(&r, &w.keyname);
		/* "<name>-<id>": keep the name */
		tk_buf_setlen(&w.keyname, w.keyname.len - 1 - strlen(r.id));
		r.key = NULL;
		tk_run_release(&r);
	}

	w.max_bytes = o->max_bytes ? o->max_bytes : TK_BKFETCH_MAX_BYTES;
	tk_http_opts_init(&ho);
	ho.connect_timeout_s = o->timeout_s;
	ho.stall_timeout_s = o->timeout_s;
	ho.deadline_s = o->deadline_s;
	ho.retries = o->retries;
	ho.backoff_s = o->backoff_s;
	ho.stop = o->stop;
	tk_buf_addf(&auth, "Bearer %s", o->token);
	ho.auth_origin = w.api.buf;
	if (!tk_http_is_plain_remote(w.api.buf) || o->allow_http)
		ho.auth = auth.buf;
	else
		warn(&w, "the API URL '%s' is plain http to another host: the token is not "
		     "sent (--allow-http sends it in clear)", w.api.buf);
	ret = tk_http_new(&ho, &w.h, err);
	explicit_bzero(auth.buf, auth.len);
	if (ret)
		goto out;

	tk_buf_addf(&w.dir, "%s/tracker-fetch.XXXXXX", nonempty(o->tmpdir) ? o->tmpdir : "/tmp");
	if (!mkdtemp(w.dir.buf)) {
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot make a temporary directory '%s': %s",
				 w.dir.buf, strerror(errno));
		tk_buf_reset(&w.dir);
		goto out;
	}
	ret = walk_builds(&w, err);
	rmdir(w.dir.buf);
out:
	tk_http_free(w.h);
	tk_buf_release(&auth);
	tk_buf_release(&w.api);
	tk_buf_release(&w.dir);
	tk_buf_release(&w.keyname);
	return ret;
}

/* ---- what a comparison needs ---- */

struct tally {
	size_t n;
	int want_ok;
};

static int on_tally(const struct tk_run_summary *s, void *data)
{
	struct tally *t = data;

	if (!t->want_ok || (s->status == TK_RUN_OK && !s->partial))
		t->n++;
	return 0;
}

static int count_local(struct tk_store *s, const char *key, const char *branch,
		       const char *kind, int want_ok, size_t *n, struct tk_err *err)
{
	const char *keys[2] = { key, NULL };
	struct tk_run_query q;
	struct tally t = { 0, want_ok };
	int ret;

	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.branch = branch;
	q.profile_kind = kind;
	ret = tk_store_query_summaries(s, &q, on_tally, &t, err);
	*n = t.n;
	return ret < 0 ? ret : 0;
}

static void add_stats(struct tk_bkfetch_stats *to, const struct tk_bkfetch_stats *from)
{
	to->builds += from->builds;
	to->records += from->records;
	to->stored += from->stored;
	to->already += from->already;
	to->failed += from->failed;
	to->wanted += from->wanted;
}

static int fetch_branch(struct tk_store *s, const struct tk_bkfetch_opts *base,
			const struct tk_baseline_query *q, const char *branch, size_t want,
			int want_ok, struct tk_bkfetch_stats *st, int *fetched,
			struct tk_err *err)
{
	struct tk_bkfetch_opts o = *base;
	struct tk_bkfetch_stats one;
	size_t have = 0;
	int ret = count_local(s, q->key, branch, q->kind, want_ok, &have, err);

	if (ret || have >= want)
		return ret;
	o.branch = branch;
	o.key = q->key;
	o.want_runs = want;
	o.want_kind = q->kind;
	o.want_ok = want_ok;
	if (!o.max_builds)
		o.max_builds = 100;
	if (fetched)
		*fetched = 1;
	ret = tk_bkfetch_run(s, &o, &one, err);
	add_stats(st, &one);
	return ret;
}

int tk_bkfetch_baseline(struct tk_store *s, const struct tk_baseline_query *q,
			const struct tk_ci_context *ci, const struct tk_config *cfg,
			const struct tk_bkfetch_opts *o, struct tk_bkfetch_stats *st,
			int *fetched, struct tk_err *err)
{
	const char *new_branch = q->run_id ? NULL : q->branch ? q->branch :
		ci ? ci->branch : NULL;
	int ret;

	memset(st, 0, sizeof(*st));
	if (fetched)
		*fetched = 0;
	if (!q->key)
		return tk_err_set(err, TK_EUSAGE, "a comparison of runs needs a key");
	if (!q->baseline_run) {
		const char *bb = tk_baseline_branch(q->baseline_branch, ci, cfg, q->key);
		size_t want = q->nr_baselines ? q->nr_baselines : 1;

		if (!bb)
			return tk_err_set(err, TK_EUSAGE, "no baseline branch: name one with "
					  "--baseline-branch, baseline_branch in .tracker.yml, "
					  "or run in a CI that names a PR base or default branch");
		/* NEW may be one of them: it is never its own baseline */
		if (!q->run_id && (!new_branch || !strcmp(new_branch, bb)))
			want++;
		ret = fetch_branch(s, o, q, bb, want, 1, st, fetched, err);
		if (ret)
			return ret;
	}
	if (new_branch)
		return fetch_branch(s, o, q, new_branch, 1, 0, st, fetched, err);
	return 0;
}
