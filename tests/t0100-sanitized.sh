#!/bin/sh
# The importer and input-safety shell tests (t5xxx but the fuzz run,
# whose targets are sanitized already, and the memory bound, which a
# sanitizer's shadow memory would distort; t82xx) again, on the tracker built with AddressSanitizer and
# UndefinedBehaviorSanitizer (build-san/tracker, built by make check):
# a sanitizer report makes tracker exit non-zero with the report on
# stderr, and the test that ran it fails. The unit tests' sanitized
# builds (build-san/tests/unit/t-*) run beside this in make check.

. "$(dirname "$0")/test-lib.sh"

san="$TRACKER_ROOT/build-san"
if [ -x "$san/tracker" ]; then
	test_set_prereq SANITIZED
elif [ "$TEST_UNDER_CI" = true ]; then
	test_expect_success 'the sanitized build exists under CI' '
		echo "build-san/tracker is missing: run make check (or make san-build)"; false
	'
fi

for t in "$TEST_DIRECTORY"/t5[0-9][0-9][0-9]-*.sh "$TEST_DIRECTORY"/t82[0-4][0-9]-*.sh; do
	[ -f "$t" ] || continue
	case $t in */t5003-*|*/t5100-*) continue ;; esac
	name=$(basename "$t" .sh)
	test_expect_success SANITIZED "$name on the sanitized tracker" "
		ASAN_OPTIONS=detect_leaks=1:exitcode=99 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LSAN_OPTIONS=suppressions='$TRACKER_ROOT/tests/lsan.supp' \
		TRACKER_TEST_BIN_DIR='$san' sh '$t' >out 2>&1
		rc=\$?
		grep '^not ok' out
		[ \$rc -eq 0 ] && ! grep -q '^not ok' out && grep -q '^1\\.\\.' out ||
		{ cat out; false; }
	"
done

test_done
