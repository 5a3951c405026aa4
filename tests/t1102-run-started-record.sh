#!/bin/sh
# A run has a record from its start: a tracker killed outright (SLURM's
# timeout, the OOM killer) leaves a "started" record, file and database
# row, which the final record replaces when tracker lives to write it; a
# TERM puts the partial record in the database too, not only in the file.

. "$(dirname "$0")/test-lib.sh"

row() { sqlite3 db.sqlite "SELECT status || ' ' || partial FROM runs WHERE key = '$1'"; }
has_row() { test "$(row "$1")" = "$2"; }

test_expect_success SQLITE3 'killed outright: a started record, file and row' '
	tracker run -q --key killed --db db.sqlite --artifacts art -- sh -c "touch up; exec sleep 60" &
	pid=$! &&
	wait_for test -f up &&
	wait_for has_row killed "started 1" &&
	kill -9 $pid &&
	{ wait $pid; test $? = 137; } &&
	ls art/killed-*.json >rec &&
	test $(wc -l <rec) = 1 &&
	grep "\"status\": \"started\"" $(cat rec) &&
	grep "\"partial\": true" $(cat rec)
'

test_expect_success SQLITE3 'the started record pushed again changes nothing' '
	tracker push --db db.sqlite art 2>err &&
	grep "^already stored" err &&
	test "$(row killed)" = "started 1"
'

test_expect_success SQLITE3 'the final record replaces the started one, file and row' '
	tracker run -q --key whole --db db.sqlite --artifacts art -- \
		sh -c "until sqlite3 db.sqlite \"SELECT 1 FROM runs WHERE key = '\''whole'\''\" | grep -q 1; do sleep 0.05; done; exit 3";
	test $? = 3 &&
	test "$(row whole)" = "failed 0" &&
	grep "\"status\": \"failed\"" art/whole-*.json
'

test_expect_success SQLITE3 'TERM: the partial record reaches the database while the job is stopped' '
	tracker run -q --grace 60s --key term --db db.sqlite --artifacts art -- \
		sh -c "trap \"\" TERM; touch ready; exec sleep 60" &
	pid=$! &&
	wait_for test -f ready &&
	wait_for has_row term "started 1" &&
	kill -TERM $pid &&
	wait_for has_row term "cancelled 1" &&
	kill -9 $pid &&
	{ wait $pid; test $? = 137; } &&
	grep "\"status\": \"cancelled\"" art/term-*.json
'

test_expect_success SQLITE3 'a stopped job then ends: its final record replaces the partial one' '
	tracker run -q --key term2 --db db.sqlite --artifacts art -- \
		sh -c "touch ready2; exec sleep 60" &
	pid=$! &&
	wait_for test -f ready2 &&
	kill -TERM $pid;
	wait $pid;
	test "$(row term2)" = "cancelled 0"
'

test_done
