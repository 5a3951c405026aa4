#!/bin/sh
# tracker check with default flags on recorded histories: record files
# with chosen walltimes and peaks (tests/t2100-check/mkrec.sh), pushed into
# a real SQLite database, judged against the last 10 runs of main. A clear
# regression fails (exit 1); an improvement, noise, a noisy key and too
# little history do not (exit 0), each saying which; a key no run has is
# bad data (exit 65) naming the nearest keys; runs of another
# machine class stay out of the baseline; hostile names are escaped.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/t2100-check/mkrec.sh"

# 10 multipliers of about +-1.5%, and of about +-8%
quiet="1.000 1.012 0.991 1.018 1.003 0.985 1.009 0.996 0.979 1.021"
noisy="1.00 1.09 0.93 1.12 0.97 0.88 1.06 1.01 0.91 1.14"

# history KEY BASE_S MULTIPLIERS [CLASS]: builds 1..10 of main
history() {
	i=0
	for m in $3; do
		i=$((i + 1))
		mkrec recs $((id + i)) "$1" main $i "$(echo "$2 * $m" | bc -l)" 1073741824 "${4:--}"
	done
	id=$((id + 100))
}

test_expect_success 'setup: histories of five keys' '
	mkdir recs && id=0 &&
	history slow 100 "$quiet" && mkrec recs $id slow feature 11 125 1073741824 &&
	history fast 100 "$quiet" && mkrec recs $id fast feature 11 80 1073741824 &&
	history same 100 "$quiet" && mkrec recs $id same feature 11 101.5 1075000000 &&
	history noisy 100 "$noisy" && mkrec recs $id noisy feature 11 115 1073741824 &&
	history young 100 "1 1.01 0.99" && mkrec recs $id young feature 11 150 1073741824 &&
	tracker push --db h.db recs >push.out 2>&1 &&
	grep "^48 stored" push.out
'

test_expect_success 'a clear regression exits 1 and says so' '
	test_expect_code 1 tracker check --db h.db --key slow --branch feature >out &&
	cat out &&
	grep "^slow: feature #11 11abcdefab (run 00000000) against 10 runs of main$" out &&
	grep "^slow  walltime  regression  .*1m 40s ±1.6%  *2m 05s  *+24.8%  t [0-9.]* > 3.25 (interval)" out &&
	grep "^slow  maxrss    no change " out
'

test_expect_success 'a key named twice is checked once' '
	test_expect_code 1 tracker check --db h.db --key slow --key slow --branch feature >out2 &&
	test_cmp out out2
'

test_expect_success 'a clear improvement exits 0' '
	tracker check --db h.db --key fast --branch feature >out &&
	grep "^fast  walltime  improvement .* -20.1%  t -[0-9.]* < -3.25 (interval)" out
'

test_expect_success 'noise is no change' '
	tracker check --db h.db --key same --branch feature >out &&
	grep "^same  walltime  no change .* +1.3%  t 0.93 within ±3.25 (interval)" out &&
	grep "^same  maxrss    no change .* +0.1% .*within the effect floor" out
'

test_expect_success 'a noisy key stays quiet at +15%' '
	tracker check --db h.db --key noisy --branch feature >out &&
	grep "^noisy  walltime  no change .*±11.8% .* +14.4% " out
'

test_expect_success 'too few runs: insufficient data, exit 0, with a note' '
	tracker check --db h.db --key young --branch feature >out &&
	grep "^young  walltime  insufficient data .*too few baseline runs" out
'

test_expect_success 'a key with runs, none on this branch: insufficient data, exit 0' '
	tracker check --db h.db --key slow --branch nosuch >out 2>err &&
	grep "^slow  walltime  insufficient data .*no run of the key on this branch" out
'

test_expect_success 'a key no run has, on any branch: exit 65 naming the nearest keys' '
	test_expect_code 65 tracker check --db h.db --key slwo --branch feature >out 2>err &&
	test ! -s out &&
	grep "^tracker: error: no runs of key .slwo.; the nearest key is .slow.$" err &&
	test_expect_code 65 tracker check --db h.db --key same --key nosuchkey >out 2>err &&
	test ! -s out &&
	grep "^tracker: error: no runs of key .nosuchkey.; no key is near it (the database has 5 keys)$" err &&
	test_expect_code 65 tracker check --db h.db --key nois --format json >out 2>err &&
	test ! -s out &&
	grep "the nearest key is .noisy.$" err
'

test_expect_success 'several keys: exit 1 when one regressed' '
	test_expect_code 1 tracker check --db h.db --key same --key slow --branch feature >out &&
	grep "^same  walltime  no change" out && grep "^slow  walltime  regression" out
