#!/bin/sh
# make install puts the program and its man page under PREFIX.

. "$(dirname "$0")/test-lib.sh"

command -v make >/dev/null 2>&1 && test_set_prereq MAKE

test_expect_success MAKE 'make install PREFIX=... installs tracker and tracker(1)' '
	make -s -C "$TRACKER_ROOT" install PREFIX="$PWD/prefix" >log 2>&1 &&
	test -x prefix/bin/tracker &&
	test -f prefix/share/man/man1/tracker.1 &&
	prefix/bin/tracker --version >version &&
	grep -x "tracker $(cat "$TRACKER_ROOT/VERSION")" version
'

test_expect_success MAKE 'DESTDIR stages the same tree' '
	make -s -C "$TRACKER_ROOT" install PREFIX=/usr/local DESTDIR="$PWD/stage" >log 2>&1 &&
	test -x stage/usr/local/bin/tracker &&
	test -f stage/usr/local/share/man/man1/tracker.1
'

test_done
