#!/bin/sh
# Every PostgreSQL statement has a deadline: with `LOCK TABLE runs` held
# by another session, tracker run gives up after the lock timeout
# (TRACKER_PG_TIMEOUT_S), keeps the record for push and exits with the
# job's status, as it does when SQLite stays locked; it used to wait for
# as long as the lock was held. Readers get the same bound.

. "$(dirname "$0")/pg-lib.sh"

TRACKER_PG_TIMEOUT_S=2
export TRACKER_PG_TIMEOUT_S

# hold_lock SECONDS: a session (application_name locker) holding LOCK
# TABLE runs that long, in the background; ./locked exists once the lock
# is taken. release_lock ends it.
hold_lock() {
	rm -f locked &&
	{ PGAPPNAME=locker pg_sql -c "BEGIN" -c "LOCK TABLE runs" -c "\\! touch locked" \
		-c "SELECT pg_sleep($1)" -c "COMMIT" >/dev/null 2>&1 & } &&
	i=0 && while ! test -e locked && test $i -lt 100; do sleep 0.1; i=$((i + 1)); done &&
	test -e locked
}

release_lock() {
	pg_sql -Atc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'locker'" >/dev/null
	wait
}

count() {
	pg_sql -Atc "SELECT count(*) FROM runs WHERE key = '$1'"
}

test_expect_success PG 'setup: the schema exists' '
	tracker run -q --key setup --db "$PG_URL" -- true &&
	test "$(count setup)" = 1
'

test_expect_success PG 'a held lock: run spools within the timeout and keeps the job status' '
	hold_lock 60 &&
	start=$(date +%s) &&
	test_expect_code 3 timeout 40 tracker run --key locked --db "$PG_URL" \
		--artifacts spool -- sh -c "exit 3" 2>err &&
	end=$(date +%s) &&
	cat err &&
	test $((end - start)) -lt 20 &&
	grep "could not record the run in" err &&
	grep "lock timeout\|statement timeout" err &&
	ls spool/locked-*.json &&
	release_lock &&
	test "$(count locked)" = 0 &&
	tracker push --db "$PG_URL" spool 2>push &&
	grep -x "1 stored, 0 already stored, 0 failed" push &&
	test "$(count locked)" = 1
'

test_expect_success PG 'a held lock: a reader exits 69 within the timeout' '
	hold_lock 60 &&
	start=$(date +%s) &&
	test_expect_code 69 timeout 40 tracker history --db "$PG_URL" --key setup 2>err &&
	end=$(date +%s) &&
	release_lock &&
	cat err &&
	test $((end - start)) -lt 20 &&
	grep "lock timeout\|statement timeout" err
'

test_expect_success PG 'the URL may set its own timeouts: its options come after ours' '
	hold_lock 8 &&
	start=$(date +%s) &&
	tracker run -q --key later --artifacts spool2 \
		--db "$PG_URL?options=-c%20statement_timeout%3D30000%20-c%20lock_timeout%3D30000" \
		-- true 2>err &&
	end=$(date +%s) &&
	wait;
	test $((end - start)) -ge 4 &&
	! test -s err &&
	test "$(count later)" = 1
'

test_done
