#!/bin/sh
# A tracker killed between writing its record's temporary file and
# renaming it leaves a whole record under a temporary name
# (NAME.json.tmp.PID.XXXXXXXXXXXX). tracker push recovers it once its
# writer is gone: renamed to the record's name and stored. A temporary
# file of a writer still running is left alone; an empty one (killed
# right after creating it: nothing lost) is said and removed by --remove;
# one cut short is reported (exit 65) and removed by --remove.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup: a pid that is gone, and one that runs (this script)' '
	sh -c "echo \$\$" >dead.pid &&
	dead=$(cat dead.pid) &&
	echo $$ >live.pid &&
	mkdir art &&
	rec="$FIXTURES/records/amip-staging-101.json" &&
	cp "$rec" art/amip-whole.json.tmp.$dead.0123456789ab &&
	cp "$rec" art/amip-live.json.tmp.$(cat live.pid).0123456789ab &&
	head -c 300 "$rec" >art/amip-cut.json.tmp.$dead.0123456789ac &&
	: >art/amip-empty.json.tmp.$dead.0123456789ad
'

test_expect_success 'push: the whole one recovered and stored, the cut one reported' '
	test_expect_code 65 tracker push --db db.sqlite art 2>err &&
	grep "^recovered .*amip-whole.json.tmp.* -> art/amip-whole.json" err &&
	grep "^stored .*art/amip-whole.json" err &&
	grep "amip-cut.json.tmp.*incomplete" err &&
	grep "^empty .*amip-empty.json.tmp" err &&
	grep "1 stored, 0 already stored, 1 failed" err &&
	tracker history --db db.sqlite --format csv >out &&
	test $(wc -l <out) = 2 &&
	test -f art/amip-whole.json &&
	! ls art | grep "amip-whole.json.tmp"
'

test_expect_success 'the live writer'"'"'s file is left alone' '
	ls art | grep "amip-live.json.tmp" &&
	! grep "amip-live" err
'

test_expect_success 'push --remove: the cut and the empty one are removed, the record too' '
	test_expect_code 65 tracker push --db db.sqlite --remove art 2>err &&
	grep "incomplete; removed" err &&
	grep "^empty .*amip-empty.json.tmp.* (removed)" err &&
	ls art >left &&
	grep "amip-live.json.tmp" left &&
	test $(wc -l <left) = 1 &&
	tracker push --db db.sqlite --remove art 2>err &&
	tracker history --db db.sqlite --format csv >out &&
	test $(wc -l <out) = 2
'

test_expect_success 'once the writer is gone, its file is recovered too' '
	mv art/amip-live.json.tmp.$(cat live.pid).0123456789ab \
		art/amip-live.json.tmp.$(cat dead.pid).0123456789ab &&
	tracker push --db db.sqlite --remove art 2>err &&
	grep "^recovered" err &&
	ls -A art >left &&
	test_cmp /dev/null left
'

test_done
