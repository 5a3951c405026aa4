#!/bin/sh
# The SLURM accounting figure as a metric: real `tracker run`s of a step
# in Buildkite builds inside a SLURM allocation, sacct a stand-in on PATH
# printing real `sacct -P -n --noconvert` output (fixtures/sacct/) with
# the srun step's MaxRSS at 12 GiB +-1% on main, then 24 GiB in a pull
# request's build. `tracker check --metric slurm_maxrss` (otherwise
# default flags) finds exactly that: +99.8% against the baseline median
# (12.01 GiB), a regression; the plot and the dashboard show the same
# figure.

. "$(dirname "$0")/test-lib.sh"

if ! [ -x /usr/bin/python3 ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
	test_done
fi

mkdir bin
# every Start and End is the time of the call: the srun step is the run's own
cat >bin/sacct <<'EOF'
#!/bin/sh
sed -E "s/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}/$(date +%Y-%m-%dT%H:%M:%S)/g" "$FAKE_SACCT"
EOF
chmod +x bin/sacct

# sacct_with BYTES: the finished job of fixtures/sacct with the srun
# step's MaxRSS (and its TRES mem) set to BYTES
sacct_with() {
	sed "s/12869238784/$1/g" "$FIXTURES/sacct/finished-job.txt" >"sacct-$1.txt"
	echo "$PWD/sacct-$1.txt"
}

# bk BRANCH BUILD CMD...: one build's step, in SLURM allocation 4471
bk() {
	_b=$1 _n=$2
	shift 2
	env PATH="$PWD/bin:$PATH" SLURM_JOB_ID=4471 SLURM_JOB_NAME=climate SLURM_NTASKS=1 \
		BUILDKITE=true BUILDKITE_BRANCH="$_b" BUILDKITE_BUILD_NUMBER="$_n" \
		BUILDKITE_COMMIT="$(printf '%040d' "$_n")" BUILDKITE_PIPELINE_SLUG=climate \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_PULL_REQUEST=false \
		BUILDKITE_STEP_KEY=climate BUILDKITE_PULL_REQUEST_BASE_BRANCH="${BASE:-}" \
		"$@"
}

GIB=1073741824

test_expect_success 'setup: 10 builds of main at 12 GiB +-1%, a pull request at 24 GiB' '
	n=0 &&
	for f in 1.000 1.008 0.993 1.004 0.998 1.011 0.990 1.002 1.006 0.996; do
		n=$((n + 1)) &&
		b=$(awk -v f=$f -v g=$GIB "BEGIN { printf \"%.0f\", 12 * g * f }") &&
		FAKE_SACCT=$(sacct_with $b) bk main $n tracker run -q --db h.db -- true ||
		return 1
	done &&
	FAKE_SACCT=$(sacct_with $((24 * GIB))) BASE=main \
		bk feature 11 tracker run -q --db h.db -- true &&
	test "$(tracker history --db h.db --format csv | wc -l)" = 12
'

test_expect_success 'check --metric slurm_maxrss: a regression of +100%, exit 1' '
	BASE=main test_expect_code 1 bk feature 11 \
		tracker check --db h.db --metric slurm_maxrss >out &&
	cat out &&
	grep "^climate: feature #11 0000000000 (run [0-9a-f]*) against 10 runs of main" out &&
	grep "^climate  slurm_maxrss  regression  12.0 GiB ±[0-9.]*%  24.0 GiB  +99.8%  t [0-9.]* > 3.25 (interval)" out &&
	test $(grep -c "^climate " out) = 1
'

test_expect_success 'the JSON names the metric in bytes' '
	BASE=main test_expect_code 1 bk feature 11 \
		tracker check --db h.db --metric slurm_maxrss --format json >out.json &&
	python3 - <<-\EOF
	import json
	m = json.load(open("out.json"))["results"][0]["metrics"][0]
	assert m["metric"] == "slurm_maxrss" and m["unit"] == "bytes", m
	assert m["verdict"] == "regression" and abs(m["delta_pct"] - 99.8) < 0.05, m
	assert abs(m["baseline_median"] - 12 * 2**30) < 0.01 * 12 * 2**30, m
	EOF
'

test_expect_success 'the same build, judged on walltime and maxrss by default, has no SLURM line' '
	BASE=main bk feature 11 tracker check --db h.db >out;
	test $? -le 1 &&
	! grep slurm_maxrss out &&
	grep "^climate  walltime " out
'

test_expect_success 'history --plot draws it, titled and in GiB' '
	tracker history --db h.db --key climate --since 2000-01-01 --metric slurm_maxrss \
		--plot p.svg &&
	grep -q "SLURM MaxRSS (largest step)" p.svg &&
	grep -q "GiB" p.svg
'

test_expect_success 'the dashboard row: its sparkline, +99.8% and the regression' '
	BASE=main bk feature 11 tracker dashboard --db h.db --since 2000-01-01 \
		--metric slurm_maxrss -o dash &&
	tr -d "\n" <dash/index.html | sed "s/<tr /\n<tr /g" | grep ">climate</a>" >row &&
	grep -q "<td class=\"num up\">+99.8%</td>" row &&
	grep -q "<path fill=\"none\" stroke=\"#1f77b4\"" row &&
	grep -q ">regression<" row
'

test_expect_success 'an unknown metric names slurm_maxrss among the valid ones' '
	test_expect_code 2 tracker check --db h.db --metric slurm_rss 2>err &&
	grep "alloc, slurm_maxrss, " err
'

test_done
