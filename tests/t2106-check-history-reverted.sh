#!/bin/sh
# tracker check --history shows both edges of a regression that was
# later fixed, with default flags: a key whose walltime (and CPU time) is
# 12% higher for builds 30-54 of 80 builds of main and back at the old
# level from build 55, with 2% noise, gets a change point at 30 and one
# at 55, each within one build, and none on its steady peak RSS; a key
# whose level went up at 30 and up again at 55 gets those two and none
# between them; a key that never moved gets none.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/t2100-check/mkrec.sh"

# noise: 2% log-normal, the same every time (a fixed seed)
noise() {
	python3 -c 'import math, random
r = random.Random(int(__import__("sys").argv[1]))
print(" ".join("%.6f" % math.exp(r.gauss(0, 0.02)) for _ in range(80)))' "$1"
}

test_expect_success 'setup: 80 builds of main, three keys' '
	mkdir recs &&
	n1=$(noise 21) && n2=$(noise 22) && n3=$(noise 23) &&
	b=1 &&
	while [ $b -le 80 ]; do
		m1=$(echo $n1 | cut -d" " -f$b) &&
		m2=$(echo $n2 | cut -d" " -f$b) &&
		m3=$(echo $n3 | cut -d" " -f$b) &&
		up=$(( b >= 30 && b <= 54 )) &&
		w=$(echo "100 * $m1 * (1 + 0.12 * $up)" | bc -l) &&
		mkrec recs $b fixed main $b "$w" 1000000000 &&
		w=$(echo "100 * $m2 * (1 + 0.10 * ($b >= 30)) * (1 + 0.10 * ($b >= 55))" | bc -l) &&
		mkrec recs $((1000 + b)) stairs main $b "$w" 1000000000 &&
		w=$(echo "100 * $m3" | bc -l) &&
		mkrec recs $((2000 + b)) steady main $b "$w" 1000000000 &&
		b=$((b + 1)) || return 1
	done &&
	tracker push --db h.db recs >/dev/null 2>&1 &&
	tracker history --db h.db --format csv >all.csv &&
	test $(wc -l <all.csv) = 241
'

# changes KEY: the json of check --history for KEY
changes() {
	tracker check --db h.db --key "$1" --branch main --history --format json
}

test_expect_success 'a regression fixed later: changes at 30 and at 55' '
	changes fixed >fixed.json &&
	python3 - fixed.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))["results"][0]
	m = {x["metric"]: x for x in r["metrics"]}
	for metric in ("walltime", "cpu"):
	    cps = m[metric]["changepoints"]
	    builds = [int(c["build"]) for c in cps]
	    assert len(cps) == 2, (metric, builds)
	    assert abs(builds[0] - 30) <= 1 and abs(builds[1] - 55) <= 1, (metric, builds)
	    up, down = cps
	    assert 1.09 < up["after"] / up["before"] < 1.15, up
	    assert 0.87 < down["after"] / down["before"] < 0.92, down
	    assert int(down["build_before"]) == int(down["build"]) - 1, down
	assert m["maxrss"]["changepoints"] == [], m["maxrss"]
	assert m["walltime"]["series_runs"] == 79, m["walltime"]["series_runs"]
	EOF
'

test_expect_success 'the text output lists both, up then down' '
	tracker check --db h.db --key fixed --branch main --history >fixed.out &&
	grep "^fixed  walltime  #\(29\|30\|31\) .*+1[0-4]\.[0-9]%$" fixed.out &&
	grep "^fixed  walltime  #\(54\|55\|56\) .*-1[0-3]\.[0-9]%$" fixed.out
'

test_expect_success 'two steps up: both, and none between them' '
	changes stairs >stairs.json &&
	python3 - stairs.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))["results"][0]
	m = {x["metric"]: x for x in r["metrics"]}
	builds = [int(c["build"]) for c in m["walltime"]["changepoints"]]
	assert len(builds) == 2, builds
	assert abs(builds[0] - 30) <= 1 and abs(builds[1] - 55) <= 1, builds
	EOF
'

test_expect_success 'a key that never moved: none' '
	changes steady >steady.json &&
	python3 -c "import json; d = json.load(open(\"steady.json\")); \
assert all(m[\"changepoints\"] == [] for m in d[\"results\"][0][\"metrics\"]), d"
'

test_done
