#!/bin/sh
# tracker killed with SIGKILL at any moment, again and again, while runs
# are written to one SQLite database: the database stays sound
# (PRAGMA integrity_check), and each run is either fully in it or kept in
# its record file, which tracker push then stores exactly once.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a few runs that end normally' '
	for i in 1 2 3; do tracker run -q --key ok --db db.sqlite --artifacts art -- true || return 1; done
'

test_expect_success '40 runs killed at random moments (0-60 ms)' '
	for i in $(seq 1 40); do
		tracker run -q --key killed --db db.sqlite --artifacts art -- sh -c "exit 3" 2>/dev/null &
		pid=$!
		sleep $(awk -v s=$i "BEGIN { srand(s); printf \"%.3f\", rand() * 0.06 }")
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
	done
	true
'

test_expect_success SQLITE3 'the database is sound' '
	test "$(sqlite3 db.sqlite "PRAGMA integrity_check")" = ok
'

test_expect_success SQLITE3 'what is in the database matches its record file' '
	python3 - <<-\PY
	import glob, json, sqlite3
	db = sqlite3.connect("db.sqlite")
	stored = dict(db.execute("SELECT run_id, status || partial FROM runs"))
	for f in glob.glob("art/*.json"):
	    run = json.load(open(f))["run"]
	    s = stored.get(run["id"])
	    # a row older than the file (started, then the file got further) is fine
	    if s is not None and s != run["status"] + str(int(run["partial"])):
	        assert s.startswith("started"), (f, s, run["status"])
	PY
'

test_expect_success SQLITE3 'push stores what is missing, each run exactly once' '
	ls art | grep -c "\.json$" >files &&
	tracker push --db db.sqlite --remove art 2>err &&
	ls -A art >left &&
	test_cmp /dev/null left &&
	test "$(sqlite3 db.sqlite "SELECT count(*) = count(DISTINCT run_id) FROM runs")" = 1 &&
	test "$(sqlite3 db.sqlite "SELECT count(*) FROM runs")" -ge "$(cat files)" &&
	tracker push --db db.sqlite art 2>err &&
	grep "0 stored, 0 already stored, 0 failed" err
'

test_expect_success SQLITE3 'runs that ended are complete; the killed ones started or complete' '
	test "$(sqlite3 db.sqlite "SELECT count(*) FROM runs WHERE key = '\''ok'\'' AND status = '\''ok'\'' AND partial = 0")" = 3 &&
	sqlite3 db.sqlite "SELECT DISTINCT status || partial FROM runs WHERE key = '\''killed'\''" >kinds &&
	! grep -v "^started1$\|^failed0$" kinds
'

test_done
