#!/bin/sh
# The PostgreSQL store against a real server (ci/pg-test-server.sh): the
# store conformance suite, tracker run/history on default flags, hostile
# strings, libpq settings from the URL, passwords kept out of messages,
# and push --from a SQLite history.

. "$(dirname "$0")/pg-lib.sh"

CONFORMANCE="$TRACKER_ROOT/tests/unit/t-store-conformance"

test_expect_success PG 'the store conformance suite passes on PostgreSQL' '
	"$CONFORMANCE" "$PG_URL" >conf.tap 2>&1 ||
	{ cat conf.tap; false; } &&
	plan=$(sed -n "s/^1\.\.//p" conf.tap) &&
	test "$plan" -gt 50 &&
	test $(grep -c "^ok " conf.tap) = "$plan" &&
	! grep "^not ok" conf.tap
'

test_expect_success PG 'twice on one database: migrating again is a no-op, runs do not collide' '
	TRACKER_TEST_STORE_URL="$PG_URL" "$CONFORMANCE" >conf2.tap 2>&1 ||
	{ cat conf2.tap; false; } &&
	! grep "^not ok" conf2.tap &&
	test "$(pg_sql -Atc "SELECT version FROM tracker_schema")" = 9 &&
	pg_sql -Atc "SELECT indexdef FROM pg_indexes WHERE indexname = '"'"'runs_key_started_cover'"'"'" >idx &&
	grep "(key, started_at_us DESC, run_id) INCLUDE (branch, " idx
'

test_expect_success PG 'tracker run and history on default flags' '
	tracker run --key pg-demo --db "$PG_URL" -- sh -c "echo out; exit 3" >out 2>err;
	test $? = 3 &&
	grep -x out out &&
	grep "pg-demo: failed" err &&
	tracker history --db "$PG_URL" --key pg-demo --format csv >h.csv &&
	test $(wc -l <h.csv) = 2 &&
	grep ",pg-demo," h.csv | grep -q ",failed," &&
	test "$(pg_sql -Atc "SELECT exit_code, status, partial FROM runs WHERE key = '"'"'pg-demo'"'"'")" = "3|failed|0"
'

test_expect_success PG 'a --key no run has: exit 65 naming the nearest key' '
	test_expect_code 65 tracker check --db "$PG_URL" --key pg-dmeo >out 2>err &&
	test ! -s out &&
	grep "^tracker: error: no runs of key .pg-dmeo.; the nearest key is .pg-demo.$" err &&
	test_expect_code 65 tracker history --db "$PG_URL" --key pg-dmeo 2>err &&
	grep "the nearest key is .pg-demo.$" err
'

test_expect_success PG 'the same runs list the same from SQLite and from PostgreSQL' '
	for i in 1 2 3; do
		tracker run -q --key same --tag n=$i --db sqlite:same.db -- true || return 1
	done &&
	tracker push --from sqlite:same.db --db "$PG_URL" 2>push.err &&
	grep -x "3 runs: 3 stored, 0 already stored; 0 profiles" push.err &&
	tracker history --db same.db --key same --format csv >sqlite.csv &&
	tracker history --db "$PG_URL" --key same --format csv >pg.csv &&
	test_cmp sqlite.csv pg.csv &&
	tracker history --db same.db --key same --format json >sqlite.json &&
	tracker history --db "$PG_URL" --key same --format json >pg.json &&
	test_cmp sqlite.json pg.json
'

# SQL in every string a user controls: the key, the branch (from CI),
# the tags. They must come back byte for byte, and the table must stand.
hostile_key="k'\''); DROP TABLE runs; --"
hostile_branch="b' OR '1'='1"
hostile_tag='t\"; DELETE FROM runs WHERE true; $$ E'\''\\x00'\'' $1 ?'

test_expect_success PG 'hostile strings round-trip exactly and harm nothing' '
	BUILDKITE=true BUILDKITE_BRANCH="$hostile_branch" BUILDKITE_BUILD_NUMBER=7 \
		tracker run -q --key "$hostile_key" --tag "x=$hostile_tag" --db "$PG_URL" -- true &&
	tracker history --db "$PG_URL" --key "$hostile_key" --branch "$hostile_branch" \
		--format json >h.json &&
	python3 - "$hostile_key" "$hostile_branch" "$hostile_tag" <<-\PY
	import json, sys
	runs = json.load(open("h.json"))
	assert len(runs) == 1, runs
	r = runs[0]
	assert r["key"] == sys.argv[1], r["key"]
	assert r["ci"]["branch"] == sys.argv[2], r["ci"]["branch"]
	assert r["tags"]["x"] == sys.argv[3], r["tags"]
	PY
	test "$(pg_sql -Atc "SELECT count(*) FROM runs WHERE key = '"'"'pg-demo'"'"'")" = 1 &&
	test "$(pg_sql -Atc "SELECT branch FROM runs WHERE build_number = '"'"'7'"'"'")" = "$hostile_branch"
