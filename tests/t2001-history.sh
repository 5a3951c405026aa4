#!/bin/sh
# tracker history lists pushed runs newest first as a table, CSV or JSON,
# with --key/--branch/--since/--limit filters; tracker push is idempotent.

. "$(dirname "$0")/test-lib.sh"

REC="$FIXTURES/records"
command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3

# Run ids of the fixtures end in 01..05; newest first they are
# 05 (2024-04-02), 03 (2024-03-01), 02 (2024-02-10), 04 (2024-01-10 09:15),
# 01 (2024-01-10 08:00).
ids() { csv_field "$1" "$2" run_id | sed 's/.*\(..\)$/\1/'; }
order() { tail -n +2 "$1" | cut -d, -f1 | sed 's/.*\(..\)$/\1/' | tr '\n' ' '; }

test_expect_success 'push the fixture records' '
	tracker push --db h.db "$REC" 2>err &&
	test $(grep -c "^stored " err) = 5 &&
	grep "5 stored, 0 already stored, 0 failed" err
'

test_expect_success 'pushing them again stores nothing' '
	tracker push --db h.db "$REC"/*.json 2>err &&
	test $(grep -c "^already stored " err) = 5 &&
	tracker history --db h.db --format csv >out &&
	test $(wc -l <out) = 6
'

# The expected outputs in t2001-history/ were written by tracker 0.1,
# which rebuilt every run from its JSON record; the summaries read from
# columns must print the same bytes in every format, with --ranks too.
# (The JSON's reals have 15 significant digits since: 200.801, not
# 200.80099999999999.)
for f in table csv json; do
	test_expect_success "--format $f prints what tracker 0.1 printed, byte for byte" "
		tracker history --db h.db --format $f >out &&
		test_cmp \"\$TEST_DIRECTORY/t2001-history/all.$f\" out &&
		tracker history --db h.db --ranks --format $f >out &&
		test_cmp \"\$TEST_DIRECTORY/t2001-history/ranks.$f\" out
	"
done

test_expect_success 'csv header starts with the documented columns' '
	tracker history --db h.db --format csv >out &&
	head -n 1 out | grep "^run_id,key,branch,commit,build,started_at,walltime_s,maxrss_bytes,tree_rss_bytes,exit_code,"
'

test_expect_success 'csv lists newest first' '
	tracker history --db h.db --format csv >out &&
	test "$(order out)" = "05 03 02 04 01 "
'

test_expect_success 'csv has raw values, ISO times and full commits' '
	tracker history --db h.db --format csv >out &&
	test "$(ids out 3)" = 02 &&
	test "$(csv_field out 3 key)" = amip &&
	test "$(csv_field out 3 branch)" = staging &&
	test "$(csv_field out 3 commit)" = b2c3d4e5f60718293a4b5c6d7e8f901234567890 &&
	test "$(csv_field out 3 build)" = 102 &&
	test "$(csv_field out 3 started_at)" = 2024-02-10T08:00:00Z &&
	test "$(csv_field out 3 walltime_s)" = 3700.250000 &&
	test "$(csv_field out 3 maxrss_bytes)" = 2254857830 &&
	test "$(csv_field out 3 tree_rss_bytes)" = 3435973836 &&
	test "$(csv_field out 3 exit_code)" = 3 &&
	test "$(csv_field out 3 status)" = failed &&
	test "$(csv_field out 2 exit_code)" = "" &&
	test "$(csv_field out 2 signal)" = 9
'

test_expect_success 'csv quotes fields with commas and quotes (RFC 4180)' '
	tracker history --db h.db --format csv --limit 1 >out &&
	grep "^3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4e05,ocean,\"release,\"\"v2\"\"\",d4e5f6" out
'

test_expect_success 'table: aligned, human units, short commit, UTC minutes' '
	tracker history --db h.db >out &&
	head -n 1 out | grep "^STARTED  *KEY  *BRANCH  *BUILD  *COMMIT  *WALL  *MAXRSS  *TREE_RSS  *STATUS$" &&
	test $(wc -l <out) = 6 &&
	sed -n 2p out | grep "^2024-04-02 00:00  ocean" &&
	sed -n 4p out | grep "^2024-02-10 08:00  amip  " &&
	sed -n 4p out | grep " b2c3d4e5f6  " &&
	sed -n 4p out | grep " 1h 01m " &&
	sed -n 4p out | grep " 2.10 GiB " &&
	sed -n 4p out | grep "failed 3$" &&
	sed -n 3p out | grep "SIGKILL$" &&
	col=$(head -n 1 out | awk "{ print index(\$0, \"COMMIT\") }") &&
	tail -n +2 out | cut -c$col-$((col + 10)) >commits &&
	printf "%s \n" d4e5f60718 c3d4e5f607 b2c3d4e5f6 a1b2c3d4e5 a1b2c3d4e5 >expect &&
	test_cmp expect commits
'

test_expect_success PYTHON3 'json is one array of the full run objects' '
	tracker history --db h.db --format json >out.json &&
	python3 -c "
import json, sys
runs = json.load(open(\"out.json\"))
assert [r[\"id\"][-2:] for r in runs] == [\"05\", \"03\", \"02\", \"04\", \"01\"], runs
r = runs[2]
assert r[\"walltime_s\"] == 3700.25 and r[\"maxrss_bytes\"] == 2254857830
assert r[\"ci\"][\"commit\"] == \"b2c3d4e5f60718293a4b5c6d7e8f901234567890\"
assert r[\"ci\"][\"slurm_ntasks\"] == 4 and r[\"tags\"] == {\"resolution\": \"1deg\"}
assert r[\"argv\"] == [\"julia\", \"--project\", \"experiments/amip.jl\"]
"
'

test_expect_success '--key filters, and is repeatable' '
	tracker history --db h.db --format csv --key ocean >out &&
	test "$(order out)" = "05 04 " &&
	tracker history --db h.db --format csv --key ocean --key amip >out &&
	test "$(order out)" = "05 03 02 04 01 "
'

test_expect_success '--branch filters' '
	tracker history --db h.db --format csv --branch staging >out &&
	test "$(order out)" = "02 04 01 " &&
	tracker history --db h.db --format csv --branch staging --key amip >out &&
	test "$(order out)" = "02 01 "
'

test_expect_success '--since takes an ISO date (inclusive)' '
	tracker history --db h.db --format csv --since 2024-02-10 >out &&
	test "$(order out)" = "05 03 02 " &&
	tracker history --db h.db --format csv --since 2024-01-10T09:15:00Z >out &&
	test "$(order out)" = "05 03 02 04 "
'

test_expect_success '--since takes a relative age' '
	now=$(date +%s) &&
	sed -e "s/\"started_at_us\": [0-9]*/\"started_at_us\": $(( (now - 2 * 86400) * 1000000 ))/" \
	    -e "s/0a1b2c3d4e01/0a1b2c3d4e06/" "$REC/amip-staging-101.json" >recent.json &&
	tracker push --db h.db recent.json &&
	tracker history --db h.db --format csv --since 30d >out &&
	test "$(order out)" = "06 " &&
	tracker history --db h.db --format csv --since 1h >out &&
	test $(wc -l <out) = 1
