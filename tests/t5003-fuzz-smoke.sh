#!/bin/sh
# A short libFuzzer run of every fuzz target (make fuzz: each importer,
# the .tracker.yml reader, the run records, and any fuzz/<name>.c),
# seeded from fixtures/: a crash, a sanitizer report, a leak or a
# timeout fails it. Each target runs every seed once, then mutations up
# to FUZZ_RUNS inputs in all (400 unless given): a count, not a time,
# so a busy machine runs the same inputs. Its corpus and findings stay in
# the trash directory. The library is built at -O0 (half the build time;
# a fresh clone builds it here). Longer runs: make fuzz FUZZ_SECONDS=600. Without
# clang's libFuzzer it skips, except under CI (CI=true), where it fails:
# CI must fuzz.

. "$(dirname "$0")/test-lib.sh"

if command -v clang >/dev/null 2>&1 &&
   echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' >probe.c &&
   clang -fsanitize=fuzzer,address,undefined probe.c -o probe >/dev/null 2>&1; then
	test_set_prereq LIBFUZZER
elif [ "$TEST_UNDER_CI" = true ]; then
	test_expect_success 'libFuzzer is there under CI' '
		echo "clang with libFuzzer is missing: ci/install-deps.sh test installs it"; false
	'
fi

test_expect_success LIBFUZZER 'every fuzz target survives a short run' '
	make -s -C "$TRACKER_ROOT" -j2 fuzz FUZZ_RUNS=${FUZZ_RUNS:-400} FUZZ_OPT=-O0 \
		FUZZ_OUT="$TRASH_DIRECTORY/out" >fuzz.log 2>&1 ||
	{ cat fuzz.log; false; }
'

test_expect_success LIBFUZZER 'the run covered the importers, the config, the records, pipeline wrap, the Buildkite API, sacct, the memory timeline, stored profiles and perf script cut in segments' '
	for t in import-folded import-pprof import-speedscope import-nsys config records pipewrap bkapi sacct timeline tkprof perf-split; do
		grep -q "^fuzz: $t for" fuzz.log || { echo "$t did not run"; return 1; }
	done &&
	ran=$(grep -c "^fuzz: " fuzz.log) &&
	test "$ran" -ge 12 &&
	test $(grep -c "^stat::number_of_executed_units: [1-9]" fuzz.log) = "$ran"
'

test_done
