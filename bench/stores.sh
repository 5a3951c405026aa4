#!/bin/sh
# The stores side by side, SQLite and PostgreSQL (called by bench/run.sh,
# section "stores"; runs alone too):
#
#   sh bench/stores.sh [TRACKER]
#
# 1. Reading: `tracker history --key key42 --format csv` (10k runs) and
#    `--limit 20` on the 1M-run history of bench/gen-history.sh, in
#    SQLite and loaded into PostgreSQL, beside the sqlite3 and psql CLIs
#    selecting the same columns with the same filter and order (one
#    interleaved bench/timeit run, BENCH_STORES_N repetitions, default 7).
#    PostgreSQL gets the rows with COPY (sqlite3 -csv piped into psql's
#    \copy; a few minutes for 1M runs), after one `tracker run` has made
#    its schema: `tracker push --from` stores one run per transaction,
#    which is right for moving a history but slow for a million runs.
# 2. Moving a history: `tracker push --from` of 2000 of those runs (a
#    SQLite file of its own) into a fresh PostgreSQL database, and again.
# 2b. The store table: dashboard of the 100 keys, history of all 1M runs,
#    check --key, history --run PREFIX, both stores interleaved, with each
#    one's peak RSS, against the targets (PostgreSQL within 1.5x / 3x of
#    SQLite; <= 100 MiB dashboard, <= 40 MiB the others).
# 3. Ingest: `tracker run -- true` from 1, 10 and 50 concurrent writers,
#    each running its share of BENCH_STORES_RUNS runs (default 300) one
#    after another, into a fresh database of each store; runs/s is all
#    runs over the wall time from the first start to the last end.
#    PostgreSQL again through PgBouncer (ci/pgbouncer-test.sh) when the
#    machine has it.
#
# The PostgreSQL server is ci/pg-test-server.sh's throwaway one, with
# PostgreSQL's default (durable) settings, on this machine's loopback.
# TRACKER is the binary to time (default ./tracker). BENCH_HISTORY_DB
# reuses a SQLite history of bench/gen-history.sh at that path.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
tracker=${1:-$root/tracker}
n=${BENCH_STORES_N:-7}
total=${BENCH_STORES_RUNS:-300}
out=$(mktemp -d "${TMPDIR:-/tmp}/tracker-bench-stores.XXXXXX")
# the server's user must reach it: not inside $out (mode 700, ours)
pgdir=$(mktemp -u "${TMPDIR:-/tmp}/tracker-bench-pg.XXXXXX")
pgbdir=$(mktemp -u "${TMPDIR:-/tmp}/tracker-bench-pgb.XXXXXX")
trap 'sh ci/pgbouncer-test.sh stop "$pgbdir" >/dev/null 2>&1; sh ci/pg-test-server.sh stop "$pgdir" >/dev/null 2>&1 || true; rm -rf "$out"' EXIT

for t in sqlite3 psql; do
	if ! command -v $t >/dev/null 2>&1; then
		echo "  $t not found (ci/install-deps.sh bench installs it), skipped"
		exit 0
	fi
done
if ! url=$(sh ci/pg-test-server.sh start "$pgdir" 2>"$out/pg.err"); then
	echo "  no PostgreSQL server: $(tail -1 "$out/pg.err"), skipped"
	exit 0
fi

# ---- reading 1M runs ----
db=${BENCH_HISTORY_DB:-$out/history.db}
start=$(date +%s)
if [ -s "$db" ]; then
	built="reused from $db"
else
	sh bench/gen-history.sh "$db"
	built="built in $(( $(date +%s) - start )) s"
fi
echo "  SQLite: $(sqlite3 "$db" 'SELECT count(*) FROM runs') runs, $(wc -c <"$db" | awk '{ printf "%.0f MB", $1 / 1e6 }'), $built"

