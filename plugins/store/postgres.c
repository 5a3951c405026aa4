/*
 * The PostgreSQL history store: one database that many agents on many
 * machines record into, where a SQLite file on a shared filesystem would
 * be unsafe.
 *
 * The schema means what SQLite's means (plugins/store/sqlite.c): a table
 * `runs` whose columns come from the same run_columns[]
 * (plugins/store/columns.h), `record` the whole run as compact JSON, a
 * table `profiles`, and the same numbered schema versions, kept in a
 * table `tracker_schema`. Columns of a version after 3 are filled from
 * `record` for rows stored before the migration and, by a trigger, for
 * rows an older tracker inserts later; their SQLite json_extract
 * expressions are rewritten for jsonb (pg_json below), so one table
 * entry serves both stores.
 *
 * Every value goes to the server as a parameter (PQsendQueryParams);
 * the only SQL built at run time is made of column names and
 * placeholders. put_run is one INSERT ... ON CONFLICT statement, so one
 * transaction per run, idempotent by run id. Migrations run in one
 * transaction under a transaction-scoped advisory lock, so concurrent
 * openers migrate once and the others find the work done.
 *
 * Failures of the connection (refused, reset, the server starting up or
 * shutting down, too many clients) are retried with jittered backoff:
 * each unit of work (the migration, a put, a query) is redone from the
 * start on a new connection, for at most RETRY_S seconds in all (the
 * environment's TRACKER_PG_RETRY_S overrides it; 0: one attempt). Each
 * connection attempt gives up after CONNECT_TIMEOUT_S unless the URL
 * says connect_timeout. A command that only reads gives a shorter bound
 * (tk_store_opts.wait_s, TK_STORE_READ_WAIT_S): then that is the whole
 * wait, each connection attempt cut to what is left of it, and
 * TRACKER_PG_RETRY_S may only shorten it. A SIGTERM, SIGINT or SIGHUP pending on the
 * process (tracker run blocks them while it records) ends the wait at
 * once, between attempts and within them: connecting and waiting for
 * results poll the socket in POLL_MS steps.
 *
 * Every statement has a deadline, so a held lock (LOCK TABLE runs, a
 * long migration elsewhere) or a server that stops answering ends in an
 * error like an outage, and tracker run keeps its record for push: the
 * server cancels a statement after TIMEOUT_S seconds and a lock wait
 * after as long (statement_timeout and lock_timeout, sent in the
 * connection's options; the environment's TRACKER_PG_TIMEOUT_S sets
 * another bound, 0: none), and tracker itself stops waiting for a result
 * TIMEOUT_GRACE_S seconds after that, for a server that cannot even
 * cancel. Neither is retried: the lock would still be held.
 *
 * The URL is handed to libpq as it is (TLS: sslmode, sslrootcert, ...;
 * application_name; any libpq keyword), with defaults it can override:
 * connect_timeout, application_name "tracker", and the two timeouts
 * (its options' own -c settings come after ours). Messages
 * name the database by its URL with the password replaced
 * (tk_store_redact_url).
 */
#include "plugins/store/backends.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/base/buf.h"
#include "core/base/cancel.h"
#include "core/base/lazy-pq.h"
#include "core/store/store.h"
#include "core/model/record.h"
#include "core/base/timeutil.h"
#include "plugins/store/columns.h"
#include "plugins/store/timelines.h"
#include "core/base/banned.h"

#define RETRY_S 30
#define TIMEOUT_S 120
#define TIMEOUT_GRACE_S 10
#define CONNECT_TIMEOUT_S "5"
#define POLL_MS 100
/* pg_advisory_xact_lock key of migrations: the bytes of "tracker". */
#define MIGRATE_LOCK "32776859903812978"

/* A failure worth another attempt on a new connection (internal). */
#define TRANSIENT (-1)

struct pg_store {
	struct tk_store base; /* first: the store API hands us &base */
	PGconn *conn;
	char *url;    /* as given: what libpq connects to */
	char *shown;  /* the URL without its password: what messages say */
	unsigned flags;
	int schema;   /* the schema version after migrate */
	double retry_s;
	double timeout_s; /* of a statement and a lock wait; 0: none */
	char *options;    /* the connection's options: our timeouts, the URL's */
	double wait_s;    /* tk_store_opts.wait_s: connecting too; 0: none */
	double deadline;  /* of the unit of work being retried, with wait_s */
	unsigned retry_seed;
	int streaming;    /* a cursor's transaction is open (stream) */
};

/*
 * Schema versions, as in the SQLite store. The columns of `runs` are not
 * here: version v adds those of run_columns[] whose `since` is v
 * (add_columns); this is what each version adds besides.
 */
static const char *const migrations[] = {
	/* 1: runs */
	"CREATE INDEX runs_key_branch_started ON runs (key, branch, started_at_us DESC);"
	"CREATE INDEX runs_started ON runs (started_at_us DESC);",
	/* 2: profiles, one per (run, kind), encoded by core/model/profcodec.c */
	"CREATE TABLE profiles ("
	" run_id TEXT NOT NULL REFERENCES runs (run_id),"
	" kind TEXT NOT NULL,"
	" unit TEXT NOT NULL,"
	" source_format TEXT,"
	" nodes BIGINT NOT NULL,"
	" total DOUBLE PRECISION NOT NULL,"
	" encoding TEXT NOT NULL,"
	" data BYTEA NOT NULL,"
	" stored_at_us BIGINT NOT NULL,"
	" PRIMARY KEY (run_id, kind)"
	");",
	/* 3: the ranks of a parallel job */
	"CREATE INDEX runs_key_rank_group ON runs (key, rank_group)"
	" WHERE rank_group IS NOT NULL;",
	/* 4: the rest of the summary; "one key, newest first" without sorting */
	"CREATE INDEX runs_key_started ON runs (key, started_at_us DESC, run_id);",
	/* 5: the run's machine class (its column only) */
	"",
	/* 6: the largest SLURM step's MaxRSS (its column only) */
	"",
	/* 7: one key's summaries from an index alone (cover_index_sql) */
	"",
	/* 8 (FRAMES_VERSION): frame totals (frame_totals_sql) */
	"",
	/* 9 (TIMELINE_VERSION): memory timelines, apart from the runs
	 * (plugins/store/timelines.h) */
	[TIMELINE_VERSION - 1] = TIMELINE_TABLE("TEXT COLLATE \"C\"", "BIGINT"),
};

#define SCHEMA_VERSION ((int)(sizeof(migrations) / sizeof(migrations[0])))

static const char *pg_type(enum col_type t)
{
	switch (t) {
	case COL_TEXT:
	case COL_STATUS:
	case COL_RECORD:
		return "TEXT";
	case COL_REAL:
		return "DOUBLE PRECISION";
	case COL_I64:
	case COL_I64_SET:
		return "BIGINT";
	default:
		return "INTEGER";
	}
}

/*
 * The column's SQLite expression for jsonb: every
 * json_extract(record, '$.a.b') becomes (REC::jsonb #>> '{a,b}')::TYPE,
 * REC being `record` or `NEW.record`; the rest (coalesce, literals) is
 * the same in both dialects.
 */
static void pg_json(const struct run_column *c, const char *rec, struct tk_buf *out)
{
	static const char open[] = "json_extract(record, '$.";
	const char *p = c->json, *hit, *end;

	while ((hit = strstr(p, open))) {
		const char *path = hit + sizeof(open) - 1;

		end = strstr(path, "')");
		if (!end)
			break;
		tk_buf_add(out, p, (size_t)(hit - p));
		tk_buf_addf(out, "((%s)::jsonb #>> '{", rec);
		for (; path < end; path++)
			tk_buf_addch(out, *path == '.' ? ',' : *path);
		tk_buf_addf(out, "}')::%s", pg_type(col_type(c)));
		p = end + 2;
	}
	tk_buf_adds(out, p);
}

