#!/bin/sh
# Every command that writes files meets a file size limit (ulimit -f) as
# run does: SIGXFSZ is ignored, so the write fails with EFBIG, the
# command exits with its documented status (69, "cannot write"; report:
# the chart is a warning, as any chart that cannot be made) and leaves
# no temporary file, where SIGXFSZ used to kill it (153) mid-write.

. "$(dirname "$0")/test-lib.sh"

# limited CMD...: CMD under a 35 KiB file size limit (70 blocks of 512
# bytes: room for SQLite's 32 KiB shared-memory file, not for the
# outputs below); its status goes to ./status, its stderr to ./err.
limited() {
	sh -c 'ulimit -f 70; "$@" 2>err; echo $? >status' sh "$@"
}

# no_tmp DIR...: no temporary file of the atomic writer is left
no_tmp() {
	find "$@" -name "*.tmp.*" >left &&
	test_cmp /dev/null left
}

test_expect_success 'setup: 120 runs of a key, two with a profile of 3000 functions' '
	awk "BEGIN { for (i = 0; i < 3000; i++) printf \"main;f%d;g%d %d\n\", i, i % 7, 1 + i % 97 }" \
		>p.folded &&
	i=0 && while test $i -lt 120; do
		tracker run -q --key k --db h.db --artifacts recs -- true || return 1
		i=$((i + 1))
	done &&
	tracker run -q --key k --db h.db --profile-file p.folded -- true &&
	tracker run -q --key k --db h.db --profile-file p.folded -- true &&
	{ echo "steps:" &&
	  i=0 && while test $i -lt 400; do
		printf "  - label: \"step %d\"\n    key: \"k%d\"\n    command: \"make test-%d\"\n" $i $i $i
		i=$((i + 1))
	  done; } >pipe.yml &&
	tracker flame --db h.db --key k -o whole.svg &&
	test $(wc -c <whole.svg) -gt 40000
'

test_expect_success 'flame -o: exit 69 naming the file, no temporary file' '
	limited tracker flame --db h.db --key k -o f.svg &&
	test "$(cat status)" = 69 &&
	grep "cannot write .f.svg.: .*File too large" err &&
	! test -e f.svg && no_tmp .
'

test_expect_success 'diff -o: exit 69, no temporary file' '
	limited tracker diff p.folded p.folded -o d.svg &&
	test "$(cat status)" = 69 &&
	grep "cannot write .d.svg.: .*File too large" err &&
	! test -e d.svg && no_tmp .
'

test_expect_success 'dashboard -o: exit 69, no temporary file' '
	limited tracker dashboard --db h.db -o dash &&
	test "$(cat status)" = 69 &&
	grep "cannot write .dash/.*html.: File too large" err &&
	no_tmp .
'

test_expect_success 'history --plot: exit 69, no temporary file' '
	limited tracker history --db h.db --key k --plot x.html &&
	test "$(cat status)" = 69 &&
	grep "cannot write .x.html.: .*File too large" err &&
	! test -e x.html && no_tmp .
'

test_expect_success 'report: the chart that cannot be written is a warning; the rest is written' '
	limited tracker report --db h.db --artifacts rep &&
	test "$(cat status)" = 0 &&
	grep "warning: no chart for .k.: cannot write .rep/k-[0-9a-f]*\.[a-z]*.: File too large" err &&
	test -s rep/index.html && test -s rep/summary.md &&
	no_tmp .
'

test_expect_success 'pipeline wrap -o: exit 69, no temporary file' '
	limited tracker pipeline wrap pipe.yml -o w.yml &&
	test "$(cat status)" = 69 &&
	grep "cannot write .w.yml.: .*File too large" err &&
	! test -e w.yml && no_tmp .
'

test_expect_success 'push: exit 69, the records unchanged, no temporary file' '
	ls recs >before &&
	limited tracker push --db new.db recs &&
	test "$(cat status)" = 69 &&
	grep "nothing pushed; the record files are unchanged" err &&
	ls recs >after && test_cmp before after &&
	no_tmp .
'

test_expect_success 'without the limit the same commands succeed' '
	tracker flame --db h.db --key k -o f.svg &&
	tracker pipeline wrap pipe.yml -o w.yml &&
	tracker push --db new.db recs 2>err &&
	grep "^120 stored" err
'

test_done
