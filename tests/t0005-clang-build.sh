#!/bin/sh
# clang builds tracker, its preload library and the tests (unit tests,
# helpers, examples) warning-free with the strict set (make CC=clang
# DEVELOPER=1 build-tests), so CI catches what only clang warns about
# (format attributes, alignments it checks at compile time); gcc's strict
# build is make check's own. The
# build runs in a copy of the sources: the tree's objects, which the other
# tests are using, are gcc's. It builds at -O0: clang's warnings come from
# its front end, the same at every level, and -O0 takes a third of the time.

. "$(dirname "$0")/test-lib.sh"

command -v clang >/dev/null 2>&1 && command -v make >/dev/null 2>&1 && test_set_prereq CLANG

test_expect_success CLANG 'make CC=clang DEVELOPER=1 builds tracker and the tests with no warning' '
	mkdir -p src/tests/unit src/tests/helpers src/examples src/bench &&
	(cd "$TRACKER_ROOT" && cp -r Makefile VERSION core plugins cmd "$TRASH_DIRECTORY/src/" &&
	 cp tests/unit/*.[ch] "$TRASH_DIRECTORY/src/tests/unit/" &&
	 cp tests/helpers/*.c "$TRASH_DIRECTORY/src/tests/helpers/" &&
	 cp examples/*.c "$TRASH_DIRECTORY/src/examples/" &&
	 cp bench/*.h "$TRASH_DIRECTORY/src/bench/") &&
	find src -name "*.[od]" -delete &&
	make -s -C src -j2 CC=clang CFLAGS=-O0 DEVELOPER=1 build-tests >log 2>&1 ||
	{ cat log; false; } &&
	cat log &&
	! grep -i "warning" log &&
	src/tracker --version
'

test_done
