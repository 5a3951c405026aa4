/*
 * libFuzzer target for the run record reader (tk_run_from_json,
 * core/model/record.h), what `tracker push` reads from CI artifacts: a record is
 * read or refused, and one that is read writes back out and reads again.
 * Seeds: fixtures/records/.
 */
#include <stddef.h>
#include <stdint.h>

#include "core/base/buf.h"
#include "core/model/run.h"
#include "core/model/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_run r, again;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf out = TK_BUF_INIT;

	tk_run_init(&r);
	tk_run_init(&again);
	if (!tk_run_from_json((const char *)data, size, "fuzz.json", &r, &err) &&
	    !tk_run_to_json(&r, &out, &err) &&
	    tk_run_from_json(out.buf, out.len, "again.json", &again, &err))
		__builtin_trap(); /* what tracker writes, it must read */
	tk_buf_release(&out);
	tk_run_release(&r);
	tk_run_release(&again);
	return 0;
}
