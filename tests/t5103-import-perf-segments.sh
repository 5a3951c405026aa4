#!/bin/sh
# perf script input larger than one segment (4 MiB) is read on two threads
# (tracker flame, default flags, format found by content): 20 copies of the
# shared vertx profile, each ended by a blank line, give 20 times the
# stacks of one copy (which t-import-perf checks against stackcollapse-perf.pl's
# own output); the warning names the last sample's line across every segment; gzip
# gives the same; one CPU (taskset) gives the same stacks and the same
# frame order in the speedscope export (names in the order of first sight).
# Skips when ../shared is absent.

. "$(dirname "$0")/test-lib.sh"

REAL="$SHARED_DIRECTORY/real-data"
VERTX="$REAL/perf-script/fg_perf-vertx-stacks-01.txt"

test_expect_success SHARED 'one copy: its last sample is cut, line 9918' '
	tracker flame "$VERTX" -o one.folded 2>err &&
	grep "dropped the last sample (line 9918)" err
'

test_expect_success SHARED '20 copies, 21 MB: 20 times the stacks of one' '
	{ cat "$VERTX"; echo; } >one.perf &&
	i=0 && : >x20.perf &&
	while [ $i -lt 20 ]; do cat one.perf >>x20.perf; i=$((i + 1)); done &&
	test "$(wc -c <x20.perf)" -gt 16000000 &&
	tracker flame one.perf -o one.folded 2>err1 &&
	! test -s err1 &&
	tracker flame x20.perf -o x20.folded 2>err20 &&
	! test -s err20 &&
	awk "{ w = \$NF; \$NF = \"\"; printf \"%s%d\\n\", \$0, w * 20 }" one.folded | sort >want &&
	sort x20.folded >got &&
	test_cmp want got &&
	test "$(wc -l <got)" -gt 100
'

test_expect_success SHARED 'the cut last sample is named by its line in the whole file' '
	i=0 && : >cat20.perf &&
	while [ $i -lt 20 ]; do cat "$VERTX" >>cat20.perf; i=$((i + 1)); done &&
	tracker flame cat20.perf -o cat20.folded 2>err &&
	grep "dropped the last sample (line $((19 * 9985 + 9918)))" err
'

test_expect_success SHARED 'gzip gives the same' '
	gzip -c x20.perf >x20.perf.gz &&
	tracker flame x20.perf.gz -o gz.folded &&
	test_cmp x20.folded gz.folded
'

test_expect_success SHARED 'one CPU gives the same stacks and the same frame order' '
	tracker flame x20.perf -o two.speedscope.json &&
	taskset -c 0 tracker flame x20.perf -o one-cpu.folded &&
	taskset -c 0 tracker flame x20.perf -o one-cpu.speedscope.json &&
	test_cmp x20.folded one-cpu.folded &&
	test_cmp two.speedscope.json one-cpu.speedscope.json
'

test_expect_success SHARED 'a file cut inside a gzip stream fails as before: exit 65, the offset' '
	size=$(wc -c <x20.perf.gz) &&
	head -c $((size / 2)) x20.perf.gz >cut.perf.gz &&
	test_expect_code 65 tracker flame --format perf cut.perf.gz -o cut.folded 2>err &&
	grep "cut.perf.gz.: truncated gzip data after [0-9]* bytes" err &&
	! test -f cut.folded
'

test_done
