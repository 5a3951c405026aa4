/*
 * tracker flame: renders one profile as a flame graph.
 *
 * The profile comes from a source (a FILE, or a profile stored with a run:
 * --run ID, or the newest run of --key K on --branch B), goes through the
 * layout (core/draw/flame.h) and is written by the renderer that OUT's
 * extension picks (core/draw/render.h), to a temporary file next to OUT that
 * is renamed over it, so OUT is never left half written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/analyze/baseline.h"
#include "core/base/buf.h"
#include "core/base/outfmt.h"
#include "core/draw/flame.h"
#include "core/model/demangle.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "core/model/stacktx.h"
#include "core/draw/render.h"
#include "core/store/profstore.h"
#include "core/analyze/ranks.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker flame (FILE | --run ID | --key K [--branch B]) [--ranks] [--kind K]\n"
	"                     [--format F] [--event E] [--sample-type T] [--pid] [--tid]\n"
	"                     [--title T] [--subtitle S] [--palette P] [--count-name N]\n"
	"                     [--minwidth PX|PCT%] [--width PX] [--height PX]\n"
	"                     [--inverted] [--reverse] [--no-demangle] [--db URL]\n"
	"                     [--focus RE] [--ignore RE] [--hide RE] [--prune-from RE]\n"
	"                     [--collapse-recursion] [--no-categories] [--category C] -o OUT\n"
	"       tracker flame --list-formats\n"
	"\n"
	"Renders one profile as a flame graph: the profile in FILE, or one stored\n"
	"with a run (tracker run --profile-file, tracker import): the run --run\n"
	"names, or the newest run of --key (on --branch) that has a profile of\n"
	"--kind (default cpu); with --ranks, the sum of that kind of profile over\n"
	"every rank of the run's job (tracker run --per-rank). The format of FILE\n"
	"is recognised from its content (gzip is decompressed); --format names it.\n"
	"OUT's extension picks the output: .svg is an interactive SVG (click to\n"
	"zoom, Ctrl-F to search); '-o -' writes SVG to standard output. OUT is\n"
	"written to a temporary file next to it and renamed, so it is never left\n"
	"half written. --focus, --ignore, --hide, --prune-from and\n"
	"--collapse-recursion rewrite the stacks first, as pprof's options of\n"
	"those names and FlameGraph's stackcollapse-recursive do; the subtitle\n"
	"says which were used. Frames a Julia profile flags (runtime dispatch,\n"
	"GC, compilation, task) are coloured by category, with a legend.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker flame perf.folded -o perf.svg\n"
	"  tracker flame --key amip --branch staging -o amip.html\n"
	"  tracker flame --key amip --kind alloc -o amip-alloc.png\n"
	"  tracker flame --key amip --ranks --kind alloc -o amip-all-ranks.svg\n"
	"  tracker flame --reverse --title 'Callers of malloc' heap.folded -o heap.svg\n"
	"  tracker flame --key amip --hide '^jl_gc' --collapse-recursion -o amip.html\n"
	"\n"
	"Exit status: 0 written, 2 usage error, 65 the profile cannot be read\n"
	"(the message names the file and the line or offset) or no stored run\n"
	"matches (a --key no run has: the nearest keys are named), 69 a file\n"
	"cannot be opened or written, or the database is unavailable.\n";

/* Where the profile comes from. */
enum source {
	SOURCE_FILE,
	SOURCE_STORED, /* --run or --key */
};

struct flame_opts {
	int list_formats;
	enum source source;
	const char *file;
	const char *run_id, *key, *branch, *db;
	struct tk_buf subtitle; /* made for stored profiles */
	const char *out;
	const char *format;
	struct tk_import_opts import;
	struct tk_flame_opts layout;
	struct tk_render_opts render;
	double minwidth_pct; /* < 0: minwidth is in pixels */
	int reverse;
	int ranks; /* --ranks: the sum over the ranks of the run's job */
	struct tk_stacktx tx;
	struct tk_buf shown_subtitle; /* the subtitle and what tx does */
};

static int parse_palette(void *data, const char *arg, struct tk_err *err)
{
	struct flame_opts *o = data;

	if (!tk_palette_known(arg))
		return tk_err_set(err, TK_EUSAGE, "unknown palette '%s' (use hot, mem, io, wakeup, "
				  "java, js, perl, red, green, blue, aqua, yellow, purple or "
				  "orange)", arg);
	o->render.palette = arg;
	return 0;
}

