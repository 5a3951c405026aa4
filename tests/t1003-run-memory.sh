#!/bin/sh
# Peak memory: of the largest process (maxrss_bytes) and of the whole tree
# (tree_rss_bytes), including daemonized descendants.

. "$(dirname "$0")/test-lib.sh"

MiB=1048576

test_expect_success WORKLOAD 'a job touching 200 MiB: both peaks within 5% of 200 MiB' '
	tracker run -q --key m --db db.sqlite -- "$WORKLOAD" touch 200 0.5 &&
	tracker history --db db.sqlite --key m --format csv >out &&
	max=$(csv_field out 1 maxrss_bytes) &&
	tree=$(csv_field out 1 tree_rss_bytes) &&
	test_within $max $((200 * MiB * 95 / 100)) $((200 * MiB * 105 / 100)) &&
	test_within $tree $((200 * MiB * 95 / 100)) $((200 * MiB * 105 / 100))
'

test_expect_success WORKLOAD '4 children holding 100 MiB at once: tree >= 380 MiB, largest near 100 MiB' '
	tracker run -q --key f --db db.sqlite -- "$WORKLOAD" fork 4 100 1.0 &&
	tracker history --db db.sqlite --key f --format csv >out &&
	max=$(csv_field out 1 maxrss_bytes) &&
	tree=$(csv_field out 1 tree_rss_bytes) &&
	test_within $tree $((380 * MiB)) $((440 * MiB)) &&
	test_within $max $((95 * MiB)) $((110 * MiB))
'

test_expect_success WORKLOAD 'a double-forked child that outlives its parent is reaped and counted' '
	tracker run -q --key d --db db.sqlite -- "$WORKLOAD" daemon 150 1.0 &&
	tracker history --db db.sqlite --key d --format csv >out &&
	max=$(csv_field out 1 maxrss_bytes) &&
	tree=$(csv_field out 1 tree_rss_bytes) &&
	test_within $max $((145 * MiB)) $((160 * MiB)) &&
	test_within $tree $((145 * MiB)) $((170 * MiB))
'

test_expect_success WORKLOAD 'the orphan was waited for: no descendant survives tracker' '
	tracker run -q --key d2 --db db.sqlite -- sh -c "\"$WORKLOAD\" daemon 1 0.5; echo done" >out &&
	! pgrep -f "workload daemon 1 0.5"
'

# The daemon's hold time carries this shell's pid, so its command line is
# this test's alone: the test kills exactly that process, by pid.
test_expect_success WORKLOAD '--orphan-wait 0 leaves a long-lived daemon running and says so' '
	hold=3.$$ &&
	tracker run --key d3 --orphan-wait 0 --db db.sqlite -- "$WORKLOAD" daemon 1 $hold 2>err &&
	grep "still running" err &&
	pid=$(pgrep -x -f "$WORKLOAD daemon 1 $hold") &&
	test -n "$pid" &&
	kill $pid
'

# The workload burns CPU time, not wall time, and reports what it used:
# tracker must account the same (both come from the kernel's rusage).
test_expect_success WORKLOAD 'CPU time of the tree is recorded' '
	tracker run -q --key cpu --db db.sqlite -- sh -c "\"$WORKLOAD\" cpu 0.3 own1 & \"$WORKLOAD\" cpu 0.2 own2; wait" &&
	tracker history --db db.sqlite --key cpu --format csv >out &&
	cpu=$(awk -F, -v u="$(csv_field out 1 user_s)" -v s="$(csv_field out 1 sys_s)" "BEGIN { print u + s }") &&
	own=$(cat own1 own2 | awk "{ t += \$1 } END { print t }") &&
	test_within $cpu $own $(awk -v o=$own "BEGIN { print o + 0.2 }") &&
	test_within $(csv_field out 1 walltime_s) 0.2 60
'

# The kernel carries part of the wrapper's RSS at fork into the child's
# ru_maxrss. A job that stays below the wrapper's RSS must not be charged
# the wrapper's memory, and its figure must be flagged as not verifiable.
test_expect_success 'a tiny job does not report the wrapper memory as its own' '
	tracker run -q --key tiny --db db.sqlite -- true &&
	tracker history --db db.sqlite --key tiny --format csv >out &&
	max=$(csv_field out 1 maxrss_bytes) &&
	wrapper=$(csv_field out 1 wrapper_rss_bytes) &&
	source=$(csv_field out 1 maxrss_source) &&
	test_within $max 1 $((wrapper - 1)) &&
	{ test "$source" = upper-bound || test "$source" = sampled; }
'

test_expect_success WORKLOAD 'a job above the wrapper RSS is measured by wait4' '
	tracker run -q --key big --db db.sqlite -- "$WORKLOAD" touch 50 0 &&
	tracker history --db db.sqlite --key big --format csv >out &&
	test "$(csv_field out 1 maxrss_source)" = wait4
'

# cgroup v2: a cgroup of the job's own gives memory.peak; sharing one does not.
cg_root=/sys/fs/cgroup
if [ "$(id -u)" = 0 ] && grep -qw memory "$cg_root/cgroup.controllers" 2>/dev/null &&
   grep -qw memory "$cg_root/cgroup.subtree_control" 2>/dev/null &&
   mkdir "$cg_root/tracker-test-$$" 2>/dev/null; then
	test_set_prereq CGROUP2_MEMORY
	CG="$cg_root/tracker-test-$$"
fi

test_expect_success 'no cgroup of its own: cgroup_peak_bytes is unknown' '
	tracker run -q --key nocg --db db.sqlite -- true &&
	tracker history --db db.sqlite --key nocg --format csv >out &&
	test -z "$(csv_field out 1 cgroup_peak_bytes)"
'

test_expect_success CGROUP2_MEMORY,WORKLOAD 'a cgroup of its own: memory.peak covers the tree' '
	sh -c "echo \$\$ >\"$CG/cgroup.procs\" && exec tracker run -q --key cg --db db.sqlite -- \"$WORKLOAD\" fork 2 64 0.5" &&
	tracker history --db db.sqlite --key cg --format csv >out &&
	test_within "$(csv_field out 1 cgroup_peak_bytes)" $((128 * MiB)) $((512 * MiB))
'
[ -n "$CG" ] && rmdir "$CG" 2>/dev/null

test_done
