#!/bin/sh
# An unwritable database never changes the job's exit status; the record
# stays under --artifacts and `tracker push` stores it later, exactly once.

. "$(dirname "$0")/test-lib.sh"

# Tests may run as root, which ignores permissions: a database whose
# directory would have to be made under a regular file cannot be created
# by anyone.
test_expect_success 'setup' '
	echo "not a directory" >afile
'

test_expect_success 'the job status survives an unwritable database' '
	test_expect_code 3 tracker run --key k --db "$PWD/afile/db.sqlite" \
		--artifacts art -- sh -c "exit 3" 2>err &&
	grep "afile/db.sqlite" err &&
	grep "tracker push" err
'

test_expect_success 'a successful job stays successful' '
	tracker run --key k --db "$PWD/afile/db.sqlite" --artifacts art2 -- true 2>err &&
	grep "tracker push" err
'

test_expect_success 'the record file is left under --artifacts' '
	ls art/k-*.json >records &&
	test $(wc -l <records) = 1 &&
	grep "\"format\": \"tracker-run\"" $(cat records)
'

test_expect_success 'pushing to the still-bad database exits 69 and keeps the file' '
	test_expect_code 69 tracker push --db "$PWD/afile/db.sqlite" art 2>err &&
	grep "afile/db.sqlite" err &&
	test $(ls art/k-*.json | wc -l) = 1
'

test_expect_success 'tracker push stores it once' '
	tracker push --db good.db $(cat records) 2>err &&
	grep "^stored " err &&
	tracker history --db good.db --format csv >out &&
	test $(wc -l <out) = 2 &&
	test "$(csv_field out 1 exit_code)" = 3 &&
	test "$(csv_field out 1 status)" = failed
'

test_expect_success 'pushing again stores nothing and says already stored' '
	tracker push --db good.db art 2>err &&
	grep "^already stored " err &&
	grep "0 stored, 1 already stored" err &&
	tracker history --db good.db --format csv >out &&
	test $(wc -l <out) = 2
'

test_done
