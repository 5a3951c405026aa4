#!/bin/sh
# Docs describe what exists: every `tracker WORD` the README, docs/*.md and
# tracker(1) show as a command (in code, not prose; tests/doc-commands.py)
# is a command whose -h exits 0, and every --option shown with it is in
# that command's -h; every option of the man page is some command's. The
# examples in the -h texts are held to the same rule.

. "$(dirname "$0")/test-lib.sh"

command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3

test_expect_success 'the -h text of every command' '
	tracker --list-commands >commands &&
	tracker --help >all-help &&
	while read -r c; do
		tracker "$c" -h >"help-$c" && cat "help-$c" >>all-help || return 1
	done <commands
'

# check USES: each "FILE:LINE: WORD --opt..." line names a command and
# options that exist.
check() {
	bad=0
	while read -r where word opts; do
		if [ "$word" = "*" ]; then
			grep -qE -e "$opts([^a-z0-9-]|\$)" all-help ||
			{ echo "$where option $opts is no command's"; bad=1; }
			continue
		fi
		if ! grep -qx "$word" commands || ! tracker "$word" -h >/dev/null 2>&1; then
			echo "$where 'tracker $word' is not a command"
			bad=1
			continue
		fi
		for o in $opts; do
			grep -qE -e "$o([^a-z0-9-]|\$)" "help-$word" ||
			{ echo "$where 'tracker $word $o': no such option"; bad=1; }
		done
	done <"$1"
	return $bad
}

test_expect_success PYTHON3 'README.md and docs/*.md show only commands and options that exist' '
	(cd "$TRACKER_ROOT" && python3 tests/doc-commands.py README.md docs/*.md) >uses &&
	test "$(wc -l <uses)" -gt 100 &&
	check uses
'

test_expect_success PYTHON3 'tracker(1) shows only commands and options that exist' '
	(cd "$TRACKER_ROOT" && python3 tests/doc-commands.py docs/tracker.1) >uses &&
	grep -q ": run" uses &&
	check uses
'

test_expect_success PYTHON3 'the examples of the -h texts run commands that exist' '
	for c in $(cat commands); do
		sed -n "s/^  *\(tracker [a-z].*\)/\`\1\`/p" "help-$c" >"examples-$c.md" &&
		python3 "$TRACKER_ROOT/tests/doc-commands.py" "examples-$c.md" || return 1
	done >uses &&
	grep -q ": run" uses &&
	check uses
'

test_expect_success PYTHON3 'the checker sees a command that does not exist' '
	printf "Run \`tracker frobnicate -o perf/\` daily.\n\n    tracker run --bogus-option -- make\n" >fake.md &&
	python3 "$TRACKER_ROOT/tests/doc-commands.py" fake.md >uses &&
	! check uses >out &&
	grep "tracker frobnicate. is not a command" out &&
	grep "tracker run --bogus-option.: no such option" out
'

command -v groff >/dev/null 2>&1 && test_set_prereq GROFF

# A line starting with a dot is a macro call to troff: ".svg, or" lost the
# whole line from the rendered page.
test_expect_success GROFF 'tracker(1) renders without a troff warning' '
	groff -man -ww -z "$TRACKER_ROOT/docs/tracker.1" 2>warnings &&
	! test -s warnings
'

test_done
