#!/bin/sh
# Figures no run can have (a walltime of 1e308 s or inf, a start at
# +-2^63 us, an exit code of 99999) are refused where records come in
# (push, with the record kept and named) and skipped where rows are read
# back (a row written by hand or by an older tracker): one bad row never
# blocks check, dashboard or history of the other keys, and is named once.

. "$(dirname "$0")/test-lib.sh"

# record NAME FIELD VALUE: the fixture record with one figure changed
record() {
	python3 - "$FIXTURES/records/amip-staging-101.json" "$@" <<-\PY
	import json, sys, uuid
	src, name, field, value = sys.argv[1:5]
	doc = json.load(open(src))
	doc["run"]["id"] = str(uuid.uuid4())
	doc["run"][field] = json.loads(value)
	json.dump(doc, open("in/" + name + ".json", "w"))
	PY
}

test_expect_success 'setup' '
	mkdir in &&
	record good walltime_s 3600.5 &&
	record huge-wall walltime_s 1e308 &&
	record late started_at_us 9223372036854775807 &&
	record early started_at_us -9223372036854775808 &&
	record exit exit_code 99999 &&
	record rss maxrss_bytes 9223372036854775807
'

test_expect_success 'push: each bad record refused and named, kept; the good one stored' '
	test_expect_code 65 tracker push --db db.sqlite --remove in 2>err &&
	cat err &&
	grep "in/huge-wall.json.*walltime_s is 1e+308, not a finite number of seconds up to 1e+08" err &&
	grep "in/late.json.*started_at_us is 9223372036854775807, not a time from 1970 to 2200" err &&
	grep "in/early.json.*started_at_us is -9223372036854775808" err &&
	grep "in/exit.json.*exit_code is 99999, not an exit status (-1 to 255)" err &&
	grep "in/rss.json.*maxrss_bytes is 9223372036854775807, not a size up to 1152921504606846976" err &&
	! test -e in/good.json &&
	test "$(ls in | wc -l)" = 5 &&
	test "$(tracker history --db db.sqlite --format csv | wc -l)" = 2
'

# rows of two keys on main, then one row of key a made impossible by hand
test_expect_success SQLITE3 'setup: a history with a row no run can have' '
	for i in 1 2 3 4 5 6 7; do
		for k in a b; do
			env BUILDKITE=true BUILDKITE_BRANCH=main BUILDKITE_BUILD_NUMBER=$i \
				BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_PULL_REQUEST=false \
				tracker run -q --db h.db --key $k -- true || return 1
		done
	done &&
	sqlite3 h.db "UPDATE runs SET walltime_s = 9e999, exit_code = 99999
		WHERE rowid = (SELECT max(rowid) FROM runs WHERE key = '"'"'a'"'"')"
'

test_expect_success SQLITE3 'check of every key: the others judged, the row skipped and named once' '
	tracker check --db h.db --branch main --baseline-branch main >out 2>err;
	test $? -le 1 &&
	cat out err &&
	grep "^b  *walltime" out &&
	grep "^a  *walltime" out &&
	grep "skipped 1 stored run(s) with a figure no run can have" err &&
	grep "of key .a.: walltime_s is inf" err &&
	test "$(wc -l <err)" = 1
'

test_expect_success SQLITE3 'dashboard and history: drawn, nothing absurd printed' '
	tracker dashboard --db h.db -o dash 2>err &&
	test -f dash/index.html &&
	grep "skipped 1 stored run" err &&
	tracker history --db h.db --key a >hist 2>err &&
	cat hist &&
	test "$(wc -l <hist)" = 7 &&
	! grep -e "-[0-9]*m -" hist &&
	grep "skipped 1 stored run" err
'

# A branch that is not UTF-8 was stored raw in the column and as U+FFFD
# in the record (JSON has only UTF-8), so what a query found depended on
# where it looked.
test_expect_success SQLITE3 'a branch that is not UTF-8 is stored once, the same way in column and record' '
	env BUILDKITE=true BUILDKITE_BRANCH="$(printf "ma\377in")" BUILDKITE_BUILD_NUMBER=1 \
		tracker run -q --db u.db --key k -- true &&
	sqlite3 u.db "SELECT hex(branch), hex(json_extract(record, '"'"'\$.run.ci.branch'"'"')) FROM runs" >hex &&
	cat hex &&
	test "$(cat hex)" = "6D61EFBFBD696E|6D61EFBFBD696E"
'

test_done
