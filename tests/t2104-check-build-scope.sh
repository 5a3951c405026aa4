#!/bin/sh
# Which runs tracker check judges together, with default flags, in the
# builds Buildkite makes: a matrix that runs one step on two queues (each
# kind of machine against its own baseline), two pipelines that share a
# database and a step key (each its own), a step with parallelism (each
# job its own key), and a key whose one rare slow run must not excuse a
# regression of that size.

. "$(dirname "$0")/test-lib.sh"

# bk PIPELINE QUEUE BRANCH BUILD CMD...: one job of a build
bk() {
	_p=$1 _q=$2 _b=$3 _n=$4
	shift 4
	if [ "$_b" = main ]; then _pr=false _base=; else _pr=7 _base=main; fi
	env BUILDKITE=true BUILDKITE_PIPELINE_SLUG="$_p" BUILDKITE_BRANCH="$_b" \
		BUILDKITE_BUILD_NUMBER="$_n" BUILDKITE_COMMIT="$(printf '%040d' "$_n")" \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_STEP_KEY=bench \
		BUILDKITE_AGENT_META_DATA_QUEUE="$_q" BUILDKITE_PULL_REQUEST="$_pr" \
		BUILDKITE_PULL_REQUEST_BASE_BRANCH="$_base" "$@"
}

test_expect_success 'a matrix on two queues: each run against its own class' '
	for n in 1 2 3 4 5 6; do
		bk app small main $n tracker run -q --db m.db -- sleep 0.1 &&
		bk app big main $n tracker run -q --db m.db -- sleep 0.5 || return 1
	done &&
	bk app big feat 7 tracker run -q --db m.db -- sleep 0.5 &&
	bk app small feat 7 tracker run -q --db m.db -- sleep 0.1 &&
	bk app small feat 7 tracker check --db m.db --metric walltime --format json >m.json;
	test $? -le 1 &&
	python3 - <<-\PY
	import json
	res = json.load(open("m.json"))["results"]
	assert sorted(r["machine_class"] for r in res) == ["big", "small"], res
	for r in res:
	    assert len(r["current"]) == 1 and r["current"][0]["machine_class"] == r["machine_class"], r
	    assert all(b["machine_class"] == r["machine_class"] for b in r["baseline"]), r
	    m = r["metrics"][0]
	    assert abs(m["delta_pct"]) < 60, m  # 0.1 s against 0.5 s would be -80% or +400%
	PY
'

test_expect_success 'the text table names the class of each row' '
	bk app small feat 7 tracker check --db m.db --metric walltime >m.txt;
	test $? -le 1 &&
	grep "^bench on small  walltime " m.txt &&
	grep "^bench on big    walltime " m.txt
'

test_expect_success 'the report of the matrix build: an entry per class' '
	bk app small feat 7 tracker report --db m.db --artifacts rep >out 2>err &&
	grep "^wrote the report of 1 key in 2 series (one per machine class) to " out &&
	grep "^1 key in 2 series (one per machine class): " rep/summary.md &&
	grep "^| bench on small | " rep/summary.md &&
	grep -q "(bench_small-[0-9a-f]*\.html)" rep/summary.md &&
	grep "^| bench on big | " rep/summary.md &&
	grep "^tracker_walltime_seconds{key=\"bench\",machine_class=\"big\"} 0\.[45]" rep/metrics.txt &&
	grep "^tracker_walltime_seconds{key=\"bench\",machine_class=\"small\"} 0\.1" rep/metrics.txt
'

test_expect_success 'a matrix build whose slower class regressed: check and the dashboard say so' '
	python3 - <<-\PY &&
	import json, os, random, uuid
	random.seed(5)
	os.makedirs("mx", exist_ok=True)
	t0 = 1790000000 * 10**6
	def run(n, branch, cls, wall, minute):
	    rid = str(uuid.UUID(int=random.getrandbits(128), version=4))
	    json.dump({"format": "tracker-run", "version": 1, "run": {
	        "id": rid, "key": "sim", "status": "ok", "partial": False,
	        "started_at_us": t0 + (n * 60 + minute) * 60 * 10**6,
	        "walltime_s": wall * (1 + random.gauss(0, 0.01)), "maxrss_bytes": 2**30,
	        "maxrss_source": "wait4", "tree_rss_bytes": 2**30, "exit_code": 0,
	        "argv": ["sim"], "tags": {}, "machine_class": cls,
	        "ci": {"provider": "buildkite", "pipeline": "app", "branch": branch,
	               "build_number": str(n), "default_branch": "main"}}},
	        open("mx/%s.json" % rid, "w"))
	for n in range(1, 21):
	    run(n, "main", "gpu", 60, 0)
	    run(n, "main", "cpu", 100, 1)
	run(21, "feat", "gpu", 90, 0)   # the gpu run regressed, +50%
	run(21, "feat", "cpu", 100, 1)  # the cpu run, the newest, did not
	PY
	tracker push --db mx.db mx 2>/dev/null &&
	BASE=main test_expect_code 1 bk app q feat 21 tracker check --db mx.db --metric walltime >mx.txt &&
	cat mx.txt &&
	grep "^sim on cpu  walltime  no change " mx.txt &&
	grep "^sim on gpu  walltime  regression " mx.txt &&
	bk app q feat 21 tracker dashboard --db mx.db -o mxdash 2>/dev/null &&
	tr -d "\n" <mxdash/index.html | sed "s/<tr /\n<tr /g" | grep ">sim</a>" >row &&
	grep -q ">regression<" row
