#!/bin/sh
# Makes the benchmarks' 1M-run SQLite history (bench/history.sh,
# bench/stores.sh):
#
#   sh bench/gen-history.sh DB
#
# 100 keys (key00..key99) x 10k runs, every row a full record as tracker
# stores them: one real `tracker run` makes the schema and a record to
# copy; the other runs are that record with their own id, key, time,
# walltime and peaks. DB must not exist yet.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
db=$1
out=$(mktemp -d "${TMPDIR:-/tmp}/tracker-gen-history.XXXXXX")
trap 'rm -rf "$out"' EXIT
"$root/tracker" run -q --key seed --db "$db" --artifacts "$out/records" -- true
sqlite3 "$db" >/dev/null <<'SQL'
PRAGMA journal_mode = WAL;
CREATE TEMP TABLE seed AS SELECT * FROM runs WHERE key = 'seed';
DELETE FROM runs;
BEGIN;
WITH RECURSIVE i(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM i WHERE n < 999999)
INSERT INTO runs (run_id, key, branch, "commit", build_number, started_at_us,
	walltime_s, user_s, sys_s, maxrss_bytes, tree_rss_bytes, cgroup_peak_bytes,
	exit_code, signal, status, partial, provider, pipeline, build_url, step_key,
	base_branch, host, slurm_job_id, tracker_version, stored_at_us, record,
	rank, rank_group, maxrss_source, wrapper_rss_bytes, tree_samples, ntasks,
	machine_class, slurm_maxrss_bytes)
SELECT id, k, 'main', printf('%040x', n), CAST(n / 100 AS TEXT), t,
	w, w * 0.9, w * 0.05, rss, rss * 3, NULL, 0, 0, 'ok', 0, 'local', NULL, NULL, NULL,
	NULL, 'bench-host', NULL, s.tracker_version, t, json_set(s.record,
		'$.run.id', id, '$.run.key', k, '$.run.started_at_us', t,
		'$.run.walltime_s', w, '$.run.user_s', w * 0.9, '$.run.sys_s', w * 0.05,
		'$.run.maxrss_bytes', rss, '$.run.tree_rss_bytes', rss * 3,
		'$.run.exit_code', 0, '$.run.status', 'ok', '$.run.ci.branch', 'main',
		'$.run.ci.commit', printf('%040x', n), '$.run.ci.build_number', CAST(n / 100 AS TEXT),
		'$.run.ci.provider', 'local', '$.run.ci.host', 'bench-host'),
	NULL, NULL, s.maxrss_source, s.wrapper_rss_bytes, s.tree_samples, NULL,
	s.machine_class, s.slurm_maxrss_bytes
FROM (SELECT n, printf('%08x-0000-4000-8000-%012d', n, n) AS id,
	printf('key%02d', n % 100) AS k, 1700000000000000 + n * 1000000 AS t,
	1.0 + (n % 997) / 100.0 AS w, 100000000 + (n % 7919) * 4096 AS rss FROM i), seed s;
COMMIT;
ANALYZE;
SQL
