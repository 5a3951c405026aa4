/*
 * libFuzzer target for one importer, picked at build time:
 *   clang -fsanitize=fuzzer,address,undefined -DFUZZ_FORMAT='"perf"' ...
 * `make fuzz` builds one per format (fuzz/fuzz-<format>) and seeds it
 * from fixtures/<format>/.
 * Any crash, leak, sanitizer report or timeout is a bug; error returns are
 * the expected outcome for garbage.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/model/import.h"

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT='\"name\"'"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_profile p;
	struct tk_err err = TK_ERR_INIT;

	tk_profile_init(&p, TK_UNIT_SAMPLES);
	tk_import_mem("fuzz-input", (const char *)data, size, FUZZ_FORMAT, NULL, &p, &err);
	tk_profile_release(&p);
	/* Content probing must not crash either. */
	tk_profile_init(&p, TK_UNIT_SAMPLES);
	tk_import_mem("fuzz-input", (const char *)data, size, NULL, NULL, &p, &err);
	tk_profile_release(&p);
	return 0;
}
