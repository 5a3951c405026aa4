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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/base/escape.h"
#include "core/analyze/baseline.h"
#include "core/analyze/diffstore.h"
#include "core/ci/ci.h"
#include "core/analyze/diff.h"
#include "core/draw/diffrender.h"
#include "core/base/table.h"
#include "core/analyze/diffsum.h"
#include "core/model/import.h"
#include "core/analyze/normalize.h"
#include "core/model/profile.h"
#include "core/base/timeutil.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

const char cmd_diff_usage[] =
	"usage: tracker diff (BASE NEW | --key K [--run ID] [--branch B]\n"
	"                    [--baseline-branch B | --baseline-run ID] [--baselines N]\n"
	"                    [--fetch-baseline])\n"
	"                    [--kind K] [--mode self|cumulative] [--width-by new|base]\n"
	"                    [--normalize total|walltime|none] [--normalize-names FLAGS]\n"
	"                    [--min-delta N] [--title T] [--width PX] [--db URL] -o OUT\n"
	"\n"
	"Renders NEW against BASE: red where NEW grew, blue where it shrank, with\n"
	"intensity by the change relative to the frame's baseline value; frames\n"
	"absent from the baseline are black, changes within the noise floor grey.\n"
	"Frames are matched by their whole call path, after --normalize-names.\n"
	"Values are compared as measured (bytes with bytes, CPU time with CPU\n"
	"time); every output opens with the totals, e.g. 'allocations 121 MiB ->\n"
	"182 MiB (+50.4%)', and the HTML page with a table of what changed.\n"
	"OUT's extension picks the output: .html (a page that switches self and\n"
	"cumulative colouring, widths by new or baseline, and shows vanished\n"
	"frames), .svg, .png, .pdf, .folded (three columns 'stack base new'), .txt\n"
	"(the top self increases and decreases).\n"
	"\n"
	"Profiles come from two files, or from the history: NEW is --run ID or\n"
	"the newest run of --key on --branch (default: the current branch) with a\n"
	"profile of --kind; the baseline is the newest --baselines N (default 5)\n"
	"successful runs of the key on the baseline branch with such a profile\n"
	"(as many as exist), never NEW itself, or --baseline-run ID. The baseline\n"
	"branch is --baseline-branch, else the PR/MR base branch of the CI\n"
	"context, else baseline_branch in .tracker.yml, else the pipeline's\n"
	"default branch. The job's program matches across builds whatever its\n"
	"file name.\n"
	"\n"
	"Options:\n"
	"  --key K              the step key of both runs\n"
	"  --run ID             NEW is this run: its id or the start of it (default:\n"
	"                       the newest, see above)\n"
	"  --branch B           NEW is the newest run on branch B\n"
	"  --baseline-branch B  the branch the baseline runs come from\n"
	"  --baseline-run ID    the baseline is this run (an id or its start)\n"
	"  --fetch-baseline     fetch the runs the history lacks from Buildkite, as\n"
	"                       tracker fetch does (docs/tracker-fetch.md)\n"
	"  --baselines N        average the newest N baseline runs (default 5); a\n"
	"                       change within 3 standard deviations of their noise\n"
	"                       is grey (with one run there is no noise floor)\n"
	"  --kind K             the profile kind (default cpu)\n"
	"  --mode M             colour by the self (default) or cumulative change\n"
	"  --width-by W         frame widths from new (default) or base\n"
	"  --normalize N        none (default: values as measured), total (the\n"
	"                       baseline scaled to NEW's total, to compare shapes)\n"
	"                       or walltime (by the runs' walltimes); scaled\n"
	"                       outputs say so beside their numbers\n"
	"  --normalize-names F  match renamed frames: hex, templates, lambdas, julia,\n"
	"                       lines, all, none (default none)\n"
	"  --min-delta N        changes smaller than N (in the profile's unit) are noise\n"
	"  --format F, --event E, --sample-type T\n"
	"                       for BASE and NEW files, as in tracker flame\n"
	"  --title T, --width PX, --top N\n"
	"                       the title, the image width, the rows of .txt\n"
	"  --db URL             the database (default: $TRACKER_DB, db: in\n"
	"                       .tracker.yml, ~/.local/share/tracker/history.db)\n"
	"  --no-demangle        keep frame names raw (mangled, name@@GLIBC_2.34)\n"
	"  -o OUT               the output file\n"
	"\n"
	"Examples:\n"
	"  tracker diff --key amip -o amip-diff.html\n"
	"  tracker diff --key amip --baseline-branch staging --kind alloc -o d.txt\n"
	"  tracker diff before.folded after.folded --normalize total -o d.folded\n"
	"\n"
	"Exit status: 0 written, 2 usage error, 65 a profile cannot be read or no\n"
	"run matches, 69 the database or a file is unavailable.\n";

