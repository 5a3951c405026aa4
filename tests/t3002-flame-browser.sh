#!/bin/sh
# The interactive flame graphs in a real browser: tracker flame's SVG and
# HTML pages opened file:// in headless Chromium (Debian's chromium driven
# by playwright-core from tests/browser), checking click-to-zoom, reset,
# regex search and its "Matched: x%" against the folded input, the URL
# state and its restoring on reload, and that hostile frame names never
# run script. Screenshots go to tests/artifacts/t3002/.
#
# Skips the browser checks with the reason when node, chromium or
# tests/browser's dependencies are missing (tests/browser-lib.sh).

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"
ARTIFACTS="$TEST_DIRECTORY/artifacts/t3002"

skip_all=$(browser_missing)
if [ -n "$skip_all" ]; then
	test_done
fi

# Total 100: main 98 = init 10 (parse_args 3, load_config 7) + compute 80
# (kernel_a 50 with helper 10, kernel_b 25, self 5) + io 8; other 2.
cat >f.folded <<'EOF'
main;init;parse_args 3
main;init;load_config 7
main;compute;kernel_a 40
main;compute;kernel_a;helper 10
main;compute;kernel_b 25
main;compute 5
main;io;write_out 8
other;idle 2
EOF

# Names that try to break out of every context a name can land in, HTML
# entities without their ';' (a ';' separates frames), invalid UTF-8,
# U+2028/U+2029, and a 100 KB name.
{
	echo 'main;<img src=x onerror=window.__pwned=1> 3'
	echo 'main;</script><script>window.__pwned=1</script> 3'
	echo 'main;]]><script>window.__pwned=1</script><![CDATA[ 2'
	echo 'main;<svg onload=window.__pwned=1> 1'
	echo "main;\"quoted\" & 'single' &amp &lt 1"
	printf 'main;bad\377\376utf8 1\n'
	printf 'main;ctrl\001\033x 1\n'
	printf 'main;rtl\342\200\256x 1\n'
	printf 'main;line\342\200\250sep\342\200\251x 1\n'
	printf 'main;%s 1\n' "$(head -c 100000 /dev/zero | tr '\0' A)"
} >hostile.folded

test_expect_success 'render the fixtures as SVG and HTML' '
	tracker flame f.folded -o f.svg &&
	tracker flame f.folded -o f.html &&
	tracker flame --inverted f.folded -o inv.svg &&
	tracker flame --inverted f.folded -o inv.html &&
	tracker flame hostile.folded -o hostile.svg &&
	tracker flame hostile.folded -o hostile.html &&
	grep -q "<canvas id=\"flame\"" f.html
'

test_expect_success XMLLINT 'the hostile SVG is well-formed' '
	xmllint --noout hostile.svg
'

test_expect_success 'hostile names cannot close the HTML page'"'"'s script elements' '
	test $(grep -o "<script" hostile.html | wc -l) = 2 &&
	test $(grep -o "</script" hostile.html | wc -l) = 2 &&
	! grep -q "<img\|<svg\|<!--" hostile.html
'

test_expect_success PYTHON3 'the page'"'"'s CSP names the hash of its script' '
	csp_hash_matches hostile.html
'

rm -rf "$ARTIFACTS"
jobs=
for ext in svg html; do
	jobs="$jobs basic,f.$ext search,f.$ext url,f.$ext inverted,inv.$ext hostile,hostile.$ext"
done
jobs="$jobs cross,f.svg,f.html cross,f.html,f.svg"

# One browser runs all the checks (a launch takes seconds); each check's
# line of output is one result below.
test_expect_success 'run the checks in headless chromium' "
	node '$BROWSER_DIR/flame.test.mjs' --folded f.folded --artifacts '$ARTIFACTS' \\
		$jobs >browser.out 2>&1
	cat browser.out &&
	grep -q '^ok - ' browser.out
"

for ext in svg html; do
	test_expect_success "$ext: hover details, click to zoom, reset" "
		result 'basic f.$ext'
	"
	test_expect_success "$ext: search matches what the profile says, zoomed or not" "
		result 'search f.$ext'
	"
	test_expect_success "$ext: zoom and search kept in the URL and restored" "
		result 'url f.$ext'
	"
	test_expect_success "$ext: inverted (icicle) graph" "
		result 'inverted inv.$ext'
	"
	test_expect_success "$ext: hostile names are shown, never run" "
		result 'hostile hostile.$ext'
	"
done

test_expect_success 'an SVG URL opened on the HTML page zooms the same frame' '
	result "cross f.svg f.html"
'

test_expect_success 'an HTML URL opened on the SVG zooms the same frame' '
	result "cross f.html f.svg"
'

test_done
