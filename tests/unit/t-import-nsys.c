/*
 * The Nsight Systems SQLite importer. The database is built from
 * fixtures/nsys/small.sql in a temporary directory; kernels with and
 * without NVTX ranges, nested ranges, two threads and two processes
 * sharing a correlation id are checked exactly, from a file, a gzipped
 * file and memory, then damaged databases.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "core/model/import.h"
#include "plugins/import/importers.h"
#include "tests/unit/folded-dump.h"
#include "tests/unit/tap.h"

static const char want_default[] =
	"<script>&\"range\"</script>;copy_kernel 5\n"
	"copy_kernel 100\n"
	"data_load;copy_kernel 300\n"
	"relu_kernel(float*, int) 120\n"
	"train_step;backward;void gemm_kernel<float, 128>(float const*, float*, int) 2000\n"
	"train_step;forward;layer1;void gemm_kernel<float, 128>(float const*, float*, int) 1040\n"
	"train_step;forward;relu_kernel(float*, int) 500\n"
	"void gemm_kernel<float, 128>(float const*, float*, int) 10\n";

static const char want_short[] =
	"<script>&\"range\"</script>;copy_kernel 5\n"
	"copy_kernel 100\n"
	"data_load;copy_kernel 300\n"
	"gemm_kernel 10\n"
	"relu_kernel 120\n"
	"train_step;backward;gemm_kernel 2000\n"
	"train_step;forward;layer1;gemm_kernel 1040\n"
	"train_step;forward;relu_kernel 500\n";

/* Runs sql (plus extra) into a new database at path. */
static int build_db(const char *path, const char *sql, const char *extra)
{
	sqlite3 *db;
	int rc;

	unlink(path);
	if (sqlite3_open(path, &db) != SQLITE_OK)
		return -1;
	rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK && extra)
		rc = sqlite3_exec(db, extra, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

static void check_file(const char *path, const char *kind, const char *want, const char *what)
{
	struct tk_import_opts o = { 0 };
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	char *got;

	o.kind = kind;
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file(path, NULL, &o, &p, &err), 0, "%s imports (%s)", what, err.msg);
	got = dump_folded(&p);
	is_str(got, want, "%s: stacks and nanoseconds", what);
	is_int(p.unit, TK_UNIT_NANOSECONDS, "%s: unit nanoseconds", what);
	free(got);
	tk_profile_release(&p);
}

static int import_bytes(const char *data, size_t len, struct tk_profile *p, struct tk_err *err)
{
	tk_profile_init(p, TK_UNIT_SAMPLES);
	return tk_import_mem("mem.sqlite", data, len, "nsys", NULL, p, err);
}

