#!/bin/sh
# The files tracker writes get the modes the umask gives (0666 less the
# umask for files, 0777 less it for directories), like any program's:
# records, profiles, the database (SQLite: 0644 less the umask, and its
# -wal/-shm files the database's mode) and outputs. A database in a
# directory the reader may not write (another user's, a read-only mount)
# is still read by the commands that only read.

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

[ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && test_set_prereq SETPRIV

# as_nobody CMD...: CMD as user and group 65534, with no other groups
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

test_expect_success SETPRIV 'a database in a directory the reader may not write is read' '
	tracker run -q --key ro --db w.db -- true &&
	tracker run -q --key ro --db w.db -- true &&
	tracker history --db w.db --format csv >want.csv &&
	# outside the trash directory, which another user may not enter
	ro=$(mktemp -d /tmp/tracker-ro.XXXXXX) &&
	chmod 755 "$ro" && mkdir "$ro/db" "$ro/out" && chmod 777 "$ro/out" &&
	cp "$(command -v tracker)" "$ro/tracker" &&
	cp w.db "$ro/db/h.db" && chmod 444 "$ro/db/h.db" && chmod 555 "$ro/db" &&
	as_nobody "$ro/tracker" history --db "$ro/db/h.db" --format csv >got.csv 2>err &&
	test_cmp want.csv got.csv &&
	as_nobody "$ro/tracker" check --db "$ro/db/h.db" --key ro >check.txt 2>&1;
	test $? -le 1 &&
	grep "^ro  *walltime " check.txt &&
	as_nobody "$ro/tracker" dashboard --db "$ro/db/h.db" -o "$ro/out/d" --since 2000-01-01 &&
	test -s "$ro/out/d/index.html" &&
	! test -e "$ro/db/h.db-shm" &&
	as_nobody "$ro/tracker" history --db "$ro/db/nosuch.db" 2>err;
	test $? = 69 &&
	grep "no database" err;
	rc=$?;
	chmod -R u+w "$ro"; rm -rf "$ro";
	return $rc
'

test_done
