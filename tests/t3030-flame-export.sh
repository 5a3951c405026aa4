#!/bin/sh
# Exports that open in the tools people already use: tracker flame -o
# FILE.pb.gz (pprof) and -o FILE.speedscope.json, tracker diff -o
# FILE.pb.gz (the pair pprof -diff_base compares), read back by the real
# tools: pprof built from Debian's sources (ci/build-pprof.sh; PPROF=path
# picks another) and speedscope's own importer from its npm package
# (tests/browser, in Debian's chromium). Round trips give the same
# folded stacks. Under CI both must run.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"
ARTIFACTS="$TEST_DIRECTORY/artifacts/t3030"

# pprof: $PPROF, else the one ci/build-pprof.sh built or builds now.
pprof=${PPROF:-}
if [ -z "$pprof" ]; then
	pprof=$("$TRACKER_ROOT/ci/build-pprof.sh" 2>"$TRASH_DIRECTORY/pprof-build.err") || pprof=
fi
[ -n "$pprof" ] && [ -x "$pprof" ] && test_set_prereq PPROF
speedscope_missing=$(browser_missing)
[ -z "$speedscope_missing" ] &&
	! [ -f "$BROWSER_DIR/node_modules/speedscope/dist/release/index.html" ] &&
	speedscope_missing='tests/browser/node_modules/speedscope is missing (make browser-deps)'
[ -z "$speedscope_missing" ] && test_set_prereq SPEEDSCOPE

if [ "$TEST_UNDER_CI" = true ]; then
	test_expect_success 'under CI, pprof and speedscope are there to check the exports' '
		test -n "$pprof" || { cat pprof-build.err; false; } &&
		test -z "$speedscope_missing" || { echo "$speedscope_missing"; false; }
	'
fi

# A Julia-and-C++ profile: names with spaces, parentheses, templates,
# quotes, backslashes and non-ASCII letters; a recursion; weights of
# real sample counts.
cat >"$TRASH_DIRECTORY/prof.folded" <<'PROF'
julia_main;eval (REPL.jl:150);#solve!#12 (solver.jl:40);step! (solver.jl:88) 61
julia_main;eval (REPL.jl:150);#solve!#12 (solver.jl:40);jl_gc_collect 17
julia_main;eval (REPL.jl:150);std::vector<double, std::allocator<double> >::push_back(double const&) 9
julia_main;walk;walk;walk 12
julia_main;io "quoted" \path;write_ü 4
julia_main 3
PROF

test_expect_success 'flame -o .pb.gz reads back as the same stacks' '
	tracker flame prof.folded -o p.pb.gz &&
	gzip -t p.pb.gz &&
	tracker flame p.pb.gz -o back.folded &&
	sort prof.folded >expect &&
	test_cmp expect back.folded
'

test_expect_success 'flame -o .speedscope.json reads back as the same stacks' '
	tracker flame prof.folded -o s.speedscope.json &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"profiles\"][0][\"type\"] == \"sampled\"" s.speedscope.json &&
	tracker flame s.speedscope.json -o back.folded &&
	test_cmp expect back.folded
'

test_expect_success 'units survive: nanoseconds and bytes' '
	tracker flame --sample-type cpu "$FIXTURES/pprof/cpu.pb.gz" -o ns.txt &&
	tracker flame --sample-type cpu "$FIXTURES/pprof/cpu.pb.gz" -o ns.pb.gz &&
	tracker flame ns.pb.gz -o ns-back.txt &&
	test_cmp ns.txt ns-back.txt &&
	tracker flame --sample-type alloc_space "$FIXTURES/pprof/heap.pb" -o b.speedscope.json &&
	grep "\"unit\":\"bytes\"" b.speedscope.json &&
	tracker flame --sample-type alloc_space "$FIXTURES/pprof/heap.pb" -o b.pb.gz &&
	tracker flame --sample-type alloc_space "$FIXTURES/pprof/heap.pb" -o b.txt &&
	tracker flame b.pb.gz -o b-back.txt &&
	# the headline of a file names its kind only when told (--sample-type
	# alloc_space: "Allocated bytes"; read back: "Bytes"); the rest is equal
	tail -n +2 b.txt >b.rest && tail -n +2 b-back.txt >b-back.rest &&
	test_cmp b.rest b-back.rest &&
	grep "^Bytes — 68.5 KiB$" b-back.txt
'

