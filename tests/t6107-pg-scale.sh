#!/bin/sh
# The PostgreSQL store at scale, as the server sees it (its log): one
# connection per tracker run; reads of many runs streamed through a
# cursor in batches, a reader that stops early fetching little more
# than it uses; keys listed by a skip scan of the key index, not by
# reading every run; a run-id prefix as a range of the primary key, not
# a function of every id. The outputs are SQLite's.

. "$(dirname "$0")/pg-lib.sh"

LOG="$PG_DIR/log"

# log_from MARK: the server's log after the line count MARK
log_from() {
	tail -n +"$(($1 + 1))" "$LOG"
}

mark() {
	wc -l <"$LOG"
}

test_expect_success PG 'setup: every statement logged; 3000 runs of a key, 5 other keys' '
	pg_sql -c "ALTER SYSTEM SET log_statement = '"'"'all'"'"'" -c "SELECT pg_reload_conf()" &&
	for k in b-key a-key B-key c-key; do
		tracker run -q --key $k --db "$PG_URL" -- true || return 1
	done &&
	tracker run -q --key many --db "$PG_URL" -- true &&
	pg_sql -c "INSERT INTO runs
		SELECT md5(g::text)::uuid::text, key, branch, \"commit\", build_number,
		started_at_us - 1000000::bigint * g, walltime_s + g, user_s, sys_s, maxrss_bytes,
		tree_rss_bytes, cgroup_peak_bytes, exit_code, signal, status, partial, provider,
		pipeline, build_url, step_key, base_branch, host, slurm_job_id, tracker_version,
		stored_at_us, jsonb_set(jsonb_set(jsonb_set(record::jsonb, '"'"'{run,id}'"'"',
			to_jsonb(md5(g::text)::uuid::text)), '"'"'{run,started_at_us}'"'"',
			to_jsonb(started_at_us - 1000000::bigint * g)), '"'"'{run,walltime_s}'"'"',
			to_jsonb(walltime_s + g))::text,
		rank, rank_group, maxrss_source, wrapper_rss_bytes, tree_samples, ntasks,
		machine_class, slurm_maxrss_bytes
		FROM runs, generate_series(1, 3000) g WHERE key = '"'"'many'"'"'" &&
	tracker push --from "$PG_URL" --db lite.db 2>push &&
	cat push &&
	test "$(pg_sql -Atc "SELECT count(*) FROM runs")" = 3005
'

test_expect_success PG 'one connection per tracker run' '
	m=$(mark) &&
	for i in 1 2 3 4 5 6 7 8; do
		tracker run -q --key conn --db "$PG_URL" -- true || return 1
	done &&
	sleep 0.5 &&
	n=$(log_from $m | grep -c "connection authorized: user=tracker database=tracker_test") &&
	echo "$n connections for 8 runs" &&
	test "$n" = 8 &&
	test "$(pg_sql -Atc "SELECT count(*) FROM runs WHERE key = '"'"'conn'"'"'")" = 8
'

test_expect_success PG 'a history of many runs: streamed in batches, the same rows as SQLite' '
	tracker push --from "$PG_URL" --db lite.db 2>/dev/null &&
	m=$(mark) &&
	tracker history --db "$PG_URL" --key many --format csv >pg.csv &&
	tracker history --db lite.db --key many --format csv >lite.csv &&
	test_cmp lite.csv pg.csv &&
	test $(wc -l <pg.csv) = 3002 &&
	log_from $m >log &&
	grep "DECLARE tracker_rows NO SCROLL CURSOR FOR SELECT" log &&
	test $(grep -c "FETCH [0-9]* FROM tracker_rows" log) -ge 3 &&
	! grep "FETCH [0-9]\{5,\}" log &&
	tracker history --db "$PG_URL" --format csv >pg-all.csv &&
	tracker history --db lite.db --format csv >lite-all.csv &&
	test_cmp lite-all.csv pg-all.csv
'

test_expect_success PG 'a reader that stops early fetches only the first batch' '
	m=$(mark) &&
	tracker check --db "$PG_URL" --key many >/dev/null;
	test $? -le 1 &&
	log_from $m >log &&
	grep "FETCH" log >fetches &&
	! grep -v "FETCH 64 " fetches
'

test_expect_success PG 'keys are listed by a skip scan of the key index, in byte order' '
	m=$(mark) &&
	tracker dashboard --db "$PG_URL" -o dash 2>err &&
	grep "(6 keys)" err &&
	log_from $m >log &&
	grep "WITH RECURSIVE k(key)" log &&
	! grep "SELECT run_id, key, .* FROM runs WHERE started_at_us >= \$1 ORDER BY" log &&
	tracker dashboard --db lite.db -o dash-lite 2>dl.err || { cat dl.err; false; } &&
	grep -o "title=\"[^\"]*\"><a href" dash/index.html >keys-pg &&
	grep -o "title=\"[^\"]*\"><a href" dash-lite/index.html >keys-lite &&
	test_cmp keys-lite keys-pg &&
	tracker check --db "$PG_URL" --key a-kez 2>err;
	test $? = 65 &&
	grep "the nearest keys are .a-key., .B-key., .b-key.$" err
'

test_expect_success PG 'a run-id prefix is a range of the primary key' '
	id=$(sed -n "2s/,.*//p" pg.csv) &&
	m=$(mark) &&
	tracker history --db "$PG_URL" --run "$(echo "$id" | cut -c1-8)" --format csv >one.csv &&
	test $(wc -l <one.csv) = 2 &&
	grep "^$id," one.csv &&
	log_from $m >log &&
	grep "run_id >= \$1::text AND run_id < (\$1::text || .~.)" log &&
	! grep "substr(run_id" log &&
	pg_sql -Atc "EXPLAIN SELECT run_id FROM runs WHERE run_id >= '"'"'abcd'"'"'::text
		AND run_id < ('"'"'abcd'"'"'::text || '"'"'~'"'"')" >plan &&
	cat plan &&
	grep "Index.*runs_pkey" plan
'

test_done
