#!/bin/sh
# make bench's SLURM section, on a throwaway single-node cluster
# (ci/slurm-test-server.sh; root only, else it says why and stops):
#
#   1. how long the cluster takes to start;
#   2. inside one job, `srun true` alone against `tracker run -- srun
#      true` (which waits for sacct's row of its step) and `tracker run
#      --per-rank` under srun against `srun true` (ratios of medians).
#
# BENCH_N sets the repetitions (default 31; a third of them here, as each
# is an srun step).
set -eu
cd "$(dirname "$0")/.."
root=$PWD
n=$(( (${BENCH_N:-31} + 2) / 3 ))
dir=$(mktemp -u "${TMPDIR:-/tmp}/tracker-bench-slurm.XXXXXX")
trap 'ci/slurm-test-server.sh stop "$dir" >/dev/null 2>&1' EXIT

if [ "$(id -u)" != 0 ]; then
	echo "slurm: skipped (the test cluster needs root)"
	exit 0
fi
t0=$(date +%s.%N)
if ! conf=$(ci/slurm-test-server.sh start "$dir" 2>"$dir.err"); then
	echo "slurm: skipped (no cluster: $(tail -1 "$dir.err"))"
	rm -f "$dir.err"
	exit 0
fi
rm -f "$dir.err"
awk "BEGIN { printf \"cluster start (slurmdbd on MariaDB, slurmctld, slurmd): %.1f s\\n\", $(date +%s.%N) - $t0 }"
export SLURM_CONF="$conf"
work=$(mktemp -d "${TMPDIR:-/tmp}/tracker-bench-job.XXXXXX")
trap 'ci/slurm-test-server.sh stop "$dir" >/dev/null 2>&1; rm -rf "$work"' EXIT
cat >"$work/job.sh" <<JOB
#!/bin/sh
echo "srun steps in one job ($n each, interleaved; ratio = median / median of srun true):"
$root/bench/timeit $n "srun true" srun true :: \
	"tracker run -- srun true" $root/tracker run -q --key b --db $work/h.db --artifacts $work/a -- srun true :: \
	"srun tracker run --per-rank true" srun $root/tracker run -q --per-rank --key r --db $work/h.db --artifacts $work/a -- true
JOB
sbatch --wait -o "$work/out" -D "$work" "$work/job.sh" >/dev/null
cat "$work/out"
