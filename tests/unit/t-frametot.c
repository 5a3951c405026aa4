/*
 * Frame totals (core/store/frametot): what is kept of a profile (self and
 * cumulative, recursion counted once, the cut and its floor, names left
 * out), and, on a real SQLite store, matching names (raw or demangled,
 * the nearest when none), a function's history, the functions that moved
 * across a change, and the backfill of profiles stored without them.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/store/frametot.h"
#include "core/store/profstore.h"
#include "tests/unit/tap.h"
#include "core/base/banned.h"

/* Adds "a;b;c" with weight w. */
static void add(struct tk_profile *p, const char *stack, double w)
{
	uint32_t ids[64];
	size_t n = 0;
	const char *s = stack, *semi;

	while (n < 64) {
		semi = strchr(s, ';');
		ids[n++] = tk_profile_intern(p, s, semi ? (size_t)(semi - s) : strlen(s));
		if (!semi)
			break;
		s = semi + 1;
	}
	tk_profile_add_stack(p, ids, n, w);
}

static const struct tk_store_frame *find(const struct tk_frametot *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->nr; i++)
		if (!strcmp(t->v[i].name, name))
			return &t->v[i];
	return NULL;
}

static void test_compute(void)
{
	struct tk_profile p;
	struct tk_frametot t;
	const struct tk_store_frame *f;
	struct tk_buf b = TK_BUF_INIT;
	size_t i;

	tk_profile_init(&p, TK_UNIT_BYTES);
	add(&p, "main;model;radiation", 300);
	add(&p, "main;io;radiation", 100);
	add(&p, "main;rec;rec;rec", 50);
	add(&p, "main;rec", 10);
	add(&p, "main", 5);
	tk_profile_finish(&p);
	tk_frametot_compute(&p, &t);
	is_int(t.nr, 5, "every function of a small profile is kept");
	f = find(&t, "radiation");
	ok(f && f->self == 400 && f->cumulative == 400, "self and cumulative add over call sites");
	f = find(&t, "rec");
	ok(f && f->self == 60 && f->cumulative == 60,
	   "a recursive function's stack counts once in its cumulative total");
	f = find(&t, "main");
	ok(f && f->self == 5 && f->cumulative == 465, "the root function holds everything");
	is_str(t.v[0].name, "main", "largest cumulative first");
	ok(t.floor == 0, "nothing cut, no floor");
	tk_frametot_release(&t);
	tk_profile_release(&p);

	/* nodes out of preorder (a later stack under an earlier branch): the
	 * same totals */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "a;b;b", 4);
	add(&p, "a;c;b", 2);
	add(&p, "a;b;b;d", 1);
	add(&p, "a;c", 3);
	tk_profile_finish(&p);
	tk_frametot_compute(&p, &t);
	f = find(&t, "b");
	ok(f && f->self == 6 && f->cumulative == 7, "out of preorder: b's self 6, cumulative 7");
	f = find(&t, "c");
	ok(f && f->self == 3 && f->cumulative == 5, "c's self 3, cumulative 5");
	f = find(&t, "d");
	ok(f && f->self == 1 && f->cumulative == 1, "d's 1");
	tk_frametot_release(&t);
	tk_profile_release(&p);

	/* 3000 leaves of 1 each and one of 997000: the leaves are 0.0001%
	 * each, under the share; the 200 largest stay */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "main;big", 997000);
	for (i = 0; i < 3000; i++) {
		tk_buf_reset(&b);
		tk_buf_addf(&b, "main;f%04zu", i);
		add(&p, b.buf, 1 + (i < 10));
	}
	tk_profile_finish(&p);
	tk_frametot_compute(&p, &t);
	is_int(t.nr, TK_FRAMETOT_TOP, "under the share, the %d largest are kept",
	       TK_FRAMETOT_TOP);
	ok(find(&t, "f0009") && !find(&t, "f2999"), "the largest of them");
	ok(t.floor == 1, "the floor is the largest left out: %g", t.floor);
	tk_frametot_release(&t);
	tk_profile_release(&p);

	/* a chain of 2500 distinct frames: each holds all, so each is over
	 * the share; never more than TK_FRAMETOT_MAX */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	for (i = 0; i < 2500; i++) {
		uint32_t parent = i ? p.nr_nodes - 1 : TK_PROFILE_ROOT;

		tk_buf_reset(&b);
		tk_buf_addf(&b, "g%04zu", i);
		tk_profile_child(&p, parent, tk_profile_intern(&p, b.buf, b.len));
	}
	tk_profile_add_self(&p, p.nr_nodes - 1, 7);
	tk_profile_finish(&p);
	tk_frametot_compute(&p, &t);
	is_int(t.nr, TK_FRAMETOT_MAX, "at most %d functions per profile", TK_FRAMETOT_MAX);
	ok(t.floor == 7, "the floor says what was cut");
	tk_frametot_release(&t);
	tk_profile_release(&p);

	/* names a database cannot hold as text, or too long for an index */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	add(&p, "main;bad\xff\xfe", 10);
	tk_buf_reset(&b);
	tk_buf_adds(&b, "main;");
	for (i = 0; i < TK_FRAMETOT_MAX_NAME + 1; i++)
		tk_buf_addch(&b, 'x');
	add(&p, b.buf, 10);
	tk_profile_finish(&p);
	tk_frametot_compute(&p, &t);
	is_int(t.left_out, 2, "invalid UTF-8 and over-long names are left out");
	is_int(t.nr, 1, "the others stay");
	tk_frametot_release(&t);
	tk_profile_release(&p);
	tk_buf_release(&b);
}

