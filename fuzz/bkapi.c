/*
 * libFuzzer target for the Buildkite API responses (core/ci/bkapi.h): each
 * input is read as a page of builds, a page of artifacts, a Link header
 * and an artifact's file name. `make fuzz` builds it as fuzz/fuzz-bkapi
 * and seeds it from fixtures/buildkite-api/.
 * Any crash, leak, sanitizer report or timeout is a bug; error returns are
 * the expected outcome for garbage.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/ci/bkapi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_bk_builds b = { NULL, 0, 0 };
	struct tk_bk_artifacts a = { NULL, 0, 0 };
	struct tk_buf link = TK_BUF_INIT;
	struct tk_err err = TK_ERR_INIT;
	char id[37];
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	tk_bkapi_parse_builds((const char *)data, size, "fuzz-input", &b, &err);
	tk_bkapi_parse_artifacts((const char *)data, size, "fuzz-input", &a, &err);
	tk_bkapi_next_link(text, &link);
	tk_bkapi_record_name(text, id);
	tk_bkapi_builds_release(&b);
	tk_bkapi_artifacts_release(&a);
	tk_buf_release(&link);
	free(text);
	return 0;
}