enum {
	OPT_KEY = 256, OPT_RUN, OPT_BRANCH, OPT_BASELINE_BRANCH, OPT_BASELINE_RUN,
	OPT_BASELINES, OPT_KIND, OPT_MODE, OPT_WIDTH_BY, OPT_NORMALIZE,
	OPT_NORMALIZE_NAMES, OPT_MIN_DELTA, OPT_FORMAT, OPT_EVENT, OPT_SAMPLE_TYPE,
	OPT_TITLE, OPT_WIDTH, OPT_TOP, OPT_DB, OPT_NO_DEMANGLE, OPT_FETCH_BASELINE,
};

static const struct option options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "run", required_argument, NULL, OPT_RUN },
	{ "branch", required_argument, NULL, OPT_BRANCH },
	{ "baseline-branch", required_argument, NULL, OPT_BASELINE_BRANCH },
	{ "baseline-run", required_argument, NULL, OPT_BASELINE_RUN },
	{ "baselines", required_argument, NULL, OPT_BASELINES },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "width-by", required_argument, NULL, OPT_WIDTH_BY },
	{ "normalize", required_argument, NULL, OPT_NORMALIZE },
	{ "normalize-names", required_argument, NULL, OPT_NORMALIZE_NAMES },
	{ "min-delta", required_argument, NULL, OPT_MIN_DELTA },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "sample-type", required_argument, NULL, OPT_SAMPLE_TYPE },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "db", required_argument, NULL, OPT_DB },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "fetch-baseline", no_argument, NULL, OPT_FETCH_BASELINE },
	{ NULL, 0, NULL, 0 },
};

#define DEFAULT_BASELINES 5

struct diff_cmd {
	const char *out, *key, *run_id, *branch, *baseline_branch, *baseline_run;
	const char *kind, *format, *db;
	const char *files[2];
	long nr_baselines;
	int fetch_baseline;
	struct tk_import_opts io;
	struct tk_diff_opts dopts;
	struct tk_diff_render_opts ropts;
};

