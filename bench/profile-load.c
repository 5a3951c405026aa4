/*
 * profile-load: how long loading a stored profile takes.
 *
 *   profile-load DB RUN_ID KIND
 *
 * Opens the store, reads the profile's blob and decodes it into a call
 * tree, five times; prints the best time and the blob's size.
 */
#include <stdio.h>

#include "core/model/profcodec.h"
#include "core/store/store.h"
#include "core/base/timeutil.h"

int main(int argc, char **argv)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_store *s = NULL;
	double best = 1e9;
	size_t len = 0;
	uint32_t nodes = 0;
	int i;

	if (argc != 4) {
		fprintf(stderr, "usage: profile-load DB RUN_ID KIND\n");
		return 2;
	}
	for (i = 0; i < 5; i++) {
		struct tk_buf blob = TK_BUF_INIT;
		struct tk_profile p;
		double t0 = tk_mono_s(), t;

		tk_profile_init(&p, TK_UNIT_SAMPLES);
		if (tk_store_open(argv[1], &s, &err) ||
		    tk_store_get_profile(s, argv[2], argv[3], &blob, &err) ||
		    tk_profile_decode(blob.buf, blob.len, "stored", &p, &err)) {
			fprintf(stderr, "profile-load: %s\n", err.msg);
			return 1;
		}
		t = tk_mono_s() - t0;
		if (t < best)
			best = t;
		len = blob.len;
		nodes = p.nr_nodes - 1;
		tk_profile_release(&p);
		tk_buf_release(&blob);
		tk_store_close(s);
	}
	printf("  load a stored profile: %.3f s (best of 5) for %u nodes, %.1f MB blob\n", best,
	       nodes, (double)len / 1e6);
	return 0;
}
