/*
 * tracker push: stores run record files (written by `tracker run` under its
 * artifacts directory, or carried over as CI artifacts) in the database.
 * Idempotent by run id, so pushing a file twice, or pushing a record that
 * `tracker run` already stored, does no harm.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/store/bundle.h"
#include "core/store/frametot.h"
#include "core/base/fsutil.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker push [--db URL] [--remove] FILE|DIR...\n"
	"       tracker push [--db URL] --from URL\n"
	"\n"
	"Stores run record files in the database. A record file is what 'tracker run'\n"
	"writes under its artifacts directory (<key>-<run id>.json) when it runs, so\n"
	"a run whose database was unreachable, or a record carried over as a CI\n"
	"artifact, can be stored later. A directory argument pushes every *.json\n"
	"file directly in it, and recovers the temporary record files\n"
	"(NAME.json.tmp.PID.XXXXXXXXXXXX) of a tracker killed while writing one.\n"
	"Pushing is idempotent by run id: a run already stored\n"
	"is left alone (\"already stored\"), except that a complete record replaces\n"
	"a partial one.\n"
	"\n"
	"Each file is reported on standard error as stored, already stored, gone\n"
	"(listed, then pushed and removed by another push --remove), or the reason\n"
	"it was not; a bad file does not stop the others. A record is refused as\n"
	"tracker run would refuse it: a key or tag with a control character, or\n"
	"not UTF-8.\n"
	"\n"
	"With --from, every run and profile of another database is stored instead,\n"
	"the same way (idempotent: pushing twice stores everything once), for\n"
	"moving a SQLite history into PostgreSQL.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker push tracker-artifacts/\n"
	"  tracker push --db /scratch/ci/history.db --remove amip-*.json\n"
	"  tracker push --from sqlite:history.db --db postgresql://ci@db.example/tracker\n"
	"\n"
	"Exit status: 0 every file stored or already stored, 2 usage error,\n"
	"65 a file is not a valid record, or has a key or tag tracker run refuses\n"
	"(it is kept; the others are still stored),\n"
	"69 the database is unavailable (files are kept).\n";

struct push {
	const char *db, *from;
	struct tk_store *store;
	int remove;
	size_t stored, already, bad, gone;
	int unavailable;
};

#define O struct push
static const struct cmd_option options[] = {
	OPT_DB(O, db),
	OPT_FLAG(0, "remove", O, remove, "delete each record file once it is stored or found "
		 "already stored (files that fail are kept)"),
	OPT_STRING(0, "from", O, from, "URL", "copy the runs and profiles of the database URL "
		   "(a path or sqlite:PATH, or postgresql://...)"),
	OPT_END(),
};

const struct cmd_help cmd_push_help = { usage, options, more };

/* The file vanished after it was listed: another `push --remove` took it. */
static int vanished(struct push *p, const char *path, int listed)
{
	if (!listed || !access(path, F_OK) || errno != ENOENT)
		return 0;
	fprintf(stderr, "%-15s %s\n", "gone", path);
	p->gone++;
	return 1;
}

static void warn_cb(void *data, const char *msg)
{
	(void)data;
	cmd_warning("%s", msg);
}

static void push_file(struct push *p, const char *path, int listed)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_run run;
	int inserted = 0, ret;

	tk_run_init(&run);
	ret = tk_bundle_read_record(path, &run, &err);
	if (ret) {
		if (vanished(p, path, listed))
			goto out;
		cmd_error("%s", err.msg);
		p->bad++;
		goto out;
	}
	/* tracker run would not have made this record: the file is kept */
	if (tk_run_check(&run, &err)) {
		cmd_error("cannot push '%s': %s", path, err.msg);
		p->bad++;
		goto out;
	}
	ret = tk_bundle_store(p->store, path, &run, &inserted, &err);
	if (ret) {
		/* its profiles went with it */
		if (ret == TK_EDATA && vanished(p, path, listed))
			goto out;
		cmd_error("%s", err.msg);
		if (ret == TK_EDATA)
			p->bad++;
		else
			p->unavailable = 1;
		goto out;
	}
	fprintf(stderr, "%-15s %s\n", inserted ? "stored" : "already stored", path);
	if (inserted)
		p->stored++;
	else
		p->already++;
	if (p->remove)
		tk_bundle_remove(path, &run, warn_cb, NULL);
out:
	tk_run_release(&run);
}

/*
 * A temporary record left by a tracker killed before its rename: pushed
 * under its record's name once its writer is gone (tk_bundle_recover_tmp).
 */
