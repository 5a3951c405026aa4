#!/bin/sh
# Frame names holding ';' (written \x3b in folded input), NUL, line
# breaks, ESC and OSC sequences (whose raw ';' splits frames, as in any
# folded file), markup, quotes and invalid UTF-8 go through every output
# of flame and diff: SVG and HTML stay well-formed, .txt has no control
# byte, PNG and PDF draw, and .folded reads back as the same profile
# (docs/flamegraph-compat.md, "Names that are not plain text").

. "$(dirname "$0")/test-lib.sh"

command -v xmllint >/dev/null 2>&1 && test_set_prereq XMLLINT

test_expect_success 'hostile folded inputs' '
	{
		printf "main;a\\\\x3bb;c 5\n"
		printf "main;nul\\\\x00here 3\n"
		printf "main;line\\\\x0abreak;cr\\\\x0dret 2\n"
		printf "main;esc\033[31mred\033]0;title\007 4\n"
		printf "main;<script>alert(\"x\")</script> &amp; 1\n"
		printf "main;bad\377\376utf8 2\n"
		printf "main;tail like a count\\\\x2012 6\n"
		printf "\\\\x23hash;x 1\n"
	} >base.folded &&
	sed "s/ \([0-9]*\)$/ 1\1/" base.folded >new.folded &&
	cat base.folded
'

test_expect_success 'flame: every output format' '
	for ext in svg html txt folded png pdf; do
		tracker flame base.folded -o flame.$ext || return 1
		test -s flame.$ext || return 1
	done
'

test_expect_success 'diff: every output format' '
	for ext in svg html txt folded png pdf; do
		tracker diff base.folded new.folded -o diff.$ext || return 1
		test -s diff.$ext || return 1
	done
'

test_expect_success XMLLINT 'the SVGs are well-formed XML' '
	xmllint --noout flame.svg &&
	xmllint --noout diff.svg
'

test_expect_success 'no raw control byte in the .txt outputs, escapes shown' '
	! LC_ALL=C grep -q "$(printf "[\001-\010\013-\037\177]")" flame.txt diff.txt &&
	grep -F "esc\\x1b[31mred\\x1b]0" flame.txt &&
	grep -F "title\\x07" flame.txt &&
	grep -F "line\\x0abreak" diff.txt
'

test_expect_success 'no raw ESC or script tag in the pages' '
	! grep -q "$(printf "\033")" flame.svg flame.html diff.svg diff.html &&
	! grep -q "<script>alert" flame.svg flame.html diff.svg diff.html
'

test_expect_success 'flame .folded reads back as the same profile' '
	tracker flame flame.folded -o again.folded &&
	test_cmp flame.folded again.folded &&
	grep -F "main;a\\x3bb;c 5" flame.folded &&
	grep -F "main;nul\\0here 3" flame.folded &&
	grep -F "main;tail like a count\\x2012 6" flame.folded &&
	grep -F "\\x23hash;x 1" flame.folded
'

test_expect_success 'diff .folded: its NEW column reads back as the NEW profile' '
	tracker flame new.folded -o new-out.folded &&
	tracker flame diff.folded -o from-diff.folded &&
	test_cmp new-out.folded from-diff.folded &&
	test $(wc -l <diff.folded) = $(wc -l <flame.folded)
'

test_done
