/*
 * core/store/recorder: the started record reaches the file and, through the
 * background thread, the store; the final record replaces it; a set
 * cancel flag ends finish's wait for a locked database, the record kept.
 */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/store/recorder.h"
#include "core/store/store.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

static char dir[] = "/tmp/t-recorder.XXXXXX";

static void make_run(struct tk_run *r, const char *id)
{
	tk_run_init(r);
	snprintf(r->id, sizeof(r->id), "%s", id);
	r->key = strdup("rec");
	r->started_at_us = 1700000000000000LL;
	r->exit_code = 0;
}

struct seen {
	char status[16];
	int partial, n;
};

static int seen_fn(const struct tk_run_summary *s, void *data)
{
	struct seen *w = data;

	snprintf(w->status, sizeof(w->status), "%s", tk_run_status_name(s->status));
	w->partial = s->partial;
	w->n++;
	return 0;
}

static struct seen stored(const char *db)
{
	struct tk_store *s = NULL;
	struct tk_err err = TK_ERR_INIT;
	struct tk_run_query q;
	struct seen w;

	memset(&w, 0, sizeof(w));
	memset(&q, 0, sizeof(q));
	if (!tk_store_open(db, &s, &err))
		tk_store_query_summaries(s, &q, seen_fn, &w, &err);
	tk_store_close(s);
	return w;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void warn_cb(void *data, const char *msg)
{
	struct tk_buf *b = data;

	tk_buf_addf(b, "%s\n", msg);
}

int main(void)
{
	struct tk_buf db = TK_BUF_INIT, art = TK_BUF_INIT, warnings = TK_BUF_INIT;
	struct tk_recorder rec;
	struct tk_run run;
	struct seen w;
	volatile sig_atomic_t cancel = 0;
	sqlite3 *locker = NULL;
	int i;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	tk_buf_addf(&db, "%s/db.sqlite", dir);
	tk_buf_addf(&art, "%s/art", dir);
	tk_recorder_init(&rec);
	rec.dir = art.buf;
	rec.db = db.buf;
	rec.cancel = &cancel;
	rec.warn = warn_cb;
	rec.warn_data = &warnings;

	make_run(&run, "00000000-0000-4000-8000-0000000000c1");
	run.status = TK_RUN_STARTED;
	run.partial = 1;
	tk_recorder_started(&rec, &run);
	ok(rec.record_path.len && !access(rec.record_path.buf, R_OK),
	   "the started record is in its file");
	for (i = 0; i < 400; i++) {
		w = stored(db.buf);
		if (w.n)
			break;
		nap(25);
	}
	is_str(w.status, "started", "and, in the background, in the store");
	is_int(w.partial, 1, "as a partial run");

	run.status = TK_RUN_OK;
	run.partial = 0;
	run.walltime_s = 1.5;
	is_int(tk_recorder_finish(&rec, NULL, &run), 0, "the final record is stored");
	w = stored(db.buf);
	is_int(w.n, 1, "one run");
	is_str(w.status, "ok", "the final record replaced the started one");
	is_int(w.partial, 0, "complete");
	tk_recorder_release(&rec);
	tk_run_release(&run);

	/* a locked database and a cancel: finish gives up at once */
	if (sqlite3_open(db.buf, &locker) != SQLITE_OK ||
	    sqlite3_exec(locker, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK)
		diag("cannot lock the database");
	tk_recorder_init(&rec);
	rec.dir = art.buf;
	rec.db = db.buf;
	rec.cancel = &cancel;
	rec.warn = warn_cb;
	rec.warn_data = &warnings;
	make_run(&run, "00000000-0000-4000-8000-0000000000c2");
	cancel = 1;
	tk_buf_reset(&warnings);
	is_int(tk_recorder_finish(&rec, NULL, &run), TK_EUNAVAIL,
	       "cancelled: finish does not wait for the lock");
	ok(strstr(warnings.buf, "cancelled while waiting") != NULL, "and says so: %s",
	   warnings.buf);
	ok(strstr(warnings.buf, "tracker push") != NULL, "naming the push that stores it later");
	ok(rec.record_path.len && !access(rec.record_path.buf, R_OK), "the record is kept");
	sqlite3_exec(locker, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(locker);
	tk_recorder_release(&rec);
	tk_run_release(&run);

	tk_buf_release(&db);
	tk_buf_release(&art);
	tk_buf_release(&warnings);
	return done_testing();
}
