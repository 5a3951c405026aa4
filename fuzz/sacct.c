/*
 * libFuzzer target for sacct's parsable output (core/ci/sacct.h): what
 * `tracker run` reads from sacct inside a SLURM allocation. Seeded from
 * fixtures/sacct/; `make fuzz` builds it as fuzz/fuzz-sacct and runs it
 * beside the importers. The steps it parses also go through the run
 * record (JSON out and back in), which stores them.
 * Any crash, leak, sanitizer report or timeout is a bug; error returns are
 * the expected outcome for garbage.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/model/run.h"
#include "core/model/record.h"
#include "core/ci/sacct.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_run run, back;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf json = TK_BUF_INIT, v = TK_BUF_INIT;
	int64_t bytes, start;
	double secs;

	tk_run_init(&run);
	memcpy(run.id, "3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e05", TK_RUN_ID_LEN + 1);
	run.key = tk_xstrdup("fuzz");
	if (!tk_sacct_parse((const char *)data, size, "fuzz-input", &run.slurm, &err)) {
		size_t i;

		tk_sacct_settled(&run.slurm, 0, INT64_MAX, "0");
		for (i = 0; i < run.slurm.nr; i++)
			if (run.slurm.steps[i].tres_in_max)
				tk_sacct_tres_get(run.slurm.steps[i].tres_in_max, "mem", &v);
		tk_sacct_worst_state(&run.slurm);
		/* a run's own steps: every step with a Start, then the judge */
		tk_sacct_keep_own(&run.slurm, 0, INT64_MAX, "1");
		tk_sacct_judge(&run.slurm, 1 << 20, -1);
		if (!tk_run_to_json(&run, &json, &err)) {
			tk_run_init(&back);
			tk_run_from_json(json.buf, json.len, "fuzz-record", &back, &err);
			tk_run_release(&back);
		}
		tk_buf_reset(&json);
		tk_run_to_json_flags(&run, TK_RUN_JSON_COMPACT, &json, &err);
	}
	/* the field parsers on the raw bytes too */
	tk_sacct_parse_size((const char *)data, size, &bytes);
	tk_sacct_parse_elapsed((const char *)data, size, &secs);
	tk_sacct_parse_time((const char *)data, size, &start);
	tk_run_release(&run);
	tk_buf_release(&json);
	tk_buf_release(&v);
	return 0;
}
