#!/bin/sh
# tracker flame FILE -o OUT.svg: well-formed interactive SVG for every
# folded fixture and the real data; hostile names stay inert; colours are
# stable across graphs; --inverted, --reverse, --minwidth; exit codes.

. "$(dirname "$0")/test-lib.sh"

FOLDED="$FIXTURES/folded"

# The fill of the first frame whose title starts with NAME.
fill_of() {
	grep -F "<title>$2 (" "$1" | head -n 1 | sed 's/.*fill="\([^"]*\)".*/\1/'
}

# The y of the first frame whose title starts with NAME.
y_of() {
	grep -F "<title>$2 (" "$1" | head -n 1 | sed 's/.*<rect x="[^"]*" y="\([^"]*\)".*/\1/'
}

test_expect_success XMLLINT 'every folded fixture gives a well-formed SVG' '
	for f in "$FOLDED"/*.folded; do
		name=$(basename "$f" .folded) &&
		tracker flame "$f" -o "$name.svg" 2>err &&
		xmllint --noout "$name.svg" &&
		grep -q "<g class=\"func_g\"><title>all (" "$name.svg" || {
			echo "failed on $f" >&2; cat err >&2; return 1; }
	done
'

test_expect_success SHARED,XMLLINT 'the real folded files give well-formed SVGs' '
	for f in "$SHARED_DIRECTORY"/real-data/folded/*.txt \
		 "$SHARED_DIRECTORY"/real-data/diff-folded-golden/after.txt; do
		tracker flame --format folded "$f" -o real.svg &&
		xmllint --noout real.svg || { echo "failed on $f" >&2; return 1; }
	done
'

test_expect_success 'the SVG has the interactive elements' '
	tracker flame "$FOLDED/simple.folded" -o s.svg &&
	for id in search unzoom matched details title frames ignorecase; do
		grep -q "id=\"$id\"" s.svg || { echo "no #$id" >&2; return 1; }
	done &&
	grep -q "onload=\"init(evt)\"" s.svg &&
	grep -q "<title>main (4.50 samples, 100.00%)</title>" s.svg
'

test_expect_success XMLLINT 'hostile names are escaped and the SVG stays well-formed' '
	tracker flame "$FOLDED/hostile.folded" -o h.svg &&
	xmllint --noout h.svg &&
	! grep -F "<script>alert" h.svg &&
	test $(grep -c -F "</script>" h.svg) = 1 &&
	test $(grep -c -F "]]>" h.svg) = 1 &&
	test $(grep -c -F "<![CDATA[" h.svg) = 1 &&
	! grep -F "<!-- comment" h.svg &&
	! grep -F "<?xml version=\"1.0\"?>" h.svg &&
	grep -F "&lt;script&gt;alert(1)&lt;/script&gt;" h.svg &&
	grep -F "]]&gt;&lt;![CDATA[evil" h.svg &&
	grep -F "fish &amp;amp chips &amp;lt" h.svg &&
	grep -F "say \"hi\" '"'"'there'"'"'" h.svg
'

test_expect_success 'invalid UTF-8 and control bytes as \\xNN, as the terminal shows them' '
	tracker flame "$FOLDED/hostile.folded" -o h.svg &&
	tracker flame "$FOLDED/hostile.folded" -o h.txt &&
	iconv -f UTF-8 -t UTF-8 h.svg >/dev/null &&
	! LC_ALL=C grep -q "$(printf "\001")" h.svg &&
	! LC_ALL=C grep -q "$(printf "\357\277\275")" h.svg &&
	for shown in "bad\\xff\\xfeutf8" "ov\\xc0\\xaferlong" "sur\\xed\\xa0\\x80rogate" \
		"ctrl\\x01\\x1bchar"; do
		grep -qF "<title>$shown (" h.svg &&
		grep -qF "$shown" h.txt || return 1
	done
'

test_expect_success XMLLINT 'a 100 KB name is drawn whole in its title and cut in its label' '
	name=$(awk "BEGIN { while (i++ < 25000) printf \"<&x>\" }") &&
	printf "main;%s 5\nmain;other 1\n" "$name" >long.folded &&
	tracker flame long.folded -o long.svg &&
	xmllint --noout long.svg &&
	grep -c "&lt;&amp;x&gt;" long.svg >/dev/null &&
	awk "length > 300000" long.svg | grep -q "<title>" &&
	grep -q "\.\.</text>" long.svg
'

test_expect_success 'the same name gets the same colour in different graphs' '
	printf "main;shared_fn;a 3\nmain;b 9\n" >one.folded &&
	printf "root;x;y;shared_fn 1\nroot;z 40\n" >two.folded &&
	tracker flame one.folded -o one.svg &&
	tracker flame two.folded -o two.svg &&
	test -n "$(fill_of one.svg shared_fn)" &&
	test "$(fill_of one.svg shared_fn)" = "$(fill_of two.svg shared_fn)"
'

test_expect_success 'colours are flamegraph.pl'"'"'s for the hot palette' '
	tracker flame "$FOLDED/simple.folded" -o s.svg &&
	test "$(fill_of s.svg main)" = "rgb(243,179,42)" &&
	test "$(fill_of s.svg a)" = "rgb(236,146,35)"
'

test_expect_success 'palettes change colours and background; unknown ones are refused' '
	tracker flame --palette mem "$FOLDED/simple.folded" -o mem.svg &&
	tracker flame --palette java "$FOLDED/simple.folded" -o java.svg &&
	test "$(fill_of mem.svg main)" != "$(fill_of s.svg main)" &&
	fill_of mem.svg main | grep "^rgb(0," &&
	grep -q "#e0ffe0" mem.svg &&
	test_expect_code 2 tracker flame --palette nope "$FOLDED/simple.folded" -o x.svg 2>err &&
	grep "unknown palette" err
'

test_expect_success '--inverted puts the root at the top and says (icicle)' '
	tracker flame "$FOLDED/simple.folded" -o flame.svg &&
	tracker flame --inverted "$FOLDED/simple.folded" -o icicle.svg &&
	grep -q ">Profile — 4.5 samples (icicle)</text>" icicle.svg &&
	test_within "$(y_of flame.svg all)" 80 200 &&
	test_within "$(y_of icicle.svg all)" 0 50 &&
	awk -v a="$(y_of icicle.svg all)" -v b="$(y_of icicle.svg b)" "BEGIN { exit !(a < b) }" &&
	awk -v a="$(y_of flame.svg all)" -v b="$(y_of flame.svg b)" "BEGIN { exit !(a > b) }"
'

test_expect_success '--reverse merges stacks by their leaf' '
	printf "main;a;leaf 3\nmain;b;leaf 2\nmain;c 1\n" >r.folded &&
	tracker flame r.folded -o fwd.svg &&
	tracker flame --reverse r.folded -o rev.svg &&
	test $(grep -c -F "<title>leaf (" fwd.svg) = 2 &&
	test $(grep -c -F "<title>leaf (" rev.svg) = 1 &&
	grep -F "<title>leaf (5 samples," rev.svg &&
	grep -F "<title>main (3 samples," rev.svg
'

test_expect_success '--minwidth prunes narrow frames (pixels or percent)' '
	tracker flame --minwidth 0 "$FOLDED/siblings.folded" -o all.svg &&
	tracker flame "$FOLDED/siblings.folded" -o default.svg &&
	tracker flame --minwidth 1% "$FOLDED/siblings.folded" -o pct.svg &&
	a=$(grep -c func_g all.svg) && d=$(grep -c func_g default.svg) &&
	p=$(grep -c func_g pct.svg) &&
	test $a -gt $d && test $d -gt $p &&
	test_expect_code 2 tracker flame --minwidth abc "$FOLDED/simple.folded" -o x.svg
'

test_expect_success 'title, subtitle and --count-name are escaped into the SVG' '
	tracker flame --title "A <b> & B" --subtitle "sub <i>" --count-name "events" \
		"$FOLDED/simple.folded" -o t.svg &&
	grep -F ">A &lt;b&gt; &amp; B</text>" t.svg &&
	grep -F "id=\"subtitle\"" t.svg &&
	grep -F ">Profile — 4.5 events · sub &lt;i&gt;</text>" t.svg &&
	grep -F "<title>main (4.50 events, 100.00%)" t.svg
'

test_expect_success '-o - writes the SVG to standard output' '
	tracker flame "$FOLDED/simple.folded" -o - >out.svg &&
	head -n 1 out.svg | grep -q "^<?xml" &&
	tail -n 1 out.svg | grep -q "</svg>"
'

test_expect_success 'plain and gzip input, from a file and through a pipe, read alike' '
	printf "main;a;x 3\nmain;b 2\n" >in.folded &&
	gzip -c in.folded >in.folded.gz &&
	tracker flame in.folded -o file.folded &&
	tracker flame in.folded.gz -o gz.folded &&
	tracker flame /dev/stdin -o pipe.folded <in.folded &&
	gzip -c in.folded | tracker flame /dev/stdin -o gzpipe.folded &&
	printf "main;a;x 3\nmain;b 2\n" >expect &&
	test_cmp expect file.folded &&
	test_cmp expect gz.folded &&
	test_cmp expect pipe.folded &&
	test_cmp expect gzpipe.folded
'

test_expect_success 'the output is replaced atomically, leaving no temporary file' '
	tracker flame "$FOLDED/simple.folded" -o atomic.svg &&
	tracker flame "$FOLDED/unicode.folded" -o atomic.svg &&
	grep -q "naïve_sort" atomic.svg &&
	test -z "$(ls | grep "atomic.svg.tmp")"
'

test_expect_success 'an unknown output extension is a usage error listing the known ones' '
	test_expect_code 2 tracker flame "$FOLDED/simple.folded" -o out.bmp 2>err &&
	grep "out.bmp" err && grep "\.svg" err &&
	test ! -e out.bmp
'

test_expect_success 'usage errors: no FILE, no -o, two files, unknown option' '
	test_expect_code 2 tracker flame -o x.svg &&
	test_expect_code 2 tracker flame "$FOLDED/simple.folded" &&
	test_expect_code 2 tracker flame a b -o x.svg &&
	test_expect_code 2 tracker flame --bogus "$FOLDED/simple.folded" -o x.svg
'

test_expect_success 'bad input exits 65 naming the file and line' '
	awk "BEGIN { printf \"ok;x 1\nmain\"; for (i = 0; i < 70000; i++) printf \";f\"; print \" 1\" }" >deep.folded &&
	test_expect_code 65 tracker flame deep.folded -o x.svg 2>err &&
	grep "deep.folded.* line 2" err &&
	printf "no count here\nnor here\n" >nocount.folded &&
	test_expect_code 65 tracker flame --format folded nocount.folded -o x.svg 2>err &&
	grep "nocount.folded" err && grep "line 1" err &&
	head -c 4096 /dev/urandom >garbage.bin &&
	test_expect_code 65 tracker flame garbage.bin -o x.svg 2>err &&
	grep "garbage.bin" err &&
	test ! -e x.svg
'

test_expect_success 'a profile with no weight is bad input' '
	printf "a;b 0\n" >zero.folded &&
	test_expect_code 65 tracker flame zero.folded -o x.svg 2>err &&
	grep "zero.folded" err
'

test_expect_success 'an unreadable input or unwritable output exits 69' '
	test_expect_code 69 tracker flame missing.folded -o x.svg 2>err &&
	grep "missing.folded" err &&
	test_expect_code 69 tracker flame "$FOLDED/simple.folded" -o no/such/dir/x.svg 2>err &&
	grep "no/such/dir/x.svg" err
'

test_expect_success 'skipped lines are reported as a warning' '
	printf "a;b 1\nnot a stack\n" >warn.folded &&
	tracker flame warn.folded -o w.svg 2>err &&
	grep "warning:.*skipped 1 line.*line 2" err
'

test_expect_success 'perf script: --pid and --tid add a root frame per process or thread' '
	tracker flame "$FIXTURES/perf/mixed.perf-script" -o plain.folded &&
	tracker flame --pid "$FIXTURES/perf/mixed.perf-script" -o pid.folded &&
	tracker flame --tid "$FIXTURES/perf/mixed.perf-script" -o tid.folded &&
	grep -q "^app;__libc_start_main;main;compute " plain.folded &&
	grep -q "^app-100;__libc_start_main;main;compute " pid.folded &&
	grep -q "^app-100/101;__libc_start_main;main;compute " tid.folded
'

test_done
