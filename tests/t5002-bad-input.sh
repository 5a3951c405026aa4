#!/bin/sh
# Bad profile input: a clear error naming the file and the line or byte
# offset, exit 65, never a crash (exit > 125 would be a signal).

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'binary garbage' '
	head -c 4096 /dev/urandom >garbage.bin &&
	test_expect_code 65 tracker flame garbage.bin -o out.svg 2>err &&
	grep "garbage.bin" err &&
	! test -e out.svg
'

test_expect_success 'tracker flame --list-formats lists the registry'"'"'s importers' '
	tracker flame --list-formats >formats &&
	test $(wc -l <formats) -ge 10 &&
	grep -qx dtrace formats &&
	grep -qx gperftools-cpu formats &&
	test "$(tail -n 1 formats)" = folded
'

test_expect_success 'garbage named as each format' '
	for f in $(cat formats); do
		tracker flame --format $f garbage.bin -o out.svg 2>err.$f
		rc=$? && test $rc = 65 || { echo "$f: exit $rc"; return 1; }
		grep -q "garbage.bin" err.$f || { cat err.$f; return 1; }
	done
'

test_expect_success 'binary data with a line that looks folded is not folded' '
	printf "main;a;b 3\n\001\000\377\376 7\nmain;c 1\n" >nul.bin &&
	test_expect_code 65 tracker flame --format folded nul.bin -o out.svg 2>err &&
	grep "nul.bin.* line 2 holds a NUL byte" err &&
	! test -e out.svg
'

test_expect_success 'truncated gzip names the byte offset' '
	printf "main;a;b 3\nmain;c 1\n" | gzip -c >whole.gz &&
	head -c 20 whole.gz >cut.gz &&
	test_expect_code 65 tracker flame cut.gz -o out.svg 2>err &&
	grep "cut.gz" err &&
	grep -i "truncated\|byte" err
'

test_expect_success 'truncated protobuf names the byte offset' '
	cp "$FIXTURES/pprof/heap.pb" whole.pb &&
	head -c $(( $(wc -c <whole.pb) / 2 )) whole.pb >cut.pb &&
	test_expect_code 65 tracker flame --format pprof cut.pb -o out.svg 2>err &&
	grep "cut.pb" err &&
	grep -i "offset\|byte" err
'

test_expect_success 'a pprof sample that is not a message (found by fuzzing)' '
	test_expect_code 65 tracker flame --format pprof \
		"$FIXTURES/bad/pprof-sample-not-a-message.pb" -o out.svg 2>err &&
	grep "pprof-sample-not-a-message.pb. at byte" err
'

# damage SRC DST KIND: a damaged copy of a 64-bit little-endian legacy
# CPU profile (the first record at byte 40: count, depth, pcs)
damage() {
	python3 - "$@" <<-\PY
	import struct, sys
	src, dst, kind = sys.argv[1:]
	b = bytearray(open(src, "rb").read())
	depth = struct.unpack_from("<Q", b, 48)[0]
	if kind == "cut":
	    b = b[:203]
	elif kind == "huge-depth":
	    struct.pack_into("<Q", b, 48, 1 << 60)
	elif kind == "wrong-depth":
	    struct.pack_into("<Q", b, 48, depth + 1)
	elif kind == "bad-maps":
	    at = b.index(b"\n", b.index(b"r-xp")) + 1
	    b[at:at] = b"\x7fELF garbage\n"
	open(dst, "wb").write(b)
	PY
}

# bad_cpu FILE: each damaged copy of FILE exits 65 naming itself and the
# byte offset
bad_cpu() {
	for kind in cut huge-depth wrong-depth bad-maps; do
		damage "$1" $kind.prof $kind &&
		tracker flame $kind.prof -o out.folded 2>err.$kind
		code=$?
		test $code = 65 || { echo "$kind: exit $code"; cat err.$kind; return 1; }
		grep -q "$kind.prof. byte offset [0-9]" err.$kind ||
		{ cat err.$kind; return 1; }
	done &&
	grep -q "cut short" err.cut &&
	grep -q "depth 1152921504606846976, more than" err.huge-depth &&
	grep -q "line 2 of the memory map is not a /proc/self/maps line" err.bad-maps
}

test_expect_success 'damaged legacy gperftools CPU profiles: exit 65 at a byte offset' '
	bad_cpu "$FIXTURES/gperftools-cpu/small-64le.prof"
'

test_expect_success SHARED 'damaged copies of the real legacy CPU profile: exit 65 at a byte offset' '
	bad_cpu "$SHARED_DIRECTORY/real-data/pprof/pprof_cppbench.cpu.legacy"
'

test_expect_success 'JSON nested 100000 deep' '
	awk "BEGIN { printf \"{\\\"shared\\\":{\\\"frames\\\":\"; for (i = 0; i < 100000; i++) printf \"[\"; for (i = 0; i < 100000; i++) printf \"]\"; print \"}}\" }" >deep.json &&
	test_expect_code 65 tracker flame --format speedscope deep.json -o out.svg 2>err &&
	grep "deep.json" err
'

test_expect_success 'a 100 MB line is refused by its number, not read whole' '
	awk "BEGIN { printf \"main;\"; for (i = 0; i < 1600000; i++) printf \"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01\"; print \" 1\" }" >long.folded &&
	test_expect_code 65 tracker flame --format folded long.folded -o out.svg 2>err &&
	grep "long.folded. line 1 is longer than" err &&
	test_expect_code 65 tracker flame long.folded -o out.svg 2>err &&
	grep "cannot tell the profile format of .long.folded." err
'

test_expect_success 'an empty file' '
	: >empty.folded &&
	test_expect_code 65 tracker flame empty.folded -o out.svg 2>err &&
	grep "empty.folded" err
'

test_expect_success 'a missing file is unavailable (69), not bad data' '
	test_expect_code 69 tracker flame no-such-file.folded -o out.svg
'

test_done
