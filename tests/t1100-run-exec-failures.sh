#!/bin/sh
# A command that cannot be run fails as it would under bash: the same exit
# status (127 not found, 126 found but not runnable), a text file without
# #! run by the shell, and a run recorded (status error) either way.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'setup' '
	mkdir bin d &&
	printf "exit 3\n" >bin/script-no-shebang &&
	printf "\177ELF\000\000not really" >bin/binary &&
	printf "\177ELFgarbage with no NUL at all\nexit 5\n" >bin/elf-garbage &&
	printf "#!/nonexistent/interpreter\nexit 0\n" >bin/bad-interpreter &&
	printf "exit 0\n" >bin/not-executable &&
	: >bin/empty &&
	chmod +x bin/script-no-shebang bin/binary bin/elf-garbage bin/bad-interpreter bin/empty
'

# same_as_bash CMD: tracker run exits as `bash -c CMD` does.
same_as_bash() {
	bash -c "$1" >/dev/null 2>&1
	want=$?
	tracker run -q --key exec --db db.sqlite --artifacts art -- "$1" >/dev/null 2>err
	got=$?
	echo "$1: bash $want, tracker $got"
	test "$want" = "$got"
}

test_expect_success 'not found, by path and in PATH: 127, as bash' '
	same_as_bash ./no-such-file &&
	same_as_bash no-such-command-anywhere &&
	grep "command not found" err
'

test_expect_success 'not executable and a directory: 126, as bash' '
	same_as_bash ./bin/not-executable &&
	same_as_bash ./d &&
	grep "Is a directory" err
'

test_expect_success 'a binary of a foreign format: 126, not handed to the shell' '
	same_as_bash ./bin/binary &&
	grep "cannot execute binary file" err &&
	same_as_bash ./bin/elf-garbage &&
	grep "cannot execute binary file" err
'

test_expect_success 'a text file without #!: run by the shell, its status kept' '
	same_as_bash ./bin/script-no-shebang &&
	same_as_bash ./bin/empty
'

test_expect_success 'a #! interpreter that does not exist: as bash' '
	same_as_bash ./bin/bad-interpreter
'

test_expect_success 'PATH: a directory named like the command is skipped, as bash' '
	mkdir -p p1/cmdx p2 &&
	printf "#!/bin/sh\nexit 4\n" >p2/cmdx &&
	chmod +x p2/cmdx &&
	PATH="$PWD/p1:$PWD/p2:$PATH" same_as_bash cmdx
'

# root searches any directory: the unsearchable one needs another user
test_have_prereq NOT_ROOT && test_set_prereq UNSEARCHABLE
if ! test_have_prereq NOT_ROOT && command -v setpriv >/dev/null 2>&1 &&
   setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	test_set_prereq UNSEARCHABLE
	as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi

test_expect_success UNSEARCHABLE 'an unsearchable PATH directory: 127 as bash, not 126' '
	mkdir -p shut open && chmod 700 shut && chmod 777 open . &&
	want=$(PATH="$PWD/shut:/usr/bin:/bin" $as_user bash -c "no-such-cmd-x" 2>/dev/null; echo $?) &&
	got=$(cd open && PATH="$PWD/../shut:/usr/bin:/bin" $as_user "$TRACKER_ROOT/tracker" run -q \
		--key exec --db "$PWD/db.sqlite" --artifacts "$PWD/art" -- no-such-cmd-x 2>/dev/null; echo $?) &&
	echo "bash $want, tracker $got" &&
	test "$want" = 127 && test "$got" = 127
'

test_expect_success 'a job that could not start is recorded: status error, its exit status' '
	rm -f db.sqlite &&
	test_expect_code 127 tracker run -q --key nostart --db db.sqlite --artifacts rec -- ./no-such-file &&
	test_expect_code 126 tracker run -q --key nostart --db db.sqlite --artifacts rec -- ./d &&
	tracker history --db db.sqlite --key nostart --format csv >out &&
	test $(wc -l <out) = 3 &&
	test "$(csv_field out 1 status)" = error &&
	test "$(csv_field out 2 status)" = error &&
	csv_field out 1 exit_code >codes && csv_field out 2 exit_code >>codes &&
	sort codes >got && printf "126\n127\n" >want && test_cmp want got &&
	test $(ls rec/nostart-*.json | wc -l) = 2 &&
	grep "\"status\": \"error\"" rec/nostart-*.json
'

test_expect_success 'a job that could not start: its memory is unknown (-, empty, null), not 0' '
	rm -f db.sqlite &&
	test_expect_code 127 tracker run -q --key e --db db.sqlite --artifacts unk -- /nonexistent-cmd &&
	tracker history --db db.sqlite --key e >out &&
	grep " - *- *error\$" out &&
	! grep " 0 B" out &&
	tracker history --db db.sqlite --key e --format csv >out.csv &&
	test "$(csv_field out.csv 1 maxrss_bytes)" = "" &&
	test "$(csv_field out.csv 1 tree_rss_bytes)" = "" &&
	tracker history --db db.sqlite --key e --format json >out.json &&
	grep "\"maxrss_bytes\": null" out.json &&
	grep "\"tree_rss_bytes\": null" out.json &&
	grep "\"maxrss_bytes\": null" unk/e-*.json &&
	grep "\"tree_rss_bytes\": null" unk/e-*.json
'

test_done
