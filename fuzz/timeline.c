/*
 * libFuzzer target for the compact form of a run's memory timeline
 * (tk_timeline_decode, core/model/timeline.h), what a record file and a
 * database row carry: it is read or refused, and one that is read
 * encodes and reads back to the same points. Seeds: fuzz/seeds/timeline/.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/base/buf.h"
#include "core/model/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tk_timeline tl, again;
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf out = TK_BUF_INIT;

	tk_timeline_init(&tl);
	tk_timeline_init(&again);
	if (!tk_timeline_decode((const char *)data, size, &tl, &err)) {
		tk_timeline_peak(&tl);
		tk_timeline_encode(&tl, &out);
		/* what tracker writes, it must read, point for point */
		if (tk_timeline_decode(out.buf, out.len, &again, &err) || again.nr != tl.nr ||
		    again.has_cgroup != tl.has_cgroup ||
		    (tl.nr && memcmp(again.p, tl.p, tl.nr * sizeof(*tl.p))))
			__builtin_trap();
	}
	tk_buf_release(&out);
	tk_timeline_release(&tl);
	tk_timeline_release(&again);
	return 0;
}
