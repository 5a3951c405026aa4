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

test_done
