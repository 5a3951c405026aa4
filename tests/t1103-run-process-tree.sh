#!/bin/sh
# When tracker dies without ending the job (kill -9, a CI's KILL before
# tracker's --grace ran out), the job's whole process tree goes with it:
# the children in the job's process group, and those that left it with
# setsid. A job tracker ends normally leaves its orphans alone after
# --orphan-wait, as before.

. "$(dirname "$0")/test-lib.sh"

# A job whose tree has a child in its group, a grandchild, and a child
# in a session of its own; each writes its pid.
cat >tree.sh <<'SCRIPT'
sleep 300 & echo $! >child.pid
sh -c 'sleep 300 & echo $! >grandchild.pid; wait' &
setsid sh -c 'echo $$ >daemon.pid; exec sleep 300' &
wait
SCRIPT

test_expect_success 'kill -9 of tracker: the job and all its descendants die' '
	tracker run -q --key tree --db db.sqlite --artifacts art -- sh tree.sh &
	pid=$! &&
	wait_for alive child.pid grandchild.pid daemon.pid &&
	sleep 1.2 &&
	kill -9 $pid &&
	wait_for gone child.pid grandchild.pid daemon.pid
'

test_expect_success 'TERM, then KILL within --grace: nothing of the job survives' '
	rm -f *.pid &&
	cat >stubborn.sh <<-\SCRIPT &&
	trap "" TERM
	sleep 300 & echo $! >child.pid
	setsid sh -c "trap \"\" TERM; echo \$\$ >daemon.pid; exec sleep 300" &
	wait
	SCRIPT
	tracker run -q --grace 60s --key tree --db db.sqlite --artifacts art -- sh stubborn.sh &
	pid=$! &&
	wait_for alive child.pid daemon.pid &&
	sleep 1.2 &&
	kill -TERM $pid &&
	sleep 0.2 &&
	alive child.pid daemon.pid &&
	kill -9 $pid &&
	wait_for gone child.pid daemon.pid
'

test_expect_success 'a job that ends normally: an orphan left running is not killed' '
	rm -f *.pid &&
	tracker run -q --orphan-wait 0.1s --key tree --db db.sqlite --artifacts art -- \
		sh -c "setsid sh -c \"echo \\\$\\\$ >daemon.pid; exec sleep 300\" & sleep 0.5" &&
	wait_for test -s daemon.pid &&
	sleep 0.5 &&
	alive daemon.pid &&
	kill $(cat daemon.pid)
'

test_done
