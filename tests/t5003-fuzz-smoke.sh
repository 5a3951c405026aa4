#!/bin/sh
# A short libFuzzer run of every importer (make fuzz), seeded from
# fixtures/: a crash, a sanitizer report, a leak or a timeout fails it.
# FUZZ_SECONDS (default 2 here, to keep make check short; make fuzz
# alone runs 20) is per importer. Longer runs: make fuzz FUZZ_SECONDS=600.

. "$(dirname "$0")/test-lib.sh"

if command -v clang >/dev/null 2>&1 &&
   echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >probe.c &&
   clang -fsanitize=fuzzer probe.c -o probe >/dev/null 2>&1; then
	test_set_prereq LIBFUZZER
fi

test_expect_success LIBFUZZER 'every importer survives a short fuzz run' '
	make -s -C "$TRACKER_ROOT" -j2 fuzz FUZZ_SECONDS=${FUZZ_SECONDS:-2} >fuzz.log 2>&1 ||
	{ cat fuzz.log; false; }
'

test_done
