/*
 * The PostgreSQL store's own parts, without a server: the rewriting of
 * the shared columns' SQLite expressions for jsonb, the DDL made from
 * run_columns[], the URLs it takes, passwords kept out of messages, and
 * the bounded wait of a command that only reads (tk_store_opts.wait_s).
 * Against a real server: tests/t6101-pg-store.sh (the conformance suite)
 * and the other t61xx tests.
 */
#include "plugins/store/postgres.c"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "tests/unit/tap.h"

static void test_pg_json(void)
{
	static const struct {
		const char *name, *want;
	} cases[] = {
		{ "maxrss_source", "((record)::jsonb #>> '{run,maxrss_source}')::TEXT" },
		{ "wrapper_rss_bytes", "((record)::jsonb #>> '{run,wrapper_rss_bytes}')::BIGINT" },
		{ "tree_samples",
		  "coalesce(((record)::jsonb #>> '{run,tree_samples}')::BIGINT, 0)" },
		{ "ntasks", "((record)::jsonb #>> '{run,ci,slurm_ntasks}')::INTEGER" },
	};
	size_t i, j, with_json = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tk_buf b = TK_BUF_INIT;

		for (j = 0; j < NR_RUN_COLUMNS; j++)
			if (!strcmp(col_name(&run_columns[j]), cases[i].name))
				pg_json(&run_columns[j], "record", &b);
		is_str(b.buf, cases[i].want, "%s for jsonb", cases[i].name);
		tk_buf_release(&b);
	}
	/* every column with a json expression rewrites to no json_extract */
	for (j = 0; j < NR_RUN_COLUMNS; j++) {
		struct tk_buf b = TK_BUF_INIT;

		if (!run_columns[j].json)
			continue;
		with_json++;
		pg_json(&run_columns[j], "NEW.record", &b);
		if (strstr(b.buf, "json_extract") || !strstr(b.buf, "(NEW.record)::jsonb #>> '{run,"))
			ok(0, "%s: %s", col_name(&run_columns[j]), b.buf);
		tk_buf_release(&b);
	}
	ok(with_json >= 4, "every column filled from the record rewrites (%zu)", with_json);
}

static void test_ddl(void)
{
	struct tk_buf b = TK_BUF_INIT;
	int v;

	add_columns(1, &b);
	ok(strstr(b.buf, "CREATE TABLE runs (run_id TEXT COLLATE \"C\" PRIMARY KEY, key TEXT NOT NULL,") != NULL,
	   "version 1 makes runs from run_columns[]: %.80s", b.buf);
	ok(strstr(b.buf, "walltime_s DOUBLE PRECISION,") && strstr(b.buf, "record TEXT NOT NULL") &&
	   !strstr(b.buf, "rank"), "with PostgreSQL's types, only version 1's columns");
	tk_buf_reset(&b);
	add_columns(3, &b);
	is_str(b.buf, "ALTER TABLE runs ADD COLUMN rank INTEGER;"
	       "ALTER TABLE runs ADD COLUMN rank_group TEXT;", "version 3 adds the rank columns");
	tk_buf_reset(&b);
	add_columns(4, &b);
	ok(strstr(b.buf, "UPDATE runs SET maxrss_source = ") &&
	   strstr(b.buf, "CREATE TRIGGER runs_fill_v4_insert BEFORE INSERT ON runs FOR EACH ROW"
		  " WHEN (NEW.maxrss_source IS NULL AND"),
	   "version 4 fills its columns from the record, now and for older writers");
	for (v = 1; v <= SCHEMA_VERSION; v++) {
		tk_buf_reset(&b);
		add_columns(v, &b);
		if (v == COVER_VERSION)
			cover_index_sql(&b, 1);
		if (v == FRAMES_VERSION)
			frame_totals_sql(&b, 1);
		tk_buf_adds(&b, migrations[v - 1]);
		ok(b.len > 0, "version %d has SQL", v);
	}
	tk_buf_reset(&b);
	cover_index_sql(&b, 1);
	ok(strstr(b.buf, "ON runs (key, started_at_us DESC, run_id) INCLUDE (branch, ") &&
	   strstr(b.buf, ", slurm_maxrss_bytes);") && !strstr(b.buf, "record"),
	   "version 7: one key's summary columns in an index, the record not");
	tk_buf_release(&b);
}

