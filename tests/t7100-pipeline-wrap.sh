#!/bin/sh
# tracker pipeline wrap: every byte but the wrapped commands is kept; each
# wrapped command, run the way the agent runs a step, does what the
# original did and hands tracker its key as one argument; wrapping twice
# is wrapping once; bad YAML is exit 65 naming FILE:LINE:COLUMN.
# compare.py (beside this script) loads both files with PyYAML and runs
# the commands with a stand-in tracker.

. "$(dirname "$0")/test-lib.sh"

P="$FIXTURES/pipelines"
HERE="$TEST_DIRECTORY/t7100-pipeline-wrap"
python3 -c 'import yaml' >/dev/null 2>&1 && test_set_prereq PYYAML
ls "$SHARED_DIRECTORY"/pipelines/*.yml >/dev/null 2>&1 && test_set_prereq SHARED_PIPELINES

test_expect_success 'known answer: the styles of a command, default flags' '
	tracker pipeline wrap "$P/styles.yml" >out 2>err &&
	test_cmp "$HERE/styles.expected" out &&
	grep "tracker: 17 of 17 command step(s) wrapped" err
'

test_expect_success 'known answer: groups, wait, block, input and trigger steps' '
	tracker pipeline wrap "$P/groups.yml" >out 2>err &&
	test_cmp "$HERE/groups.expected" out &&
	grep "tracker: 4 of 4 command step(s) wrapped" err
'

test_expect_success 'known answer: anchors, aliases and merge keys' '
	tracker pipeline wrap "$P/anchors.yml" >out 2>err &&
	test_cmp "$HERE/anchors.expected" out &&
	grep "anchors.yml:37: step .shared.: its command (line 39) is also used" err &&
	grep "^tracker: 5 of 7 command step(s) wrapped; 1 without a key; 1 left as they are (see above)$" err
'

for opts in "" "--derive-keys"; do
	test_expect_success PYYAML "fixtures ${opts:-(default)}: same YAML but the commands, which run the same" '
		for f in "$P"/*.yml; do
			case $f in */bad-*) continue ;; esac
			tracker pipeline wrap $opts "$f" >wrapped 2>/dev/null &&
			python3 "$HERE/compare.py" --run "$f" wrapped >result ||
			{ echo "$f"; cat result; return 1; }
			grep "^wrapped [1-9]" result || return 1
		done
	'
done

test_expect_success PYYAML 'the comparison sees a wrong script, a wrong key and a changed comment' '
	printf "steps:\n  - key: a\n    command: echo one\n" >orig.yml &&
	printf "steps:\n  - key: a\n    command: tracker run --key a -- bash -e -c \"echo two\"\n" >bad.yml &&
	test_must_fail python3 "$HERE/compare.py" --run orig.yml bad.yml >result &&
	grep "script differs" result &&
	printf "steps:\n  - key: a\n    command: tracker run --key b -- bash -e -c \"echo one\"\n" >bad.yml &&
	test_must_fail python3 "$HERE/compare.py" --run orig.yml bad.yml >result &&
	grep "key .b. is not the step" result &&
	tracker pipeline wrap "$P/styles.yml" 2>/dev/null | sed "s/# a comment after/# changed/" >bad.yml &&
	test_must_fail python3 "$HERE/compare.py" "$P/styles.yml" bad.yml >result &&
	grep "the texts differ outside the step commands" result
'

test_expect_success PYYAML 'keys and labels cannot inject: one argument each, nothing run' '
	tracker pipeline wrap --derive-keys "$P/injection.yml" >wrapped 2>err &&
	python3 "$HERE/compare.py" --run "$P/injection.yml" wrapped >result &&
	grep "^ran 8" result &&
	grep "invalid key .line.x0abreak" err &&
	! ls pwned* 2>/dev/null
'

