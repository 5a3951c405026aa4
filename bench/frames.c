/*
 * frames: the costs of frame totals (core/store/frametot.h).
 *
 *   frames gen DB N            N runs of key "bench-frames", each with a
 *                              cpu profile of about 3,000 distinct stacks
 *                              over 600 function names (seeded, each run's
 *                              weights different), stored as tracker run
 *                              stores them (frame totals included)
 *   frames decode DB KEY NAME  the peer of history --frame: every stored
 *                              cpu profile of KEY loaded and decoded one
 *                              by one, NAME's self and cumulative totals
 *                              found by a walk; prints one line per run
 *   frames put-cost FILE       imports FILE (a 200k-stack folded file),
 *                              stores a run with it in a fresh database in
 *                              a temporary directory, and prints the best
 *                              of 3 of storing the profile
 *                              (tk_profstore_put, which includes the frame
 *                              totals) and of the frame totals alone
 *                              (tk_frametot_put: computing and storing)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/base/timeutil.h"
#include "core/model/import.h"
#include "core/model/profcodec.h"
#include "core/store/frametot.h"
#include "core/store/profstore.h"

static uint64_t state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dull;
}

static int put_run(struct tk_store *s, long n, char id[TK_RUN_ID_LEN + 1], struct tk_err *err)
{
	struct tk_run r;
	int inserted, ret;

	snprintf(id, TK_RUN_ID_LEN + 1, "00000000-0000-4000-8000-%012ld", n % 1000000000000L);
	tk_run_init(&r);
	memcpy(r.id, id, TK_RUN_ID_LEN + 1);
	r.key = tk_xstrdup("bench-frames");
	r.started_at_us = 1767225600000000LL + n * 60000000LL;
	r.walltime_s = 100;
	ret = tk_store_put_run(s, &r, &inserted, err);
	tk_run_release(&r);
	return ret;
}

static int gen(const char *db, long n)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	char names[600][32], id[TK_RUN_ID_LEN + 1];
	long i, k;
	int d;

	for (i = 0; i < 600; i++)
		snprintf(names[i], sizeof(names[i]), "model::f%03ld(double*, int)", i);
	if (tk_store_open(db, &s, &err)) {
		fprintf(stderr, "frames: %s\n", err.msg);
		return 1;
	}
	for (i = 1; i <= n; i++) {
		struct tk_profile p;
		uint32_t stack[32];

		state = 0x2545f4914f6cdd1dull; /* the same shape every run */
		tk_profile_init(&p, TK_UNIT_NANOSECONDS);
		for (k = 0; k < 3000; k++) {
			int depth = 5 + (int)(rnd() % 26);

			for (d = 0; d < depth; d++) {
				/* shared prefixes: the top frames come from few names */
				size_t pick = d < 3 ? rnd() % (size_t)(2 + d * 3) : rnd() % 600;

				stack[d] = tk_profile_intern(&p, names[pick], strlen(names[pick]));
			}
			tk_profile_add_stack(&p, stack, (size_t)depth,
					     (double)(1000 + (rnd() + (uint64_t)i * 7919) % 100000));
		}
		tk_profile_finish(&p);
		if (put_run(s, i, id, &err) ||
		    tk_profstore_put(s, id, "cpu", NULL, &p, &err)) {
			fprintf(stderr, "frames: %s\n", err.msg);
			return 1;
		}
		tk_profile_release(&p);
	}
	tk_store_close(s);
	return 0;
}

struct ids {
	char (*v)[TK_RUN_ID_LEN + 1];
	size_t nr, alloc;
};

static int take_id(const struct tk_run_summary *r, void *data)
{
	struct ids *ids = data;

	TK_ALLOC_GROW(ids->v, ids->nr + 1, ids->alloc);
	snprintf(ids->v[ids->nr++], TK_RUN_ID_LEN + 1, "%s", r->run_id);
	return 0;
}

