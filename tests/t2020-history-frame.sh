#!/bin/sh
# tracker history --frame and the functions check --history names: the
# known answer of a model built across 12 builds whose `radiation`
# allocates twice as much from build 8 on (others unchanged, 2% noise).
# history --frame shows the step at build 8 in every format and draws
# it; check --history names radiation first at the change point at build
# 8 and no unchanged function, with the diff of the runs either side; the
# dashboard's key page lists it. A name is found raw or demangled, a
# misspelt one gets the nearest named; hostile function names stay inert
# in every output; profiles stored without frame totals are filled by
# tracker backfill; PostgreSQL gives the same answers.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/t2100-check/mkrec.sh"
. "$TEST_DIRECTORY/t2020-history-frame/model.sh"

PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
	test_done
fi

test_expect_success 'setup: 12 builds, radiation doubling from build 8' '
	model_history recs model radiation &&
	model_import h.db recs
'

test_expect_success 'history --frame: the step at build 8, in CSV' '
	tracker history --db h.db --key model --frame radiation --format csv >r.csv &&
	"$PY" - r.csv <<-\EOF
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	assert len(rows) == 12, rows
	by = {int(r["build"]): r for r in rows}
	for b, r in by.items():
	    assert r["function"] == "radiation" and r["kind"] == "alloc", r
	    assert r["unit"] == "bytes" and r["status"] == "stored", r
	    s = float(r["self"])
	    assert s == float(r["cumulative"]), r
	    lo, hi = (1.9e6, 2.1e6) if b >= 8 else (0.95e6, 1.05e6)
	    assert lo < s < hi, (b, s)
	assert [int(r["build"]) for r in rows] == list(range(12, 0, -1))
	EOF
'

test_expect_success 'history --frame: the table and JSON' '
	tracker history --db h.db --key model --frame radiation >r.txt &&
	test $(grep -c " alloc  radiation " r.txt) = 12 &&
	grep "^00000000 *#8  main .* 1.9[0-9] MiB *1.9[0-9] MiB *2[0-9].[0-9]%$" r.txt &&
	grep "^00000000 *#7  main .* 9[0-9][0-9] KiB " r.txt &&
	tracker history --db h.db --key model --frame radiation --frame io --format json >r.json &&
	"$PY" - r.json <<-\EOF
	import json, sys
	rows = json.load(open(sys.argv[1]))
	assert len(rows) == 24, len(rows)
	assert {r["function"] for r in rows} == {"radiation", "io"}
	r8 = [r for r in rows if r["build"] == "8" and r["function"] == "radiation"][0]
	assert 1.9e6 < r8["self"] < 2.1e6 and r8["total"] > r8["self"], r8
	EOF
'

test_expect_success 'history --frame-match: a family of functions' '
	tracker history --db h.db --key model --frame-match "^(ocean|dyn)" --format csv >m.csv &&
	test $(grep -c ",ocean," m.csv) = 12 &&
	test $(grep -c ",dynamics," m.csv) = 12 &&
	test $(wc -l <m.csv) = 25
'

test_expect_success 'a misspelt function: exit 65 naming the nearest' '
	test_expect_code 65 tracker history --db h.db --key model --frame radiaton 2>err &&
	grep "no function .radiaton. in the frame totals of key .model.; the nearest is .radiation." err &&
	test_expect_code 65 tracker history --db h.db --key model --frame-match "^zzz" 2>err &&
	grep "no function of key .model. matches" err &&
	test_expect_code 2 tracker history --db h.db --frame radiation 2>err &&
	grep "exactly one --key" err
'

test_expect_success 'history --frame --plot draws the function with its change point' '
	tracker history --db h.db --key model --frame radiation --plot r.html &&
	grep -F "model · radiation (self)" r.html &&
	grep -F "model · radiation (cumulative)" r.html &&
	grep -F "change at #8" r.html &&
	tracker history --db h.db --key model --frame radiation --plot r.png &&
	test "$(head -c 4 r.png | tail -c 3)" = PNG &&
	tracker history --db h.db --key model --frame radiation --plot r.svg &&
	"$PY" -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" r.svg
'

test_expect_success 'check --history names radiation at build 8, and nothing unchanged' '
	tracker check --db h.db --key model --branch main --history --format json >c.json &&
	"$PY" - c.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))["results"][0]
	m = {x["metric"]: x for x in r["metrics"]}
	cps = m["alloc"]["changepoints"]
	assert len(cps) == 1 and cps[0]["build"] == "8", cps
	c = cps[0]
	assert c["frames_kind"] == "alloc", c
	names = [f["function"] for f in c["frames"]]
	assert names == ["radiation"], names
	f = c["frames"][0]
	assert f["total"] == "self" and 95 < f["change_pct"] < 105, f
	assert c["diff_command"] == ("tracker diff --key model --baseline-run "
	    "00000000-0000-4000-8000-000000000007 --run 00000000-0000-4000-8000-000000000008"
	    " --kind alloc"), c["diff_command"]
	EOF
