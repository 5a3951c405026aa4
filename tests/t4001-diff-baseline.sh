#!/bin/sh
# tracker diff: which runs are compared (baseline selection from the
# history), the three-column output, and the errors.

. "$(dirname "$0")/test-lib.sh"

# bk_run BRANCH BUILD STATUS PROFILE-TEXT: a Buildkite-like run of key k
# that writes PROFILE-TEXT as its profile and exits with STATUS.
bk_run() {
	printf "$4" >"prof-$2.folded" &&
	env BUILDKITE=true BUILDKITE_BRANCH="$1" BUILDKITE_BUILD_NUMBER="$2" \
		BUILDKITE_COMMIT="$(printf '%040d' "$2")" BUILDKITE_PIPELINE_SLUG=p \
		BUILDKITE_PULL_REQUEST=false \
		tracker run -q --key k --db h.db --artifacts arts \
		--profile-file "prof-$2.folded" -- sh -c "exit $3"
	return 0
}

test_expect_success 'setup: two main builds, a failed main build, a feature build' '
	bk_run main 1 0 "main;a 10\nmain;b 10\n" &&
	bk_run main 2 0 "main;a 20\nmain;b 10\n" &&
	bk_run feature 3 0 "main;a 30\nmain;b 10\nmain;c 5\n" &&
	bk_run main 4 1 "main;a 99\nmain;b 99\n" &&
	tracker history --db h.db --format csv >runs &&
	test $(wc -l <runs) = 5
'

test_expect_success 'by default: up to 5 successful baseline runs, values as measured' '
	tracker diff --key k --db h.db --branch feature --baseline-branch main \
		-o d0.folded 2>err &&
	printf "main;a 15 30\nmain;b 10 10\nmain;c 0 5\n" >expect &&
	test_cmp expect d0.folded &&
	grep "mean of 2 runs" err &&
	grep "2 baseline runs of the 5 asked for exist" err &&
	! grep "#4" err &&
	tracker diff --key k --db h.db --branch feature --baseline-branch main \
		-o d0.txt &&
	sed -n 2p d0.txt >line2 &&
	echo "CPU samples 25 -> 45 (+80.0%); baseline: mean of 2 runs" >expect &&
	test_cmp expect line2
'

test_expect_success 'NEW is the newest run on --branch, the baseline the newest successful one' '
	tracker diff --key k --db h.db --branch feature --baseline-branch main \
		--baselines 1 --normalize none -o d.folded 2>err &&
	printf "main;a 20 30\nmain;b 10 10\nmain;c 0 5\n" >expect &&
	test_cmp expect d.folded &&
	grep "new: .*feature #3" err &&
	grep "baseline: .*main #2" err &&
	! grep "#4" err
'

test_expect_success '--baselines 2 averages the two newest successful baseline runs' '
	tracker diff --key k --db h.db --branch feature --baseline-branch main \
		--baselines 2 --normalize none -o d2.folded 2>err &&
	printf "main;a 15 30\nmain;b 10 10\nmain;c 0 5\n" >expect &&
	test_cmp expect d2.folded &&
	grep "mean of 2 runs" err
'

test_expect_success 'the baseline branch comes from the PR base branch of the CI context' '
	env BUILDKITE=true BUILDKITE_BRANCH=feature BUILDKITE_PULL_REQUEST=7 \
		BUILDKITE_PULL_REQUEST_BASE_BRANCH=main \
		tracker diff --key k --db h.db --baselines 1 -o d3.folded 2>err &&
	printf "main;a 20 30\nmain;b 10 10\nmain;c 0 5\n" >expect &&
	test_cmp expect d3.folded
'

test_expect_success 'else from baseline_branch in .tracker.yml' '
	mkdir cfg && cd cfg &&
	printf "keys:\n  k:\n    baseline_branch: main\n" >.tracker.yml &&
	tracker diff --key k --db ../h.db --branch feature --baselines 1 -o d4.folded &&
	printf "main;a 20 30\nmain;b 10 10\nmain;c 0 5\n" >expect &&
	test_cmp expect d4.folded
'

test_expect_success 'else from the pipeline default branch' '
	env BUILDKITE=true BUILDKITE_BRANCH=feature BUILDKITE_PIPELINE_DEFAULT_BRANCH=main \
		BUILDKITE_PULL_REQUEST=false \
		tracker diff --key k --db h.db --baselines 1 -o d5.folded &&
	test_cmp expect d5.folded
