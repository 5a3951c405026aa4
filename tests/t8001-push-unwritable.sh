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

test_expect_success 'push refuses a key that run refuses: exit 65, the record kept' '
	mkdir bad &&
	sed "s/\"key\": \"amip\"/\"key\": \"am\\\\u0001ip\"/" \
		"$FIXTURES/records/amip-staging-101.json" >bad/ctl.json &&
	grep "am.u0001ip" bad/ctl.json &&
	test_expect_code 65 tracker push --db good.db --remove bad/ctl.json 2>err &&
	cat err &&
	grep "cannot push .bad/ctl.json.: invalid key .am\\\\x01ip. (5 bytes; a key is 1-200 bytes of UTF-8 text without control characters)" err &&
	grep "0 stored, 0 already stored, 1 failed" err &&
	test -f bad/ctl.json &&
	test_expect_code 2 tracker run --db good.db --key "$(printf "am\001ip")" -- true 2>err &&
	grep "invalid key .am\\\\x01ip." err
'

test_expect_success 'a key of 201 bytes is refused by push and by run alike' '
	long=$(printf "%0201d" 0) &&
	sed "s/\"key\": \"amip\"/\"key\": \"$long\"/" \
		"$FIXTURES/records/amip-staging-101.json" >bad/long.json &&
	test_expect_code 65 tracker push --db good.db bad/long.json 2>err &&
	grep "invalid key .0*\.\.\.. (201 bytes" err &&
	test_expect_code 2 tracker run --db good.db --key "$long" -- true 2>err &&
	grep "invalid key .0*\.\.\.. (201 bytes" err
'

test_done
