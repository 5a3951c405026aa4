/*
 * libFuzzer target for the stored form of a profile (core/model/profcodec.h):
 * what the stores keep and `tracker run` writes as *.tkprof beside its
 * records, which `tracker push` reads from anywhere. Seeded from
 * fixtures/tkprof/ (a Julia profile with frame categories, a plain one).
 * A blob that decodes is encoded again and must decode to the same
 * nodes, names and categories.
 * Any crash, leak, sanitizer report or timeout is a bug; error returns are
 * the expected outcome for garbage.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/model/profcodec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_profile p, q;
	struct tk_buf blob = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	uint32_t i;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	if (!tk_profile_decode(data, size, "fuzz-input", &p, &err)) {
		if (tk_profile_encode(&p, &blob, &err))
			abort();
		tk_profile_init(&q, TK_UNIT_SAMPLES);
		if (tk_profile_decode(blob.buf, blob.len, "fuzz-again", &q, &err) ||
		    q.nr_nodes != p.nr_nodes || q.nr_names != p.nr_names || q.unit != p.unit)
			abort();
		for (i = 1; i < p.nr_names; i++)
			if (tk_profile_category(&p, i) != tk_profile_category(&q, i))
				abort();
		tk_profile_release(&q);
	}
	tk_profile_release(&p);
	tk_buf_release(&blob);
	return 0;
}
