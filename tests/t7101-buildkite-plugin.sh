#!/bin/sh
# The Buildkite plugin (ci/buildkite): plugin.yml's schema, the command
# hook running $BUILDKITE_COMMAND under tracker run the way the agent runs
# it (real tracker, and a stand-in that records its arguments), and the
# post-command hook's check/soft_fail/report. The agent is simulated: the
# hooks get the variables it exports (BUILDKITE_COMMAND,
# BUILDKITE_PLUGIN_TRACKER_*, BUILDKITE_COMMAND_EXIT_STATUS).

. "$(dirname "$0")/test-lib.sh"

PLUGIN="$TRACKER_ROOT/ci/buildkite"
python3 -c 'import yaml' >/dev/null 2>&1 && test_set_prereq PYYAML
command -v bash >/dev/null 2>&1 && test_set_prereq BASH

# A stand-in tracker in standin/: writes its arguments, NUL-separated, to
# calls/N, exits with $STANDIN_EXIT_<subcommand> when set, and runs what
# follows "--" for run.
mkdir -p standin calls
cat >standin/tracker <<'EOF'
#!/bin/sh
n=$(ls calls | wc -l)
printf '%s\0' "$@" >calls/$n
eval "rc=\${STANDIN_EXIT_$1:-}"
[ -n "$rc" ] && exit "$rc"
if [ "$1" = run ]; then
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
	shift
	exec "$@"
fi
exit 0
EOF
chmod +x standin/tracker

# argv N: call N's arguments, one per line (newlines inside shown as \n)
argv() { tr '\n\0' '\001\n' <calls/"$1" | sed 's/\x01/\\n/g'; }

# hook NAME: runs the hook with the stand-in first on PATH, as the agent
# does (bash, in the checkout).
hook() { PATH="$TRASH_DIRECTORY/standin:$PATH" bash "$PLUGIN/hooks/$1"; }

