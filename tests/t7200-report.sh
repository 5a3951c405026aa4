#!/bin/sh
# tracker report: a build's charts, verdicts and summary in a directory,
# published through the CI provider. Builds are records pushed into a
# real database (walltimes of a model that runs ~100 s with ~1% noise);
# buildkite-agent is a stand-in on PATH (bin/buildkite-agent) that records
# its argv and standard input.

. "$(dirname "$0")/test-lib.sh"

command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3
command -v buildkite-agent >/dev/null 2>&1 || test_set_prereq NO_REAL_AGENT

mkdir bin
cat >bin/buildkite-agent <<'EOF'
#!/bin/sh
n=$(cat agent.calls 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >agent.calls
printf '%s\n' "$@" >agent.argv.$n
cat >agent.stdin.$n
if [ -n "$FAKE_AGENT_FAIL" ]; then
	echo "fatal: failed to upload artifacts: POST https://agent.buildkite.com/v3/jobs/x/artifacts: 401 Unauthorized" >&2
	exit 1
fi
EOF
chmod +x bin/buildkite-agent

# record DIR KEY BRANCH BUILD WALLTIME_S MAXRSS_BYTES [N]: one run record
record() {
	n=${7:-0}
	id=$(printf '%08d-0000-4000-8000-%012d' "$4" "$(printf '%s' "$2" | cksum | cut -c1-6)$n")
	mkdir -p "$1"
	cat >"$1/$4-$n-$(printf '%s' "$2" | cksum | cut -d" " -f1).json" <<-EOF
	{"format": "tracker-run", "version": 1, "run": {
	  "id": "$id", "key": $(printf '%s' "$2" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'),
	  "status": "ok", "partial": false,
	  "started_at_us": $((1767225600000000 + $4 * 3600000000 + n * 1000000)),
	  "walltime_s": $5, "user_s": $5, "sys_s": 1.5, "maxrss_bytes": $6,
	  "tree_rss_bytes": $6, "exit_code": 0, "signal": 0,
	  "ci": {"provider": "buildkite", "pipeline": "climate", "branch": $(printf '%s' "$3" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'),
	         "build_number": "$4", "default_branch": "main",
	         "commit": "$(printf '%s%s' "$3" "$4" | sha1sum | cut -c1-40)"}}}
	EOF
}

# in_build BRANCH NUMBER CMD...: CMD as a Buildkite job of that build
in_build() {
	b=$1 n=$2
	shift 2
	env BUILDKITE=true BUILDKITE_BRANCH="$b" BUILDKITE_BUILD_NUMBER="$n" \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_PULL_REQUEST=false \
		BUILDKITE_PIPELINE_SLUG=climate BUILDKITE_LABEL=report \
		BUILDKITE_BUILD_URL="https://buildkite.com/clima/climate/builds/$n" "$@"
}

test_expect_success PYTHON3 'a history: six builds of main, a feature build twice as slow on beta' '
	for b in 1 2 3 4 5 6; do
		record recs alpha main $b "10$b.25" 2147483648 &&
		record recs beta main $b "9$b.5" 1073741824 &&
		record recs gamma main $b "20$b.0" 4294967296 || return 1
	done &&
	record recs alpha feature 9 103.75 2147483648 &&
	record recs beta feature 9 190.5 1073741824 &&
	record recs gamma feature 9 204.5 4294967296 &&
	tracker push --db h.db recs
'

test_expect_success PYTHON3 'default flags: the table shows beta as a regression, the others no change' '
	in_build feature 9 tracker report --db h.db >out 2>err &&
	cat out &&
	grep "^wrote the report of 3 keys to tracker-artifacts/report (1 regression)$" out &&
	test $(wc -l <out) = 1 &&
	R=tracker-artifacts/report &&
	grep "^### tracker: performance of build 9 on feature$" $R/summary.md &&
	grep "^3 keys: \*\*1 regression\*\*, 2 no change\.$" $R/summary.md &&
	grep "^| beta | 3m 11s | \*\*+102\.7%\*\* (1m 34s, 6 runs) | 1\.00 GiB | +0\.0% (1\.00 GiB, 6 runs) | \*\*regression\*\* (cpu +101\.0%) | \[history\](beta-[0-9a-f]*\.html) |$" $R/summary.md &&
	grep "^| alpha | .* | no change | " $R/summary.md &&
	grep "^| gamma | .* | no change | " $R/summary.md &&
	test $(grep -c "^| [a-z]* | [0-9]" $R/summary.md) = 3 &&
	grep "^beta   walltime  regression    1m 34s ±2\.4%    3m 11s  +102\.7%  t 32\.86 > 4\.03 (interval)" $R/verdicts.txt &&
	grep "^alpha  walltime  no change " $R/verdicts.txt &&
	grep "^gamma  walltime  no change " $R/verdicts.txt &&
	test "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"verdict\"])" $R/check.json)" = regression &&
	grep "^tracker_walltime_seconds{key=\"beta\"} 190.5$" $R/metrics.txt &&
	tail -1 $R/metrics.txt | grep "^# EOF$"
'

test_expect_success PYTHON3 'the charts are real pictures and pages, linked from the table' '
	R=tracker-artifacts/report &&
	for k in alpha beta gamma; do
		png=$(ls $R/$k-*.png) && html=$(ls $R/$k-*.html) &&
		python3 -c "import sys; d=open(sys.argv[1],\"rb\").read(8); sys.exit(d!=b\"\\x89PNG\\r\\n\\x1a\\n\")" "$png" &&
		grep -q "<svg" "$html" &&
		grep -q "($(basename "$html"))" $R/summary.md || return 1
	done &&
	grep "^All keys: \[dashboard\](dashboard/index\.html)\.$" $R/summary.md &&
	grep -q "beta" $R/dashboard/index.html &&
	grep -q "regression" $R/dashboard/index.html
'

test_expect_success PYTHON3 'the annotation links the uploaded artifacts and shows the charts' '
	A=tracker-artifacts/report/annotation.md &&
	grep "\[history\](artifact://tracker-artifacts/report/beta-[0-9a-f]*\.html)" $A &&
	grep "\[!\[history of beta\](artifact://tracker-artifacts/report/beta-[0-9a-f]*\.png)\](artifact://tracker-artifacts/report/beta-[0-9a-f]*\.html)" $A &&
	grep "<details><summary>History charts of the other keys</summary>" $A &&
	grep "^All keys: \[dashboard\](artifact://tracker-artifacts/report/dashboard/index\.html)\.$" $A &&
	grep "</details>" $A
'

test_expect_success PYTHON3 'the exit status is 0 with a regression: tracker check is the gate' '
	in_build feature 9 tracker report --db h.db --artifacts r0 >/dev/null
'

test_expect_success PYTHON3 '--upload --annotate: the agent uploads first, then annotates (style error) with the body on its input' '
	rm -f agent.* &&
	in_build feature 9 env PATH="$PWD/bin:$PATH" \
		tracker report --db h.db --upload --annotate >out 2>err &&
	cat out &&
	test "$(cat agent.calls)" = 2 &&
	printf "%s\n" artifact upload "tracker-artifacts/report/**/*" >want.1 &&
	test_cmp want.1 agent.argv.1 &&
	! test -s agent.stdin.1 &&
	printf "%s\n" annotate --context tracker --style error >want.2 &&
	test_cmp want.2 agent.argv.2 &&
	test_cmp tracker-artifacts/report/annotation.md agent.stdin.2 &&
	grep "^uploaded .tracker-artifacts/report/\*\*/\*. as artifacts$" out &&
	grep "^annotated the build (style error, [0-9]* bytes)$" out
'

test_expect_success PYTHON3 'an absolute --artifacts DIR under the working directory is uploaded and linked by its relative path' '
	rm -f agent.* &&
	in_build feature 9 env PATH="$PWD/bin:$PATH" \
		tracker report --db h.db --artifacts "$PWD/./perf/rep" --annotate --upload >out &&
	grep "^perf/rep/\*\*/\*$" agent.argv.1 &&
	grep -q "artifact://perf/rep/beta-" agent.stdin.2
'

test_expect_success PYTHON3 'the agent failing: exit 69 naming it, the files written' '
	rm -rf agent.* r69 &&
	in_build feature 9 env PATH="$PWD/bin:$PATH" FAKE_AGENT_FAIL=1 \
		tracker report --db h.db --artifacts r69 --upload --annotate >out 2>err;
	test $? = 69 &&
	cat err &&
	grep "tracker: error: .buildkite-agent artifact. exited 1: fatal: failed to upload artifacts" err &&
	test "$(cat agent.calls)" = 1 &&
	test -s r69/summary.md
'

test_expect_success NO_REAL_AGENT,PYTHON3 'no agent on PATH: the files, and what would have been run' '
	in_build feature 9 tracker report --db h.db --artifacts r-dry --upload --annotate >out &&
	cat out &&
	grep "^buildkite-agent is not on PATH; would run: buildkite-agent artifact upload .r-dry/\*\*/\*.$" out &&
	grep "^buildkite-agent is not on PATH; would run: buildkite-agent annotate --context tracker --style error, with r-dry/annotation.md ([0-9]* bytes) on its input$" out &&
	test -s r-dry/annotation.md
'

test_expect_success PYTHON3 'outside CI: the newest runs on the branch, and what would have been done' '
	tracker report --db h.db --branch feature --baseline-branch main --artifacts r-local \
		--upload --annotate >out &&
	cat out &&
	grep "^wrote the report of 3 keys to r-local (1 regression)$" out &&
	grep "^not under CI: the report stays in r-local; would have uploaded its files and annotated the build (style error, the body is r-local/annotation.md)$" out &&
	grep "^| beta | .* | \*\*regression\*\* (cpu +[0-9.]*%) |" r-local/summary.md
'

test_expect_success PYTHON3 'GitHub Actions: the summary is appended to the step summary, without links' '
	echo "## earlier step" >step-summary.md &&
	env GITHUB_ACTIONS=true GITHUB_REF_NAME=feature GITHUB_STEP_SUMMARY="$PWD/step-summary.md" \
		GITHUB_JOB=report tracker report --db h.db --branch feature --baseline-branch main \
		--artifacts r-gh --annotate --upload >out &&
	cat out &&
	head -1 step-summary.md | grep "^## earlier step$" &&
	grep "^| beta | .* | \*\*regression\*\* (cpu +[0-9.]*%) |  |$" step-summary.md &&
	! grep "artifact://\|\.html)" step-summary.md &&
	grep "^GitHub Actions uploads artifacts with actions/upload-artifact: give it path: r-gh$" out &&
	grep "^wrote the summary to the step summary" out
'

test_expect_success PYTHON3 'GitLab CI: the metrics report, and how to declare it' '
	env GITLAB_CI=true CI_COMMIT_BRANCH=feature CI_JOB_NAME=report \
		tracker report --db h.db --baseline-branch main --artifacts r-gl --annotate >out &&
	cat out &&
	grep "^GitLab CI shows the metrics report r-gl/metrics.txt when the job declares it under artifacts: reports: metrics:$" out &&
	grep "^tracker_walltime_baseline_seconds{key=\"beta\"} 94$" r-gl/metrics.txt
'

test_expect_success 'no database: exit 69' '
	test_expect_code 69 tracker report --db nothing.db --artifacts r-none 2>err &&
	grep "nothing.db" err
'

test_expect_success PYTHON3 'a build that recorded nothing: an empty report, style warning' '
	rm -f agent.* &&
	in_build feature 99 env PATH="$PWD/bin:$PATH" tracker report --db h.db --artifacts r-empty --annotate >out &&
	grep "^wrote the report of 0 keys" out &&
	grep "nothing was recorded in this build" r-empty/summary.md &&
	grep "^warning$" agent.argv.1
'

# Keys and a branch that try to break out of markdown and HTML.
HB="f<img src=x onerror=alert(2)>
## injected"
test_expect_success PYTHON3 'hostile keys and branch are escaped in markdown and HTML' '
	for b in 1 2 3 4 5; do
		record hostile "<script>alert(1)</script>" main $b 10.$b 1000000 &&
		record hostile "a|b|c" main $b 10.$b 1000000 &&
		record hostile "\`rm -rf /\`" main $b 10.$b 1000000 &&
		record hostile "x](javascript:alert(1))" main $b 10.$b 1000000 || return 1
	done &&
	record hostile "<script>alert(1)</script>" "$HB" 7 30 1000000 &&
	record hostile "a|b|c" "$HB" 7 10.1 1000000 &&
	record hostile "\`rm -rf /\`" "$HB" 7 10.2 1000000 &&
	record hostile "x](javascript:alert(1))" "$HB" 7 10.3 1000000 &&
	tracker push --db hostile.db hostile &&
	in_build "$HB" 7 tracker report --db hostile.db --artifacts r-h >out &&
	grep "^wrote the report of 4 keys" out &&
	for f in r-h/summary.md r-h/annotation.md; do
		! grep "<script\|<img\|](javascript" $f &&
		! grep "[^\\]\`" $f &&
		grep -F "| &lt;script&gt;alert\(1\)&lt;\/script&gt; |" $f &&
		grep -F "| a&#124;b&#124;c |" $f &&
		grep -F "| \\\`rm \-rf \/\\\` |" $f &&
		grep -F "| x\]\(javascript\:alert\(1\)\) |" $f &&
		grep -F "on f&lt;img src\=x onerror\=alert\(2\)&gt;\x0a\#\# injected" $f &&
		! grep "^## injected" $f || return 1
	done &&
	python3 - r-h/summary.md <<-\EOF
	import sys
	rows = [l for l in open(sys.argv[1]) if l.startswith("| ") and "---" not in l]
	# every row has the 8 columns of the header: no cell was split by a |
	cells = lambda l: len(l.replace("\\|", "").split("|"))
	assert len(rows) == 5, rows
	assert all(cells(l) == cells(rows[0]) for l in rows), rows
	EOF
'

test_expect_success PYTHON3 'hostile names never reach the chart pages raw' '
	test -s r-h/dashboard/index.html &&
	! grep -l "<script>alert(1)</script>\|<img src=x" r-h/*.html r-h/dashboard/*.html
'

# Many keys with long names that escaping makes longer: more than
# Buildkite's 1 MiB of table. The database is made by pushing one record
# and copying its row with sqlite (python3's module) under 1300 keys.
test_expect_success PYTHON3 'a build of 1301 keys: the annotation stays under 1 MiB, the summary has them all' '
	record big seed feature 9 100.5 1000000 &&
	tracker push --db big.db big >/dev/null &&
	python3 - big.db <<-\EOF &&
	import json, sqlite3, sys
	db = sqlite3.connect(sys.argv[1])
	cur = db.execute("SELECT * FROM runs")
	cols = [d[0] for d in cur.description]
	seed = dict(zip(cols, cur.fetchone()))
	for i in range(1300):
	    r = dict(seed)
	    r["key"] = "<" * 190 + "|%04d" % i
	    r["run_id"] = "%08d-0000-4000-8000-000000000000" % i
	    rec = json.loads(r["record"])
	    rec["run"]["key"], rec["run"]["id"] = r["key"], r["run_id"]
	    r["record"] = json.dumps(rec)
	    names = ", ".join(chr(34) + c + chr(34) for c in cols)
	    db.execute("INSERT INTO runs (%s) VALUES (%s)" % (names, ", ".join("?" * len(cols))),
	               [r[c] for c in cols])
	db.commit()
	EOF
	rm -f agent.* &&
	in_build feature 9 env PATH="$PWD/bin:$PATH" \
		tracker report --db big.db --artifacts r-big --no-charts --annotate >out &&
	grep "^wrote the report of 1301 keys" out &&
	test $(wc -c <r-big/summary.md) -gt 1048576 &&
	test $(grep -c "^| &lt;&lt;&lt;" r-big/summary.md) = 1300 &&
	test $(wc -c <agent.stdin.1) -lt 1048576 &&
	test_cmp r-big/annotation.md agent.stdin.1 &&
	grep "^_[0-9]* of 1301 rows are not shown: the text is limited to 1047552 bytes; summary.md in the report.s files has them all._$" agent.stdin.1 &&
	shown=$(grep -c "^| " agent.stdin.1) &&
	test_within "$shown" 900 1300
'

test_done
