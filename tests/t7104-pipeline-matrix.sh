#!/bin/sh
# tracker pipeline wrap on matrix steps, default flags, then the jobs
# Buildkite makes of them run for real: each job of a matrix step records
# a series of its own (amip[low], amip[high]) with its values as tags, and
# tracker check judges one job's series alone. Before, every job had the
# step's key: the check of that mixed series says its runs ran other
# commands. Matrix values cannot inject: those that would end the quotes
# of the key, make an invalid key or change at upload leave their step as
# it is; the others stay inside the quotes.
#
# The test plays Buildkite's part. What Buildkite does with a matrix step
# (github.com/buildkite/go-pipeline, step_command_matrix.go and
# interpolate_matrix.go): one job per value of a `matrix:` list (or of a
# `setup:` list), or per combination of `setup:`'s dimensions, plus each
# adjustment's `with:`, less those an adjustment skips; in each job's
# command, every match of the regexp \{\{\s*matrix(\.[\w\-.]+)?\s*\}\} is
# replaced by the job's value of that dimension, as text, whatever shell
# quotes it lands in. The values are the upload's: `$$` already made `$`.
# The agent then runs the command with `bash -e -c` in the job's
# environment (here fixtures/env/buildkite-push.env, on main).

. "$(dirname "$0")/test-lib.sh"

P="$FIXTURES/pipelines"
HERE="$TEST_DIRECTORY/t7104-pipeline-matrix"

# bk_job COMMAND [NAME=]VALUE...: COMMAND as Buildkite makes it for the
# job with these values ("=low" for a list's value, "res=low" for a
# dimension's).
bk_job() {
	python3 -c '
import re, sys
values = dict(a.split("=", 1) for a in sys.argv[2:])
token = re.compile(r"\{\{\s*matrix(\.[\w\-.]+)?\s*\}\}")
sys.stdout.write(token.sub(lambda m: values[(m.group(1) or ".")[1:]], sys.argv[1]))
' "$@"
}

# command_of FILE KEY: the wrapped command of step KEY, written as one
# double-quoted YAML scalar (its escapes are JSON's here), as the agent
# gets it.
command_of() {
	sed -n "s/^ *command: \(\"tracker run --key '$2\[.*\"\)\$/\1/p" "$1" |
		python3 -c 'import json, sys; sys.stdout.write(json.loads(sys.stdin.read()))'
}

# with_env FILE CMD...: CMD with the variables of FILE exported (t7001).
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

# bk BUILD QUEUE CMD...: CMD in a job of build BUILD of main on the agent
# queue QUEUE, into the history h.db.
bk() {
	_n=$1 _q=$2
	shift 2
	with_env "$FIXTURES/env/buildkite-push.env" env BUILDKITE_BRANCH=main \
		BUILDKITE_BUILD_NUMBER="$_n" BUILDKITE_COMMIT="$(printf '%040d' "$_n")" \
		BUILDKITE_AGENT_META_DATA_QUEUE="$_q" TRACKER_DB="$TRASH_DIRECTORY/${DB:-h.db}" \
		"$@"
}

# A julia that takes longer at high resolution.
mkdir -p bin experiments
cat >bin/julia <<'EOF'
#!/bin/sh
case " $* " in
*" high "*) sleep 0.2 ;;
*) sleep 0.05 ;;
esac
echo "julia $*"
EOF
chmod +x bin/julia
PATH="$TRASH_DIRECTORY/bin:$PATH"

test_expect_success 'known answer: the matrix steps wrapped, default flags' '
	tracker pipeline wrap "$P/matrix.yml" >wrapped.yml 2>err &&
	test_cmp "$HERE/matrix.expected" wrapped.yml &&
	grep "^tracker: 4 of 4 command step(s) wrapped$" err &&
	tracker pipeline wrap wrapped.yml >twice.yml 2>err &&
	test_cmp wrapped.yml twice.yml