'

test_expect_success 'no baseline branch anywhere is a usage error that says how to name one' '
	test_expect_code 2 tracker diff --key k --db h.db --branch feature -o x.folded 2>err &&
	grep -- "--baseline-branch" err
'

test_expect_success 'never the current run: same branch compares with the previous run' '
	tracker diff --key k --db h.db --branch main --baseline-branch main \
		--normalize none -o d6.folded 2>err &&
	grep "new: .*main #4" err &&
	grep "baseline: .*main #2" err
'

test_expect_success '--baseline-run and --run name the runs explicitly' '
	b1=$(grep ",main,0*1," runs | cut -d, -f1) &&
	n3=$(grep ",feature," runs | cut -d, -f1) &&
	tracker diff --key k --db h.db --run "$n3" --baseline-run "$b1" \
		--normalize none -o d7.folded &&
	printf "main;a 10 30\nmain;b 10 10\nmain;c 0 5\n" >expect &&
	test_cmp expect d7.folded
'

test_expect_success '--normalize total scales the baseline to the new total (floats)' '
	tracker diff --key k --db h.db --branch feature --baseline-branch main \
		--baselines 1 --normalize total -o d8.folded &&
	printf "main;a 30 30\nmain;b 15 10\nmain;c 0 5\n" >expect &&
	test_cmp expect d8.folded
'

test_expect_success 'two files: BASE NEW' '
	printf "main;x 4\nmain;y 4\n" >base.folded &&
	printf "main;x 6\nmain;z 1\n" >new.folded &&
	tracker diff base.folded new.folded --normalize none -o f.folded &&
	printf "main;x 4 6\nmain;y 4 0\nmain;z 0 1\n" >expect &&
	test_cmp expect f.folded
'

test_expect_success '--normalize-names matches renamed frames' '
	printf "main;foo<int> 10\nmain;b 10\n" >n1.folded &&
	printf "main;foo<long> 14\nmain;b 11\n" >n2.folded &&
	tracker diff n1.folded n2.folded --normalize none -o plain.folded &&
	grep -q "^main;foo<int> 10 0$" plain.folded &&
	tracker diff n1.folded n2.folded --normalize none --normalize-names templates -o n.folded &&
	printf "main;b 10 11\nmain;foo<> 10 14\n" >expect &&
	test_cmp expect n.folded
'

test_expect_success '--min-delta keeps small changes out of the table; --top bounds it' '
	tracker diff n1.folded n2.folded --normalize none --normalize-names templates \
		--top 5 -o all.txt &&
	grep -q "foo<> <- main" all.txt &&
	grep -q "b <- main" all.txt &&
	tracker diff n1.folded n2.folded --normalize none --normalize-names templates \
		--min-delta 2 --top 5 -o big.txt &&
	grep -q "foo<> <- main" big.txt &&
	! grep -q "b <- main" big.txt &&
	grep -q "1 self changes within the noise floor" big.txt
'

test_expect_success 'a --key no run has, on any branch: exit 65 naming the nearest key' '
	test_expect_code 65 tracker diff --key kk --db h.db --baseline-branch main \
		-o typo.folded 2>err &&
	grep "^tracker: error: no runs of key .kk.; the nearest key is .k.$" err &&
	! test -e typo.folded
'

test_expect_success 'errors: usage 2, no runs 65, no database 69' '
	test_expect_code 2 tracker diff base.folded -o x.folded &&
	test_expect_code 2 tracker diff base.folded new.folded -o x.bmp &&
	test_expect_code 2 tracker diff base.folded new.folded --mode loud -o x.folded &&
	test_expect_code 2 tracker diff base.folded new.folded --normalize walltime -o x.folded &&
	test_expect_code 2 tracker diff --key k --baseline-run x --baseline-branch main -o x.folded &&
	test_expect_code 65 tracker diff --key nobody --db h.db --baseline-branch main -o x.folded &&
	test_expect_code 65 tracker diff --key k --db h.db --branch feature --baseline-branch nowhere -o x.folded &&
	test_expect_code 69 tracker diff missing.folded new.folded -o x.folded &&
	test_expect_code 69 tracker diff --key k --db nowhere.db --baseline-branch main -o x.folded
'

test_done
