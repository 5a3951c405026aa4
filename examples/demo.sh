#!/bin/sh
# make demo: the main job end to end on the embedded default (SQLite).
#
# Wraps the bundled example workloads as three builds of two branches, the
# way a Buildkite pipeline would (the Buildkite variables are set here as
# the agent would set them), records them in demo/history.db, and prints
# their history. The feature branch's model allocates more: the history
# shows it.
set -eu
cd "$(dirname "$0")/.."
root=$PWD
demo="$root/demo"
rm -rf "$demo"
mkdir -p "$demo"
db="$demo/history.db"
work="$root/examples/workload"

build() { # build BRANCH NUMBER MODEL_MIB
	branch=$1 number=$2 mib=$3
	commit=$(printf '%s-%s' "$branch" "$number" | sha1sum | cut -c1-40)
	for step in model ensemble; do
		case $step in
		model) cmd="$work model 10 $mib" ;;
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
			--tag demo=yes -- $cmd >/dev/null
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
echo "records: $(ls "$demo/records" | wc -l) files in demo/records/ (self-describing JSON)"
