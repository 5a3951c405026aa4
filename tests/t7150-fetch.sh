#!/bin/sh
# tracker fetch against a fake Buildkite API on loopback
# (tests/fake-buildkite.py): paging, the records and profiles of builds,
# idempotence, the token's rules, retries, timeouts and bad answers, and
# diff --fetch-baseline with an empty history.

. "$(dirname "$0")/test-lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip_all='python3 is needed for the fake Buildkite API'
	test_done
fi

TOKEN=bkua_t7150d15t1nct1v3t0k3n
export BUILDKITE_API_TOKEN="$TOKEN"
export TRACKER_FETCH_TIMEOUT=5s

mkdir bk
cat >bk/config.json <<EOF
{"org": "clima", "pipeline": "coupler", "token": "$TOKEN", "page_size": 1}
EOF
python3 "$TEST_DIRECTORY/fake-buildkite.py" "$TRASH_DIRECTORY/bk" &
fake_pid=$!
trap 'kill $fake_pid 2>/dev/null' EXIT
i=0
while ! test -s bk/ports && test $i -lt 100; do
	sleep 0.1
	i=$((i + 1))
done
API=$(cut -d" " -f1 bk/ports)

# bk_build N BRANCH: build N of the pipeline, N days old, whose job "amip"
# ran `tracker run --key amip` with a profile (main;a N*10, main;b 10) and
# left its record and profile under tracker-artifacts/, as the agent
# uploads them.
bk_build() {
	mkdir -p "bk/builds/$1/amip" &&
	printf '{"branch": "%s", "commit": "%040d", "state": "passed", "created_at": "%s"}\n' \
		"$2" "$1" "$(date -u -d "-$1 days" +%Y-%m-%dT%H:%M:%S.000Z)" \
		>"bk/builds/$1/build.json" &&
	printf "main;a %d\nmain;b 10\n" $(($1 * 10)) >"prof-$1.folded" &&
	(cd "bk/builds/$1/amip" &&
	 env BUILDKITE=true BUILDKITE_BRANCH="$2" BUILDKITE_BUILD_NUMBER="$1" \
		BUILDKITE_COMMIT="$(printf '%040d' "$1")" BUILDKITE_PIPELINE_SLUG=coupler \
		BUILDKITE_ORGANIZATION_SLUG=clima BUILDKITE_PULL_REQUEST=false \
		tracker run -q --key amip --db "$TRASH_DIRECTORY/ci.db" \
		--artifacts tracker-artifacts --profile-file "$TRASH_DIRECTORY/prof-$1.folded" \
		-- true)
}

# faults <JSON: the faults the fake answers with (tests/fake-buildkite.py)
faults() {
	cat >bk/faults.json.tmp && mv bk/faults.json.tmp bk/faults.json
}

fetch() {
	tracker fetch --org clima --pipeline coupler --api "$API" "$@"
}

test_expect_success 'setup: the fake API, three builds on main, one on a feature branch' '
	test -n "$API" &&
	bk_build 1 main && bk_build 2 main && bk_build 3 main && bk_build 4 feature &&
	ls bk/builds/3/amip/tracker-artifacts >files &&
	grep -c "^amip-.*\.json$" files >n && test "$(cat n)" = 1 &&
	grep -c "\.tkprof$" files >n && test "$(cat n)" = 1
'

test_expect_success 'known answer: the records of the three main builds, with default flags' '
	: >bk/requests.log &&
	fetch --branch main --db h.db >out 2>err &&
	grep "3 builds, 3 records: 3 stored, 0 already stored, 0 failed" err &&
	test $(wc -l <err) = 1 && ! grep -q "$(printf "\r")" err && ! test -s out &&
	tracker history --db h.db --key amip --format csv >h.csv &&
	head -1 h.csv | tr , "\n" >cols &&
	b=$(grep -n "^build$" cols | cut -d: -f1) &&
	c=$(grep -n "^commit$" cols | cut -d: -f1) &&
	r=$(grep -n "^branch$" cols | cut -d: -f1) &&
	sed 1d h.csv | cut -d, -f$b,$c,$r | sort >got &&
	printf "main,%040d,1\nmain,%040d,2\nmain,%040d,3\n" 1 2 3 >expect &&
	test_cmp expect got &&
	tracker flame --db h.db --key amip --branch main -o f.folded &&
	printf "main;a 30\nmain;b 10\n" >expect &&
	test_cmp expect f.folded
'

test_expect_success 'builds and artifacts are paged by the Link header (pages of one)' '
	grep -c "\"/v2/organizations/clima/pipelines/coupler/builds?" bk/requests.log >n &&
	test "$(cat n)" = 3 &&
	grep "builds?.*page=3" bk/requests.log &&
	grep "builds?.*branch=main" bk/requests.log &&
	grep "builds?.*created_from=20" bk/requests.log &&
	grep "/builds/3/artifacts?.*page=2" bk/requests.log
