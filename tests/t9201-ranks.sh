#!/bin/sh
# MPI under SLURM: `srun tracker run --per-rank` records each rank as part
# of one job; `history --ranks` shows a job's ranks as one row (max and sum
# of the peaks, the longest walltime, the worst ending); `flame --ranks`
# adds up the ranks' profiles. srun is simulated: the tasks are real
# processes started at once with the variables srun gives each task.

. "$(dirname "$0")/test-lib.sh"

MiB=1048576
command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3

# rank JOB STEP PROCID NTASKS KEY CMD...: one task of a simulated srun.
rank() {
	job=$1 step=$2 procid=$3 ntasks=$4 key=$5
	shift 5
	SLURM_JOB_ID=$job SLURM_STEP_ID=$step SLURM_PROCID=$procid SLURM_NTASKS=$ntasks \
		tracker run -q --per-rank --key "$key" --db h.db --artifacts arts -- "$@"
}

# The newest row of `history --ranks --format csv` for key, column name.
job_field() {
	tracker history --db h.db --key "$1" --ranks --format csv >job.csv &&
	csv_field job.csv 1 "$2"
}

# max and sum of a column of plain `history --format csv` over key's runs.
runs_max() {
	tracker history --db h.db --key "$1" --format csv >runs.csv &&
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		$c > m { m = $c } END { print m }' runs.csv
}
runs_sum() {
	tracker history --db h.db --key "$1" --format csv >runs.csv &&
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		{ s += $c } END { printf "%.0f\n", s }' runs.csv
}

# rank_id KEY GROUP RANK: the run id of a rank, from the record files.
rank_id() {
	for f in $(grep -l "\"rank_group\": \"$2\"" arts/"$1"-*.json); do
		grep -q "\"rank\": $3," "$f" && basename "$f" .json | sed "s/^$1-//"
	done
}

test_expect_success WORKLOAD 'three ranks of one job step, started at once, touching 20/40/60 MiB' '
	rank 777 1 0 3 mpi "$WORKLOAD" touch 20 0.5 & p0=$!
	rank 777 1 1 3 mpi "$WORKLOAD" touch 40 0.5 & p1=$!
	rank 777 1 2 3 mpi "$WORKLOAD" touch 60 0.5 & p2=$!
	wait $p0 && wait $p1 && wait $p2 &&
	tracker history --db h.db --key mpi --format csv >runs.csv &&
	test $(wc -l <runs.csv) = 4
'

test_expect_success WORKLOAD 'each rank has its own record file in the shared artifacts directory' '
	test $(ls arts/mpi-*.json | wc -l) = 3 &&
	for r in 0 1 2; do
		test $(grep -l "\"rank\": $r," arts/mpi-*.json | wc -l) = 1 || return 1
	done &&
	test $(grep -l "\"rank_group\": \"777.1\"" arts/mpi-*.json | wc -l) = 3
'

test_expect_success WORKLOAD 'history --ranks: one row, 3 ranks, max and sum of the ranks'"'"' peaks' '
	tracker history --db h.db --key mpi --ranks --format csv >job.csv &&
	test $(wc -l <job.csv) = 2 &&
	test "$(csv_field job.csv 1 rank_group)" = 777.1 &&
	test "$(csv_field job.csv 1 ranks)" = 3 &&
	test "$(csv_field job.csv 1 ntasks)" = 3 &&
	test "$(csv_field job.csv 1 run_id)" = "" &&
	test "$(csv_field job.csv 1 maxrss_bytes)" = "$(runs_max mpi maxrss_bytes)" &&
	test "$(csv_field job.csv 1 maxrss_sum_bytes)" = "$(runs_sum mpi maxrss_bytes)" &&
	test "$(csv_field job.csv 1 tree_rss_bytes)" = "$(runs_max mpi tree_rss_bytes)" &&
	test "$(csv_field job.csv 1 tree_rss_sum_bytes)" = "$(runs_sum mpi tree_rss_bytes)" &&
	test "$(csv_field job.csv 1 walltime_s)" = "$(runs_max mpi walltime_s)" &&
	test "$(csv_field job.csv 1 status)" = ok &&
	test "$(csv_field job.csv 1 not_ok_ranks)" = 0
'

# The upper bounds leave room for each process's own RSS (about 1 MiB, and
# 8 MiB more in a sanitizer build): a sum of the max (180 MiB) still fails.
test_expect_success WORKLOAD 'the aggregates are of the real processes: max near 60 MiB, sum near 120 MiB' '
	test_within "$(job_field mpi maxrss_bytes)" $((57 * MiB)) $((72 * MiB)) &&
	test_within "$(job_field mpi maxrss_sum_bytes)" $((114 * MiB)) $((150 * MiB))
