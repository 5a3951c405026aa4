#!/bin/sh
# The PostgreSQL store through PgBouncer in transaction mode, as
# docs/stores.md sets it up for hundreds of agents: a real pgbouncer on
# loopback (ci/pgbouncer-test.sh) in front of the test server. Runs
# migrate and store through it, many writers share a few server
# connections, streamed reads (cursors inside a transaction) give what
# the server gives directly, and a pooler that refuses tracker's
# `options` is named in the error with what to change.

. "$(dirname "$0")/pg-lib.sh"

PGB="$TRACKER_ROOT/ci/pgbouncer-test.sh"
PGB_DIR=$(mktemp -u "${TMPDIR:-/tmp}/tracker-pgb.XXXXXX")
PGB_DIR2=$(mktemp -u "${TMPDIR:-/tmp}/tracker-pgb.XXXXXX")
trap '"$PGB" stop "$PGB_DIR" >/dev/null 2>&1; "$PGB" stop "$PGB_DIR2" >/dev/null 2>&1; pg_cleanup' EXIT

if test_have_prereq PG; then
	pg_sql -c "CREATE DATABASE pooled" &&
	POOLED_DIRECT=$(echo "$PG_URL" | sed 's|/tracker_test$|/pooled|')
	if PGB_URL=$(PGB_POOL_SIZE=3 "$PGB" start "$PGB_DIR" "$POOLED_DIRECT" 2>"$TRASH_DIRECTORY/.pgb-start"); then
		test_set_prereq PGB
	elif [ "$pg_lib_ci" = true ]; then
		test_expect_success 'PgBouncer starts (required under CI=true)' '
			cat .pgb-start; false
		'
	else
		skip_all="no PgBouncer: $(tail -1 "$TRASH_DIRECTORY/.pgb-start")"
		test_done
	fi
fi

server_connections() {
	grep -c "connection authorized: user=tracker database=pooled" "$PG_DIR/log"
}

test_expect_success PGB 'tracker run through the pooler: migrated and stored' '
	tracker run --key pooled --db "$PGB_URL" -- sh -c "exit 4" 2>err;
	test $? = 4 &&
	cat err &&
	! grep warning err &&
	test "$(psql -X -Atc "SELECT count(*) FROM runs WHERE key = '"'"'pooled'"'"'" "$POOLED_DIRECT")" = 1 &&
	test "$(psql -X -Atc "SELECT max(version) FROM tracker_schema" "$POOLED_DIRECT")" -ge 9
'

test_expect_success PGB '40 concurrent writers through 3 server connections: every run stored once' '
	before=$(server_connections) &&
	i=0 &&
	while test $i -lt 40; do
		tracker run -q --key "w$((i % 4))" --db "$PGB_URL" --artifacts spool -- true &
		i=$((i + 1))
	done &&
	wait &&
	after=$(server_connections) &&
	echo "server connections opened: $((after - before))" &&
	test $((after - before)) -le 3 &&
	test "$(psql -X -Atc "SELECT count(*) FROM runs WHERE key LIKE '"'"'w_'"'"'" "$POOLED_DIRECT")" = 40 &&
	! ls spool/*.json 2>/dev/null | grep -v "^spool/w[0-3]-" &&
	tracker push --db "$PGB_URL" spool 2>push &&
	grep -x "0 stored, 40 already stored, 0 failed" push
'

test_expect_success PGB 'reads through the pooler: streamed in batches, the same as direct' '
	psql -X -q -v ON_ERROR_STOP=1 "$POOLED_DIRECT" -c "INSERT INTO runs
		SELECT md5(g::text)::uuid::text, '"'"'many'"'"', branch, \"commit\", g::text,
		started_at_us + g, walltime_s, user_s, sys_s, maxrss_bytes, tree_rss_bytes,
		cgroup_peak_bytes, exit_code, signal, status, partial, provider, pipeline, build_url,
		step_key, base_branch, host, slurm_job_id, tracker_version, stored_at_us,
		jsonb_set(jsonb_set(jsonb_set(record::jsonb, '"'"'{run,id}'"'"',
			to_jsonb(md5(g::text)::uuid::text)), '"'"'{run,key}'"'"', '"'"'\"many\"'"'"'),
			'"'"'{run,started_at_us}'"'"', to_jsonb(started_at_us + g))::text,
		rank, rank_group, maxrss_source, wrapper_rss_bytes, tree_samples, ntasks,
		machine_class, slurm_maxrss_bytes
		FROM runs, generate_series(1, 3000) g WHERE key = '"'"'pooled'"'"'" &&
	tracker history --db "$PGB_URL" --key many --format csv >pooled.csv &&
	tracker history --db "$POOLED_DIRECT" --key many --format csv >direct.csv &&
	test_cmp direct.csv pooled.csv &&
	test $(wc -l <pooled.csv) = 3001 &&
	tracker history --db "$PGB_URL" --format json >all.json &&
	python3 -c "import json; r = json.load(open(\"all.json\")); assert len(r) == 3041, len(r)" &&
	tracker check --db "$PGB_URL" --key many >check.out;
	test $? -le 1 &&
	tracker dashboard --db "$PGB_URL" -o dash 2>dash.err &&
	grep "(6 keys)" dash.err &&
	id=$(sed -n "2s/,.*//p" pooled.csv) &&
	tracker history --db "$PGB_URL" --run "$(echo "$id" | cut -c1-8)" --format csv >one.csv &&
	test $(wc -l <one.csv) = 2 &&
	grep "^$id," one.csv
'

test_expect_success PGB 'a pooler that refuses options: the error says what to change' '
	if PGB2_URL=$(PGB_IGNORE=extra_float_digits "$PGB" start "$PGB_DIR2" "$POOLED_DIRECT" 2>pgb2.err); then
		test_expect_code 69 tracker history --db "$PGB2_URL" --key pooled 2>err &&
		cat err &&
		grep "unsupported startup parameter" err &&
		grep "ignore_startup_parameters" err &&
		grep "docs/stores.md" err
	else
		cat pgb2.err; false
	fi
'

test_done