'

test_expect_success 'Buildkite makes the jobs of a list matrix: one key and series each' '
	cmd=$(command_of wrapped.yml amip) &&
	test "$cmd" = "tracker run --key '\''amip[{{matrix}}]'\'' --tag '\''matrix={{matrix}}'\'' -- bash -e -c '\''julia --project amip.jl --res {{matrix}}'\''" &&
	for n in 1 2 3 4 5 6 7; do
		for res in low high; do
			bk $n central bash -e -c "$(bk_job "$cmd" "=$res")" >out.$n.$res ||
			return 1
		done
	done &&
	grep "^julia --project amip.jl --res high$" out.7.high &&
	tracker history --db h.db --format csv >h.csv &&
	test $(grep -c "^[^,]*,amip\[low\],main," h.csv) = 7 &&
	test $(grep -c "^[^,]*,amip\[high\],main," h.csv) = 7 &&
	test $(wc -l <h.csv) = 15
'

test_expect_success 'the values are the runs'\'' tags' '
	tracker history --db h.db --key "amip[high]" --format json >high.json &&
	python3 -c "import json; runs = json.load(open(\"high.json\")); \
assert len(runs) == 7, len(runs); \
assert all(r[\"tags\"] == {\"matrix\": \"high\"} for r in runs), runs[0][\"tags\"]; \
assert all(r[\"argv\"] == [\"bash\", \"-e\", \"-c\", \"julia --project amip.jl --res high\"] \
for r in runs), runs[0][\"argv\"]"
'

# The verdicts are the machine's (a parallel make check may slow a run):
# what is checked is which runs are compared, so exit 1 is no failure.
test_expect_success 'tracker check of one job: its own series, like with like' '
	bk 7 central tracker check --key "amip[high]" >check.txt 2>err
	test $? -le 1 &&
	grep "^amip\[high\]: main #7 0000000000 (run [0-9a-f]*) against 6 runs of main, machine class central$" check.txt &&
	grep "^amip\[high\]  walltime  " check.txt &&
	! grep "command differs" err &&
	bk 7 central tracker check --key "amip[high]" --format json >check.json 2>err
	test $? -le 1 &&
	tracker history --db h.db --key "amip[high]" --format csv >high.csv &&
	python3 -c "import json; r = json.load(open(\"check.json\"))[\"results\"][0]; \
ids = {l.split(\",\")[0] for l in open(\"high.csv\").readlines()[1:]}; \
assert r[\"key\"] == \"amip[high]\" and len(r[\"baseline\"]) == 6, r; \
assert all(b[\"run_id\"] in ids for b in r[\"baseline\"]), r[\"baseline\"]; \
assert \"command_differs\" not in r"
'

test_expect_success 'before: one --key for every job, and check says the commands differ' '
	for n in 1 2 3 4 5 6 7; do
		for res in low high; do
			DB=old.db bk $n central tracker run --key amip -- \
				bash -e -c "julia --project amip.jl --res $res" >/dev/null ||
			return 1
		done
	done &&
	DB=old.db bk 7 central tracker check --key amip >check.txt 2>err
	test $? -le 1 &&
	cat err &&
	grep "^tracker: warning: amip: the current run'\''s command differs from 5 of its 10 baseline runs ('\''bash -e -c '\''julia --project amip.jl --res high'\'''\'' vs '\''bash -e -c '\''julia --project amip.jl --res low'\'''\'')$" err &&
	test $(grep -c "command differs" err) = 1 &&
	DB=old.db bk 7 central tracker check --key amip --format json >check.json 2>/dev/null
	test $? -le 1 &&
	python3 -c "import json; c = json.load(open(\"check.json\"))[\"results\"][0][\"command_differs\"]; \
assert (c[\"differing\"], c[\"of\"]) == (5, 10), c; \
assert c[\"current\"].endswith(\"--res high'\''\") and c[\"baseline\"].endswith(\"--res low'\''\"), c" &&
	DB=old.db bk 7 central tracker check --key amip --format markdown >check.md 2>/dev/null
	test $? -le 1 &&
	grep "^- \*\*warning\*\*: amip: the current run&#39;s command differs from 5 of its 10 baseline runs" check.md
