#!/bin/sh
# tracker history --plot's HTML page in headless Chromium (tests/browser/
# plot.test.mjs): tooltips with build, branch, commit, values and the
# build's link; series toggles; zooming the time axis and resetting it;
# hostile names shown and never run; no script errors, no network, and
# the CSP names the script's hash. Screenshots go to tests/artifacts/t2203/.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"
ARTIFACTS="$TEST_DIRECTORY/artifacts/t2203"

skip_all=$(browser_missing)
if [ -z "$skip_all" ] && ! [ -x /usr/bin/python3 ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
fi
if [ -n "$skip_all" ]; then
	test_done
fi

test_expect_success 'the pages: a history with a step, and a hostile one' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" rec --step-at 140 &&
	tracker push --db h.db rec 2>/dev/null &&
	tracker history --db h.db --key amip --plot amip.html &&
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" hrec --hostile --step-at 140 &&
	tracker push --db hh.db hrec 2>/dev/null &&
	tracker history --db hh.db --key amip --plot hostile.html &&
	tracker history --db h.db --key amip --width 640 --metric walltime,maxrss,heap_peak \
		--plot narrow.html
'

test_expect_success 'the CSP names the hash of the page'"'"'s script' '
	csp_hash_matches amip.html &&
	csp_hash_matches hostile.html
'

rm -rf "$ARTIFACTS"
test_expect_success 'run the checks in headless chromium' "
	node '$BROWSER_DIR/plot.test.mjs' --artifacts '$ARTIFACTS' tooltip,amip.html \\
		toggle,amip.html zoom,amip.html hostile,hostile.html readable,narrow.html \
		>browser.out 2>&1
	cat browser.out &&
	grep -q '^ok - ' browser.out
"

test_expect_success 'hovering shows build, branch, commit, values and the build link' '
	result "tooltip amip.html"
'
test_expect_success 'a series toggle hides the series and its tooltips' '
	result "toggle amip.html"
'
test_expect_success 'dragging zooms the time axis; Reset zoom restores it' '
	result "zoom amip.html"
'
test_expect_success 'hostile names are shown verbatim and never run' '
	result "hostile hostile.html"
'
test_expect_success 'at 640 px: tick labels apart, the verdict and its band, no empty chart' '
	result "readable narrow.html"
'

test_done