'

test_expect_success WORKLOAD 'history --ranks table: the job, its ranks, max and sum columns' '
	tracker history --db h.db --key mpi --ranks >out &&
	head -n 1 out | grep "^STARTED  *KEY  *BRANCH  *BUILD  *COMMIT  *JOB  *RANKS  *WALL  *MAXRSS  *MAXRSS_SUM  *TREE_RSS  *TREE_SUM  *STATUS$" &&
	test $(wc -l <out) = 2 &&
	sed -n 2p out | grep " mpi  .* 777\.1  *3  .* ok$"
'

test_expect_success PYTHON3,WORKLOAD 'history --ranks json: the job with its runs by rank' '
	tracker history --db h.db --key mpi --ranks --format json >out.json &&
	tracker history --db h.db --key mpi --format csv >runs.csv &&
	python3 -c "
import csv, json, sys
jobs = json.load(open(\"out.json\"))
runs = list(csv.DictReader(open(\"runs.csv\")))
assert len(jobs) == 1, jobs
j = jobs[0]
assert j[\"rank_group\"] == \"777.1\" and j[\"ranks\"] == 3 and j[\"ntasks\"] == 3, j
assert [r[\"rank\"] for r in j[\"runs\"]] == [0, 1, 2], j[\"runs\"]
assert sorted(r[\"id\"] for r in j[\"runs\"]) == sorted(r[\"run_id\"] for r in runs)
rss = [int(r[\"maxrss_bytes\"]) for r in runs]
assert j[\"maxrss_bytes\"] == max(rss) and j[\"maxrss_sum_bytes\"] == sum(rss), j
# the rank that touched most is the largest
assert max(j[\"runs\"], key=lambda r: r[\"maxrss_bytes\"])[\"rank\"] == 2
"
'

test_expect_success 'the worst ending of the ranks is the job'"'"'s, naming the rank' '
	rank 900 0 0 4 bad true & p0=$!
	rank 900 0 1 4 bad sh -c "exit 3" & p1=$!
	rank 900 0 2 4 bad true & p2=$!
	wait $p0 && { wait $p1; test $? = 3; } && wait $p2 &&
	tracker history --db h.db --key bad --ranks --format csv >job.csv &&
	test "$(csv_field job.csv 1 status)" = failed &&
	test "$(csv_field job.csv 1 exit_code)" = 3 &&
	test "$(csv_field job.csv 1 worst_rank)" = 1 &&
	test "$(csv_field job.csv 1 not_ok_ranks)" = 1 &&
	test "$(csv_field job.csv 1 ranks)" = 3 &&
	tracker history --db h.db --key bad --ranks >out &&
	sed -n 2p out | grep " 900\.0  *3/4  .* failed 3 (rank 1 of 3)$"
'

test_expect_success 'two job steps are two rows; a run without --per-rank is a row of its own' '
	rank 777 2 0 1 mpi true &&
	tracker run -q --key mpi --db h.db --artifacts arts -- true &&
	tracker history --db h.db --key mpi --ranks --format csv >job.csv &&
	test $(wc -l <job.csv) = 4 &&
	test "$(csv_field job.csv 1 rank_group)" = "" &&
	test "$(csv_field job.csv 1 ranks)" = "" &&
	test -n "$(csv_field job.csv 1 run_id)" &&
	test "$(csv_field job.csv 1 maxrss_sum_bytes)" = "$(csv_field job.csv 1 maxrss_bytes)" &&
	test "$(csv_field job.csv 2 rank_group)" = 777.2 &&
	test "$(csv_field job.csv 2 ranks)" = 1 &&
	test "$(csv_field job.csv 3 rank_group)" = 777.1 &&
	test "$(csv_field job.csv 3 ranks)" = 3
'

test_expect_success '--limit counts rows of --ranks, not runs' '
	tracker history --db h.db --key mpi --ranks --limit 3 --format csv >job.csv &&
	test $(wc -l <job.csv) = 4 &&
	test "$(csv_field job.csv 3 ranks)" = 3 &&
	tracker history --db h.db --key mpi --ranks --limit 1 --format csv >job.csv &&
	test $(wc -l <job.csv) = 2
'

test_expect_success 'without --ranks history lists every rank'"'"'s run as before' '
	tracker history --db h.db --key mpi --format csv >runs.csv &&
	test $(wc -l <runs.csv) = 6 &&
	head -n 1 runs.csv | grep "^run_id,key,branch,commit,build,started_at,walltime_s,maxrss_bytes,tree_rss_bytes,exit_code,"
'

test_expect_success SQLITE3 'the store keeps rank and group in columns' '
	test "$(sqlite3 h.db "SELECT group_concat(rank, \" \") FROM (SELECT rank FROM runs WHERE rank_group = '"'"'777.1'"'"' ORDER BY rank)")" = "0 1 2" &&
	test "$(sqlite3 h.db "SELECT count(*) FROM runs WHERE key = '"'"'mpi'"'"' AND rank IS NULL")" = 1
'

test_expect_success 'tracker push keeps the ranks: the same job in a new database' '
	tracker history --db h.db --key mpi --ranks --format csv >before.csv &&
	tracker push --db pushed.db arts 2>err &&
	tracker history --db pushed.db --key mpi --ranks --format csv >after.csv &&
	test_cmp before.csv after.csv
'

test_expect_success 'outside SLURM, --per-rank is a usage error; the job does not run' '
	test_expect_code 2 env SLURM_PROCID=0 \
		tracker run --per-rank --key u --db h.db -- touch ran 2>err &&
	grep "SLURM_JOB_ID is not set" err &&
	! test -e ran &&
	test_expect_code 65 tracker history --db h.db --key u --format csv 2>err &&
	grep "no runs of key .u." err
'

# In an allocation tracker never stops the job: a warning, a plain run.
test_expect_success 'in an allocation, a missing or bad SLURM_PROCID is a warning' '
	env SLURM_JOB_ID=5 SLURM_STEP_ID=0 \
		tracker run --per-rank --key u --db h.db -- touch ran 2>err &&
	grep "SLURM_PROCID is not set" err &&
	test -e ran && rm ran &&
	env SLURM_JOB_ID=5 SLURM_STEP_ID=0 SLURM_PROCID=x \
		tracker run --per-rank --key u --db h.db -- touch ran 2>err &&
	grep "SLURM_PROCID .x." err &&
	test -e ran &&
	test "$(tracker history --db h.db --key u --format csv | wc -l)" = 3
'

# SLURM sets SLURM_PROCID=0 and no SLURM_STEP_ID in a batch script
test_expect_success 'in a batch script --per-rank warns once and records a run of its own' '
	env SLURM_JOB_ID=6 SLURM_PROCID=0 SLURM_NTASKS=2 \
		tracker run -q --per-rank --key batchrank --db h.db --artifacts batch-art \
		-- true 2>err &&
	test "$(grep -c "warning: --per-rank in a batch script" err)" = 1 &&
	! grep -q "\"rank\"" batch-art/*.json &&
	test "$(tracker history --db h.db --key batchrank --ranks --format csv | sed -n 2p | cut -d, -f1)" != ""
'

test_expect_success 'the rank group names the cluster and the job submit time when known' '
	env SLURM_JOB_ID=9 SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_CLUSTER_NAME=north \
		tracker run -q --per-rank --key clusterrank --db h.db --artifacts cl-art -- true &&
	grep "\"rank_group\": \"north:9.0\"" cl-art/*.json &&
	env SLURM_JOB_ID=9 SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_CLUSTER_NAME="no:pe" \
		tracker run --per-rank --key clusterrank --db h.db --artifacts cl-art -- true 2>err &&
	grep "SLURM_CLUSTER_NAME .no:pe. is not a cluster name" err
'

# Profiles come from `tracker import --run`: a small folded profile per
# rank, weights chosen so the sum is known.
test_expect_success 'flame --ranks adds up the profiles of every rank of the job' '
	for r in 0 1 2; do
		printf "app;main;solve %d\napp;main;halo %d\n" $((100 * (r + 1))) $((r + 1)) >p$r.folded &&
		tracker import --db h.db --run "$(rank_id mpi 777.1 $r)" --kind alloc p$r.folded 2>/dev/null ||
		return 1
	done &&
	printf "app;main;rank2only 7\n" >extra.folded &&
	cat p2.folded extra.folded >p2x.folded &&
	tracker import --db h.db --run "$(rank_id mpi 777.1 2)" --kind alloc p2x.folded 2>/dev/null &&
	printf "app;main;halo 6\napp;main;rank2only 7\napp;main;solve 600\n" >expect &&
	tracker flame --db h.db --run "$(rank_id mpi 777.1 1)" --ranks --kind alloc -o all.folded &&
	sort all.folded >actual &&
	test_cmp expect actual
'

test_expect_success 'flame --key K --ranks takes the newest job with such profiles' '
	tracker flame --db h.db --key mpi --ranks --kind alloc -o key.folded &&
	sort key.folded >actual &&
	test_cmp expect actual &&
	tracker flame --db h.db --key mpi --ranks --kind alloc -o all.svg &&
	grep "777\.1" all.svg &&
	grep "3 ranks merged" all.svg
'

test_expect_success 'without --ranks flame shows the one rank'"'"'s profile' '
	tracker flame --db h.db --run "$(rank_id mpi 777.1 0)" --kind alloc -o one.folded &&
	sort one.folded >actual &&
	printf "app;main;halo 1\napp;main;solve 100\n" >expect1 &&
	test_cmp expect1 actual
'

test_expect_success 'flame --ranks errors: not a rank 65, no such profile 65, with a FILE 2' '
	plain=$(tracker history --db h.db --key mpi --format csv | sed -n 2p | cut -d, -f1) &&
	test_expect_code 65 tracker flame --db h.db --run "$plain" --ranks -o x.svg 2>err &&
	grep "not a rank" err &&
	test_expect_code 65 tracker flame --db h.db --key mpi --ranks --kind cpu -o x.svg 2>err &&
	grep "cpu profile" err &&
	test_expect_code 2 tracker flame --ranks p0.folded -o x.svg
'

# --profile-file with %r: each rank reads the file it wrote itself.
# prank PROCID: one task of a simulated srun of job 888.0 writing its
# profile to prof.PROCID.folded.
prank() {
	SLURM_JOB_ID=888 SLURM_STEP_ID=0 SLURM_PROCID=$1 SLURM_NTASKS=3 \
		tracker run -q --per-rank --key mpiprof --db h.db --artifacts arts \
		--profile-kind alloc --profile-file "prof.%r.folded" -- sh writeprof.sh
}
test_expect_success 'three ranks at once, --profile-file prof.%r.folded: each stores its own' '
	cat >writeprof.sh <<-\EOF &&
	printf "app;main;rank%s %s\n" "$SLURM_PROCID" $((10 * (SLURM_PROCID + 1))) \
		>prof.$SLURM_PROCID.folded
	EOF
	for r in 0 1 2; do
		printf "app;main;rank%s %s\n" $r $((10 * (r + 1))) >want$r || return 1
	done &&
	prank 0 & p0=$!
	prank 1 & p1=$!
	prank 2 & p2=$!
	wait $p0 && wait $p1 && wait $p2 &&
	for r in 0 1 2; do
		tracker flame --db h.db --run "$(rank_id mpiprof 888.0 $r)" --kind alloc -o got$r.folded &&
		test_cmp want$r got$r.folded || return 1
	done &&
	tracker flame --db h.db --key mpiprof --ranks --kind alloc -o sum.folded &&
	sort sum.folded >actual &&
	cat want0 want1 want2 >expect &&
	test_cmp expect actual
'

test_expect_success 'without --per-rank, %r is SLURM_PROCID when it is set' '
	SLURM_PROCID=2 tracker run -q --key procid --db h.db --artifacts arts --profile-kind alloc \
		--profile-file "prof.%r.folded" -- true &&
	tracker flame --db h.db --key procid --kind alloc -o procid.folded &&
	test_cmp want2 procid.folded
'

test_expect_success '%% is a literal %, %x itself; %r without a rank: a warning, the job runs' '
	printf "app;main;literal 1\n" >"lit%r.folded" &&
	printf "app;main;other 2\n" >"pct%x.folded" &&
	test_expect_code 5 env -u SLURM_PROCID tracker run -q --key norank --db h.db \
		--artifacts arts --profile-kind alloc --profile-file "lit%%r.folded" \
		--profile-file "prof.%r.folded" -- sh -c "echo ran >ran.txt; exit 5" 2>err &&
	test -s ran.txt &&
	echo "tracker: warning: --profile-file '\''prof.%r.folded'\'': %r stands for the rank, and SLURM_PROCID is not set or not a rank; the run is recorded without this profile" >expect &&
	test_cmp expect err &&
	tracker flame --db h.db --key norank --kind alloc -o lit.folded &&
	grep "^app;main;literal 1$" lit.folded &&
	tracker run -q --key pct --db h.db --artifacts arts --profile-kind alloc \
		--profile-file "pct%x.folded" -- true &&
	tracker flame --db h.db --key pct --kind alloc -o pct.folded &&
	grep "^app;main;other 2$" pct.folded
'

test_done
