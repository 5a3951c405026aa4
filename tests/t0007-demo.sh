#!/bin/sh
# make demo's script, into a trash directory: it runs end to end, and its
# headline page, the allocation diff of the feature branch against main,
# shows the regression it was built to show (the feature branch's model
# allocates 180 MiB a run where main's allocates 120 MiB: +50%); its
# report of the feature branch's last build has every key, the climate
# model's allocation diff (radiation doubled), the annotation and the
# dashboard.

. "$(dirname "$0")/test-lib.sh"

[ -f "$TRACKER_ROOT/libtracker-preload.so" ] && test_set_prereq PRELOAD

test_expect_success PRELOAD 'the demo runs end to end' '
	DEMO_DIR="$PWD/demo" sh "$TRACKER_ROOT/examples/demo.sh" >out 2>&1 ||
		{ cat out; false; }
'

test_expect_success PRELOAD 'its allocation diff shows the model at about +50%' '
	sed -n 2p demo/model-alloc-diff.txt >totals &&
	cat totals &&
	grep "^allocations 1[12][0-9] MiB -> 1[78][0-9] MiB (+5[0-2]\.[0-9]%); baseline: mean of 5 runs$" totals &&
	grep "+5[0-2]\.[0-9]%  allocate_fields <- cmd_model <- main" demo/model-alloc-diff.txt &&
	grep -q "id=\"totals\">allocations 1[12][0-9] MiB -&gt; 1[78][0-9] MiB (+5" demo/model-alloc-diff.html &&
	grep -q "<table id=\"changes-self-up\"><caption>Self increases</caption><colgroup>[^/]*</colgroup><tr><td[^>]*><a [^>]*>allocate_fields" \
		demo/model-alloc-diff.html &&
	test -s demo/model-alloc-diff.png
'

test_expect_success PRELOAD 'its report: every key, the climate diff names radiation, annotation and dashboard' '
	R=demo/report &&
	grep "^### tracker: performance of build 7 on feature$" $R/summary.md &&
	grep "^3 keys: " $R/summary.md &&
	for k in model ensemble climate; do
		grep "^| $k | [0-9]" $R/summary.md || return 1
	done &&
	grep "^| climate | .*\[alloc diff\](climate-[0-9a-f]*-alloc-diff\.html)" $R/summary.md &&
	grep "^| model | .*\*\*regression\*\* (alloc +[0-9.]*%.*\[alloc diff\](model-[0-9a-f]*-alloc-diff\.html)" $R/summary.md &&
	grep -q "radiation" $R/climate-*-alloc-diff.html &&
	grep -q "feature #7" $R/climate-*-alloc-diff.html &&
	grep "^- alloc profile \*\*regression\*\*: allocations 1[0-9.]* MiB -> 1[0-9.]* MiB (+[0-9.]*%); baseline: mean of 5 runs (\[alloc diff\](model-[0-9a-f]*-alloc-diff\.html))$" $R/summary.md &&
	grep -F "  - allocate\\_fields &lt;\\- cmd\\_model &lt;\\- \\.\\.\\. +5" $R/summary.md &&
	grep -F "  - churn &lt;\\- radiation &lt;\\- \\.\\.\\. +" $R/summary.md &&
	grep -q "<h2>What changed</h2>" $R/index.html &&
	grep -q "artifact://[a-z0-9./-]*demo/report/climate-[0-9a-f]*\.png" $R/annotation.md &&
	grep -q "climate" $R/dashboard/index.html &&
	grep "^climate   walltime  " $R/verdicts.txt &&
	grep "^wrote the report of 3 keys to .*demo/report" out
'

test_done
