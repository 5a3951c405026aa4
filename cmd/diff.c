/*
 * tracker diff: a profile against its baseline, as a differential flame
 * graph or table.
 *
 * Two sources: two files (BASE NEW), or runs from the history. For runs,
 * NEW is --run ID or the newest run of --key on the current branch that
 * has a profile of the kind, and the baseline is the newest N successful
 * runs of the same key on the baseline branch with such a profile, never
 * NEW itself. The baseline branch is --baseline-branch, else the PR/MR
 * base branch of the CI context, else baseline_branch in .tracker.yml
 * (the key's, then the file's), else the pipeline's default branch.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/base/escape.h"
#include "core/analyze/baseline.h"
#include "core/analyze/check.h"
#include "core/analyze/diffstore.h"
#include "core/ci/ci.h"
#include "core/analyze/diff.h"
#include "core/draw/diffrender.h"
#include "core/base/table.h"
#include "core/analyze/diffsum.h"
#include "core/model/import.h"
#include "core/analyze/normalize.h"
#include "core/model/profile.h"
#include "core/model/stacktx.h"
#include "core/base/timeutil.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker diff (BASE NEW | --key K [--run ID] [--branch B]\n"
	"                    [--baseline-branch B | --baseline-run ID] [--baselines N]\n"
	"                    [--fetch-baseline])\n"
	"                    [--kind K] [--mode self|cumulative] [--width-by new|base]\n"
	"                    [--normalize total|walltime|none] [--normalize-names FLAGS]\n"
	"                    [--min-delta N] [--title T] [--width PX] [--db URL]\n"
	"                    [--focus RE] [--ignore RE] [--hide RE] [--prune-from RE]\n"
	"                    [--collapse-recursion] [--category C] [--no-categories]\n"
	"                    [-o OUT]\n"
	"\n"
	"Renders NEW against BASE: red where NEW grew, blue where it shrank, with\n"
	"intensity by the change relative to the frame's baseline value; frames\n"
	"absent from the baseline are black, changes within the noise floor grey.\n"
	"Frames are matched by their whole call path, after --normalize-names\n"
	"and the stack transforms (--focus, --ignore, --hide, --prune-from,\n"
	"--collapse-recursion, as in tracker flame), which rewrite both sides\n"
	"alike and are named in the subtitle.\n"
	"Values are compared as measured (bytes with bytes, CPU time with CPU\n"
	"time); every output opens with the totals, e.g. 'allocations 121 MiB ->\n"
	"182 MiB (+50.4%)', and the HTML page with a table of what changed.\n"
	"OUT's extension picks the output: .html (a page that switches self and\n"
	"cumulative colouring, widths by new or baseline, and shows vanished\n"
	"frames), .svg, .png, .pdf, .folded (three columns 'stack base new'), .txt\n"
	"(the top self increases and decreases). Without -o, the .txt table goes\n"
	"to standard output.\n"
	"\n"
	"Profiles come from two files, or from the history: NEW is --run ID or\n"
	"the newest run of --key on --branch (default: the current branch) with a\n"
	"profile of --kind; the baseline is the newest --baselines N (default 5)\n"
	"successful runs of the key on the baseline branch with such a profile\n"
	"(as many as exist), never NEW itself, or --baseline-run ID. The baseline\n"
	"branch is --baseline-branch, else the PR/MR base branch of the CI\n"
	"context, else baseline_branch in .tracker.yml, else the pipeline's\n"
	"default branch. The job's program matches across builds whatever its\n"
	"file name.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker diff --key amip -o amip-diff.html\n"
	"  tracker diff --key amip --baseline-branch staging --kind alloc -o d.txt\n"
	"  tracker diff before.folded after.folded --normalize total -o d.folded\n"
	"\n"
	"Exit status: 0 written, 2 usage error, 65 a profile cannot be read or no\n"
	"run matches (a --key no run has: the nearest keys are named), 69 the\n"
	"database or a file is unavailable (an unreachable database within 4 s).\n";

#define DEFAULT_BASELINES 5

struct diff_cmd {
	const char *out, *key, *run_id, *branch, *baseline_branch, *baseline_run;
	const char *kind, *format, *db;
	const char *files[2];
	long nr_baselines;
	long top;
	int fetch_baseline;
	int mode, norm; /* enum tk_diff_mode, enum tk_diff_norm */
	struct tk_import_opts io;
	struct tk_diff_opts dopts;
	struct tk_diff_render_opts ropts;
	struct tk_stacktx tx;
	struct tk_buf subtitle;
};

