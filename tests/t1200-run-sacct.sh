#!/bin/sh
# tracker run inside a SLURM allocation keeps sacct's accounting of the
# srun steps it launched beside its own figures. sacct is a small stand-in
# on PATH (bin/sacct) that records its argv and prints real `sacct -P -n
# --noconvert` output (fixtures/sacct/), with every Start and End made the
# time of the call (so the srun step started while the run ran), lagging,
# failing or garbled as a test asks. t1210 runs a real cluster.

. "$(dirname "$0")/test-lib.sh"

command -v jq >/dev/null 2>&1 && test_set_prereq JQ
command -v sacct >/dev/null 2>&1 || test_set_prereq NO_REAL_SACCT

mkdir bin
# FAKE_SACCT: a file of output, one per call in order (the last repeats);
# FAKE_SACCT_FAIL: exit 1 with a message as Slurm words it.
cat >bin/sacct <<'EOF'
#!/bin/sh
n=$(cat sacct.calls 2>/dev/null || echo 0)
n=$((n + 1))
echo $n >sacct.calls
printf '%s\n' "$@" >sacct.argv
# -X: the jobs' own rows, as core/ci/settle.c asks them
if [ "$1" = -X ]; then
	cat "$FAKE_SACCT_X"
	exit 0
fi
if [ -n "$FAKE_SACCT_FAIL" ]; then
	echo "sacct: error: Problem talking to the database: Connection refused" >&2
	exit 1