'

test_expect_success 'check --history text and markdown list it with the diff command' '
	tracker check --db h.db --key model --branch main --history >c.txt &&
	grep "^  model alloc at #8 (alloc profiles): radiation (self) 9[0-9][0-9] KiB -> 1.9[0-9] MiB (+[0-9.]*%)$" c.txt &&
	grep "^    tracker diff --key model --baseline-run 00000000-0000-4000-8000-000000000007 --run 00000000-0000-4000-8000-000000000008 --kind alloc$" c.txt &&
	! grep "ocean\|dynamics" c.txt &&
	tracker check --db h.db --key model --branch main --history --format markdown >c.md &&
	grep "^#### Functions that moved at the change points" c.md &&
	grep "^- model alloc at #8 (alloc profiles): radiation (self) .*; diff: tracker diff " c.md
'

test_expect_success 'the diff command it gives runs' '
	tracker diff --db h.db --key model --baseline-run 00000000-0000-4000-8000-000000000007 \
		--run 00000000-0000-4000-8000-000000000008 --kind alloc >d.txt 2>/dev/null &&
	grep "radiation" d.txt
'

test_expect_success 'the dashboard key page lists the functions that moved' '
	tracker dashboard --db h.db --metric walltime,alloc -o dash >/dev/null 2>&1 &&
	page=$(ls dash/model-*.html) &&
	grep -F "<h2>Functions that moved at the change points</h2>" $page &&
	grep -F "alloc at #8 8abcdefa +15% (alloc profiles): radiation (self)" $page
'