all="run_id, key, branch, \"commit\", build_number, started_at_us, walltime_s, user_s,
	sys_s, maxrss_bytes, tree_rss_bytes, cgroup_peak_bytes, exit_code, signal, status,
	partial, provider, pipeline, build_url, step_key, base_branch, host, slurm_job_id,
	tracker_version, stored_at_us, record, rank, rank_group, maxrss_source,
	wrapper_rss_bytes, tree_samples, ntasks, machine_class, slurm_maxrss_bytes"
start=$(date +%s)
"$tracker" run -q --key seed --db "$url" --artifacts "$out/records" -- true
psql -X -q -v ON_ERROR_STOP=1 "$url" -c "DELETE FROM timelines" -c "DELETE FROM runs"
sqlite3 -csv "$db" "SELECT $all FROM runs" |
	psql -X -q -v ON_ERROR_STOP=1 "$url" -c "\\copy runs ($all) FROM STDIN WITH (FORMAT csv)"
psql -X -q -v ON_ERROR_STOP=1 "$url" -c "VACUUM ANALYZE runs"
echo "  PostgreSQL: $(psql -X -Atc 'SELECT count(*) FROM runs' "$url") runs, $(psql -X -Atc "SELECT pg_size_pretty(pg_total_relation_size('runs'))" "$url"), loaded with COPY in $(( $(date +%s) - start )) s"

cols="run_id, key, branch, \"commit\", build_number, started_at_us, walltime_s,
	maxrss_bytes, tree_rss_bytes, exit_code, user_s, sys_s, cgroup_peak_bytes,
	signal, status, partial, provider, pipeline, host, build_url, maxrss_source,
	tracker_version, wrapper_rss_bytes, tree_samples"
sel="SELECT $cols FROM runs WHERE key IN ('key42') ORDER BY started_at_us DESC, run_id"
a=$("$tracker" history --db "$db" --key key42 --format csv | wc -l)
b=$("$tracker" history --db "$url" --key key42 --format csv | wc -l)
"$tracker" history --db "$db" --key key42 --format csv >"$out/a.csv"
"$tracker" history --db "$url" --key key42 --format csv >"$out/b.csv"
if cmp -s "$out/a.csv" "$out/b.csv"; then same="the same bytes"; else same="DIFFERENT output"; fi
echo "  tracker history --key key42 --format csv: $((a - 1)) runs from SQLite, $((b - 1)) from PostgreSQL, $same"
bench/timeit "$n" "sqlite3 -csv SELECT" sqlite3 -csv "$db" "$sel" :: \
	"history csv, SQLite" "$tracker" history --db "$db" --key key42 --format csv :: \
	"psql --csv SELECT" psql -X --csv "$url" -c "$sel" :: \
	"history csv, PostgreSQL" "$tracker" history --db "$url" --key key42 --format csv :: \
	"--limit 20, SQLite" "$tracker" history --db "$db" --key key42 --limit 20 :: \
	"--limit 20, PostgreSQL" "$tracker" history --db "$url" --key key42 --limit 20 \
	>"$out/t.txt"
sed 's/^/  /' "$out/t.txt"
awk '
function median(s) { sub(/.*median +/, "", s); sub(/ .*/, "", s); return s + 0 }
/sqlite3 -csv/ { sq = median($0) }
/psql --csv/ { pq = median($0) }
/history csv, SQLite/ { hs = median($0) }
/history csv, PostgreSQL/ { hp = median($0) }
END {
	printf "  history csv / its CLI: SQLite %.2fx, PostgreSQL %.2fx\n", hs / sq, hp / pq
}' "$out/t.txt"