static int parse_category(void *data, const char *arg, struct tk_err *err)
{
	struct flame_opts *o = data;

	if (tk_category_parse(arg, &o->render.category))
		return tk_err_set(err, TK_EUSAGE, "unknown category '%s' (use dispatch, gc, "
				  "compilation, task, kernel or jit)", arg);
	return 0;
}

static int parse_minwidth(void *data, const char *arg, struct tk_err *err)
{
	struct flame_opts *o = data;

	if (tk_flame_parse_minwidth(arg, &o->layout.minwidth, &o->minwidth_pct))
		return tk_err_set(err, TK_EUSAGE, "'%s' is neither pixels nor a percentage", arg);
	return 0;
}

#define O struct flame_opts
static const struct cmd_option options[] = {
	OPT_STRING('o', "output", O, out, "OUT", "the output file ('-': SVG on standard "
		   "output)"),
	OPT_STRING(0, "format", O, format, "F", "the profile format (default: recognised)"),
	OPT_FLAG(0, "list-formats", O, list_formats, "print the formats --format takes, one a "
		 "line, in the order they are recognised, and exit"),
	OPT_STRING(0, "run", O, run_id, "ID", "the profile stored with run ID (or the start of "
		   "ID)"),
	OPT_STRING(0, "key", O, key, "K", "the profile of the newest run of step key K"),
	OPT_STRING(0, "branch", O, branch, "B", "with --key: the newest run on branch B"),
	OPT_FLAG(0, "ranks", O, ranks, "with --run or --key: merge the profiles of every rank "
		 "of that run's job (with --key: the newest job recorded with tracker run "
		 "--per-rank)"),
	OPT_DB(O, db),
	OPT_STRING(0, "kind", O, import.kind, "K", "stored profiles: the kind (default cpu); "
		   "files: the variant to take, e.g. alloc in a ProfileCanvas page"),
	OPT_FLAG(0, "pid", O, import.pid_frames, "perf script: a root frame per process"),
	OPT_FLAG(0, "tid", O, import.tid_frames, "perf script: a root frame per thread"),
	OPT_STRING(0, "event", O, import.event, "E", "perf script: the event to take (default: "
		   "the first)"),
	OPT_STRING(0, "sample-type", O, import.sample_type, "T", "pprof: the sample type "
		   "(default: the last)"),
	OPT_STRING(0, "title", O, render.title, "T", "the title (default: what the graph "
		   "shows and its total, \"CPU time \xe2\x80\x94 341 ms\"; with T, that leads the "
		   "subtitle)"),
	OPT_STRING(0, "subtitle", O, render.subtitle, "S", "a second line under the title"),
	OPT_CALLBACK(0, "palette", "P", parse_palette, "hot (default for time and samples), "
		     "mem (default for bytes and counts), io, wakeup, java, "
		     "js, perl, red, green, blue, aqua, yellow, purple, orange"),
	OPT_STRING(0, "count-name", O, render.count_name, "N", "what the weights count "
		   "(default from the profile's unit: samples, or time and bytes shown scaled)"),
	OPT_CALLBACK(0, "minwidth", "PX|PCT%", parse_minwidth, "leave out frames narrower than "
		     "PX pixels or PCT percent of the total (default 0.1 pixels)"),
	OPT_DOUBLE_ABOVE(0, "width", O, render.image_width, "PX", 2 * TK_FLAME_XPAD, 1e6,
			 "image width (default 1200)"),
	OPT_DOUBLE(0, "height", O, render.frame_height, "PX", 2, 1000, "frame height (default "
		   "16)"),
	OPT_FLAG(0, "inverted", O, render.inverted, "icicle graph: the root at the top"),
	OPT_FLAG(0, "reverse", O, reverse, "merge stacks from the leaf: reverse every stack"),
	OPT_FLAG(0, "no-demangle", O, import.no_demangle, "keep frame names raw: C++/Rust "
		 "mangled, symbol versions (name@@GLIBC_2.34); see docs/importers.md"),
	OPT_STACKTX(O, tx),
	OPT_FLAG(0, "no-categories", O, render.no_categories, "colour by --palette even where "
		 "the profile has frame categories (Julia's runtime dispatch, GC, compilation, "
		 "task)"),
	OPT_CALLBACK(0, "category", "C", parse_category, ".txt: list only frames of category "
		     "C: dispatch, gc, compilation, task, kernel (_[k]) or jit (_[j])"),
	OPT_END(),
};

