#!/bin/sh
# Importer memory is bounded by the input: a profile built to blow up
# memory is either imported within the documented bound (docs/importers.md:
# peak RSS at most 40 times the inflated size plus 24 MiB above tracker's
# own) or refused with exit 65 and a message naming the file. Every stack
# is capped at 65536 frames, whatever the importer. The inputs are
# generated here (tests/helpers/hostile-profiles.py), never committed.

. "$(dirname "$0")/test-lib.sh"

command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3
# Peak RSS is the plain build's: a sanitized tracker (make SANITIZE=...,
# or t0100's build-san/) carries shadow memory, so there only the
# outcomes are checked.
[ -x /usr/bin/time ] && ! grep -q __asan_init "$(command -v tracker)" && test_set_prereq RSS

# imports FILE: runs tracker flame FILE -o out.folded, keeping its exit
# status in $rc and its peak RSS in KiB in $kb.
imports() {
	/usr/bin/time -f %M -o rss.txt tracker flame "$1" -o out.folded 2>err
	rc=$?
	kb=$(tail -1 rss.txt)
	cat err
}

# within_bound FILE: the last import's peak RSS is within the bound.
within_bound() {
	test_have_prereq RSS || return 0
	n=$(gzip -dc -f "$1" | wc -c)
	limit=$((own + 24 * 1024 + 40 * n / 1024))
	echo "peak $kb KiB, inflated $n bytes, bound $limit KiB"
	test "$kb" -le "$limit"
}

# refused_early FILE: the last import was refused before the tree was
# built: its peak RSS is within twice the inflated size (the text).
refused_early() {
	test_have_prereq RSS || return 0
	n=$(gzip -dc -f "$1" | wc -c)
	limit=$((own + 24 * 1024 + 2 * n / 1024))
	echo "peak $kb KiB, inflated $n bytes, refused early within $limit KiB"
	test "$kb" -le "$limit"
}

test_expect_success PYTHON3 'generate the hostile profiles' '
	python3 "$TRACKER_ROOT/tests/helpers/hostile-profiles.py" h &&
	printf "main 1\n" >one.folded &&
	/usr/bin/time -f %M -o own.txt tracker flame one.folded -o one.svg
'
own=$(tail -1 own.txt 2>/dev/null || echo 0)

test_expect_success PYTHON3 'a 117 KB gzip of one-frame stacks (120 MB of JSON) is refused before parsing' '
	test $(wc -c <h/speedscope-bomb-120m.json.gz) -lt 200000 &&
	imports h/speedscope-bomb-120m.json.gz &&
	test $rc = 65 &&
	grep "speedscope-bomb-120m.json.gz.*would take about [0-9]* MiB in memory" err &&
	within_bound h/speedscope-bomb-120m.json.gz &&
	refused_early h/speedscope-bomb-120m.json.gz
'

test_expect_success PYTHON3 'the same shape at 12 MB is refused before parsing too' '
	imports h/speedscope-bomb.json.gz &&
	test $rc = 65 && grep "speedscope-bomb.json.gz" err &&
	within_bound h/speedscope-bomb.json.gz &&
	refused_early h/speedscope-bomb.json.gz
'

test_expect_success PYTHON3 'a ProfileCanvas page of empty arrays is refused before parsing' '
	imports h/profilecanvas-bomb.html.gz &&
	test $rc = 65 && grep "profilecanvas-bomb.html.gz" err &&
	within_bound h/profilecanvas-bomb.html.gz &&
	refused_early h/profilecanvas-bomb.html.gz
'

test_expect_success PYTHON3 'a dense ordinary speedscope profile imports within the bound (known answer)' '
	imports h/speedscope-dense.json &&
	test $rc = 0 &&
	within_bound h/speedscope-dense.json &&
	awk "{ s += \$NF } END { print s }" out.folded >total &&
	echo 400000 >expect && test_cmp expect total &&
	test $(wc -l <out.folded) = 350
'

test_expect_success PYTHON3 'a cpuprofile one chain of 70000 nodes: exit 65 at the depth cap' '
	imports h/cpuprofile-deep.cpuprofile &&
	test $rc = 65 &&
	grep "cpuprofile-deep.cpuprofile.*deeper than 65536 frames" err &&
	within_bound h/cpuprofile-deep.cpuprofile
'

test_expect_success PYTHON3 'a gzipped cpuprofile a million nodes deep is refused before parsing' '
	imports h/cpuprofile-1m-deep.cpuprofile.gz &&
	test $rc = 65 && grep "cpuprofile-1m-deep.cpuprofile.gz" err &&
	within_bound h/cpuprofile-1m-deep.cpuprofile.gz &&
	refused_early h/cpuprofile-1m-deep.cpuprofile.gz
'

test_expect_success PYTHON3 'folded stacks 4096 deep, a new path per line, import within the bound' '
	imports h/folded-deep.folded &&
	test $rc = 0 && within_bound h/folded-deep.folded &&
	test $(wc -l <out.folded) = 200
'

test_expect_success PYTHON3 'folded stacks one frame past the cap: exit 65 naming the line' '
	imports h/folded-too-deep.folded &&
	test $rc = 65 && grep "folded-too-deep.folded. line 1: stack deeper than 65536" err
'

test_done
