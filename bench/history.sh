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
	sh bench/gen-history.sh "$db"
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
