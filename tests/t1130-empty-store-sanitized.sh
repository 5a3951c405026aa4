#!/bin/sh
# Commands that find nothing to show (an empty store, a misspelled key)
# exit 65 with an error, on the release build and on the build with
# UndefinedBehaviorSanitizer (build-san/tracker, made by make check or
# make san-build): sorting an empty list must not hand qsort a NULL
# pointer, which the sanitizer reports and aborts on.

. "$(dirname "$0")/test-lib.sh"

san="$TRACKER_ROOT/build-san/tracker"
if [ -x "$san" ]; then
	test_set_prereq SANITIZED
fi

# each command of the list, on DB, exits as documented (a plot or a
# dashboard of nothing is an error, 65; an empty ranks table says "no
# runs", 0) with no sanitizer report
nothing_to_show() {
	bin=$1 db=$2 key=$3
	for c in "65 history --key $key --plot k.png" "65 dashboard -o d" "0 history --ranks"; do
		want=${c%% *}
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:abort_on_error=0 \
		ASAN_OPTIONS=detect_leaks=0 \
		"$bin" ${c#* } --db "$db" >out 2>err
		rc=$?
		if [ $rc -ne $want ] || grep -q "runtime error\|Sanitizer" err; then
			echo "tracker $c: exit $rc"; cat err
			return 1
		fi
	done
}

test_expect_success 'an empty store: plot and dashboard exit 65, ranks say no runs' '
	mkdir empty &&
	tracker push --db e.db empty &&
	nothing_to_show tracker e.db k
'

test_expect_success 'a misspelled key: the plot exits 65' '
	tracker run -q --db o.db --key real -- true &&
	test_expect_code 65 tracker history --db o.db --key reel --plot k.png
'

test_expect_success SANITIZED 'an empty store on the sanitized build: no report' '
	nothing_to_show "$san" e.db k
'

test_expect_success SANITIZED 'a misspelled key on the sanitized build: no report' '
	UBSAN_OPTIONS=halt_on_error=1 ASAN_OPTIONS=detect_leaks=0 \
	"$san" history --db o.db --key reel --plot k.png 2>err
	test $? = 65 && ! grep "runtime error" err
'

test_done
