#!/bin/sh
# The SQLite store: many concurrent writers into one file, URL forms,
# directories created on demand, schema and journal mode.

. "$(dirname "$0")/test-lib.sh"

test_expect_success '50 concurrent tracker run into one database all land' '
	i=0 &&
	while [ $i -lt 50 ]; do
		tracker run -q --key k --db conc.db --artifacts art -- true 2>>err &
		i=$((i + 1))
	done &&
	wait &&
	! grep -i "could not record\|locked\|busy" err &&
	tracker history --db conc.db --format csv >out &&
	test $(wc -l <out) = 51 &&
	test $(tail -n +2 out | cut -d, -f1 | sort -u | wc -l) = 50
'

test_expect_success SQLITE3 'sqlite3 sees 50 rows, WAL mode, schema version 3, a sound file' '
	test "$(sqlite3 conc.db "SELECT count(*) FROM runs")" = 50 &&
	test "$(sqlite3 conc.db "PRAGMA journal_mode")" = wal &&
	test "$(sqlite3 conc.db "PRAGMA user_version")" = 3 &&
	test "$(sqlite3 conc.db "PRAGMA integrity_check")" = ok &&
	test "$(sqlite3 conc.db "SELECT count(*) FROM runs WHERE key = '"'"'k'"'"' AND status = '"'"'ok'"'"' AND record LIKE '"'"'{%'"'"'")" = 50
'

test_expect_success 'sqlite:PATH and a bare path name the same database' '
	tracker history --db "sqlite:$PWD/conc.db" --format csv >out2 &&
	tracker history --db "$PWD/conc.db" --format csv >out3 &&
	test_cmp out2 out3 &&
	test $(wc -l <out2) = 51
'

test_expect_success 'the database directory is created when missing' '
	tracker run -q --key k --db "sqlite:deep/er/h.db" --artifacts art -- true 2>err &&
	test -f deep/er/h.db &&
	! grep "could not record" err &&
	tracker history --db deep/er/h.db --format csv >out &&
	test $(wc -l <out) = 2
'

test_expect_success 'an unknown URL scheme is a usage error' '
	test_expect_code 2 tracker history --db "mysql://host/db" 2>err &&
	grep "mysql://host/db" err
'

test_expect_success SQLITE3 'an existing database of an older schema version is migrated' '
	sqlite3 old.db "PRAGMA user_version = 0" &&
	tracker history --db old.db --format csv >out &&
	test $(wc -l <out) = 1 &&
	test "$(sqlite3 old.db "PRAGMA user_version")" = 3
'

test_done
