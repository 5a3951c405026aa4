#!/bin/sh
# The commands that only read have a statement deadline of their own:
# with `LOCK TABLE runs` held by another session, or a statement that
# does not end, history, check, dashboard, report and diff give up after
# the readers' deadline (30 s, TRACKER_PG_READ_TIMEOUT_S; their 4 s
# bound covers connecting only) with exit 69 naming the timeout, while
# tracker run, a writer, keeps the writers' longer deadline
# (TRACKER_PG_TIMEOUT_S, 120 s) and stores its run once the lock is
# gone. Readers used to wait as long as the writers.

. "$(dirname "$0")/pg-lib.sh"

TRACKER_PG_READ_TIMEOUT_S=2
export TRACKER_PG_READ_TIMEOUT_S

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

# reader_gives_up CMD...: exits 69 within 15 s, naming the timeout
reader_gives_up() {
	start=$(date +%s) &&
	test_expect_code 69 timeout 60 "$@" 2>err &&
	end=$(date +%s) &&
	cat err &&
	test $((end - start)) -lt 15 &&
	grep "lock timeout\|statement timeout" err
}

test_expect_success PG 'setup: two runs of a key' '
	tracker run -q --key setup --db "$PG_URL" -- true &&
	tracker run -q --key setup --db "$PG_URL" -- true &&
	test "$(count setup)" = 2
'

test_expect_success PG 'a held lock: every reader exits 69 within its deadline' '
	hold_lock 120 &&
	reader_gives_up tracker history --db "$PG_URL" --key setup &&
	reader_gives_up tracker history --db "$PG_URL" --format csv &&
	reader_gives_up tracker check --db "$PG_URL" --key setup &&
	reader_gives_up tracker dashboard --db "$PG_URL" -o dash &&
	reader_gives_up tracker diff --db "$PG_URL" --key setup &&
	reader_gives_up tracker report --db "$PG_URL" --artifacts rep &&
	release_lock
'

test_expect_success PG 'the same lock: a writer keeps the longer deadline and stores its run' '
	hold_lock 5 &&
	start=$(date +%s) &&
	tracker run -q --key writer --db "$PG_URL" --artifacts spool -- true 2>err &&
	end=$(date +%s) &&
	wait &&
	cat err &&
	! test -s err &&
	test $((end - start)) -ge 3 &&
	test "$(count writer)" = 1
'

test_expect_success PG 'a statement that does not end (pg_sleep in a view): the reader gives up' '
	pg_sql -c "CREATE FUNCTION slow_key() RETURNS text LANGUAGE sql AS
		\$\$ SELECT pg_sleep(120)::text \$\$" &&
	pg_sql -c "ALTER TABLE runs RENAME TO runs_real" &&
	pg_sql -c "CREATE VIEW runs AS SELECT * FROM runs_real WHERE slow_key() IS NOT NULL" &&
	reader_gives_up tracker history --db "$PG_URL" --key setup;
	ret=$?;
	pg_sql -c "DROP VIEW runs" -c "ALTER TABLE runs_real RENAME TO runs" &&
	test $ret = 0 &&
	tracker history --db "$PG_URL" --key setup >out &&
	test $(grep -c setup out) = 2
'

test_expect_success PG 'TRACKER_PG_TIMEOUT_S may shorten the readers deadline, not lengthen it' '
	hold_lock 120 &&
	reader_gives_up env TRACKER_PG_TIMEOUT_S=600 tracker history --db "$PG_URL" --key setup &&
	reader_gives_up env TRACKER_PG_READ_TIMEOUT_S=600 TRACKER_PG_TIMEOUT_S=1 \
		tracker history --db "$PG_URL" --key setup &&
	release_lock
'

test_done
