#!/bin/sh
# The files tracker writes get the modes the umask gives (0666 less the
# umask for files, 0777 less it for directories), like any program's:
# records, profiles, the database (SQLite: 0644 less the umask, and its
# -wal/-shm files the database's mode) and outputs.

. "$(dirname "$0")/test-lib.sh"

mode() { stat -c %a "$1"; }

test_expect_success 'umask 022: files 644, directories 755' '
	(umask 022 &&
	 tracker run -q --key p --db d1/db.sqlite --artifacts a1 \
		--profile-file "$FIXTURES/folded/simple.folded" -- true &&
	 tracker flame "$FIXTURES/folded/simple.folded" -o a1/out.svg) &&
	test "$(mode a1)" = 755 &&
	test "$(mode d1)" = 755 &&
	test "$(mode a1/p-*.json)" = 644 &&
	test "$(mode a1/p-*.tkprof)" = 644 &&
	test "$(mode d1/db.sqlite)" = 644 &&
	test "$(mode a1/out.svg)" = 644
'

test_expect_success 'umask 077: files 600, directories 700' '
	(umask 077 &&
	 tracker run -q --key p --db d2/db.sqlite --artifacts a2 \
		--profile-file "$FIXTURES/folded/simple.folded" -- true &&
	 tracker flame "$FIXTURES/folded/simple.folded" -o a2/out.svg) &&
	test "$(mode a2)" = 700 &&
	test "$(mode d2)" = 700 &&
	test "$(mode a2/p-*.json)" = 600 &&
	test "$(mode a2/p-*.tkprof)" = 600 &&
	test "$(mode d2/db.sqlite)" = 600 &&
	test "$(mode a2/out.svg)" = 600
'

test_expect_success 'umask 002 (a shared group directory): records 664, the database 644' '
	(umask 002 && tracker run -q --key p --db d3/db.sqlite --artifacts a3 -- true) &&
	test "$(mode a3)" = 775 &&
	test "$(mode a3/p-*.json)" = 664 &&
	test "$(mode d3/db.sqlite)" = 644
'

test_done
