#!/bin/sh
# Signals sent to tracker reach the job; cancellation and timeouts are recorded.

. "$(dirname "$0")/test-lib.sh"

# wait_for FILE: up to 10 s for FILE to appear.
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	test -e "$1"
}

test_expect_success WORKLOAD 'SIGTERM to tracker reaches the job and the run is recorded cancelled' '
	tracker run -q --key c --db db.sqlite --artifacts arts -- \
		sh -c "echo \$\$ >started; exec \"$WORKLOAD\" trap-term \"$PWD/got-term\" 30" &
	pid=$! &&
	wait_for started &&
	sleep 0.2 &&
	kill -TERM $pid &&
	{ wait $pid; echo $? >status; } &&
	test "$(cat got-term)" = TERM &&
	test "$(cat status)" = 143 &&
	tracker history --db db.sqlite --key c --format csv >out &&
	test "$(csv_field out 1 status)" = cancelled
'

test_expect_success WORKLOAD 'a job that ignores SIGTERM is killed after the grace period' '
	tracker run -q --key g --grace 0.3 --db db.sqlite --artifacts arts -- \
		sh -c "echo \$\$ >started2; exec \"$WORKLOAD\" ignore-term 30" &
	pid=$! &&
	wait_for started2 &&
	sleep 0.2 &&
	kill -TERM $pid &&
	{ wait $pid; echo $? >status; } &&
	test "$(cat status)" = 137 &&
	tracker history --db db.sqlite --key g --format csv >out &&
	test "$(csv_field out 1 status)" = cancelled
'

test_expect_success WORKLOAD 'the partial record is written before the grace period ends' '
	rm -rf parts &&
	tracker run -q --key p --grace 2 --db db.sqlite --artifacts parts -- \
		sh -c "echo \$\$ >started3; exec \"$WORKLOAD\" ignore-term 30" &
	pid=$! &&
	wait_for started3 &&
	sleep 0.2 &&
	kill -TERM $pid &&
	sleep 0.5 &&
	grep -l "\"partial\": true" parts/p-*.json >partial &&
	grep "\"status\": \"cancelled\"" $(cat partial) &&
	{ wait $pid; true; } &&
	grep "\"partial\": false" parts/p-*.json
'

test_expect_success WORKLOAD 'SIGINT and SIGHUP are forwarded too' '
	for sig in INT HUP; do
		rm -f started4 &&
		# Background jobs of a script start with INT ignored; undo that.
		perl -e "\$SIG{INT} = \$SIG{HUP} = q(DEFAULT); exec @ARGV" \
		tracker run -q --key s --db db.sqlite -- \
			sh -c "echo \$\$ >started4; exec \"$WORKLOAD\" sleep 30" &
		pid=$! &&
		wait_for started4 &&
		sleep 0.2 &&
		kill -$sig $pid &&
		{ wait $pid; echo $? >status.$sig; } || return 1
	done &&
	test "$(cat status.INT)" = 130 &&
	test "$(cat status.HUP)" = 129
'

test_expect_success WORKLOAD '--timeout stops the job and exits 124' '
	test_expect_code 124 tracker run -q --key t --timeout 0.3 --db db.sqlite -- "$WORKLOAD" sleep 30 &&
	tracker history --db db.sqlite --key t --format csv >out &&
	test "$(csv_field out 1 status)" = timeout
'

test_expect_success WORKLOAD '--timeout kills a job that ignores TERM and still exits 124' '
	test_expect_code 124 tracker run -q --key t2 --timeout 0.3 --grace 0.3 --db db.sqlite -- \
		"$WORKLOAD" ignore-term 30
'

test_expect_success WORKLOAD 'a job that finishes before --timeout keeps its own status' '
	test_expect_code 3 tracker run -q --key t3 --timeout 30 --db db.sqlite -- "$WORKLOAD" exit 3
'

test_expect_success WORKLOAD 'a per-key timeout from .tracker.yml applies' '
	mkdir cfg && cd cfg &&
	printf "keys:\n  slow:\n    timeout: 300ms\n" >.tracker.yml &&
	test_expect_code 124 tracker run -q --key slow --db ../db.sqlite -- "$WORKLOAD" sleep 30
'

test_expect_success 'a SIGCHLD ignored by the caller does not hide the job from tracker' '
	perl -e "\$SIG{CHLD} = q(IGNORE); exec @ARGV" \
		tracker run -q --key chld --timeout 20 --db db.sqlite -- sh -c "exit 4";
	test $? = 4
'

test_expect_success WORKLOAD 'a hangup ignored under nohup is not forwarded and does not cancel' '
	perl -e "\$SIG{HUP} = q(IGNORE); exec @ARGV" \
		tracker run -q --key hup --db db.sqlite -- \
		sh -c "echo \$\$ >started5; \"$WORKLOAD\" sleep 1; echo finished >finished5" &
	pid=$! &&
	wait_for started5 &&
	kill -HUP $pid &&
	{ wait $pid; echo $? >status; } &&
	test "$(cat status)" = 0 &&
	test -e finished5 &&
	tracker history --db db.sqlite --key hup --format csv >out &&
	test "$(csv_field out 1 status)" = ok
'

test_expect_success WORKLOAD 'a vanished log reader cannot kill tracker during a cancel' '
	mkfifo errpipe &&
	{ head -c 0 <errpipe; } &
	{ tracker run --key pipe --grace 5 -- \
		sh -c "echo \$\$ >started6; trap \"exit 3\" TERM; \"$WORKLOAD\" sleep 30 & wait" \
		2>errpipe; echo $? >status6; } &
	pid=$! &&
	wait_for started6 &&
	sleep 0.2 &&
	pkill -TERM -f "tracker run --key pipe" &&
	wait $pid &&
	test "$(cat status6)" = 3
'

test_expect_success 'a job that stops and is continued does not hang tracker' '
	tracker run -q --key stop --db db.sqlite -- sh -c "echo \$\$ >stopper; kill -STOP \$\$; echo resumed >resumed" &
	pid=$! &&
	wait_for stopper &&
	sleep 0.3 &&
	kill -CONT $(cat stopper) &&
	wait $pid &&
	test -e resumed
'

test_expect_success WORKLOAD 'a timeout gives a setsid daemon its TERM too' '
	test_expect_code 124 tracker run -q --key daemon-term --timeout 0.5 --db db.sqlite -- \
		sh -c "setsid sh -c \"trap \\\"echo got >daemon-term; exit 0\\\" TERM; echo \\\$\\\$ >dpid; while :; do sleep 0.1; done\" & exec \"$WORKLOAD\" sleep 30" &&
	wait_for daemon-term &&
	test "$(cat daemon-term)" = got
'

test_done