'

test_expect_success 'Buildkite makes the jobs of a setup matrix: dimensions, adjustments, skips' '
	awk "/^ *- \|-\$/ { f = 1; next } f && /^            / { sub(/^            /, \"\"); print; next } f { exit }" \
		wrapped.yml >coupler.cmd &&
	grep "^tracker run --key '\''coupler\[res={{matrix.res}},arch={{matrix.arch}}\]'\'' " coupler.cmd &&
	cmd=$(cat coupler.cmd) &&
	for job in low,cpu low,gpu high,gpu mid,gpu; do
		res=${job%,*} arch=${job#*,}
		DB=c.db bk 1 $arch bash -e -c "$(bk_job "$cmd" res=$res arch=$arch)" >/dev/null ||
		return 1
	done &&
	tracker history --db c.db --format json >c.json &&
	python3 -c "import json; \
print(\"\n\".join(sorted(\"%s %s\" % (r[\"key\"], r[\"machine_class\"]) for r in json.load(open(\"c.json\")))))" \
		>keys &&
	printf "%s\n" "coupler[res=high,arch=gpu] gpu" "coupler[res=low,arch=cpu] cpu" \
		"coupler[res=low,arch=gpu] gpu" "coupler[res=mid,arch=gpu] gpu" >want &&
	test_cmp want keys &&
	tracker history --db c.db --key "coupler[res=mid,arch=gpu]" --format json >mid.json &&
	python3 -c "import json; r = json.load(open(\"mid.json\"))[0]; \
assert r[\"tags\"] == {\"matrix.res\": \"mid\", \"matrix.arch\": \"gpu\"}, r[\"tags\"]"
'

test_expect_success 'hostile values: left with a warning, or kept inside the quotes' '
	tracker pipeline wrap "$P/matrix-injection.yml" >wrapped.yml 2>err &&
	test_cmp "$HERE/matrix-injection.expected" wrapped.yml &&
	grep "matrix-injection.yml:17: step .quote.: its matrix value .it.s. holds a single quote, which would end the quotes of the key it is put in; left as it is$" err &&
	grep "matrix-injection.yml:20: step .newline.: its matrix value would make an invalid tag .matrix=line.x0abreak; touch pwned-newline. " err &&
	grep "matrix-injection.yml:27: step .upload.: its matrix value .\${BUILDKITE_BRANCH}. is interpolated at upload" err &&
	grep "^tracker: 1 of 4 command step(s) wrapped; 3 left as they are (see above)$" err &&
	cmd=$(command_of wrapped.yml subst) &&
	for v in "\$(touch pwned-dollar)" "\`touch pwned-backtick\`" "semi; touch pwned-semi" \
		"\$HOME" "--db=/tmp/elsewhere"; do
		DB=i.db bk 1 central bash -e -c "$(bk_job "$cmd" "=$v")" >out || return 1
		printf "%s\n" "$v" >want && test_cmp want out || return 1
	done &&
	! ls pwned* 2>/dev/null &&
	test ! -e /tmp/elsewhere &&
	tracker history --db i.db --format json >i.json &&
	python3 -c "import json; runs = json.load(open(\"i.json\")); \
got = sorted((r[\"key\"], r[\"tags\"][\"matrix\"]) for r in runs); \
want = sorted((\"subst[%s]\" % v, v) for v in (\"\$(touch pwned-dollar)\", \"\`touch pwned-backtick\`\", \
\"semi; touch pwned-semi\", \"\$HOME\", \"--db=/tmp/elsewhere\")); \
assert got == want, got"
'

test_done
