#!/bin/sh
# tracker run passes the job's exit status through, and dies by the job's signal.

. "$(dirname "$0")/test-lib.sh"

for code in 0 1 7 255; do
	test_expect_success WORKLOAD "exit status $code passes through" "
		test_expect_code $code tracker run -q --key k --db db.sqlite -- \"\$WORKLOAD\" exit $code
	"
done

# A shell reports death by signal N as 128+N; we ask a fresh sh to run
# tracker so the status we read is the one the kernel gave tracker.
test_expect_success WORKLOAD 'death by SIGKILL is re-raised' '
	sh -c "tracker run -q --key k --db db.sqlite -- \"$WORKLOAD\" signal KILL; echo \$? >status"
	test "$(cat status)" = 137
'

test_expect_success WORKLOAD 'death by SIGSEGV is re-raised, without a core file of tracker' '
	sh -c "ulimit -c unlimited; tracker run -q --key k --db db.sqlite -- \"$WORKLOAD\" signal SEGV; echo \$? >status"
	test "$(cat status)" = 139 &&
	! ls core* 2>/dev/null
'

test_expect_success WORKLOAD 'the records say how each job ended' '
	tracker history --db db.sqlite --format csv >out &&
	test $(grep -c ",ok," out) = 1 &&
	test $(grep -c ",failed," out) = 3 &&
	test $(grep -c ",signaled," out) = 2
'

test_expect_success 'a command that does not exist exits 127 and records nothing new' '
	test_expect_code 127 tracker run -q --key k --db db.sqlite -- ./no-such-command 2>err &&
	grep "cannot run" err
'

test_expect_success 'a non-executable file exits 126' '
	echo "echo hi" >script && chmod -x script &&
	test_expect_code 126 tracker run -q --key k --db db.sqlite -- ./script
'

test_expect_success 'arguments reach the job without a shell re-parsing them' '
	tracker run -q --key k --db db.sqlite -- printf "%s|" "a b" "\$HOME" ";" "*" >out &&
	printf "%s|" "a b" "\$HOME" ";" "*" >expect &&
	test_cmp expect out
'

test_expect_success 'no key is a usage error and the job does not run' '
	test_expect_code 2 tracker run --db db.sqlite -- touch ran 2>err &&
	! test -e ran &&
	grep -- "--key" err
'

test_expect_success 'the key comes from TRACKER_KEY, then BUILDKITE_STEP_KEY' '
	BUILDKITE_STEP_KEY=bk tracker run -q --db k.sqlite -- true &&
	TRACKER_KEY=env BUILDKITE_STEP_KEY=bk tracker run -q --db k.sqlite -- true &&
	TRACKER_KEY=env tracker run -q --key opt --db k.sqlite -- true &&
	tracker history --db k.sqlite --format csv >out &&
	test "$(csv_field out 1 key)" = opt &&
	test "$(csv_field out 2 key)" = env &&
	test "$(csv_field out 3 key)" = bk
'

test_expect_success 'a missing command after -- is a usage error' '
	test_expect_code 2 tracker run --key k --
'

test_expect_success 'a bad --timeout is a usage error' '
	test_expect_code 2 tracker run --key k --timeout soon -- true 2>err &&
	grep "option .--timeout. wants a duration" err
'

test_expect_success 'the job gets its own process group' '
	tracker run -q --key k --db db.sqlite -- sh -c "ps -o pgid= -p \$\$ >job.pgid; echo \$\$ >job.pid" &&
	test "$(tr -d " " <job.pgid)" = "$(cat job.pid)"
'

test_expect_success 'a record file is written under --artifacts' '
	tracker run -q --key rec --artifacts arts --db db.sqlite -- true &&
	ls arts/rec-*.json >list &&
	test $(wc -l <list) = 1 &&
	grep "\"format\": \"tracker-run\"" arts/rec-*.json
'

test_done
