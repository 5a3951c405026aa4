#!/bin/sh
# Readable frame names through every importer that can carry linkage
# names (core/model/demangle.c): C++ and Rust (legacy and v0) demangled, symbol
# versions dropped, two Rust hashes of one function merged; --no-demangle
# on flame, import and diff keeps the names raw.

. "$(dirname "$0")/test-lib.sh"

DB="$PWD/db.sqlite"
export TRACKER_DB="$DB" TRACKER_ARTIFACTS="$PWD/art"

test_expect_success 'folded: demangled by default, merged, other names untouched' '
	tracker flame "$FIXTURES/folded/mangled.folded" -o out.folded &&
	cat >expect <<-\EOF &&
	solver;__libc_start_main;main;_Zone (zone.py:10) 1
	solver;__libc_start_main;main;alloc::oom::oom 5
	solver;__libc_start_main;main;climate::Grid<double>::refine(int) 6
	solver;__libc_start_main;main;climate::Grid<double>::refine(int);memcpy 4
	solver;__libc_start_main;main;mycrate::example 1
	EOF
	test_cmp expect out.folded
'

test_expect_success 'folded: --no-demangle keeps every raw name' '
	tracker flame --no-demangle "$FIXTURES/folded/mangled.folded" -o raw.folded &&
	sort "$FIXTURES/folded/mangled.folded" >expect &&
	test_cmp expect raw.folded
'

test_expect_success 'perf script: demangled without parameters, like perf'"'"'s own names' '
	tracker flame "$FIXTURES/perf/mangled.perf-script" -o out.folded &&
	cat >expect <<-\EOF &&
	solver;__libc_start_main;main;alloc::oom::oom 500000
	solver;__libc_start_main;main;climate::Grid<double>::refine 250000
	solver;__libc_start_main;main;climate::Grid<double>::refine;memcpy 500000
	solver;__libc_start_main;main;mycrate::example 250000
	EOF
	test_cmp expect out.folded &&
	tracker flame --no-demangle "$FIXTURES/perf/mangled.perf-script" -o raw.folded &&
	grep -q "^solver;__libc_start_main@@GLIBC_2.34;main;_ZN5alloc3oom3oom17h722648b727b8bcd0E 250000$" raw.folded
'

test_expect_success 'pprof: function names demangled, versions dropped' '
	tracker flame "$FIXTURES/pprof/mangled.pb" -o out.folded &&
	cat >expect <<-\EOF &&
	__libc_start_main;main;alloc::oom::oom 50000000
	__libc_start_main;main;climate::Grid<double>::refine(int) 50000000
	__libc_start_main;main;mycrate::example 10000000
	EOF
	test_cmp expect out.folded &&
	tracker flame --no-demangle "$FIXTURES/pprof/mangled.pb" -o raw.folded &&
	test $(wc -l <raw.folded) = 4
'

test_expect_success 'speedscope: frame names demangled, their file:line kept' '
	tracker flame "$FIXTURES/speedscope/mangled.speedscope.json" -o out.folded &&
	cat >expect <<-\EOF &&
	main;alloc::oom::oom 5
	main;climate::Grid<double>::refine(int) (grid.cpp:42) 4
	main;mycrate::example 1
	EOF
	test_cmp expect out.folded
'

test_expect_success 'dtrace: module`symbol demangled after the module' '
	tracker flame "$FIXTURES/dtrace/mangled.txt" -o out.folded &&
	cat >expect <<-\EOF &&
	solver`main;solver`alloc::oom::oom 5
	solver`main;solver`climate::Grid<double>::refine;libc.so.1`memcpy 4
	EOF
	test_cmp expect out.folded
'

test_expect_success 'import stores readable names; --no-demangle stores raw ones, which flame reads readable' '
	tracker run -q --key dm -- true &&
	tracker import --key dm "$FIXTURES/folded/mangled.folded" 2>err &&
	tracker flame --key dm --no-demangle -o stored.folded &&
	grep -q ";main;alloc::oom::oom 5$" stored.folded &&
	tracker run -q --key raw -- true &&
	tracker import --key raw --no-demangle "$FIXTURES/folded/mangled.folded" 2>err &&
	tracker flame --key raw --no-demangle -o stored-raw.folded &&
	sort "$FIXTURES/folded/mangled.folded" >expect &&
	test_cmp expect stored-raw.folded &&
	tracker flame --key raw -o stored-read.folded &&
	grep -q ";main;alloc::oom::oom 5$" stored-read.folded &&
	! grep -q "_ZN\|@GLIBC" stored-read.folded
'

test_expect_success 'diff: both sides demangled, so mangled and readable frames match' '
	sed "s/_ZN7climate4GridIdE6refineEi/climate::Grid<double>::refine(int)/" \
		"$FIXTURES/folded/mangled.folded" >new.folded &&
	tracker diff "$FIXTURES/folded/mangled.folded" new.folded --normalize none -o d.folded &&
	grep -q "^solver;__libc_start_main;main;climate::Grid<double>::refine(int) 6 6$" d.folded &&
	! grep -q "_ZN" d.folded &&
	tracker diff --no-demangle "$FIXTURES/folded/mangled.folded" new.folded --normalize none -o raw.folded &&
	grep -q "^solver;__libc_start_main@@GLIBC_2.34;main;_ZN7climate4GridIdE6refineEi 1 0$" raw.folded
'

test_done
