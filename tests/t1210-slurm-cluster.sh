#!/bin/sh
# tracker run on a real SLURM cluster (ci/slurm-test-server.sh: slurmctld,
# slurmd, slurmdbd on MariaDB, munge), with sbatch and srun jobs as users
# run them: each step's own memory, scancel and the time limit in each
# launch pattern, OOM kills, %r and --per-rank in a batch script, rank
# groups across two clusters, a hung slurmdbd. The cluster starts once
# for the whole file (about 13 s); each job records into a fresh
# database, as job ids restart with each new cluster.

. "$(dirname "$0")/slurm-lib.sh"

MiB=1048576
W="$TRACKER_ROOT/examples/workload"
T="$TRACKER_ROOT/tracker"
test -x "$W" && test_set_prereq WORKLOAD
command -v jq >/dev/null 2>&1 && test_set_prereq JQ
command -v mpicc >/dev/null 2>&1 && test_set_prereq MPICC
# the cgroup v2 mount, where tracker makes its job cgroups
cgmnt=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup2") print $5; break } }' \
	/proc/self/mountinfo | head -n 1)

# job NAME BODY [SBATCH ARGS]: NAME.sh, a batch script with BODY, run to
# its end; the job id in NAME.id, its output in NAME.out
job() {
	_n=$1 _body=$2
	shift 2
	printf '#!/bin/sh\n%s\n' "$_body" >"$_n.sh"
	slurm_job "$_n.sh" -o "$PWD/$_n.out" -D "$PWD" "$@" >"$_n.id"
}

# start NAME BODY [SBATCH ARGS]: the same, not waiting for its end
start() {
	_n=$1 _body=$2
	shift 2
	printf '#!/bin/sh\n%s\n' "$_body" >"$_n.sh"
	sbatch --parsable -o "$PWD/$_n.out" -D "$PWD" "$@" "$_n.sh" >"$_n.id"
}

# running ID: wait (10 s at most) until the job's first srun step runs
running() {
	for _i in $(seq 100); do
		squeue -h -s -j "$1" -o %i 2>/dev/null | grep -q "^$1\.0$" && return 0
		sleep 0.1
	done
	return 1
}

# gone ID [SECONDS]: wait (40 s at most) until the job has left the queue
gone() {
	for _i in $(seq $((${2:-40} * 10))); do
		test -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" && return 0
		sleep 0.1
	done
	return 1
}

# run_of DB KEY FIELD: the newest run of KEY's FIELD (jq path)
run_of() {
	"$T" history --db "$1" --key "$2" --format json | jq -r ".[0].$3"
}

# The time limit (a minute at least, and slurmctld looks every 30 s):
# the three patterns start first and are looked at near the end.
test_expect_success SLURM,WORKLOAD 'three jobs that will hit their time limit, one per launch pattern' '
	start t-script "$T run --key t-script --db limit.db --artifacts art -- srun $W sleep 304" \
		--time=1 &&
	start t-exec "exec $T run --key t-exec --db limit.db --artifacts art -- srun $W sleep 305" \
		--time=1 &&
	start t-srun "srun $T run --per-rank --key t-srun --db limit.db --artifacts art -- $W sleep 306" \
		--time=1 &&
	running $(cat t-script.id) && running $(cat t-exec.id) && running $(cat t-srun.id)
'

test_expect_success SLURM,WORKLOAD,JQ 'two steps of 500 and 50 MiB in one script: each key its own' '
	job twosteps "
$T run -q --key big --db two.db --artifacts art -- srun $W touch 500 2
$T run -q --key small --db two.db --artifacts art -- srun $W touch 50 2" --mem=2000 &&
	id=$(cat twosteps.id) &&
	test "$(run_of two.db big slurm.maxrss_step)" = "$id.0" &&
	test "$(run_of two.db small slurm.maxrss_step)" = "$id.1" &&
	test "$(run_of two.db small "slurm.steps | length")" = 1 &&
	big=$(run_of two.db big slurm.maxrss_bytes) &&
	small=$(run_of two.db small slurm.maxrss_bytes) &&
	test_within $big $((500 * MiB)) $((530 * MiB)) &&
	test_within $small $((50 * MiB)) $((60 * MiB)) &&
	test "$(run_of two.db big slurm.maxrss_lower_bound)" = null &&
	test "$(run_of two.db small status)" = ok
'

# (how short a step SLURM misses depends on the machine's load: the rule
# for a step shorter than the sampling is tests/unit/t-sacct's)
test_expect_success SLURM,WORKLOAD,JQ 'SLURM'"'"'s MaxRSS below tracker'"'"'s own: a lower bound' '
	job short "$T run -q --key short --db short.db --artifacts art -- \
		sh -c \"$W touch 300 0.3 && srun $W touch 5 0.1\"" --mem=2000 &&
	test "$(run_of short.db short slurm.maxrss_lower_bound)" = true &&
	test "$(run_of short.db short slurm.maxrss_bytes)" -lt $((300 * MiB)) &&
	test "$(run_of short.db short maxrss_bytes)" -ge $((300 * MiB))
