#!/bin/sh
# What tracker run makes the disk do after the job: the database's commits
# do not each wait for a disk flush. In WAL mode the store commits with
# synchronous NORMAL: the WAL is synced when it is checkpointed (the last
# close does), not at every commit, so a run with three profiles syncs
# its WAL a couple of times rather than once per commit (ten with FULL).
# Counted with strace (ci/install-deps.sh test installs it).

. "$(dirname "$0")/test-lib.sh"

if ! command -v strace >/dev/null 2>&1 || ! strace -o /dev/null true 2>/dev/null; then
	skip_all="strace is missing or cannot trace here"
	test_done
fi
ALLOCPATTERN="$TRACKER_ROOT/examples/allocpattern"
[ -x "$ALLOCPATTERN" ] && [ -f "$TRACKER_ROOT/libtracker-preload.so" ] &&
	test_set_prereq PRELOAD

# wal_syncs: fsync and fdatasync calls on db.sqlite-wal in ./trace.
wal_syncs() {
	grep -cE "(fsync|fdatasync)\([0-9]+<[^>]*db\.sqlite-wal>" trace
}

test_expect_success PRELOAD 'a run with an allocation profile syncs its WAL at most three times' '
	tracker run -q --key syncs --db db.sqlite --artifacts art -- true &&
	strace -f -y -e trace=fsync,fdatasync -o trace \
		tracker run -q --key syncs --db db.sqlite --artifacts art \
		--profile alloc --sample-bytes 1 -- "$ALLOCPATTERN" pattern >out &&
	tracker history --db db.sqlite --key syncs --format csv >runs &&
	test $(wc -l <runs) = 3 &&
	n=$(wal_syncs) &&
	echo "WAL syncs: $n" &&
	test "$n" -ge 1 && test "$n" -le 3
'

test_expect_success 'the runs are in the database file itself once tracker has exited' '
	! test -s db.sqlite-wal &&
	test "$(sqlite3 db.sqlite "SELECT count(*) FROM runs WHERE key = '"'syncs'"'")" = 2
'

test_done
