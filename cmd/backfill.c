/*
 * tracker backfill: stores what newer versions of tracker keep beside
 * each run and that older ones did not, computed from what is stored:
 * the frame totals of every stored profile (core/store/frametot.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/store/frametot.h"
#include "core/base/banned.h"

static const char usage[] =
	"usage: tracker backfill [--db URL]\n"
	"\n"
	"Stores the frame totals of every stored profile that has none: each\n"
	"function's self and cumulative total, which tracker history --frame and\n"
	"tracker check --history read instead of decoding profiles. tracker run,\n"
	"import and push store them with every profile; profiles stored by an older\n"
	"tracker have none until this command runs. Each such profile is decoded\n"
	"once; running it again does nothing more. A profile that cannot be decoded\n"
	"is named and left as it is.\n";

static const char more[] =
	"\n"
	"Examples:\n"
	"  tracker backfill --db /scratch/ci/history.db\n"
	"  tracker backfill --db postgresql://ci@db.example/tracker\n"
	"\n"
	"Exit status: 0 ok, 2 usage error, 65 a stored profile cannot be decoded\n"
	"(the others are still filled), 69 the database is unavailable.\n";

struct backfill_opts {
	const char *db;
};

#define O struct backfill_opts
static const struct cmd_option options[] = {
	OPT_DB(O, db),
	OPT_END(),
};

const struct cmd_help cmd_backfill_help = { usage, options, more };

int cmd_backfill(int argc, char **argv, struct cmd_ctx *ctx)
{
	struct backfill_opts o;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf url = TK_BUF_INIT;
	struct tk_store *store = NULL;
	struct tk_frametot_backfill b;
	int nr_args, ret = 0;

	memset(&o, 0, sizeof(o));
	memset(&b, 0, sizeof(b));
	tk_buf_init(&b.first_error, 0);
	nr_args = cmd_parse_options(ctx, options, &o, argc, argv, 0);
	if (nr_args < 0)
		return EXIT_USAGE;
	if (nr_args)
		return cmd_usage_error(ctx, "unexpected argument '%s'", argv[0]);
	cmd_resolve_db(ctx, o.db, &url);
	if (tk_store_open_flags(url.buf, TK_STORE_NO_CREATE, &store, &err)) {
		ret = cmd_fail(&err);
		goto out;
	}
	if (store->warning[0])
		cmd_warning("%s", store->warning);
	ret = tk_frametot_backfill(store, &b, &err);
	fprintf(stderr, "frame totals: %zu profiles had none, %zu filled", b.missing, b.filled);
	if (b.corrupt)
		fprintf(stderr, ", %zu cannot be decoded", b.corrupt);
	fputc('\n', stderr);
	if (ret)
		ret = cmd_fail(&err);
	else if (b.corrupt) {
		cmd_error("%s", b.first_error.buf);
		ret = EXIT_DATA;
	}
out:
	tk_frametot_backfill_release(&b);
	tk_store_close(store);
	tk_buf_release(&url);
	return ret;
}
