#!/bin/sh
# Real programs under the preload library, in exact mode with the CPU timer
# at 1000 Hz, sampled, and with libunwind for every stack: the same output,
# the same errors and the same exit status as without it.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/preload-lib.sh"

# The interpreter itself (python3 may be a wrapper script spawning dozens
# of processes).
PYTHON=$(python3 -c "import json, subprocess, sys; print(sys.executable)" 2>/dev/null) &&
	[ -x "$PYTHON" ] && test_set_prereq PYTHON3
command -v git >/dev/null 2>&1 && test_set_prereq GIT

MODES="TRACKER_PROFILE_SAMPLE_BYTES=1,TRACKER_PROFILE_CPU_HZ=1000
TRACKER_PROFILE_CPU_HZ=1000
TRACKER_PROFILE_SAMPLE_BYTES=1,TRACKER_PROFILE_UNWIND=libunwind"

# same CMD...: CMD's stdout, stderr and exit status without the library,
# then under it in each of MODES, must be the same; each run leaves tables.
same() {
	"$@" >expect.out 2>expect.err
	echo $? >expect.rc
	for mode in $MODES; do
		rm -rf prof && mkdir prof &&
		env TRACKER_PROFILE_DIR="$PWD/prof" LD_PRELOAD="$PRELOAD" \
			$(echo "$mode" | tr , " ") "$@" >actual.out 2>actual.err
		echo $? >actual.rc
		test_cmp expect.out actual.out &&
		test_cmp expect.err actual.err &&
		test_cmp expect.rc actual.rc &&
		test -n "$(ls prof/*.tkraw)" || return 1
	done
}

test_expect_success PRELOAD 'sort of a big file, with its temporary files and threads' '
	awk "BEGIN { for (i = 1; i <= 300000; i++) print (i * 7919) % 100003, i }" >big &&
	same sort -n big &&
	same sort -S 1M --parallel=2 -k2,2nr big &&
	test $(wc -l <actual.out) = 300000
'

test_expect_success PRELOAD 'shell pipelines, a failing command, an exit status' '
	same sh -c "seq 1 100000 | grep 7 | sort -r | head -3; ls /nonexistent; echo \$?; exit 7" &&
	test "$(cat actual.rc)" = 7 &&
	same sh -c "{ for i in 1 2 3 4 5; do (echo \$i | tr 1-5 a-e) & done; wait; } | sort" &&
	printf "a\nb\nc\nd\ne\n" >abc &&
	test_cmp abc actual.out &&
	same sh -c "kill -TERM \$\$"
'

test_expect_success PRELOAD,PYTHON3 'python: allocations, JSON, subprocesses, an exit status' '
	cat >prog.py <<-\EOF &&
	import json, subprocess, sys
	d = [{"k": i, "v": list(range(i % 50))} for i in range(3000)]
	s = json.dumps(d)
	print(len(s), sum(len(x["v"]) for x in json.loads(s)))
	r = subprocess.run(["sh", "-c", "echo hi; echo err >&2; exit 3"], capture_output=True)
	print(r.returncode, r.stdout, r.stderr)
	sys.exit(5)
	EOF
	same "$PYTHON" prog.py &&
	test "$(cat actual.rc)" = 5 &&
	MODES=TRACKER_PROFILE_CPU_HZ=1000,PYTHONMALLOC=malloc &&
	same env PYTHONMALLOC=malloc "$PYTHON" prog.py
'

test_expect_success PRELOAD,GIT 'git: init, commits, log, a bad revision' '
	git init -q repo &&
	for i in 1 2 3 4 5 6 7 8; do
		echo $i >repo/f$i &&
		git -C repo add f$i &&
		git -C repo -c user.name=t -c user.email=t@t commit -q -m "commit $i" || return 1
	done &&
	same git -C repo log --format=%s --stat &&
	same git -C repo log --oneline nonexistent-revision &&
	test "$(cat actual.rc)" = 128
'

test_done