'

test_expect_success 'the storage host the download answers 302 to sees no Authorization' '
	python3 - bk/requests.log >report <<-\EOF &&
	import json, sys
	reqs = [json.loads(l) for l in open(sys.argv[1])]
	storage = [r for r in reqs if r["host"] == "storage"]
	api_dl = [r for r in reqs if r["host"] == "api" and r["path"].endswith("/download")]
	auth = lambda r: any(k.lower() == "authorization" for k in r["headers"])
	print("storage", len(storage), "with auth", sum(map(auth, storage)))
	print("api downloads", len(api_dl), "with auth", sum(map(auth, api_dl)))
	EOF
	cat report &&
	grep "^storage 6 with auth 0$" report &&
	grep "^api downloads 6 with auth 6$" report
'

test_expect_success 'progress lines on a terminal' '
	API="$API" python3 -c "import os, pty, sys; sys.exit(os.waitstatus_to_exitcode(pty.spawn(sys.argv[1:])))" \
		tracker fetch --org clima --pipeline coupler --api "$API" --branch main \
		--db tty.db >tty.out &&
	tr "\r" "\n" <tty.out >tty.lines &&
	grep "^tracker: fetch: 1 builds, 1 records, 1 stored" tty.lines &&
	grep "^tracker: fetch: 2 builds, 2 records, 2 stored" tty.lines &&
	grep "^tracker: fetch: 3 builds, 3 records: 3 stored" tty.lines
'

test_expect_success 'fetching again stores nothing twice and downloads nothing' '
	: >bk/requests.log &&
	fetch --branch main --db h.db 2>err &&
	grep "3 records: 0 stored, 3 already stored, 0 failed" err &&
	tracker history --db h.db --format csv >h.csv &&
	test $(sed 1d h.csv | wc -l) = 3 &&
	! grep -q "/download" bk/requests.log
'

test_expect_success 'without --branch every build is fetched; --key picks one key' '
	fetch --db all.db --key amip 2>err &&
	grep "4 builds, 4 records: 4 stored" err &&
	tracker history --db all.db --branch feature --format csv >h.csv &&
	test $(sed 1d h.csv | wc -l) = 1 &&
	fetch --db none.db --key other 2>err &&
	grep "4 builds, 0 records" err
'

test_expect_success 'the token is in no output, message, record or database' '
	BUILDKITE_API_TOKEN=${TOKEN}wrong && export BUILDKITE_API_TOKEN &&
	test_expect_code 69 fetch --db t.db >out1 2>err1 &&
	BUILDKITE_API_TOKEN=$TOKEN && export BUILDKITE_API_TOKEN &&
	fetch --db t.db >out2 2>err2 &&
	tracker history --db t.db --format json >out3 &&
	test -s t.db && test -s out3 &&
	grep -rla "$TOKEN" . >found || true &&
	grep -v "^\./bk/" found >leaks || true &&
	! test -s leaks
'

test_expect_success '401: a clear error naming the variable, exit 69, the token not shown' '
	BUILDKITE_API_TOKEN=${TOKEN}-revoked && export BUILDKITE_API_TOKEN &&
	test_expect_code 69 fetch --db e.db 2>err &&
	grep "refused the token" err && grep "BUILDKITE_API_TOKEN" err && grep "HTTP 401" err &&
	! grep -q "revoked" err &&
	! grep -q "$TOKEN" err
'

test_expect_success 'a pipeline the token cannot see: exit 69 naming it' '
	test_expect_code 69 tracker fetch --org clima --pipeline nosuch --api "$API" \
		--db e.db 2>err &&
	grep "no pipeline .clima/nosuch. this token can read: HTTP 404" err
'

test_expect_success 'no token: exit 2 and what to set' '
	(unset BUILDKITE_API_TOKEN && test_expect_code 2 fetch --db e.db 2>err) &&
	grep "set BUILDKITE_API_TOKEN" err
'

test_expect_success '429 waits for RateLimit-Reset and retries' '
	faults <<-\EOF &&
	[{"id": "r429", "match": "/builds\\?", "status": 429,
	  "headers": {"RateLimit-Remaining": "0", "RateLimit-Reset": "1"},
	  "body": "{\"message\":\"You have exceeded your rate limit\"}"}]
	EOF
	: >bk/requests.log &&
	fetch --branch main --db r.db 2>err &&
	grep "3 stored" err &&
	grep -c "builds?per_page=100&branch=main&created_from" bk/requests.log >n &&
	test "$(cat n)" = 2
'

