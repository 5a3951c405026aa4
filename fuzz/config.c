/*
 * libFuzzer target for the .tracker.yml reader (core/model/config.h): any
 * document, valid YAML or not, is parsed into a config or refused with
 * an error; never a crash, a leak or a sanitizer report. Seeds:
 * fixtures/config/.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/model/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_config c;
	struct tk_err err = TK_ERR_INIT;

	tk_config_init(&c);
	tk_config_parse((const char *)data, size, "fuzz.yml", &c, &err);
	tk_config_release(&c);
	return 0;
}
