#!/bin/sh
# Profiles belong to runs: run --profile-file, import, push, and the store.

. "$(dirname "$0")/test-lib.sh"

printf 'main;solve;step 30\nmain;solve 10\nmain;io 5\n' >"$TRASH_DIRECTORY/prof.folded"

test_expect_success SQLITE3 'run --profile-file stores the profile the job wrote with the run' '
	tracker run -q --key k --db h.db --artifacts arts --profile-file out.folded -- \
		cp prof.folded out.folded &&
	test "$(sqlite3 h.db "SELECT kind, unit, nodes, total FROM profiles")" = "cpu|samples|4|45.0" &&
	ls arts/k-*.cpu.tkprof &&
	grep "\"kind\": \"cpu\"" arts/k-*.json
'

test_expect_success 'a missing profile file is a warning; the job keeps its status' '
	test_expect_code 3 tracker run --key k --db h.db --artifacts arts \
		--profile-file nothing-here.folded -- sh -c "exit 3" 2>err &&
	grep "no profile at .nothing-here.folded." err
'

test_expect_success 'a profile tracker cannot read is a warning; the job keeps its status' '
	printf "\\001\\002\\003 garbage\\n" >garbage.bin &&
	tracker run --key k --db h.db --artifacts arts --profile-file garbage.bin -- true 2>err &&
	grep "garbage.bin" err &&
	grep "recorded without this profile" err
'

test_expect_success SQLITE3 'PATH:FORMAT names the format; --profile-kind names the kind' '
	cp prof.folded p.txt &&
	tracker run -q --key k2 --db h.db --artifacts arts --profile-file p.txt:folded \
		--profile-kind alloc -- true &&
	test "$(sqlite3 h.db "SELECT p.kind FROM profiles p JOIN runs r USING (run_id) WHERE r.key = '"'"'k2'"'"'")" = alloc
'

test_expect_success SQLITE3 'import attaches a file to the newest run of a key' '
	tracker run -q --key imp --db h.db --artifacts arts -- true &&
	tracker import --key imp --db h.db prof.folded 2>err &&
	grep "stored the cpu profile" err &&
	id=$(tracker history --db h.db --key imp --format csv | sed -n 2p | cut -d, -f1) &&
	test "$(sqlite3 h.db "SELECT run_id FROM profiles WHERE kind = '"'"'cpu'"'"' AND run_id = '"'"'$id'"'"'")" = "$id"
'

test_expect_success SQLITE3 'import --run replaces a profile of the same kind' '
	id=$(tracker history --db h.db --key imp --format csv | sed -n 2p | cut -d, -f1) &&
	printf "x;y 1\n" >small.folded &&
	tracker import --run "$id" --db h.db small.folded &&
	test "$(sqlite3 h.db "SELECT count(*), max(total) FROM profiles WHERE run_id = '"'"'$id'"'"'")" = "1|1.0"
'

test_expect_success 'import errors: no such run 65, bad file 65, usage 2' '
	test_expect_code 65 tracker import --key nobody --db h.db prof.folded &&
	test_expect_code 65 tracker import --key imp --db h.db garbage.bin 2>err &&
	grep "garbage.bin" err &&
	test_expect_code 2 tracker import --db h.db prof.folded &&
	test_expect_code 2 tracker import --key imp --run x --db h.db prof.folded &&
	test_expect_code 2 tracker import --key imp --format nonesuch --db h.db prof.folded &&
	test_expect_code 2 tracker import --key imp --kind "Bad Kind" --db h.db prof.folded
'

test_expect_success SQLITE3 'push carries the profiles of records that missed the database' '
	: >blocker &&
	tracker run -q --key off --db "$PWD/blocker/h.db" --artifacts offline \
		--profile-file prof.folded -- true 2>err;
	grep "tracker push" err &&
	ls offline/off-*.cpu.tkprof &&
	tracker push --db h.db offline/ &&
	test "$(sqlite3 h.db "SELECT p.total FROM profiles p JOIN runs r USING (run_id) WHERE r.key = '"'"'off'"'"'")" = 45.0
'

test_expect_success 'push refuses a corrupt profile file and says which' '
	mkdir bad && cp offline/off-*.json bad/ &&
	printf "not a profile" >"bad/$(basename offline/off-*.cpu.tkprof)" &&
	test_expect_code 65 tracker push --db h2.db bad/ 2>err &&
	grep "corrupt stored profile" err
'

test_expect_success 'flame --key draws the newest stored profile of the key' '
	tracker flame --key k --db h.db -o k.folded &&
	printf "main;io 5\nmain;solve 10\nmain;solve;step 30\n" >expect &&
	test_cmp expect k.folded
'

test_expect_success 'flame --run, --kind and --branch pick the stored profile' '
	id=$(tracker history --db h.db --key k2 --format csv | sed -n 2p | cut -d, -f1) &&
	tracker flame --run "$id" --kind alloc --db h.db -o k2.folded &&
	test_cmp expect k2.folded &&
	test_expect_code 65 tracker flame --run "$id" --kind cpu --db h.db -o x.svg 2>err &&
	grep "with a cpu profile" err &&
	test_expect_code 65 tracker flame --key k --branch no-such-branch --db h.db -o x.svg
'

test_expect_success 'flame --key of a key no run has: exit 65 naming the nearest keys' '
	test_expect_code 65 tracker flame --key k3 --db h.db -o typo.svg 2>err &&
	grep "^tracker: error: no runs of key .k3.; the nearest keys are .k., .k2.$" err &&
	! test -e typo.svg
'

test_expect_success 'a stored profile graph names its run in the subtitle, as diff does' '
	tracker flame --key k --db h.db -o k.svg &&
	grep "id=\"subtitle\"" k.svg >sub &&
	cat sub &&
	short=$(sed -n "s/.*>k · [^<]* (run \([0-9a-f]\{8\}\))<.*/\1/p" sub) &&
	test -n "$short" &&
	tracker history --db h.db --key k --format csv >runs.csv &&
	grep "^$short" runs.csv
'

test_expect_success 'flame source errors are usage errors' '
	test_expect_code 2 tracker flame --run x --key k --db h.db -o x.svg &&
	test_expect_code 2 tracker flame prof.folded --key k --db h.db -o x.svg &&
	test_expect_code 2 tracker flame --branch main prof.folded -o x.svg &&
	test_expect_code 2 tracker flame --key k --format folded --db h.db -o x.svg &&
	test_expect_code 69 tracker flame --key k --db nowhere.db -o x.svg
'

test_done