test_expect_success 'a name matches raw or demangled' '
	model_history mrecs mangled _ZN5Model9radiationEv &&
	for f in mrecs/*.json; do sed -i "s/-8000-0000000000/-8000-0000000001/" $f; done &&
	tracker push --db m.db mrecs >/dev/null 2>&1 &&
	for b in 1 2 3 4 5 6 7 8 9 10 11 12; do
		tracker import --db m.db --no-demangle --run "00000000-0000-4000-8000-$(printf %012d $((b + 100)))" \
			--kind alloc --format folded "mrecs/p$b.folded" 2>/dev/null || return 1
	done &&
	tracker history --db m.db --key mangled --frame "Model::radiation()" --format csv >mm.csv &&
	test $(grep -c ",_ZN5Model9radiationEv," mm.csv) = 12 &&
	tracker history --db m.db --key mangled --frame _ZN5Model9radiationEv --format csv >mr.csv &&
	test_cmp mm.csv mr.csv
'

HOSTILE='<img src=x onerror=alert(1)>&"'"'"',=cmd|x \\ end'

test_expect_success 'hostile function names stay inert in every output' '
	printf "\033[31m" >esc &&
	model_history hrecs hostile "$(cat esc)$HOSTILE" &&
	for f in hrecs/*.json; do sed -i "s/-8000-0000000000/-8000-0000000002/" $f; done &&
	tracker push --db x.db hrecs >/dev/null 2>&1 &&
	for b in 1 2 3 4 5 6 7 8 9 10 11 12; do
		tracker import --db x.db --run "00000000-0000-4000-8000-$(printf %012d $((b + 200)))" \
			--kind alloc --format folded "hrecs/p$b.folded" 2>/dev/null || return 1
	done &&
	tracker history --db x.db --key hostile --frame-match "onerror" >x.txt &&
	! grep -q "$(cat esc)" x.txt &&
	grep -F "\\x1b[31m<img" x.txt &&
	tracker history --db x.db --key hostile --frame-match "onerror" --format csv >x.csv &&
	tracker history --db x.db --key hostile --frame-match "onerror" --format json >x.json &&
	"$PY" - x.csv x.json "$(cat esc)$HOSTILE" <<-\EOF &&
	import csv, json, sys
	want = sys.argv[3]
	rows = list(csv.DictReader(open(sys.argv[1], newline="")))
	assert len(rows) == 12 and rows[0]["function"] == want, rows[0]
	j = json.load(open(sys.argv[2]))
	assert len(j) == 12 and j[0]["function"] == want, j[0]
	EOF
	tracker history --db x.db --key hostile --frame-match "onerror" --plot x.svg &&
	"$PY" -c "import sys, xml.dom.minidom as m; m.parse(sys.argv[1])" x.svg &&
	tracker history --db x.db --key hostile --frame-match "onerror" --plot x.png &&
	test "$(head -c 4 x.png | tail -c 3)" = PNG &&
	tracker history --db x.db --key hostile --frame-match "onerror" --plot x.html &&
	! grep -q "<img src=x" x.html &&
	grep -F "&lt;img src=x onerror=alert(1)&gt;" x.html &&
	tracker check --db x.db --key hostile --branch main --history >xc.txt &&
	! grep -q "$(cat esc)" xc.txt &&
	grep "hostile alloc at #8 (alloc profiles): \\\\x1b\\[31m<img src=x" xc.txt &&
	tracker check --db x.db --key hostile --branch main --history --format markdown >xc.md &&
	! grep -q "<img src=x" xc.md &&
	tracker check --db x.db --key hostile --branch main --history --format json >xc.json &&
	"$PY" - xc.json "$(cat esc)$HOSTILE" <<-\EOF &&
	import json, sys
	r = json.load(open(sys.argv[1]))["results"][0]
	m = {x["metric"]: x for x in r["metrics"]}
	assert m["alloc"]["changepoints"][0]["frames"][0]["function"] == sys.argv[2]
	EOF
	tracker dashboard --db x.db --metric alloc -o xdash >/dev/null 2>&1 &&
	! grep -q "<img src=x" xdash/hostile-*.html &&
	grep -F "&lt;img src=x onerror=alert(1)&gt;" xdash/hostile-*.html
'

test_expect_success SQLITE3 'profiles stored before frame totals: tracker backfill fills them' '
	cp h.db old.db &&
	sqlite3 old.db "DELETE FROM frame_totals; UPDATE profiles SET frames_floor = NULL" &&
	test_expect_code 65 tracker history --db old.db --key model --frame radiation 2>err &&
	grep "its 12 profiles were stored before tracker kept them (tracker backfill stores them)" err &&
	tracker backfill --db old.db 2>bf &&
	grep "frame totals: 12 profiles had none, 12 filled" bf &&
	tracker history --db old.db --key model --frame radiation --format csv >old.csv &&
	test_cmp r.csv old.csv &&
	tracker backfill --db old.db 2>bf2 &&
	grep "frame totals: 0 profiles had none, 0 filled" bf2
'

test_expect_success SQLITE3 'one run without frame totals: not_stored, and a warning' '
	cp h.db part.db &&
	sqlite3 part.db "DELETE FROM frame_totals WHERE run_id LIKE '"'"'%000000000003'"'"';
		UPDATE profiles SET frames_floor = NULL WHERE run_id LIKE '"'"'%000000000003'"'"'" &&
	tracker history --db part.db --key model --frame radiation --format csv >part.csv 2>err &&
	grep "1 profiles of these runs have no frame totals" err &&
	grep "^00000000-0000-4000-8000-000000000003,.*,radiation,,,[0-9.e+]*,,not_stored$" part.csv &&
	test $(grep -c ",stored$" part.csv) = 11 &&
	tracker history --db part.db --key model --frame radiation >part.txt 2>/dev/null &&
	grep "^00000000 *#3  main .* radiation *- *- *-$" part.txt
'

test_expect_success 'a function under a profile'"'"'s cut: below_floor, with the floor' '
	mkdir frecs &&
	mkrec frecs 301 cut main 1 10 1000 &&
	mkrec frecs 302 cut main 2 10 1000 &&
	"$PY" - <<-\EOF &&
	with open("frecs/a.folded", "w") as f:
	    for i in range(300):
	        f.write("main;f%03d 1000\n" % i)
	    f.write("main;tiny 1\n")
	with open("frecs/b.folded", "w") as f:
	    for i in range(300):
	        f.write("main;f%03d 1000\n" % i)
	    f.write("main;tiny 50000\n")
	EOF
	tracker push --db c.db frecs >/dev/null 2>&1 &&
	tracker import --db c.db --run 00000000-0000-4000-8000-000000000301 --kind alloc \
		--format folded frecs/a.folded 2>/dev/null &&
	tracker import --db c.db --run 00000000-0000-4000-8000-000000000302 --kind alloc \
		--format folded frecs/b.folded 2>/dev/null &&
	tracker history --db c.db --key cut --frame tiny --format csv >cut.csv &&
	grep "^00000000-0000-4000-8000-000000000301,.*,tiny,,,300001,1,below_floor$" cut.csv &&
	grep "^00000000-0000-4000-8000-000000000302,.*,tiny,50000,50000,350000,0,stored$" cut.csv &&
	tracker history --db c.db --key cut --frame tiny >cut.txt &&
	grep "^00000000 *#1  main .* tiny *<= 1 B *<= 1 B *-$" cut.txt
'

test_expect_success SQLITE3 'a database of schema 7 is migrated and backfilled' '
	sqlite3 v7.db "PRAGMA user_version" >/dev/null &&
	cp h.db v7.db &&
	sqlite3 v7.db "DROP TABLE frame_totals; DROP TABLE timelines; ALTER TABLE profiles DROP COLUMN frames_floor; PRAGMA user_version = 7" &&
	tracker backfill --db v7.db 2>bf &&
	grep "12 filled" bf &&
	test "$(sqlite3 v7.db "PRAGMA user_version")" = 9 &&
	tracker history --db v7.db --key model --frame radiation --format csv >v7.csv &&
	test_cmp r.csv v7.csv
'

test_done
