#!/bin/sh
# The preload library's CPU sampling fallback: per-thread CPU-time timers
# (TRACKER_PROFILE_CPU_HZ) delivering SIGPROF.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

test_expect_success PRELOAD 'spin: CPU samples at the spinning functions, not more than the CPU used' '
	profile TRACKER_PROFILE_CPU_HZ=500 TRACKER_PROFILE_SAMPLE_BYTES=0 "$ALLOCPATTERN" spin 0.6 >out &&
	dump_all &&
	grep "^cpu_period_ns 2000000$" dump &&
	used=$(sed -n "s/^cpu_ns //p" out) &&
	total=$(awk "\$1 == \"slot\" { s += \$7 } END { printf \"%.0f\", s }" dump) &&
	test_within $total 1 $(awk -v u=$used "BEGIN { printf \"%.0f\", u * 1.5 }") &&
	inner=$(awk "\$1 == \"slot\" && / spin_inner spin_middle spin_outer main / { s += \$7 } END { printf \"%.0f\", s }" dump) &&
	test_within $inner 1 $total &&
	grep "^slot [0-9]* 1 0 0.000 0 [1-9]" dump &&
	! grep "^slot [0-9]* 0 " dump
'

test_expect_success PRELOAD 'CPU and allocation profiles together in one table' '
	profile TRACKER_PROFILE_CPU_HZ=500 TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" spin 0.3 >out &&
	dump_all &&
	grep "^slot [0-9]* 1 0 0.000 0 [1-9]" dump &&
	grep "^slot [0-9]* 0 [1-9]" dump
'

test_expect_success PRELOAD 'system calls under the timer: no EINTR, no failure' '
	profile TRACKER_PROFILE_CPU_HZ=1000 "$ALLOCPATTERN" syscalls 0.6 >out &&
	dump_all &&
	test "$(sed -n "s/^syscalls //p" out)" -gt 0 &&
	total=$(awk "\$1 == \"slot\" { s += \$7 } END { printf \"%.0f\", s }" dump) &&
	test "$total" -gt 0
'

test_expect_success PRELOAD 'a shell pipeline and sleep under the timer behave' '
	profile TRACKER_PROFILE_CPU_HZ=1000 sh -c "seq 1 20000 | sort -n | tail -1; sleep 0.2; echo done" >out &&
	printf "20000\ndone\n" >expect &&
	test_cmp expect out
'

test_expect_success PRELOAD 'an exec after sampling does not kill the new program with SIGPROF' '
	profile TRACKER_PROFILE_CPU_HZ=1000 sh -c "i=0; while [ \$i -lt 20000 ]; do i=\$((i+1)); done; exec env -u LD_PRELOAD \"$ALLOCPATTERN\" spin 0.1" >out &&
	grep "^cpu_ns " out
'

test_expect_success PRELOAD 'no CPU sampling without TRACKER_PROFILE_CPU_HZ' '
	profile "$ALLOCPATTERN" spin 0.2 >out &&
	dump_all &&
	grep "^cpu_period_ns 0$" dump &&
	! grep "^slot [0-9]* 1 " dump
'

test_done