'

test_expect_success 'the percent method with its threshold' '
	tracker check --db h.db --key slow --branch feature --method percent --threshold 30 >out &&
	grep "^slow  walltime  no change .*+24.8% within ±30% (percent)" out &&
	test_expect_code 1 tracker check --db h.db --key slow --branch feature --method percent
'

test_expect_success 'a rule in .tracker.yml sets the method of a key and metric' '
	cat >.tracker.yml <<-\EOF &&
	check:
	  keys:
	    slow:
	      walltime: { method: percent, threshold: 30 }
	      cpu: { method: percent, threshold: 30 }
	EOF
	tracker check --db h.db --key slow --branch feature >out &&
	grep "^slow  walltime  no change .*(percent)" out &&
	grep "^slow  cpu       no change .*(percent)" out &&
	test_expect_code 1 tracker check --db h.db --key slow --branch feature --method interval &&
	rm .tracker.yml
'

test_expect_success 'an unknown check setting is a warning naming its line' '
	printf "check:\n  keys:\n    slow:\n      walltime: { methd: percent }\n" >.tracker.yml &&
	test_expect_code 1 tracker check --db h.db --key slow --branch feature >out 2>err &&
	grep "warning: .*.tracker.yml:4:19: unknown field .methd. in check of walltime (did you mean .method.?); ignored" err &&
	rm .tracker.yml
'

test_expect_success 'machine classes: the slow class stays out of the baseline' '
	mkdir mc && id=500 &&
	i=0 && for m in $quiet; do
		i=$((i + 1)) &&
		mkrec mc $((id + 2 * i)) ocean main $i "$(echo "100 * $m" | bc -l)" 1073741824 cpu &&
		mkrec mc $((id + 2 * i + 1)) ocean main $i "$(echo "180 * $m" | bc -l)" 1073741824 gpu || return 1
	done &&
	mkrec mc 600 ocean feature 11 102 1073741824 cpu &&
	mkrec mc 601 ocean feature 11 180 1073741824 gpu &&
	tracker push --db mc.db mc >/dev/null &&
	tracker check --db mc.db --key ocean --branch feature --run 00000000-0000-4000-8000-000000000600 >out &&
	grep "against 10 runs of main, machine class cpu$" out &&
	grep "^ocean  walltime  no change " out &&
	tracker check --db mc.db --key ocean --branch feature --format json \
		--run 00000000-0000-4000-8000-000000000600 >out.json &&
	! grep "\"machine_class\": \"gpu\"" out.json &&
	tracker check --db mc.db --key ocean --branch feature --machine-class gpu \
		--run 00000000-0000-4000-8000-000000000600 >out &&
	grep "^ocean  walltime  improvement .*-43" out
'

test_expect_success 'markdown escapes hostile key and branch names' '
	mkdir evil && key="x|<img src=a onerror=alert(1)>*[y](z)" &&
	branch="br\\u001b[31m_<b>|" &&
	i=0 && for m in $quiet; do
		i=$((i + 1)) &&
		mkrec evil $i "$key" main $i "$(echo "10 * $m" | bc -l)" 1000000 || return 1
	done &&
	mkrec evil 11 "$key" "$branch" 11 30 1000000 &&
	tracker push --db evil.db evil >/dev/null &&
	evil_branch=$(printf "br\033[31m_<b>|") &&
	test_expect_code 1 tracker check --db evil.db --branch "$evil_branch" --format markdown >out.md &&
	cat out.md &&
	grep "^| x&#124;&lt;img src\\\\=a onerror\\\\=alert\\\\(1\\\\)&gt;\\\\\*\\\\\[y\\\\\]\\\\(z\\\\) | walltime | \*\*regression\*\* |" out.md &&
	! grep "<img\|<b>" out.md &&
	! grep "$(printf "\033")" out.md &&
	grep "br\\\\x1b\\\\\[31m\\\\_&lt;b&gt;&#124;" out.md &&
	test_expect_code 1 tracker check --db evil.db --branch "$evil_branch" >out.txt &&
	! grep "$(printf "\033")" out.txt &&
	grep "br\\\\x1b\[31m_<b>|" out.txt
'

test_expect_success 'usage errors exit 2' '
	test_expect_code 2 tracker check --db h.db --metric walltime,rss &&
	test_expect_code 2 tracker check --db h.db --method magic &&
	test_expect_code 2 tracker check --db h.db --window 1 &&
	test_expect_code 2 tracker check --db h.db --format html &&
	test_expect_code 2 tracker check --db h.db --threshold 5
'

test_expect_success 'no database: exit 69' '
	test_expect_code 69 tracker check --db missing.db --key slow
'

test_done
