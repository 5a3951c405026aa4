#ifndef TK_PIPEWRAP_H
#define TK_PIPEWRAP_H
/*
 * Wrapping a Buildkite pipeline's step commands in `tracker run`.
 *
 * tk_pipewrap reads a pipeline (YAML, one or more documents) with libyaml
 * and appends to out the same text with the command of each tracked step
 * replaced by
 *
 *     tracker run --key KEY -- bash -e -c 'SCRIPT'
 *
 * where SCRIPT is the step's command as the agent runs it (a `commands:`
 * list joined with newlines) and KEY and SCRIPT are quoted for the shell
 * so that no value can add a word or a command. Only the bytes of the
 * wrapped command values change; every other byte of the input (comments,
 * anchors, formatting) is copied as it is. A wrapped list stays a list of
 * one item; comments between its items move below that item.
 *
 * Which steps: command steps (found under `steps:`, in groups too) with a
 * key (`key`, else `identifier`, else `id`), or, with derive_keys, the
 * key tk_ci_slug makes of their `label` (else `name`); with keys set, only
 * those whose key is listed. Never wait, block, input and trigger steps,
 * steps that use the tracker Buildkite plugin (it wraps the command
 * itself), or commands that already run tracker (tk_pipewrap_runs_tracker:
 * so wrapping twice gives what wrapping once gave, byte for byte, and a
 * `tracker report` step is not measured). A step with a key written twice
 * is an error (TK_EDATA naming the line).
 *
 * A matrix step (`matrix:` a list, or a mapping with `setup:`) gives each
 * of its jobs a key and tags of its own: --key 'KEY[{{matrix}}]' --tag
 * 'matrix={{matrix}}', or --key 'KEY[a={{matrix.a}},b={{matrix.b}}]' and
 * --tag 'matrix.a={{matrix.a}}' per dimension in setup:'s order, tokens
 * Buildkite replaces with the job's values as it makes the jobs. That
 * holds only when every value of the matrix (setup: and adjustments') is
 * one the single quotes keep, which makes a valid key and tag, and which
 * the upload does not interpolate ($NAME): else the step is left as it
 * is, with a warning naming the value.
 *
 * A command that reaches a step through an alias or a merge key (`<<`) is
 * wrapped where it is written, and only when every place Buildkite reads
 * it is the command of a tracked step; when those steps do not share one
 * key the wrapper has no --key and `tracker run` takes each job's own
 * (BUILDKITE_STEP_KEY, else the label), unless one is a matrix step's.
 * Otherwise it is left as it is, with a warning.
 *
 * Empty and null commands are none. A command that starts MPI ranks
 * (srun, mpiexec, mpirun) is wrapped with a warning: tracker measures the
 * launcher then, not the ranks.
 *
 * Returns 0; TK_EDATA for input that is not YAML, with err saying
 * "NAME:LINE:COLUMN: what" (1-based), or for input past the limits (size,
 * nesting, alias expansions); out is then left as it was. Warnings (steps
 * left as they are and why) go to the warn callback, which may be NULL.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"

struct tk_pipewrap_opts {
	const char *const *keys; /* only these step keys; NULL: every key */
	size_t nr_keys;
	int derive_keys;         /* key a step without one by its label */
	/* called once per warning, with a message naming the line */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

struct tk_pipewrap_stats {
	size_t steps;       /* command steps seen */
	size_t wrapped;     /* steps whose command is now wrapped */
	size_t already;     /* steps whose command already runs tracker */
	size_t no_key;      /* steps left because they have no key */
	size_t not_listed;  /* steps left because --keys does not list them */
	size_t left;        /* steps left for another reason (warned) */
};

#define TK_PIPEWRAP_MAX_BYTES (16u * 1024 * 1024)

/* name is used in messages; stats may be NULL. */
int tk_pipewrap(const char *name, const char *text, size_t len,
		const struct tk_pipewrap_opts *opts, struct tk_buf *out,
		struct tk_pipewrap_stats *stats, struct tk_err *err);

/*
 * 1 when script already runs tracker: "tracker" or a path ending in
 * "/tracker", followed by one of its commands (run, report, check, push,
 * fetch, history, dashboard, flame, diff, import, pipeline, config) as a
 * word, at a command's start: a line's first word, or after ; & | ( or a
 * backquote, after assignments (FOO=1), or after a launcher (srun,
 * mpirun, mpiexec, exec, env, time, nice, command) and its options. Words
 * in quotes or comments, and arguments (`echo tracker run`), are not.
 */
int tk_pipewrap_runs_tracker(const char *script, size_t len);

#endif
