#!/bin/sh
# tracker check in a pipeline, with default flags: real `tracker run`s of
# a step in Buildkite builds (environment as the agent sets it), the
# machine class taken from the agent's queue tag, then `tracker check`
# with no option in a pull request's build. The step became 3x slower
# there: exit 1. A slower machine's runs on main (another queue) do not
# count; the class is shown by history and can be named or configured.

. "$(dirname "$0")/test-lib.sh"

# bk BRANCH BUILD QUEUE CMD...: one build's step
bk() {
	_b=$1 _n=$2 _q=$3
	shift 3
	env BUILDKITE=true BUILDKITE_BRANCH="$_b" BUILDKITE_BUILD_NUMBER="$_n" \
		BUILDKITE_COMMIT="$(printf '%040d' "$_n")" BUILDKITE_PIPELINE_SLUG=model \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_PULL_REQUEST=false \
		BUILDKITE_STEP_KEY=model BUILDKITE_AGENT_META_DATA_QUEUE="$_q" \
		BUILDKITE_PULL_REQUEST_BASE_BRANCH="${BASE:-}" \
		"$@"
}

test_expect_success 'setup: 7 builds of main on the cpu queue, 3 on a slow queue' '
	for n in 1 2 3 4 5 6 7; do
		bk main $n cpu tracker run -q --db h.db -- sleep 0.3 || return 1
	done &&
	for n in 8 9 10; do
		bk main $n slowq tracker run -q --db h.db -- sleep 1.2 || return 1
	done &&
	tracker history --db h.db --format csv >h.csv &&
	test $(grep -c ",cpu$" h.csv) = 7 &&
	test $(grep -c ",slowq$" h.csv) = 3
'

test_expect_success 'a 3x slower pull request build: check with no option exits 1' '
	BASE=main bk feature 11 cpu tracker run -q --db h.db -- sleep 0.9 &&
	BASE=main test_expect_code 1 bk feature 11 cpu tracker check --db h.db >out &&
	cat out &&
	grep "^model: feature #11 0000000000 (run [0-9a-f]*) against 7 runs of main, machine class cpu$" out &&
	grep "^model  walltime  regression " out
'

test_expect_success 'the slow queue is not in the baseline' '
	BASE=main test_expect_code 1 bk feature 11 cpu tracker check --db h.db --format json >out.json &&
	python3 -c "import json; d = json.load(open(\"out.json\")); r = d[\"results\"][0]; \
assert len(r[\"baseline\"]) == 7 and all(b[\"machine_class\"] == \"cpu\" for b in r[\"baseline\"]), r; \
m = r[\"metrics\"][0]; assert m[\"metric\"] == \"walltime\" and 0.29 < m[\"baseline_median\"] < 0.6, m"
'

test_expect_success 'a key with no history on main: insufficient data, exit 0 on its own' '
	BASE=main bk feature 11 cpu tracker run -q --db h.db --key fresh -- true &&
	BASE=main test_expect_code 1 bk feature 11 cpu tracker check --db h.db >out &&
	grep "^fresh  walltime  insufficient data .*no successful run of the key on the baseline branch" out &&
	BASE=main bk feature 11 cpu tracker check --db h.db --key fresh >out &&
	grep "^fresh  walltime  insufficient data" out
'

test_expect_success 'the class can be named, configured, or comes from the host' '
	tracker run -q --db c.db --key a --machine-class big-mem -- true &&
	printf "machine_class: shared\nkeys:\n  b:\n    machine_class: gpu\n" >.tracker.yml &&
	tracker run -q --db c.db --key b -- true &&
	tracker run -q --db c.db --key c -- true &&
	rm .tracker.yml &&
	tracker run -q --db c.db --key d -- true &&
	tracker history --db c.db --format csv >c.csv &&
	grep "^[^,]*,a,.*,big-mem$" c.csv &&
	grep "^[^,]*,b,.*,gpu$" c.csv &&
	grep "^[^,]*,c,.*,shared$" c.csv &&
	grep "^[^,]*,d,.*,[^,][^,]*$" c.csv &&
	tracker history --db c.db --key a --format json >a.json &&
	grep "\"machine_class\": \"big-mem\"" a.json
'

test_expect_success 'a job too short to sample: its maxrss is a bound, not judged' '
	for n in 1 2 3 4 5 6; do
		bk main $n cpu tracker run -q --db s.db --key short -- sleep 0.3 || return 1
	done &&
	BASE=main bk feature 7 cpu tracker run -q --db s.db --key short -- true &&
	tracker history --db s.db --key short --format csv >s.csv &&
	grep "^[^,]*,short,feature,.*,upper-bound," s.csv &&
	BASE=main bk feature 7 cpu tracker check --db s.db --metric maxrss >out &&
	cat out &&
	grep "^short  maxrss  insufficient data .*the current run.s maxrss is only an upper bound" out
'

test_expect_success 'a machine class the baseline never ran on: the note says so' '
	cp h.db n.db &&
	BASE=main bk feature 12 newq tracker run -q --db n.db -- sleep 0.3 &&
	BASE=main bk feature 12 newq tracker check --db n.db >out &&
	cat out &&
	grep "^model  walltime  insufficient data .*no successful run of the key on the baseline branch on this machine class (there are runs of others: --machine-class names one)" out &&
	BASE=main bk feature 12 newq tracker check --db n.db --machine-class cpu >out;
	test $? -le 1 &&
	grep "against 7 runs of main, machine class cpu$" out &&
	grep "^model  walltime  [a-z]" out &&
	! grep "^model  walltime  insufficient data" out
'

test_expect_success 'no run to check: the warning names what would find one' '
	bk main 99 cpu tracker check --db h.db >out 2>err &&
	grep "warning: no run to check in build 99 of branch .main. (check after the build.s tracker run steps, or name a run with --run ID)" err &&
	! grep -- "--key" err &&
	tracker check --db h.db --branch nosuch >out 2>err &&
	grep "warning: no run to check on branch .nosuch. (name another with --branch, or a run with --run ID)" err
'

test_expect_success '--run: the run names its key; a wrong key or id is an error' '
	id=$(tracker history --db h.db --key model --limit 1 --format csv | sed -n 2p | cut -d, -f1) &&
	test -n "$id" &&
	tracker check --db h.db --run "$id" --baseline-branch main >out;
	test $? -le 1 &&
	test $(grep -c "^model: " out) = 1 &&
	! grep "no such run" out &&
	test_expect_code 2 tracker check --db h.db --run "$id" --key fresh 2>err &&
	grep "is of key .model., not .fresh." err &&
	test_expect_code 65 tracker check --db h.db --run 00000000 2>err &&
	grep "no run 00000000 in the database" err
'

test_done