static char dir[] = "/tmp/t-frametot.XXXXXX";

static void id_of(char out[TK_RUN_ID_LEN + 1], int n)
{
	snprintf(out, TK_RUN_ID_LEN + 1, "00000000-0000-4000-8000-%012d", n);
}

/* Run n of key "model" on main, build n, with an alloc profile whose
 * radiation allocates r bytes (noise on the others). */
static int put_run(struct tk_store *s, int n, double r, const char *radiation)
{
	static const double noise[] = { 1.000, 1.012, 0.991, 1.018, 1.003, 0.985,
					 1.009, 0.996, 0.979, 1.021, 1.006, 0.994 };
	struct tk_err err = TK_ERR_INIT;
	struct tk_profile p;
	struct tk_run run;
	struct tk_buf b = TK_BUF_INIT;
	char id[TK_RUN_ID_LEN + 1];
	int inserted, ret;

	id_of(id, n);
	tk_run_init(&run);
	memcpy(run.id, id, sizeof(id));
	run.key = tk_xstrdup("model");
	run.started_at_us = 1767225600000000LL + n * 60000000LL;
	ret = tk_store_put_run(s, &run, &inserted, &err);
	tk_run_release(&run);
	tk_profile_init(&p, TK_UNIT_BYTES);
	tk_buf_addf(&b, "main;model;%s", radiation);
	add(&p, b.buf, r * noise[n % 12]);
	add(&p, "main;model;ocean", 2000000 * noise[(n + 5) % 12]);
	add(&p, "main;model;dynamics", 3000000 * noise[(n + 3) % 12]);
	add(&p, "main;io", 500000 * noise[(n + 7) % 12]);
	tk_profile_finish(&p);
	if (!ret)
		ret = tk_profstore_put(s, id, "alloc", NULL, &p, &err);
	if (ret)
		diag(err.msg);
	tk_profile_release(&p);
	tk_buf_release(&b);
	return ret;
}

