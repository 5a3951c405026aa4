#!/bin/sh
# 100 `tracker run` at once into one SQLite database (an array job's
# tasks ending together): 100 rows, and nothing the jobs would see: no
# warning, every job's own status.

. "$(dirname "$0")/test-lib.sh"

test_expect_success '100 concurrent runs, each with its own status' '
	i=0 &&
	while [ $i -lt 100 ]; do
		{ tracker run -q --key "k$((i % 7))" --db db.sqlite --artifacts art \
			-- sh -c "exit $((i % 5))" 2>err.$i; echo $? >status.$i; } &
		i=$((i + 1))
	done &&
	wait &&
	i=0 &&
	while [ $i -lt 100 ]; do
		test "$(cat status.$i)" = $((i % 5)) || return 1
		i=$((i + 1))
	done
'

test_expect_success 'no error nor warning visible to the jobs' '
	cat err.* >all-err &&
	test_cmp /dev/null all-err
'

test_expect_success '100 rows, complete, each status as its job ended' '
	tracker history --db db.sqlite --format csv >out &&
	test $(wc -l <out) = 101 &&
	python3 - <<-\PY
	import csv
	rows = list(csv.DictReader(open("out")))
	assert len({r["run_id"] for r in rows}) == 100
	assert all(r["partial"] == "0" for r in rows), [r for r in rows if r["partial"] != "0"]
	codes = sorted(int(r["exit_code"]) for r in rows)
	assert codes == sorted(i % 5 for i in range(100)), codes
	PY
'

test_done