/* The self and cumulative total of name in p, a stack counted once. */
static void one_name(const struct tk_profile *p, const char *name, double *self, double *cum)
{
	uint32_t id, n, depth = 0;

	*self = *cum = 0;
	for (id = 1; id < p->nr_names && strcmp(p->names[id], name); id++)
		;
	if (id >= p->nr_names)
		return;
	n = p->nr_nodes > 1 ? p->nodes[0].first_child : 0;
	while (n) {
		if (p->nodes[n].name == id) {
			*self += p->nodes[n].self;
			if (!depth++)
				*cum += p->nodes[n].total;
		}
		if (p->nodes[n].first_child) {
			n = p->nodes[n].first_child;
			continue;
		}
		for (;;) {
			if (p->nodes[n].name == id)
				depth--;
			if (p->nodes[n].next_sibling) {
				n = p->nodes[n].next_sibling;
				break;
			}
			n = p->nodes[n].parent;
			if (!n)
				break;
		}
	}
}

static int decode(const char *db, const char *key, const char *name)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	struct tk_run_query q;
	const char *keys[2] = { key, NULL };
	struct ids ids = { NULL, 0, 0 };
	size_t i;

	if (tk_store_open_reader(db, &s, &err))
		goto fail;
	memset(&q, 0, sizeof(q));
	q.keys = keys;
	q.profile_kind = "cpu";
	if (tk_store_query_summaries(s, &q, take_id, &ids, &err))
		goto fail;
	for (i = 0; i < ids.nr; i++) {
		struct tk_profile p;
		double self, cum;

		tk_profile_init(&p, TK_UNIT_SAMPLES);
		if (tk_profstore_get(s, ids.v[i], "cpu", &p, &err))
			goto fail;
		one_name(&p, name, &self, &cum);
		printf("%s,%.17g,%.17g\n", ids.v[i], self, cum);
		tk_profile_release(&p);
	}
	free(ids.v);
	tk_store_close(s);
	return 0;
fail:
	fprintf(stderr, "frames: %s\n", err.msg);
	return 1;
}

static int put_cost(const char *file)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	struct tk_profile p;
	struct tk_buf db = TK_BUF_INIT;
	char dir[] = "/tmp/bench-frames.XXXXXX", id[TK_RUN_ID_LEN + 1];
	double best_put = 1e9, best_frames = 1e9;
	int i;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	if (!mkdtemp(dir) || tk_import_file(file, "folded", NULL, &p, &err))
		goto fail;
	tk_buf_addf(&db, "%s/h.db", dir);
	if (tk_store_open(db.buf, &s, &err) || put_run(s, 1, id, &err))
		goto fail;
	for (i = 0; i < 3; i++) {
		double t0 = tk_mono_s(), t1;

		if (tk_profstore_put(s, id, "cpu", "folded", &p, &err))
			goto fail;
		t1 = tk_mono_s();
		if (tk_frametot_put(s, id, "cpu", &p, &err))
			goto fail;
		if (t1 - t0 < best_put)
			best_put = t1 - t0;
		if (tk_mono_s() - t1 < best_frames)
			best_frames = tk_mono_s() - t1;
	}
	printf("%.4f %.4f %u\n", best_put, best_frames, p.nr_nodes);
	tk_store_close(s);
	tk_profile_release(&p);
	tk_buf_addf(&db, "-shm");
	unlink(db.buf);
	tk_buf_setlen(&db, db.len - 4);
	tk_buf_addf(&db, "-wal");
	unlink(db.buf);
	tk_buf_setlen(&db, db.len - 4);
	unlink(db.buf);
	rmdir(dir);
	tk_buf_release(&db);
	return 0;
fail:
	fprintf(stderr, "frames: %s\n", err.msg);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "gen"))
		return gen(argv[2], strtol(argv[3], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "decode"))
		return decode(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "put-cost"))
		return put_cost(argv[2]);
	fprintf(stderr, "usage: frames gen DB N | frames decode DB KEY NAME | "
		"frames put-cost FILE\n");
	return 2;
}
