#!/bin/sh
# tracker check --metric alloc: the bytes a run allocated are the total of
# its stored alloc profile. Runs recorded from record files, each given an
# allocation profile with `tracker import --kind alloc`; the feature build
# allocates 1.5x as much and is a regression of alloc only.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/t2100-check/mkrec.sh"

test_expect_success 'setup: 8 builds of main and one of feature, with alloc profiles' '
	mkdir recs &&
	for i in 1 2 3 4 5 6 7 8; do
		mkrec recs $i model main $i 10.$i 1000000 || return 1
	done &&
	mkrec recs 9 model feature 9 10.4 1000000 &&
	tracker push --db h.db recs >/dev/null 2>&1 &&
	for i in 1 2 3 4 5 6 7 8 9; do
		bytes=$((1000000 + i * 3000)) &&
		{ [ $i -lt 9 ] || bytes=1500000; } &&
		printf "main;solve;malloc %d\nmain;io %d\n" $((bytes - 1000)) 1000 >p$i.folded &&
		tracker import --db h.db --run 00000000-0000-4000-8000-00000000000$i \
			--kind alloc p$i.folded >/dev/null 2>&1 || return 1
	done
'

test_expect_success 'alloc regressed by 48%, walltime did not change' '
	test_expect_code 1 tracker check --db h.db --key model --branch feature \
		--metric walltime,alloc >out &&
	cat out &&
	grep "^model  walltime  no change " out &&
	grep "^model  alloc     regression  990 KiB ±0.9%  1.43 MiB  +48.0%  t [0-9.]* > 3.50 (interval)" out
'

test_expect_success 'a run without an alloc profile has no alloc figure' '
	mkrec recs 10 model other 10 10.1 1000000 &&
	tracker push --db h.db recs/model-10.json >/dev/null 2>&1 &&
	tracker check --db h.db --key model --branch other --metric alloc >out &&
	grep "^model  alloc   insufficient data .*the current run has no such figure" out
'

test_done
