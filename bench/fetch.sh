#!/bin/sh
# tracker fetch's bounds against a hostile API (tests/hostile-buildkite.py
# on loopback), with curl, the usual peer for "download this", measured
# in the same run:
#   1. a gzip-encoded profile artifact of 256 MiB inflated (honest
#      trailer): tracker fetch (which streams it to the disk, inflates it
#      there under the 1 GiB cap and drops it as not a profile) against
#      curl --compressed -o FILE;
#   2. a plain profile artifact of 256 MiB (junk): tracker fetch (streams
#      it, drops it by its first bytes) against curl -o FILE;
#   3. the gzip artifact declaring 1.5 GiB: tracker refuses it before
#      inflating, curl --compressed inflates what it gets;
#   4. an artifact list with no end (100 artifacts a page): the time and
#      peak RSS of tracker fetch until it cuts the list at 100 pages.
# 1 and 2 run tracker and curl in turn, BENCH_FETCH_N (default 5) times
# each, and print the medians: another job on the machine slows both.
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
rounds=${BENCH_FETCH_N:-5}

# paired LABEL_A CMD_A LABEL_B CMD_B: A and B in turn, $rounds times each
# (%N in a command is the round: a fresh database, so the profile is
# downloaded every time), then the medians of time and peak RSS and B/A
median() { # FILE COLUMN
	sort -n -k "$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}
paired() {
	: >"$out/ra"
	: >"$out/rb"
	i=0
	while [ $i -lt "$rounds" ]; do
		/usr/bin/time -f "%e %M" -o "$out/t" $(echo "$2" | sed "s/%N/$i/g") \
			>/dev/null 2>"$out/err" || true
		tail -1 "$out/t" >>"$out/ra"
		/usr/bin/time -f "%e %M" -o "$out/t" $(echo "$4" | sed "s/%N/$i/g") \
			>/dev/null 2>/dev/null || true
		tail -1 "$out/t" >>"$out/rb"
		i=$((i + 1))
	done
	a="$(median "$out/ra" 1) $(median "$out/ra" 2)"
	b="$(median "$out/rb" 1) $(median "$out/rb" 2)"
	echo "$a" | awk -v l="$1" '{ printf "  %-44s %6.2f s, %4.0f MiB peak RSS\n", l, $1, $2 / 1024 }'
	echo "$b" | awk -v l="$3" '{ printf "  %-44s %6.2f s, %4.0f MiB peak RSS\n", l, $1, $2 / 1024 }'
	ratio "$a" "$b"
	echo "  (medians of $rounds runs each, in turn)"
}

echo "a gzip profile artifact, 256 MiB inflated ($(wc -c <"$out/bk/honest.gz") bytes sent):"
cp "$out/bk/honest.gz" "$out/bk/bomb.gz"
echo gzip-bomb >"$out/bk/mode"
paired "tracker fetch (inflates on disk, drops it)" "$fetch $out/h1-%N.db" \
	"curl --compressed -o FILE" "curl -s --compressed -o $out/curl.out $api/files/$prof"
grep -q "corrupt stored profile" "$out/err" || { cat "$out/err" >&2; exit 1; }

echo "a plain profile artifact of 256 MiB (junk):"
echo $((256 << 20)) >"$out/bk/big-size"
echo big-profile >"$out/bk/mode"
paired "tracker fetch (streams it, drops it)" "$fetch $out/p1-%N.db" \
	"curl -o FILE" "curl -s -o $out/curl.out $api/files/$prof"
grep -q "corrupt stored profile" "$out/err" || { cat "$out/err" >&2; exit 1; }

echo "the gzip artifact declaring 1.5 GiB (a bomb):"
cp "$out/bk/liar.gz" "$out/bk/bomb.gz"
echo gzip-bomb >"$out/bk/mode"
measure "tracker fetch (refuses before inflating)" $fetch "$out/h2.db"
t=$(cat "$out/last")
grep -q "refused before inflating" "$out/err" || { cat "$out/err" >&2; exit 1; }
measure "curl --compressed -o /dev/null" curl -s --compressed -o /dev/null "$api/files/$prof"
ratio "$t" "$(cat "$out/last")"

echo "an artifact list with no end (100 artifacts a page):"
echo artifacts-endless >"$out/bk/mode"
measure "tracker fetch (cut at 100 pages)" $fetch "$out/h3.db"
grep -q "cut short" "$out/err" || { cat "$out/err" >&2; exit 1; }