static void test_store(struct tk_store *s)
{
	const char *mangled = "_ZN5Model9radiationEv";
	struct tk_err err = TK_ERR_INIT;
	struct tk_frametot_names names;
	struct tk_frame_history h;
	struct tk_frame_move *mv = NULL;
	struct tk_run_query q;
	const char *keys[] = { "model", NULL };
	const char *before[7], *after[5];
	char ids[13][TK_RUN_ID_LEN + 1];
	size_t nmv = 0, i;
	int n, ok_all = 1, compared;

	/* the known answer: radiation's allocations double from build 8 */
	for (n = 1; n <= 12; n++)
		ok_all &= !put_run(s, n, n >= 8 ? 2000000 : 1000000, mangled);
	ok(ok_all, "12 runs with alloc profiles stored");

	memset(&names, 0, sizeof(names));
	{
		const char *want[] = { "Model::radiation()" };

		is_int(tk_frametot_match(s, "model", want, 1, NULL, 0, &names, &err), 0,
		       "a demangled name finds the raw one stored");
		ok(names.nr == 1 && !strcmp(names.v[0], mangled), "it is the stored name");
		tk_frametot_names_release(&names);
	}
	{
		const char *want[] = { "ocaen" };

		is_int(tk_frametot_match(s, "model", want, 1, NULL, 0, &names, &err), TK_EDATA,
		       "a name no function has");
		ok(strstr(err.msg, "no function 'ocaen' in the frame totals of key 'model'; "
			  "the nearest is 'ocean'") != NULL, "names the nearest: %s", err.msg);
		tk_frametot_names_release(&names);
	}
	{
		const char *pat[] = { "^(ocean|dyn)" }, *bad[] = { "(" }, *all[] = { "." };

		is_int(tk_frametot_match(s, "model", NULL, 0, pat, 1, &names, &err), 0,
		       "a pattern");
		ok(names.nr == 2 && !strcmp(names.v[0], "dynamics") &&
		   !strcmp(names.v[1], "ocean"), "its names, in byte order");
		tk_frametot_names_release(&names);
		is_int(tk_frametot_match(s, "model", NULL, 0, bad, 1, &names, &err), TK_EUSAGE,
		       "a pattern that does not compile is a usage error");
		is_int(tk_frametot_match(s, "model", NULL, 0, all, 1, &names, &err), 0,
		       "a pattern of every name");
		is_int(names.nr, 6, "the key's six functions");
		tk_frametot_names_release(&names);
	}

	{
		const char *want[] = { "Model::radiation()" };

		tk_frametot_match(s, "model", want, 1, NULL, 0, &names, &err);
	}
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	is_int(tk_frametot_history(s, &q, &names, &h, &err), 0, "its history");
	is_int(h.nr_points, 12, "a point per run");
	ok(h.nr_points == 12 && fabs(h.points[0].self - 2000000) < 1 &&
	   fabs(h.points[11].self - 1000000 * 1.012) < 1 && h.points[11].cumulative ==
	   h.points[11].self, "newest first, self and cumulative");
	ok(h.nr_points == 12 && !strcmp(h.points[0].kind, "alloc") &&
	   !strcmp(h.points[0].unit, "bytes"), "kind and unit");
	tk_frame_history_release(&h);

	/* the movers across build 8 */
	for (n = 1; n <= 12; n++)
		id_of(ids[n], n);
	for (i = 0; i < 7; i++)
		before[i] = ids[1 + i];
	for (i = 0; i < 5; i++)
		after[i] = ids[8 + i];
	is_int(tk_frametot_movers(s, "model", "alloc", before, 7, after, 5, 5, &mv, &nmv,
				  &compared, &err), 0, "the functions that moved across build 8");
	ok(compared, "both sides have frame totals");
	is_int(nmv, 1, "one function moved, no unchanged one (nor its callers' totals)");
	ok(nmv && !strcmp(mv[0].name, mangled) && !mv[0].cumulative &&
	   mv[0].after > 1.9 * mv[0].before, "radiation's self total doubled");
	tk_frame_moves_free(mv, nmv);
	is_int(tk_frametot_movers(s, "model", "alloc", before, 3, before + 3, 4, 5, &mv, &nmv,
				  &compared, &err), 0, "across no change");
	is_int(nmv, 0, "nothing moved beyond the noise");
	tk_frame_moves_free(mv, nmv);
	is_int(tk_frametot_movers(s, "model", "cpu", before, 3, after, 3, 5, &mv, &nmv,
				  &compared, &err), 0, "a kind without profiles");
	ok(!compared && !nmv, "is not compared");
	tk_frametot_names_release(&names);
}

static void test_backfill(struct tk_store *s, const char *path)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_frametot_backfill b;
	struct tk_frametot_names names;
	const char *want[] = { "ocean" };
	sqlite3 *db;

	/* what a database of an older tracker has: profiles, no frame totals */
	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, "DELETE FROM frame_totals; UPDATE profiles SET frames_floor = NULL",
			 NULL, NULL, NULL) != SQLITE_OK) {
		ok(0, "empty the frame totals: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return;
	}
	sqlite3_close(db);
	memset(&names, 0, sizeof(names));
	is_int(tk_frametot_match(s, "model", want, 1, NULL, 0, &names, &err), TK_EDATA,
	       "profiles without frame totals");
	ok(strstr(err.msg, "its 12 profiles were stored before tracker kept them (tracker "
		  "backfill stores them)") != NULL, "say how to get them: %s", err.msg);
	is_int(tk_frametot_backfill(s, &b, &err), 0, "backfill");
	ok(b.missing == 12 && b.filled == 12 && !b.corrupt, "fills every profile");
	tk_frametot_backfill_release(&b);
	is_int(tk_frametot_match(s, "model", want, 1, NULL, 0, &names, &err), 0,
	       "the functions are there again");
	tk_frametot_names_release(&names);
	is_int(tk_frametot_backfill(s, &b, &err), 0, "backfill again");
	is_int(b.missing, 0, "has nothing to do");
	tk_frametot_backfill_release(&b);
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf path = TK_BUF_INIT, cmd = TK_BUF_INIT;
	struct tk_store *s = NULL;

	test_compute();
	if (!mkdtemp(dir))
		return ok(0, "mkdtemp"), done_testing();
	tk_buf_addf(&path, "%s/h.db", dir);
	if (!ok(!tk_store_open(path.buf, &s, &err), "open a SQLite store"))
		diag(err.msg);
	if (s) {
		test_store(s);
		test_backfill(s, path.buf);
		tk_store_close(s);
	}
	tk_buf_addf(&cmd, "rm -rf '%s'", dir);
	if (system(cmd.buf))
		diag("cannot remove the temporary directory");
	tk_buf_release(&path);
	tk_buf_release(&cmd);
	return done_testing();
}
