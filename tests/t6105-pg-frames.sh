#!/bin/sh
# Frame totals in PostgreSQL: the known answer of t2020 (radiation's
# allocations doubling from build 8 of 12) on a real server: history
# --frame shows the step, check --history names radiation and nothing
# unchanged, a hostile name survives byte for byte, and tracker backfill
# fills the totals of profiles stored without them.

. "$(dirname "$0")/pg-lib.sh"
. "$TEST_DIRECTORY/t2100-check/mkrec.sh"
. "$TEST_DIRECTORY/t2020-history-frame/model.sh"

PY=/usr/bin/python3

test_expect_success PG 'setup: 12 builds in PostgreSQL' '
	model_history recs pgmodel radiation &&
	model_import "$PG_URL" recs
'

test_expect_success PG 'history --frame: the step at build 8' '
	tracker history --db "$PG_URL" --key pgmodel --frame radiation --format csv >r.csv &&
	"$PY" - r.csv <<-\EOF
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	assert len(rows) == 12, rows
	for r in rows:
	    lo, hi = (1.9e6, 2.1e6) if int(r["build"]) >= 8 else (0.95e6, 1.05e6)
	    assert lo < float(r["self"]) < hi and r["status"] == "stored", r
	EOF
'

test_expect_success PG 'check --history names radiation at build 8 alone' '
	tracker check --db "$PG_URL" --key pgmodel --branch main --history --format json >c.json &&
	"$PY" - c.json <<-\EOF
	import json, sys
	r = json.load(open(sys.argv[1]))["results"][0]
	cps = {x["metric"]: x for x in r["metrics"]}["alloc"]["changepoints"]
	assert len(cps) == 1 and cps[0]["build"] == "8", cps
	assert [f["function"] for f in cps[0]["frames"]] == ["radiation"], cps[0]
	EOF
'

test_expect_success PG 'a hostile name, byte for byte' '
	printf "\033[31m" >esc &&
	model_history hrecs pghostile "$(cat esc)<b>&\"x'"'"' \\\\ end" &&
	for f in hrecs/*.json; do sed -i "s/-8000-0000000000/-8000-0000000003/" $f; done &&
	tracker push --db "$PG_URL" hrecs >/dev/null 2>&1 &&
	tracker import --db "$PG_URL" --run 00000000-0000-4000-8000-000000000301 \
		--kind alloc --format folded hrecs/p1.folded 2>/dev/null &&
	tracker history --db "$PG_URL" --key pghostile --frame-match "<b>" --format json >h.json &&
	"$PY" - h.json "$(cat esc)<b>&\"x'"'"' \\\\ end" <<-\EOF
	import json, sys
	rows = json.load(open(sys.argv[1]))
	assert len(rows) == 1 and rows[0]["function"] == sys.argv[2], rows
	EOF
'

test_expect_success PG 'tracker backfill fills profiles stored without frame totals' '
	pg_sql -c "DELETE FROM frame_totals; UPDATE profiles SET frames_floor = NULL" &&
	test_expect_code 65 tracker history --db "$PG_URL" --key pgmodel --frame radiation 2>err &&
	grep "tracker backfill stores them" err &&
	tracker backfill --db "$PG_URL" 2>bf &&
	grep "13 profiles had none, 13 filled" bf &&
	tracker history --db "$PG_URL" --key pgmodel --frame radiation --format csv >r2.csv &&
	test_cmp r.csv r2.csv
'

test_done
