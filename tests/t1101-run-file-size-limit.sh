#!/bin/sh
# A file size limit (ulimit -f) is the job's business: tracker ignores
# SIGXFSZ, so a write of its own past the limit fails (EFBIG) and is
# warned about, the job's status is kept, no temporary file is left, and
# the job still gets SIGXFSZ at its default when it writes past the limit.

. "$(dirname "$0")/test-lib.sh"

# limited BLOCKS CMD...: CMD under ulimit -f BLOCKS (512-byte blocks in
# sh); its status goes to ./status, its stderr to ./err (truncated by the
# limit too, which is fine: the first warning fits).
limited() {
	blocks=$1
	shift
	sh -c 'ulimit -f "$1"; shift; "$@" 2>err; echo $? >status' sh "$blocks" "$@"
}

test_expect_success 'no room even for the record: the job status is kept, a warning' '
	limited 1 tracker run --key fs --db db1.sqlite --artifacts art1 -- sh -c "exit 7" &&
	test "$(cat status)" = 7 &&
	grep "cannot write the run record" err
'

test_expect_success 'a successful job stays successful' '
	limited 1 tracker run --key fs --db db1.sqlite --artifacts art1 -- true &&
	test "$(cat status)" = 0
'

test_expect_success 'no temporary file is left behind' '
	ls -A art1 >left &&
	test_cmp /dev/null left
'

test_expect_success 'room for the record but not the database: the record is kept for push' '
	limited 16 tracker run --key fs --db db2.sqlite --artifacts art2 -- true &&
	test "$(cat status)" = 0 &&
	grep "tracker push" err &&
	ls art2/fs-*.json >records &&
	test $(wc -l <records) = 1 &&
	! ls art2 | grep tmp &&
	tracker push --db ok.sqlite art2 2>err &&
	grep "^stored " err
'

test_expect_success 'the job still gets SIGXFSZ at its default, as without tracker' '
	limited 16 sh -c "head -c 100000 /dev/zero >big" &&
	want=$(cat status) &&
	limited 16 tracker run -q --key fs --db db3.sqlite --artifacts art3 -- \
		sh -c "head -c 100000 /dev/zero >big2" &&
	got=$(cat status) &&
	echo "without tracker $want, with $got" &&
	test "$want" = "$got" &&
	test "$got" != 0
'

test_done
