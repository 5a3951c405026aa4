#!/bin/sh
# The preload library's settings: no directory means no profiling at all,
# sample bytes 0 turns allocation profiling off, a program's own SIGPROF
# handler turns timer sampling off.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

test_expect_success PRELOAD 'without TRACKER_PROFILE_DIR: a plain pass-through, nothing written' '
	mkdir empty &&
	(cd empty && env LD_PRELOAD="$PRELOAD" "$ALLOCPATTERN" pattern >../out) &&
	"$ALLOCPATTERN" pattern >expect &&
	test_cmp expect out &&
	test -z "$(ls empty)"
'

test_expect_success PRELOAD 'a missing directory: the job still runs' '
	env TRACKER_PROFILE_DIR="$PWD/nonexistent" LD_PRELOAD="$PRELOAD" "$ALLOCPATTERN" aligned >out &&
	grep "^total 20240 6$" out &&
	! test -e nonexistent
'

test_expect_success PRELOAD 'sample bytes 0: a table without allocation samples' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=0 "$ALLOCPATTERN" pattern >out &&
	dump_all &&
	grep "^sample_bytes 0$" dump &&
	grep "^slots 0$" dump
'

test_expect_success PRELOAD 'a program that takes SIGPROF for itself is left alone' '
	profile TRACKER_PROFILE_CPU_HZ=1000 sh -c "seq 1 50000 | sort -n | tail -1" >out &&
	echo 50000 >expect &&
	test_cmp expect out
'

test_expect_success PRELOAD 'every process of a shell pipeline writes a table' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 sh -c "\"$ALLOCPATTERN\" pattern | sort >/dev/null" &&
	test $(ls prof/*.tkraw | wc -l) -ge 3
'

test_done
