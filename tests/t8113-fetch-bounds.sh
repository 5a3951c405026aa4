#!/bin/sh
# tracker fetch against a hostile Buildkite API (tests/hostile-buildkite.py):
# every request has a minimum rate and a deadline, a build's artifact
# list is cut at its caps or at a next link seen before, records are
# stored as their page arrives, a builds list that loops stops, the walk
# stops at --max-bytes, a gzip bomb is refused before it is inflated, and
# a plain http:// --api to another host never gets the token unless
# --allow-http, and a profile of any size streams to the disk as it
# arrives (inflated there when gzip'd). Each of these used to run without
# end, or grow to gigabytes, or send the token in clear, or hold the whole
# profile in memory.

. "$(dirname "$0")/test-lib.sh"

# Peak RSS is the plain build's (a sanitized build carries shadow memory).
[ -x /usr/bin/time ] && ! grep -q __asan_init "$(command -v tracker)" && test_set_prereq RSS

if ! command -v python3 >/dev/null 2>&1; then
	skip_all='python3 is needed for the fake Buildkite API'
	test_done
fi

TOKEN=bkua_t8113h0st1l3t0k3n
export BUILDKITE_API_TOKEN="$TOKEN"
export TRACKER_FETCH_TIMEOUT=5s

mkdir -p bk/files
echo "$TOKEN" >bk/token
python3 "$TEST_DIRECTORY/hostile-buildkite.py" "$TRASH_DIRECTORY/bk" &
fake_pid=$!
trap 'kill $fake_pid 2>/dev/null' EXIT
i=0
while ! test -s bk/port && test $i -lt 100; do
	sleep 0.1
	i=$((i + 1))
done
API=http://127.0.0.1:$(cat bk/port)

mode() {
	echo "$1" >bk/mode
}