fi
set -- $FAKE_SACCT
while [ $n -gt 1 ] && [ $# -gt 1 ]; do shift; n=$((n - 1)); done
sed -E "s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}/$(date +%Y-%m-%dT%H:%M:%S)/g" "$1"
EOF
chmod +x bin/sacct
: >empty.txt
FIX="$FIXTURES/sacct"

# in_job CMD...: CMD inside allocation 4471 with the stand-in sacct first on PATH
in_job() {
	rm -f sacct.calls sacct.argv
	env PATH="$PWD/bin:$PATH" SLURM_JOB_ID=4471 SLURM_JOB_NAME=climate \
		SLURM_NTASKS=1 TRACKER_SACCT_WAIT=${WAIT:-5} "$@"
}

field() { jq -r ".run.$1" art/*.json; }

test_expect_success JQ 'a finished job: the srun step it launched stored, its memory the run'"'"'s' '
	rm -rf art &&
	FAKE_SACCT="$FIX/finished-job.txt" in_job \
		tracker run --key climate --artifacts art --db h.db -- sh -c "exit 3" 2>err;
	test $? = 3 &&
	cat >argv.want <<-\EOF &&
	-j
	4471
	-P
	-n
	--noconvert
	--format=JobID,JobName,MaxRSS,AveRSS,TRESUsageInTot,TRESUsageInMax,Elapsed,State,ExitCode,Start,End
	EOF
	test_cmp argv.want sacct.argv &&
	test "$(cat sacct.calls)" = 1 &&
	test "$(field "slurm.steps | length")" = 1 &&
	test "$(field "slurm.steps | map(.kind) | join(\",\")")" = step &&
	test "$(field slurm.maxrss_bytes)" = 12869238784 &&
	test "$(field slurm.maxrss_step)" = 4471.0 &&
	test "$(field slurm.maxrss_lower_bound)" = null &&
	test "$(field "slurm.steps[0].averss_bytes")" = 3217309696 &&
	test "$(field "slurm.steps[0].elapsed_s")" = 93779 &&
	test "$(field "slurm.steps[0].start_s")" -ge $(($(date +%s) - 60)) &&
	test "$(field "slurm.steps[0].tres_usage_in_max")" = \
		"cpu=1-00:17:33,energy=0,fs/disk=268435456,mem=12869238784,pages=1,vmem=15032385536" &&
	test "$(field exit_code)" = 3 &&
	test "$(field maxrss_bytes)" -lt 12869238784 &&
	! grep note err
'

test_expect_success JQ 'history --format json shows the SLURM figures' '
	tracker history --db h.db --format json >h.json &&
	test "$(jq -r ".[0].slurm.maxrss_bytes" h.json)" = 12869238784 &&
	test "$(jq -r ".[0].slurm.steps[0].kind" h.json)" = step
'

test_expect_success SQLITE3 'the database keeps the job memory in a column' '
	test "$(sqlite3 h.db "SELECT slurm_maxrss_bytes FROM runs")" = 12869238784
'

test_expect_success JQ 'a pushed record keeps its steps' '
	tracker push --db pushed.db art/*.json &&
	tracker history --db pushed.db --format json >p.json &&
	test "$(jq -r ".[0].slurm.maxrss_step" p.json)" = 4471.0
'

test_expect_success JQ 'lagging accounting: asked again until the srun step has ended' '
	rm -rf art &&
	FAKE_SACCT="empty.txt $FIX/srun-running-batch.txt $FIX/finished-job.txt" \
	in_job tracker run --key climate --artifacts art -- true 2>err &&
	test "$(cat sacct.calls)" = 2 &&
	test "$(field slurm.maxrss_step)" = 812345.0 &&
	test "$(field slurm.maxrss_bytes)" = 2147483648 &&
	test "$(field "slurm.steps | length")" = 1 &&
	! grep note err
'

test_expect_success JQ 'a running srun step is waited for until it ends' '
	rm -rf art &&
	sed "s/|00:01:02|COMPLETED|/|00:01:02|RUNNING|/" "$FIX/srun-running-batch.txt" >running.txt &&
	FAKE_SACCT="running.txt running.txt $FIX/srun-running-batch.txt" \
	in_job tracker run --key climate --artifacts art -- true 2>err &&
	test "$(cat sacct.calls)" = 3 &&
	test "$(field "slurm.steps[0].state")" = COMPLETED
'

test_expect_success JQ 'no accounting at all: a note, the run recorded, the status kept' '
	rm -rf art &&
	FAKE_SACCT=empty.txt WAIT=0.6 in_job \
		tracker run --key climate --artifacts art -- sh -c "exit 7" 2>err;
	test $? = 7 &&
	grep "tracker: note: no SLURM accounting for job 4471: no accounting records for job 4471 after 0.6 s" err &&
	test "$(cat sacct.calls)" -ge 2 &&
	test "$(field slurm)" = null &&
	test "$(field exit_code)" = 7
'

test_expect_success JQ 'sacct failing: its message in the note, the run recorded' '
	rm -rf art &&
	FAKE_SACCT_FAIL=1 in_job tracker run --key climate --artifacts art -- true 2>err &&
	grep "note: no SLURM accounting for job 4471: sacct exited 1: sacct: error: Problem talking to the database" err &&
	test "$(field status)" = ok &&
	test "$(field slurm)" = null
'

test_expect_success JQ 'garbage from sacct: a note naming the line, the run recorded' '
	rm -rf art &&
	FAKE_SACCT="$FIX/garbage.txt" in_job \
		tracker run --key climate --artifacts art -- sh -c "exit 4" 2>err;
	test $? = 4 &&
	grep "note: no SLURM accounting for job 4471: cannot parse sacct output line 1" err &&
	test "$(field slurm)" = null
'

test_expect_success NO_REAL_SACCT,JQ 'sacct not on PATH: a note, the run recorded' '
	rm -rf art &&
	env SLURM_JOB_ID=4471 tracker run --key climate --artifacts art -- sh -c "exit 5" 2>err;
	test $? = 5 &&
	grep "note: no SLURM accounting for job 4471: cannot run .sacct.: not found" err &&
	test "$(field exit_code)" = 5
'

test_expect_success '-q: no note' '
	rm -rf art &&
	FAKE_SACCT=empty.txt WAIT=0 in_job tracker run -q --key climate --artifacts art -- true 2>err &&
	! test -s err
'

test_expect_success 'outside an allocation sacct is not asked; --sacct says why not' '
	rm -f sacct.calls &&
	env PATH="$PWD/bin:$PATH" FAKE_SACCT="$FIX/finished-job.txt" \
		tracker run --key k --artifacts art2 -- true 2>err &&
	! test -f sacct.calls &&
	! grep note err &&
	env PATH="$PWD/bin:$PATH" FAKE_SACCT="$FIX/finished-job.txt" \
		tracker run --sacct --key k --artifacts art2 -- true 2>err &&
	! test -f sacct.calls &&
	grep "note: --sacct: not inside a SLURM allocation" err
'

test_expect_success JQ 'one rank of many (--per-rank) leaves sacct alone, unless --sacct' '
	rm -rf art &&
	FAKE_SACCT="$FIX/finished-job.txt" in_job env SLURM_STEP_ID=0 SLURM_PROCID=0 \
		tracker run --per-rank --key climate --artifacts art -- true &&
	! test -f sacct.calls &&
	rm -rf art &&
	FAKE_SACCT="$FIX/finished-job.txt" in_job env SLURM_STEP_ID=1 SLURM_PROCID=0 \
		tracker run --per-rank --sacct --key climate --artifacts art -- true &&
	test "$(field slurm.maxrss_step)" = 4471.0
'

test_expect_success JQ 'the step tracker runs in is not a step it launched' '
	rm -rf art &&
	FAKE_SACCT="$FIX/finished-job.txt" in_job env SLURM_STEP_ID=0 SLURM_PROCID=0 \
		tracker run --per-rank --sacct --key climate --artifacts art -- true 2>err &&
	test "$(cat sacct.calls)" = 1 &&
	test "$(field slurm)" = null &&
	grep "note: --sacct: the run launched no srun step of job 4471" err
'

test_expect_success JQ 'a step that ran out of memory: status oom, the exit status kept' '
	rm -rf art &&
	sed "s/|1-02:02:59|COMPLETED|0:0|/|1-02:02:59|OUT_OF_MEMORY|0:125|/" \
		"$FIX/finished-job.txt" >oom.txt &&
	FAKE_SACCT=oom.txt in_job tracker run --key climate --artifacts art -- sh -c "exit 137" 2>err;
	test $? = 137 &&
	test "$(field status)" = oom &&
	test "$(field exit_code)" = 137
'

test_expect_success JQ 'a step that hit the time limit: status timeout' '
	rm -rf art &&
	sed "s/|1-02:02:59|COMPLETED|0:0|/|1-02:02:59|TIMEOUT|0:15|/" \
		"$FIX/finished-job.txt" >timeout.txt &&
	FAKE_SACCT=timeout.txt in_job tracker run --key climate --artifacts art -- sh -c "exit 143" 2>err;
	test $? = 143 &&
	test "$(field status)" = timeout
'

test_expect_success JQ 'a hung slurmdbd: sacct that does not answer is named as such' '
	rm -rf art &&
	cp bin/sacct sacct.stand-in &&
	cat >bin/sacct <<-\EOF &&
	#!/bin/sh
	exec sleep 30
	EOF
	chmod +x bin/sacct &&
	WAIT=1 in_job tracker run --key climate --artifacts art -- true 2>err;
	cp sacct.stand-in bin/sacct &&
	grep "note: no SLURM accounting for job 4471: sacct did not answer within 2.0 s: slurmdbd is not answering (hung or overloaded?)" err &&
	test "$(field status)" = ok
'

started_runs() {
	test "$(sqlite3 lost.db "SELECT count(*) FROM runs WHERE status = 'started'" 2>/dev/null)" = "$1"
}

# lost N: a tracker run in job $JOB that is KILLed with its job
# running, as slurmstepd does when a batch script's shell dies
lost() {
	rm -f up &&
	env PATH="$PWD/bin:$PATH" SLURM_JOB_ID=$JOB FAKE_SACCT=empty.txt TRACKER_SACCT_WAIT=0 \
		tracker run -q --key lost --db lost.db --artifacts lost-art -- \
		sh -c "touch up; exec sleep 60" &
	pid=$! &&
	wait_for test -f up &&
	wait_for started_runs "$1" &&
	kill -9 $pid
	wait $pid
	return 0
}

t() { date -d "@$1" +%Y-%m-%dT%H:%M:%S; }

test_expect_success SQLITE3,JQ 'runs SLURM killed with tracker: the next run of the key settles them from sacct' '
	JOB=4468 lost 1 &&
	JOB=4470 lost 2 &&
	now=$(date +%s) &&
	{
		echo "4468|CANCELLED by 0|$(t $((now + 30)))|$(t $((now + 60)))" &&
		echo "4470|TIMEOUT|$(t $((now - 60)))|$(t $((now + 1)))"
	} >settle.txt &&
	FAKE_SACCT="$FIX/finished-job.txt" FAKE_SACCT_X=settle.txt in_job \
		tracker run --key lost --db lost.db --artifacts lost-art -- true 2>err &&
	grep "note: 1 earlier run(s) of .lost. that SLURM ended with tracker are now recorded" err &&
	grep -x -- "-j" sacct.argv &&
	grep -x -- "4468,4470\|4470,4468" sacct.argv &&
	tracker history --db lost.db --key lost --format json >lost.json &&
	test "$(jq -r "map(select(.ci.slurm_job_id == \"4470\"))[0].status" lost.json)" = timeout &&
	test "$(jq -r "map(select(.ci.slurm_job_id == \"4470\"))[0].partial" lost.json)" = true &&
	test "$(jq -r "map(select(.ci.slurm_job_id == \"4468\"))[0].status" lost.json)" = started
'

test_done