test_expect_success 'wrapping twice changes nothing' '
	for f in "$P"/*.yml "$SHARED_DIRECTORY"/pipelines/*.yml; do
		test -f "$f" || continue
		case $f in */bad-*) continue ;; esac
		tracker pipeline wrap --derive-keys "$f" >once 2>/dev/null &&
		tracker pipeline wrap --derive-keys once >twice 2>err &&
		cmp once twice || { echo "$f"; diff once twice; return 1; }
		grep " 0 of " err || return 1
	done
'

test_expect_success SHARED_PIPELINES,PYYAML 'real pipelines: same YAML but the wrapped commands' '
	for f in "$SHARED_DIRECTORY"/pipelines/*.yml; do
		tracker pipeline wrap "$f" >wrapped 2>>err &&
		python3 "$HERE/compare.py" "$f" wrapped >result ||
		{ echo "$f"; cat result; return 1; }
		echo "$(basename "$f") $(cat result)" >>counts
	done &&
	grep "climacoupler_pipeline_2024-11_perf.yml wrapped 33" counts &&
	grep "climacoupler_longruns_pipeline_2024-11.yml wrapped 19" counts &&
	grep "slurm-buildkite_pipeline_head.yml wrapped 0" counts &&
	grep "^tracker: 33 of 50 command step(s) wrapped; 17 without a key$" err
'

test_expect_success SHARED_PIPELINES 'real pipelines: comments and agent values kept byte for byte' '
	f="$SHARED_DIRECTORY/pipelines/climacoupler_pipeline_2024-11_perf.yml" &&
	tracker pipeline wrap "$f" >wrapped 2>/dev/null &&
	grep -v "command" "$f" | grep "#" >comments-in &&
	test $(wc -l <comments-in) -gt 3 &&
	grep -v "command" wrapped | grep "#" >comments-out &&
	test_cmp comments-in comments-out &&
	grep "slurm_time: 4:00:00" wrapped
'

test_expect_success '--keys wraps only the listed steps and names the missing' '
	tracker pipeline wrap --keys amip,nosuch,deep "$P/groups.yml" >out 2>err &&
	grep -c "tracker run" out >n && test "$(cat n)" = 2 &&
	grep "tracker run --key amip" out &&
	grep "tracker run --key deep" out &&
	grep "no command step has the key .nosuch." err &&
	grep "; 2 not in --keys$" err
'

test_expect_success '--derive-keys names a step by its label as tracker run would' '
	tracker pipeline wrap --derive-keys "$P/nokey.yml" >out 2>err &&
	grep "tracker run --key amip-low-res -- bash -e -c .echo amip." out &&
	grep "tracker run --key named-by-name" out &&
	grep "command: echo rocket" out &&
	grep "command: echo no-label" out &&
	tracker pipeline wrap "$P/nokey.yml" >out 2>err &&
	grep -c "tracker run" out >n && test "$(cat n)" = 1
'

test_expect_success 'the tracker plugin and hand-written wrappers are left alone' '
	tracker pipeline wrap "$P/plugins.yml" >out 2>err &&
	grep "command: echo plugin-step" out &&
	grep "      - echo one" out &&
	grep "command: \[\"echo\", \"plugin command\"\]" out &&
	grep "tracker run --key docker -- bash -e -c .echo in-docker." out &&
	grep "1 of 3 command step(s) wrapped; 2 already run tracker" err &&
	printf "steps:\n  - key: k\n    command: ./bin/tracker run --key k -- make\n" >hand.yml &&
	tracker pipeline wrap hand.yml >out &&
	cmp hand.yml out
'

test_expect_success 'only tracker at a command start is tracker running: the rest is measured' '
	cat >mention.yml <<-\EOF &&
	steps:
	  - key: echo
	    command: echo tracker run is mentioned
	  - key: make
	    command: make tracker run
	  - key: comment
	    commands:
	      - "# tracker run"
	      - make test
	  - key: srun
	    command: srun -n 2 ./bin/tracker run --per-rank -- ./model
	  - key: later
	    commands:
	      - cd model
	      - FOO=1 tracker report
	EOF
	tracker pipeline wrap mention.yml >out 2>err &&
	cat out err &&
	grep "^tracker: 3 of 5 command step(s) wrapped; 2 already run tracker$" err &&
	grep "tracker run --key echo -- bash -e -c .echo tracker run is mentioned." out &&
	grep "tracker run --key make -- bash -e -c .make tracker run." out &&
	grep "tracker run --key comment -- bash -e -c .# tracker run" out &&
	grep "command: srun -n 2 ./bin/tracker run --per-rank -- ./model$" out
'

test_expect_success 'a step with a key written twice: exit 65 naming the line, no output' '
	printf "steps:\n  - key: a\n    command: make one\n    label: A\n    command: make two\n" >dup.yml &&
	test_expect_code 65 tracker pipeline wrap -o dup-out.yml dup.yml 2>err &&
	cat err &&
	grep "dup.yml:5: a step has the key .command. twice (first at line 3)" err &&
	! test -e dup-out.yml
'

test_expect_success PYYAML 'a value the upload interpolates cannot end the quoting: a here-document' '
	tracker pipeline wrap "$P/interpolation.yml" >out 2>/dev/null &&
	grep -F "command: \"tracker run --key interp-quote -- bash -e -c \\\"\$(cat <<'"'"'TRACKER_SCRIPT'"'"'" out &&
	python3 "$HERE/compare.py" --run "$P/interpolation.yml" out >result &&
	cat result &&
	grep "^ran 4$" result &&
	! test -e pwned-branch
'

test_expect_success 'standard input and -o' '
	tracker pipeline wrap - <"$P/groups.yml" >out 2>/dev/null &&
	test_cmp "$HERE/groups.expected" out &&
	tracker pipeline wrap -o wrapped.yml "$P/groups.yml" 2>/dev/null &&
	test_cmp "$HERE/groups.expected" wrapped.yml
'

test_expect_success 'bad YAML: exit 65 naming file, line and column; no output file' '
	test_expect_code 65 tracker pipeline wrap "$P/bad-indent.yml" >out 2>err &&
	grep "tracker: error: .*fixtures/pipelines/bad-indent.yml:5:4: did not find expected" err &&
	test ! -s out &&
	test_expect_code 65 tracker pipeline wrap -o o.yml "$P/bad-quote.yml" 2>err &&
	grep "bad-quote.yml:4:1: found unexpected end of stream while scanning a quoted scalar" err &&
	test ! -e o.yml &&
	printf "steps: [a\n" | test_expect_code 65 tracker pipeline wrap - 2>err &&
	grep "<stdin>:2:1:" err &&
	printf "steps:\n  - command: *nowhere\n" >alias.yml &&
	test_expect_code 65 tracker pipeline wrap alias.yml 2>err &&
	grep "alias.yml:2:14: undefined alias .\*nowhere." err
'

test_expect_success 'usage errors are exit 2' '
	test_expect_code 2 tracker pipeline 2>err &&
	test_expect_code 2 tracker pipeline unwrap x 2>err &&
	test_expect_code 2 tracker pipeline wrap 2>err &&
	test_expect_code 2 tracker pipeline wrap a b 2>err &&
	test_expect_code 2 tracker pipeline wrap --bogus x 2>err &&
	test_expect_code 69 tracker pipeline wrap does-not-exist.yml 2>err
'

test_expect_success 'a wrapped step runs under the real tracker and is recorded' '
	tracker pipeline wrap "$P/groups.yml" >wrapped 2>/dev/null &&
	cmd=$(sed -n "s/^ *command: \"\(tracker run --key amip .*\)\"$/\1/p" wrapped) &&
	test -n "$cmd" &&
	CI=true BUILDKITE=true BUILDKITE_STEP_KEY=amip bash -e -c "$cmd" >out &&
	grep "^amip$" out &&
	tracker history --key amip --format csv >h &&
	test $(csv_field h 1 key) = amip &&
	test $(csv_field h 1 exit_code) = 0
'

test_done
