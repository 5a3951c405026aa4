#!/bin/sh
# The flame HTML page's top table (self and total per function, sortable,
# a click highlights the function in the graph) and sandwich view (its
# callers and callees), in headless Chromium. Screenshots go to
# tests/artifacts/t3004/.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"
ARTIFACTS="$TEST_DIRECTORY/artifacts/t3004"

skip_all=$(browser_missing)
if [ -n "$skip_all" ]; then
	test_done
fi

# Total 106: main 104 = init 10 + compute 80 (kernel_a 50 with helper 10,
# kernel_b 25, self 5) + io 8 + walk;walk;walk;helper 6; other 2.
cat >f.folded <<'PROF'
main;init;parse_args 3
main;init;load_config 7
main;compute;kernel_a 40
main;compute;kernel_a;helper 10
main;compute;kernel_b 25
main;compute 5
main;io;write_out 8
main;walk;walk;walk;helper 6
other;idle 2
PROF
{
	echo 'main;<img src=x onerror=window.__pwned=1> 30'
	echo 'main;</script><script>window.__pwned=1</script> 20'
	echo 'main;<svg onload=window.__pwned=1>;"quoted" & x 10'
	echo "main;'single' &amp &lt 5"
} >hostile.folded

test_expect_success 'render the pages' '
	tracker flame f.folded -o f.html &&
	tracker flame hostile.folded -o hostile.html &&
	grep -q "\"fself\":\[" f.html
'

rm -rf "$ARTIFACTS"
test_expect_success 'run the checks in headless chromium' "
	node '$BROWSER_DIR/flame-views.test.mjs' --artifacts '$ARTIFACTS' f.html hostile.html \\
		>browser.out 2>&1
	cat browser.out &&
	grep -q '^ok - ' browser.out
"

for check in 'table: every function, self and total, by total' \
	'table: a header click sorts by it, a second reverses' \
	'table: a row click highlights the function in the graph' \
	'sandwich: callers and callees of a function' \
	'sandwich: drawn below the table, and a frame click moves it' \
	'hostile names in the table and sandwich are text'; do
	test_expect_success "$check" "result '$check'"
done

test_done
