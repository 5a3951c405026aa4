#!/bin/sh
# The peak RSS of a very short job: one early /proc sample may catch the
# job in the middle of its exec with a fraction of its pages, so it does
# not replace ru_maxrss: the figure is ru_maxrss flagged upper-bound, or
# the sampled peak only after at least three samples.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'twenty runs of /bin/true: no figure from one or two early samples' '
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		tracker run -q --key tiny --db db.sqlite --artifacts art -- true || return 1
	done &&
	tracker history --db db.sqlite --key tiny --format json >runs.json &&
	python3 - <<-\PY
	import json
	runs = json.load(open("runs.json"))
	assert len(runs) == 20, len(runs)
	bad = [(r["maxrss_source"], r["tree_samples"], r["maxrss_bytes"]) for r in runs
	       if not (r["maxrss_source"] == "upper-bound" or
	               (r["maxrss_source"] == "sampled" and r["tree_samples"] >= 3))]
	assert not bad, bad
	PY
'

test_expect_success 'the upper bound is ru_maxrss, at least the job'"'"'s own pages' '
	python3 - <<-\PY
	import json
	runs = json.load(open("runs.json"))
	low = [r["maxrss_bytes"] for r in runs if r["maxrss_source"] == "upper-bound"
	       and r["maxrss_bytes"] < 256 * 1024]
	assert not low, low
	PY
'

test_expect_success 'a job that lives a while is still measured by its samples' '
	tracker run -q --key nap --db db.sqlite --artifacts art -- sleep 0.3 &&
	tracker history --db db.sqlite --key nap --format csv >out &&
	test "$(csv_field out 1 maxrss_source)" = sampled
'

test_done