static int parse_kind(void *data, const char *arg, struct tk_err *err)
{
	struct diff_cmd *d = data;

	if (!tk_profstore_valid_kind(arg))
		return tk_err_set(err, TK_EUSAGE, "invalid kind '%s'", arg);
	d->kind = arg;
	return 0;
}

static int parse_names(void *data, const char *arg, struct tk_err *err)
{
	struct diff_cmd *d = data;

	return tk_normalize_parse(arg, &d->dopts.normalize_flags, err);
}

static int parse_format(void *data, const char *arg, struct tk_err *err)
{
	struct diff_cmd *d = data;

	if (!tk_importer_find(arg))
		return tk_err_set(err, TK_EUSAGE, "unknown format '%s'", arg);
	d->format = arg;
	return 0;
}

static int parse_category(void *data, const char *arg, struct tk_err *err)
{
	struct diff_cmd *d = data;

	if (tk_category_parse(arg, &d->dopts.category))
		return tk_err_set(err, TK_EUSAGE, "unknown category '%s' (use dispatch, gc, "
				  "compilation, task, kernel or jit)", arg);
	return 0;
}

static const struct cmd_choice modes[] = {
	{ "self", TK_DIFF_SELF }, { "cumulative", TK_DIFF_CUMULATIVE }, { NULL, 0 },
};

static const struct cmd_choice widths[] = {
	{ "new", 0 }, { "base", 1 }, { NULL, 0 },
};

static const struct cmd_choice norms[] = {
	{ "total", TK_DIFF_NORM_TOTAL }, { "walltime", TK_DIFF_NORM_WALLTIME },
	{ "none", TK_DIFF_NORM_NONE }, { NULL, 0 },
};

#define O struct diff_cmd
static const struct cmd_option options[] = {
	OPT_STRING(0, "key", O, key, "K", "the step key of both runs"),
	OPT_STRING(0, "run", O, run_id, "ID", "NEW is this run: its id or the start of it "
		   "(default: the newest, see above)"),
	OPT_STRING(0, "branch", O, branch, "B", "NEW is the newest run on branch B"),
	OPT_STRING(0, "baseline-branch", O, baseline_branch, "B", "the branch the baseline "
		   "runs come from"),
	OPT_STRING(0, "baseline-run", O, baseline_run, "ID", "the baseline is this run (an id "
		   "or its start)"),
	OPT_FLAG(0, "fetch-baseline", O, fetch_baseline, "fetch the runs the history lacks "
		 "from Buildkite, as tracker fetch does (docs/tracker-fetch.md)"),
	OPT_LONG(0, "baselines", O, nr_baselines, "N", 1, TK_BASELINE_MAX, "average the newest "
		 "N baseline runs (default 5); a change within 3 standard deviations of their "
		 "noise is grey (with one run there is no noise floor)"),
	OPT_CALLBACK(0, "kind", "K", parse_kind, "the profile kind (default cpu)"),
	OPT_CHOICE(0, "mode", O, mode, "M", modes, "colour by the self (default) or "
		   "cumulative change"),
	OPT_CHOICE(0, "width-by", O, ropts.width_by_base, "W", widths, "frame widths from new "
		   "(default) or base"),
	OPT_CHOICE(0, "normalize", O, norm, "N", norms, "none (default: values as measured), "
		   "total (the baseline scaled to NEW's total, to compare shapes) or walltime "
		   "(by the runs' walltimes); scaled outputs say so beside their numbers"),
	OPT_CALLBACK(0, "normalize-names", "F", parse_names, "match renamed frames: hex, "
		     "templates, lambdas, julia, lines, all, none (default none)"),
	OPT_DOUBLE(0, "min-delta", O, dopts.min_delta, "N", 0, HUGE_VAL, "changes smaller than "
		   "N (in the profile's unit) are noise"),
	OPT_CALLBACK(0, "format", "F", parse_format, "for BASE and NEW files: their format, as "
		     "in tracker flame"),
	OPT_STRING(0, "event", O, io.event, "E", "for BASE and NEW files: perf script's event, "
		   "as in tracker flame"),
	OPT_STRING(0, "sample-type", O, io.sample_type, "T", "for BASE and NEW files: pprof's "
		   "sample type, as in tracker flame"),
	OPT_STRING(0, "title", O, ropts.render.title, "T", "the title"),
	OPT_DOUBLE(0, "width", O, ropts.render.image_width, "PX", 100, 1e6, "the image width"),
	OPT_LONG(0, "top", O, top, "N", 1, LONG_MAX, "the rows of .txt"),
	OPT_DB(O, db),
	OPT_FLAG(0, "no-demangle", O, io.no_demangle, "keep frame names raw (mangled, "
		 "name@@GLIBC_2.34)"),
	OPT_STACKTX(O, tx),
	OPT_FLAG(0, "no-categories", O, ropts.render.no_categories, "no outlines for frame "
		 "categories (Julia's runtime dispatch, GC, compilation, task)"),
	OPT_CALLBACK(0, "category", "C", parse_category, "\"What changed\" and .txt list only "
		     "frames of category C: dispatch, gc, compilation, task (a Julia profile's), "
		     "kernel (_[k]) or jit (_[j])"),
	OPT_STRING('o', "output", O, out, "OUT", "the output file"),
	OPT_END(),
};

