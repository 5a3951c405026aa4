#!/bin/sh
# A short libFuzzer run of every importer (make fuzz), seeded from
# fixtures/: a crash, a sanitizer report, a leak or a timeout fails it.
# FUZZ_SECONDS (default 5) is per importer.

. "$(dirname "$0")/test-lib.sh"

if command -v clang >/dev/null 2>&1 &&
   echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >probe.c &&
   clang -fsanitize=fuzzer probe.c -o probe >/dev/null 2>&1; then
	test_set_prereq LIBFUZZER
fi

test_expect_success LIBFUZZER 'every importer survives a short fuzz run' '
	make -s -C "$TRACKER_ROOT" fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-5} >fuzz.log 2>&1 ||
	{ cat fuzz.log; false; }
'

test_done
