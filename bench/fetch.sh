#!/bin/sh
# tracker fetch's bounds against a hostile API (tests/hostile-buildkite.py
# on loopback), with curl, the usual peer for "download this", measured
# in the same run:
#   1. a gzip-encoded profile artifact of 256 MiB inflated (honest
#      trailer): tracker fetch (which inflates it under the 1 GiB cap and
#      drops it as not a profile) against curl --compressed -o /dev/null;
#   2. the same artifact declaring 1.5 GiB: tracker refuses it before
#      inflating, curl --compressed inflates what it gets;
#   3. an artifact list with no end (100 artifacts a page): the time and
#      peak RSS of tracker fetch until it cuts the list at 100 pages.
#
#   sh bench/fetch.sh                 (BENCH_ONLY=fetch in make bench)
set -eu
cd "$(dirname "$0")/.."
root=$PWD
out=$(mktemp -d "${TMPDIR:-/tmp}/tracker-benchfetch.XXXXXX")
fake_pid=
trap '[ -n "$fake_pid" ] && kill "$fake_pid" 2>/dev/null; rm -rf "$out"' EXIT

mkdir -p "$out/bk/files"
echo bench-token >"$out/bk/token"
BUILDKITE_API_TOKEN=bench-token
export BUILDKITE_API_TOKEN
"$root/tracker" run -q --key k --db "$out/src.db" --artifacts "$out/bk/files" \
	--profile-file "$root/fixtures/folded/simple.folded" -- true
prof=$(cd "$out/bk/files" && ls ./*.tkprof | sed 's|^\./||')
python3 - "$out/bk" <<'PY'
import sys, zlib
line = b"main;solver;step;flux;kernel_%d 12345\n"
block = b"".join(line % i for i in range(8192))
c = zlib.compressobj(1, zlib.DEFLATED, 31)
with open(sys.argv[1] + "/honest.gz", "wb") as f:
    n = 0
    while n < 256 << 20:
        f.write(c.compress(block))
        n += len(block)
    f.write(c.flush())
data = open(sys.argv[1] + "/honest.gz", "rb").read()
open(sys.argv[1] + "/liar.gz", "wb").write(data[:-4] + (1536 << 20).to_bytes(4, "little"))
PY
python3 tests/hostile-buildkite.py "$out/bk" &
fake_pid=$!
i=0
while ! test -s "$out/bk/port" && test $i -lt 100; do sleep 0.1; i=$((i + 1)); done
api=http://127.0.0.1:$(cat "$out/bk/port")

measure() { # LABEL CMD...: wall seconds and peak RSS of CMD (any exit status)
	label=$1
	shift
	/usr/bin/time -f "%e %M" -o "$out/t" "$@" >/dev/null 2>"$out/err" || true
	tail -1 "$out/t" >"$out/last"
	awk -v l="$label" '{ printf "  %-44s %6.2f s, %4.0f MiB peak RSS\n", l, $1, $2 / 1024 }' \
		"$out/last"
}
ratio() { # the last two measures: A B -> B/A of time and of RSS
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x, " "); split(b, y, " ");
		printf "  ratio curl / tracker: %.2fx time, %.2fx peak RSS\n",
			y[1] / (x[1] > 0.005 ? x[1] : 0.005), y[2] / x[2] }'
}
fetch="$root/tracker fetch --org clima --pipeline coupler --api $api --db"

echo "a gzip profile artifact, 256 MiB inflated ($(wc -c <"$out/bk/honest.gz") bytes sent):"
cp "$out/bk/honest.gz" "$out/bk/bomb.gz"
echo gzip-bomb >"$out/bk/mode"
measure "tracker fetch (inflates, drops it)" $fetch "$out/h1.db"
t=$(cat "$out/last")
measure "curl --compressed -o /dev/null" curl -s --compressed -o /dev/null "$api/files/$prof"
ratio "$t" "$(cat "$out/last")"

echo "the same declaring 1.5 GiB (a bomb):"
cp "$out/bk/liar.gz" "$out/bk/bomb.gz"
measure "tracker fetch (refuses before inflating)" $fetch "$out/h2.db"
t=$(cat "$out/last")
grep -q "refused before inflating" "$out/err" || { cat "$out/err" >&2; exit 1; }
measure "curl --compressed -o /dev/null" curl -s --compressed -o /dev/null "$api/files/$prof"
ratio "$t" "$(cat "$out/last")"

echo "an artifact list with no end (100 artifacts a page):"
echo artifacts-endless >"$out/bk/mode"
measure "tracker fetch (cut at 100 pages)" $fetch "$out/h3.db"
grep -q "cut short" "$out/err" || { cat "$out/err" >&2; exit 1; }
