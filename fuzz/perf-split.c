/*
 * libFuzzer target for the perf script importer read in segments on two
 * threads (plugins/import/perf.c), differentially: every input is parsed
 * in one pass and again in segments of 64 bytes (at most 256 before one
 * thread reads the rest alone) on two threads, and the two must agree on
 * the return code, the message, the warning, the unit and the tree (names
 * and nodes in their order; a sum past the cap names its segment's first
 * line, so only the rest of that message is compared), and the same
 * segments on one thread give the very same message. Seeded from
 * fixtures/perf/. A disagreement
 * aborts; so does any crash, leak, sanitizer report or timeout.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The importer's statics, here under another descriptor name: the
 * library's copy is linked too. */
#define tk_import_perf fuzz_perf_split_importer
#include "plugins/import/perf.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct outcome {
	int ret;
	struct tk_err err;
	struct tk_profile p;
};

static void parse(struct outcome *o, const uint8_t *data, size_t size, size_t seg, size_t max,
		  int threads)
{
	static const struct tk_import_opts opts;
	struct tk_reader in;

	memset(&o->err, 0, sizeof(o->err));
	tk_reader_from_mem(&in, "fuzz-input", (const char *)data, size);
	tk_profile_init(&o->p, TK_UNIT_SAMPLES);
	o->ret = parse_split(&in, &o->p, &opts, &o->err, seg, max, threads);
	tk_reader_close(&in);
}

static int same_tree(const struct tk_profile *a, const struct tk_profile *b)
{
	uint32_t i;

	if (a->nr_names != b->nr_names || a->nr_nodes != b->nr_nodes || a->unit != b->unit ||
	    strcmp(a->warning, b->warning))
		return 0;
	for (i = 0; i < a->nr_names; i++)
		if (a->name_lens[i] != b->name_lens[i] ||
		    memcmp(a->names[i], b->names[i], a->name_lens[i]))
			return 0;
	for (i = 0; i < a->nr_nodes; i++)
		if (a->nodes[i].parent != b->nodes[i].parent || a->nodes[i].name != b->nodes[i].name ||
		    a->nodes[i].self != b->nodes[i].self)
			return 0;
	return 1;
}

/* A sum past the cap is named by the first line of its segment, which
 * differs with the segments' size: only the rest of the message must
 * agree then. */
static int same_error(const struct outcome *a, const struct outcome *b)
{
	static const char sum[] = " on: the periods add up to more than";
	const char *x = strstr(a->err.msg, sum), *y = strstr(b->err.msg, sum);

	if (a->ret != b->ret)
		return 0;
	if (x && y)
		return !strcmp(x, y);
	return !strcmp(a->err.msg, b->err.msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome one, cut, cut1;

	parse(&one, data, size, size + 1, (size_t)-1, 1);
	parse(&cut, data, size, 64, 256, 2);
	parse(&cut1, data, size, 64, 256, 1);
	if (!same_error(&one, &cut))
		abort();
	/* the same segments on one thread: the very same message */
	if (cut.ret != cut1.ret || strcmp(cut.err.msg, cut1.err.msg))
		abort();
	if (!one.ret && !same_tree(&one.p, &cut.p))
		abort();
	tk_profile_release(&one.p);
	tk_profile_release(&cut.p);
	tk_profile_release(&cut1.p);
	return 0;
}
