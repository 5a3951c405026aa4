#!/bin/bash
# An sbatch script that measures its job steps with tracker.
#
#   sbatch ci/slurm/tracker-sbatch-example.sh
#
# `srun tracker run --per-rank ... -- CMD` starts one tracker per task, each
# measuring its own rank's process tree: walltime, CPU and peak memory per
# rank, with the SLURM job, step and task id (SLURM_PROCID) in each record,
# filed as one job (`tracker history --key amip --ranks`). Putting tracker
# outside srun (`tracker run -- srun CMD`) would measure only the srun
# launcher on the first node: the ranks are started by slurmstepd on every
# node, not as children of srun, so none of their CPU or memory is seen.
#
# tracker must be on PATH on the compute nodes (module load, or a shared
# install prefix).
#
#SBATCH --job-name=amip
#SBATCH --nodes=1
#SBATCH --ntasks=4
#SBATCH --cpus-per-task=1
#SBATCH --time=02:00:00
#SBATCH --output=%x-%j.out

set -uo pipefail

# One history database for all runs. SQLite on a network filesystem works
# but serialises writers (tracker uses a rollback journal there).
export TRACKER_DB=${TRACKER_DB:-sqlite:/scratch/$USER/tracker/history.db}
# Record files (one per rank and step), kept even when the database is
# unreachable; sbatch starts in the submission directory.
export TRACKER_ARTIFACTS=${TRACKER_ARTIFACTS:-$PWD/tracker-artifacts}

status=0

# A serial step: one task.
srun --ntasks=1 tracker run --key amip-setup -- \
	julia --project -e 'using Pkg; Pkg.instantiate()' || status=$?

# The MPI step: every rank is measured; tags go into each record.
if [ "$status" -eq 0 ]; then
	srun tracker run --per-rank --key amip --tag resolution=low --timeout 90m -- \
		julia --project experiments/amip.jl || status=$?
fi

# Store records that could not reach the database while the steps ran.
# Already stored runs are skipped by run id, so this never duplicates.
tracker push "$TRACKER_ARTIFACTS" || true

exit "$status"
