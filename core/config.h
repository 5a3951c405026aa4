#ifndef TK_CONFIG_H
#define TK_CONFIG_H
/*
 * .tracker.yml, read with libyaml:
 *
 *   db: sqlite:/scratch/perf/history.db   # or a bare path
 *   artifacts: tracker-artifacts
 *   baseline_branch: main
 *   keys:
 *     amip:
 *       baseline_branch: staging
 *       timeout: 2h
 *       tags: { model: amip, resolution: low }
 *
 * A document that cannot be read as a whole (YAML syntax, a second
 * document, undefined or recursive aliases, size and nesting limits, a top
 * level that is not a mapping, nested merge keys) is an error: TK_EDATA,
 * "<file>:<line>:<column>: <what>", 1-based, at the offending node.
 * A mistake in one setting (an unknown field, with the nearest valid one
 * suggested; a value of the wrong type; a bad timeout; a duplicate key,
 * of which the first counts) drops only that setting and adds a warning
 * in the same form to c->warnings: the rest of the file applies. Values are kept as strings; `timeout` is checked with
 * tk_parse_duration. tk_config_load (not tk_config_parse) makes a relative
 * `db` path (bare or sqlite:PATH) and `artifacts` relative to the directory
 * of the file, so a config found in a parent directory means the same files
 * wherever tracker is started.
 */
#include "core/err.h"
#include "core/run.h"

struct tk_key_config {
	char *key;
	char *baseline_branch;
	double timeout_s; /* 0: none */
	struct tk_kvlist tags;
};

struct tk_config {
	char *path; /* the file read, NULL when none was found */
	char *db;
	char *artifacts;
	char *baseline_branch;
	struct tk_key_config *keys;
	size_t nr_keys, alloc_keys;
	/* "<file>:<line>:<column>: <what>; ignored", in file order */
	char **warnings;
	size_t nr_warnings, alloc_warnings;
};

void tk_config_init(struct tk_config *c);
void tk_config_release(struct tk_config *c);

/* Parses path into c (which must be initialised). */
int tk_config_load(const char *path, struct tk_config *c, struct tk_err *err);

/* Parses an in-memory document; `name` is used in messages. */
int tk_config_parse(const char *text, size_t len, const char *name,
		    struct tk_config *c, struct tk_err *err);

/*
 * Finds the config file: $TRACKER_CONFIG when set (it must exist), else
 * .tracker.yml in the working directory or its nearest parent that has
 * one. Returns 1 and appends the path to out when found, 0 when not.
 */
struct tk_env;
int tk_config_find(const struct tk_env *env, struct tk_buf *out);

/* The settings for key, or NULL. */
const struct tk_key_config *tk_config_key(const struct tk_config *c, const char *key);

#endif
