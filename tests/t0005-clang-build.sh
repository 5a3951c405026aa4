#!/bin/sh
# clang builds tracker and its preload library warning-free with the strict
# set (make CC=clang DEVELOPER=1), so CI catches what only clang warns
# about (format attributes, alignments it checks at compile time). The
# build runs in a copy of the sources: the tree's objects, which the other
# tests are using, are gcc's. It builds at -O0: clang's warnings come from
# its front end, the same at every level, and -O0 takes a third of the time.

. "$(dirname "$0")/test-lib.sh"

command -v clang >/dev/null 2>&1 && command -v make >/dev/null 2>&1 && test_set_prereq CLANG

test_expect_success CLANG 'make CC=clang DEVELOPER=1 builds tracker with no warning' '
	mkdir src &&
	(cd "$TRACKER_ROOT" && cp -r Makefile VERSION core plugins cmd "$TRASH_DIRECTORY/src/") &&
	find src -name "*.[od]" -delete &&
	make -s -C src -j2 CC=clang CFLAGS=-O0 DEVELOPER=1 tracker libtracker-preload.so >log 2>&1 ||
	{ cat log; false; } &&
	cat log &&
	! grep -i "warning" log &&
	src/tracker --version
'

test_done