'

test_expect_success '--limit keeps the newest N' '
	tracker history --db h.db --format csv --limit 2 --key amip >out &&
	test "$(order out)" = "06 03 "
'

test_expect_success 'empty results: csv header only, json [], table says no runs' '
	tracker history --db h.db --format csv --branch nope >out &&
	test $(wc -l <out) = 1 &&
	tracker history --db h.db --format json --branch nope >out &&
	echo "[]" >expect && test_cmp expect out &&
	tracker history --db h.db --key amip --branch nope >out 2>err &&
	test ! -s out && grep "no runs" err
'

test_expect_success 'a --key no run has, on any branch, is bad data naming the nearest keys' '
	test_expect_code 65 tracker history --db h.db --key amipp >out 2>err &&
	test ! -s out &&
	grep "^tracker: error: no runs of key .amipp.; the nearest key is .amip.$" err &&
	test_expect_code 65 tracker history --db h.db --key amip --key zzzzzzzzzzzz \
		--format csv >out 2>err &&
	test ! -s out &&
	grep "no runs of key .zzzzzzzzzzzz.; no key is near it (the database has [0-9]* keys\?)$" err
'

test_expect_success 'usage errors exit 2' '
	test_expect_code 2 tracker history --db h.db --format xml 2>err &&
	grep "unknown format" err &&
	test_expect_code 2 tracker history --db h.db --limit 0 &&
	test_expect_code 2 tracker history --db h.db --limit x &&
	test_expect_code 2 tracker history --db h.db --since yesterday &&
	test_expect_code 2 tracker history --db h.db --no-such-option &&
	test_expect_code 2 tracker history --db h.db extra-argument &&
	test_expect_code 2 tracker history --db
'

test_expect_success 'a missing database exits 69 and is not created' '
	test_expect_code 69 tracker history --db none/h.db 2>err &&
	grep "no database at .none/h.db." err &&
	test ! -e none
'

test_expect_success 'the database comes from TRACKER_DB' '
	TRACKER_DB=h.db tracker history --format csv >out &&
	test $(wc -l <out) = 7
'

test_expect_success 'push: a bad record is named, the others are stored, exit 65' '
	printf "{\"format\": \"tracker-run\",\n \"version\": 1, \"run\": {]}\n" >bad.json &&
	sed "s/0a1b2c3d4e01/0a1b2c3d4e07/" "$REC/amip-staging-101.json" >good.json &&
	test_expect_code 65 tracker push --db h.db bad.json good.json 2>err &&
	grep "bad.json. line 2 column" err &&
	grep "^stored  *good.json" err &&
	grep "1 stored, 0 already stored, 1 failed" err &&
	tracker history --db h.db --format csv --key amip >out &&
	grep 0a1b2c3d4e07 out
'

test_expect_success 'push --remove deletes stored and already-stored files only' '
	cp good.json again.json &&
	sed "s/0a1b2c3d4e01/0a1b2c3d4e08/" "$REC/amip-staging-101.json" >new.json &&
	test_expect_code 65 tracker push --db h.db --remove again.json new.json bad.json 2>err &&
	test ! -e again.json && test ! -e new.json && test -e bad.json
'

test_expect_success 'push without files is a usage error' '
	test_expect_code 2 tracker push --db h.db
'

test_done
