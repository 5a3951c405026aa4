#!/bin/sh
# A CI cancel is honoured while tracker waits for the database: a TERM
# that comes while a locked SQLite database is retried (up to two minutes)
# ends the wait at once; tracker exits with the job's status and the
# record stays in its file, for tracker push.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a database, then a writer that holds its lock' '
	tracker run -q --key setup --db db.sqlite --artifacts art0 -- true &&
	python3 -c "
import sqlite3, time
c = sqlite3.connect(\"db.sqlite\", isolation_level=None)
c.execute(\"BEGIN EXCLUSIVE\")
open(\"locked\", \"w\").close()
time.sleep(300)
" &
	echo $! >locker.pid &&
	wait_for test -f locked
'

test_expect_success 'TERM during the wait: tracker exits at once, with the job status' '
	tracker run --key wait --db db.sqlite --artifacts art -- sh -c "exit 3" 2>err &
	pid=$! &&
	sleep 1 &&
	kill -TERM $pid &&
	{ wait $pid; status=$?; } &&
	echo "tracker exited $status" &&
	test $status = 3 &&
	kill -0 $(cat locker.pid) &&
	grep "cancelled while waiting for database" err &&
	grep "tracker push" err
'

test_expect_success 'the record is kept, and pushed once the lock is gone' '
	kill $(cat locker.pid) &&
	ls art/wait-*.json &&
	grep "\"status\": \"failed\"" art/wait-*.json &&
	tracker push --db db.sqlite art 2>err &&
	tracker history --db db.sqlite --key wait --format csv >out &&
	test "$(csv_field out 1 exit_code)" = 3 &&
	test "$(csv_field out 1 partial)" = 0
'

test_done
