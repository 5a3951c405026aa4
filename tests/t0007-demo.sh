#!/bin/sh
# make demo's script, into a trash directory: it runs end to end, and its
# headline page, the allocation diff of the feature branch against main,
# shows the regression it was built to show (the feature branch's model
# allocates 180 MiB a run where main's allocates 120 MiB: +50%).

. "$(dirname "$0")/test-lib.sh"

[ -f "$TRACKER_ROOT/libtracker-preload.so" ] && test_set_prereq PRELOAD

test_expect_success PRELOAD 'the demo runs end to end' '
	DEMO_DIR="$PWD/demo" sh "$TRACKER_ROOT/examples/demo.sh" >out 2>&1 ||
		{ cat out; false; }
'

test_expect_success PRELOAD 'its allocation diff shows the model at about +50%' '
	sed -n 2p demo/model-alloc-diff.txt >totals &&
	cat totals &&
	grep "^allocations 120 MiB -> 18[0-9] MiB (+5[0-2]\.[0-9]%); baseline: mean of 3 runs$" totals &&
	grep "+5[0-2]\.[0-9]%  allocate_fields <- cmd_model <- main" demo/model-alloc-diff.txt &&
	grep -q "id=\"totals\">allocations 120 MiB -&gt; 18[0-9] MiB (+5" demo/model-alloc-diff.html &&
	grep -q "<table id=\"changes-self-up\"><caption>Self increases</caption><tr><td><a [^>]*>allocate_fields" \
		demo/model-alloc-diff.html &&
	test -s demo/model-alloc-diff.png
'

test_done
