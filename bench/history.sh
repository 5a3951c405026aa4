#!/bin/sh
# tracker history over many runs, against the sqlite3 CLI selecting the
# same columns (called by bench/run.sh; runs alone too):
#
#   sh bench/history.sh [TRACKER]
#
# builds a database of 1M runs (100 keys x 10k runs; every row a full
# record, as tracker stores them) in a temporary directory, then times, in
# one interleaved run each (bench/timeit, BENCH_HISTORY_N repetitions,
# default 11):
#   - tracker history --key K --format csv over the 10k runs of one key,
#     against sqlite3 -csv selecting the columns history prints, same
#     filter and order; the target is a ratio <= 1.5;
#   - tracker history --key K --limit 20 (target: under 20 ms).
# TRACKER is the binary to time (default ./tracker); BENCH_HISTORY_OLD may
# name an older build to time beside it on the same database;
# BENCH_HISTORY_DB keeps the database at that path and reuses it next time;
# BENCH_HISTORY_BUILD_ONLY=1 stops once the database is there.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
tracker=${1:-$root/tracker}
n=${BENCH_HISTORY_N:-11}
out=$(mktemp -d "${TMPDIR:-/tmp}/tracker-bench-history.XXXXXX")
trap 'rm -rf "$out"' EXIT

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "  sqlite3 CLI not found (ci/install-deps.sh bench installs it), skipped"
	exit 0
fi
db=${BENCH_HISTORY_DB:-$out/history.db}
start=$(date +%s)
if [ -s "$db" ]; then
	built="reused from $db"
else
# One real run makes the schema and a record to copy; the other runs are
# that record with their own id, key, time, walltime and peaks.
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
	rank, rank_group, maxrss_source, wrapper_rss_bytes, tree_samples, ntasks)
SELECT id, k, 'main', printf('%040x', n), CAST(n / 100 AS TEXT), t,
	w, w * 0.9, w * 0.05, rss, rss * 3, NULL, 0, 0, 'ok', 0, 'local', NULL, NULL, NULL,
	NULL, 'bench-host', NULL, s.tracker_version, t, json_set(s.record,
		'$.run.id', id, '$.run.key', k, '$.run.started_at_us', t,
		'$.run.walltime_s', w, '$.run.user_s', w * 0.9, '$.run.sys_s', w * 0.05,
		'$.run.maxrss_bytes', rss, '$.run.tree_rss_bytes', rss * 3,
		'$.run.exit_code', 0, '$.run.status', 'ok', '$.run.ci.branch', 'main',
		'$.run.ci.commit', printf('%040x', n), '$.run.ci.build_number', CAST(n / 100 AS TEXT),
		'$.run.ci.provider', 'local', '$.run.ci.host', 'bench-host'),
	NULL, NULL, s.maxrss_source, s.wrapper_rss_bytes, s.tree_samples, NULL
FROM (SELECT n, printf('%08x-0000-4000-8000-%012d', n, n) AS id,
	printf('key%02d', n % 100) AS k, 1700000000000000 + n * 1000000 AS t,
	1.0 + (n % 997) / 100.0 AS w, 100000000 + (n % 7919) * 4096 AS rss FROM i), seed s;
COMMIT;
ANALYZE;
SQL
	built="built in $(( $(date +%s) - start )) s"
fi
echo "  database: $(sqlite3 "$db" 'SELECT count(*) FROM runs') runs, $(wc -c <"$db" | awk '{ printf "%.0f MB", $1 / 1e6 }'), $built"
# BENCH_HISTORY_BUILD_ONLY=1: only the database (for bench/run.sh's plots)
[ -z "${BENCH_HISTORY_BUILD_ONLY:-}" ] || exit 0
cols="run_id, key, branch, \"commit\", build_number, started_at_us, walltime_s,
	maxrss_bytes, tree_rss_bytes, exit_code, user_s, sys_s, cgroup_peak_bytes,
	signal, status, partial, provider, pipeline, host, build_url, maxrss_source,
	tracker_version, wrapper_rss_bytes, tree_samples"
sel="SELECT $cols FROM runs WHERE key IN ('key42') ORDER BY started_at_us DESC, run_id"
rows=$("$tracker" history --db "$db" --key key42 --format csv | wc -l)
echo "  tracker history --key key42 --format csv: $((rows - 1)) runs"
bench/timeit "$n" "sqlite3 -csv SELECT" sqlite3 -csv "$db" "$sel" :: \
	"history --format csv" "$tracker" history --db "$db" --key key42 --format csv :: \
	"history --limit 20" "$tracker" history --db "$db" --key key42 --limit 20 \
	${BENCH_HISTORY_OLD:+:: "OLD history csv" "$BENCH_HISTORY_OLD" history --db "$db" --key key42 --format csv} \
	${BENCH_HISTORY_OLD:+:: "OLD history --limit 20" "$BENCH_HISTORY_OLD" history --db "$db" --key key42 --limit 20} \
	>"$out/t.txt"
sed 's/^/  /' "$out/t.txt"
awk '
function median(s) { sub(/.*median +/, "", s); sub(/ .*/, "", s); return s + 0 }
/sqlite3 -csv/ { cli = median($0) }
/^ *history --format csv/ { csv = median($0) }
/^ *history --limit 20/ { lim = median($0) }
END {
	printf "  ratio history csv / sqlite3: %.2fx (target <= 1.5x: %s)\n", csv / cli, csv / cli <= 1.5 ? "met" : "MISSED"
	printf "  history --limit 20: %.1f ms (target < 20 ms: %s)\n", lim * 1000, lim < 0.020 ? "met" : "MISSED"
}' "$out/t.txt"