static void test_urls(void)
{
	static const struct {
		const char *url, *shown;
	} cases[] = {
		{ "postgresql://ci:s3cret@db.example:5432/tracker",
		  "postgresql://ci:***@db.example:5432/tracker" },
		{ "postgresql://ci@db/tracker?sslmode=require", "postgresql://ci@db/tracker?sslmode=require" },
		{ "postgres://u:p%40ss@h/d?password=x&sslmode=verify-full",
		  "postgres://u:***@h/d?password=***&sslmode=verify-full" },
		{ "postgresql:///tracker?host=/run/pg&password=top", "postgresql:///tracker?host=/run/pg&password=***" },
		{ "postgresql://h/d?application_name=old_password=x", "postgresql://h/d?application_name=old_password=x" },
		{ "/srv/history.db", "/srv/history.db" },
		{ "sqlite:a:b@c.db", "sqlite:a:b@c.db" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tk_buf b = TK_BUF_INIT;

		tk_store_redact_url(cases[i].url, &b);
		is_str(b.buf, cases[i].shown, "redacted: %s", cases[i].shown);
		tk_buf_release(&b);
	}
	ok(pg_accepts("postgresql://h/d") && pg_accepts("postgres://h/d") &&
	   !pg_accepts("sqlite:x.db") && !pg_accepts("pgsql://h/d") && !pg_accepts(NULL),
	   "postgresql:// and postgres:// URLs are this store's");
}

static void test_unreachable(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	int ret;

	/* port 1 on loopback: refused at once; one attempt */
	setenv("TRACKER_PG_RETRY_S", "0", 1);
	ret = tk_store_open("postgresql://ci:s3cret@127.0.0.1:1/tracker", &s, &err);
	is_int(ret, TK_EUNAVAIL, "a server that is not there: TK_EUNAVAIL");
	ok(s == NULL, "and no store");
	ok(strstr(err.msg, "'postgresql://ci:***@127.0.0.1:1/tracker'") != NULL,
	   "the message names the database: %s", err.msg);
	ok(!strstr(err.msg, "s3cret"), "without its password");
	ok(!strchr(err.msg, '\n') && !strchr(err.msg, '\t'), "on one line");
	ret = tk_store_open("postgresql://h/d?nonsense=1", &s, &err);
	is_int(ret, TK_EUSAGE, "a URL libpq cannot parse is a usage error: %s", err.msg);
}

/* The open of a command that only reads: its wait is bounded in all. */
static void expect_gave_up(double wait_s, const char *env, const char *want, const char *desc)
{
	struct tk_store_opts o = { TK_STORE_NO_CREATE, NULL, wait_s, 0 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;

	if (env)
		setenv("TRACKER_PG_RETRY_S", env, 1);
	else
		unsetenv("TRACKER_PG_RETRY_S");
	is_int(tk_store_open_opts("postgresql://ci:s3cret@127.0.0.1:1/tracker", &o, &s, &err),
	       TK_EUNAVAIL, "%s: TK_EUNAVAIL", desc);
	ok(!strncmp(err.msg, "gave up after ", 14) && strstr(err.msg, want) &&
	   strstr(err.msg, "cannot connect to database 'postgresql://ci:***@127.0.0.1:1/"
		  "tracker'") && !strstr(err.msg, "s3cret"),
	   "%s: %s", desc, err.msg);
}

static void test_bounded_wait(void)
{
	struct tk_store_opts o = { TK_STORE_NO_CREATE, NULL, 0.5, 0 };
	struct sockaddr_in addr;
	socklen_t len = sizeof(addr);
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	struct tk_buf url = TK_BUF_INIT;
	int fd;

	expect_gave_up(0.5, NULL, " attempts in 0.5 s: ", "wait_s bounds the retries");
	expect_gave_up(0.5, "0.2", " attempts in 0.2 s: ", "TRACKER_PG_RETRY_S may shorten it");
	expect_gave_up(0.5, "10", " attempts in 0.5 s: ", "but not lengthen it");
	unsetenv("TRACKER_PG_RETRY_S");

	/* a server that takes the connection and never answers: the attempt
	 * itself is cut to the wait (its own timeout is 5 s) */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || listen(fd, 8) ||
	    getsockname(fd, (struct sockaddr *)&addr, &len)) {
		ok(0, "a silent server on loopback");
		return;
	}
	tk_buf_addf(&url, "postgresql://ci@127.0.0.1:%d/tracker", ntohs(addr.sin_port));
	is_int(tk_store_open_opts(url.buf, &o, &s, &err), TK_EUNAVAIL,
	       "a server that never answers: TK_EUNAVAIL");
	ok(strstr(err.msg, ": timeout expired after 0.5 s") != NULL,
	   "the connection attempt is cut to the wait: %s", err.msg);
	close(fd);
	tk_buf_release(&url);
}

int main(void)
{
	test_pg_json();
	test_ddl();
	test_urls();
	test_unreachable();
	test_bounded_wait();
	return done_testing();
}
