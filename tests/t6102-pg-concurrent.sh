#!/bin/sh
# 100 `tracker run` at once into one database, SQLite and PostgreSQL (a
# fresh PostgreSQL database: the 100 race to migrate it too). Every run
# lands, once; no job sees an error; every status is the job's own.

. "$(dirname "$0")/pg-lib.sh"

N=100

# many DB: N runs of key conc at once into DB; run i exits i % 3.
many() {
	i=0
	while [ $i -lt $N ]; do
		tracker run -q --key conc --tag "i=$i" --db "$1" -- sh -c "exit $((i % 3))" \
			>"out.$i" 2>"err.$i" &
		eval "pid_$i=\$!"
		i=$((i + 1))
	done
	i=0
	bad=0
	while [ $i -lt $N ]; do
		eval "wait \$pid_$i"
		rc=$?
		if [ $rc != $((i % 3)) ]; then
			echo "run $i exited $rc, its job $((i % 3))"
			bad=1
		fi
		if [ -s "err.$i" ] || [ -s "out.$i" ]; then
			echo "run $i printed:"
			cat "out.$i" "err.$i"
			bad=1
		fi
		i=$((i + 1))
	done
	return $bad
}

# check DB: N rows, one per run, statuses as the jobs ended
check() {
	tracker history --db "$1" --key conc --format csv >h.csv &&
	test $(($(wc -l <h.csv) - 1)) = $N &&
	test $(cut -d, -f1 h.csv | sort -u | wc -l) = $((N + 1)) &&
	tracker history --db "$1" --key conc --format json >h.json &&
	python3 - $N <<-\PY
	import json, sys
	runs = json.load(open("h.json"))
	n = int(sys.argv[1])
	seen = sorted(int(r["tags"]["i"]) for r in runs)
	assert seen == list(range(n)), seen
	for r in runs:
	    i = int(r["tags"]["i"])
	    want = "ok" if i % 3 == 0 else "failed"
	    assert r["status"] == want and r["exit_code"] == i % 3, (i, r["status"], r["exit_code"])
	PY
}

test_expect_success '100 concurrent runs into one SQLite file' '
	many sqlite:conc.db &&
	check sqlite:conc.db
'

test_expect_success PG '100 concurrent runs into a fresh PostgreSQL database' '
	rm -f out.* err.* &&
	many "$PG_URL" &&
	check "$PG_URL" &&
	test "$(pg_sql -Atc "SELECT count(*), count(DISTINCT run_id) FROM runs")" = "$N|$N" &&
	test "$(pg_sql -Atc "SELECT version FROM tracker_schema")" = 9
'

test_done
