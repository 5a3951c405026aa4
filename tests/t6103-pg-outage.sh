#!/bin/sh
# PostgreSQL going away: stopped before a run, during one, restarted while
# tracker retries, a signal during the retries, and tracker killed -9 in
# the middle of its writes. The job's status never changes; a run that
# could not be stored is in the spool (the artifacts directory) and
# `tracker push` stores it once.

. "$(dirname "$0")/pg-lib.sh"

# one attempt's worth of retrying, to keep the tests short
TRACKER_PG_RETRY_S=2
export TRACKER_PG_RETRY_S

count() {
	pg_sql -Atc "SELECT count(*) FROM runs WHERE key = '$1'"
}

test_expect_success PG 'server stopped before the run: job status kept, record spooled, pushed once' '
	tracker run -q --key setup --db "$PG_URL" -- true &&
	pg_down &&
	test_expect_code 5 tracker run --key before --db "$PG_URL" --artifacts spool -- \
		sh -c "echo job-out; exit 5" >out 2>err &&
	cat err &&
	grep -x job-out out &&
	grep "could not record the run in" err &&
	grep "store it later with: tracker push --db" err &&
	ls spool/before-*.json &&
	pg_up &&
	test "$(count before)" = 0 &&
	tracker push --db "$PG_URL" spool 2>push1 &&
	grep -x "1 stored, 0 already stored, 0 failed" push1 &&
	tracker push --db "$PG_URL" spool 2>push2 &&
	grep -x "0 stored, 1 already stored, 0 failed" push2 &&
	test "$(count before)" = 1 &&
	test "$(pg_sql -Atc "SELECT status, exit_code FROM runs WHERE key = '"'"'before'"'"'")" = "failed|5"
'

test_expect_success PG 'server stopped during the run: same' '
	rm -rf spool &&
	tracker run --key during --db "$PG_URL" --artifacts spool -- \
		sh -c "touch started; while ! test -e go; do sleep 0.05; done; exit 4" \
		>out 2>err &
	pid=$! &&
	while ! test -e started; do sleep 0.05; done &&
	pg_down &&
	touch go &&
	{ wait $pid; rc=$?; } &&
	test $rc = 4 &&
	grep "could not record the run in" err &&
	pg_up &&
	tracker push --db "$PG_URL" spool 2>push1 &&
	grep -x "1 stored, 0 already stored, 0 failed" push1 &&
	tracker push --db "$PG_URL" spool 2>push2 &&
	grep -x "0 stored, 1 already stored, 0 failed" push2 &&
	test "$(count during)" = 1
'

test_expect_success PG 'server back while tracker retries: the run is stored, no warning' '
	pg_down &&
	TRACKER_PG_RETRY_S=120 tracker run --key retried --db "$PG_URL" -- sh -c "exit 0" \
		>out 2>err &
	pid=$! &&
	sleep 1 &&
	pg_up &&
	wait $pid &&
	cat err &&
	! grep "warning" err &&
	test "$(count retried)" = 1
'

test_expect_success PG 'a SIGTERM ends the retrying at once: job status kept, record spooled' '
	pg_down &&
	rm -rf spool &&
	TRACKER_PG_RETRY_S=300 tracker run --key termed --db "$PG_URL" --artifacts spool -- \
		sh -c "touch ended; exit 6" >out 2>err &
	pid=$! &&
	while ! test -e ended; do sleep 0.05; done &&
	sleep 0.5 &&
	kill -TERM $pid &&
	n=0 &&
	while kill -0 $pid 2>/dev/null && test $n -lt 400; do sleep 0.05; n=$((n + 1)); done &&
	if kill -0 $pid 2>/dev/null; then kill -KILL $pid; false; fi &&
	{ wait $pid; rc=$?; } &&
	cat err &&
	test $rc = 6 &&
	grep "a signal arrived" err &&
	ls spool/termed-*.json &&
	pg_up
'

# tracker killed outright at varying moments, most of them while it
# stores the run: a run is either stored whole or in the spool (a run
# killed before its end as its "started" record), and pushing the spool
# stores each exactly once.
test_expect_success PG 'kill -9 during the writes: every run stored once, whole or started' '
	rm -rf spool &&
	i=0 &&
	for d in 0.01 0.02 0.03 0.04 0.05 0.06 0.08 0.1 0.12 0.15; do
		for rep in 1 2 3; do
			tracker run -q --key k9 --db "$PG_URL" --artifacts spool -- true &
			pid=$! &&
			sleep $d &&
			kill -KILL $pid 2>/dev/null;
			wait $pid;
			i=$((i + 1))
		done
	done &&
	stored=$(count k9) &&
	spooled=$(ls spool | grep -c "^k9-.*\.json$") &&
	echo "stored $stored of $spooled spooled" >&2 &&
	test "$spooled" -gt 0 &&
	test "$stored" -le "$spooled" &&
	tracker push --db "$PG_URL" spool 2>push1 &&
	tracker push --db "$PG_URL" spool 2>push2 &&
	grep -x "0 stored, $spooled already stored, 0 failed" push2 &&
	test "$(count k9)" = "$spooled" &&
	test "$(pg_sql -Atc "SELECT count(DISTINCT run_id) FROM runs WHERE key = '"'"'k9'"'"'")" = "$spooled" &&
	pg_sql -Atc "SELECT DISTINCT status || partial FROM runs WHERE key = '"'"'k9'"'"'" >kinds &&
	! grep -v "^ok0$\|^started1$" kinds &&
	ls spool | sed -n "s/^k9-\(.*\)\.json$/\1/p" | sort >want &&
	pg_sql -Atc "SELECT run_id FROM runs WHERE key = '"'"'k9'"'"' ORDER BY run_id" >got &&
	test_cmp want got &&
	tracker history --db "$PG_URL" --key k9 --format json >all.json &&
	python3 -c "import json; r = json.load(open(\"all.json\")); assert len(r) == $spooled and all(x[\"status\"] in (\"ok\", \"started\") for x in r)"
'

test_done
