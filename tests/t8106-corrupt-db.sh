#!/bin/sh
# A corrupt database file: the job's status is kept, the record is kept
# in its file, and the message says what is wrong with which file.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a file of garbage, and a database with a broken page' '
	head -c 16384 /dev/urandom >garbage.sqlite &&
	tracker run -q --key ok --db broken.sqlite --artifacts art0 -- true &&
	python3 -c "
f = open(\"broken.sqlite\", \"r+b\")
f.seek(100)
f.write(b\"\\xff\" * 3000)
" &&
	rm -f broken.sqlite-wal broken.sqlite-shm
'

test_expect_success 'garbage: the job status, a clear message, the record kept' '
	test_expect_code 4 tracker run --key c --db garbage.sqlite --artifacts art -- sh -c "exit 4" 2>err &&
	grep "could not record the run in .garbage.sqlite.:.*garbage.sqlite.*not a database" err &&
	grep "tracker push" err &&
	ls art/c-*.json
'

test_expect_success 'a broken page: the job status, a clear message, the record kept' '
	tracker run --key c --db broken.sqlite --artifacts art2 -- true 2>err &&
	grep "could not record the run in .broken.sqlite.:.*broken.sqlite.*malformed" err &&
	ls art2/c-*.json
'

test_expect_success 'push to a sound database stores them' '
	tracker push --db good.sqlite art art2 2>err &&
	grep "2 stored" err
'

test_expect_success 'push to the corrupt one: exit 69, the files kept' '
	test_expect_code 69 tracker push --db garbage.sqlite art 2>err &&
	grep "not a database" err &&
	ls art/c-*.json
'

test_expect_success SQLITE3 'a command that only reads leaves another program'"'"'s database alone' '
	sqlite3 other.db "CREATE TABLE notes (x); INSERT INTO notes VALUES (1);" &&
	for c in "history" "check" "history --plot o.svg --key k" "dashboard -o d"; do
		test_expect_code 69 tracker $c --db other.db 2>err &&
		grep "is not a tracker database" err || return 1
	done &&
	test "$(sqlite3 other.db .tables)" = notes
'

test_done
