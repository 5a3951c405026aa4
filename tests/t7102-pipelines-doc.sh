#!/bin/sh
# docs/pipelines.md shows what exists: its example pipeline, wrapped by
# tracker pipeline wrap, is the wrapped pipeline it shows, with the
# summary it quotes; its plugin example uses only options plugin.yml
# declares; its hand-written srun step is left alone.

. "$(dirname "$0")/test-lib.sh"

DOC="$TRACKER_ROOT/docs/pipelines.md"
python3 -c 'import yaml' >/dev/null 2>&1 && test_set_prereq PYYAML

# example NAME: the fenced block after "<!-- example: NAME -->"
example() {
	awk -v m="<!-- example: $1 -->" '
		$0 == m { on = 1; next }
		on && /^```/ { if (inside) exit; inside = 1; next }
		on && inside { print }' "$DOC"
}

test_expect_success 'the example pipeline wraps to the wrapped pipeline shown' '
	example pipeline.yml >pipeline.yml &&
	example wrapped >expected &&
	test $(wc -l <pipeline.yml) -gt 30 &&
	tracker pipeline wrap pipeline.yml >wrapped 2>err &&
	test_cmp expected wrapped &&
	summary=$(cat err) &&
	grep -F "    $summary" "$DOC"
'

test_expect_success PYYAML 'the wrapped example is the example but its commands' '
	python3 "$TEST_DIRECTORY/t7100-pipeline-wrap/compare.py" pipeline.yml wrapped >result &&
	grep "^wrapped 3$" result
'

test_expect_success 'wrapping the wrapped example changes nothing' '
	tracker pipeline wrap wrapped >twice 2>/dev/null &&
	test_cmp wrapped twice
'

test_expect_success PYYAML 'the plugin example uses options plugin.yml declares' '
	example plugin >plugin.yml &&
	python3 -c "
import sys, yaml
schema = yaml.safe_load(open(sys.argv[1]))[\"configuration\"][\"properties\"]
steps = yaml.safe_load(open(sys.argv[2]))[\"steps\"]
used = [o for s in steps for p in s[\"plugins\"] for name, opts in p.items() for o in opts]
assert used and set(used) <= set(schema), (used, list(schema))
" "$TRACKER_ROOT/ci/buildkite/plugin.yml" plugin.yml &&
	tracker pipeline wrap plugin.yml >out 2>err &&
	test_cmp plugin.yml out &&
	grep "0 of 1 command step(s) wrapped; 1 already run tracker" err
'

test_expect_success 'the hand-written srun step is left alone' '
	{ echo "steps:" && awk "/^  - label: \":earth_africa: amip, 4 ranks\"/,/slurm_ntasks/" "$DOC"; } >srun.yml &&
	grep "srun tracker run --per-rank" srun.yml &&
	tracker pipeline wrap srun.yml >out 2>err &&
	test_cmp srun.yml out
'

test_done