# ---- the store table: what the shared store must keep up with ----
# dashboard of the 100 keys, history of all 1M runs, check of one key,
# a run named by an 8-character id prefix: both stores in one
# interleaved bench/timeit run (BENCH_STORES_N repetitions), then the
# peak RSS of each once (GNU time). Targets: PostgreSQL within 1.5x of
# SQLite for the dashboard and the whole history, within 3x for check
# and --run; peak RSS <= 100 MiB for the dashboard, <= 40 MiB for the
# others, whatever the history's size.
prefix=$(sqlite3 "$db" "SELECT substr(run_id, 1, 8) FROM runs WHERE key = 'key42' ORDER BY started_at_us DESC LIMIT 1")
bench/timeit "$n" \
	"dashboard, SQLite" "$tracker" dashboard --db "$db" --since 2000-01-01 -o "$out/dash-s" :: \
	"dashboard, PostgreSQL" "$tracker" dashboard --db "$url" --since 2000-01-01 -o "$out/dash-p" :: \
	"history all, SQLite" "$tracker" history --db "$db" --format csv :: \
	"history all, PostgreSQL" "$tracker" history --db "$url" --format csv :: \
	"check, SQLite" "$tracker" check --db "$db" --key key42 --baseline-branch main :: \
	"check, PostgreSQL" "$tracker" check --db "$url" --key key42 --baseline-branch main :: \
	"history --run, SQLite" "$tracker" history --db "$db" --run "$prefix" :: \
	"history --run, PostgreSQL" "$tracker" history --db "$url" --run "$prefix" \
	>"$out/table.txt"
rss() { # prints the peak RSS in MiB of the command
	/usr/bin/time -f %M -o "$out/rss" "$@" >/dev/null 2>&1
	awk '{ printf "%.1f", $1 / 1024 }' "$out/rss"
}
{
	for s in SQLite PostgreSQL; do
		if [ $s = SQLite ]; then d=$db; else d=$url; fi
		echo "rss dashboard, $s $(rss "$tracker" dashboard --db "$d" --since 2000-01-01 -o "$out/dash-rss")"
		echo "rss history all, $s $(rss "$tracker" history --db "$d" --format csv)"
		echo "rss check, $s $(rss "$tracker" check --db "$d" --key key42 --baseline-branch main)"
		echo "rss history --run, $s $(rss "$tracker" history --db "$d" --run "$prefix")"
	done
} >"$out/rss.txt"
if diff -r "$out/dash-s" "$out/dash-p" >/dev/null; then same="the same pages"; else same="DIFFERENT pages"; fi
echo
echo "  the store table on the 1M-run history (dashboard of the 100 keys: $same from both stores):"
sed 's/^/  /' "$out/table.txt"
awk '
function median(s) { sub(/.*median +/, "", s); sub(/ .*/, "", s); return s + 0 }
FNR == NR { l = $0; sub(/ +median.*/, "", l); sub(/^ +/, "", l); t[l] = median($0); next }
{ v = $NF; $NF = ""; $1 = ""; sub(/^ /, ""); sub(/ $/, ""); m[$0] = v }
END {
	split("dashboard|history all|check|history --run", op, "|")
	split("1.5 1.5 3 3", want, " ")
	split("100 40 40 40", cap, " ")
	printf "  %-16s %10s %10s %7s %8s %12s %12s\n", "operation", "SQLite", "PostgreSQL", "ratio", "target", "RSS SQLite", "RSS PG"
	for (i = 1; i <= 4; i++) {
		s = t[op[i] ", SQLite"]; p = t[op[i] ", PostgreSQL"]
		r = s > 0 ? p / s : 0
		ms = m[op[i] ", SQLite"]; mp = m[op[i] ", PostgreSQL"]
		printf "  %-16s %9.3fs %9.3fs %6.2fx %7s%s %8s MiB %8s MiB%s\n", op[i], s, p, r,
			"<=" want[i] "x", r <= want[i] ? " " : "!", ms, mp, mp + 0 <= cap[i] ? "" : " (over " cap[i] " MiB)"
	}
}' "$out/table.txt" "$out/rss.txt"

# a fresh database per measurement
fresh_pg() {
	PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 "$url" \
		-c "DROP DATABASE IF EXISTS ingest WITH (FORCE)" -c "CREATE DATABASE ingest"
	echo "$url" | sed 's|/tracker_test$|/ingest|'
}

