/* The speedscope JSON importer: fixtures, real data, hostile JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/import.h"
#include "tests/unit/profile-dump.h"
#include "tests/unit/tap.h"

#define REAL "../shared/real-data/speedscope-json/"

static void hostile(void)
{
	struct tk_err err = TK_ERR_INIT;
	struct tk_buf b = TK_BUF_INIT;
	size_t len, i;
	char *deep;
	int ret;

	deep = dump_deep_json(100000, &len);
	ret = dump_import_mem("deep.json", deep, len, "speedscope", &err);
	is_int(ret, TK_EDATA, "100k-deep nesting is TK_EDATA, no crash");
	ok(strstr(err.msg, "'deep.json' line 1 column") && strstr(err.msg, "depth"),
	   "with line and column: %s", err.msg);
	free(deep);

	/* a 2 MiB frame name: over TK_PROFILE_MAX_NAME */
	tk_buf_adds(&b, "{\"shared\":{\"frames\":[{\"name\":\"");
	for (i = 0; i < (2u << 20); i++)
		tk_buf_addch(&b, 'x');
	tk_buf_adds(&b, "\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
		    "\"samples\":[[0]],\"weights\":[1]}]}");
	ret = dump_import_mem("big.json", b.buf, b.len, NULL, &err);
	is_int(ret, TK_EDATA, "a 2 MiB name is refused: %s", err.msg);
	ok(strstr(err.msg, "frames[0]") != NULL, "naming the frame");
	tk_buf_release(&b);

	ret = dump_import_mem("t.json", "{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"ty",
			      52, "speedscope", &err);
	is_int(ret, TK_EDATA, "truncated JSON: %s", err.msg);
	ok(strstr(err.msg, "line 1 column") != NULL, "with a position");

	ret = dump_import_mem("g.json", "\x7f\x45\x4c\x46\x02\x01\x01\x00\xff\xfe", 10, "speedscope", &err);
	is_int(ret, TK_EDATA, "binary garbage: %s", err.msg);

#define BAD(json, what) do { \
		ret = dump_import_mem("b.json", json, strlen(json), "speedscope", &err); \
		ok(ret == TK_EDATA, "%s: %s", what, err.msg); \
	} while (0)
	BAD("{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
	    "\"samples\":[[0,1]],\"weights\":[1]}]}", "frame index out of range");
	BAD("{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
	    "\"samples\":[[0]],\"weights\":[-1]}]}", "negative weight");
	BAD("{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"none\","
	    "\"samples\":[[0],[0]],\"weights\":[1]}]}", "weights shorter than samples");
	BAD("{\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"}]},\"profiles\":[{\"type\":\"evented\","
	    "\"unit\":\"none\",\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"C\",\"frame\":1,\"at\":1}]}]}",
	    "closing a frame that is not open");
	BAD("{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"evented\","
	    "\"unit\":\"none\",\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":5},{\"type\":\"C\",\"frame\":0,\"at\":1}]}]}",
	    "time going backwards");
	BAD("{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[{\"type\":\"sampled\",\"unit\":\"parsecs\","
	    "\"samples\":[],\"weights\":[]}]}", "unknown unit");
	BAD("{\"shared\":{\"frames\":[{\"name\":\"a\"}]},\"profiles\":[]}", "no profiles");
	BAD("[1,2,3]", "an array is not speedscope");
	BAD("{\"a\":1,\"a\":2}", "duplicate keys");
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_unit unit;
	char *s;
	int ret;

	s = dump_import("fixtures/speedscope/sampled.speedscope.json", NULL, NULL, NULL, &unit, &ret,
			&err);
	is_int(ret, 0, "sampled fixture is probed and imports: %s", err.msg);
	is_str(s,
	       "main (main.c:10) 500000\n"
	       "main (main.c:10);<script>&\"x\" 250000\n"
	       "main (main.c:10);compute (main.c:42) 5000000\n"
	       "main (main.c:10);io_wait 1500000\n",
	       "time profiles merged in ns, the bytes profile skipped");
	is_int(unit, TK_UNIT_NANOSECONDS, "unit nanoseconds");
	free(s);

	s = dump_import("fixtures/speedscope/sampled.speedscope.json", "speedscope", "heap", NULL,
			&unit, &ret, &err);
	is_str(s, "main (main.c:10);compute (main.c:42);malloc 3072\nmain (main.c:10);malloc 1024\n",
	       "kind names a profile: heap, bytes");
	is_int(unit, TK_UNIT_BYTES, "unit bytes");
	free(s);

	s = dump_import("fixtures/speedscope/sampled.speedscope.json", "speedscope", "thread 2", NULL,
			&unit, &ret, &err);
	is_str(s, "main (main.c:10);<script>&\"x\" 250000\n", "kind 'thread 2', microseconds -> ns");
	free(s);

	s = dump_import("fixtures/speedscope/evented.speedscope.json", NULL, NULL, NULL, &unit, &ret,
			&err);
	is_int(ret, 0, "evented fixture imports: %s", err.msg);
	is_str(s, "a 10\na;b 2\na;b;c (c.py:7) 5\na;c (c.py:7) 3\n",
	       "open/close events: time between events goes to the top frame");
	free(s);

	if (access(REAL, R_OK)) {
		skip(1, "../shared/real-data is absent");
	} else {
		s = dump_import(REAL "two-sampled.speedscope.json", NULL, NULL, NULL, &unit, &ret, &err);
		is_int(ret, 0, "real two-sampled imports: %s", err.msg);
		is_str(s, "a;b 10000000000\na;b;c 10000000000\na;b;d 8000000000\n",
		       "both profiles merged, seconds -> ns");
		free(s);
		s = dump_import(REAL "simple-evented.speedscope.json", NULL, NULL, NULL, &unit, &ret, &err);
		is_int(ret, 0, "real simple-evented imports: %s", err.msg);
		is_str(s, "a;b 5\na;b;c 5\na;b;d 4\n", "evented, unit none");
		is_int(unit, TK_UNIT_SAMPLES, "none is samples");
		free(s);
	}
	hostile();
	return done_testing();
}
