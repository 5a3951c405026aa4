/*
 * tracker import: attach a profile file to a stored run.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/model/import.h"
#include "core/model/profile.h"
#include "core/base/timeutil.h"
#include "core/store/profstore.h"
#include "core/base/banned.h"

const char cmd_import_usage[] =
	"usage: tracker import (--run ID | --key K [--branch B]) [--kind KIND]\n"
	"                      [--format F] [--event E] [--sample-type T] [--no-demangle]\n"
	"                      [--db URL] FILE\n"
	"\n"
	"Imports a profile file and stores it with a run: the run --run names, or\n"
	"the newest run of --key (on --branch). A run keeps one profile per kind;\n"
	"importing again replaces it.\n"
	"\n"
	"Options:\n"
	"  --run ID           the run: its id or the start of it, as tracker prints it\n"
	"  --key K            the newest run of step key K\n"
	"  --branch B         with --key: the newest run on branch B\n"
	"  --kind KIND        cpu, alloc, alloc_count, ... (default: from the\n"
	"                     profile's unit: bytes -> alloc, counts -> alloc_count,\n"
	"                     else cpu)\n"
	"  --format F         the file's format (default: recognised from its\n"
	"                     content); see docs/importers.md for the list\n"
	"  --event E          perf script: the event to keep (default the first)\n"
	"  --sample-type T    pprof: the sample type (default the last)\n"
	"  --no-demangle      keep frame names raw: C++/Rust mangled, symbol versions\n"
	"                     (name@@GLIBC_2.34); see docs/importers.md\n"
	"  --db URL           the database (default: $TRACKER_DB, db: in\n"
	"                     .tracker.yml, else ~/.local/share/tracker/history.db)\n"
	"\n"
	"Examples:\n"
	"  tracker import --key amip perf.txt\n"
	"  tracker import --run 3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e01 --kind alloc heap.pb.gz\n"
	"\n"
	"Exit status: 0 stored; 2 usage error; 65 the file is not a profile tracker\n"
	"reads, or no such run; 69 the database is unavailable.\n";

enum { OPT_RUN = 256, OPT_KEY, OPT_BRANCH, OPT_KIND, OPT_FORMAT, OPT_EVENT,
       OPT_SAMPLE_TYPE, OPT_DB, OPT_NO_DEMANGLE };

static const struct option options[] = {
	{ "run", required_argument, NULL, OPT_RUN },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "branch", required_argument, NULL, OPT_BRANCH },
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "event", required_argument, NULL, OPT_EVENT },
	{ "sample-type", required_argument, NULL, OPT_SAMPLE_TYPE },
	{ "db", required_argument, NULL, OPT_DB },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ NULL, 0, NULL, 0 },
};

int cmd_import(int argc, char **argv, struct cmd_ctx *ctx)
{
	const char *run_id = NULL, *key = NULL, *branch = NULL, *kind = NULL;
	const char *format = NULL, *db_opt = NULL;
	struct tk_import_opts io;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf db = TK_BUF_INIT, total = TK_BUF_INIT;
	struct tk_store *s = NULL;
	struct tk_profile p;
	char id[TK_RUN_ID_LEN + 1], given[TK_RUN_ID_LEN + 1];
	int c, ret;

	memset(&io, 0, sizeof(io));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (c) {
		case OPT_RUN: run_id = optarg; break;
		case OPT_KEY: key = optarg; break;
		case OPT_BRANCH: branch = optarg; break;
		case OPT_KIND: kind = optarg; break;
		case OPT_FORMAT: format = optarg; break;
		case OPT_EVENT: io.event = optarg; break;
		case OPT_SAMPLE_TYPE: io.sample_type = optarg; break;
		case OPT_DB: db_opt = optarg; break;
		case OPT_NO_DEMANGLE: io.no_demangle = 1; break;
		case ':':
			return cmd_usage_error(ctx, "option '%s' needs a value", argv[optind - 1]);
		default:
			return cmd_usage_error(ctx, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cmd_usage_error(ctx, optind >= argc ? "no profile file given" :
				       "one profile file at a time");
	if (!run_id == !key)
		return cmd_usage_error(ctx, "name the run with --run ID or --key K");
	if (branch && !key)
		return cmd_usage_error(ctx, "--branch goes with --key");
	if (kind && !tk_profstore_valid_kind(kind))
		return cmd_usage_error(ctx, "invalid kind '%s' (lower-case letters, digits, _)", kind);
	if (format && !tk_importer_find(format))
		return cmd_usage_error(ctx, "unknown format '%s'; see docs/importers.md", format);

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	ret = tk_import_file(argv[optind], format, &io, &p, &err);
	if (ret) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (p.warning[0])
		cmd_warning("%s", p.warning);
	if (!kind)
		kind = tk_profstore_default_kind(p.unit);
	cmd_resolve_db(ctx, db_opt, &db);
	ret = tk_store_open_flags(db.buf, TK_STORE_NO_CREATE, &s, &err);
	if (!ret)
		ret = cmd_resolve_run_id(s, NULL, &run_id, given, &err);
	if (!ret)
		ret = tk_profstore_find_run(s, run_id, key, branch, NULL, id, &err);
	if (!ret)
		ret = tk_profstore_put(s, id, kind, format, &p, &err);
	if (ret) {
		ret = cmd_fail(&err);
		goto out;
	}
	tk_format_weight(&total, tk_profile_total(&p));
	cmd_note("stored the %s profile of '%s' (%u frames, %s %s) with run %s", kind,
		 argv[optind], p.nr_nodes - 1, total.buf, tk_unit_name(p.unit), id);
out:
	tk_store_close(s);
	tk_profile_release(&p);
	tk_buf_release(&db);
	tk_buf_release(&total);
	return ret;
}
