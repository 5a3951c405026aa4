#ifndef TK_DIFFSTORE_H
#define TK_DIFFSTORE_H
/*
 * A diff made of stored runs, or of two files: the one way tracker diff,
 * the report and the check build one, so that they show the same thing.
 *
 * From the history (tk_diff_stored_runs): the runs the caller chose
 * (tracker check's choice, tk_check_diff_runs in core/analyze/check.h:
 * NEW and up to N baseline runs with a profile of the kind), their
 * profiles of that kind loaded (core/store/profstore.h) and made readable
 * (tk_profile_demangle, unless no_demangle: profiles stored before
 * tracker demangled read like new ones), the walltimes handed to
 * TK_DIFF_NORM_WALLTIME, and the union built (core/analyze/diff.h) with
 * dopts (match_roots is set: a renamed program matches across builds).
 * The runs' labels (tk_run_label, tk_runs_label) are kept for the
 * outputs.
 *
 * From two files (tk_diff_files): BASE and NEW imported on two threads
 * (tk_import_pair), labelled by their paths.
 *
 * Either way, dopts->tx (core/model/stacktx.h) rewrites NEW and every
 * baseline alike before their frames are matched, and the profiles are
 * then given up to the diff (tk_diff_build_owned): once it is built, new
 * and base[] are empty profiles that keep only their units.
 *
 * Errors: the store's, the importers' and tk_diff_build's. Nothing here
 * prints. Release with tk_stored_diff_release, also after an error.
 */
#include <stddef.h>

#include "core/base/buf.h"
#include "core/base/err.h"
#include "core/analyze/baseline.h"
#include "core/analyze/diff.h"
#include "core/model/config.h"
#include "core/model/context.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "core/store/store.h"

struct tk_stored_diff {
	struct tk_baseline runs;   /* from the history; empty for files */
	int chosen;                /* from the history */
	struct tk_profile new;     /* empty once built; its unit stays */
	struct tk_profile *base;   /* nr_base of them; empty once built */
	size_t nr_base;
	struct tk_diff diff;
	int built;                 /* diff holds the union */
	struct tk_buf new_label, base_label;
};

/* runs: NEW and its baseline runs (runs->base, nr_base of them, at least
 * one), which are copied. */
int tk_diff_stored_runs(struct tk_store *s, const struct tk_baseline *runs, const char *kind,
			int no_demangle, struct tk_diff_opts *dopts, struct tk_stored_diff *out,
			struct tk_err *err);

int tk_diff_files(const char *base, const char *new, const char *format,
		  const struct tk_import_opts *io, const struct tk_diff_opts *dopts,
		  struct tk_stored_diff *out, struct tk_err *err);

void tk_stored_diff_release(struct tk_stored_diff *d);

#endif
