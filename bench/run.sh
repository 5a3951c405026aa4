#!/bin/sh
# make bench: tracker's costs measured against peers in the same run.
#
#   1. wrapper overhead: `tracker run` against GNU `/usr/bin/time -v` on
#      /bin/true, on a 0.3 s job and on a 1 s job (ratios of medians);
#   2. the cost of one tree-RSS sample.
#
# BENCH_N sets the repetitions of the short jobs (default 31).
set -eu
cd "$(dirname "$0")/.."
root=$PWD
n=${BENCH_N:-31}
out=$(mktemp -d "${TMPDIR:-/tmp}/tracker-bench.XXXXXX")
trap 'rm -rf "$out"' EXIT

if ! [ -x /usr/bin/time ] || ! /usr/bin/time -v true >/dev/null 2>&1; then
	echo "bench: GNU time is missing: run ci/install-deps.sh bench" >&2
	exit 1
fi

track="$root/tracker run -q --key bench --db $out/history.db --artifacts $out/records --"
gtime="/usr/bin/time -v -o $out/time.txt"
work="$root/examples/workload"

echo "wrapper overhead (interleaved runs, $n each; ratio = median / median of GNU time -v)"
echo "/bin/true:"
bench/timeit "$n" "time -v /bin/true" $gtime /bin/true :: \
	"tracker run /bin/true" $track /bin/true
echo "0.3 s job (workload spin 0.3):"
bench/timeit "$n" "time -v spin 0.3" $gtime "$work" spin 0.3 :: \
	"tracker run spin 0.3" $track "$work" spin 0.3
echo "1 s job (workload spin 1):"
bench/timeit $(( (n + 1) / 3 )) "time -v spin 1" $gtime "$work" spin 1 :: \
	"tracker run spin 1" $track "$work" spin 1
echo
echo "tree RSS sampling (core/proctree.c):"
bench/sample-cost
