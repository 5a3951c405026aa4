#!/bin/sh
# Every real profile under $SHARED_DIRECTORY/real-data imports with
# `tracker flame FILE -o out.folded` (format found by content probing),
# and the files that are not profiles (pprof's decoded .string goldens) fail
# cleanly with exit 65.
# Skips when ../shared is absent (the data is never copied into the repo).

. "$(dirname "$0")/test-lib.sh"

REAL="$SHARED_DIRECTORY/real-data"

# imports FILE: exit 0 and a non-empty folded output
imports() {
	rm -f out.folded &&
	tracker flame "$1" -o out.folded 2>err &&
	test -s out.folded ||
	{ echo "failed on $1:"; cat err; return 1; }
}

# imports or fails cleanly (exit 0 with output, or 65 with a message)
imports_or_65() {
	rm -f out.folded
	tracker flame "$1" -o out.folded 2>err
	code=$?
	case $code in
	0) test -s out.folded ;;
	65) grep -q "$(basename "$1")" err ;;
	*) echo "exit $code on $1:"; cat err; return 1 ;;
	esac
}

for dir in perf-script folded speedscope-json v8-cpuprofile; do
	test_expect_success SHARED "every $dir file imports" "
		for f in \"$REAL/$dir\"/*; do imports \"\$f\" || return 1; done
	"
done

test_expect_success SHARED 'the pprof protobuf imports with Go frame names' '
	imports "$REAL/pprof/speedscope_simple.prof" &&
	grep -q "^runtime.main;main.main;main.alpha 260000000$" out.folded
'

test_expect_success SHARED 'legacy gperftools pprof files import or fail cleanly' '
	for f in "$REAL"/pprof/pprof_cppbench.*; do imports_or_65 "$f" || return 1; done
'

# The folded stacks pprof's decoded text (.string) describes: each
# location named "file+0xoffset" from its mapping, callers already moved
# back one byte by pprof, weights in cpu/nanoseconds.
golden_folded() {
	python3 - "$1" <<-\PY
	import re, sys, collections
	sec, samples, locs, maps = None, [], {}, {}
	for line in open(sys.argv[1]):
	    line = line.rstrip("\n")
	    if line in ("Samples:", "Locations", "Mappings"):
	        sec = line
	        continue
	    if sec == "Samples:":
	        m = re.match(r"\s*(\d+)\s+(\d+):((?:\s+\d+)*)\s*$", line)
	        if m:
	            samples.append((int(m.group(2)), m.group(3).split()))
	    elif sec == "Locations":
	        m = re.match(r"\s*(\d+): (0x[0-9a-f]+) M=(\d+)", line)
	        locs[m.group(1)] = (int(m.group(2), 16), m.group(3))
	    elif sec == "Mappings":
	        m = re.match(r"(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (\S+)", line)
	        maps[m.group(1)] = (int(m.group(2), 16), int(m.group(4), 16), m.group(5).split("/")[-1])
	out = collections.Counter()
	for ns, ids in samples:
	    names = []
	    for i in reversed(ids):
	        addr, mid = locs[i]
	        start, off, f = maps[mid]
	        names.append("%s+0x%x" % (f, addr - start + off))
	    out[";".join(names)] += ns
	for k in sorted(out):
	    print(k, out[k])
	PY
}

test_expect_success SHARED "the legacy gperftools CPU profile: the stacks and times pprof decodes (712 samples of 10 ms)" '
	golden_folded "$REAL/pprof/pprof_cppbench.cpu.string" >expect &&
	test $(wc -l <expect) -gt 40 &&
	tracker flame "$REAL/pprof/pprof_cppbench.cpu.legacy" -o out.folded 2>err &&
	sort out.folded >got &&
	test_cmp expect got &&
	awk "{ t += \$NF } END { printf \"%.0f\\n\", t }" got >total &&
	echo 7120000000 >expect.total &&
	test_cmp expect.total total
'

test_expect_success SHARED 'dtrace stacks collapse exactly as stackcollapse.pl does' '
	for f in "$REAL"/dtrace/*; do
		imports "$f" &&
		test_cmp "$FIXTURES/dtrace/golden/$(basename "$f" .txt).folded" out.folded || return 1
	done
'

test_expect_success 'the dtrace fixture: offsets, C++ arguments, inlined and empty frames' '
	imports "$FIXTURES/dtrace/small.txt" &&
	sort "$FIXTURES/dtrace/small.expected" >expect &&
	test_cmp expect out.folded
'

test_expect_success SHARED 'the V8 profile has DevTools-style names' '
	imports "$REAL/v8-cpuprofile/speedscope_sucrase.cpuprofile" &&
	grep -q "^(garbage collector) [0-9]" out.folded &&
	grep -q "Module.runMain (module.js:680);" out.folded
'

test_expect_success 'fixtures: pprof, speedscope, cpuprofile, profilecanvas' '
	imports "$FIXTURES/pprof/cpu.pb.gz" &&
	grep -q "^main;handle;parse;read_line 30000000$" out.folded &&
	imports "$FIXTURES/speedscope/evented.speedscope.json" &&
	grep -q "^a;b;c (c.py:7) 5$" out.folded &&
	imports "$FIXTURES/cpuprofile/small.cpuprofile" &&
	grep -q "^(idle) 300000$" out.folded &&
	imports "$FIXTURES/profilecanvas/both.html" &&
	grep -q "^main (run.jl:1);Dict{Symbol, Any} 1024$" out.folded
'

test_expect_success 'profilecanvas: --kind picks the CPU or allocation tree' '
	tracker flame "$FIXTURES/profilecanvas/both.html" --kind cpu -o out.folded &&
	grep -q "^eval_user_input (REPL.jl:150);bar (bar.jl:3) 2$" out.folded &&
	tracker flame "$FIXTURES/profilecanvas/both.html" --kind alloc-count -o out.folded &&
	grep -q "^main (run.jl:1);Dict{Symbol, Any} 1$" out.folded
'

test_expect_success 'pprof: --sample-type picks the value' '
	tracker flame "$FIXTURES/pprof/heap.pb" --sample-type inuse_objects -o out.folded &&
	grep -q "^main.main;bytes.(\*Buffer).grow 1$" out.folded &&
	test_expect_code 2 tracker flame "$FIXTURES/pprof/heap.pb" --sample-type nope -o out.folded
'

test_expect_success 'hostile inputs exit 65 naming the place' '
	head -c 200 "$FIXTURES/pprof/cpu.pb.gz" >trunc.pb.gz &&
	test_expect_code 65 tracker flame trunc.pb.gz --format pprof -o out.folded 2>err &&
	grep -q "trunc.pb.gz" err &&
	awk "BEGIN { for (i = 0; i < 100000; i++) printf \"[\"; for (i = 0; i < 100000; i++) printf \"]\" }" >deep.json &&
	test_expect_code 65 tracker flame deep.json --format speedscope -o out.folded 2>err &&
	grep -q "deep.json.* line 1 column" err &&
	head -c 5000 /dev/urandom >garbage.bin &&
	test_expect_code 65 tracker flame garbage.bin --format cpuprofile -o out.folded
'

test_done
