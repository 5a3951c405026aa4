#!/bin/sh
# A run is named by the start of its id, as tracker prints it ("run
# 61c63795" in tracker run's summary and in diff's labels): --run of
# history, check, flame, diff and import takes the whole id or a unique
# start of it (at least 4 characters); one that several runs share is a
# usage error naming two of them.

. "$(dirname "$0")/test-lib.sh"

export TRACKER_DB="$PWD/db.sqlite" TRACKER_ARTIFACTS="$PWD/art"

test_expect_success 'setup: two runs with profiles, their short ids as printed' '
	printf "main;solve 30\nmain;io 10\n" >one.folded &&
	printf "main;solve 60\nmain;io 10\n" >two.folded &&
	tracker run --key sim --profile-file one.folded -- true 2>one.err &&
	tracker run --key sim --profile-file two.folded -- true 2>two.err &&
	sed -n "s/.*(run \([0-9a-f]*\)).*/\1/p" one.err >one.id &&
	sed -n "s/.*(run \([0-9a-f]*\)).*/\1/p" two.err >two.id &&
	test $(wc -c <one.id) = 9 && test $(wc -c <two.id) = 9
'

test_expect_success 'history --run takes the printed id' '
	tracker history --run $(cat one.id) --format csv >out &&
	test $(wc -l <out) = 2 &&
	grep "^$(cat one.id)-" out
'

test_expect_success 'flame --run takes it' '
	tracker flame --run $(cat two.id) -o two.out.folded &&
	grep "^main;solve 60$" two.out.folded
'

test_expect_success 'diff --run and --baseline-run take them' '
	tracker diff --key sim --run $(cat two.id) --baseline-run $(cat one.id) -o d.txt &&
	grep "solve" d.txt | grep "+100" 
'

test_expect_success 'check --run takes it' '
	tracker check --run $(cat two.id) >c.txt &&
	grep "sim" c.txt
'

test_expect_success 'import --run takes it' '
	printf "main;alloc 5\n" >heap.folded &&
	tracker import --run $(cat one.id) --kind alloc heap.folded &&
	tracker flame --run $(cat one.id) --kind alloc -o heap.out.folded &&
	grep "^main;alloc 5$" heap.out.folded
'

test_expect_success 'a start several runs share: exit 2, two of them named' '
	tracker run -q --key plain -- true &&
	rec=$(ls art/plain-*.json) &&
	id=$(basename "$rec" .json) && id=${id#plain-} &&
	sed "s/$id/abcd0001-0000-4000-8000-000000000000/" "$rec" >twin1.json &&
	sed -e "s/$id/abcd0002-0000-4000-8000-000000000000/" \
		-e "s/\"key\": *\"plain\"/\"key\": \"other\"/" "$rec" >twin2.json &&
	grep "\"key\": *\"other\"" twin2.json &&
	tracker push twin1.json twin2.json &&
	test_expect_code 2 tracker history --run abcd000 2>err &&
	grep "ambiguous" err &&
	grep "abcd0001-0000-4000-8000-000000000000" err &&
	grep "abcd0002-0000-4000-8000-000000000000" err &&
	tracker history --run abcd0002 --format csv >out &&
	grep "^abcd0002-" out
'

test_expect_success 'with --key, only that key'"'"'s runs count' '
	tracker history --key plain --run abcd000 --format csv >out &&
	grep "^abcd0001-" out &&
	test $(wc -l <out) = 2
'

test_expect_success 'a start no run has: the usual "no run" error' '
	test_expect_code 65 tracker flame --run ffff0000 -o x.svg 2>err &&
	grep "no run ffff0000" err
'

test_done
