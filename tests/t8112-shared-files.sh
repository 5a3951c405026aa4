#!/bin/sh
# Files tracker reads from directories others may write to (the records
# `tracker push DIR` reads, GITHUB_EVENT_PATH, --profile-file) are opened
# without following a symbolic link, must be regular files (a FIFO is
# refused, never waited on) and are size-capped before a byte is read.
# push used to hang on a FIFO named *.json and to read records through
# links (a link to a secret printed its first token in the error), and a
# FIFO at GITHUB_EVENT_PATH blocked tracker run before the job started.

. "$(dirname "$0")/test-lib.sh"

# in_time SECONDS CMD...: CMD, killed (status 124) past SECONDS
in_time() {
	t=$1
	shift
	timeout -s KILL "$t" "$@"
	rc=$?
	test $rc = 137 && return 124
	return $rc
}

test_expect_success 'setup: a secret, a record and its profile in a shared directory' '
	printf "SECRET-7f3a9 more\n" >secret && chmod 600 secret &&
	mkdir -m 1777 shared &&
	tracker run -q --key good --db src.db --artifacts shared \
		--profile-file "$FIXTURES/folded/simple.folded" -- true &&
	ls shared/good-*.json >/dev/null
'

test_expect_success 'push DIR: a FIFO named *.json is refused at once, the rest stored' '
	mkfifo shared/fifo-00000000-0000-4000-8000-000000000001.json &&
	test_expect_code 65 in_time 20 tracker push --db p1.db shared 2>err &&
	cat err &&
	grep "fifo-.*json.* is not a regular file" err &&
	grep "1 stored, 0 already stored, 1 failed" err &&
	rm shared/fifo-*.json
'

test_expect_success 'push DIR: a record that is a symbolic link is not read through' '
	ln -s "$PWD/secret" shared/link-00000000-0000-4000-8000-000000000002.json &&
	test_expect_code 65 in_time 20 tracker push --db p2.db shared >out 2>err &&
	cat err &&
	grep "link-.*json.* is a symbolic link" err &&
	! grep -q SECRET out err &&
	rm shared/link-*.json
'

test_expect_success 'push FILE: a profile beside the record that is a link is refused' '
	rec=$(ls shared/good-*.json) &&
	prof=$(ls shared/good-*.tkprof) &&
	mv "$prof" real.tkprof && ln -s "$PWD/real.tkprof" "$prof" &&
	test_expect_code 65 tracker push --db p3.db "$rec" 2>err &&
	grep "is a symbolic link" err &&
	rm "$prof" && mv real.tkprof "$prof"
'

test_expect_success 'push: a record over the cap is refused before it is read' '
	truncate -s 20G shared/huge-00000000-0000-4000-8000-000000000003.json &&
	test_expect_code 65 in_time 20 tracker push --db p4.db \
		shared/huge-00000000-0000-4000-8000-000000000003.json 2>err &&
	grep "is larger than 16777216 bytes" err &&
	rm shared/huge-*.json
'

test_expect_success 'a FIFO at GITHUB_EVENT_PATH does not block the job; GITHUB_SHA stands' '
	mkfifo event &&
	in_time 20 env GITHUB_ACTIONS=true GITHUB_SHA=0123456789012345678901234567890123456789 \
		GITHUB_REF_NAME=main GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$PWD/event" \
		tracker run -q --key gh --db gh.db -- sh -c "exit 6";
	test $? = 6 &&
	tracker history --db gh.db --key gh --format csv >h.csv &&
	grep ",0123456789012345678901234567890123456789," h.csv
'

test_expect_success 'a link at GITHUB_EVENT_PATH is not read' '
	cp "$FIXTURES/env/github-event-pull-request.json" ev.json &&
	ln -s "$PWD/ev.json" evlink &&
	env GITHUB_ACTIONS=true GITHUB_SHA=0123456789012345678901234567890123456789 \
		GITHUB_REF_NAME=main GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$PWD/evlink" \
		tracker run -q --key gh2 --db gh.db -- true &&
	tracker history --db gh.db --key gh2 --format csv >h.csv &&
	grep ",0123456789012345678901234567890123456789," h.csv &&
	env GITHUB_ACTIONS=true GITHUB_SHA=0123456789012345678901234567890123456789 \
		GITHUB_REF_NAME=main GITHUB_EVENT_NAME=pull_request GITHUB_EVENT_PATH="$PWD/ev.json" \
		tracker run -q --key gh3 --db gh.db -- true &&
	tracker history --db gh.db --key gh3 --format csv >h.csv &&
	grep ",c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00," h.csv
'

test_expect_success '--profile-file: a FIFO, a link and an oversized file are warned about, the job kept' '
	mkfifo prof.fifo &&
	ln -s "$FIXTURES/folded/simple.folded" prof.link &&
	truncate -s 5G prof.huge &&
	in_time 20 tracker run --key pf --db pf.db --profile-file prof.fifo \
		--profile-file prof.link --profile-file prof.huge -- sh -c "exit 4" 2>err;
	test $? = 4 &&
	cat err &&
	grep "prof.fifo. is not a regular file; the run is recorded without this profile" err &&
	grep "prof.link. is a symbolic link; the run is recorded without this profile" err &&
	grep "prof.huge. is larger than 4294967296 bytes; the run is recorded without this profile" err &&
	tracker history --db pf.db --key pf --format csv >h.csv &&
	test $(sed 1d h.csv | wc -l) = 1
'

test_expect_success '--profile-file: a regular file is still read' '
	tracker run -q --key pf2 --db pf.db --profile-file "$FIXTURES/folded/simple.folded" -- true &&
	tracker flame --db pf.db --key pf2 -o f.folded &&
	test -s f.folded
'

test_done
