#!/bin/sh
# Where a cgroup v2 is delegated to tracker (it may create a child of its
# own cgroup and move processes into it) and the kernel has cgroup.kill,
# the job runs in a cgroup of its own, tracker-job-<pid>-<random>: when
# tracker is killed outright, the watchdog kills everything in it, a
# daemon no tree sample saw included, and removes it. A job that ends
# normally leaves its orphans running, back in tracker's cgroup, and the
# job's cgroup is removed.

. "$(dirname "$0")/test-lib.sh"

# the cgroup v2 mount point
mnt=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' \
	/proc/self/mountinfo | head -n 1)

# Does this machine give the job a cgroup of its own?
tracker run -q --key probe --db probe.sqlite --artifacts art -- \
	sh -c 'grep "^0::" /proc/self/cgroup' >probe.out 2>&1
if grep -q "^0::.*/tracker-job-[0-9]*-[0-9a-f]*\$" probe.out && test -n "$mnt"; then
	test_set_prereq JOBCG
else
	reason="no delegated cgroup v2 with cgroup.kill here"
	test -n "$mnt" || reason="no cgroup v2 mounted"
	echo "# the job runs without a cgroup of its own: $reason"
fi

test_expect_success JOBCG 'the probe job ran in a child of tracker'"'"'s cgroup, removed after' '
	cg=$(sed "s/^0:://" probe.out) &&
	test -n "$cg" &&
	test ! -d "$mnt$cg"
'

# A tracker KILLed together with its watchdog (SLURM's batch step ending)
# leaves its empty cgroup: the next tracker in the same cgroup removes it,
# and leaves a live tracker's alone.
test_expect_success JOBCG 'a dead tracker'"'"'s empty job cgroup is removed by the next run' '
	sleep 300 &
	live=$! &&
	cg=$(sed "s/^0:://" probe.out) &&
	parent=$mnt${cg%/*} &&
	dead=$(sh -c "echo \$\$") &&
	mkdir "$parent/tracker-job-$dead-0badc0" "$parent/tracker-job-$live-0badc0" &&
	tracker run -q --key sweep --db probe.sqlite --artifacts art -- true &&
	test ! -d "$parent/tracker-job-$dead-0badc0" &&
	test -d "$parent/tracker-job-$live-0badc0" &&
	kill $live &&
	rmdir "$parent/tracker-job-$live-0badc0"
'

# The job stops tracker before it starts anything, so no tree sample
# ever sees the daemon; it double-forks out of the job's group and
# session at once, then waits.
cat >escape.sh <<'SCRIPT'
grep "^0::" /proc/self/cgroup | sed "s/^0:://" >cg.path
kill -STOP $PPID
sh -c 'setsid sh -c "echo \$\$ >daemon.tmp; mv daemon.tmp daemon.pid; exec sleep 300" &'
wait
sleep 300
SCRIPT

test_expect_success JOBCG 'kill -9 of tracker: a setsid daemon no sample saw dies, the cgroup goes' '
	tracker run -q --key cg --db db.sqlite --artifacts art -- sh escape.sh &
	pid=$! &&
	wait_for test -s daemon.pid &&
	wait_for test -s cg.path &&
	cg=$(cat cg.path) &&
	test -d "$mnt$cg" &&
	alive daemon.pid &&
	kill -9 $pid &&
	wait_for gone daemon.pid &&
	wait_for test ! -d "$mnt$cg"
'

test_expect_success JOBCG 'a normal end: the orphan survives, outside the removed cgroup' '
	rm -f daemon.pid cg.path &&
	tracker run -q --orphan-wait 0.1s --key cg --db db.sqlite --artifacts art -- \
		sh -c "grep ^0:: /proc/self/cgroup | sed s/^0::// >cg.path; setsid sh -c \"echo \\\$\\\$ >daemon.tmp; mv daemon.tmp daemon.pid; exec sleep 300\" & sleep 0.5" &&
	wait_for test -s daemon.pid &&
	cg=$(cat cg.path) &&
	test ! -d "$mnt$cg" &&
	alive daemon.pid &&
	p=$(cat daemon.pid) &&
	grep "^0::" /proc/$p/cgroup >daemon.cg &&
	grep "^0::" /proc/self/cgroup >self.cg &&
	test_cmp self.cg daemon.cg &&
	kill $p &&
	wait_for gone daemon.pid
'

test_expect_success JOBCG '--timeout, TERM ignored: the KILL after --grace takes a setsid daemon too' '
	rm -f daemon.pid cg.path &&
	cat >stubborn.sh <<-\SCRIPT &&
	trap "" TERM
	grep "^0::" /proc/self/cgroup | sed "s/^0:://" >cg.path
	sh -c "setsid sh -c \"trap \\\"\\\" TERM; echo \\\$\\\$ >daemon.tmp; mv daemon.tmp daemon.pid; exec sleep 300\" &"
	sleep 300
	SCRIPT
	{ tracker run -q --timeout 1s --grace 0.2s --key cg --db db.sqlite --artifacts art -- sh stubborn.sh; echo $? >status; } &&
	test "$(cat status)" = 124 &&
	test -s daemon.pid &&
	wait_for gone daemon.pid &&
	cg=$(cat cg.path) &&
	test ! -d "$mnt$cg"
'

test_expect_success 'the job'"'"'s exit status and signal pass through' '
	test_expect_code 7 tracker run -q --key cg --db db.sqlite --artifacts art -- sh -c "exit 7" &&
	{ tracker run -q --key cg --db db.sqlite --artifacts art -- sh -c "kill -KILL \$\$"; echo $? >status; } &&
	test "$(cat status)" = 137
'

test_expect_success 'a job that cannot be started: 127, and no cgroup left behind' '
	{ sh -c "echo \$\$ >tracker.pid; exec tracker run -q --key cg --db db.sqlite --artifacts art -- ./no-such-command" 2>err; echo $? >status; } &&
	test "$(cat status)" = 127 &&
	test -s tracker.pid &&
	if test -n "$mnt"; then ! ls -d "$mnt"/tracker-job-$(cat tracker.pid)-* 2>/dev/null; fi
'

command -v jq >/dev/null 2>&1 && test_set_prereq JQ

# The timeline reads the job cgroup's memory.current: there when the
# memory controller is enabled for it (cgroup v2 alone), not in a hybrid
# setup whose memory controller is v1's; the timeline says which.
test_expect_success JOBCG,JQ 'the memory timeline has the job cgroup'"'"'s memory where it has memory.current' '
	tracker run -q --key cgmem --db db.sqlite --artifacts art -- sh -c \
		"f=$mnt\$(sed -n s/^0:://p /proc/self/cgroup)/memory.current; \
		 if test -f \$f; then echo yes; else echo no; fi >has.current; \
		 \"$WORKLOAD\" ramp 100 4 0.4 0.1" &&
	id=$(tracker history --db db.sqlite --key cgmem --format csv | sed -n "2s/,.*//p") &&
	tracker history --db db.sqlite --run "$id" --timeline --format json >tl.json &&
	echo "memory.current in the job'"'"'s cgroup: $(cat has.current)" &&
	if test "$(cat has.current)" = yes; then
		test "$(jq .has_cgroup tl.json)" = true &&
		# the cgroup holds the job'"'"'s memory: at least the 100 MiB it touched
		test "$(jq "[.samples[].cgroup_bytes] | max >= 100 * 1048576" tl.json)" = true
	else
		test "$(jq .has_cgroup tl.json)" = false &&
		test "$(jq "[.samples[] | select(.cgroup_bytes)] | length" tl.json)" = 0
	fi
'

test_done
