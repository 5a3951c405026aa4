#!/bin/sh
# tracker diff's HTML page and SVG in a real browser: headless Chromium
# (Debian's chromium driven by playwright-core from tests/browser) opens the
# pages `tracker diff BASE NEW -o x.html` writes and checks the self and
# cumulative colouring toggle, the width-by-new and width-by-baseline
# toggle, the vanished view, details with base, new, delta and delta%,
# search and zoom, the URL state, and that hostile frame names never run
# script. Screenshots go to tests/artifacts/t4002/.
#
# Skips the browser checks with the reason when node, chromium or
# tests/browser's dependencies are missing (tests/browser-lib.sh).

. "$(dirname "$0")/test-lib.sh"

. "$TEST_DIRECTORY/browser-lib.sh"
ARTIFACTS="$TEST_DIRECTORY/artifacts/t4002"

# The fixture (the browser test's header says what it checks of it):
# kernel_a grows, kernel_b shrinks, old_path vanishes, brand_new appears,
# and compute's self time stays while its total grows.
cat >base.folded <<'EOF'
main;init;parse_args 3
main;init;load_config 7
main;compute;kernel_a 40
main;compute;kernel_a;helper 10
main;compute;kernel_b 25
main;compute 5
main;io;write_out 8
main;old_path 6
other;idle 2
EOF
cat >new.folded <<'EOF'
main;init;parse_args 3
main;init;load_config 7
main;compute;kernel_a 60
main;compute;kernel_a;helper 10
main;compute;kernel_b 10
main;compute 5
main;io;write_out 8
main;brand_new 4
other;idle 2
EOF

# Hostile names in both profiles, one only in the baseline (vanished) and
# one only in the new profile.
{
	echo 'main;<img src=x onerror=window.__pwned=1> 3'
	echo "main;\"quoted\" & 'single' &amp &lt 1"
	printf 'main;bad\377\376utf8 1\n'
	echo 'main;</script><script>window.__pwned=1</script> 3'
} >hostile-base.folded
{
	echo 'main;<img src=x onerror=window.__pwned=1> 5'
	echo "main;\"quoted\" & 'single' &amp &lt 1"
	printf 'main;bad\377\376utf8 2\n'
	printf 'main;ctrl\001\033x 1\n'
	echo 'main;]]><script>window.__pwned=1</script><![CDATA[ 2'
} >hostile-new.folded

test_expect_success 'tracker diff writes the HTML page and the SVG' '
	tracker diff --normalize none base.folded new.folded -o d.html &&
	tracker diff --normalize none base.folded new.folded -o d.svg &&
	tracker diff hostile-base.folded hostile-new.folded -o hostile.html &&
	tracker diff hostile-base.folded hostile-new.folded -o hostile.svg &&
	grep -q "<canvas id=\"flame\"" d.html &&
	grep -q "id=\"mode-cumulative\"" d.html
'

test_expect_success XMLLINT 'the SVGs are well-formed' '
	xmllint --noout d.svg &&
	xmllint --noout hostile.svg
'

test_expect_success 'hostile names cannot close the page'"'"'s script elements' '
	test $(grep -o "<script" hostile.html | wc -l) = 2 &&
	test $(grep -o "</script" hostile.html | wc -l) = 2 &&
	! grep -q "<img\|<svg\|<!--" hostile.html
'

test_expect_success PYTHON3 'the page'"'"'s CSP names the hash of its script' '
	csp_hash_matches hostile.html
'

skip_browser=$(browser_missing)
if [ -n "$skip_browser" ]; then
	skip_all=$skip_browser
	test_done
fi
test_set_prereq BROWSER


rm -rf "$ARTIFACTS"
test_expect_success 'run the checks in headless chromium' "
	node '$BROWSER_DIR/diff.test.mjs' --base base.folded --new new.folded \\
		--artifacts '$ARTIFACTS' toggles,d.html vanished,d.html search,d.html \\
		zoom,d.html url,d.html hostile,hostile.html svg,d.svg changes,d.html \\
		>browser.out 2>&1
	cat browser.out &&
	grep -q '^ok - ' browser.out
"

test_expect_success 'colour by self vs cumulative, width by new vs baseline, details' '
	result "toggles d.html"
'
test_expect_success 'the vanished view shows and lists the vanished frame' '
	result "vanished d.html"
'
test_expect_success 'search: Matched follows the folded inputs in either width' '
	result "search d.html"
'
test_expect_success 'click to zoom keeps the ancestors; reset' '
	result "zoom d.html"
'
test_expect_success 'mode, width, view, zoom and search survive a reload' '
	result "url d.html"
'
test_expect_success 'hostile names are shown, never run' '
	result "hostile hostile.html"
'
test_expect_success 'the SVG: colours, details, zoom and search' '
	result "svg d.svg"
'
test_expect_success 'the totals and the "what changed" table; its rows zoom' '
	result "changes d.html"
'

test_done
