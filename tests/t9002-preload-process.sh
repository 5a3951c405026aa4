#!/bin/sh
# The preload library across threads, fork, exec, a static binary and
# deaths by signal.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

test_expect_success PRELOAD 'threads: every thread counted, stacks start at the thread function' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" threads 8 >out &&
	dump_all &&
	test "$(site_field thread_worker 4)" = "$(printed thread_worker 3)" &&
	test "$(site_field thread_worker 5)" = "$(printed thread_worker 4)" &&
	test "$(grep -c "^file " dump)" = 1
'

test_expect_success PRELOAD 'fork: parent and child each write their own table' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" fork >out &&
	dump_all &&
	test "$(grep -c "^file " dump)" = 2 &&
	child=$(sed -n "s/^pid //p" out | head -1) &&
	parent=$(sed -n "s/^pid //p" out | tail -1) &&
	test "$child" != "$parent" &&
	"$RAWDUMP" -s prof/$parent.0.tkraw >p &&
	"$RAWDUMP" -s prof/$child.0.tkraw >c &&
	grep "^ppid $parent$" c &&
	grep "^slot 6 0 70000 1.000 .* fork_parent_site run_fork main" p &&
	grep "^slot 6 0 50000 1.000 .* fork_child_site run_fork main" c &&
	! grep fork_child_site p &&
	! grep fork_parent_site c &&
	grep "^exited 1$" p && grep "^exited 1$" c
'

test_expect_success PRELOAD 'fork+exec: the exec gives the same pid a new table, seq 1' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" forkexec >out &&
	child=$(sed -n "s/^pid //p" out | head -1) &&
	test -f prof/$child.0.tkraw &&
	test -f prof/$child.1.tkraw &&
	"$RAWDUMP" -s prof/$child.0.tkraw >before &&
	"$RAWDUMP" -s prof/$child.1.tkraw >after &&
	grep "^exited 1$" before &&
	grep "^seq 1$" after &&
	grep "^slot .* pattern_mib_leaf pattern_mib_mid run_pattern main" after &&
	! grep pattern_mib_leaf before &&
	test $(grep -c "^# snapshot$" prof/$child.0.maps) -ge 2
'

test_expect_success PRELOAD 'a static binary ignores the library: no files, same output' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN-static" pattern >out &&
	"$ALLOCPATTERN" pattern >expect &&
	test_cmp expect out &&
	test -z "$(ls prof)"
'

test_expect_success PRELOAD 'SIGKILL: data present, not marked as exited' '
	rm -rf prof && mkdir prof &&
	{ env TRACKER_PROFILE_DIR="$PWD/prof" TRACKER_PROFILE_SAMPLE_BYTES=1 LD_PRELOAD="$PRELOAD" \
		"$ALLOCPATTERN" killself KILL >out; test $? = 137; } &&
	dump_all &&
	test "$(site_field killself_site 4)" = 123456 &&
	grep "^exited 0$" dump
'

test_expect_success PRELOAD 'SIGSEGV: data present, the program still dies of the signal' '
	rm -rf prof && mkdir prof &&
	{ env TRACKER_PROFILE_DIR="$PWD/prof" TRACKER_PROFILE_SAMPLE_BYTES=1 LD_PRELOAD="$PRELOAD" \
		"$ALLOCPATTERN" killself SEGV >out; test $? = 139; } &&
	dump_all &&
	test "$(site_field killself_site 4)" = 123456 &&
	test $(grep -c "^# snapshot$" prof/*.maps) -ge 2
'

test_expect_success PRELOAD 'SIGTERM: the program still dies of the signal' '
	rm -rf prof && mkdir prof &&
	{ env TRACKER_PROFILE_DIR="$PWD/prof" LD_PRELOAD="$PRELOAD" \
		"$ALLOCPATTERN" killself TERM >out; test $? = 143; } &&
	test -n "$(ls prof/*.tkraw)"
'

test_done
