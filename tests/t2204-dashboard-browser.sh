#!/bin/sh
# tracker dashboard's page in headless Chromium (tests/browser/
# dashboard.test.mjs) on four keys whose newest build regressed (k-slow,
# walltime x1.5), improved (k-fast, x0.7) or did not change (k-same, and
# a hostile key): sorting by the change, filtering by name, the link to a
# key's chart page, hostile names; no script errors, no network, and the
# CSP names the script's hash. Screenshots go to tests/artifacts/t2204/.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"
ARTIFACTS="$TEST_DIRECTORY/artifacts/t2204"

skip_all=$(browser_missing)
if [ -z "$skip_all" ] && ! [ -x /usr/bin/python3 ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
fi
if [ -n "$skip_all" ]; then
	test_done
fi

test_expect_success 'the dashboard of four keys' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" rec --step-at 159 --step-factor 1 \
		--key k-slow:1.5 --key k-fast:0.7 --key k-same:1 \
		--key "<script>window.__pwned=1</script>&\"'"'"'" &&
	tracker push --db h.db rec 2>/dev/null &&
	tracker dashboard --db h.db -o dash &&
	test $(ls dash | wc -l) = 5
'

test_expect_success 'the CSP names the hash of the page'"'"'s script' '
	csp_hash_matches dash/index.html
'

test_expect_success 'a dashboard of four metrics and five keys, one of a long name' '
	python3 "$TEST_DIRECTORY/helpers/gen-history.py" rec4 --step-at 159 --step-factor 1 \
		--key k-slow:1.5 --key k-fast:0.7 --key k-same:1 --key k-other:1 \
		--key climacoupler-amip-longrun-with-a-very-long-configuration-name:1 &&
	tracker push --db h4.db rec4 2>/dev/null &&
	tracker dashboard --db h4.db --metric walltime,cpu,maxrss,tree_rss -o dash4 &&
	test -s dash4/index.html
'

rm -rf "$ARTIFACTS"
test_expect_success 'run the checks in headless chromium' "
	node '$BROWSER_DIR/dashboard.test.mjs' --artifacts '$ARTIFACTS' sort,dash/index.html \\
		filter,dash/index.html link,dash/index.html hostile,dash/index.html \
		wide,dash4/index.html >browser.out 2>&1
	cat browser.out &&
	grep -q '^ok - ' browser.out
"

test_expect_success 'sorting by the walltime change; the verdicts' '
	result "sort index.html"
'
test_expect_success 'filtering by name' '
	result "filter index.html"
'
test_expect_success 'a key links to its chart page' '
	result "link index.html"
'
test_expect_success 'a hostile key is shown verbatim and never run' '
	result "hostile index.html"
'
test_expect_success 'at 1280 px: keys on one line, metric columns scroll, colour by verdict' '
	result "wide index.html"
'

test_done
