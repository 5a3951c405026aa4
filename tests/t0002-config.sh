#!/bin/sh
# .tracker.yml end to end: where it is found, what a broken one does to each
# command, and the order db: / $TRACKER_DB / --db.
. "$(dirname "$0")/test-lib.sh"

# Each test writes the .tracker.yml it needs; none may leak into the next.
rm_config() { rm -f .tracker.yml; }

test_expect_success 'a malformed .tracker.yml fails history with 65 and its position' '
	printf "db: history.db\nkeys:\n  amip:\n\ttimeout: 2h\n" >.tracker.yml &&
	test_expect_code 65 tracker history >out 2>err &&
	rm_config &&
	grep "\.tracker\.yml:4:1: " err &&
	grep "tab" err &&
	! test -s out
'

test_expect_success 'an unknown field is an error naming field and position' '
	printf "db: history.db\nbaseline-branch: main\n" >.tracker.yml &&
	test_expect_code 65 tracker history 2>err &&
	rm_config &&
	grep "\.tracker\.yml:2:1: unknown field .baseline-branch." err
'

test_expect_success 'a wrong type is an error at the value' '
	printf "db: history.db\nkeys: [a, b]\n" >.tracker.yml &&
	test_expect_code 65 tracker history 2>err &&
	rm_config &&
	grep "\.tracker\.yml:2:7: .keys. must be a mapping" err
'

test_expect_success 'a bad timeout is an error at the value' '
	printf "keys:\n  amip:\n    timeout: two hours\n" >.tracker.yml &&
	test_expect_code 65 tracker history 2>err &&
	rm_config &&
	grep "\.tracker\.yml:3:14: bad timeout" err
'

test_expect_success 'the nearest parent directory'"'"'s .tracker.yml is used' '
	mkdir -p project/src/deep &&
	printf "bogus: 1\n" >project/.tracker.yml &&
	(cd project/src/deep && test_expect_code 65 tracker history 2>../../../err) &&
	grep "project/\.tracker\.yml:1:1: unknown field" err &&
	printf "db: parent.db\n" >project/.tracker.yml &&
	(cd project && tracker run --key in-parent -- true) &&
	(cd project/src/deep && tracker history --format csv >../../../out) &&
	grep ",in-parent," out &&
	rm -rf project
'

test_expect_success 'TRACKER_CONFIG names the config file' '
	printf "bogus: 1\n" >elsewhere.yml &&
	TRACKER_CONFIG=$PWD/elsewhere.yml &&
	export TRACKER_CONFIG &&
	test_expect_code 65 tracker history 2>err;
	rc=$?;
	unset TRACKER_CONFIG;
	test $rc = 0 &&
	grep "elsewhere\.yml:1:1: unknown field .bogus." err
'

test_expect_success 'a missing TRACKER_CONFIG file is an error naming it' '
	TRACKER_CONFIG=$PWD/no-such.yml &&
	export TRACKER_CONFIG &&
	test_expect_code 65 tracker history 2>err;
	rc=$?;
	unset TRACKER_CONFIG;
	test $rc = 0 &&
	grep "no-such\.yml" err
'

test_expect_success 'TRACKER_CONFIG=/dev/null ignores a broken .tracker.yml' '
	printf "bogus: 1\n" >.tracker.yml &&
	tracker run --db devnull.db --key k -- true &&
	TRACKER_CONFIG=/dev/null tracker history --db devnull.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",k," out
'

test_expect_success 'run still runs the job with a malformed config, and warns' '
	printf "db: [unclosed\n" >.tracker.yml &&
	test_expect_code 5 tracker run --db broken.db --key k -- sh -c "echo ran >job-ran; exit 5" 2>err;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	test -f job-ran &&
	grep "\.tracker\.yml:2:1: " err
'

test_expect_success 'an empty .tracker.yml is valid' '
	: >.tracker.yml &&
	tracker run --db empty.db --key k -- true &&
	tracker history --db empty.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",k," out
'

test_expect_success 'setup: three databases with one run each' '
	tracker run --db config.db --key from-config -- true &&
	tracker run --db env.db --key from-env -- true &&
	tracker run --db option.db --key from-option -- true
'

test_expect_success 'db: in .tracker.yml is the database of history' '
	printf "db: config.db\n" >.tracker.yml &&
	tracker history --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-config," out &&
	! grep ",from-env," out
'

test_expect_success 'db: accepts a sqlite: URL' '
	printf "db: sqlite:config.db\n" >.tracker.yml &&
	tracker history --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-config," out
'

test_expect_success '$TRACKER_DB overrides db:' '
	printf "db: config.db\n" >.tracker.yml &&
	TRACKER_DB=env.db tracker history --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-env," out &&
	! grep ",from-config," out
'

test_expect_success '--db overrides $TRACKER_DB and db:' '
	printf "db: config.db\n" >.tracker.yml &&
	TRACKER_DB=env.db tracker history --db option.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-option," out &&
	! grep ",from-env," out &&
	! grep ",from-config," out
'

test_expect_success 'db: is where run records' '
	printf "db: config.db\n" >.tracker.yml &&
	tracker run --key recorded-by-config -- true &&
	tracker history --db config.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",recorded-by-config," out
'

test_expect_success 'artifacts: is where run writes its record' '
	printf "db: config.db\nartifacts: my-records\n" >.tracker.yml &&
	tracker run --key art -- true;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	test -d my-records &&
	find my-records -type f -name "*.json" | grep .
'

test_done
