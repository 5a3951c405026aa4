/* The Chrome/V8 .cpuprofile importer: fixture, real data, hostile JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/model/import.h"
#include "tests/unit/profile-dump.h"
#include "tests/unit/tap.h"

#define REAL "../shared/real-data/v8-cpuprofile/speedscope_sucrase.cpuprofile"

static void hostile(void)
{
	struct tk_err err = TK_ERR_INIT;
	size_t len;
	char *deep;
	int ret;

	deep = dump_deep_json(100000, &len);
	deep[0] = '{'; /* still invalid, still deep after the first byte */
	ret = dump_import_mem("deep.cpuprofile", deep, len, "cpuprofile", &err);
	is_int(ret, TK_EDATA, "deep/invalid JSON is TK_EDATA: %s", err.msg);
	free(deep);
	deep = dump_deep_json(100000, &len);
	ret = dump_import_mem("deep.cpuprofile", deep, len, "cpuprofile", &err);
	ok(ret == TK_EDATA && strstr(err.msg, "line 1 column 2049"), "100k-deep array: %s", err.msg);
	free(deep);

#define BAD(json, what) do { \
		ret = dump_import_mem("b.cpuprofile", json, strlen(json), "cpuprofile", &err); \
		ok(ret == TK_EDATA, "%s: %s", what, err.msg); \
	} while (0)
#define CF "\"callFrame\":{\"functionName\":\"f\",\"url\":\"\",\"lineNumber\":1}"
	BAD("{\"nodes\":[{\"id\":1," CF ",\"children\":[2]},{\"id\":2," CF ",\"children\":[1]}]}",
	    "a cycle");
	BAD("{\"nodes\":[{\"id\":1," CF ",\"children\":[7]}]}", "an unknown child id");
	BAD("{\"nodes\":[{\"id\":1," CF "},{\"id\":1," CF "}]}", "a duplicate id");
	BAD("{\"nodes\":[{\"id\":1," CF "}],\"samples\":[1,9],\"timeDeltas\":[1,1]}", "an unknown sample id");
	BAD("{\"nodes\":[{\"id\":1," CF "}],\"samples\":[1,1],\"timeDeltas\":[1]}", "deltas shorter than samples");
	BAD("{\"nodes\":[{\"id\":\"x\"," CF "}]}", "a string id");
	BAD("{\"nodes\":[{\"id\":1}],\"samples\":[1]}", "a node without callFrame");
	ret = dump_import_mem("old.cpuprofile", "{\"head\":{}}", 11, "cpuprofile", &err);
	is_int(ret, TK_EUNSUPPORTED, "the old head-tree format is unsupported: %s", err.msg);
}

int main(void)
{
	struct tk_err err = TK_ERR_INIT;
	enum tk_unit unit;
	char *s;
	int ret;

	s = dump_import("fixtures/cpuprofile/small.cpuprofile", NULL, NULL, NULL, &unit, &ret, &err);
	is_int(ret, 0, "fixture probed and imported: %s", err.msg);
	is_str(s,
	       "(idle) 300000\n"
	       "main (file:///app/index.js:1) 260000\n"
	       "main (file:///app/index.js:1);(anonymous) (file:///app/index.js:10) 300000\n"
	       "main (file:///app/index.js:1);parse (file:///app/parse.js:100) 50000\n",
	       "self time per sample = next delta, last until endTime, negative delta 0, us -> ns");
	is_int(unit, TK_UNIT_NANOSECONDS, "unit nanoseconds");
	free(s);

	if (access(REAL, R_OK)) {
		skip(1, "../shared/real-data is absent");
	} else {
		struct tk_profile p;

		tk_profile_init(&p, TK_UNIT_SAMPLES);
		ret = tk_import_file(REAL, NULL, NULL, &p, &err);
		is_int(ret, 0, "sucrase.cpuprofile is probed and imports: %s", err.msg);
		/* endTime - startTime - timeDeltas[0] = 22012290 - 31... in us */
		ok(tk_profile_total(&p) > 2.2e10 && tk_profile_total(&p) <= 2.2012290e10,
		   "total is the profile's span in ns: %.0f", tk_profile_total(&p));
		s = dump_folded(&p);
		ok(strstr(s, "(garbage collector) ") != NULL, "has (garbage collector)");
		ok(strstr(s, "\nModule.runMain (module.js:680);Module._load (module.js:446);") ||
		   strstr(s, "startup (bootstrap_node.js:13);Module.runMain (module.js:680);"),
		   "names are 'function (url:line)' with 1-based lines");
		free(s);
		tk_profile_release(&p);
	}
	hostile();
	return done_testing();
}