'

test_expect_success SLURM,WORKLOAD,JQ 'a background step is not waited for' '
	job bgstep "
srun --overlap -n1 $W sleep 20 &
sleep 1
s=\$(date +%s.%N)
$T run -q --sacct --key fg --db bg.db --artifacts art -- srun --overlap -n1 $W touch 10 1
echo \"\$(date +%s.%N) - \$s\" >fg.elapsed
scancel --signal=KILL \$SLURM_JOB_ID.0
" -n2 --mem=2000 &&
	awk "{ exit !(\$1 - \$3 < 4) }" fg.elapsed &&
	test "$(run_of bg.db fg "slurm.steps | length")" = 1 &&
	test "$(run_of bg.db fg slurm.maxrss_step)" = "$(cat bgstep.id).1"
'

test_expect_success SLURM,WORKLOAD,JQ 'an OOM kill under --mem: status oom, from sacct'"'"'s State' '
	job oom "$T run -q --key oom --db oom.db --artifacts art -- srun $W touch 400 2" --mem=150;
	test "$(run_of oom.db oom status)" = oom &&
	test "$(sacct -n -P -j "$(cat oom.id).0" -o State)" = OUT_OF_MEMORY
'

test_expect_success SLURM,WORKLOAD,JQ 'an OOM kill in the batch step: status oom, from the cgroup'"'"'s events' '
	job oombatch "$T run --key oomb --db oom.db --artifacts art -- $W touch 400 2
echo rc=\$?" --mem=150 &&
	grep "rc=137" oombatch.out &&
	grep "tracker: oomb: oom," oombatch.out &&
	test "$(run_of oom.db oomb status)" = oom &&
	test "$(run_of oom.db oomb signal)" = 9
'

# scancel: TERM to the batch shell only, then KILL to the rest of the
# batch step about 1 ms later; TERM to the srun steps, KILL 30 s later.
test_expect_success SLURM,WORKLOAD 'scancel in each launch pattern' '
	start in-script "$T run --key c-script --db cancel.db --artifacts art -- srun $W sleep 301" &&
	start exec "exec $T run --key c-exec --db cancel.db --artifacts art -- srun $W sleep 302" &&
	running $(cat in-script.id) && running $(cat exec.id) &&
	sleep 1 &&
	pgrep -f -- "--key c-script --db cancel.db" >killed.pids &&
	pgrep -f -- "--key c-exec --db cancel.db" >>killed.pids &&
	scancel $(cat in-script.id) $(cat exec.id) &&
	gone $(cat in-script.id) && gone $(cat exec.id) &&
	start srun "srun $T run --per-rank --key c-srun --db cancel.db --artifacts art -- $W sleep 303" &&
	running $(cat srun.id) &&
	sleep 1 &&
	pgrep -f -- "--key c-srun --db cancel.db" >>killed.pids &&
	scancel $(cat srun.id) &&
	gone $(cat srun.id)
'

test_expect_success SLURM,JQ 'exec tracker run and srun tracker run end cancelled at once' '
	test "$(run_of cancel.db c-exec status)" = cancelled &&
	test "$(run_of cancel.db c-srun status)" = cancelled
'

test_expect_success SLURM,JQ 'tracker run in a script is settled cancelled by the next run' '
	test "$(run_of cancel.db c-script status)" = started &&
	job settle "$T run --key c-script --db cancel.db --artifacts art -- true" &&
	grep "1 earlier run(s) of .c-script. that SLURM ended" settle.out &&
	"$T" history --db cancel.db --key c-script --format json >settled.json &&
	test "$(jq -r ".[1].status" settled.json)" = cancelled &&
	test "$(jq -r ".[1].partial" settled.json)" = true &&
	awk "BEGIN { exit !($(jq -r ".[1].walltime_s" settled.json) > 0) }"
'

test_expect_success SLURM 'no process and no job cgroup of a killed tracker is left' '
	! pgrep -f "workload sleep 30[123]" &&
	test $(wc -l <killed.pids) -ge 3 &&
	left= &&
	for pid in $(cat killed.pids); do
		! kill -0 $pid 2>/dev/null || left="$left $pid"
		left="$left$(find "${cgmnt:-/nonexistent}" -maxdepth 3 -name "tracker-job-$pid-*" 2>/dev/null)"
	done &&
	echo "left:$left" &&
	test -z "$left"
'

test_expect_success SLURM 'a batch script: %r is batch and --per-rank a run of its own, one warning each' '
	job batch "
$T run -q --key batchr --db batch.db --artifacts art --profile-file prof.%r.folded \
	--profile-file other.%r.folded -- sh -c \"echo \\\"main;solve 7\\\" >prof.batch.folded; echo \\\"main;solve 7\\\" >other.batch.folded\"
