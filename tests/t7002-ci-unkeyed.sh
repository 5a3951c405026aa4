#!/bin/sh
# A wrapper never stands between a CI step and its job: a step without a
# key gets one derived from its name (Buildkite label, GitHub job, GitLab
# job name, SLURM job name, in that order), with one warning, and keeps
# its exit status; under CI, option and setup problems are warnings and
# the job runs. Outside CI the usage errors typed on the command line
# stop tracker before the job (docs/tracker-run.md lists them).

. "$(dirname "$0")/test-lib.sh"

# with_env FILE CMD...: runs CMD with the variables of FILE exported
# (KEY=VALUE lines, # comments; values may contain spaces).
with_env() {
	(
		while IFS= read -r line; do
			case $line in
			'#'* | '') continue ;;
			esac
			export "${line%%=*}=${line#*=}"
		done <"$1"
		shift
		"$@"
	)
}

# unkeyed FIXTURE KEY: the step runs, exits 3 as its command did, warns
# once, and is recorded under KEY.
unkeyed() {
	rm -f ran &&
	test_expect_code 3 with_env "$FIXTURES/env/$1.env" \
		tracker run --db h.db --artifacts art -- sh -c "touch ran; exit 3" 2>err &&
	cat err &&
	test -e ran &&
	test "$(grep -c "warning: no key given" err)" = 1 &&
	grep "recording as .$2." err &&
	tracker history --db h.db --limit 1 --format csv >h.csv &&
	test "$(csv_field h.csv 1 key)" = "$2" &&
	test "$(csv_field h.csv 1 exit_code)" = 3
}

test_expect_success 'buildkite step without key: the label, emoji stripped, slugged' '
	unkeyed buildkite-unkeyed amip-low-res &&
	grep "the Buildkite label" err
'

test_expect_success 'github job: GITHUB_JOB' '
	unkeyed github-push benchmark &&
	grep "the GitHub job" err
'

test_expect_success 'gitlab job: CI_JOB_NAME, slugged' '
	unkeyed gitlab-push perf-r2b4 &&
	grep "the GitLab job name" err
'

test_expect_success 'sbatch script: the SLURM job name, slugged' '
	unkeyed slurm-sbatch amip-4-nodes &&
	grep "the SLURM job name" err
'

test_expect_success 'a step key still wins, with no warning' '
	with_env "$FIXTURES/env/buildkite-push.env" \
		tracker run --db h.db --artifacts art -- true 2>err &&
	! grep warning err &&
	tracker history --db h.db --limit 1 --format csv >h.csv &&
	test "$(csv_field h.csv 1 key)" = amip
'

test_expect_success 'a CI without a provider (CI=true): the command name' '
	CI=true tracker run --db h.db --artifacts art -- /bin/sh -c "exit 0" 2>err &&
	grep "recording as .sh., from the command" err &&
	tracker history --db h.db --limit 1 --format csv >h.csv &&
	test "$(csv_field h.csv 1 key)" = sh
'

test_expect_success 'a job killed by a signal is still re-raised' '
	with_env "$FIXTURES/env/github-push.env" \
		tracker run --db h.db --artifacts art -- sh -c "kill -TERM \$\$"
	test $? = 143
'

test_expect_success 'under CI, bad options are warnings and the job runs with its status' '
	rm -f ran &&
	test_expect_code 4 with_env "$FIXTURES/env/buildkite-unkeyed.env" \
		tracker run --db h.db --artifacts art --frobnicate 3 --timeout soon \
		--tag notatag --profile heap --sample-bytes 0 --cpu-hz 0 \
		--profile-kind "Bad Kind" --key "$(printf "a\001b")" \
		-- sh -c "touch ran; exit 4" 2>err &&
	cat err &&
	test -e ran &&
	grep "unknown option .--frobnicate." err &&
	grep "option .--timeout. wants a duration .*, not .soon." err &&
	grep "option .--tag.: .notatag. is not KEY=VALUE" err &&
	grep "option .--profile.: unknown profile .heap." err &&
	grep "option .--sample-bytes.: invalid size .0." err &&
	grep "option .--cpu-hz. wants a whole number from 1 to 10000, not .0." err &&
	grep -- "--profile-kind" err &&
	grep "invalid key .a.x01b. (3 bytes; .*); ignored under CI, recording as .amip-low-res., from the Buildkite label" err &&
	! grep "no key given" err &&
	test "$(grep -c "ignored under CI, the job runs" err)" = 7 &&
	tracker history --db h.db --limit 1 --format csv >h.csv &&
	test "$(csv_field h.csv 1 key)" = amip-low-res &&
	test "$(csv_field h.csv 1 exit_code)" = 4
'

test_expect_success 'under CI, --per-rank in a batch script is a warning; the run is recorded' '
	test_expect_code 5 with_env "$FIXTURES/env/slurm-sbatch.env" \
		tracker run --per-rank --key pr --db h.db --artifacts art -- sh -c "exit 5" 2>err &&
	grep "per-rank in a batch script (no srun task" err &&
	tracker history --db h.db --key pr --format csv >h.csv &&
	test "$(csv_field h.csv 1 exit_code)" = 5
'

test_expect_success 'under CI, an unwritable artifacts directory: the run reaches the database' '
	echo "not a directory" >afile &&
	test_expect_code 6 with_env "$FIXTURES/env/github-push.env" \
		tracker run --key unw --db h.db --artifacts afile/art -- sh -c "exit 6" 2>err &&
	grep "cannot write the run record" err &&
	tracker history --db h.db --key unw --format csv >h.csv &&
	test "$(csv_field h.csv 1 exit_code)" = 6
'

test_expect_success 'under CI, a broken .tracker.yml is a warning and the job runs' '
	mkdir broken &&
	printf "db: [unclosed\n" >broken/.tracker.yml &&
	(cd broken && test_expect_code 7 with_env "$FIXTURES/env/github-push.env" \
		tracker run --key b --db ../h.db -- sh -c "exit 7") 2>err &&
	grep "tracker.yml:" err
'

test_expect_success 'outside CI, the usage errors stop tracker before the job' '
	rm -f ran &&
	test_expect_code 2 tracker run --db h.db -- touch ran 2>err &&
	grep "no key for this run" err &&
	test_expect_code 2 tracker run --key k --frobnicate -- touch ran 2>err &&
	test_expect_code 2 tracker run --key k --timeout soon -- touch ran 2>err &&
	test_expect_code 2 tracker run --key k --tag x -- touch ran 2>err &&
	test_expect_code 2 tracker run --key k --profile heap -- touch ran 2>err &&
	test_expect_code 2 tracker run --key "$(printf "a\001")" -- touch ran 2>err &&
	test_expect_code 2 tracker run --key k --timeout 2>err &&
	! test -e ran
'

test_expect_success 'no command is a usage error even under CI' '
	test_expect_code 2 with_env "$FIXTURES/env/github-push.env" tracker run --key k -- 2>err &&
	grep "no command" err
'

test_done