test_expect_success PPROF 'pprof reads the export: its types, totals and stacks' '
	"$pprof" -raw p.pb.gz >raw &&
	grep "^samples/count" raw &&
	"$pprof" -top -nodecount=3 p.pb.gz >top &&
	grep "of 106 total" top &&
	grep " 61 .* step! (solver.jl:88)$" top &&
	"$pprof" -top ns.pb.gz >nstop &&
	grep "^Type: cpu" nstop &&
	"$pprof" -top b.pb.gz >btop &&
	grep "^Type: alloc_space" btop
'

test_expect_success PPROF 'round trip through pprof: tracker -> pprof -proto -> tracker' '
	"$pprof" -proto p.pb.gz >q.pb.gz &&
	tracker flame q.pb.gz -o q.folded &&
	test_cmp expect q.folded
'

test_expect_success PPROF 'diff -o .pb.gz writes the pair pprof -diff_base compares' '
	printf "main;solve;step 50\nmain;gc 20\nmain;io 10\n" >base.folded &&
	printf "main;solve;step 80\nmain;gc 5\nmain;io 10\nmain;new 7\n" >new.folded &&
	tracker diff base.folded new.folded -o d.pb.gz &&
	tracker flame d.base.pb.gz -o db.folded &&
	sort base.folded >expect-base &&
	test_cmp expect-base db.folded &&
	tracker flame d.pb.gz -o dn.folded &&
	sort new.folded >expect-new &&
	test_cmp expect-new dn.folded &&
	"$pprof" -top -diff_base d.base.pb.gz d.pb.gz >dtop &&
	grep "^ *30 .* step$" dtop &&
	grep "^ *-15 .* gc$" dtop &&
	grep "^ *7 .* new$" dtop
'

test_expect_success 'the pair is what the diff compares: transformed, normalized, rounded' '
	# the baseline scaled by 102/80: step 63.75, main 25.5 (gc hidden into it)
	tracker diff --normalize total --hide "^gc$" base.folded new.folded -o n.pb.gz &&
	tracker diff n.base.pb.gz n.pb.gz -o n.folded &&
	grep "^main;solve;step 64 80$" n.folded &&
	grep "^main 26 5$" n.folded &&
	! grep gc n.folded
'

test_expect_success SPEEDSCOPE 'round trip through speedscope'"'"'s importer: its own export reads back the same' '
	cp p.pb.gz sp.pb.gz &&
	node "$BROWSER_DIR/speedscope.test.mjs" --artifacts "$ARTIFACTS" \
		s.speedscope.json sp.pb.gz >browser.out 2>&1 || { cat browser.out; false; } &&
	result "speedscope s.speedscope.json" &&
	result "speedscope sp.pb.gz" &&
	grep "\"exporter\":\"speedscope@" s.speedscope.json.back.speedscope.json &&
	tracker flame s.speedscope.json.back.speedscope.json -o ss.folded &&
	test_cmp expect ss.folded &&
	tracker flame sp.pb.gz.back.speedscope.json -o sp.folded &&
	test_cmp expect sp.folded
'

test_expect_success 'hostile names: pprof keeps every byte, speedscope stays valid JSON' '
	{
		echo "main;</script><script>alert(1)</script> 3"
		echo "main;\\x3b semicolon and \\x0a newline 2"
		printf "main;bad\\377\\376utf8 1\\n"
		printf "main;line\\342\\200\\250sep 1\\n"
		printf "main;%s 1\\n" "$(head -c 100000 /dev/zero | tr "\\0" A)"
	} >hostile.folded &&
	tracker flame hostile.folded -o hostile-in.folded &&
	tracker flame hostile.folded -o h.pb.gz &&
	tracker flame h.pb.gz -o h.folded &&
	test_cmp hostile-in.folded h.folded &&
	tracker flame hostile.folded -o h.speedscope.json &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); names=[f[\"name\"] for f in d[\"shared\"][\"frames\"]]; assert \"</script><script>alert(1)</script>\" in names; assert \"bad\\ufffd\\ufffdutf8\" in names, names[:4]" h.speedscope.json &&
	tracker flame h.speedscope.json -o hs.folded &&
	test $(wc -l <hs.folded) = 5
'

test_expect_success SQLITE3 'a stored profile exports the same way' '
	tracker run -q --key k --db h.db --artifacts arts --profile-file prof.folded -- true &&
	tracker flame --key k --db h.db -o k.pb.gz &&
	tracker flame k.pb.gz -o k.folded &&
	test_cmp expect k.folded
'

test_done
