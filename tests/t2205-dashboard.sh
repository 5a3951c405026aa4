#!/bin/sh
# tracker dashboard with default flags on three keys whose newest build
# regressed (k-slow, walltime x1.5), improved (k-fast, x0.7) or did not
# change (k-same): one page with a row per key (the change in percent
# and the verdict of tracker check, the same as tracker check gives), a
# chart page per key, the same bytes twice and with any number of
# workers, --key-filter, history --plot DIR/index.html as the same
# command, sparklines of at most 200 points, and its errors.

. "$(dirname "$0")/test-lib.sh"

if ! [ -x /usr/bin/python3 ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
	test_done
fi

test_expect_success 'three keys, the newest build differing' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" rec --step-at 159 --step-factor 1 \
		--key k-slow:1.5 --key k-fast:0.7 --key k-same:1 &&
	tracker push --db h.db rec 2>err &&
	grep "198 stored" err
'

# tracker check exits 1 on a regression
test_expect_code_01() { "$@"; test $? -le 1; }

# row KEY: the key's row of the page, one line
row() { tr -d '\n' <dash/index.html | sed 's/<tr /\n<tr /g' | grep ">$1</a>"; }

test_expect_success 'known answer: the page, its rows, deltas and verdicts' '
	tracker dashboard --db h.db -o dash 2>err &&
	grep "wrote dash/index.html (3 keys)" err &&
	ls dash >files &&
	test $(wc -l <files) = 4 &&
	row k-slow >slow && row k-fast >fast && row k-same >same &&
	grep -q ">regression<" slow &&
	grep -q ">improvement<" fast &&
	grep -q ">no change<" same &&
	d=$(sed "s/.*data-d0=\"\([-0-9.]*\)\".*/\1/" slow) &&
	awk -v d="$d" "BEGIN { exit !(d > 40 && d < 60) }" &&
	d=$(sed "s/.*data-d0=\"\([-0-9.]*\)\".*/\1/" fast) &&
	awk -v d="$d" "BEGIN { exit !(d > -40 && d < -20) }" &&
	grep -q "<td class=\"num up\">+[45][0-9].[0-9]%</td>" slow &&
	for k in k-slow k-fast k-same; do
		f=$(row $k | sed "s/.*<a href=\"\([^\"]*\)\">.*/\1/") &&
		test -f "dash/$f" &&
		grep -q "tracker history: $k" "dash/$f" || return 1
	done
'

test_expect_success 'the verdicts and changes are those of tracker check' '
	for k in k-slow k-fast k-same; do
		test_expect_code_01 tracker check --db h.db --key $k --branch staging \
			--baseline-branch staging --format json >$k.json || return 1
		python3 - $k.json "$(row $k)" <<-\EOF || return 1
		import json, re, sys
		c = json.load(open(sys.argv[1]))["results"][0]
		row = sys.argv[2]
		verdict = re.search(r"<span class=\"v-[a-z-]*\">([a-z ]*)</span>", row).group(1)
		assert verdict == c["verdict"], (verdict, c["verdict"])
		d0 = float(re.search(r"data-d0=\"([-0-9.]*)\"", row).group(1))
		want = [m for m in c["metrics"] if m["metric"] == "walltime"][0]["delta_pct"]
		assert abs(d0 - want) < 0.001, (d0, want)
		print(c["key"], verdict, d0)
		EOF
	done
'

test_expect_success 'outside CI: the baseline branch of tracker check, in the row and the chart' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" recmain --key amip --runs 60 \
		--step-at 159 --step-factor 1.3 --default-branch main &&
	tracker push --db main.db recmain 2>/dev/null &&
	tracker check --db main.db --key amip --branch staging --format json >check.json &&
	python3 -c "import json,sys; r=json.load(open(sys.argv[1]))[\"results\"][0]; print(r[\"baseline_branch\"], r[\"verdict\"]); assert r[\"baseline_branch\"] == \"main\"" check.json &&
	tracker dashboard --db main.db -o dmain 2>/dev/null &&
	tr -d "\n" <dmain/index.html | sed "s/<tr /\n<tr /g" | grep ">amip</a>" >amip &&
	grep -q "<td>main</td></tr>" amip &&
	grep -q ">insufficient data<" amip &&
	f=$(sed "s/.*<a href=\"\([^\"]*\)\">.*/\1/" amip) &&
	grep -q ">baseline main (0)<" "dmain/$f" &&
	tracker history --db main.db --key amip --plot amip.svg &&
	grep -q ">baseline main (0)<" amip.svg &&
	test_expect_code 1 tracker check --db main.db --key amip --branch staging \
		--baseline-branch staging --format json >cs.json &&
	tracker dashboard --db main.db -o dstaging --baseline-branch staging 2>/dev/null &&
	tr -d "\n" <dstaging/index.html | sed "s/<tr /\n<tr /g" | grep ">amip</a>" >amips &&
	grep -q "<td>staging</td></tr>" amips &&
	grep -q ">regression<" amips &&
	grep -q "\"verdict\": \"regression\"" cs.json
'

test_expect_success 'each sparkline dot has its own metric'"'"'s verdict colour' '
	row k-slow | grep -o "<circle[^>]*>" >dots &&
	test $(wc -l <dots) = 2 &&
	sed -n 1p dots | grep -q "fill=\"#c62828\"" &&
	sed -n 2p dots | grep -q "fill=\"#d4009b\""
'

test_expect_success 'a CI build that ran no key (a scheduled step): each key'"'"'s newest run' '
	env BUILDKITE=true BUILDKITE_BRANCH=staging BUILDKITE_BUILD_NUMBER=9999 \
		BUILDKITE_PIPELINE_SLUG=dash tracker dashboard --db h.db -o dci 2>err &&
	for k in k-slow k-fast k-same; do
		a=$(row $k | sed "s/<td><span class=\"v-[a-z-]*\">\([a-z ]*\)<.*/\1/; s/.*>//") &&
		b=$(tr -d "\n" <dci/index.html | sed "s/<tr /\n<tr /g" | grep ">$k</a>" |
			sed "s/<td><span class=\"v-[a-z-]*\">\([a-z ]*\)<.*/\1/; s/.*>//") &&
		echo "$k: $a / $b" &&
		test -n "$a" && test "$a" = "$b" || return 1
	done &&
	tr -d "\n" <dci/index.html | sed "s/<tr /\n<tr /g" | grep ">k-slow</a>" | grep -q ">regression<" &&
	grep -q "current: build #9999, else each key&#39;s newest run" dci/index.html &&
	f=$(tr -d "\n" <dci/index.html | sed "s/.*<a href=\"\([^\"]*\)\">k-slow<.*/\1/") &&
	grep -q "class=\"s-current\"" "dci/$f" &&
	grep -q ">newest run<" "dci/$f"
'

test_expect_success 'the same database gives the same bytes' '
	tracker dashboard --db h.db -o dash2 2>/dev/null &&
	for f in $(ls dash); do cmp dash/$f dash2/$f || return 1; done
'

test_expect_success 'one worker or many: the same bytes' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" many --runs 40 \
		--key m1:1 --key m2:1.1 --key m3:1.2 --key m4:1.3 --key m5:1.4 \
		--key m6:1.5 --key m7:0.8 --key m8:0.9 --key m9:1 &&
	tracker push --db many.db many 2>/dev/null &&
	tracker dashboard --db many.db -o j1 -j 1 2>err1 &&
	tracker dashboard --db many.db -o j4 --jobs 4 2>err4 &&
	tracker dashboard --db many.db -o jd 2>errd &&
	grep "(9 keys)" err1 && grep "(9 keys)" err4 && grep "(9 keys)" errd &&
	test $(ls j1 | wc -l) = 10 &&
	for f in $(ls j1); do cmp j1/$f j4/$f && cmp j1/$f jd/$f || return 1; done
'

test_expect_success 'a key that fails fails the page, with any number of workers' '
	f=$(tr -d "\n" <j1/index.html | sed "s/.*<a href=\"\([^\"]*\)\">m5<.*/\1/") &&
	test -f "j1/$f" &&
	for j in 1 4; do
		mkdir -p bad$j/$f/sub &&
		test_expect_code 69 tracker dashboard --db many.db -o bad$j -j $j 2>err &&
		grep "$f" err &&
		! test -e bad$j/index.html || return 1
	done
'

test_expect_success 'history --plot DIR/index.html is the dashboard' '
	tracker history --db h.db --plot dash3/index.html &&
	for f in $(ls dash); do cmp dash/$f dash3/$f || return 1; done
'

test_expect_success '--key-filter takes a shell pattern' '
	tracker dashboard --db h.db -o only --key-filter "k-s*" 2>err &&
	grep "(2 keys)" err &&
	grep -q ">k-slow</a>" only/index.html &&
	! grep -q ">k-fast</a>" only/index.html
'

test_expect_success 'a sparkline has at most 200 points' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" big --key long --runs 500 &&
	tracker push --db big.db big 2>/dev/null &&
	tracker dashboard --db big.db -o bigdash 2>/dev/null &&
	grep -o "<path fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.2\" d=\"[^\"]*\"" \
		bigdash/index.html >sparks &&
	test $(wc -l <sparks) = 2 &&
	while read -r line; do
		n=$(echo "$line" | tr -cd "ML" | wc -c) &&
		echo "$n points" &&
		test "$n" -eq 200 || return 1
	done <sparks
'

test_expect_success 'errors: no -o, no database, no key' '
	test_expect_code 2 tracker dashboard --db h.db &&
	test_expect_code 2 tracker dashboard --db h.db -o x --metric nope &&
	test_expect_code 2 tracker dashboard --db h.db -o x -j 0 &&
	test_expect_code 2 tracker dashboard --db h.db -o x --jobs many &&
	test_expect_code 69 tracker dashboard --db nosuch.db -o x &&
	test_expect_code 65 tracker dashboard --db h.db -o x --key-filter "zzz*" 2>err &&
	grep "no runs of a key matching .zzz\*.; no key is near it (the database has 3 keys)" err &&
	! test -e x &&
	! test -e nosuch.db
'

test_expect_success 'a --key-filter no key matches names the nearest keys' '
	test_expect_code 65 tracker dashboard --db h.db -o x --key-filter "k-slo" 2>err &&
	grep "^tracker: error: no runs of a key matching .k-slo.; the nearest key is .k-slow.$" err &&
	! test -e x
'

test_expect_success 'a --key-filter matching keys with no runs in --since: as before' '
	test_expect_code 65 tracker dashboard --db h.db -o x --key-filter "k-*" \
		--since 2099-01-01 2>err &&
	grep "no keys with runs matching k-\* since 2099-01-01" err &&
	! test -e x
'

test_done