/* The DDL of schema version v's columns (see migrations[]). */
static void add_columns(int v, struct tk_buf *sql)
{
	const char *sep = "";
	size_t i;
	int any = 0;

	if (v == 1) {
		tk_buf_adds(sql, "CREATE TABLE runs (");
		for (i = 0; i < NR_RUN_COLUMNS; i++) {
			const struct run_column *c = &run_columns[i];

			if (c->since != 1)
				continue;
			tk_buf_addf(sql, "%s%s %s", sep, col_name(c), pg_type(col_type(c)));
			/* run ids sort bytewise, as in SQLite, whatever the
			 * database's collation */
			if (!strcmp(col_name(c), "run_id"))
				tk_buf_adds(sql, " COLLATE \"C\" PRIMARY KEY");
			else if (col_type(c) == COL_I64_SET || col_type(c) == COL_INT_SET ||
				 col_type(c) == COL_STATUS || col_type(c) == COL_RECORD ||
				 !strcmp(col_name(c), "key"))
				tk_buf_adds(sql, " NOT NULL");
			sep = ", ";
		}
		tk_buf_adds(sql, ");");
		return;
	}
	for (i = 0; i < NR_RUN_COLUMNS; i++) {
		if (run_columns[i].since != v)
			continue;
		tk_buf_addf(sql, "ALTER TABLE runs ADD COLUMN %s %s;", col_name(&run_columns[i]),
			    pg_type(col_type(&run_columns[i])));
		any |= run_columns[i].json != NULL;
	}
	if (!any)
		return;
	/* the rows stored so far */
	tk_buf_adds(sql, "UPDATE runs SET ");
	sep = "";
	for (i = 0; i < NR_RUN_COLUMNS; i++) {
		if (run_columns[i].since != v || !run_columns[i].json)
			continue;
		tk_buf_addf(sql, "%s%s = ", sep, col_name(&run_columns[i]));
		pg_json(&run_columns[i], "record", sql);
		sep = ", ";
	}
	tk_buf_adds(sql, ";");
	/*
	 * The rows a writer that does not know these columns stores later:
	 * it leaves them all NULL. (When a writer that knows them has them
	 * all unknown, recomputing them from the record changes nothing.)
	 */
	tk_buf_addf(sql, "CREATE FUNCTION runs_fill_v%d() RETURNS trigger LANGUAGE plpgsql"
		    " AS $fill$ BEGIN ", v);
	for (i = 0; i < NR_RUN_COLUMNS; i++) {
		if (run_columns[i].since != v || !run_columns[i].json)
			continue;
		tk_buf_addf(sql, "NEW.%s := ", col_name(&run_columns[i]));
		pg_json(&run_columns[i], "NEW.record", sql);
		tk_buf_adds(sql, "; ");
	}
	tk_buf_adds(sql, "RETURN NEW; END $fill$;");
	tk_buf_addf(sql, "CREATE TRIGGER runs_fill_v%d_insert BEFORE INSERT ON runs"
		    " FOR EACH ROW WHEN (", v);
	sep = "";
	for (i = 0; i < NR_RUN_COLUMNS; i++) {
		if (run_columns[i].since != v || !run_columns[i].json)
			continue;
		tk_buf_addf(sql, "%sNEW.%s IS NULL", sep, col_name(&run_columns[i]));
		sep = " AND ";
	}
	tk_buf_addf(sql, ") EXECUTE FUNCTION runs_fill_v%d();", v);
	tk_buf_addf(sql, "CREATE TRIGGER runs_fill_v%d_update BEFORE UPDATE OF record ON runs"
		    " FOR EACH ROW EXECUTE FUNCTION runs_fill_v%d();", v, v);
}

static struct pg_store *from_base(struct tk_store *s)
{
	return (struct pg_store *)s;
}

/* The caller's cancel flag is set (tracker run's handlers: core/base/cancel.h),
 * or a TERM, INT or HUP waits for the process (blocked): stop waiting for
 * the server. */
static int cancelled(const struct pg_store *st)
{
	sigset_t set;

	if (tk_cancelled(st->base.cancel))
		return 1;
	if (sigpending(&set))
		return 0;
	return sigismember(&set, SIGTERM) == 1 || sigismember(&set, SIGINT) == 1 ||
	       sigismember(&set, SIGHUP) == 1;
}

/* libpq's messages end in a newline and may span lines (indented with
 * tabs): one line here, single spaces. */
static void one_line(const char *msg, struct tk_buf *out)
{
	const char *p;

	for (p = msg ? msg : ""; *p; p++) {
		int space = *p == '\n' || *p == '\t' || *p == ' ';

		if (!space)
			tk_buf_addch(out, *p);
		else if (out->len && out->buf[out->len - 1] != ' ')
			tk_buf_addch(out, ' ');
	}
	while (out->len && out->buf[out->len - 1] == ' ')
		tk_buf_setlen(out, out->len - 1);
}

static int conn_error(struct pg_store *st, struct tk_err *err, const char *what)
{
	struct tk_buf msg = TK_BUF_INIT;
	int ret;

	one_line(st->conn ? PQerrorMessage(st->conn) : "out of memory", &msg);
	ret = tk_err_set(err, TK_EUNAVAIL, "cannot %s database '%s': %s", what, st->shown,
			 msg.buf);
	tk_buf_release(&msg);
	return ret;
}

/*
 * Connection failures that another attempt cannot cure: libpq's words
 * for them (it has no error codes before the server answers). A host
 * name that does not exist is one; a temporary failure of name
 * resolution is not.
 */
static int permanent_connect_failure(const char *msg)
{
	static const char *const words[] = {
		"authentication", "password", "SSL", "ssl", "does not exist",
		"pg_hba.conf", "invalid", "permission denied", "not supported",
		"Name or service not known",
	};
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(msg, words[i]))
			return 1;
	return 0;
}

static void drop_conn(struct pg_store *st)
{
	PQfinish(st->conn);
	st->conn = NULL;
}

/* Waits for the socket, POLL_MS at a time; 1 ready, 0 deadline, -1 cancelled. */
static int wait_socket(const struct pg_store *st, PGconn *conn, int write, double deadline)
{
	struct pollfd pfd;

	pfd.fd = PQsocket(conn);
	pfd.events = write ? POLLOUT : POLLIN;
	for (;;) {
		int n;

		if (cancelled(st))
			return -1;
		if (deadline > 0 && tk_mono_s() > deadline)
			return 0;
		pfd.revents = 0;
		n = poll(&pfd, 1, POLL_MS);
		if (n > 0)
			return 1;
		if (n < 0 && errno != EINTR)
			return 1; /* let libpq find the error */
	}
}

/* The URL's connect_timeout, else ours (libpq's defaults: none). */
static double connect_timeout(PGconn *conn)
{
	PQconninfoOption *opts = PQconninfo(conn), *o;
	double t = strtod(CONNECT_TIMEOUT_S, NULL);

	for (o = opts; o && o->keyword; o++)
		if (!strcmp(o->keyword, "connect_timeout") && o->val && *o->val)
			t = strtod(o->val, NULL);
	PQconninfoFree(opts);
	return t > 0 ? t : 0;
}

/* The server's notices ("relation already exists, skipping") are not
 * for the job's log: libpq would print them on stderr. */
