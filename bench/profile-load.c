/*
 * profile-load: how long loading a stored profile takes.
 *
 *   profile-load DB RUN_ID KIND
 *
 * Opens the store, reads the profile's blob and decodes it into a call
 * tree, five times; prints the best time and the blob's size. Where
 * ISA-L is available, five times more with zlib's inflater, for the
 * ratio in the same run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/model/profcodec.h"
#include "core/store/store.h"
#include "core/base/timeutil.h"

/* The best of five loads, in seconds; the blob's length and the nodes. */
static double best_of_5(const char *db, const char *run, const char *kind, size_t *len,
			uint32_t *nodes)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	double best = 1e9;
	int i;

	for (i = 0; i < 5; i++) {
		struct tk_buf blob = TK_BUF_INIT;
		struct tk_profile p;
		double t0 = tk_mono_s(), t;

		tk_profile_init(&p, TK_UNIT_SAMPLES);
		if (tk_store_open(db, &s, &err) ||
		    tk_store_get_profile(s, run, kind, &blob, &err) ||
		    tk_profile_decode(blob.buf, blob.len, "stored", &p, &err)) {
			fprintf(stderr, "profile-load: %s\n", err.msg);
			exit(1);
		}
		t = tk_mono_s() - t0;
		if (t < best)
			best = t;
		*len = blob.len;
		*nodes = p.nr_nodes - 1;
		tk_profile_release(&p);
		tk_buf_release(&blob);
		tk_store_close(s);
	}
	return best;
}

int main(int argc, char **argv)
{
	size_t len = 0;
	uint32_t nodes = 0;
	double best, with_zlib;
	int isal;

	if (argc != 4) {
		fprintf(stderr, "usage: profile-load DB RUN_ID KIND\n");
		return 2;
	}
	isal = tk_profile_isal_available();
	best = best_of_5(argv[1], argv[2], argv[3], &len, &nodes);
	printf("  load a stored profile: %.3f s (best of 5) for %u nodes, %.1f MB blob\n", best,
	       nodes, (double)len / 1e6);
	if (isal) {
		tk_profile_decode_use_isal(0);
		with_zlib = best_of_5(argv[1], argv[2], argv[3], &len, &nodes);
		printf("  inflated by ISA-L; with zlib's inflater instead: %.3f s (%.2fx)\n",
		       with_zlib, with_zlib / best);
	} else {
		printf("  inflated by zlib (a build without ISA-L, or no libisal.so.2)\n");
	}
	return 0;
}
