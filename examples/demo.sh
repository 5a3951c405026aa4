#!/bin/sh
# make demo: the main job end to end on the embedded default (SQLite).
#
# Wraps the bundled example workloads as seven builds of two branches, the
# way a Buildkite pipeline would (the Buildkite variables are set here as
# the agent would set them): main, the baseline branch, builds 1 to 5; a
# feature branch builds 6 and 7. Each build runs three keyed steps:
#   model     the toy model (examples/workload model) with the profile it
#             writes of its phases and tracker's allocation profile; the
#             feature branch's model allocates more;
#   ensemble  three processes holding memory at once;
#   climate   the toy climate model (examples/climate); the feature branch
#             runs examples/climate-feature, whose radiation does twice
#             the work, with tracker's allocation profile.
# It records them in demo/history.db, prints their history, draws flame
# graphs and the allocation diff of the model, then writes the report of
# the feature branch's last build as `tracker report` does at the end of
# a pipeline: charts, diffs, verdicts, the summary table, the annotation a
# Buildkite build page would show, and the dashboard of every key, in
# demo/report/. DEMO_DIR=DIR writes into DIR instead of demo/.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
demo=${DEMO_DIR:-$root/demo}
rm -rf "$demo"
mkdir -p "$demo"
db="$demo/history.db"
work="$root/examples/workload"

# in_build BRANCH NUMBER STEP CMD...: CMD as a job of that build's step
in_build() {
	branch=$1 number=$2 step=$3
	shift 3
	commit=$(printf '%s-%s' "$branch" "$number" | sha1sum | cut -c1-40)
	env BUILDKITE=true BUILDKITE_ORGANIZATION_SLUG=demo \
		BUILDKITE_PIPELINE_SLUG=climate-model BUILDKITE_BRANCH="$branch" \
		BUILDKITE_COMMIT="$commit" BUILDKITE_BUILD_NUMBER="$number" \
		BUILDKITE_BUILD_URL="https://buildkite.com/demo/climate-model/builds/$number" \
		BUILDKITE_STEP_KEY="$step" BUILDKITE_LABEL=":earth_africa: $step" \
		BUILDKITE_PULL_REQUEST=false BUILDKITE_PIPELINE_DEFAULT_BRANCH=main "$@"
}

build() { # build BRANCH NUMBER MODEL_MIB CLIMATE_PROGRAM
	branch=$1 number=$2 mib=$3 climate=$4
	for step in model ensemble climate; do
		profile=
		case $step in
		model)
			cmd="$work model 10 $mib $demo/model.folded"
			profile="--profile-file $demo/model.folded --profile alloc"
			;;
		ensemble) cmd="$work fork 3 40 0.3" ;;
		climate)
			cmd="$root/examples/$climate 16"
			profile="--profile alloc"
			;;
		esac
		echo "--- build $number of $branch: step $step"
		in_build "$branch" "$number" "$step" "$root/tracker" run --db "$db" \
			--artifacts "$demo/records" --tag demo=yes $profile -- $cmd >/dev/null
	done
}

build main 1 120 climate
build main 2 120 climate
build main 3 121 climate
build main 4 120 climate
build main 5 121 climate
build feature 6 181 climate-feature
build feature 7 182 climate-feature

echo
echo "=== tracker history --db demo/history.db"
"$root/tracker" history --db "$db"
echo
echo "=== tracker history --db demo/history.db --key model --branch feature --format csv"
"$root/tracker" history --db "$db" --key model --branch feature --format csv
echo
echo "=== tracker flame --key model --branch feature -o demo/model-feature.txt"
"$root/tracker" flame --db "$db" --key model --branch feature --count-name ns \
	-o "$demo/model-feature.txt"
cat "$demo/model-feature.txt"
for branch in main feature; do
	"$root/tracker" flame --db "$db" --key model --branch $branch --count-name ns \
		-o "$demo/model-$branch.svg"
	"$root/tracker" flame --db "$db" --key model --branch $branch --count-name ns \
		-o "$demo/model-$branch.html"
done
echo
echo "=== tracker flame --key model --branch feature --kind alloc -o demo/model-alloc-feature.txt"
echo "    (the built-in allocation profiler: tracker run --profile alloc)"
"$root/tracker" flame --db "$db" --key model --branch feature --kind alloc \
	-o "$demo/model-alloc-feature.txt"
sed -n '1,8p' "$demo/model-alloc-feature.txt"
echo
echo "=== tracker diff --key model --branch feature --baseline-branch main --kind alloc -o demo/model-alloc-diff.txt"
echo "    (the newest feature run against the mean of the main runs, values as measured)"
for ext in txt html png; do
	"$root/tracker" diff --db "$db" --key model --branch feature --baseline-branch main \
		--kind alloc -o "$demo/model-alloc-diff.$ext" 2>/dev/null
done
sed -n '1,12p' "$demo/model-alloc-diff.txt"
echo
echo "=== tracker report --artifacts demo/report   (as the last step of feature build 7)"
echo "    (in a pipeline: tracker report --upload --annotate)"
in_build feature 7 report "$root/tracker" report --db "$db" --artifacts "$demo/report"
echo
cat "$demo/report/summary.md"
echo
sed -n '1,12p' "$demo/report/verdicts.txt"
echo
echo "records: $(ls "$demo/records"/*.json | wc -l) record files in demo/records/ (self-describing JSON)"
echo "flame graphs: demo/model-main.svg, demo/model-feature.svg (and .html): open them in a browser"
echo "allocation diff, feature against main: demo/model-alloc-diff.html (and .png, .txt)"
echo "the report of feature build 7: demo/report/summary.md, its charts and diffs;"
echo "  demo/report/annotation.md is what tracker report --annotate posts on the build's page"
echo "the dashboard of every key: demo/report/dashboard/index.html"
