#!/bin/sh
# make check-fresh: the README's test command on a fresh clone, as CI runs it.
#
# Clones the committed HEAD of this tree into a temporary directory (as
# TMP/main, with TMP/shared linked to this tree's ../shared when there is
# one, since some tests read ../shared/), runs `CI=true bash .ci/run` there
# with no standard input, and prints how long it took. The clone is removed
# when the run passes and kept (its path printed) when it fails.
# Uncommitted changes are not in the clone: commit first.

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tracker-fresh.XXXXXX") || exit 1
if ! git clone -q "$top" "$tmp/main"; then
	echo "check-fresh: cannot clone $top" >&2
	exit 1
fi
if [ -d "$top/../shared" ]; then
	ln -s "$(cd "$top/../shared" && pwd)" "$tmp/shared"
fi
echo "check-fresh: $(git -C "$tmp/main" log -1 --format='%h %s') in $tmp/main"
start=$(date +%s)
(cd "$tmp/main" && CI=true bash .ci/run </dev/null)
rc=$?
end=$(date +%s)
echo "check-fresh: exit $rc after $((end - start)) s"
if [ $rc -eq 0 ]; then
	rm -rf "$tmp"
else
	echo "check-fresh: the clone is kept in $tmp/main" >&2
fi
exit $rc
