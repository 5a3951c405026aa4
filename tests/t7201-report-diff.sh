#!/bin/sh
# tracker report draws the diff flame graph of a key whose runs have
# profiles: real runs of the bundled toy model (examples/workload model),
# which writes the time of its phases as folded stacks, recorded as six
# builds of main and one of a feature branch.

. "$(dirname "$0")/test-lib.sh"

# in_build BRANCH NUMBER CMD...: CMD as a Buildkite job of that build
in_build() {
	b=$1 n=$2
	shift 2
	env BUILDKITE=true BUILDKITE_BRANCH="$b" BUILDKITE_BUILD_NUMBER="$n" \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_PULL_REQUEST=false \
		BUILDKITE_STEP_KEY=model BUILDKITE_LABEL=model "$@"
}

test_expect_success 'runs with profiles: six builds of main, one of feature' '
	for n in 1 2 3 4 5 6; do
		in_build main $n tracker run -q --db h.db --artifacts art \
			--profile-file model.folded -- "$WORKLOAD" model 4 8 model.folded || return 1
	done &&
	in_build feature 7 tracker run -q --db h.db --artifacts art \
		--profile-file model.folded -- "$WORKLOAD" model 4 16 model.folded &&
	in_build feature 7 env BUILDKITE_STEP_KEY=plain tracker run -q --db h.db \
		--artifacts art -- "$WORKLOAD" sleep 0
'

test_expect_success 'the report has the diff of the keyed run against main, linked from its row' '
	in_build feature 7 env BUILDKITE_LABEL=report tracker report --db h.db --no-charts >out 2>err &&
	cat out err &&
	! test -s err &&
	R=tracker-artifacts/report &&
	diff=$(ls $R/model-*-diff.html) &&
	grep -qi "<!doctype html>" "$diff" &&
	grep -q "allocate_fields" "$diff" &&
	grep -q "feature #7" "$diff" &&
	grep -q "main" "$diff" &&
	grep "^| model | .* | \[cpu diff\]($(basename "$diff")) |$" $R/summary.md &&
	grep "^| plain | [0-9.]* [mu]*s | no baseline | .* | insufficient data |  |$" $R/summary.md &&
	! ls $R/plain-*-diff.html 2>/dev/null
'

test_expect_success 'the next report removes the files this one wrote, and nothing else' '
	R=tracker-artifacts/report &&
	grep -x "model-[0-9a-f]*-cpu-diff\.html" $R/.tracker-files &&
	grep -x "summary\.md" $R/.tracker-files &&
	echo mine >$R/notes.txt &&
	echo outside >outside.txt &&
	mkdir -p elsewhere && echo abs >elsewhere/abs.txt &&
	{
		echo "../outside.txt" &&
		echo "$PWD/elsewhere/abs.txt" &&
		echo "sub/../../outside.txt" &&
		echo "a/b/c.txt"
	} >>$R/.tracker-files &&
	mkdir -p $R/a/b && echo deep >$R/a/b/c.txt &&
	in_build feature 8 env BUILDKITE_STEP_KEY=plain tracker run -q --db h.db \
		--artifacts art -- "$WORKLOAD" sleep 0 &&
	in_build feature 8 env BUILDKITE_LABEL=report tracker report --db h.db --no-charts \
		>out 2>err &&
	cat out err &&
	! ls $R/model-*-diff.html 2>/dev/null &&
	grep "^| plain |" $R/summary.md &&
	! grep "model" $R/summary.md &&
	test "$(cat $R/notes.txt)" = mine &&
	test "$(cat outside.txt)" = outside &&
	test "$(cat elsewhere/abs.txt)" = abs &&
	test "$(cat $R/a/b/c.txt)" = deep &&
	! grep -v "^#" $R/.tracker-files | grep -v -x "summary\.md\|annotation\.md\|verdicts\.txt\|check\.json\|metrics\.txt\|index\.html"
'

test_expect_success 'a list of files past its bound: what was read is removed, a warning' '
	R=tracker-artifacts/report &&
	echo e >$R/early.txt && echo l >$R/late.txt && echo s >$R/stale.txt &&
	python3 -c "
import sys
with open(sys.argv[1], \"a\") as f:
    f.write(\"x\" * 300 + \"\\n\")
    f.write(\"stale.txt\\n\")
    f.write(\"early.txt\\n\")
    f.write((\"x\" * 200 + \"\\n\") * 90000)
    f.write(\"late.txt\\n\")
" $R/.tracker-files &&
	in_build feature 8 env BUILDKITE_LABEL=report tracker report --db h.db --no-charts \
		>out 2>err &&
	cat err &&
	grep "some earlier files stay: .*tracker-files. is longer than 16777216 bytes" err &&
	! test -e $R/stale.txt &&
	! test -e $R/early.txt &&
	test -e $R/late.txt
'

test_expect_success 'a listed name in a directory that is a link: left alone' '
	R=tracker-artifacts/report &&
	mkdir -p real && echo mine >real/x.html &&
	rm -rf $R/dashboard && ln -s "$PWD/real" $R/dashboard &&
	echo "dashboard/x.html" >>$R/.tracker-files &&
	in_build feature 8 env BUILDKITE_LABEL=report tracker report --db h.db --no-charts \
		>out 2>err &&
	test "$(cat real/x.html)" = mine
'

test_done