# fetch ARGS...: tracker fetch of the fake, killed past 60 s (status 124);
# its standard error in ./err, its peak RSS in KiB in ./rss
fetch() {
	python3 - "$@" <<-\EOF
	import resource, subprocess, sys
	try:
	    rc = subprocess.run(["tracker", "fetch", "--org", "clima", "--pipeline", "coupler"]
	                        + sys.argv[1:], stderr=open("err", "w"), timeout=60).returncode
	except subprocess.TimeoutExpired:
	    rc = 124
	open("rss", "w").write("%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
	sys.exit(rc)
	EOF
}

test_expect_success 'setup: a record with its profile, served honestly' '
	test -s bk/port &&
	tracker run -q --key k --db src.db --artifacts bk/files \
		--profile-file "$FIXTURES/folded/simple.folded" -- true &&
	ls bk/files/*.json bk/files/*.tkprof &&
	mode honest &&
	fetch --api "$API" --db h.db &&
	grep "1 builds, 1 records: 1 stored, 0 already stored, 0 failed" err &&
	! grep -q warning err &&
	tracker flame --db h.db --key k -o f.folded && test -s f.folded
'

test_expect_success 'a server that drips 2 bytes a second fails within --timeout' '
	mode drip &&
	start=$(date +%s) &&
	test_expect_code 69 fetch --api "$API" --db drip.db --timeout 2s --retries 0 &&
	end=$(date +%s) &&
	cat err &&
	test $((end - start)) -lt 15 &&
	grep "error: cannot get .http://127.0.0.1:[0-9]*/files/k-.*json.: Operation too slow. Less than 1024 bytes/sec transferred the last 2 seconds (1 attempt)" err
'

test_expect_success 'a steady 8 KiB/s transfer passes the rate but not --deadline' '
	mode steady &&
	start=$(date +%s) &&
	test_expect_code 69 fetch --api "$API" --db steady.db --deadline 3s --retries 0 &&
	end=$(date +%s) &&
	cat err &&
	test $((end - start)) -lt 15 &&
	grep "error: cannot get .http://127.0.0.1:[0-9]*/files/k-.*json.: took longer than 3 s" err
'

test_expect_success 'an endless artifact list is cut at 100 pages; its first record is stored as it arrives' '
	mode artifacts-endless &&
	: >bk/requests.log &&
	test_expect_code 65 fetch --api "$API" --db endless.db &&
	cat err &&
	grep "build #1: its artifact list is cut short, as it runs past 100 pages" err &&
	grep "1 records: 1 stored, 0 already stored, 1 failed" err &&
	test "$(grep -c "/artifacts?" bk/requests.log)" = 100 &&
	test "$(cat rss)" -lt 200000 &&
	tracker history --db endless.db --key k --format csv >h.csv &&
	test $(sed 1d h.csv | wc -l) = 1
'

test_expect_success 'a record listed before its profile waits for it, and gets it' '
	mode record-first &&
	fetch --api "$API" --db first.db &&
	grep "1 records: 1 stored, 0 already stored, 0 failed" err &&
	! grep -q warning err &&
	tracker flame --db first.db --key k -o first.folded &&
	test_cmp f.folded first.folded
'

test_expect_success 'an artifact list whose next link repeats is cut there' '
	mode artifacts-loop &&
	: >bk/requests.log &&
	test_expect_code 65 fetch --api "$API" --db aloop.db &&
	grep "build #1: its artifact list is cut short, as its next link repeats an earlier page" err &&
	test "$(grep -c "/artifacts?" bk/requests.log)" = 2
'

test_expect_success 'a builds list whose next link is itself stops at once (exit 65)' '
	mode builds-loop &&
	: >bk/requests.log &&
	test_expect_code 65 fetch --api "$API" --db bloop.db &&
	cat err &&
	grep "the builds list.s next link repeats an earlier page, .http://127.0.0.1:[0-9]*/v2/organizations/clima/pipelines/coupler/builds?" err &&
	test "$(grep -c "/builds?" bk/requests.log)" = 1
'

test_expect_success '--max-bytes stops the walk, naming the bound' '
	mode honest &&
	test_expect_code 65 fetch --api "$API" --db max.db --max-bytes 1 &&
	grep "bytes from the API and its storage, the bound of 1 (--max-bytes): stopped" err &&
	test_expect_code 2 fetch --api "$API" --db max.db --max-bytes lots &&
	grep "max-bytes wants a size" err
'

test_expect_success 'a gzip bomb declaring 1.5 GiB is refused before it is inflated' '
	python3 -c "
import zlib
c = zlib.compressobj(9, zlib.DEFLATED, 31)
data = c.compress(bytes(64 << 20)) + c.flush()
# the trailer of 1.5 GiB of zeros: CRC of what follows does not matter,
# the size is read first
open(\"bk/bomb.gz\", \"wb\").write(data[:-4] + (1536 << 20).to_bytes(4, \"little\"))
" &&
	mode gzip-bomb &&
	test_expect_code 0 fetch --api "$API" --db bomb.db &&
	cat err rss &&
	grep "the cpu profile .*declares 1610612736 bytes once inflated, over 1073741824 bytes: refused before inflating; the run is stored without it" err &&
	test "$(cat rss)" -lt 60000 &&
	grep "1 records: 1 stored" err
'

# Through the fake as an HTTP proxy, --api can name a host that is not
# loopback without any network.
test_expect_success 'plain http to another host: a warning, and the token is not sent' '
	mode honest &&
	: >bk/requests.log &&
	test_expect_code 69 env http_proxy="$API" no_proxy= NO_PROXY= tracker fetch --org clima \
		--pipeline coupler --api http://buildkite.example --db px.db 2>err &&
	cat err &&
	grep "warning: the API URL .http://buildkite.example. is plain http to another host: the token is not sent (--allow-http sends it in clear)" err &&
	grep "HTTP 401 from .http://buildkite.example/v2/organizations/clima/pipelines/coupler/builds" err &&
	grep -q "\"path\": \"http://buildkite.example/v2/" bk/requests.log &&
	! grep -q "\"auth\": true" bk/requests.log &&
	! grep -q "$TOKEN" err
'

test_expect_success '--allow-http sends it; loopback http never needed it' '
	: >bk/requests.log &&
	env http_proxy="$API" no_proxy= NO_PROXY= tracker fetch --org clima \
		--pipeline coupler --api http://buildkite.example --allow-http --db px2.db 2>err &&
	grep "1 records: 1 stored" err &&
	grep -q "\"auth\": true" bk/requests.log &&
	! grep -q "plain http" err &&
	fetch --api "$API" --db px3.db &&
	! grep -q "plain http" err
'

test_expect_success 'a gzip-encoded profile is inflated on the disk and stored whole' '
	mode gzip-honest &&
	fetch --api "$API" --db gzh.db &&
	grep "1 records: 1 stored, 0 already stored, 0 failed" err &&
	! grep -q warning err &&
	tracker flame --db gzh.db --key k -o gzh.folded &&
	test_cmp f.folded gzh.folded
'

# fetch_rss DB: tracker fetch of the fake under /usr/bin/time, its
# temporary files in ./tmp; its peak RSS in KiB in ./rss.txt, its
# standard error in ./err
fetch_rss() {
	mkdir -p tmp &&
	TMPDIR=$PWD/tmp /usr/bin/time -f %M -o rss.txt tracker fetch --org clima \
		--pipeline coupler --api "$API" --db "$1" 2>err
	rc=$?
	kb=$(tail -1 rss.txt)
	cat err
	echo "exit $rc, peak RSS $kb KiB"
	return $rc
}

# The profile artifact is 256 MiB of junk (any PR build can upload one):
# it used to be held whole in memory, once as sent and again when the
# store read it back (285 MiB of RSS, where curl takes 11 MiB). Now it
# streams to a temporary file beside its destination, its first bytes
# show it is no stored profile, and it is dropped before the store reads
# it: the peak is that of a small fetch, whatever the size.
test_expect_success 'a 256 MiB profile streams to the disk: memory does not grow with it' '
	echo $((256 << 20)) >bk/big-size &&
	mode big-profile &&
	fetch_rss big.db &&
	grep "the cpu profile .*: corrupt stored profile .*: size 8680820740569200760; the run is stored without it" err &&
	grep "1 records: 1 stored, 0 already stored, 0 failed" err &&
	test -z "$(find tmp -type f)"
'

test_expect_success RSS 'the 256 MiB profile took under 40 MiB of RSS' '
	kb=$(tail -1 rss.txt) &&
	echo "peak RSS $kb KiB" &&
	test "$kb" -lt 40000
'

test_expect_success 'a gzip body inflating to 256 MiB streams to the disk too' '
	python3 -c "
import zlib
c = zlib.compressobj(1, zlib.DEFLATED, 31)
with open(\"bk/big.gz\", \"wb\") as f:
    for i in range(256):
        f.write(c.compress(b\"x\" * (1 << 20)))
    f.write(c.flush())
" &&
	mode big-gzip &&
	fetch_rss bigz.db &&
	grep "the cpu profile .*: corrupt stored profile .*: size 8680820740569200760; the run is stored without it" err &&
	grep "1 records: 1 stored, 0 already stored, 0 failed" err &&
	test -z "$(find tmp -type f)"
'

test_expect_success RSS 'inflating it took under 40 MiB of RSS' '
	kb=$(tail -1 rss.txt) &&
	echo "peak RSS $kb KiB" &&
	test "$kb" -lt 40000
'

test_done
