/*
 * tracker import: attach a profile file to a stored run.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "core/base/timeutil.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker import (--run ID | --key K [--branch B]) [--kind KIND]\n"
	"                      [--format F] [--event E] [--sample-type T] [--no-demangle]\n"
	"                      [--db URL] FILE\n"
	"\n"
	"Imports a profile file and stores it with a run: the run --run names, or\n"
	"the newest run of --key (on --branch). A run keeps one profile per kind;\n"
	"importing again replaces it.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker import --key amip perf.txt\n"
	"  tracker import --run 3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e01 --kind alloc heap.pb.gz\n"
	"\n"
	"Exit status: 0 stored; 2 usage error; 65 the file is not a profile tracker\n"
	"reads, or no such run; 69 the database is unavailable.\n";

struct import_opts {
	const char *run_id, *key, *branch, *kind, *format, *db;
	struct tk_import_opts io;
};

#define O struct import_opts
static const struct cmd_option options[] = {
	OPT_STRING(0, "run", O, run_id, "ID", "the run: its id or the start of it, as tracker "
		   "prints it"),
	OPT_STRING(0, "key", O, key, "K", "the newest run of step key K"),
	OPT_STRING(0, "branch", O, branch, "B", "with --key: the newest run on branch B"),
	OPT_STRING(0, "kind", O, kind, "KIND", "cpu, alloc, alloc_count, ... (default: from the "
		   "profile's unit: bytes -> alloc, counts -> alloc_count, else cpu)"),
	OPT_STRING(0, "format", O, format, "F", "the file's format (default: recognised from "
		   "its content); see docs/importers.md for the list"),
	OPT_STRING(0, "event", O, io.event, "E", "perf script: the event to keep (default the "
		   "first)"),
	OPT_STRING(0, "sample-type", O, io.sample_type, "T", "pprof: the sample type (default "
		   "the last)"),
	OPT_FLAG(0, "no-demangle", O, io.no_demangle, "keep frame names raw: C++/Rust mangled, "
		 "symbol versions (name@@GLIBC_2.34); see docs/importers.md"),
	OPT_DB(O, db),
	OPT_END(),
};

const struct cmd_help cmd_import_help = { usage, options, more };

/* Returns 0, or the exit code of a usage error. */
static int parse_options(int argc, char **argv, struct cmd_ctx *ctx, struct import_opts *o)
{
	int nr_args = cmd_parse_options(ctx, options, o, argc, argv, 0);

	if (nr_args < 0)
		return EXIT_USAGE;
	if (nr_args != 1)
		return cmd_usage_error(ctx, !nr_args ? "no profile file given" :
				       "one profile file at a time");
	if (!o->run_id == !o->key)
		return cmd_usage_error(ctx, "name the run with --run ID or --key K");
	if (o->branch && !o->key)
		return cmd_usage_error(ctx, "--branch goes with --key");
	if (o->kind && !tk_profstore_valid_kind(o->kind))
		return cmd_usage_error(ctx, "invalid kind '%s' (lower-case letters, digits, _)",
				       o->kind);
	if (o->format && !tk_importer_find(o->format))
		return cmd_usage_error(ctx, "unknown format '%s'; see docs/importers.md", o->format);
	return 0;
}

int cmd_import(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct import_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf db = TK_BUF_INIT, total = TK_BUF_INIT;
	struct tk_store *s = NULL;
	struct tk_profile p;
	char id[TK_RUN_ID_LEN + 1], given[TK_RUN_ID_LEN + 1];
	const char *file;
	int ret;

	memset(&o, 0, sizeof(o));
	ret = parse_options(argc, argv, ctx, &o);
	if (ret)
		return ret;
	file = argv[0];
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_import_file(file, o.format, &o.io, &p, &err);
	if (ret) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (p.warning[0])
		cmd_warning("%s", p.warning);
	if (!o.kind)
		o.kind = tk_profstore_default_kind(p.unit);
	cmd_resolve_db(ctx, o.db, &db);
	ret = tk_store_open_flags(db.buf, TK_STORE_NO_CREATE, &s, &err);
	if (!ret)
		ret = cmd_resolve_run_id(s, NULL, &o.run_id, given, &err);
	if (!ret)
		ret = tk_profstore_find_run(s, o.run_id, o.key, o.branch, NULL, id, &err);
	if (!ret)
		ret = tk_profstore_put(s, id, o.kind, o.format, &p, &err);
	if (ret) {
		ret = cmd_fail(&err);
		goto out;
	}
	tk_format_weight(&total, tk_profile_total(&p));
	cmd_note("stored the %s profile of '%s' (%u frames, %s %s) with run %s", o.kind,
		 file, p.nr_nodes - 1, total.buf, tk_unit_name(p.unit), id);
out:
	tk_store_close(s);
	tk_profile_release(&p);
	tk_buf_release(&db);
	tk_buf_release(&total);
	return ret;
}