static void push_tmp(struct push *p, const char *path, long pid)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf final = TK_BUF_INIT;
	int ret = tk_bundle_recover_tmp(path, pid, p->remove, &final, &err);

	if (ret == 0) {
		fprintf(stderr, "%-15s %s -> %s\n", "recovered", path, final.buf);
		push_file(p, final.buf, 1);
	} else if (ret == 2) {
		fprintf(stderr, "%-15s %s%s\n", "empty", path, p->remove ? " (removed)" : "");
	} else if (ret < 0 && !(ret == TK_EUNAVAIL && vanished(p, path, 1))) {
		cmd_error("%s", err.msg);
		p->bad++;
	}
	tk_buf_release(&final);
}

/* Every *.json directly in dir (and the temporary records of killed
 * writers), in name order so the output is stable. */
static void push_dir(struct push *p, const char *dir)
{
	struct tk_bundle_dir d = { NULL, 0, 0 };
	struct tk_err err = TK_ERR_INIT;
	size_t i;

	if (tk_bundle_list_dir(dir, &d, &err)) {
		cmd_error("%s", err.msg);
		p->bad++;
	}
	for (i = 0; i < d.nr && !p->unavailable; i++) {
		if (d.v[i].is_tmp)
			push_tmp(p, d.v[i].path, d.v[i].pid);
		else
			push_file(p, d.v[i].path, 1);
	}
	tk_bundle_dir_release(&d);
}

static void push_arg(struct push *p, const char *arg)
{
	struct stat sb;

	if (!stat(arg, &sb) && S_ISDIR(sb.st_mode))
		push_dir(p, arg);
	else
		push_file(p, arg, 0);
}

/* push --from: the whole history of src, into the open store dst. */
static int push_from(const char *src_url, struct tk_store *dst)
{
	struct tk_store_copy_stats stats;
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *src = NULL;
	int ret;

	if (tk_store_open_flags(src_url, TK_STORE_NO_CREATE, &src, &err))
		return cmd_fail(&err);
	ret = tk_store_copy(src, dst, &stats, &err);
	fprintf(stderr, "%zu runs: %zu stored, %zu already stored; %zu profiles\n",
		stats.runs, stats.runs_stored, stats.runs - stats.runs_stored, stats.profiles);
	/* the copied profiles' frame totals, computed as tracker backfill does */
	if (!ret) {
		struct tk_frametot_backfill b;

		ret = tk_frametot_backfill(dst, &b, &err);
		if (ret == TK_EUSAGE) {
			tk_err_clear(&err);
			ret = 0;
		}
		if (b.corrupt)
			cmd_warning("%zu copied profiles cannot be decoded: %s", b.corrupt,
				    b.first_error.buf);
		tk_frametot_backfill_release(&b);
	}
	if (ret)
		ret = cmd_fail(&err);
	tk_store_close(src);
	return ret;
}

int cmd_push(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct tk_buf url = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	struct push p;
	int i, nr_args, ret = 0;

	memset(&p, 0, sizeof(p));
	nr_args = cmd_parse_options(ctx, options, &p, argc, argv, 0);
	if (nr_args < 0)
		return EXIT_USAGE;
	if (p.from && (nr_args || p.remove))
		return cmd_usage_error(ctx, "--from takes no record files and no --remove");
	if (!p.from && !nr_args)
		return cmd_usage_error(ctx, "no record files given");
	cmd_resolve_db(ctx, p.db, &url);
	if (tk_store_open(url.buf, &p.store, &err)) {
		ret = cmd_fail(&err);
		cmd_error("nothing pushed; the record files are unchanged");
		goto out;
	}
	if (p.store->warning[0])
		cmd_warning("%s", p.store->warning);
	if (p.from) {
		ret = push_from(p.from, p.store);
		goto out;
	}
	for (i = 0; i < nr_args && !p.unavailable; i++)
		push_arg(&p, argv[i]);
	fprintf(stderr, "%zu stored, %zu already stored, %zu failed", p.stored, p.already,
		p.bad);
	if (p.gone)
		fprintf(stderr, ", %zu gone (pushed by another)", p.gone);
	fputc('\n', stderr);
	if (p.unavailable) {
		cmd_error("database unavailable; the remaining record files are unchanged");
		ret = EXIT_UNAVAILABLE;
	} else if (p.bad) {
		ret = EXIT_DATA;
	}
out:
	tk_store_close(p.store);
	tk_buf_release(&url);
	return ret;
}