test_expect_success PYYAML 'plugin.yml names the options the hooks read' '
	python3 -c "
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
assert p[\"name\"] == \"tracker\", p[\"name\"]
props = p[\"configuration\"][\"properties\"]
want = {\"key\": \"string\", \"profile\": \"string\", \"check\": \"boolean\",
        \"soft_fail\": \"boolean\", \"report\": \"boolean\", \"artifacts\": \"string\",
        \"db\": \"string\", \"remove\": \"boolean\"}
assert {k: v[\"type\"] for k, v in props.items()} == want, props
assert p[\"configuration\"][\"additionalProperties\"] is False
" "$PLUGIN/plugin.yml" &&
	for o in KEY PROFILE CHECK SOFT_FAIL REPORT ARTIFACTS DB REMOVE; do
		grep -q "BUILDKITE_PLUGIN_TRACKER_$o" "$PLUGIN"/hooks/* || { echo "$o unused"; return 1; }
	done
'

test_expect_success BASH 'command hook: the command as one argument of bash -e -c, output and status kept' '
	rm -f calls/* &&
	cmd="echo \"a  b\" '"'"'\$HOME'"'"' \$((1 + 2))
cd / && pwd
exit 3" &&
	BUILDKITE_COMMAND="$cmd" bash -e -c "$cmd" >want; want_rc=$? &&
	test $want_rc = 3 &&
	BUILDKITE_COMMAND="$cmd" BUILDKITE_STEP_KEY=amip hook command >got; rc=$? &&
	test $rc = 3 &&
	test_cmp want got &&
	printf "%s\0" run -- bash -e -c "$cmd" >expected-argv &&
	cmp expected-argv calls/0
'

test_expect_success BASH 'command hook: key, profile, artifacts and db from the plugin, each one argument' '
	rm -f calls/* &&
	BUILDKITE_COMMAND="echo hi" BUILDKITE_PLUGIN_TRACKER_KEY="it'"'"'s \$(touch pwned) \`x\`" \
	BUILDKITE_PLUGIN_TRACKER_PROFILE=alloc,cpu BUILDKITE_PLUGIN_TRACKER_ARTIFACTS="my dir" \
	BUILDKITE_PLUGIN_TRACKER_DB=sqlite:h.db hook command >out &&
	test "$(cat out)" = hi &&
	printf "%s\0" run --key "it'"'"'s \$(touch pwned) \`x\`" --profile alloc,cpu \
		--artifacts "my dir" --db sqlite:h.db -- bash -e -c "echo hi" >expected-argv &&
	cmp expected-argv calls/0 &&
	! ls pwned* 2>/dev/null
'

test_expect_success BASH 'command hook: a script path is made executable, as the agent does' '
	printf "#!/bin/sh\necho from the script\n" >script.sh &&
	chmod -x script.sh &&
	BUILDKITE_COMMAND=./script.sh hook command >out &&
	test -x script.sh &&
	test "$(cat out)" = "from the script"
'

test_expect_success BASH 'command hook: the agent shell from BUILDKITE_SHELL' '
	rm -f calls/* &&
	BUILDKITE_COMMAND="echo \$0" BUILDKITE_SHELL="/bin/sh -e -c" hook command >out &&
	test "$(cat out)" = /bin/sh &&
	argv 0 >got &&
	printf "%s\n" run -- /bin/sh -e -c "echo \$0" >want &&
	test_cmp want got
'

test_expect_success BASH 'command hook: without tracker on PATH the command still runs' '
	BUILDKITE_COMMAND="echo alone; exit 4" PATH=/usr/bin:/bin bash "$PLUGIN/hooks/command" \
		>out 2>err; rc=$? &&
	test $rc = 4 &&
	test "$(cat out)" = alone &&
	grep "not on PATH; running the command unmeasured" err
'

test_expect_success BASH 'command hook: a command that already runs tracker runs as it is' '
	rm -f calls/* &&
	BUILDKITE_COMMAND="echo before && tracker run --key k -- echo inner" hook command >out &&
	printf "before\ninner\n" >want && test_cmp want out &&
	argv 0 >got && printf "%s\n" run --key k -- echo inner >want && test_cmp want got &&
	test "$(ls calls | wc -l)" = 1 &&
	rm -f calls/* &&
	BUILDKITE_COMMAND="echo tracker runs" hook command >out &&
	test "$(cat out)" = "tracker runs" &&
	argv 0 >got && printf "%s\n" run -- bash -e -c "echo tracker runs" >want && test_cmp want got
'

test_expect_success BASH,WORKLOAD 'command hook with the real tracker: the run is recorded under the step key' '
	CI=true BUILDKITE=true BUILDKITE_STEP_KEY=amip BUILDKITE_BUILD_NUMBER=7 \
	BUILDKITE_COMMAND="echo start; \"$WORKLOAD\" touch 20 0.2; echo end" \
	BUILDKITE_PLUGIN_TRACKER_DB=sqlite:$TRASH_DIRECTORY/h.db \
		bash "$PLUGIN/hooks/command" >out &&
	grep "^start$" out && grep "^end$" out &&
	tracker history --db h.db --format csv >h &&
	test "$(csv_field h 1 key)" = amip &&
	test "$(csv_field h 1 build)" = 7 &&
	test "$(csv_field h 1 exit_code)" = 0 &&
	test_within "$(csv_field h 1 maxrss_bytes)" 20000000 200000000
'

test_expect_success BASH 'command hook with the real tracker: a failing command fails the step' '
	CI=true BUILDKITE=true BUILDKITE_STEP_KEY=failing BUILDKITE_COMMAND="echo x; false; echo never" \
	BUILDKITE_PLUGIN_TRACKER_DB=sqlite:$TRASH_DIRECTORY/h.db \
		bash "$PLUGIN/hooks/command" >out; rc=$? &&
	test $rc = 1 &&
	test "$(cat out)" = x &&
	tracker history --db h.db --key failing --format csv >h &&
	test "$(csv_field h 1 exit_code)" = 1
'

test_expect_success BASH 'post-command: nothing asked, nothing run' '
	rm -f calls/* &&
	BUILDKITE_STEP_KEY=amip hook post-command &&
	test -z "$(ls calls)"
'

test_expect_success BASH 'post-command: check passes' '
	rm -f calls/* &&
	BUILDKITE_STEP_KEY=amip BUILDKITE_PLUGIN_TRACKER_CHECK=true hook post-command >out &&
	argv 0 >got && printf "%s\n" check --key amip >want && test_cmp want got
'

test_expect_success BASH 'post-command: a regression fails the step, or warns with soft_fail' '
	rm -f calls/* &&
	(
		export STANDIN_EXIT_check=1 BUILDKITE_STEP_KEY=amip BUILDKITE_PLUGIN_TRACKER_CHECK=true &&
		hook post-command 2>err
	); rc=$? &&
	test $rc = 1 &&
	grep "amip. regressed$" err &&
	STANDIN_EXIT_check=1 BUILDKITE_PLUGIN_TRACKER_KEY=mine BUILDKITE_STEP_KEY=amip \
		BUILDKITE_PLUGIN_TRACKER_CHECK=true BUILDKITE_PLUGIN_TRACKER_SOFT_FAIL=true \
		hook post-command 2>err &&
	grep "mine. regressed (soft_fail: a warning)" err &&
	argv 1 >got && printf "%s\n" check --key mine >want && test_cmp want got
'

test_expect_success BASH 'post-command: tracker trouble is a warning, a failed command is not checked' '
	rm -f calls/* &&
	STANDIN_EXIT_check=69 BUILDKITE_STEP_KEY=amip BUILDKITE_PLUGIN_TRACKER_CHECK=true \
		hook post-command 2>err &&
	grep "tracker check. exited 69" err &&
	BUILDKITE_COMMAND_EXIT_STATUS=2 BUILDKITE_STEP_KEY=amip BUILDKITE_PLUGIN_TRACKER_CHECK=true \
		hook post-command 2>err &&
	grep "the command failed; no check" err &&
	test "$(ls calls | wc -l)" = 1 &&
	PATH=/usr/bin:/bin BUILDKITE_STEP_KEY=amip BUILDKITE_PLUGIN_TRACKER_CHECK=true \
		bash "$PLUGIN/hooks/post-command" 2>err &&
	grep "not on PATH" err
'

test_expect_success BASH 'post-command: report uploads and annotates' '
	rm -f calls/* &&
	BUILDKITE_PLUGIN_TRACKER_REPORT=true BUILDKITE_PLUGIN_TRACKER_ARTIFACTS=arts \
		hook post-command >out &&
	argv 0 >got && printf "%s\n" report --artifacts arts --upload --annotate >want &&
	test_cmp want got &&
	STANDIN_EXIT_report=70 BUILDKITE_PLUGIN_TRACKER_REPORT=true hook post-command 2>err &&
	grep "tracker report. exited 70" err
'

test_done
