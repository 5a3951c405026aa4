#ifndef TK_BKFETCH_H
#define TK_BKFETCH_H
/*
 * Backfilling the history from Buildkite: the run records `tracker run`
 * wrote and `buildkite-agent artifact upload` uploaded, fetched through
 * the REST API and stored as `tracker push` stores them.
 *
 * The walk (tk_bkfetch_run):
 *   1. GET {api}/v2/organizations/{org}/pipelines/{pipeline}/builds
 *      ?per_page=100[&branch=B][&created_from=ISO8601], newest first,
 *      following the Link header's rel="next".
 *   2. For each build, GET .../builds/{number}/artifacts?per_page=100
 *      (paged the same way). A finished artifact named <key>-<uuid>.json
 *      is a run record; one whose run is already stored (complete) is not
 *      downloaded again.
 *   3. Each record's download_url is fetched (the API answers 302 to a
 *      storage host; the token goes to the API only, core/ci/http.h), then
 *      the profile files the record lists (names relative to the record's
 *      directory: artifacts of the same build, the same job preferred).
 *      A listed profile that is not among the build's artifacts is
 *      dropped from the run, with a warning.
 *   4. The files land in a private temporary directory under o->tmpdir,
 *      a profile streamed to the disk as it arrives (never whole in
 *      memory) and dropped, with a warning, when its first bytes show it
 *      is no stored profile; they are stored with the calls tracker push
 *      makes
 *      (tk_bundle_read_record, tk_run_check_key, tk_bundle_store): the
 *      same validation, idempotent by run id. The directory is removed.
 *
 * Records are stored as their artifact-list page arrives: a record whose
 * profiles are listed already is stored at once, the others when the
 * build's list has ended.
 *
 * Bounds (everything here comes from outside):
 *   each request   core/ci/http.h: o->timeout_s to connect and as the
 *                  window of the minimum rate (1 KiB/s), o->deadline_s
 *                  for the whole request (retries, redirects and waits
 *                  included); gzip bodies refused before inflating past
 *                  their cap
 *   each build     its artifact list: at most TK_BKFETCH_BUILD_PAGES_MAX
 *                  pages, TK_BKFETCH_BUILD_ARTIFACTS_MAX artifacts and
 *                  TK_BKFETCH_BUILD_LIST_BYTES bytes, and no next link
 *                  seen before; past any of these the list is cut there
 *                  (a warning, counted in st->failed); its downloads: at
 *                  most TK_BKFETCH_BUILD_BYTES (the records past it fail)
 *   in all         TK_BKFETCH_PAGES_MAX list pages and o->max_bytes
 *                  bytes received (0: TK_BKFETCH_MAX_BYTES); a builds
 *                  list whose next link repeats an earlier page: the walk
 *                  stops with TK_EDATA naming the bound
 *   the token      never sent over plain http to a host other than
 *                  loopback unless o->allow_http (a warning says so)
 *
 * A record that cannot be read or stored (bad JSON, a refused key, a
 * corrupt profile, an artifact the API will not hand out) is counted in
 * st->failed and reported to o->warn; the walk goes on. The walk stops
 * with an error when the API or the store cannot go on:
 *   TK_EUSAGE    no token, org or pipeline (the message names the
 *                variable or option), a token with control characters
 *   TK_EUNAVAIL  the API refuses the token (401/403: "check
 *                BUILDKITE_API_TOKEN and its read_builds and
 *                read_artifacts scopes"), the pipeline is not found, the
 *                server fails past the retries, the store is unavailable,
 *                or *o->stop was set ("interrupted")
 *   TK_EDATA     an API response is not what the API documents (the
 *                message names the URL and the offset, core/ci/bkapi.h)
 * The token appears in no message, file or record.
 */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "core/analyze/baseline.h"
#include "core/ci/ci.h"
#include "core/model/config.h"
#include "core/base/err.h"
#include "core/store/store.h"

#define TK_BKFETCH_API "https://api.buildkite.com"

#define TK_BKFETCH_BUILD_PAGES_MAX 100
#define TK_BKFETCH_BUILD_ARTIFACTS_MAX 10000
#define TK_BKFETCH_BUILD_LIST_BYTES (64ull << 20)
#define TK_BKFETCH_BUILD_BYTES (4ull << 30)
#define TK_BKFETCH_PAGES_MAX 100000
#define TK_BKFETCH_MAX_BYTES (64ull << 30)

