#!/bin/sh
# Several `tracker push --remove` of one directory at once (CI jobs that
# each push the shared artifacts): every record is stored exactly once,
# and a file another pusher took after this one listed it counts as
# handled ("gone"), not as a failure: every pusher exits 0.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: 300 records' '
	mkdir art &&
	python3 - "$FIXTURES/records/amip-staging-101.json" <<-\PY
	import json, sys, uuid
	doc = json.load(open(sys.argv[1]))
	for i in range(300):
	    doc["run"]["id"] = str(uuid.uuid4())
	    doc["run"]["started_at_us"] = 1704873600000000 + i
	    json.dump(doc, open("art/amip-%s.json" % doc["run"]["id"], "w"))
	PY
	test $(ls art | wc -l) = 300
'

test_expect_success 'six concurrent push --remove: all exit 0' '
	for i in 1 2 3 4 5 6; do
		{ tracker push --db db.sqlite --remove art 2>err.$i; echo $? >status.$i; } &
	done &&
	wait &&
	cat status.* | sort -u >statuses &&
	echo 0 >want &&
	test_cmp want statuses
'

test_expect_success SQLITE3 'every record stored once, the directory empty' '
	test "$(sqlite3 db.sqlite "SELECT count(*), count(DISTINCT run_id) FROM runs")" = "300|300" &&
	ls -A art >left &&
	test_cmp /dev/null left
'

test_expect_success 'the pushers together account for every file' '
	cat err.* | grep -c "^stored " >stored &&
	test "$(cat stored)" = 300 &&
	! grep "error" err.*
'

test_done
