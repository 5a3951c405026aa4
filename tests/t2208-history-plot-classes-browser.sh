#!/bin/sh
# The plot page of a history on two machine classes in headless Chromium
# (tests/browser/plot.test.mjs, scenario "classes"): tooltips name the
# class; each class's toggle hides that class's baseline series and its
# tooltips and leaves the other class alone; the baseline toggle and a
# class's toggle combine. Screenshots go to tests/artifacts/t2208/.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"
ARTIFACTS="$TEST_DIRECTORY/artifacts/t2208"

skip_all=$(browser_missing)
if [ -z "$skip_all" ] && ! [ -x /usr/bin/python3 ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
fi
if [ -n "$skip_all" ]; then
	test_done
fi

test_expect_success 'the page: two classes taking turns, a step on one' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" rec --runs 120 --step-at 190 \
		--machine-classes cpu-large:1,cpu-small:1.6 --step-class cpu-large &&
	tracker push --db h.db rec 2>/dev/null &&
	tracker history --db h.db --key amip --plot classes.html &&
	csp_hash_matches classes.html
'

rm -rf "$ARTIFACTS"
test_expect_success 'run the checks in headless chromium' "
	node '$BROWSER_DIR/plot.test.mjs' --artifacts '$ARTIFACTS' classes,classes.html >browser.out 2>&1
	cat browser.out &&
	grep -q '^ok - ' browser.out
"

test_expect_success 'the class toggles hide a class series and its tooltips' '
	result "classes classes.html"
'

test_done