'

# The server logs each connection with its application_name
# (log_connections, set by pg-lib.sh).
test_expect_success PG 'libpq settings in the URL are honoured: application_name' '
	tracker run -q --key appname --db "$PG_URL?application_name=tracker-t6101" -- true &&
	tracker history --db "$PG_URL" --key appname --format csv >h &&
	test $(wc -l <h) = 2 &&
	grep "connection authorized: .*application_name=tracker-t6101" "$PG_DIR/log" &&
	grep "connection authorized: .*application_name=tracker\$" "$PG_DIR/log"
'

test_expect_success PG 'sslmode=require against a server without TLS: libpq says why, exit 69' '
	test_expect_code 69 tracker history --db "$PG_URL?sslmode=require" --key x 2>err &&
	cat err &&
	grep "server does not support SSL, but SSL was required" err
'

test_expect_success PG 'a password in the URL is never printed' '
	bad=$(echo "$PG_URL" | sed "s|tracker@127.0.0.1:[0-9]*|tracker:s3cr3t-pw@127.0.0.1:1|") &&
	TRACKER_PG_RETRY_S=0 tracker run --key pw --db "$bad?connect_timeout=2" -- true 2>err &&
	cat err &&
	grep "could not record the run" err &&
	grep -F "tracker:***@127.0.0.1:1" err &&
	! grep s3cr3t err &&
	test_expect_code 2 tracker history --db "mysql://u:s3cr3t@h/db" 2>err2 &&
	grep "no store understands" err2 &&
	! grep s3cr3t err2
'

test_expect_success PG 'push --from sqlite moves runs and profiles, idempotently' '
	printf "main;solve 5\nmain;io 7\n" >p.folded &&
	for i in 1 2 3 4; do
		tracker run -q --key "mv$i" --db sqlite:src.db --profile-file p.folded -- true || return 1
	done &&
	tracker push --from sqlite:src.db --db "$PG_URL" 2>one &&
	grep -x "4 runs: 4 stored, 0 already stored; 4 profiles" one &&
	tracker push --from sqlite:src.db --db "$PG_URL" 2>two &&
	grep -x "4 runs: 0 stored, 4 already stored; 4 profiles" two &&
	test "$(pg_sql -Atc "SELECT count(*) FROM runs WHERE key LIKE '"'"'mv_'"'"'")" = 4 &&
	test "$(pg_sql -Atc "SELECT count(*) FROM profiles p JOIN runs r USING (run_id) WHERE r.key LIKE '"'"'mv_'"'"'")" = 4 &&
	tracker flame --db "$PG_URL" --key mv3 -o mv3.folded &&
	tracker flame --db src.db --key mv3 -o src3.folded &&
	test_cmp src3.folded mv3.folded
'

test_expect_success PG 'a run'"'"'s memory timeline: stored by run and by push, read as from SQLite' '
	tracker run -q --key pg-memory --db "$PG_URL" -- "$WORKLOAD" ramp 40 4 0.4 0.1 &&
	id=$(tracker history --db "$PG_URL" --key pg-memory --format csv | sed -n "2s/,.*//p") &&
	tracker history --db "$PG_URL" --run "$id" --timeline --format csv >pg-tl.csv &&
	test $(wc -l <pg-tl.csv) -ge 20 &&
	test "$(pg_sql -Atc "SELECT encoding, points > 10, record::jsonb #> '"'"'{run,timeline}'"'"' IS NULL FROM timelines JOIN runs USING (run_id) WHERE key = '"'"'pg-memory'"'"'")" = "tl1|t|t" &&
	tracker run -q --key sq-memory --db sqlite:tl.db -- "$WORKLOAD" ramp 40 4 0.4 0.1 &&
	id=$(tracker history --db tl.db --key sq-memory --format csv | sed -n "2s/,.*//p") &&
	tracker push --from sqlite:tl.db --db "$PG_URL" 2>/dev/null &&
	tracker history --db tl.db --run "$id" --timeline --format json >sq.json &&
	tracker history --db "$PG_URL" --run "$id" --timeline --format json >pg.json &&
	test_cmp sq.json pg.json &&
	tracker history --db "$PG_URL" --run "$id" --timeline -o pg.svg &&
	grep -q "<circle class=\"peak\"" pg.svg
'

test_expect_success PG 'history on a PostgreSQL database without tracker tables: exit 69, says so' '
	pg_sql -c "CREATE DATABASE empty_db" &&
	empty=$(echo "$PG_URL" | sed "s|/tracker_test$|/empty_db|") &&
	test_expect_code 69 tracker history --db "$empty" 2>err &&
	grep "no tracker history in database" err &&
	test "$(psql -X -Atc "SELECT count(*) FROM pg_tables WHERE tablename = '"'"'runs'"'"'" "$empty")" = 0
'

test_done