struct tk_bkfetch_stats {
	size_t builds;   /* builds looked at */
	size_t records;  /* run records found among their artifacts */
	size_t stored;   /* stored now */
	size_t already;  /* stored before (not downloaded again) */
	size_t failed;   /* could not be stored (reported to warn) */
	size_t wanted;   /* runs seen that count toward want_runs */
};

struct tk_bkfetch_opts {
	const char *api;       /* base URL; NULL: TK_BKFETCH_API */
	const char *org;       /* organization slug, required */
	const char *pipeline;  /* pipeline slug, required */
	const char *branch;    /* only builds of this branch; NULL: all */
	int64_t since_us;      /* only builds created since; 0: all */
	const char *token;     /* the API access token, required */
	const char *key;       /* only records of this key; NULL: all */
	/* Stop once this many runs of key were seen (stored or stored
	 * before) that are successful when want_ok and have a profile of
	 * want_kind when it is set; 0: no such stop. */
	size_t want_runs;
	const char *want_kind;
	int want_ok;
	size_t max_builds;     /* stop after this many builds; 0: no limit */
	/* HTTP settings (core/ci/http.h); 0/-1 for the defaults */
	double timeout_s;      /* connect and stall timeout */
	double deadline_s;     /* of one request, retries included; 0: 600 */
	uint64_t max_bytes;    /* received in all; 0: TK_BKFETCH_MAX_BYTES */
	int allow_http;        /* send the token over plain http to any host */
	int retries;
	double backoff_s;
	const char *tmpdir;    /* NULL: /tmp */
	const volatile sig_atomic_t *stop;
	/* Called after each build (may be NULL). */
	void (*progress)(void *data, const struct tk_bkfetch_stats *st);
	/* A record that could not be stored, or a profile dropped (may be
	 * NULL: dropped). */
	void (*warn)(void *data, const char *msg);
	void *cb_data;
};

/* Zeroes o and sets retries to -1 (the default). */
void tk_bkfetch_opts_init(struct tk_bkfetch_opts *o);

/*
 * Fills the fields CI knows from env, leaving fields already set alone:
 * token (BUILDKITE_API_TOKEN), org (BUILDKITE_ORGANIZATION_SLUG),
 * pipeline (BUILDKITE_PIPELINE_SLUG), api (TRACKER_BUILDKITE_API),
 * timeout_s (TRACKER_FETCH_TIMEOUT, a duration), deadline_s
 * (TRACKER_FETCH_DEADLINE, a duration), retries
 * (TRACKER_FETCH_RETRIES), tmpdir (TMPDIR). The strings are env's.
 * TK_EUSAGE for a timeout or retries value that does not parse.
 */
int tk_bkfetch_opts_from_env(struct tk_bkfetch_opts *o, const struct tk_env *env,
			     struct tk_err *err);

/* The walk described at the top; st is zeroed first. */
int tk_bkfetch_run(struct tk_store *s, const struct tk_bkfetch_opts *o,
		   struct tk_bkfetch_stats *st, struct tk_err *err);

/*
 * What a comparison (core/analyze/baseline.h) needs, fetched when the store lacks
 * it, for `diff --fetch-baseline` and the report:
 *   - unless q->baseline_run: when the store has fewer than
 *     q->nr_baselines (0: 1) successful runs of q->key on the baseline
 *     branch (tk_baseline_branch) with a profile of q->kind (one more when
 *     NEW's branch is that branch), fetches that branch's records of the
 *     key, newest builds first, until that many were seen;
 *   - unless q->run_id: when the store has no run of the key on NEW's
 *     branch (q->branch, else ci->branch) with such a profile, fetches
 *     the newest one.
 * o supplies the connection (api, org, pipeline, token, timeouts, stop,
 * callbacks); its branch, key and want_* are set here, and max_builds is
 * 100 when o leaves it 0. *fetched (may be NULL) is 1 when the API was
 * asked. Errors as tk_bkfetch_run's, and TK_EUSAGE when there is no
 * baseline branch (tk_baseline_choose's message).
 */
int tk_bkfetch_baseline(struct tk_store *s, const struct tk_baseline_query *q,
			const struct tk_ci_context *ci, const struct tk_config *cfg,
			const struct tk_bkfetch_opts *o, struct tk_bkfetch_stats *st,
			int *fetched, struct tk_err *err);

#endif
