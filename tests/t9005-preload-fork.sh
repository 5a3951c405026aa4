#!/bin/sh
# The preload library against processes made at bad moments or behind its
# back: forks while other threads are inside libunwind, _Fork without
# atfork handlers, a vfork child that resets SIGPROF, exec from a signal
# handler, execveat, the exec of a static binary by a sampled
# multithreaded process.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

command -v timeout >/dev/null 2>&1 && test_set_prereq TIMEOUT
[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 && test_set_prereq ROOT

# images NAME: how many tables in ./prof are of an executable named NAME.
images() {
	for f in prof/*.tkraw; do
		"$RAWDUMP" "$f" | grep "^exe " || return 1
	done | grep -c "/$1$"
}

# A hang is the failure these tests look for: every job runs under timeout.
# 8 threads, the first two forking 39 times each from amid the others'
# allocations; a third of the children exec, so 1 + 78 + 26 tables (and
# those of timeout, also profiled).
test_expect_success PRELOAD,TIMEOUT 'forks from threads while others unwind: no deadlock (libunwind, exact, CPU timer)' '
	for i in 1 2 3 4; do
		profile TRACKER_PROFILE_SAMPLE_BYTES=1 TRACKER_PROFILE_CPU_HZ=1000 \
			TRACKER_PROFILE_UNWIND=libunwind \
			timeout 30 "$ALLOCPATTERN" stress 8 5000 40 >out &&
		echo "stress ok" >expect &&
		test_cmp expect out &&
		test "$(images allocpattern)" = 105 || return 1
	done
'

test_expect_success PRELOAD,TIMEOUT 'the same stress with each unwinder and sampled: same output as without the library' '
	"$ALLOCPATTERN" stress 8 5000 40 >expect &&
	for u in auto fp libunwind; do
		profile TRACKER_PROFILE_CPU_HZ=1000 TRACKER_PROFILE_UNWIND=$u \
			timeout 30 "$ALLOCPATTERN" stress 8 5000 40 >out &&
		test_cmp expect out || return 1
	done
'

test_expect_success PRELOAD 'stress tables: values present, nothing dropped, children named by their pid' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" stress 4 5000 5 >out &&
	dump_all &&
	! grep -v "^dropped 0$" dump | grep "^dropped" &&
	test "$(site_field stress_op 5)" -gt 15000 &&
	for f in prof/*.tkraw; do
		pid=${f#prof/} && pid=${pid%%.*} &&
		"$RAWDUMP" "$f" | grep "^pid $pid$" || return 1
	done
'

test_expect_success PRELOAD '_Fork (no atfork handlers): the child gets its own table, the parent keeps its own' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" rawfork >out &&
	child=$(sed -n "s/^pid //p" out | head -1) &&
	parent=$(sed -n "s/^pid //p" out | tail -1) &&
	test "$child" != "$parent" &&
	"$RAWDUMP" -s prof/$parent.0.tkraw >p &&
	"$RAWDUMP" -s prof/$child.0.tkraw >c &&
	grep "^slot .* rawfork_parent_site main" p &&
	grep "^slot .* rawfork_child_site main" c &&
	! grep rawfork_child_site p &&
	grep "^pid $child$" c
'

test_expect_success PRELOAD 'a vfork child setting SIGPROF does not stop the parent sampling new threads' '
	profile TRACKER_PROFILE_CPU_HZ=500 TRACKER_PROFILE_SAMPLE_BYTES=0 "$ALLOCPATTERN" vforkreset 0.3 >out &&
	dump_all &&
	spinner=$(awk "\$1 == \"slot\" && / vfork_spinner / { s += \$7 } END { printf \"%.0f\", s }" dump) &&
	test "$spinner" -gt 100000000
'

# The handler runs while the main loop is inside the library (dlopen's maps
# snapshot holds its lock, malloc records a sample): exec must not wait for
# a lock its own thread holds, nor call malloc.
test_expect_success PRELOAD,TIMEOUT 'exec from a signal handler interrupting the library: no deadlock' '
	for i in 1 2 3 4 5 6 7 8 9 10; do
		profile TRACKER_PROFILE_SAMPLE_BYTES=1 timeout 20 "$ALLOCPATTERN" sigexec >out &&
		grep "^total " out || return 1
	done
'

test_expect_success PRELOAD 'execveat: the old image is flushed and marked exited, the new one has seq 1' '
	profile TRACKER_PROFILE_SAMPLE_BYTES=1 "$ALLOCPATTERN" execveat >out &&
	grep "^total " out &&
	pid=$(ls prof/*.1.tkraw | sed "s,prof/,,; s,\..*,,") &&
	"$RAWDUMP" prof/$pid.0.tkraw >before &&
	grep "^exited 1$" before &&
	"$RAWDUMP" -s prof/$pid.1.tkraw >after &&
	grep "^slot .* pattern_mib_leaf pattern_mib_mid run_pattern main" after
'

test_expect_success PRELOAD,TIMEOUT 'a sampled multithreaded process execs a static binary: no stray SIGPROF kills it' '
	for i in 1 2 3 4 5 6 7 8 9 10; do
		profile TRACKER_PROFILE_CPU_HZ=1000 \
			timeout 20 "$ALLOCPATTERN" threadexec 0.05 "$ALLOCPATTERN-static" spin 0.05 >out &&
		grep "^cpu_ns " out || return 1
	done
'

# ld.so ignores LD_PRELOAD in a set-user-ID program run by another user:
# the job still runs, unprofiled: no table of it, no seq 1 table of the
# shell's child that exec'd it.
test_expect_success PRELOAD,ROOT 'a set-user-ID child: runs unprofiled, the same output' '
	cp "$ALLOCPATTERN" suid &&
	chown nobody suid &&
	chmod 4755 suid &&
	"$ALLOCPATTERN" aligned >expect &&
	profile sh -c "./suid aligned; echo \$? >rc" >out &&
	test_cmp expect out &&
	test "$(cat rc)" = 0 &&
	test "$(images suid)" = 0 &&
	! ls prof/*.1.tkraw
'

test_done