const struct cmd_help cmd_flame_help = { usage, options, more };

static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, struct flame_opts *o)
{
	struct tk_err err = TK_ERR_INIT;
	int nr_args = cmd_parse_options(ctx, options, o, argc, argv, 0);

	if (nr_args < 0)
		return EXIT_USAGE;
	if (o->list_formats) {
		if (nr_args || o->out)
			return cmd_usage_error(ctx, "--list-formats takes nothing else");
		return 0;
	}
	if (o->run_id || o->key) {
		if (o->run_id && o->key)
			return cmd_usage_error(ctx, "--run and --key name the run two ways; "
					       "give one");
		if (nr_args)
			return cmd_usage_error(ctx, "a FILE and a stored profile (--run, --key); "
					       "give one");
		if (o->format)
			return cmd_usage_error(ctx, "--format is for FILE; a stored profile "
					       "has none");
		if (o->import.kind && !tk_profstore_valid_kind(o->import.kind))
			return cmd_usage_error(ctx, "invalid kind '%s'", o->import.kind);
		o->source = SOURCE_STORED;
	} else {
		if (!nr_args)
			return cmd_usage_error(ctx, "which profile? name a FILE, --run ID or "
					       "--key K");
		if (nr_args > 1)
			return cmd_usage_error(ctx, "unexpected argument '%s'", argv[1]);
		o->file = argv[0];
	}
	if (o->branch && !o->key)
		return cmd_usage_error(ctx, "--branch goes with --key");
	if (o->ranks && o->source != SOURCE_STORED)
		return cmd_usage_error(ctx, "--ranks goes with --run or --key: a FILE is one "
				       "profile");
	if (!o->out)
		return cmd_usage_error(ctx, "name the output with -o OUT");
	if (o->render.category && !tk_path_has_ext(o->out, ".txt"))
		return cmd_usage_error(ctx, "--category filters the .txt table; '%s' is no .txt",
				       o->out);
	if (tk_stacktx_compile(&o->tx, &err))
		return cmd_usage_error(ctx, "%s", err.msg);
	o->layout.image_width = o->render.image_width;
	if (o->minwidth_pct >= 0)
		o->layout.minwidth = o->minwidth_pct / 100 *
				     (o->layout.image_width - 2 * TK_FLAME_XPAD);
	/* what the weights measure, for the headline: the stored kind, or
	 * the variant or sample type a file's importer takes */
	o->render.kind = o->import.kind ? o->import.kind
			 : o->source == SOURCE_STORED ? "cpu" : o->import.sample_type;
	return 0;
}

static int load_stored(struct cmd_ctx *ctx, struct flame_opts *o, struct tk_profile *p)
{
	const char *kind = o->import.kind ? o->import.kind : "cpu";
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf db = TK_BUF_INIT;
	struct tk_store *s = NULL;
	static char id[TK_RUN_ID_LEN + 1]; /* o->run_id may point here */
	const char *keys[2] = { o->key, NULL };
	int ret;

	cmd_resolve_db(ctx, o->db, &db);
	ret = tk_store_open_reader(db.buf, &s, &err);
	if (!ret)
		ret = tk_store_require_keys(s, keys, &err);
	if (!ret)
		ret = cmd_resolve_run_id(s, NULL, &o->run_id, id, &err);
	if (!ret && o->ranks) {
		ret = tk_ranks_load_profile(s, o->run_id, o->key, o->branch, kind, p,
					    &o->subtitle, &err);
		if (!ret && !o->render.subtitle)
			o->render.subtitle = o->subtitle.buf;
		goto out;
	}
	if (!ret)
		ret = tk_profstore_load(s, o->run_id, o->key, o->branch, kind, p, &o->subtitle,
					&err);
	if (!ret && !o->render.subtitle && o->subtitle.len)
		o->render.subtitle = o->subtitle.buf;
out:
	cmd_store_close(s);
	tk_buf_release(&db);
	return ret ? cmd_fail(&err) : 0;
}