int main(void)
{
	char *sql_path = dump_fixture("fixtures/nsys/small.sql"), *sql = dump_read(sql_path);
	const char *tmp = getenv("TMPDIR");
	struct tk_buf dir = TK_BUF_INIT, db = TK_BUF_INIT, gz = TK_BUF_INIT, other = TK_BUF_INIT;
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;
	char *bytes, *got;
	size_t len, i;
	gzFile g;

	tk_buf_addf(&dir, "%s/t-import-nsys.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!sql || !mkdtemp(dir.buf)) {
		ok(0, "read fixtures/nsys/small.sql and make a temporary directory");
		return done_testing();
	}
	tk_buf_addf(&db, "%s/small.sqlite", dir.buf);
	tk_buf_addf(&gz, "%s/small.sqlite.gz", dir.buf);
	tk_buf_addf(&other, "%s/other.sqlite", dir.buf);
	is_int(build_db(db.buf, sql, NULL), 0, "the fixture database builds");

	check_file(db.buf, NULL, want_default, "small.sqlite (probed)");
	check_file(db.buf, "short", want_short, "small.sqlite, short names");

	{
		struct tk_buf b = TK_BUF_INIT;

		tk_buf_read_file(&b, db.buf, NULL);
		bytes = tk_buf_detach(&b, &len);
	}
	g = gzopen(gz.buf, "wb");
	ok(g && gzwrite(g, bytes, (unsigned)len) == (int)len && gzclose(g) == Z_OK, "gzip a copy");
	check_file(gz.buf, NULL, want_default, "small.sqlite.gz");

	is_int(import_bytes(bytes, len, &p, &err), 0, "from memory (sqlite3_deserialize)");
	got = dump_folded(&p);
	is_str(got, want_default, "from memory: the same stacks");
	free(got);
	tk_profile_release(&p);

	{
		const char *name = NULL;

		{
			const struct tk_importer *imp = tk_importer_probe(bytes, len < 4096 ? len : 4096);

			name = imp ? imp->name : NULL;
		}
		is_str(name, "nsys", "an SQLite database is probed as nsys");
	}

	/* Without the runtime table, kernels cannot be placed: all at the root. */
	tk_buf_reset(&other);
	tk_buf_addf(&other, "%s/noruntime.sqlite", dir.buf);
	build_db(other.buf, sql, "DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME;");
	check_file(other.buf, "short", "copy_kernel 405\ngemm_kernel 3050\nrelu_kernel 620\n",
		   "no CUPTI_ACTIVITY_KIND_RUNTIME");

	/* An SQLite database that is not an nsys export. */
	tk_buf_reset(&other);
	tk_buf_addf(&other, "%s/plain.sqlite", dir.buf);
	build_db(other.buf, "CREATE TABLE t (x); INSERT INTO t VALUES (1);", NULL);
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	is_int(tk_import_file(other.buf, NULL, NULL, &p, &err), TK_EDATA,
	       "another SQLite database is rejected");
	ok(strstr(err.msg, "is not a nsys profile") && strstr(err.msg, "CUPTI_ACTIVITY_KIND_KERNEL"),
	   "saying why: %s", err.msg);
	tk_profile_release(&p);

	/* Damage: truncated, a page overwritten, garbage after the header. */
	is_int(import_bytes(bytes, 1024, &p, &err), TK_EDATA, "a truncated database is rejected");
	ok(strstr(err.msg, "'mem.sqlite'") != NULL, "naming the input: %s", err.msg);
	tk_profile_release(&p);
	{
		char *copy = tk_xmalloc(len);
		int ret;

		memcpy(copy, bytes, len);
		for (i = 1024; i < len && i < 3072; i++)
			copy[i] = (char)(i * 31);
		ret = import_bytes(copy, len, &p, &err);
		ok(ret == TK_EDATA || ret == 0, "an overwritten page: an error or a profile, no crash (%d %s)",
		   ret, err.msg);
		tk_profile_release(&p);
		memcpy(copy, "SQLite format 3\0", 16);
		for (i = 16; i < len; i++)
			copy[i] = (char)((i * 2654435761u) >> 11);
		ret = import_bytes(copy, len, &p, &err);
		is_int(ret, TK_EDATA, "garbage after the header is rejected (%s)", err.msg);
		tk_profile_release(&p);
		free(copy);
	}
	is_int(import_bytes("SQLite format 3", 16, &p, &err), TK_EDATA, "a bare header is rejected");
	tk_profile_release(&p);
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	{
		struct tk_import_opts o = { 0 };

		o.kind = "mangled";
		is_int(tk_import_file(db.buf, "nsys", &o, &p, &err), TK_EUSAGE, "an unknown kind is a usage error");
	}
	tk_profile_release(&p);

	unlink(db.buf);
	unlink(gz.buf);
	tk_buf_reset(&other);
	tk_buf_addf(&other, "%s/noruntime.sqlite", dir.buf);
	unlink(other.buf);
	tk_buf_reset(&other);
	tk_buf_addf(&other, "%s/plain.sqlite", dir.buf);
	unlink(other.buf);
	rmdir(dir.buf);
	free(bytes);
	free(sql);
	free(sql_path);
	tk_buf_release(&dir);
	tk_buf_release(&db);
	tk_buf_release(&gz);
	tk_buf_release(&other);
	return done_testing();
}
