#!/bin/sh
# make demo: the main job end to end on the embedded default (SQLite).
#
# Wraps the bundled example workloads as six builds of two branches, the
# way a Buildkite pipeline would (the Buildkite variables are set here as
# the agent would set them), records them in demo/history.db with the
# profile the toy model writes of its phases and the allocation profile
# tracker's built-in profiler takes of it, prints their history, and
# draws flame graphs of the newest model run of each branch. The feature
# branch's model allocates more: the history shows it, and the allocation
# diff names it. DEMO_DIR=DIR writes into DIR instead of demo/.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
demo=${DEMO_DIR:-$root/demo}
rm -rf "$demo"
mkdir -p "$demo"
db="$demo/history.db"
work="$root/examples/workload"

build() { # build BRANCH NUMBER MODEL_MIB
	branch=$1 number=$2 mib=$3
	commit=$(printf '%s-%s' "$branch" "$number" | sha1sum | cut -c1-40)
	for step in model ensemble; do
		profile=
		case $step in
		model)
			cmd="$work model 10 $mib $demo/model.folded"
			profile="--profile-file $demo/model.folded --profile alloc"
			;;
		ensemble) cmd="$work fork 3 40 0.3" ;;
		esac
		echo "--- build $number of $branch: step $step"
		env BUILDKITE=true BUILDKITE_ORGANIZATION_SLUG=demo \
			BUILDKITE_PIPELINE_SLUG=climate-model BUILDKITE_BRANCH="$branch" \
			BUILDKITE_COMMIT="$commit" BUILDKITE_BUILD_NUMBER="$number" \
			BUILDKITE_BUILD_URL="https://buildkite.com/demo/climate-model/builds/$number" \
			BUILDKITE_STEP_KEY="$step" BUILDKITE_LABEL=":earth_africa: $step" \
			BUILDKITE_PULL_REQUEST=false BUILDKITE_PIPELINE_DEFAULT_BRANCH=main \
			"$root/tracker" run --db "$db" --artifacts "$demo/records" \
			--tag demo=yes $profile -- $cmd >/dev/null
	done
}

build main 1 120
build main 2 120
build feature 3 180
build main 4 121
build feature 5 181
build feature 6 182

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
echo "records: $(ls "$demo/records"/*.json | wc -l) record files in demo/records/ (self-describing JSON)"
echo "flame graphs: demo/model-main.svg, demo/model-feature.svg (and .html): open them in a browser"
echo "allocation diff, feature against main: demo/model-alloc-diff.html (and .png, .txt)"
