#!/bin/sh
# The importers' memory against their input: tracker flame FILE -o
# x.folded under GNU time, for every fixture, every file of the shared
# real data, every fuzz corpus entry (fuzz/out/import-*, after make fuzz)
# and the hostile profiles tests/helpers/hostile-profiles.py writes.
# Prints, per file of at least 1 MiB inflated, the peak RSS above
# tracker's own (the peak on a one-line profile) divided by the inflated
# input size; for smaller files (their ratios are noise), the largest
# peak above tracker's own. docs/importers.md quotes the worst of both.
#
#   sh bench/import-memory.sh [SCALE]     (BENCH_ONLY=import in make bench)
set -eu
cd "$(dirname "$0")/.."
root=$PWD
scale=${1:-1}
out=$(mktemp -d "${TMPDIR:-/tmp}/tracker-importmem.XXXXXX")
trap 'rm -rf "$out"' EXIT
shared=${TRACKER_SHARED:-$root/../shared}

peak_kb() { # peak RSS of tracker flame FILE, in KiB (any exit status)
	/usr/bin/time -f %M -o "$out/t" "$root/tracker" flame "$1" -o "$out/x.folded" \
		>/dev/null 2>"$out/err" || true
	tail -1 "$out/t"
}
inflated() { gzip -dc -f "$1" 2>/dev/null | wc -c || wc -c <"$1"; }

printf 'main 1\n' >"$out/one.folded"
base=$(peak_kb "$out/one.folded")
echo "tracker's own peak RSS (a one-line profile): $base KiB"
python3 tests/helpers/hostile-profiles.py "$out/hostile" "$scale"
: >"$out/rows"
for f in fixtures/*/* fixtures/*/*/* "$shared"/real-data/*/* fuzz/out/import-*/* \
	"$out"/hostile/*; do
	[ -f "$f" ] || continue
	kb=$(peak_kb "$f")
	n=$(inflated "$f")
	[ "$n" -gt 0 ] || continue
	st=ok
	[ -s "$out/err" ] && grep -q "error:" "$out/err" && st=refused
	echo "$kb $n $st $f" >>"$out/rows"
done
echo "files of 1 MiB or more inflated: (peak - own) / inflated size"
awk -v base="$base" '$2 >= 1048576 { r = ($1 - base) * 1024 / $2;
	printf "  %6.1fx  %8d KiB  %10d bytes  %-7s %s\n", r, $1, $2, $3, $4 }' "$out/rows" |
	sort -rn | tee "$out/big"
echo "smaller files: the largest peaks above tracker's own"
awk -v base="$base" '$2 < 1048576 { printf "  %8d KiB above  %8d bytes  %-7s %s\n",
	$1 - base, $2, $3, $4 }' "$out/rows" | sort -rn | head -5
echo "worst ratio: $(head -1 "$out/big" | awk '{ print $1 }'), over $(wc -l <"$out/rows") files"
