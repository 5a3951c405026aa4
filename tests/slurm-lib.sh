# slurm-lib.sh: sourced, instead of test-lib.sh, by the tests that need a
# real SLURM cluster. It sources test-lib.sh, starts a throwaway
# single-node cluster with accounting with ci/slurm-test-server.sh
# (stopped, by PID, when the script exits) and sets:
#
#   SLURM_CONF     the cluster's slurm.conf (exported: sbatch, srun, sacct)
#   SLURM_DIR      the cluster's directory
#   SLURM          the prerequisite, when the cluster runs
#   SLURM_START_S  how long the cluster took to start, in seconds
#   slurm_restart NAME: stop the cluster and start a new one (fresh state:
#                  job ids start again at 1) named NAME
#   slurm_job SCRIPT [SBATCH ARGS...]: sbatch --wait SCRIPT; prints the
#                  job id
#
# The cluster needs root (slurmd starts jobs as their users). Without it
# the script is skipped, saying why; under CI=true (read before
# test-lib.sh clears it) that is a failure instead: CI must run these
# tests (ci/install-deps.sh test installs the packages).

slurm_lib_ci=${CI:-}
. "$(dirname "$0")/test-lib.sh"

SLURM_SERVER="$TRACKER_ROOT/ci/slurm-test-server.sh"
SLURM_DIR=$(mktemp -u "${TMPDIR:-/tmp}/tracker-slurm.XXXXXX")

slurm_cleanup() { "$SLURM_SERVER" stop "$SLURM_DIR" >/dev/null 2>&1; }

slurm_start() {
	_t0=$(date +%s.%N)
	SLURM_CONF=$("$SLURM_SERVER" start "$SLURM_DIR" "$1" 2>"$TRASH_DIRECTORY/.slurm-start") ||
		return 1
	SLURM_START_S=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $_t0 }")
	export SLURM_CONF
}

slurm_restart() {
	slurm_cleanup
	slurm_start "$1"
}

slurm_job() {
	_script=$1
	shift
	sbatch --parsable --wait "$@" "$_script" | tail -n 1
}

trap slurm_cleanup EXIT
trap 'slurm_cleanup; exit 130' INT TERM
# The jobs must not see a CI of the test's own, nor a SLURM job around it.
unset SLURM_JOB_ID SLURM_STEP_ID SLURM_PROCID SLURM_JOBID SLURM_CLUSTER_NAME
if slurm_start tracker; then
	test_set_prereq SLURM
	echo "# the cluster started in ${SLURM_START_S} s"
elif [ "$slurm_lib_ci" = true ]; then
	test_expect_success 'the SLURM test cluster starts (required under CI=true)' '
		cat .slurm-start; false
	'
	test_done
else
	skip_all="no SLURM test cluster: $(tail -1 "$TRASH_DIRECTORY/.slurm-start")"
	test_done
fi
