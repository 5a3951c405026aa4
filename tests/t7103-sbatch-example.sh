#!/bin/sh
# ci/slurm/tracker-sbatch-example.sh runs as the batch script of a job:
# SLURM is simulated (the variables sbatch gives the script; an srun that
# starts --ntasks tasks, or $SLURM_NTASKS, each with the variables srun
# gives a task) and `julia` is the bundled workload, touching memory. The
# setup step is one run, the MPI step one job of four ranks, and the
# script exits with the steps' status.

. "$(dirname "$0")/test-lib.sh"

EXAMPLE="$TRACKER_ROOT/ci/slurm/tracker-sbatch-example.sh"
command -v bash >/dev/null 2>&1 && test_set_prereq BASH

mkdir -p bin
cat >bin/srun <<'EOF2'
#!/bin/sh
# srun [--ntasks=N] CMD...: N tasks of a new job step, started at once.
n=$SLURM_NTASKS
case $1 in --ntasks=*) n=${1#--ntasks=}; shift ;; esac
step=$(cat "$SLURM_SIM/step" 2>/dev/null || echo 0)
echo $((step + 1)) >"$SLURM_SIM/step"
pids=
i=0
while [ $i -lt "$n" ]; do
	SLURM_STEP_ID=$step SLURM_PROCID=$i SLURM_NTASKS=$n SLURM_STEP_NUM_TASKS=$n "$@" &
	pids="$pids $!"
	i=$((i + 1))
done
rc=0
for p in $pids; do wait $p || rc=$?; done
exit $rc
EOF2
cat >bin/julia <<EOF2
#!/bin/sh
# the model: rank r touches 10*(r+1) MiB; JULIA_FAIL=1 makes it fail
[ "\${JULIA_FAIL:-0}" = 1 ] && exit 3
exec "$WORKLOAD" touch \$((10 * (\${SLURM_PROCID:-0} + 1))) 0.3
EOF2
chmod +x bin/srun bin/julia

job() {
	SLURM_SIM=$TRASH_DIRECTORY SLURM_JOB_ID=$1 SLURM_NTASKS=4 SLURM_JOB_NAME=amip \
	TRACKER_DB=sqlite:$TRASH_DIRECTORY/h.db PATH="$TRASH_DIRECTORY/bin:$PATH" \
		bash "$EXAMPLE"
}

test_expect_success BASH,WORKLOAD 'the example job records the setup run and four ranks as one job' '
	job 4242 >out 2>err &&
	tracker history --db h.db --key amip-setup --format csv >setup.csv &&
	test $(wc -l <setup.csv) = 2 &&
	tracker history --db h.db --key amip --format csv >ranks.csv &&
	test $(wc -l <ranks.csv) = 5 &&
	tracker history --db h.db --key amip --ranks --format csv >job.csv &&
	test $(wc -l <job.csv) = 2 &&
	test "$(csv_field job.csv 1 ranks)" = 4 &&
	test_within "$(csv_field job.csv 1 maxrss_bytes)" 40000000 200000000 &&
	test $(ls tracker-artifacts/amip-*.json | grep -vc amip-setup) = 4
'

test_expect_success BASH,WORKLOAD 'a failing setup fails the job and skips the MPI step' '
	rm -f step &&
	JULIA_FAIL=1 job 4243 >out 2>err; rc=$? &&
	test $rc = 3 &&
	tracker history --db h.db --key amip --format csv >ranks.csv &&
	test $(wc -l <ranks.csv) = 5
'

test_done