$T run -q --per-rank --key batchp --db batch.db --artifacts art -- true" &&
	test "$(grep -c "%r in a batch script (no srun task) is .batch." batch.out)" = 1 &&
	test "$(grep -c "warning: --per-rank in a batch script" batch.out)" = 1 &&
	"$T" flame --db batch.db --key batchr -o batchr.folded &&
	grep "main;solve 7" batchr.folded &&
	! "$T" history --db batch.db --key batchp --format json | grep -q "\"rank\""
'

test_expect_success SLURM,JQ 'srun -n2 tracker run --per-rank: one group of 2 ranks named by cluster, job and submit time' '
	job ranks "srun -n2 $T run -q --per-rank --key ranks --db ranks1.db --artifacts art -- true" -n2 &&
	id=$(cat ranks.id) &&
	"$T" history --db ranks1.db --key ranks --ranks --format json >ranks.json &&
	test "$(jq -r "length" ranks.json)" = 1 &&
	test "$(jq -r ".[0].ranks" ranks.json)" = 2 &&
	jq -r ".[0].rank_group" ranks.json >group &&
	grep "^tracker:$id\.0@20[0-9-]*T[0-9:]*\$" group
'

test_expect_success SLURM,WORKLOAD,JQ 'a hung slurmdbd is named as such' '
	kill -STOP $(cat "$SLURM_DIR/slurmdbd.pid") &&
	job hung "TRACKER_SACCT_WAIT=1 $T run --sacct --key hung --db hung.db --artifacts art -- srun $W touch 5 0.2";
	kill -CONT $(cat "$SLURM_DIR/slurmdbd.pid") &&
	grep "note: no SLURM accounting for job $(cat hung.id): sacct did not answer within 2.0 s: slurmdbd is not answering" hung.out &&
	test "$(run_of hung.db hung status)" = ok
'

test_expect_success SLURM,JQ 'the time limit: exec tracker run and srun tracker run end timeout' '
	gone $(cat t-script.id) 150 && gone $(cat t-exec.id) 30 && gone $(cat t-srun.id) 30 &&
	test "$(run_of limit.db t-exec status)" = timeout &&
	test "$(run_of limit.db t-srun status)" = timeout &&
	grep "DUE TO TIME LIMIT" t-srun.out
'

test_expect_success SLURM,JQ 'the time limit: tracker run in a script is settled timeout by the next run' '
	test "$(run_of limit.db t-script status)" = started &&
	job settle-limit "$T run --key t-script --db limit.db --artifacts art -- true" &&
	"$T" history --db limit.db --key t-script --format json >limit.json &&
	test "$(jq -r ".[1].status" limit.json)" = timeout &&
	! pgrep -f "workload sleep 30[456]"
'

test_expect_success SLURM,MPICC,JQ 'Open MPI under srun --mpi=pmix: one job of 2 ranks, each its own memory' '
	mpicc -o mpi-ranks "$TRACKER_ROOT/tests/t1210-slurm-cluster/mpi-ranks.c" &&
	job mpi "srun --mpi=pmix -n2 $T run -q --per-rank --key mpi --db mpi.db --artifacts art -- ./mpi-ranks" \
		-n2 --mem=2000 &&
	grep "rank 1 of 2 sum 1" mpi.out &&
	"$T" history --db mpi.db --key mpi --ranks --format json >mpi.json &&
	test "$(jq -r "length" mpi.json)" = 1 &&
	test "$(jq -r ".[0].ranks" mpi.json)" = 2 &&
	"$T" history --db mpi.db --key mpi --format json >mpi-runs.json &&
	r0=$(jq -r "map(select(.rank == 0))[0].maxrss_bytes" mpi-runs.json) &&
	r1=$(jq -r "map(select(.rank == 1))[0].maxrss_bytes" mpi-runs.json) &&
	test $r0 -ge $((16 * MiB)) && test $r1 -ge $((32 * MiB)) && test $r1 -gt $r0
'

# Job ids restart with a new cluster of the same name: the new one's
# jobs are numbered again from 1, up to the id of the ranks job above.
# Keep this last: it restarts the cluster.
test_expect_success SLURM,JQ 'a job id reused by a new cluster is another rank group' '
	slurm_restart tracker &&
	want=$(cat ranks.id) &&
	id=0 &&
	while test $id -lt $((want - 1)); do
		id=$(sbatch --parsable -o /dev/null --wrap=true) || break
	done &&
	test $id = $((want - 1)) &&
	job ranks-again "srun -n2 $T run -q --per-rank --key ranks --db ranks1.db --artifacts art -- true" -n2 &&
	test "$(cat ranks-again.id)" = "$want" &&
	"$T" history --db ranks1.db --key ranks --ranks --format json >reuse.json &&
	test "$(jq -r "length" reuse.json)" = 2 &&
	test "$(jq -r ".[0].ranks" reuse.json)" = 2 &&
	test "$(jq -r ".[1].ranks" reuse.json)" = 2
'

test_done
