/*
 * libFuzzer target for the perf script importer read in segments on two
 * threads (plugins/import/perf.c), differentially: every input is parsed
 * in one pass and again in segments of 64 bytes (at most 256 before one
 * thread reads the rest alone) on two threads, and the two must agree on
 * the return code, the message, the warning, the unit and the tree (names
 * and nodes in their order). Seeded from fixtures/perf/. A disagreement
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome one, cut;

	parse(&one, data, size, size + 1, (size_t)-1, 1);
	parse(&cut, data, size, 64, 256, 2);
	if (one.ret != cut.ret || strcmp(one.err.msg, cut.err.msg))
		abort();
	if (!one.ret && !same_tree(&one.p, &cut.p))
		abort();
	tk_profile_release(&one.p);
	tk_profile_release(&cut.p);
	return 0;
}