/* The stack transforms, said in the subtitle. */
static int transform(struct flame_opts *o, struct tk_profile *p)
{
	struct tk_err err = TK_ERR_INIT;

	if (!tk_stacktx_active(&o->tx))
		return 0;
	if (tk_stacktx_apply_in_place(&o->tx, p, &err))
		return cmd_fail(&err);
	if (o->render.subtitle && *o->render.subtitle)
		tk_buf_addf(&o->shown_subtitle, "%s; ", o->render.subtitle);
	tk_stacktx_describe(&o->tx, &o->shown_subtitle);
	o->render.subtitle = o->shown_subtitle.buf;
	if (!(tk_profile_total(p) > 0)) {
		cmd_error("no stack is left after %s", o->shown_subtitle.buf);
		return EXIT_DATA;
	}
	return 0;
}

static int load_profile(struct cmd_ctx *ctx, struct flame_opts *o, struct tk_profile *p)
{
	struct tk_err err = TK_ERR_INIT;
	int ret;

	tk_profile_init(p, TK_UNIT_SAMPLES);
	switch (o->source) {
	case SOURCE_FILE:
		if (tk_import_file(o->file, o->format, &o->import, p, &err))
			return cmd_fail(&err);
		break;
	case SOURCE_STORED:
		ret = load_stored(ctx, o, p);
		if (ret)
			return ret;
		/* profiles stored before tracker demangled read like new ones */
		if (!o->import.no_demangle)
			tk_profile_demangle(p, 0);
		break;
	}
	if (p->warning[0])
		cmd_warning("%s", p->warning);
	if (!(tk_profile_total(p) > 0)) {
		cmd_error("'%s' has no samples: its total weight is 0",
			  o->file ? o->file : "the stored profile");
		return EXIT_DATA;
	}
	return transform(o, p);
}

struct flame_job {
	const struct tk_renderer *r;
	const struct tk_profile *p;
	const struct flame_opts *o;
};

static int write_flame(FILE *out, void *data, struct tk_err *err)
{
	const struct flame_job *j = data;

	return tk_render_flame(j->r, j->p, &j->o->layout, &j->o->render, out, err);
}

static int render_to(const struct tk_renderer *r, const struct tk_profile *p,
		     const struct flame_opts *o)
{
	struct flame_job j = { r, p, o };
	struct tk_err err = TK_ERR_INIT;

	if (!strcmp(o->out, "-"))
		return write_flame(stdout, &j, &err) ? cmd_fail(&err) : 0;
	return cmd_write_output(o->out, write_flame, &j);
}

int cmd_flame(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct flame_opts o;
	struct tk_profile prof, reversed;
	struct tk_err err = TK_ERR_INIT;
	const struct tk_renderer *r;
	int ret;

	memset(&o, 0, sizeof(o));
	tk_buf_init(&o.subtitle, 0);
	tk_buf_init(&o.shown_subtitle, 0);
	tk_stacktx_init(&o.tx);
	o.source = SOURCE_FILE;
	o.minwidth_pct = -1;
	tk_flame_opts_init(&o.layout);
	tk_render_opts_init(&o.render);
	ret = parse_options(argc, argv, ctx, &o);
	if (ret)
		goto out_opts;
	if (o.list_formats) {
		tk_importer_list(stdout);
		return 0;
	}
	r = tk_renderer_for_path(!strcmp(o.out, "-") ? ".svg" : o.out);
	if (!r) {
		struct tk_buf exts = TK_BUF_INIT;

		tk_renderer_list_exts(&exts);
		ret = cmd_usage_error(ctx, "cannot tell the output format of '%s' from its "
				      "extension (supported: %s)", o.out, exts.buf);
		tk_buf_release(&exts);
		goto out_opts;
	}

	ret = load_profile(ctx, &o, &prof);
	if (ret)
		goto out;
	if (o.reverse) {
		ret = tk_profile_reverse(&prof, &reversed, &err);
		/* only one tree in memory at a time */
		tk_profile_release(&prof);
		prof = reversed;
		if (ret) {
			ret = cmd_fail(&err);
			goto out;
		}
	}
	ret = render_to(r, &prof, &o);
out:
	tk_profile_release(&prof);
out_opts:
	tk_buf_release(&o.subtitle);
	tk_buf_release(&o.shown_subtitle);
	tk_stacktx_release(&o.tx);
	return ret;
}
