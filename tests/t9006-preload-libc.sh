#!/bin/sh
# The preload library must be invisible to the job: the malloc family's
# corner cases, errno, signal semantics, the job's descriptors and file
# size limit; and its numbers must stay right at the edges (small sampling
# intervals, more live blocks than it can track).

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

command -v timeout >/dev/null 2>&1 && test_set_prereq TIMEOUT

test_expect_success PRELOAD 'malloc family corner cases: the same results as glibc alone, errno kept' '
	"$ALLOCPATTERN" edge >expect &&
	grep "^edge errno_kept 2000/2000$" expect &&
	for u in auto fp libunwind; do
		profile TRACKER_PROFILE_SAMPLE_BYTES=1 TRACKER_PROFILE_UNWIND=$u "$ALLOCPATTERN" edge >out &&
		test_cmp expect out || return 1
	done &&
	profile TRACKER_PROFILE_SAMPLE_BYTES=64 "$ALLOCPATTERN" edge >out &&
	test_cmp expect out
'

test_expect_success PRELOAD 'failed allocations, even of 0 bytes, are not counted' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" edge >out &&
	dump_all &&
	test "$(site_field edge_fail_site 5)" = 0 &&
	test "$(site_field edge_errno_depth 5)" = 400
'

test_expect_success PRELOAD 'a small sampling interval is unbiased (2 bytes, 1-byte blocks)' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=2 TRACKER_PROFILE_SEED=7 "$ALLOCPATTERN" tiny 200000 >out &&
	dump_all &&
	test_within $(site_field tiny_site 4) 194000 206000 &&
	test_within $(site_field tiny_site 5) 194000 206000
'

# 1.2 million live blocks: more than the live table holds. Blocks it
# cannot track must not stay "live" for good and inflate later peaks.
test_expect_success PRELOAD 'more live blocks than tracked: the peak is never above the truth' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" manylive 1200000 2 >out &&
	dump_all &&
	test "$(site_field manylive_site 5)" = 2400000 &&
	test_within $(site_field manylive_site 6) 9600000 19200000
'

test_expect_success PRELOAD,TIMEOUT 'siginterrupt and signal(): a read still ends with EINTR' '
	echo "read -1 EINTR" >expect &&
	"$ALLOCPATTERN" sigintr >out &&
	test_cmp expect out &&
	profile TRACKER_PROFILE_CPU_HZ=1000 timeout 10 "$ALLOCPATTERN" sigintr >out &&
	test_cmp expect out
'

test_expect_success PRELOAD 'a job that closes every descriptor: its files get none of ours' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" closefds &&
	echo hello >expect &&
	test_cmp expect closefds.out &&
	test $(grep -c "^# snapshot$" prof/*.maps) -ge 2
'

test_expect_success PRELOAD 'a file size limit below the table size: no profile, the job unharmed' '
	rm -rf prof && mkdir prof &&
	(ulimit -f 2000 && env TRACKER_PROFILE_DIR="$PWD/prof" LD_PRELOAD="$PRELOAD" \
		"$ALLOCPATTERN" aligned >out) &&
	grep "^total 20240 6$" out &&
	test -z "$(ls prof)"
'

test_expect_success PRELOAD 'a real fault (not raise): the job dies of SIGSEGV, its profile kept' '
	rm -rf prof && mkdir prof &&
	{ env TRACKER_PROFILE_DIR="$PWD/prof" TRACKER_PROFILE_SAMPLE_BYTES=1 LD_PRELOAD="$PRELOAD" \
		"$ALLOCPATTERN" fault >out; test $? = 139; } &&
	dump_all &&
	test "$(site_field killself_site 4)" = 123456 &&
	test $(grep -c "^# snapshot$" prof/*.maps) -ge 2
'

test_expect_success PRELOAD 'the job'"'"'s own SIGSEGV handler: it sees SIG_DFL replaced and recovers' '
	"$ALLOCPATTERN" segvcatch >expect &&
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 TRACKER_PROFILE_CPU_HZ=1000 "$ALLOCPATTERN" segvcatch >out &&
	test_cmp expect out
'

test_expect_success PRELOAD 'the job'"'"'s own SIGPROF profiler gets no signal of ours' '
	echo "ticks some foreign 0" >expect &&
	profile TRACKER_PROFILE_CPU_HZ=1000 "$ALLOCPATTERN" ownprof 0.3 >out &&
	test_cmp expect out
'

test_done