test_expect_success '500 twice, then success: retried with backoff' '
	faults <<-\EOF &&
	[{"id": "r500", "match": "/artifacts\\?", "status": 500, "times": 2}]
	EOF
	fetch --branch main --db s.db 2>err &&
	grep "3 stored, 0 already stored, 0 failed" err
'

test_expect_success '500 past the retries: exit 69 naming the URL' '
	faults <<-\EOF &&
	[{"id": "r500b", "match": "/builds\\?", "status": 502, "times": 9}]
	EOF
	test_expect_code 69 fetch --db s2.db --retries 1 2>err &&
	grep "HTTP 502 from .http://127.0.0.1:[0-9]*/v2/organizations/clima/pipelines/coupler/builds?" err
'

test_expect_success 'an expired storage link costs one record; its signature is not shown' '
	faults <<-\EOF &&
	[{"id": "s403", "host": "storage", "match": "/artifacts/2/.*json", "status": 403,
	  "body": "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>"}]
	EOF
	test_expect_code 65 fetch --branch main --db x.db 2>err &&
	grep "build #2: cannot store .tracker-artifacts/amip-.*json.: HTTP 403 from .http://127.0.0.[12]:[0-9]*/artifacts/2/tracker-artifacts/amip-[0-9a-f-]*.json." err &&
	! grep -q "Signature" err &&
	grep "3 records: 2 stored, 0 already stored, 1 failed" err
'

test_expect_success 'malformed JSON: exit 65 naming the URL and the offset' '
	faults <<-\EOF &&
	[{"id": "bad1", "match": "/builds\\?", "status": 200,
	  "body": "[{\"number\": 3, \"branch\": "}]
	EOF
	test_expect_code 65 fetch --db m.db 2>err &&
	grep "cannot parse the response of .http://127.0.0.1:[0-9]*/v2/.*/builds?.* at offset [0-9]" err &&
	faults <<-\EOF &&
	[{"id": "bad2", "match": "/artifacts\\?", "status": 200,
	  "body": "{\"message\": \"not a list\"}"}]
	EOF
	test_expect_code 65 fetch --db m.db 2>err &&
	grep "/builds/[0-9]*/artifacts?per_page=100.* at offset 0: expected a JSON array" err &&
	faults <<-\EOF &&
	[{"id": "bad3", "match": "/builds\\?", "status": 200,
	  "body": "[{\"number\": \"three\"}]"}]
	EOF
	test_expect_code 65 fetch --db m.db 2>err &&
	grep "build 0 needs a positive integer" err
'

test_expect_success 'a hung connection times out, a bounded number of times' '
	faults <<-\EOF &&
	[{"id": "hang", "match": "/builds\\?", "hang": 20, "times": 9}]
	EOF
	: >bk/requests.log &&
	test_expect_code 69 env TRACKER_FETCH_TIMEOUT=1 tracker fetch --org clima \
		--pipeline coupler --api "$API" --db hg.db --retries 1 2>err &&
	grep "cannot get .http://127.0.0.1.*(2 attempts)" err &&
	grep -c "/builds?" bk/requests.log >n && test "$(cat n)" = 2
'

# interrupt SIG: a fetch waiting on a hung server, sent SIG once it asked
interrupt() {
	: >bk/requests.log &&
	{ TRACKER_FETCH_TIMEOUT=60 tracker fetch --org clima --pipeline coupler \
		--api "$API" --db int.db 2>err & } &&
	pid=$! &&
	i=0 && while ! grep -q builds bk/requests.log && test $i -lt 100; do
		sleep 0.1; i=$((i + 1)); done &&
	kill -$1 $pid && { wait $pid; echo $? >rc; }
}

test_expect_success 'SIGINT and SIGTERM stop a fetch that waits on a hung server' '
	faults <<-\EOF &&
	[{"id": "hang2", "match": "/builds\\?", "hang": 30, "times": 9}]
	EOF
	interrupt INT && test "$(cat rc)" = 130 && grep "0 builds" err &&
	interrupt TERM && test "$(cat rc)" = 143 && grep "0 builds" err
'