static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, struct diff_cmd *d)
{
	struct tk_err err = TK_ERR_INIT;
	double v;
	long n;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:", options, NULL)) != -1) {
		switch (c) {
		case 'o': d->out = optarg; break;
		case OPT_KEY: d->key = optarg; break;
		case OPT_RUN: d->run_id = optarg; break;
		case OPT_BRANCH: d->branch = optarg; break;
		case OPT_BASELINE_BRANCH: d->baseline_branch = optarg; break;
		case OPT_BASELINE_RUN: d->baseline_run = optarg; break;
		case OPT_BASELINES:
			if (tk_parse_long(optarg, &n) || n < 1 || n > TK_BASELINE_MAX)
				return cmd_usage_error(ctx, "--baselines wants 1 to %d, not '%s'",
						       TK_BASELINE_MAX, optarg);
			d->nr_baselines = n;
			break;
		case OPT_KIND:
			if (!tk_profstore_valid_kind(optarg))
				return cmd_usage_error(ctx, "invalid kind '%s'", optarg);
			d->kind = optarg;
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "self"))
				d->ropts.mode = TK_DIFF_SELF;
			else if (!strcmp(optarg, "cumulative"))
				d->ropts.mode = TK_DIFF_CUMULATIVE;
			else
				return cmd_usage_error(ctx, "--mode is self or cumulative, not '%s'",
						       optarg);
			break;
		case OPT_WIDTH_BY:
			if (strcmp(optarg, "new") && strcmp(optarg, "base"))
				return cmd_usage_error(ctx, "--width-by is new or base, not '%s'",
						       optarg);
			d->ropts.width_by_base = !strcmp(optarg, "base");
			break;
		case OPT_NORMALIZE:
			if (!strcmp(optarg, "total"))
				d->dopts.norm = TK_DIFF_NORM_TOTAL;
			else if (!strcmp(optarg, "walltime"))
				d->dopts.norm = TK_DIFF_NORM_WALLTIME;
			else if (!strcmp(optarg, "none"))
				d->dopts.norm = TK_DIFF_NORM_NONE;
			else
				return cmd_usage_error(ctx, "--normalize is total, walltime or none, "
						       "not '%s'", optarg);
			break;
		case OPT_NORMALIZE_NAMES:
			if (tk_normalize_parse(optarg, &d->dopts.normalize_flags, &err))
				return cmd_usage_error(ctx, "%s", err.msg);
			break;
		case OPT_MIN_DELTA:
			if (tk_parse_double(optarg, &v) || v < 0)
				return cmd_usage_error(ctx, "--min-delta wants a number >= 0, not '%s'",
						       optarg);
			d->dopts.min_delta = v;
			break;
		case OPT_FORMAT:
			if (!tk_importer_find(optarg))
				return cmd_usage_error(ctx, "unknown format '%s'", optarg);
			d->format = optarg;
			break;
		case OPT_EVENT: d->io.event = optarg; break;
		case OPT_SAMPLE_TYPE: d->io.sample_type = optarg; break;
		case OPT_TITLE: d->ropts.render.title = optarg; break;
		case OPT_WIDTH:
			if (tk_parse_double(optarg, &v) || v < 100 || v > 1e6)
				return cmd_usage_error(ctx, "--width wants pixels (100 or more), not '%s'",
						       optarg);
			d->ropts.render.image_width = v;
			break;
		case OPT_TOP:
			if (tk_parse_long(optarg, &n) || n < 1)
				return cmd_usage_error(ctx, "--top wants a positive number, not '%s'",
						       optarg);
			d->ropts.render.top_n = (size_t)n;
			break;
		case OPT_DB: d->db = optarg; break;
		case OPT_NO_DEMANGLE: d->io.no_demangle = 1; break;
		case OPT_FETCH_BASELINE: d->fetch_baseline = 1; break;
		case ':':
			return cmd_usage_error(ctx, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error(ctx, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (!d->out)
		return cmd_usage_error(ctx, "name the output with -o OUT");
	if (!tk_diff_renderer_for_path(d->out))
		return cmd_usage_error(ctx, "cannot tell the output format of '%s' from its "
				       "extension (.html, .svg, .png, .pdf, .folded or .txt)", d->out);
	if (d->key) {
		if (optind < argc)
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
	if (argc - optind != 2)
		return cmd_usage_error(ctx, "name BASE and NEW profile files, or --key K");
	if (d->dopts.norm == TK_DIFF_NORM_WALLTIME)
		return cmd_usage_error(ctx, "--normalize walltime needs runs (--key), "
				       "files have no walltime");
	d->files[0] = argv[optind];
	d->files[1] = argv[optind + 1];
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
	struct tk_buf db = TK_BUF_INIT;
	struct tk_baseline_query q;
	struct tk_ci_context ci;
	struct tk_store *s = NULL;
	int ret;

	memset(&q, 0, sizeof(q));
	tk_ci_context_init(&ci);
	cmd_resolve_db(ctx, d->db, &db);
	ret = tk_store_open_flags(db.buf, d->fetch_baseline ? 0 : TK_STORE_NO_CREATE, &s, err);
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
	if (!ret)
		ret = tk_diff_stored(s, &q, &ci, &ctx->config, d->io.no_demangle, &d->dopts, sd,
				     err);
	if (sd->chosen)
		describe(d, sd);
	tk_ci_context_release(&ci);
	tk_store_close(s);
	tk_buf_release(&db);
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
	ret = parse_options(argc, argv, ctx, &d);
	if (ret)
		return ret;
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
		ret = tk_diff_render_path(&sd.diff, &d.dopts, &d.ropts, d.out, TK_WRITE_NO_FSYNC,
					  &err);
	}
	if (ret)
		ret = cmd_fail(&err);
	tk_stored_diff_release(&sd);
	return ret;
}
