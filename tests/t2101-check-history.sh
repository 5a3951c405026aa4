#!/bin/sh
# tracker check --history: the change points of the baseline branch's
# series, with default options. A key whose walltime steps up by 15% at
# build 125 of 60 builds of main (noise about 1.5%) and whose peak RSS
# steps down by 20% at build 140: --format json names those builds, the
# commits either side and the levels; the text and markdown outputs list
# them too; a flat key has none.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/t2100-check/mkrec.sh"

noise="1.000 1.012 0.991 1.018 1.003 0.985 1.009 0.996 0.979 1.021 1.006 0.994"

test_expect_success 'setup: 60 builds of main, 101..160' '
	mkdir recs && i=0 &&
	while [ $i -lt 60 ]; do
		b=$((101 + i)) &&
		m=$(echo $noise | cut -d" " -f$((i % 12 + 1))) &&
		w=$(echo "100 * $m * ($b >= 125) * 0.15 + 100 * $m" | bc -l) &&
		rss=$((b >= 140 ? 800000000 : 1000000000)) &&
		mkrec recs $b amip main $b "$w" $rss &&
		mkrec recs $((1000 + b)) flat main $b "$(echo "50 * $m" | bc -l)" 1000000000 &&
		i=$((i + 1)) || return 1
	done &&
	tracker push --db h.db recs >/dev/null 2>&1 &&
	tracker history --db h.db --format csv >all.csv &&
	test $(wc -l <all.csv) = 121
'

test_expect_success 'json: the walltime step at build 125, the maxrss step at 140' '
	tracker check --db h.db --key amip --branch main --history --format json >out.json &&
	python3 - out.json <<-\EOF
	import json, sys
	doc = json.load(open(sys.argv[1]))
	r = doc["results"][0]
	assert r["key"] == "amip" and r["baseline_branch"] == "main", r
	m = {x["metric"]: x for x in r["metrics"]}
	w = m["walltime"]["changepoints"]
	assert len(w) == 1, w
	assert w[0]["build"] == "125" and w[0]["build_before"] == "124", w
	assert w[0]["commit"] == "125" + "abcdef" * 6 + "a", w
	assert w[0]["commit_before"] == "124" + "abcdef" * 6 + "a", w
	assert 99 < w[0]["before"] < 101 and 114 < w[0]["after"] < 116, w
	rss = m["maxrss"]["changepoints"]
	assert len(rss) == 1 and rss[0]["build"] == "140", rss
	assert rss[0]["before"] == 1e9 and rss[0]["after"] == 8e8, rss
	assert m["walltime"]["series_runs"] == 59, m["walltime"]["series_runs"]
	assert m["walltime"]["verdict"] == "no change", m["walltime"]
	EOF
'

test_expect_success 'text and markdown list the change points' '
	tracker check --db h.db --key amip --branch main --history >out &&
	grep "^amip  walltime  #125   124abcdefa..125abcdefa  *1m 40s  *1m 55s  *+15.2%$" out &&
	grep "^amip  maxrss    #140  .*954 MiB  *763 MiB  *-20.0%" out &&
	tracker check --db h.db --key amip --branch main --history --format markdown >out.md &&
	grep "^| amip | walltime | 125 | 124abcdefa\\.\\.125abcdefa | 1m 40s | 1m 55s | +15.2% |$" out.md
'

test_expect_success 'a flat key has no change point' '
	tracker check --db h.db --key flat --branch main --history --format json >flat.json &&
	python3 -c "import json,sys; d=json.load(open(\"flat.json\")); \
assert all(m[\"changepoints\"] == [] for m in d[\"results\"][0][\"metrics\"])" &&
	tracker check --db h.db --key flat --branch main --history >flat.out &&
	grep "^change points of the baseline branch: none$" flat.out
'

test_done