test_expect_success 'a bad record is reported and skipped; a missing profile is dropped' '
	echo "[]" | faults &&
	mkdir -p bk/builds/5/amip/tracker-artifacts &&
	printf "{\"branch\": \"main\", \"commit\": \"%040d\", \"created_at\": \"%s\"}\n" 5 \
		"$(date -u +%Y-%m-%dT%H:%M:%S.000Z)" >bk/builds/5/build.json &&
	echo "{\"format\": \"tracker-run\", \"version\": 1, \"run\": {" \
		>bk/builds/5/amip/tracker-artifacts/amip-00000000-0000-4000-8000-000000000005.json &&
	f=$(ls bk/builds/3/amip/tracker-artifacts/*.json) &&
	mkdir -p bk/builds/5/other/tracker-artifacts &&
	sed "s/\"id\": \"[0-9a-f-]*\"/\"id\": \"00000000-0000-4000-8000-000000000055\"/" "$f" \
		>bk/builds/5/other/tracker-artifacts/amip-00000000-0000-4000-8000-000000000055.json &&
	test_expect_code 65 fetch --branch main --db b.db 2>err &&
	grep "build #5: cannot store .tracker-artifacts/amip-00000000-0000-4000-8000-000000000005.json.: cannot parse record" err &&
	grep "build #5: the cpu profile .* is not among the build.s artifacts; the run is stored without it" err &&
	grep "4 builds, 5 records: 4 stored, 0 already stored, 1 failed" err &&
	tracker history --db b.db --format csv >h.csv &&
	test $(sed 1d h.csv | wc -l) = 4 &&
	rm -r bk/builds/5
'

test_expect_success 'diff --fetch-baseline with an empty history, in a PR build' '
	! tracker diff --key amip --db empty.db --branch feature --baseline-branch main \
		-o d0.folded 2>err &&
	env BUILDKITE=true BUILDKITE_BRANCH=feature BUILDKITE_PULL_REQUEST=7 \
		BUILDKITE_PULL_REQUEST_BASE_BRANCH=main BUILDKITE_ORGANIZATION_SLUG=clima \
		BUILDKITE_PIPELINE_SLUG=coupler TRACKER_BUILDKITE_API="$API" \
		tracker diff --key amip --db empty.db --fetch-baseline -o d.folded 2>err &&
	cat err &&
	printf "main;a 20 40\nmain;b 10 10\n" >expect &&
	test_cmp expect d.folded &&
	grep "fetched from Buildkite" err &&
	grep "mean of 3 runs" err &&
	env BUILDKITE=true BUILDKITE_BRANCH=feature BUILDKITE_PULL_REQUEST=7 \
		BUILDKITE_PULL_REQUEST_BASE_BRANCH=main BUILDKITE_ORGANIZATION_SLUG=clima \
		BUILDKITE_PIPELINE_SLUG=coupler TRACKER_BUILDKITE_API="$API" \
		tracker diff --key amip --db empty.db --fetch-baseline --baselines 3 \
		-o d2.folded 2>err2 &&
	! grep "fetched from Buildkite" err2 &&
	test_cmp expect d2.folded
'

test_expect_success 'report --fetch-baseline: the baseline of each key of the build, from Buildkite' '
	bk_env="BUILDKITE=true BUILDKITE_BRANCH=feature BUILDKITE_BUILD_NUMBER=9
		BUILDKITE_PULL_REQUEST=7 BUILDKITE_PULL_REQUEST_BASE_BRANCH=main
		BUILDKITE_ORGANIZATION_SLUG=clima BUILDKITE_PIPELINE_SLUG=coupler
		TRACKER_BUILDKITE_API=$API" &&
	env $bk_env tracker run -q --key amip --db rep.db --artifacts rep-art -- true &&
	env $bk_env tracker report --db rep.db --artifacts rep --no-charts 2>err0 &&
	! grep "fetched from Buildkite" err0 &&
	test "$(tracker history --db rep.db --key amip --branch main --format csv | sed 1d | wc -l)" = 0 &&
	env $bk_env tracker report --db rep.db --artifacts rep --no-charts --fetch-baseline 2>err &&
	grep "fetched from Buildkite: .* 3 stored" err &&
	test "$(tracker history --db rep.db --key amip --branch main --format csv | sed 1d | wc -l)" = 3 &&
	grep "amip" rep/summary.md &&
	env $bk_env tracker report --db rep.db --artifacts rep --no-charts --fetch-baseline 2>err2 &&
	grep "fetched from Buildkite: .* 0 stored, 3 already stored" err2 &&
	test "$(tracker history --db rep.db --key amip --branch main --format csv | sed 1d | wc -l)" = 3
'

test_expect_success 'diff --fetch-baseline without the pipeline says what to set' '
	test_expect_code 2 tracker diff --key amip --db empty2.db --branch feature \
		--baseline-branch main --fetch-baseline -o d.folded 2>err &&
	grep "BUILDKITE_PIPELINE_SLUG" err
'

test_expect_success 'builds over a year old only with --since all' '
	bk_build 400 main &&
	fetch --branch main --db old.db 2>err &&
	grep "3 builds, 3 records: 3 stored" err &&
	fetch --branch main --db old.db --since all 2>err &&
	grep "4 builds, 4 records: 1 stored, 3 already stored" err &&
	fetch --branch main --db old.db --since 2d 2>err &&
	grep "1 builds, 1 records: 0 stored, 1 already stored" err &&
	rm -r bk/builds/400
'

test_done
