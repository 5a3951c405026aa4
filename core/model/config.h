#ifndef TK_CONFIG_H
#define TK_CONFIG_H
/*
 * .tracker.yml, read with libyaml:
 *
 *   db: sqlite:/scratch/perf/history.db   # or a bare path, or postgresql://...
 *   artifacts: tracker-artifacts
 *   baseline_branch: main
 *   keys:
 *     amip:
 *       baseline_branch: staging
 *       timeout: 2h
 *       tags: { model: amip, resolution: low }
 *       machine_class: gpu-a100
 *   machine_class: cpu-large
 *   check: ...                  (see struct tk_check_config)
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
#include "core/base/err.h"
#include "core/model/run.h"

struct tk_key_config {
	char *key;
	char *baseline_branch;
	char *machine_class;
	double timeout_s; /* 0: none */
	struct tk_kvlist tags;
};

/*
 * `check:` (tracker check, core/analyze/check.h):
 *
 *   check:
 *     window: 10
 *     method: interval          # for every key and metric
 *     metrics: walltime,maxrss,alloc   # every key's (else every figure
 *                               # the runs have)
 *     frames: fail              # a function beyond noise fails the check
 *                               # (report, the default: said beside the
 *                               # verdicts; off: no diffs)
 *     maxrss: { threshold: 5 }  # for one metric of every key (and that
 *                               # metric is judged)
 *     keys:
 *       amip:
 *         metrics: [walltime, alloc]
 *         frames: report
 *         walltime: { method: percent, threshold: 15, min_effect: 3 }
 *
 * A rule sets the method (core/analyze/verdict.h names), threshold
 * (percent: %, zscore: z) and min_effect (%) of one metric, for one key or
 * (key NULL) every key; a key's rule wins over an every-key one, and a
 * metric with a rule is judged even when `metrics:` leaves it out.
 * `metrics:` (a list, or names separated by commas) and `frames:` are
 * set for every key, and per key (struct tk_check_keyset).
 */
struct tk_check_rule {
	char *key;         /* NULL: every key */
	int metric;        /* enum tk_metric */
	int method_set;
	int method;        /* enum tk_verdict_method, when method_set */
	double threshold;  /* 0: the method's default */
	double min_effect; /* fraction (0.03 for "3"); 0: the default */
};

/* check: window: bounds; below the verdicts' fewest baseline runs (5) a
 * window never judges */
#define TK_CHECK_WINDOW_MIN 5
#define TK_CHECK_WINDOW_MAX 1000

/* What a check does with the functions that moved (its diffs). */
enum tk_check_frames {
	TK_CHECK_FRAMES_UNSET = -1,
	TK_CHECK_FRAMES_OFF,    /* no diffs */
	TK_CHECK_FRAMES_REPORT, /* the default: named beside the verdicts */
	TK_CHECK_FRAMES_FAIL,   /* a function beyond noise is a regression */
};

/* The metrics and frames of one key (key NULL: of every key). */
struct tk_check_keyset {
	char *key;
	unsigned metrics;  /* a bit per enum tk_metric; 0: not set */
	int frames;        /* enum tk_check_frames */
};

struct tk_check_config {
	size_t window; /* 0: not set; else TK_CHECK_WINDOW_MIN..MAX */
	int method_set;
	int method;
	double threshold;
	struct tk_check_rule *rules;
	size_t nr_rules, alloc_rules;
	struct tk_check_keyset *sets;
	size_t nr_sets, alloc_sets;
};

/* The keyset of key in c (NULL: the every-key one), or NULL. */
struct tk_config;
const struct tk_check_keyset *tk_config_check_set(const struct tk_config *c, const char *key);

struct tk_config {
	char *path; /* the file read, NULL when none was found */
	char *db;
	char *artifacts;
	char *baseline_branch;
	char *machine_class; /* machine_class: of every run */
	struct tk_check_config check;
	struct tk_key_config *keys;
	size_t nr_keys, alloc_keys;
	/* "<file>:<line>:<column>: <what>; ignored", in file order */
	char **warnings;
	size_t nr_warnings, alloc_warnings;
	/*
	 * Why db may not be what the file meant, "<file>:<line>:<column>:
	 * <what>", the first of: a db: that is not a string (dropped), has
	 * no value, or is set twice (the first is used); a field that looks
	 * meant for it ("dbb:", "database:", db: under keys: NAME:). NULL
	 * when none. The warnings say the same; this is for the line that
	 * says which database is used (tk_config_db). A caller that ignores
	 * a file it could not read sets it to why.
	 */
	char *db_problem;
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

/*
 * Which database a command uses, and why: opt (--db; NULL or empty: none),
 * else $TRACKER_DB when not empty, else db: of c, else
 * $XDG_DATA_HOME/tracker/history.db, else ~/.local/share/tracker/history.db
 * ($HOME; "." without it). out->url is appended to. out->problem is
 * c->db_problem when the choice fell to db: or the default, where a
 * mistake in the file could have changed it (NULL otherwise); it points
 * into c.
 */
enum tk_db_from {
	TK_DB_FROM_OPTION,
	TK_DB_FROM_ENV,
	TK_DB_FROM_CONFIG,
	TK_DB_FROM_DEFAULT,
};

struct tk_db_choice {
	enum tk_db_from from;
	const char *problem;
};

void tk_config_db(const struct tk_config *c, const struct tk_env *env, const char *opt,
		  struct tk_buf *url, struct tk_db_choice *out);

/* The settings for key, or NULL. */
const struct tk_key_config *tk_config_key(const struct tk_config *c, const char *key);

#endif