static void quiet_notice(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

/* One connection attempt: 0, TRANSIENT, or an error (err filled). */
static int connect_once(struct pg_store *st, struct tk_err *err)
{
	const char *keys[] = { "connect_timeout", "fallback_application_name", "dbname",
			       "options", NULL };
	const char *vals[] = { CONNECT_TIMEOUT_S, "tracker", st->url, st->options, NULL };
	PostgresPollingStatusType ps = PGRES_POLLING_WRITING;
	double limit, deadline, started = tk_mono_s();
	int ret;

	drop_conn(st);
	st->conn = PQconnectStartParams(keys, vals, 1);
	if (!st->conn)
		return conn_error(st, err, "connect to");
	if (PQstatus(st->conn) == CONNECTION_BAD)
		goto bad;
	limit = connect_timeout(st->conn);
	deadline = limit > 0 ? started + limit : 0;
	if (st->wait_s > 0 && (!deadline || deadline > st->deadline))
		deadline = st->deadline;
	while (ps != PGRES_POLLING_OK && ps != PGRES_POLLING_FAILED) {
		int w = wait_socket(st, st->conn, ps == PGRES_POLLING_WRITING, deadline);

		if (w < 0) {
			drop_conn(st);
			return tk_err_set(err, TK_EUNAVAIL, "cannot connect to database '%s': "
					  "cancelled by a signal", st->shown);
		}
		if (w == 0) {
			drop_conn(st);
			tk_err_set(err, TK_EUNAVAIL, "cannot connect to database '%s': "
				   "timeout expired after %.2g s", st->shown, deadline - started);
			return TRANSIENT;
		}
		ps = PQconnectPoll(st->conn);
	}
	if (ps == PGRES_POLLING_OK) {
		PQsetNoticeProcessor(st->conn, quiet_notice, NULL);
		return 0;
	}
bad:
	ret = conn_error(st, err, "connect to");
	/* a pooler (PgBouncer) refuses the options that carry our timeouts */
	if (strstr(PQerrorMessage(st->conn), "unsupported startup parameter")) {
		size_t len = strlen(err->msg);

		snprintf(err->msg + len, sizeof(err->msg) - len, " (a PgBouncer in front of "
			 "the server? add options to its ignore_startup_parameters: see "
			 "docs/stores.md)");
	} else if (!permanent_connect_failure(PQerrorMessage(st->conn)))
		ret = TRANSIENT;
	drop_conn(st);
	return ret;
}

/* SQLSTATEs another attempt may cure: the connection, the server going
 * down or up, too many clients, a serialization failure or deadlock. */
static int transient_state(const char *state)
{
	if (!state)
		return 1; /* no SQLSTATE: the connection broke */
	return !strncmp(state, "08", 2) || !strncmp(state, "57P", 3) ||
	       !strcmp(state, "53300") || !strcmp(state, "40001") || !strcmp(state, "40P01");
}

/*
 * A statement's parameters: text (NULL is SQL NULL), numbers printed into
 * nums, or binary data with its length.
 */
struct param {
	const char *value;
	size_t num_off; /* is_num: the value is at nums.buf + num_off */
	int length, format, is_num;
};

struct params {
	struct param *v;
	size_t n, alloc;
	struct tk_buf nums;
};

static void params_init(struct params *p)
{
	memset(p, 0, sizeof(*p));
	tk_buf_init(&p->nums, 0);
}

static void params_release(struct params *p)
{
	free(p->v);
	tk_buf_release(&p->nums);
}

static struct param *param_new(struct params *p)
{
	struct param *v;

	TK_ALLOC_GROW(p->v, p->n + 1, p->alloc);
	v = &p->v[p->n++];
	memset(v, 0, sizeof(*v));
	return v;
}

static void param_text(struct params *p, const char *s)
{
	param_new(p)->value = s;
}

static void param_num(struct params *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void param_num(struct params *p, const char *fmt, ...)
{
	struct param *v = param_new(p);
	va_list ap;

	v->is_num = 1;
	v->num_off = p->nums.len;
	va_start(ap, fmt);
	tk_buf_vaddf(&p->nums, fmt, ap);
	va_end(ap);
	tk_buf_addch(&p->nums, '\0');
}

static void param_binary(struct params *p, const void *data, size_t len)
{
	struct param *v = param_new(p);

	v->value = data;
	v->length = (int)len;
	v->format = 1;
}

/*
 * Sends sql and its parameters; 1 on success (as PQsendQueryParams).
 * Without parameters (p NULL: the migrations' DDL, fixed text) sql may
 * hold several statements, which only the simple protocol takes.
 */
static int send_sql(PGconn *conn, const char *sql, const struct params *p, int binary)
{
	const char **values = NULL;
	int *lengths = NULL, *formats = NULL, ok;
	size_t i, n = p ? p->n : 0;

	if (!p)
		return PQsendQuery(conn, sql);
	if (n) {
		values = tk_xcalloc(n, sizeof(*values));
		lengths = tk_xcalloc(n, sizeof(*lengths));
		formats = tk_xcalloc(n, sizeof(*formats));
	}
	for (i = 0; i < n; i++) {
		values[i] = p->v[i].is_num ? p->nums.buf + p->v[i].num_off : p->v[i].value;
		lengths[i] = p->v[i].length;
		formats[i] = p->v[i].format;
	}
	ok = PQsendQueryParams(conn, sql, (int)n, NULL, values, lengths, formats, binary);
	free(values);
	free(lengths);
	free(formats);
	return ok;
}

/*
 * Sends sql with its parameters and waits for the result, cancellably.
 * Returns 0 with *res the last result, TRANSIENT, or an error (err
 * filled; *res NULL). A result that is an error is an error, unless
 * ok_state names its SQLSTATE. binary: results in binary format.
 */
static int run_sql(struct pg_store *st, const char *sql, struct params *p, int binary,
		   const char *ok_state, PGresult **res, struct tk_err *err)
{
	PGresult *r, *last = NULL;
	ExecStatusType es;
	const char *state;
	double deadline = st->timeout_s > 0 ? tk_mono_s() + st->timeout_s + TIMEOUT_GRACE_S : 0;
	int ret, w;

	*res = NULL;
	if (!send_sql(st->conn, sql, p, binary))
		goto broken;
	for (;;) {
		int f = PQflush(st->conn);

		if (f < 0)
			goto broken;
		if (f == 0)
			break;
		w = wait_socket(st, st->conn, 1, deadline);
		if (w < 0)
			goto cancel;
		if (w == 0)
			goto timeout;
	}
	for (;;) {
		while (PQisBusy(st->conn)) {
			w = wait_socket(st, st->conn, 0, deadline);
			if (w < 0)
				goto cancel;
			if (w == 0)
				goto timeout;
			if (!PQconsumeInput(st->conn))
				goto broken;
		}
		r = PQgetResult(st->conn);
		if (!r)
			break;
		PQclear(last);
		last = r;
	}
	if (!last)
		goto broken;
	es = PQresultStatus(last);
	if (es == PGRES_COMMAND_OK || es == PGRES_TUPLES_OK) {
		*res = last;
		return 0;
	}
	state = PQresultErrorField(last, PG_DIAG_SQLSTATE);
	if (ok_state && state && !strcmp(state, ok_state)) {
		*res = last;
		return 0;
	}
	{
		struct tk_buf msg = TK_BUF_INIT;

		one_line(PQresultErrorMessage(last), &msg);
		tk_err_set(err, TK_EUNAVAIL, "cannot use database '%s': %s", st->shown, msg.buf);
		tk_buf_release(&msg);
	}
	ret = transient_state(state) || PQstatus(st->conn) == CONNECTION_BAD ? TRANSIENT
		: TK_EUNAVAIL;
	PQclear(last);
	if (ret == TRANSIENT)
		drop_conn(st);
	return ret;
broken:
	PQclear(last);
	conn_error(st, err, "use");
	drop_conn(st);
	return TRANSIENT;
cancel:
	PQclear(last);
	drop_conn(st);
	return tk_err_set(err, TK_EUNAVAIL, "cannot use database '%s': cancelled by a signal",
			  st->shown);
timeout:
	PQclear(last);
	drop_conn(st);
	return tk_err_set(err, TK_EUNAVAIL, "cannot use database '%s': no answer within %g s",
			  st->shown, st->timeout_s + TIMEOUT_GRACE_S);
}

/* Sleeps 50 ms..2^attempt*50 ms (capped at 2 s), so retrying writers
 * spread out; never past deadline. */
static void backoff(struct pg_store *st, int attempt, double deadline)
{
	long max_ms = attempt < 6 ? 50L << attempt : 2000;
	long ms = 50 + (long)(rand_r(&st->retry_seed) % (unsigned)max_ms);
	double until = tk_mono_s() + ms / 1000.0;

	if (until > deadline)
		until = deadline;

	/* in small steps, to notice a signal at once */
	while (!cancelled(st) && tk_mono_s() < until) {
		struct timespec ts = { 0, 20 * 1000000L };

		nanosleep(&ts, NULL);
	}
}

/*
 * Runs fn (one unit of work: it may run several statements) on a live
 * connection, again on a new one while it fails transiently, for at most
 * st->retry_s seconds, unless a signal is pending.
 */
static int with_retry(struct pg_store *st, int (*fn)(struct pg_store *, void *, struct tk_err *),
		      void *arg, struct tk_err *err)
{
	double deadline = tk_mono_s() + st->retry_s;
	int attempt = 0, tries = 0, ret;

	st->deadline = tk_mono_s() + st->wait_s;
	for (;;) {
		tries++;
		ret = st->conn && PQstatus(st->conn) == CONNECTION_OK ? 0 : connect_once(st, err);
		if (!ret)
			ret = fn(st, arg, err);
		if (ret != TRANSIENT)
			return ret;
		if (cancelled(st) || tk_mono_s() >= deadline)
			break;
		backoff(st, attempt++, deadline);
		/* a bounded wait has no time left for another attempt */
		if (cancelled(st) || (st->wait_s > 0 && tk_mono_s() >= deadline))
			break;
	}
	if (cancelled(st))
		tk_err_prefix(err, "gave up (a signal arrived)");
	else if (tries > 1)
		tk_err_prefix(err, "gave up after %d attempts in %g s", tries, st->retry_s);
	return TK_EUNAVAIL;
}

/* ---- migrate ---- */

struct migrate_arg {
	int found;  /* the version found (under the lock) */
};

/* One statement, as every tracker run opens the store: no table (42P01,
 * undefined_table) is no tracker history here. */
static int read_version(struct pg_store *st, int *v, struct tk_err *err)
{
	PGresult *res;
	const char *state;
	int ret;

	ret = run_sql(st, "SELECT coalesce(max(version), 0) FROM tracker_schema", NULL, 0,
		      "42P01", &res, err);
	if (ret)
		return ret;
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (state && !strcmp(state, "42P01"))
		*v = -1;
	else
		*v = (int)strtol(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	return 0;
}

static int exec_simple(struct pg_store *st, const char *sql, struct tk_err *err)
{
	PGresult *res;
	int ret = run_sql(st, sql, NULL, 0, NULL, &res, err);

	PQclear(res);
	return ret;
}

static int migrate_unit(struct pg_store *st, void *data, struct tk_err *err)
{
	struct migrate_arg *m = data;
	struct tk_buf sql = TK_BUF_INIT;
	int v, ret, target;

	ret = read_version(st, &v, err);
	if (ret)
		return ret;
	m->found = v;
	if (v < 0 && (st->flags & TK_STORE_NO_CREATE))
		return tk_err_set(err, TK_EUNAVAIL, "no tracker history in database '%s' "
				  "(nothing recorded yet?)", st->shown);
	if (v >= SCHEMA_VERSION)
		return 0;
	ret = exec_simple(st, "BEGIN", err);
	if (ret)
		return ret;
	ret = exec_simple(st, "SELECT pg_advisory_xact_lock(" MIGRATE_LOCK ")", err);
	if (!ret)
		ret = exec_simple(st, "CREATE TABLE IF NOT EXISTS tracker_schema"
				  " (version INTEGER NOT NULL)", err);
	/* Another process may have migrated while we waited for the lock. */
	if (!ret)
		ret = read_version(st, &v, err);
	for (target = v + 1; !ret && target <= SCHEMA_VERSION; target++) {
		if (target < 1)
			continue;
		tk_buf_reset(&sql);
		add_columns(target, &sql);
		if (target == COVER_VERSION)
			cover_index_sql(&sql, 1);
		if (target == FRAMES_VERSION)
			frame_totals_sql(&sql, 1);
		tk_buf_adds(&sql, migrations[target - 1]);
		ret = exec_simple(st, sql.buf, err);
		if (ret)
			tk_err_prefix(err, "cannot migrate to schema version %d", target);
	}
	if (!ret && v < SCHEMA_VERSION) {
		tk_buf_reset(&sql);
		tk_buf_addf(&sql, "DELETE FROM tracker_schema; INSERT INTO tracker_schema"
			    " VALUES (%d)", SCHEMA_VERSION);
		ret = exec_simple(st, sql.buf, err);
	}
	if (!ret)
		ret = exec_simple(st, "COMMIT", err);
	if (ret && st->conn) {
		struct tk_err ignored = TK_ERR_INIT;

		exec_simple(st, "ROLLBACK", &ignored);
	}
	tk_buf_release(&sql);
	if (!ret)
		m->found = SCHEMA_VERSION;
	return ret;
}

static int pg_migrate(struct tk_store *s, struct tk_err *err)
{
	struct pg_store *st = from_base(s);
	struct migrate_arg m = { -1 };
	int ret;

	ret = with_retry(st, migrate_unit, &m, err);
	/*
	 * A reader that may not write (a role with SELECT only) reads the
	 * schema it finds: migrations only add.
	 */
	if (ret && (st->flags & TK_STORE_NO_CREATE) && m.found > 0 &&
	    strstr(err->msg, "permission denied")) {
		tk_err_clear(err);
		ret = 0;
	}
	if (!ret)
		st->schema = m.found;
	return ret;
}

/* ---- open, close ---- */

static int pg_accepts(const char *url)
{
	return url && (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11));
}

static void pg_close(struct tk_store *s)
{
	struct pg_store *st;

	if (!s)
		return;
	st = from_base(s);
	drop_conn(st);
	free(st->url);
	free(st->shown);
	free(st->options);
	free(st);
}

/* A number of seconds from the environment: def when unset, empty or
 * not a number in [0, 86400] (0: no deadline). */
static double env_seconds(const char *v, double def)
{
	char *end;
	double d;

	if (!v || !*v)
		return def;
	d = strtod(v, &end);
	if (*end || !(d >= 0) || d > 86400)
		return def;
	return d;
}

static int pg_open(const char *url, const struct tk_store_opts *o, struct tk_store **out,
		   struct tk_err *err)
{
	struct tk_buf shown = TK_BUF_INIT;
	struct pg_store *st;
	const char *env = getenv("TRACKER_PG_RETRY_S");
	const char *tenv = getenv("TRACKER_PG_TIMEOUT_S");
	char *opt_err = NULL;
	PQconninfoOption *opts, *po;
	struct tk_buf options = TK_BUF_INIT;
	int ret;

	*out = NULL;
	ret = tk_pq_load(err);
	if (ret)
		return ret;
	st = tk_xcalloc(1, sizeof(*st));
	st->base.ops = &tk_store_postgres;
	st->url = tk_xstrdup(url);
	tk_store_redact_url(url, &shown);
	st->shown = tk_buf_detach(&shown, NULL);
	st->flags = o->flags;
	st->base.cancel = o->cancel;
	st->retry_s = env && *env ? strtod(env, NULL) : RETRY_S;
	if (st->retry_s < 0)
		st->retry_s = 0;
	st->wait_s = o->wait_s > 0 ? o->wait_s : 0;
	if (st->wait_s > 0 && (!env || !*env || st->wait_s < st->retry_s))
		st->retry_s = st->wait_s;
	st->retry_seed = (unsigned)getpid() ^ (unsigned)tk_now_us();
	/* A URL libpq cannot parse is the user's mistake, not an outage. */
	opts = PQconninfoParse(url, &opt_err);
	if (!opts) {
		struct tk_buf msg = TK_BUF_INIT;

		one_line(opt_err ? opt_err : "out of memory", &msg);
		ret = tk_err_set(err, TK_EUSAGE, "bad database URL '%s': %s", st->shown, msg.buf);
		tk_buf_release(&msg);
		PQfreemem(opt_err);
		pg_close(&st->base);
		return ret;
	}
	st->timeout_s = env_seconds(tenv, TIMEOUT_S);
	if (o->timeout_s > 0) {
		/* a reader: its own deadline, which the writers' may shorten */
		double own = env_seconds(getenv("TRACKER_PG_READ_TIMEOUT_S"), o->timeout_s);

		if (!(tenv && *tenv) || (own > 0 && (st->timeout_s == 0 || own < st->timeout_s)))
			st->timeout_s = own;
	}
	if (st->timeout_s > 0) {
		long ms = (long)(st->timeout_s * 1000);

		tk_buf_addf(&options, "-c statement_timeout=%ld -c lock_timeout=%ld", ms ? ms : 1,
			    ms ? ms : 1);
	}
	for (po = opts; po->keyword; po++)
		if (!strcmp(po->keyword, "options") && po->val && *po->val)
			tk_buf_addf(&options, "%s%s", options.len ? " " : "", po->val);
	st->options = tk_buf_detach(&options, NULL);
	PQconninfoFree(opts);
	*out = &st->base;
	return 0;
}

/* ---- put_run ---- */

/* Parameters are added in order: i is not needed. */
static void write_text(void *dst, int i, const char *s, int len)
{
	(void)i;
	(void)len;
	param_text(dst, s);
}

static void write_i64(void *dst, int i, int64_t v)
{
	(void)i;
	param_num(dst, "%lld", (long long)v);
}

static void write_real(void *dst, int i, double v)
{
	(void)i;
	param_num(dst, "%.17g", v);
}

static const struct cell_writer writer = { write_text, write_i64, write_real };

struct put_arg {
	const char *sql;
	struct params *p;
	int inserted;
};

static int put_unit(struct pg_store *st, void *data, struct tk_err *err)
{
	struct put_arg *a = data;
	PGresult *res;
	int ret;

	ret = run_sql(st, a->sql, a->p, 0, NULL, &res, err);
	if (ret)
		return ret;
	a->inserted = strcmp(PQcmdTuples(res), "0") != 0;
	PQclear(res);
	return 0;
}

/*
 * The run's INSERT (sql, its parameters in p) made one statement with
 * its timeline's: the timeline row is written when the run's is, in the
 * same statement, and the rows it counts are the runs written. data
 * holds the compact form, which p borrows.
 */
static void with_timeline(const struct tk_run *r, struct tk_buf *sql, struct params *p,
			  struct tk_buf *data)
{
	struct tk_buf put = TK_BUF_INIT;
	int64_t peak;
	int n = (int)NR_RUN_COLUMNS;

	timeline_row(r, data, &peak);
	tk_buf_addf(&put, "WITH ins AS (%s RETURNING run_id) INSERT INTO timelines (run_id,"
		    " encoding, interval_ms, points, peak_rss_bytes, data, stored_at_us)"
		    " SELECT run_id, $%d::text, $%d::bigint, $%d::bigint, $%d::bigint, $%d::text,"
		    " $%d::bigint FROM ins ON CONFLICT (run_id) DO UPDATE SET"
		    " encoding = excluded.encoding, interval_ms = excluded.interval_ms,"
		    " points = excluded.points, peak_rss_bytes = excluded.peak_rss_bytes,"
		    " data = excluded.data, stored_at_us = excluded.stored_at_us",
		    sql->buf, n + 1, n + 2, n + 3, n + 4, n + 5, n + 6);
	param_text(p, TK_TIMELINE_ENCODING);
	if (r->timeline.interval_ms > 0)
		param_num(p, "%lld", (long long)r->timeline.interval_ms);
	else
		param_text(p, NULL);
	param_num(p, "%zu", r->timeline.nr);
	param_num(p, "%lld", (long long)peak);
	param_text(p, data->buf);
	param_num(p, "%lld", (long long)tk_now_us());
	tk_buf_reset(sql);
	tk_buf_add(sql, put.buf, put.len);
	tk_buf_release(&put);
}

static int pg_put_run(struct tk_store *s, const struct tk_run *r, int *inserted,
		      struct tk_err *err)
{
	struct pg_store *st = from_base(s);
	struct tk_buf record = TK_BUF_INIT, sql = TK_BUF_INIT, tldata = TK_BUF_INIT;
	struct params p;
	struct put_arg a;
	struct run_row row;
	int ret;

	ret = put_begin(r, inserted, 1, &record, &sql, err);
	if (!ret) {
		params_init(&p);
		run_row_fill(&row, r, record.buf, record.len);
		run_row_write(&writer, &p, 1, &row);
		if (r->timeline.nr && st->schema >= TIMELINE_VERSION)
			with_timeline(r, &sql, &p, &tldata);
		a.sql = sql.buf;
		a.p = &p;
		a.inserted = 0;
		ret = with_retry(st, put_unit, &a, err);
		if (!ret && inserted)
			*inserted = a.inserted;
		params_release(&p);
	}
	tk_buf_release(&record);
	tk_buf_release(&sql);
	tk_buf_release(&tldata);
	return ret;
}

/* ---- queries ---- */

struct query_arg {
	const char *sql;
	struct params *p;
	PGresult *res;
};

static int query_unit(struct pg_store *st, void *data, struct tk_err *err)
{
	struct query_arg *a = data;

	return run_sql(st, a->sql, a->p, 0, NULL, &a->res, err);
}

static int query_unit_binary(struct pg_store *st, void *data, struct tk_err *err)
{
	struct query_arg *a = data;

	return run_sql(st, a->sql, a->p, 1, NULL, &a->res, err);
}

/*
 * A query's rows, streamed: the query becomes a cursor of a read-only
 * transaction, read in batches (FETCH), so a reader holds one batch at a
 * time whatever the history's size, and one that stops early (check:
 * the newest few runs) has read little more than it used. The first
 * batch is small, the next ones double up to max_batch rows. Each FETCH
 * is a statement of its own, with its own deadline. COMMIT closes the
 * cursor. The transaction also makes it work through a pooler in
 * transaction mode (PgBouncer): the cursor and its server connection
 * stay together until the COMMIT.
 */
#define STREAM_FIRST 64
#define STREAM_ROWS 4096    /* summaries: a few hundred bytes each */
#define STREAM_RECORDS 512  /* whole records: a few kB each */

struct stream_arg {
	const char *sql;
	struct params *p;
	int binary;
	int max_batch;
	int (*row)(PGresult *res, int i, void *data);
	void *data;
	size_t delivered; /* rows handed to row() */
	int stopped;      /* row()'s non-zero return, returned as it is */
};

static int stream_unit(struct pg_store *st, void *data, struct tk_err *err)
{
	struct stream_arg *a = data;
	struct tk_buf sql = TK_BUF_INIT;
	struct params none;
	PGresult *res = NULL;
	int batch = STREAM_FIRST < a->max_batch ? STREAM_FIRST : a->max_batch, ret, i, n;

	params_init(&none);
	ret = exec_simple(st, "BEGIN READ ONLY", err);
	if (ret)
		goto out;
	tk_buf_addf(&sql, "DECLARE tracker_rows NO SCROLL CURSOR FOR %s", a->sql);
	ret = run_sql(st, sql.buf, a->p ? a->p : &none, 0, NULL, &res, err);
	while (!ret) {
		PQclear(res);
		tk_buf_reset(&sql);
		tk_buf_addf(&sql, "FETCH %d FROM tracker_rows", batch);
		/* the extended protocol: its result format is the FETCH's */
		ret = run_sql(st, sql.buf, &none, a->binary, NULL, &res, err);
		if (ret)
			break;
		n = PQntuples(res);
		for (i = 0; i < n && !a->stopped; i++) {
			a->delivered++;
			a->stopped = a->row(res, i, a->data);
		}
		if (a->stopped || n < batch)
			break;
		batch = batch * 2 < a->max_batch ? batch * 2 : a->max_batch;
	}
	PQclear(res);
	if (!ret)
		ret = exec_simple(st, "COMMIT", err);
	if (ret && st->conn) {
		struct tk_err ignored = TK_ERR_INIT;

		exec_simple(st, "ROLLBACK", &ignored);
	}
	/* rows were handed on: another attempt would repeat them */
	if (ret == TRANSIENT && a->delivered)
		ret = TK_EUNAVAIL;
out:
	params_release(&none);
	tk_buf_release(&sql);
	/* what row() said is returned once the transaction is closed */
	if (a->stopped && (ret == 0 || a->delivered))
		return 0;
	return ret;
}

struct small_arg {
	const char *sql;
	struct params *p;
	int binary;
	int (*row)(PGresult *res, int i, void *data);
	void *data;
	int stopped;
};

/* A query of a few rows at most, read whole: one statement, no cursor. */
static int small_unit(struct pg_store *st, void *data, struct tk_err *err)
{
	struct small_arg *a = data;
	PGresult *res = NULL;
	int i, n, ret;

	ret = run_sql(st, a->sql, a->p, a->binary, NULL, &res, err);
	n = ret ? 0 : PQntuples(res);
	for (i = 0; i < n && !a->stopped; i++)
		a->stopped = a->row(res, i, a->data);
	PQclear(res);
	return ret;
}

/* Calls row for each row of sql (its parameters p, NULL: none), read in
 * batches of at most max_batch; returns 0, row's non-zero return, or an
 * error. binary: results in binary format. */
static int stream(struct pg_store *st, const char *sql, struct params *p, int binary,
		  int max_batch, int (*row)(PGresult *res, int i, void *data), void *data,
		  struct tk_err *err)
{
	struct stream_arg a;
	int ret;

	if (st->streaming) {
		/* a callback's query on the same connection, inside the
		 * cursor's transaction: read whole, as before streaming */
		struct small_arg sa = { sql, p, binary, row, data, 0 };
		struct params none;

		params_init(&none);
		if (!p)
			sa.p = &none;
		ret = with_retry(st, small_unit, &sa, err);
		params_release(&none);
		return sa.stopped ? sa.stopped : ret;
	}
	memset(&a, 0, sizeof(a));
	a.sql = sql;
	a.p = p;
	a.binary = binary;
	a.max_batch = max_batch;
	a.row = row;
	a.data = data;
	st->streaming = 1;
	ret = with_retry(st, stream_unit, &a, err);
	st->streaming = 0;
	return a.stopped ? a.stopped : ret;
}

/* Streams the runs q selects, columns select of each. */
static int stream_runs(struct pg_store *st, const struct tk_run_query *q, const char *select,
		       int max_batch, int (*row)(PGresult *res, int i, void *data), void *data,
		       struct tk_err *err)
{
	struct tk_buf sql = TK_BUF_INIT;
	struct params p;
	int ret;

	params_init(&p);
	query_sql(q, select, 1, &sql);
	query_bind(q, &writer, &p);
	/* one run, or a limit within a batch: no cursor (its three more
	 * round trips are most of such a query's time) */
	if (q->run_id || (q->limit > 0 && q->limit <= max_batch)) {
		struct small_arg a = { sql.buf, &p, 0, row, data, 0 };

		ret = with_retry(st, small_unit, &a, err);
		if (a.stopped)
			ret = a.stopped;
	} else {
		ret = stream(st, sql.buf, &p, 0, max_batch, row, data, err);
	}
	params_release(&p);
	tk_buf_release(&sql);
	return ret;
}

struct runs_arg {
	struct pg_store *st;
	tk_run_fn fn;
	void *data;
	struct tk_buf name;
	struct tk_err *err;
	int failed; /* a record that cannot be read: err filled */
};

static int take_run(PGresult *res, int i, void *data)
{
	struct runs_arg *a = data;
	struct tk_run run;
	int ret;

	tk_buf_reset(&a->name);
	tk_buf_addf(&a->name, "%s run %s", a->st->shown, PQgetvalue(res, i, 0));
	tk_run_init(&run);
	ret = tk_run_from_stored_json(PQgetvalue(res, i, 1), (size_t)PQgetlength(res, i, 1),
				      a->name.buf, &run, a->err);
	if (ret)
		a->failed = ret;
	else
		ret = a->fn(&run, a->data);
	tk_run_release(&run);
	return ret;
}

static int pg_query_runs(struct tk_store *s, const struct tk_run_query *q, tk_run_fn fn,
			 void *data, struct tk_err *err)
{
	struct runs_arg a = { from_base(s), fn, data, TK_BUF_INIT, err, 0 };
	int ret;

	ret = stream_runs(a.st, q, "run_id, record", STREAM_RECORDS, take_run, &a, err);
	tk_buf_release(&a.name);
	return ret;
}

/* The result row a summary is read from. */
struct cursor {
	const PGresult *res;
	int row;
};

static const char *read_text(void *src, int i)
{
	const struct cursor *cur = src;

	return PQgetisnull(cur->res, cur->row, i) ? NULL : PQgetvalue(cur->res, cur->row, i);
}

static int read_is_null(void *src, int i)
{
	const struct cursor *cur = src;

	return PQgetisnull(cur->res, cur->row, i);
}

static int64_t read_i64(void *src, int i)
{
	const struct cursor *cur = src;

	return (int64_t)strtoll(PQgetvalue(cur->res, cur->row, i), NULL, 10);
}

static int read_int(void *src, int i)
{
	const struct cursor *cur = src;

	return (int)strtol(PQgetvalue(cur->res, cur->row, i), NULL, 10);
}

static double read_real(void *src, int i)
{
	const struct cursor *cur = src;

	return strtod(PQgetvalue(cur->res, cur->row, i), NULL);
}

static const struct cell_reader reader = { read_text, read_is_null, read_i64, read_int,
					   read_real };

struct summaries_arg {
	tk_summary_fn fn;
	void *data;
	struct sum_cell *cols;
	size_t n;
	struct run_row row;
};

static int take_summary(PGresult *res, int i, void *data)
{
	struct summaries_arg *a = data;
	struct cursor cur = { res, i };

	summary_read(&reader, &cur, a->cols, a->n, &a->row);
	return a->fn(&a->row.sum, a->data);
}

static int pg_query_summaries(struct tk_store *s, const struct tk_run_query *q,
			      tk_summary_fn fn, void *data, struct tk_err *err)
{
	struct pg_store *st = from_base(s);
	struct tk_buf select = TK_BUF_INIT;
	struct sum_cell cols[NR_RUN_COLUMNS];
	struct summaries_arg a;
	int ret;

	if (st->schema < SCHEMA_VERSION) {
		/* a reader that may not migrate an older schema: from the records */
		struct summarize sz = { fn, data };

		return pg_query_runs(s, q, summarize_run, &sz, err);
	}
	a.fn = fn;
	a.data = data;
	a.cols = cols;
	a.n = summary_columns(q, st->schema, &select, cols, &a.row);
	ret = stream_runs(st, q, select.buf, STREAM_ROWS, take_summary, &a, err);
	tk_buf_release(&select);
	return ret;
}

/* ---- profiles ---- */

static const char put_profile_sql[] =
	"INSERT INTO profiles (run_id, kind, unit, source_format, nodes, total,"
	" encoding, data, stored_at_us) VALUES ($1, $2, $3, $4, $5, $6, 'tkpf1', $7, $8)"
	" ON CONFLICT (run_id, kind) DO UPDATE SET unit = excluded.unit,"
	" source_format = excluded.source_format, nodes = excluded.nodes,"
	" total = excluded.total, encoding = excluded.encoding, data = excluded.data,"
	" stored_at_us = excluded.stored_at_us";

struct profile_arg {
	struct params *p;
	const char *run_id;
};

static int put_profile_unit(struct pg_store *st, void *data, struct tk_err *err)
{
	struct profile_arg *a = data;
	PGresult *res;
	const char *state;
	int ret;

	/* 23503: the run is not stored (the foreign key) */
	ret = run_sql(st, put_profile_sql, a->p, 0, "23503", &res, err);
	if (ret)
		return ret;
	state = PQresultErrorField(res, PG_DIAG_SQLSTATE);
	if (state && !strcmp(state, "23503"))
		ret = tk_err_set(err, TK_EDATA, "no run %s in database '%s'", a->run_id,
				 st->shown);
	PQclear(res);
	return ret;
}

static int pg_put_profile(struct tk_store *s, const struct tk_profile_blob *b,
			  struct tk_err *err)
{
	struct pg_store *st = from_base(s);
	struct profile_arg a;
	struct params p;
	int ret;

	params_init(&p);
	param_text(&p, b->run_id);
	param_text(&p, b->kind);
	param_text(&p, b->unit);
	param_text(&p, b->source_format);
	param_num(&p, "%lld", (long long)b->nodes);
	param_num(&p, "%.17g", b->total);
	param_binary(&p, b->data, b->len);
	param_num(&p, "%lld", (long long)tk_now_us());
	a.p = &p;
	a.run_id = b->run_id;
	ret = with_retry(st, put_profile_unit, &a, err);
	params_release(&p);
	return ret;
}

static int pg_get_profile(struct tk_store *s, const char *run_id, const char *kind,
			  struct tk_buf *out, struct tk_err *err)
{
	struct pg_store *st = from_base(s);
	struct query_arg a;
	struct params p;
	int ret;

	params_init(&p);
	param_text(&p, run_id);
	param_text(&p, kind);
	a.sql = "SELECT data FROM profiles WHERE run_id = $1 AND kind = $2";
	a.p = &p;
	a.res = NULL;
	/* binary results: the blob's bytes as they are */
	ret = with_retry(st, query_unit_binary, &a, err);
	if (!ret) {
		if (PQntuples(a.res) > 0)
			tk_buf_add(out, PQgetvalue(a.res, 0, 0), (size_t)PQgetlength(a.res, 0, 0));
		else
			ret = tk_err_set(err, TK_EDATA, "no %s profile for run %s", kind, run_id);
	}
	PQclear(a.res);
	params_release(&p);
	return ret;
}

static int take_profile(PGresult *res, int i, void *data)
{
	const struct tk_profile_each *each = data;
	struct tk_profile_blob b;

	b.run_id = PQgetvalue(res, i, 0);
	b.kind = PQgetvalue(res, i, 1);
	b.unit = PQgetvalue(res, i, 2);
	b.source_format = PQgetisnull(res, i, 3) ? NULL : PQgetvalue(res, i, 3);
	b.nodes = strtoll(PQgetvalue(res, i, 4), NULL, 10);
	b.total = strtod(PQgetvalue(res, i, 5), NULL);
	b.data = PQgetvalue(res, i, 6);
	b.len = (size_t)PQgetlength(res, i, 6);
	return each->fn(&b, each->data);
}

/* Profiles are large: a few at a time. */
#define STREAM_PROFILES 8

static int each_profile(struct pg_store *st, const struct tk_profile_each *each,
			struct tk_err *err)
{
	/* binary: the data's bytes as they are; text's binary form is the
	 * text (libpq ends every value with a NUL) */
	return stream(st, "SELECT run_id, kind, unit, source_format, nodes::text,"
		      " total::text, data FROM profiles ORDER BY run_id, kind", NULL, 1,
		      STREAM_PROFILES, take_profile, (void *)each, err);
}

/*
 * The distinct keys by a skip scan of the (key, started_at_us) index, one
 * seek per key, as SQLite's list_keys: never a read of every run. The
 * index orders keys by the database's collation, which may not be byte
 * order: the keys are gathered (their number, not the history's size,
 * bounds the memory) and sorted before fn sees them.
 */
static const char keys_sql[] =
	"WITH RECURSIVE k(key) AS (SELECT (SELECT min(key) FROM runs)"
	" UNION ALL SELECT (SELECT min(key) FROM runs WHERE key > k.key) FROM k"
	" WHERE k.key IS NOT NULL)"
	" SELECT key FROM k WHERE key IS NOT NULL AND EXISTS (SELECT 1 FROM runs r"
	" WHERE r.key = k.key AND r.started_at_us >= $1)";

struct key_list {
	char **v;
	size_t nr, alloc;
};

static int take_key_row(PGresult *res, int i, void *data)
{
	struct key_list *k = data;

	TK_ALLOC_GROW(k->v, k->nr + 1, k->alloc);
	k->v[k->nr++] = tk_xstrdup(PQgetvalue(res, i, 0));
	return 0;
}

static int cmp_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int list_keys(struct pg_store *st, struct tk_store_keys *q, struct tk_err *err)
{
	struct key_list k = { NULL, 0, 0 };
	struct params p;
	size_t i;
	int ret;

	params_init(&p);
	param_num(&p, "%lld", (long long)q->since_us);
	ret = stream(st, keys_sql, &p, 0, STREAM_ROWS, take_key_row, &k, err);
	if (!ret)
		qsort(k.v, k.nr, sizeof(*k.v), cmp_bytes);
	for (i = 0; i < k.nr; i++) {
		if (!ret)
			ret = q->fn(k.v[i], q->data);
		free(k.v[i]);
	}
	free(k.v);
	params_release(&p);
	return ret;
}

/* A run's timeline; a database older than the table has none. */
static int get_timeline(struct pg_store *st, struct tk_store_timeline *q, struct tk_err *err)
{
	struct query_arg a;
	struct params p;
	int ret;

	q->found = 0;
	q->out->nr = 0;
	if (st->schema < TIMELINE_VERSION)
		return 0;
	params_init(&p);
	param_text(&p, q->run_id);
	a.sql = TIMELINE_GET_SQL("$1");
	a.p = &p;
	a.res = NULL;
	ret = with_retry(st, query_unit, &a, err);
	if (!ret && PQntuples(a.res) > 0) {
		if (strcmp(PQgetvalue(a.res, 0, 0), TK_TIMELINE_ENCODING))
			ret = tk_err_set(err, TK_EDATA, "memory timeline of an unknown encoding");
		else
			ret = tk_timeline_decode(PQgetvalue(a.res, 0, 2),
						 (size_t)PQgetlength(a.res, 0, 2), q->out, err);
		if (ret) {
			tk_err_prefix(err, "database '%s' run %s", st->shown, q->run_id);
		} else {
			q->found = 1;
			q->out->interval_ms = strtoll(PQgetvalue(a.res, 0, 1), NULL, 10);
		}
	}
	PQclear(a.res);
	params_release(&p);
	return ret;
}

/* A stored profile's total and unit, one indexed row; never its data. */
static int profile_total(struct pg_store *st, struct tk_store_profile_total *q,
			 struct tk_err *err)
{
	struct query_arg a;
	struct params p;
	int ret;

	q->found = 0;
	params_init(&p);
	param_text(&p, q->run_id);
	param_text(&p, q->kind);
	a.sql = "SELECT total::text, unit FROM profiles WHERE run_id = $1 AND kind = $2";
	a.p = &p;
	a.res = NULL;
	ret = with_retry(st, query_unit, &a, err);
	if (!ret && PQntuples(a.res) > 0) {
		q->found = 1;
		q->total = strtod(PQgetvalue(a.res, 0, 0), NULL);
		snprintf(q->unit, sizeof(q->unit), "%s", PQgetvalue(a.res, 0, 1));
	}
	PQclear(a.res);
	params_release(&p);
	return ret;
}

/* ---- frame totals (core/store/frametot.h) ---- */

static int no_frames(struct pg_store *st, struct tk_err *err)
{
	return tk_err_set(err, TK_EUSAGE, "database '%s' has no frame totals (schema version "
			  "%d, older than %d)", st->shown, st->schema, FRAMES_VERSION);
}

/* Rows per INSERT: 3 parameters each, far below libpq's 65535. */
#define FRAME_ROWS_PER_INSERT 1000

struct frames_arg {
	const struct tk_store_frames_put *q;
	int missing; /* out: no such profile */
};

static int put_frames_unit(struct pg_store *st, void *data, struct tk_err *err)
{
	struct frames_arg *a = data;
	const struct tk_store_frames_put *q = a->q;
	struct tk_buf sql = TK_BUF_INIT;
	struct params p;
	PGresult *res = NULL;
	size_t i, k;
	int ret;

	a->missing = 0;
	params_init(&p);
	ret = exec_simple(st, "BEGIN", err);
	if (ret)
		goto out;
	param_num(&p, "%.17g", q->floor);
	param_text(&p, q->run_id);
	param_text(&p, q->kind);
	ret = run_sql(st, "UPDATE profiles SET frames_floor = $1 WHERE run_id = $2 AND kind = $3",
		      &p, 0, NULL, &res, err);
	if (ret)
		goto out;
	if (!strcmp(PQcmdTuples(res), "0")) {
		a->missing = 1;
		goto rollback;
	}
	PQclear(res);
	res = NULL;
	params_release(&p);
	params_init(&p);
	param_text(&p, q->run_id);
	param_text(&p, q->kind);
	ret = run_sql(st, "DELETE FROM frame_totals WHERE run_id = $1 AND kind = $2", &p, 0,
		      NULL, &res, err);
	for (i = 0; !ret && i < q->nr; i += FRAME_ROWS_PER_INSERT) {
		size_t end = i + FRAME_ROWS_PER_INSERT < q->nr ? i + FRAME_ROWS_PER_INSERT : q->nr;

		PQclear(res);
		res = NULL;
		params_release(&p);
		params_init(&p);
		param_text(&p, q->run_id);
		param_text(&p, q->kind);
		tk_buf_reset(&sql);
		tk_buf_adds(&sql, "INSERT INTO frame_totals (run_id, kind, key, name, self,"
			    " cumulative) SELECT $1::text, $2::text, r.key, v.name, v.self, v.cumulative"
			    " FROM runs r, (VALUES ");
		for (k = i; k < end; k++) {
			size_t at = 3 + 3 * (k - i);

			tk_buf_addf(&sql, "%s($%zu::text, $%zu::float8, $%zu::float8)", k > i ? ", " : "",
				    at, at + 1, at + 2);
			param_text(&p, q->v[k].name);
			param_num(&p, "%.17g", q->v[k].self);
			param_num(&p, "%.17g", q->v[k].cumulative);
		}
		tk_buf_adds(&sql, ") AS v (name, self, cumulative) WHERE r.run_id = $1");
		ret = run_sql(st, sql.buf, &p, 0, NULL, &res, err);
	}
	if (!ret)
		ret = exec_simple(st, "COMMIT", err);
	goto out;
rollback:
	ret = exec_simple(st, "ROLLBACK", err);
out:
	if (ret && st->conn) {
		struct tk_err ignored = TK_ERR_INIT;

		exec_simple(st, "ROLLBACK", &ignored);
	}
	PQclear(res);
	params_release(&p);
	tk_buf_release(&sql);
	return ret;
}

static int put_frames(struct pg_store *st, const struct tk_store_frames_put *q,
		      struct tk_err *err)
{
	struct frames_arg a = { q, 0 };
	int ret;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	ret = with_retry(st, put_frames_unit, &a, err);
	if (!ret && a.missing)
		ret = tk_err_set(err, TK_EDATA, "no %s profile for run %s in database '%s'",
				 q->kind, q->run_id, st->shown);
	return ret;
}

static int frame_sets(struct pg_store *st, const struct tk_store_frame_sets *q,
		      struct tk_err *err)
{
	struct tk_buf sql = TK_BUF_INIT;
	struct query_arg a;
	struct params p;
	int i, n, ret;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	params_init(&p);
	tk_buf_adds(&sql, "SELECT p.run_id, p.kind, p.unit, p.total::text, p.frames_floor::text"
		    " FROM profiles p");
	if (q->key) {
		tk_buf_adds(&sql, " JOIN runs r ON r.run_id = p.run_id WHERE r.key = $1");
		param_text(&p, q->key);
	}
	if (q->missing_only)
		tk_buf_addf(&sql, " %s p.frames_floor IS NULL", q->key ? "AND" : "WHERE");
	tk_buf_adds(&sql, " ORDER BY p.run_id COLLATE \"C\", p.kind COLLATE \"C\"");
	a.sql = sql.buf;
	a.p = &p;
	a.res = NULL;
	ret = with_retry(st, query_unit, &a, err);
	n = ret ? 0 : PQntuples(a.res);
	for (i = 0; i < n && !ret; i++) {
		struct tk_store_frame_set set;

		set.run_id = PQgetvalue(a.res, i, 0);
		set.kind = PQgetvalue(a.res, i, 1);
		set.unit = PQgetvalue(a.res, i, 2);
		set.total = strtod(PQgetvalue(a.res, i, 3), NULL);
		set.has_frames = !PQgetisnull(a.res, i, 4);
		set.floor = set.has_frames ? strtod(PQgetvalue(a.res, i, 4), NULL) : 0;
		ret = q->fn(&set, q->data);
	}
	PQclear(a.res);
	params_release(&p);
	tk_buf_release(&sql);
	return ret;
}

static int frame_rows(struct pg_store *st, const struct tk_store_frame_rows *q,
		      struct tk_err *err)
{
	struct tk_buf sql = TK_BUF_INIT;
	struct query_arg a;
	struct params p;
	size_t k;
	int i, n, ret;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	params_init(&p);
	tk_buf_adds(&sql, "SELECT run_id, kind, name, self::text, cumulative::text"
		    " FROM frame_totals WHERE key = $1");
	param_text(&p, q->key);
	if (q->run_id) {
		param_text(&p, q->run_id);
		tk_buf_addf(&sql, " AND run_id = $%zu", p.n);
	}
	if (q->kind) {
		param_text(&p, q->kind);
		tk_buf_addf(&sql, " AND kind = $%zu", p.n);
	}
	if (q->names) {
		for (k = 0; q->names[k]; k++) {
			param_text(&p, q->names[k]);
			tk_buf_addf(&sql, "%s$%zu", k ? ", " : " AND name IN (", p.n);
		}
		tk_buf_adds(&sql, k ? ")" : " AND false");
	}
	a.sql = sql.buf;
	a.p = &p;
	a.res = NULL;
	ret = with_retry(st, query_unit, &a, err);
	n = ret ? 0 : PQntuples(a.res);
	for (i = 0; i < n && !ret; i++) {
		struct tk_store_frame f;

		f.name = PQgetvalue(a.res, i, 2);
		f.self = strtod(PQgetvalue(a.res, i, 3), NULL);
		f.cumulative = strtod(PQgetvalue(a.res, i, 4), NULL);
		ret = q->fn(PQgetvalue(a.res, i, 0), PQgetvalue(a.res, i, 1), &f, q->data);
	}
	PQclear(a.res);
	params_release(&p);
	tk_buf_release(&sql);
	return ret;
}

static int frame_names(struct pg_store *st, const struct tk_store_frame_names *q,
		       struct tk_err *err)
{
	struct query_arg a;
	struct params p;
	int i, n, ret;

	if (st->schema < FRAMES_VERSION)
		return no_frames(st, err);
	params_init(&p);
	param_text(&p, q->key);
	a.sql = FRAME_NAMES_SQL("$1");
	a.p = &p;
	a.res = NULL;
	ret = with_retry(st, query_unit, &a, err);
	n = ret ? 0 : PQntuples(a.res);
	for (i = 0; i < n && !ret; i++)
		ret = q->fn(PQgetvalue(a.res, i, 0), q->data);
	PQclear(a.res);
	params_release(&p);
	return ret;
}

static int pg_ctrl(struct tk_store *s, int op, void *arg, struct tk_err *err)
{
	struct pg_store *st = from_base(s);

	switch (op) {
	case TK_STORE_CTRL_SCHEMA_VERSION:
		*(int *)arg = st->schema;
		return 0;
	case TK_STORE_CTRL_JOURNAL_MODE:
		*(const char **)arg = "postgresql";
		return 0;
	case TK_STORE_CTRL_EACH_PROFILE:
		return each_profile(st, arg, err);
	case TK_STORE_CTRL_KEYS:
		return list_keys(st, arg, err);
	case TK_STORE_CTRL_PROFILE_TOTAL:
		return profile_total(st, arg, err);
	case TK_STORE_CTRL_PUT_FRAMES:
		return put_frames(st, arg, err);
	case TK_STORE_CTRL_FRAME_SETS:
		return frame_sets(st, arg, err);
	case TK_STORE_CTRL_FRAME_ROWS:
		return frame_rows(st, arg, err);
	case TK_STORE_CTRL_FRAME_NAMES:
		return frame_names(st, arg, err);
	case TK_STORE_CTRL_TIMELINE:
		return get_timeline(st, arg, err);
	}
	return tk_err_set(err, TK_EUSAGE, "the postgres store has no operation %d", op);
}

const struct tk_store_ops tk_store_postgres = {
	.version = TK_STORE_OPS_VERSION,
	.name = "postgres",
	.accepts = pg_accepts,
	.open = pg_open,
	.migrate = pg_migrate,
	.put_run = pg_put_run,
	.query_runs = pg_query_runs,
	.query_summaries = pg_query_summaries,
	.put_profile = pg_put_profile,
	.get_profile = pg_get_profile,
	.ctrl = pg_ctrl,
	.close = pg_close,
};