const struct cmd_help cmd_diff_help = { usage, options, more };

static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, struct diff_cmd *d)
{
	struct tk_err err = TK_ERR_INIT;
	int nr_args;

	d->mode = d->ropts.mode;
	d->norm = d->dopts.norm;
	nr_args = cmd_parse_options(ctx, options, d, argc, argv, 0);
	if (nr_args < 0)
		return EXIT_USAGE;
	d->ropts.mode = d->mode;
	d->dopts.norm = d->norm;
	if (tk_stacktx_compile(&d->tx, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	if (tk_stacktx_active(&d->tx)) {
		d->dopts.tx = &d->tx;
		tk_stacktx_describe(&d->tx, &d->subtitle);
	}
	if (d->dopts.category)
		tk_buf_addf(&d->subtitle, "%schanges of %s frames only", d->subtitle.len ? "; " : "",
			    tk_category_name(d->dopts.category));
	if (d->subtitle.len)
		d->ropts.render.subtitle = d->subtitle.buf;
	if (d->top)
		d->ropts.render.top_n = (size_t)d->top;
	if (d->out && !tk_diff_renderer_for_path(d->out))
		return cmd_usage_error(ctx, "cannot tell the output format of '%s' from its "
				       "extension (.html, .svg, .png, .pdf, .folded, .txt or .pb.gz)",
				       d->out);
	if (d->key) {
		if (nr_args)
			return cmd_usage_error(ctx, "two files or --key, not both");
		if (d->baseline_run && d->baseline_branch)
			return cmd_usage_error(ctx, "--baseline-run and --baseline-branch "
					       "both name the baseline; give one");
		if (d->baseline_run && d->nr_baselines > 1)
			return cmd_usage_error(ctx, "--baselines goes with a baseline branch, "
					       "not --baseline-run");
		return 0;
	}
	if (d->run_id || d->branch || d->baseline_branch || d->baseline_run || d->nr_baselines ||
	    d->fetch_baseline)
		return cmd_usage_error(ctx, "--run, --branch and the baseline options go with "
				       "--key");
	if (nr_args != 2)
		return cmd_usage_error(ctx, "name BASE and NEW profile files, or --key K");
	if (d->dopts.norm == TK_DIFF_NORM_WALLTIME)
		return cmd_usage_error(ctx, "--normalize walltime needs runs (--key), "
				       "files have no walltime");
	d->files[0] = argv[0];
	d->files[1] = argv[1];
	return 0;
}

/* ---- the runs, from the history ---- */

/* The runs on stderr, in full; the outputs get the short labels. */
static void describe(const struct diff_cmd *d, const struct tk_stored_diff *sd)
{
	const struct tk_baseline *r = &sd->runs;
	struct tk_buf full = TK_BUF_INIT, shown = TK_BUF_INIT;
	size_t i;

	for (i = 0; i < r->nr_base; i++) {
		if (i)
			tk_buf_adds(&full, ", ");
		tk_run_label(&full, &r->base[i]);
	}
	fprintf(stderr, "tracker: new:      %s\n", tk_text_shown(&shown, sd->new_label.buf));
	if (r->nr_base > 1)
		fprintf(stderr, "tracker: baseline: mean of %zu runs: %s\n", r->nr_base,
			tk_text_shown(&shown, full.buf));
	else
		fprintf(stderr, "tracker: baseline: %s\n", tk_text_shown(&shown, full.buf));
	if (r->nr_base < (size_t)d->nr_baselines)
		fprintf(stderr, "tracker: %zu baseline run%s of the %ld asked for exist%s%s\n",
			r->nr_base, r->nr_base == 1 ? "" : "s", d->nr_baselines,
			r->nr_base == 1 ? "s" : "",
			r->nr_base == 1 ? "; with one there is no noise floor" : "");
	tk_buf_release(&full);
	tk_buf_release(&shown);
}

static int diff_stored(struct cmd_ctx *ctx, struct diff_cmd *d, struct tk_stored_diff *sd,
		       struct tk_err *err)
{
	char ids[2][TK_RUN_ID_LEN + 1];
	const char *keys[2] = { d->key, NULL };
	struct tk_buf db = TK_BUF_INIT;
	struct tk_baseline_query q;
	struct tk_ci_context ci;
	struct tk_store *s = NULL;
	int ret;

	memset(&q, 0, sizeof(q));
	tk_ci_context_init(&ci);
	cmd_resolve_db(ctx, d->db, &db);
	/* --fetch-baseline writes: it waits for the database as run does */
	if (d->fetch_baseline)
		ret = tk_store_open(db.buf, &s, err);
	else
		ret = tk_store_open_reader(db.buf, &s, err);
	if (!ret)
		ret = cmd_resolve_run_id(s, d->key, &d->run_id, ids[0], err);
	if (!ret)
		ret = cmd_resolve_run_id(s, d->key, &d->baseline_run, ids[1], err);
	if (!ret) {
		q.key = d->key;
		q.kind = d->kind;
		q.run_id = d->run_id;
		q.branch = d->branch;
		q.baseline_branch = d->baseline_branch;
		q.baseline_run = d->baseline_run;
		q.nr_baselines = (size_t)d->nr_baselines;
		tk_ci_collect(&tk_env_process, &ci, NULL);
		if (d->fetch_baseline)
			ret = cmd_fetch_baseline(s, &q, &ci, &ctx->config, err);
	}
	/* after the fetch, which may bring the key's first runs */
	if (!ret)
		ret = tk_store_require_keys(s, keys, err);
	if (!ret) {
		struct tk_check_opts co;

		/* the runs tracker check compares, with profiles of the kind */
		tk_check_opts_init(&co);
		co.key = d->key;
		co.run_id = d->run_id;
		co.branch = d->branch;
		co.baseline_branch = d->baseline_branch;
		ret = tk_check_diff(s, &co, &ci, &ctx->config, d->kind, (size_t)d->nr_baselines,
				    d->baseline_run, d->io.no_demangle, &d->dopts, sd, err);
	}
	if (sd->chosen)
		describe(d, sd);
	tk_ci_context_release(&ci);
	cmd_store_close(s);
	tk_buf_release(&db);
	return ret;
}

/* No -o: the text table on standard output. */
static int to_stdout(const struct tk_stored_diff *sd, const struct diff_cmd *d,
		     struct tk_err *err)
{
	int ret = tk_diff_render(tk_diff_renderer_for_path("-.txt"), &sd->diff, &d->dopts,
				 &d->ropts, stdout, err);

	if (!ret && fflush(stdout))
		ret = tk_err_set(err, TK_EUNAVAIL, "cannot write to standard output");
	return ret;
}

int cmd_diff(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct diff_cmd d;
	struct tk_stored_diff sd;
	struct tk_err err = TK_ERR_INIT;
	int ret;

	memset(&d, 0, sizeof(d));
	memset(&sd, 0, sizeof(sd));
	tk_diff_opts_init(&d.dopts);
	tk_diff_render_opts_init(&d.ropts);
	d.kind = "cpu";
	tk_stacktx_init(&d.tx);
	tk_buf_init(&d.subtitle, 0);
	ret = parse_options(argc, argv, ctx, &d);
	if (ret)
		goto out;
	if (!d.nr_baselines)
		d.nr_baselines = d.key && !d.baseline_run ? DEFAULT_BASELINES : 1;
	if (d.key)
		ret = diff_stored(ctx, &d, &sd, &err);
	else
		ret = tk_diff_files(d.files[0], d.files[1], d.format, &d.io, &d.dopts, &sd, &err);
	if (!ret) {
		d.ropts.quantity = tk_diff_quantity(d.key ? d.kind : NULL, sd.new.unit);
		d.ropts.base_label = sd.base_label.buf;
		d.ropts.new_label = sd.new_label.buf;
		if (d.out)
			ret = tk_diff_render_path(&sd.diff, &d.dopts, &d.ropts, d.out,
						  TK_WRITE_NO_FSYNC, &err);
		else
			ret = to_stdout(&sd, &d, &err);
	}
	if (ret)
		ret = cmd_fail(&err);
out:
	tk_stored_diff_release(&sd);
	tk_stacktx_release(&d.tx);
	tk_buf_release(&d.subtitle);
	return ret;
}
