#!/bin/sh
# Basics of the command line: help for every command in the dispatch table,
# --version, usage errors, and a docs page for every command.
. "$(dirname "$0")/test-lib.sh"

test_expect_success 'tracker --list-commands lists commands' '
	tracker --list-commands >commands &&
	test -s commands &&
	grep -x run commands &&
	grep -x history commands &&
	grep -x help commands
'

commands=$(tracker --list-commands 2>/dev/null)

test_must_be_empty() {
	if [ -s "$1" ]; then
		echo "'$1' is not empty:" >&2
		cat "$1" >&2
		return 1
	fi
}

# first_line_is_usage CMD FILE: FILE starts "usage: tracker CMD" (then a
# space or the end of the line).
first_line_is_usage() {
	head -n 1 "$2" >first &&
	grep -E "^usage: tracker $1( |\$)" first
}

for cmd in $commands; do
	test_expect_success "tracker help $cmd" "
		tracker help $cmd >out 2>err &&
		first_line_is_usage $cmd out &&
		test_must_be_empty err
	"
	test_expect_success "tracker $cmd -h" "
		tracker $cmd -h >out 2>err &&
		first_line_is_usage $cmd out &&
		test_must_be_empty err
	"
	test_expect_success "tracker $cmd --help" "
		tracker $cmd --help >out 2>err &&
		first_line_is_usage $cmd out &&
		test_must_be_empty err
	"
	test_expect_success "tracker $cmd -h works with a broken .tracker.yml" "
		printf 'db: [unclosed\n' >.tracker.yml &&
		tracker $cmd -h >out 2>err;
		rc=\$? &&
		rm -f .tracker.yml &&
		test \$rc = 0 &&
		first_line_is_usage $cmd out
	"
	test_expect_success "tracker help $cmd works with a broken .tracker.yml" "
		printf 'db: [unclosed\n' >.tracker.yml &&
		tracker help $cmd >out 2>err;
		rc=\$? &&
		rm -f .tracker.yml &&
		test \$rc = 0 &&
		first_line_is_usage $cmd out
	"
done

# Options are data (cmd/options.h): each command's table makes its
# parsing and the "Options:" section of its -h. Every option the table
# holds is accepted, shown in -h and listed on the docs page; the
# synopsis names no option the command does not take.
test_expect_success 'tracker --list-options lists a table' '
	tracker --list-options history >options &&
	grep -x -e --key options &&
	grep -x -e --plot options &&
	! grep -v -e "^--[a-z][a-z0-9-]*\$" options &&
	tracker --list-options help >options &&
	test_must_be_empty options &&
	test_expect_code 2 tracker --list-options >out 2>err &&
	grep "takes one command" err &&
	test_expect_code 2 tracker --list-options bogus 2>err &&
	grep "bogus" err
'

for cmd in $commands; do
	case $cmd in
	pipeline) args=wrap ;;
	*) args= ;;
	esac
	test_expect_success "every option of tracker $cmd is accepted, in its -h and its docs" "
		tracker --list-options $cmd >options &&
		tracker $cmd -h >help &&
		sed -n '/^Options:\$/,/^\$/p' help >section &&
		while read -r o; do
			test_expect_code 2 tracker $cmd $args \"\$o=x\" --zzz-not-an-option \
				>out 2>err </dev/null &&
			! grep \"unknown option '\$o'\" err &&
			grep -E -e \"^  (-[a-zA-Z], )?\$o( |\\\$)\" section ||
			{ echo \"\$o: refused, or not in the options of -h\"; return 1; }
			case $cmd in help|version) continue ;; esac
			grep -E -q -e \"\$o([^a-z0-9-]|\\\$)\" \"\$TRACKER_ROOT/docs/tracker-$cmd.md\" ||
			{ echo \"\$o: not in docs/tracker-$cmd.md\"; return 1; }
		done <options &&
		{ grep -c -e '^  -' section || :; } >listed &&
		test \"\$(cat listed)\" = \"\$(wc -l <options)\" &&
		sed '/^\$/q' help | grep -o -E -e '--[a-z][a-z0-9-]*' | sort -u >synopsis &&
		while read -r o; do
			grep -q -x -e \"\$o\" options ||
			{ echo \"the synopsis shows \$o, which tracker $cmd does not take\"; return 1; }
		done <synopsis
	"
done

test_expect_success 'tracker --help lists every command' '
	tracker --help >out &&
	head -n 1 out | grep "^usage: tracker" &&
	for cmd in $commands; do
		grep -E "^ +$cmd +[a-z]" out || { echo "missing $cmd" >&2; return 1; }
	done
'

test_expect_success 'tracker help with no command is tracker --help' '
	tracker --help >expect &&
	tracker help >actual &&
	test_cmp expect actual
'

test_expect_success 'tracker --version matches VERSION' '
	echo "tracker $(cat "$TRACKER_ROOT/VERSION")" >expect &&
	tracker --version >actual &&
	test_cmp expect actual &&
	grep -E "^tracker [0-9]+\.[0-9]+\.[0-9]+\$" actual
'

test_expect_success 'tracker version is tracker --version' '
	tracker --version >expect &&
	tracker version >actual &&
	test_cmp expect actual
'

test_expect_success 'help and version work with a broken .tracker.yml' '
	printf "bogus: 1\n" >.tracker.yml &&
	tracker version >version 2>err1 &&
	tracker help >help 2>err2;
	rc=$?;
	rm -f .tracker.yml;
	test $rc = 0 &&
	grep "^tracker [0-9]" version &&
	grep "^usage: tracker" help
'

test_expect_success 'tracker with no arguments is a usage error' '
	test_expect_code 2 tracker >out 2>err &&
	grep "^usage: tracker" err &&
	test_must_be_empty out
'

test_expect_success 'a mistyped command exits 2 and suggests the right one' '
	test_expect_code 2 tracker histroy >out 2>err &&
	grep "histroy" err &&
	grep -w "history" err &&
	test_must_be_empty out
'

test_expect_success 'an unknown option exits 2' '
	test_expect_code 2 tracker --bogus >out 2>err &&
	grep -e "--bogus" err
'

test_expect_success 'help for an unknown command exits 2' '
	test_expect_code 2 tracker help bogus 2>err &&
	grep "bogus" err
'

for cmd in $commands; do
	case $cmd in
	help|version)
		continue ;;
	esac
	test_expect_success "docs/tracker-$cmd.md exists" "
		test -s \"\$TRACKER_ROOT/docs/tracker-$cmd.md\" &&
		grep -q \"tracker $cmd\" \"\$TRACKER_ROOT/docs/tracker-$cmd.md\"
	"
	test_expect_success "docs/tracker.1 has a section for tracker $cmd" "
		grep -E -q '^\\.SS \"?tracker $cmd( |\"|\$)' \"\$TRACKER_ROOT/docs/tracker.1\"
	"
done

test_done
