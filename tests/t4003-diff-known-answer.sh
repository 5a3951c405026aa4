#!/bin/sh
# tracker diff with default flags on a program built twice: the toy model
# examples/climate.c, whose feature build does exactly twice the work in
# radiation (allocations and CPU) and nothing else. Five builds of main,
# one of feature, each run under `tracker run --profile alloc,cpu` as a
# Buildkite step would; then `tracker diff --key` with no other option
# must show that one function at about +100% and nothing else beyond
# noise, for the allocation and the CPU profile, in .txt, .html (in
# Chromium: the totals and the "what changed" table) and .png, with the
# binary's name the same on both branches and with a renamed one.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"

CLIMATE="$TRACKER_ROOT/examples/climate"
[ -x "$CLIMATE" ] && [ -x "$CLIMATE-feature" ] && [ -f "$TRACKER_ROOT/libtracker-preload.so" ] &&
	test_set_prereq CLIMATE

# bk BRANCH BUILD DB PROGRAM: one Buildkite build of the model step. The
# allocation sampler is seeded by the build number: sampling noise is real
# (about 7% on a frame here) and the diff's 3-sigma band still lets an
# unchanged frame out about once in 600, which, with four unchanged
# allocation frames a run, would fail this test about once in 150 runs.
# Seeded, the samples are fixed and the test says the same every time;
# t-diff checks the band itself against the sampling noise.
bk() {
	env TRACKER_PROFILE_SEED="$2" BUILDKITE=true BUILDKITE_BRANCH="$1" BUILDKITE_BUILD_NUMBER="$2" \
		BUILDKITE_COMMIT="$(printf '%040d' "$2")" BUILDKITE_PIPELINE_SLUG=model \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_PULL_REQUEST=false \
		tracker run -q --key model --db "$3" --artifacts arts \
		--profile alloc,cpu -- "$4" 256 >/dev/null
}

# diff_as_feature DB ARGS...: tracker diff from the feature build's step.
diff_as_feature() {
	db=$1
	shift
	env BUILDKITE=true BUILDKITE_BRANCH=feature BUILDKITE_BUILD_NUMBER=6 \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_PULL_REQUEST=false \
		tracker diff --key model --db "$db" "$@"
}

# check_txt FILE LEAF QUANTITY: the totals line, one self increase (LEAF
# under radiation) at +70..+130%, no self decrease.
check_txt() {
	sed -n 2p "$1" | grep "^$3 .* -> .* (+[0-9.]*%); baseline: mean of 5 runs$" &&
	awk -v leaf="$2" '
		/^top [0-9]+ self increases:/ { sec = "up"; n = $2; next }
		/^top [0-9]+ self decreases:/ { sec = "down"; d = $2; next }
		sec == "up" && /[0-9]%  / { rows++; line = $0 }
		END {
			if (n != 1 || rows != 1 || d != 0) { print "want 1 increase, 0 decreases: " n ", " d; exit 1 }
			if (index(line, leaf " <- radiation <- physics") == 0) { print "wrong frame: " line; exit 1 }
			split(line, f, " ")
			for (i = 1; i in f; i++) if (f[i] ~ /^\+[0-9.]+%$/) pct = substr(f[i], 2) + 0
			if (pct < 70 || pct > 130) { print "not about +100%: " line; exit 1 }
		}' "$1"
}

for variant in same renamed; do
	if [ $variant = same ]; then
		base_prog=climate new_prog=climate
	else
		base_prog=climate-staging new_prog=climate-feature
	fi

	test_expect_success CLIMATE "$variant binary name: five builds of main, one of feature" "
		mkdir -p $variant/main $variant/feature &&
		cp '$CLIMATE' $variant/main/$base_prog &&
		cp '$CLIMATE-feature' $variant/feature/$new_prog &&
		for b in 1 2 3 4 5; do
			bk main \$b $variant.db $variant/main/$base_prog || return 1
		done &&
		bk feature 6 $variant.db $variant/feature/$new_prog &&
		tracker history --db $variant.db --format csv >runs &&
		test \$(grep -c ',model,' runs) = 6
	"

	test_expect_success CLIMATE "$variant name, allocations: radiation +100%, nothing else" "
		diff_as_feature $variant.db --kind alloc -o $variant-alloc.txt 2>err &&
		cat $variant-alloc.txt &&
		check_txt $variant-alloc.txt churn allocations
	"

	# The CPU time of the same work is the machine's: a core whose
	# sibling the parallel tests keep busy spends more CPU time on it,
	# for a while, which a diff rightly shows as a change. As a user
	# re-runs a build on a busy agent, the feature build's step is run
	# again (a repeat in the same build: the diff takes the newest) up
	# to twice more before the answer is judged wrong.
	test_expect_success CLIMATE "$variant name, CPU time: radiation +100%, nothing else" "
		for attempt in 1 2 3; do
			diff_as_feature $variant.db --kind cpu -o $variant-cpu.txt 2>err &&
			cat $variant-cpu.txt &&
			check_txt $variant-cpu.txt spin 'CPU time' && return 0
			bk feature 6 $variant.db $variant/feature/$new_prog || return 1
		done
		return 1
	"

	test_expect_success CLIMATE "$variant name: the HTML page, the PNG and the PDF" "
		diff_as_feature $variant.db --kind alloc -o $variant-alloc.html &&
		diff_as_feature $variant.db --kind cpu -o $variant-cpu.html &&
		diff_as_feature $variant.db --kind alloc -o $variant-alloc.png &&
		diff_as_feature $variant.db --kind cpu -o $variant-cpu.pdf &&
		grep -q 'id=\"totals\">allocations ' $variant-alloc.html &&
		head -c 8 $variant-alloc.png | od -An -c | grep -q 'P   N   G' &&
		head -c 5 $variant-cpu.pdf | grep -q '%PDF-'
	"
done

skip_browser=$(browser_missing)
if [ -z "$skip_browser" ]; then
	test_set_prereq BROWSER
else
	say "browser checks skipped: $skip_browser"
fi

test_expect_success CLIMATE,BROWSER 'in Chromium: the totals and the one change in "what changed"' "
	node '$BROWSER_DIR/diff.test.mjs' --base /dev/null --new /dev/null \\
		--artifacts '$TEST_DIRECTORY/artifacts/t4003' \\
		knownanswer,same-alloc.html knownanswer,same-cpu.html \\
		knownanswer,renamed-alloc.html knownanswer,renamed-cpu.html >browser.out 2>&1
	cat browser.out &&
	result 'knownanswer same-alloc.html' &&
	result 'knownanswer same-cpu.html' &&
	result 'knownanswer renamed-alloc.html' &&
	result 'knownanswer renamed-cpu.html'
"

test_done
