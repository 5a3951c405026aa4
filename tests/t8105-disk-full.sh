#!/bin/sh
# A full disk: the job's status is kept; the record is kept in its file
# when only the database's disk is full, else tracker warns; no temporary
# file is left behind. A small tmpfs is the full disk (root only; the
# file size limit, which needs no privilege, is t1101's).

. "$(dirname "$0")/test-lib.sh"

if [ "$(id -u)" = 0 ] && mkdir full && mount -t tmpfs -o size=1m tmpfs full 2>/dev/null; then
	test_set_prereq FULLDISK
fi

test_expect_success FULLDISK 'setup: fill the disk' '
	head -c 2000000 /dev/zero >full/filler 2>/dev/null;
	test "$(df -P full | awk "NR == 2 { print \$4 }")" = 0
'

test_expect_success FULLDISK 'the database on the full disk: status kept, record kept for push' '
	test_expect_code 5 tracker run --key df --db full/db.sqlite --artifacts art -- sh -c "exit 5" 2>err &&
	grep "could not record the run in .full/db.sqlite." err &&
	grep "tracker push" err &&
	ls art/df-*.json
'

test_expect_success FULLDISK 'the records on the full disk too: status kept, a warning, no litter' '
	tracker run --key df --db full/db2.sqlite --artifacts full/art -- true 2>err &&
	grep "cannot write the run record" err &&
	! ls full/art 2>/dev/null | grep . &&
	! ls full | grep "tmp"
'

test_expect_success FULLDISK 'room again: push stores the kept record' '
	rm full/filler &&
	tracker push --db full/db.sqlite --remove art 2>err &&
	grep "^stored" err &&
	tracker history --db full/db.sqlite --format csv >out &&
	test "$(csv_field out 1 exit_code)" = 5
'

if test_have_prereq FULLDISK; then
	umount full
fi

test_done