# ---- push --from: moving a SQLite history ----
small=$out/small.db
"$tracker" run -q --key seed --db "$small" --artifacts "$out/records" -- true
sqlite3 "$small" "DELETE FROM runs; ATTACH '$db' AS big;
	INSERT INTO runs SELECT * FROM big.runs WHERE key = 'key07' LIMIT 2000"
target=$(fresh_pg)
"$tracker" run -q --key seed --db "$target" --artifacts "$out/records" -- true
t0=$(date +%s.%N)
"$tracker" push --from "sqlite:$small" --db "$target" 2>"$out/push.txt"
t1=$(date +%s.%N)
t2=$(date +%s.%N)
"$tracker" push --from "sqlite:$small" --db "$target" 2>"$out/push2.txt"
t3=$(date +%s.%N)
echo
echo "  push --from sqlite (2000 runs) into PostgreSQL: $(cat "$out/push.txt")"
echo "$t0 $t1 $t2 $t3" | awk '{ printf "    %.0f runs/s; again (all already stored): %.0f runs/s\n", 2000 / ($2 - $1), 2000 / ($4 - $3) }'

# ---- ingest ----
# ingest URL WRITERS: prints runs/s
ingest() {
	each=$(( (total + $2 - 1) / $2 ))
	t0=$(date +%s.%N)
	w=0
	while [ $w -lt "$2" ]; do
		(
			i=0
			while [ $i -lt $each ]; do
				"$tracker" run -q --key "ingest$w" --db "$1" --artifacts "$out/spool" -- true ||
					exit 1
				i=$((i + 1))
			done
		) &
		w=$((w + 1))
	done
	wait
	t1=$(date +%s.%N)
	echo "$t0 $t1 $((each * $2))" | awk '{ printf "%.0f", $3 / ($2 - $1) }'
}

echo
echo "  ingest, tracker run -- true, $total runs per cell (runs/s; higher is better):"
printf "  %-12s %10s %10s %10s\n" "store" "1 writer" "10 writers" "50 writers"
# PgBouncer (ci/pgbouncer-test.sh, transaction mode, pool of 20) in front
# of the same server, as docs/stores.md sets it up for many agents
stores="SQLite PostgreSQL"
if pgb_url=$(PGB_POOL_SIZE=20 sh ci/pgbouncer-test.sh start "$pgbdir" "$url" 2>"$out/pgb.err"); then
	stores="$stores PgBouncer"
else
	echo "  (no PgBouncer: $(tail -1 "$out/pgb.err"))"
fi
for store in $stores; do
	row=
	for c in 1 10 50; do
		rm -rf "$out/spool" "$out/ingest.db"*
		if [ $store = SQLite ]; then
			target="sqlite:$out/ingest.db"
		elif [ $store = PostgreSQL ]; then
			target=$(fresh_pg)
		else
			fresh_pg >/dev/null
			target=$(echo "$pgb_url" | sed 's|/tracker_test$|/ingest|')
		fi
		# the schema first: every cell times writers, not the first migration
		"$tracker" run -q --key warm --db "$target" --artifacts "$out/spool" -- true
		r=$(ingest "$target" $c)
		if [ $store = SQLite ]; then
			got=$(sqlite3 "$out/ingest.db" "SELECT count(*) FROM runs WHERE key LIKE 'ingest%'")
		else
			got=$(psql -X -Atc "SELECT count(*) FROM runs WHERE key LIKE 'ingest%'" \
				"$(echo "$url" | sed 's|/tracker_test$|/ingest|')")
		fi
		want=$(( (total + c - 1) / c * c ))
		[ "$got" = "$want" ] || r="$r (only $got of $want stored!)"
		row="$row $(printf "%10s" "$r")"
	done
	printf "  %-12s%s\n" "$store" "$row"
done
