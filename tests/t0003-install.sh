#!/bin/sh
# make install puts the program, its preload library and its man page
# under PREFIX (or DESTDIR/PREFIX); the installed tracker finds its
# library beside itself and profiles, whatever PREFIX the build had.

. "$(dirname "$0")/test-lib.sh"

command -v make >/dev/null 2>&1 && test_set_prereq MAKE
command -v man >/dev/null 2>&1 && test_set_prereq MAN
[ -x "$TRACKER_ROOT/examples/allocpattern" ] && test_set_prereq ALLOCPATTERN

# `make install` only copies: tracker and the library are already built
# (make check builds them first), so other tests can run ./tracker meanwhile.
test_expect_success MAKE 'make install PREFIX=... installs tracker, its library and tracker(1)' '
	make -s -C "$TRACKER_ROOT" install PREFIX="$PWD/prefix" >log 2>&1 &&
	test -x prefix/bin/tracker &&
	test -f prefix/lib/tracker/libtracker-preload.so &&
	test -f prefix/share/man/man1/tracker.1 &&
	prefix/bin/tracker --version >version &&
	grep -x "tracker $(cat "$TRACKER_ROOT/VERSION")" version
'

test_expect_success MAKE,MAN 'the installed man page is found by man' '
	MANPATH="$PWD/prefix/share/man" man -w tracker >where &&
	grep "prefix/share/man/man1/tracker.1" where &&
	MANPATH="$PWD/prefix/share/man" MANWIDTH=80 man tracker 2>err | grep -q "tracker run"
'

# Nothing from the build tree may be used: run from elsewhere, with a PATH
# that does not hold the tree.
test_expect_success MAKE,ALLOCPATTERN '--profile alloc from the installed tracker stores a profile' '
	cp "$TRACKER_ROOT/examples/allocpattern" ./job &&
	mkdir elsewhere &&
	(cd elsewhere && PATH=/usr/bin:/bin ../prefix/bin/tracker run --key inst \
		--db ../inst.db --profile alloc -- ../job pattern >../out 2>../err) &&
	cat err &&
	! grep "cannot find libtracker-preload.so" err &&
	prefix/bin/tracker flame --db inst.db --key inst --kind alloc -o alloc.folded &&
	test -s alloc.folded
'

test_expect_success MAKE 'DESTDIR stages the same tree' '
	make -s -C "$TRACKER_ROOT" install PREFIX=/opt/tracker-t0003 DESTDIR="$PWD/stage" >log 2>&1 &&
	test -x stage/opt/tracker-t0003/bin/tracker &&
	test -f stage/opt/tracker-t0003/lib/tracker/libtracker-preload.so &&
	test -f stage/opt/tracker-t0003/share/man/man1/tracker.1
'

# The staged tree has a PREFIX that exists nowhere, so the library can only
# be found relative to the binary.
test_expect_success MAKE,ALLOCPATTERN 'a staged install profiles too' '
	stage/opt/tracker-t0003/bin/tracker run --key staged --db staged.db \
		--profile alloc -- ./job pattern >out 2>err &&
	cat err &&
	! grep "cannot find libtracker-preload.so" err &&
	stage/opt/tracker-t0003/bin/tracker flame --db staged.db --key staged \
		--kind alloc -o staged.folded &&
	test -s staged.folded
'

test_done