'

test_expect_success 'two pipelines sharing a database: each its own runs, in check and plots' '
	for n in 1 2 3 4 5 6; do
		bk app q main $n tracker run -q --db p.db -- sleep 0.1 || return 1
	done &&
	bk docs q main 3 tracker run -q --db p.db -- sleep 0.6 &&
	bk app q feat 11 tracker run -q --db p.db -- sleep 0.1 &&
	bk docs q feat 11 tracker run -q --db p.db -- sleep 0.6 &&
	bk app q feat 11 tracker check --db p.db --metric walltime >p.txt;
	test $? -le 1 &&
	cat p.txt &&
	grep "^bench: feat #11 0000000000 (run [0-9a-f]*) against 6 runs of main" p.txt &&
	! grep "more run" p.txt &&
	bk docs q feat 11 tracker run -q --db p.db --key docs-only -- true &&
	bk app q feat 11 tracker check --db p.db --metric walltime >p2.txt;
	test $? -le 1 &&
	! grep "docs-only" p2.txt &&
	bk app q feat 11 tracker history --db p.db --key bench --metric walltime --plot p.svg &&
	python3 - <<-\PY &&
	import xml.etree.ElementTree as ET
	t = ["".join(x.itertext()) for x in ET.parse("p.svg").getroot().iter("{http://www.w3.org/2000/svg}text")]
	assert t[0] == "bench \u2014 walltime (pipeline app)", t[:4]
	assert "baseline main (6)" in t, t[:6]
	PY
	bk docs q feat 11 tracker check --db p.db --metric walltime >d.txt &&
	grep "against 1 run of main" d.txt &&
	grep "too few baseline runs" d.txt
'

test_expect_success 'a step with parallelism: each job is its own key' '
	for j in 0 1 2; do
		BUILDKITE_PARALLEL_JOB=$j BUILDKITE_PARALLEL_JOB_COUNT=3 \
			bk app q main 1 tracker run -q --db s.db -- true || return 1
	done &&
	tracker history --db s.db --format csv >s.csv &&
	grep -c ",bench\[[0-2]/3\]," s.csv >n &&
	test "$(cat n)" = 3
'

test_expect_success 'one rare slow run in 30 does not excuse a regression of its size' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" rec --key solver --runs 30 >/dev/null &&
	python3 - rec <<-\PY &&
	import json, os, sys, uuid
	d = sys.argv[1]
	runs = {}
	for f in os.listdir(d):
	    r = json.load(open(os.path.join(d, f)))
	    if r["run"]["ci"]["branch"] == "staging":
	        runs[int(r["run"]["ci"]["build_number"])] = (f, r)
	# one hiccup, 1.5x, among the window of the newest ten
	f, r = runs[126]
	r["run"]["walltime_s"] *= 1.5
	json.dump(r, open(os.path.join(d, f), "w"))
	# a pull request build 1.5x slower, an hour after the newest build
	f, r = runs[129]
	r["run"]["id"] = str(uuid.UUID(int=7, version=4))
	r["run"]["started_at_us"] += 3600 * 1000000
	r["run"]["walltime_s"] = 150.0
	r["run"]["ci"]["branch"] = "feat"
	r["run"]["ci"]["build_number"] = "130"
	json.dump(r, open(os.path.join(d, "pr.json"), "w"))
	PY
	tracker push --db h.db rec 2>err &&
	test_expect_code 1 tracker check --db h.db --key solver --branch feat \
		--baseline-branch staging --metric walltime >h.txt &&
	cat h.txt &&
	grep "^solver  walltime  regression " h.txt
'

test_expect_success 'a current run that could not start, with no baseline branch: says so first' '
	tracker run -q --db n.db --key ns -- ./no-such-command 2>/dev/null;
	test $? = 127 &&
	tracker check --db n.db --key ns >n.txt &&
	grep "^ns   walltime  insufficient data .*the current run could not start" n.txt
'

test_done
