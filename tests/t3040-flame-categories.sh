#!/bin/sh
# Frame categories: a Julia ProfileCanvas page's runtime dispatch, GC,
# compilation and task frames keep their category through import, the
# store (database and record files), flame and diff; the pictures colour
# them (dispatch red, GC orange, compilation purple, task green, the
# rest pale blue-grey) with a legend; --category filters the text tables
# and "What changed"; perf's _[k] and _[j] are categories too.

. "$(dirname "$0")/test-lib.sh"

PAGE="$FIXTURES/profilecanvas/julia.html"
PY=/usr/bin/python3
[ -x "$PY" ] && "$PY" -c "import PIL" 2>/dev/null && test_set_prereq PIL

# fill NAME FILE.svg: the fill of the frame whose title starts with NAME
fill() {
	grep -A2 "<title>$1 (" "$2" | grep -o 'fill="rgb([0-9,]*)"' | head -1
}

test_expect_success 'known answer: the default SVG of a Julia page colours each category' '
	tracker flame "$PAGE" -o j.svg &&
	test "$(fill "jl_apply_generic (gf.c:2940)" j.svg)" = "fill=\"rgb(226,64,64)\"" &&
	test "$(fill "jl_gc_collect (gc.c:3378)" j.svg)" = "fill=\"rgb(247,163,30)\"" &&
	test "$(fill "gc_sweep (gc.c:2630)" j.svg)" = "fill=\"rgb(247,163,30)\"" &&
	test "$(fill "typeinf_ext_toplevel (typeinfer.jl:1078)" j.svg)" = "fill=\"rgb(156,108,214)\"" &&
	test "$(fill "wait (task.jl:931)" j.svg)" = "fill=\"rgb(82,168,92)\"" &&
	fill "materialize! (broadcast.jl:903)" j.svg >plain &&
	# the pale blue-grey of uncategorised frames: r 176-216, g 190-224, b 212-242
	grep -E "fill=\"rgb\((1[7-9][0-9]|2[01][0-9]),(19[0-9]|2[0-2][0-9]),2[1-4][0-9]\)\"" plain
'

test_expect_success 'the legend names the categories the profile has, in order' '
	grep -o "<text class=\"legend\"[^>]*>[^<]*" j.svg | sed "s/.*>//" >legend &&
	printf "runtime dispatch\nGC\ncompilation\ntask\n" >expect &&
	test_cmp expect legend &&
	tracker flame "$PAGE" -o j.html &&
	grep -q "\"legend\":\[\[\"runtime dispatch\",14827584\],\[\"GC\",16229150\]" j.html
'

test_expect_success '--no-categories colours by the palette, with no legend' '
	tracker flame --no-categories "$PAGE" -o n.svg &&
	! grep -q "class=\"legend\"" n.svg &&
	! grep -q "rgb(247,163,30)" n.svg
'

test_expect_success 'a profile without categories is drawn as before' '
	printf "main;jl_gc_collect 3\nmain;work 5\n" >plain.folded &&
	tracker flame plain.folded -o p.svg &&
	tracker flame --no-categories plain.folded -o p2.svg &&
	test_cmp p.svg p2.svg &&
	! grep -q "class=\"legend\"" p.svg
'

test_expect_success PIL 'the PNG has the category colours and a legend line' '
	tracker flame "$PAGE" -o j.png &&
	"$PY" -c "
import sys
from PIL import Image
im = Image.open(\"j.png\").convert(\"RGB\")
px = list(im.getdata())
for want in [(226, 64, 64), (247, 163, 30), (156, 108, 214), (82, 168, 92)]:
    n = px.count(want)
    assert n > 100, (want, n)
"
'

test_expect_success 'flame --category gc: the text table of GC frames only' '
	tracker flame --category gc "$PAGE" -o gc.txt &&
	grep "^only frames of category" gc.txt >line &&
	echo "only frames of category GC: 140 self (14.00%) in 3 functions" >expect &&
	test_cmp expect line &&
	sed -n "/by total/,\$p" gc.txt | tail -n +3 | sed "s/.*%  //" >names &&
	printf "jl_gc_collect (gc.c:3378)\ngc_sweep (gc.c:2630)\ngc_mark_loop (gc.c:2630)\n" >expect &&
	test_cmp expect names &&
	test_expect_code 2 tracker flame --category gc "$PAGE" -o gc.svg &&
	test_expect_code 2 tracker flame --category nonesuch "$PAGE" -o gc.txt
'

test_expect_success 'perf annotations: --category kernel and jit' '
	printf "java;Interpreter_[j];write_[k];sys_write_[k] 5\njava;Interpreter_[j] 3\njava;main 2\n" >perf.folded &&
	tracker flame --category kernel perf.folded -o k.txt &&
	grep "only frames of category kernel: 5 self (50.00%) in 2 functions" k.txt &&
	tracker flame --category jit perf.folded -o jt.txt &&
	grep "only frames of category JIT: 3 self (30.00%) in 1 functions" jt.txt
'

test_expect_success SQLITE3 'stored: categories survive the database and the record file' '
	tracker run -q --key amip --db h.db --artifacts arts --profile-file "$PAGE" -- true &&
	tracker flame --key amip --db h.db -o s.svg &&
	test "$(fill "jl_gc_collect (gc.c:3378)" s.svg)" = "fill=\"rgb(247,163,30)\"" &&
	grep -q "class=\"legend\"" s.svg &&
	tracker push --db h2.db arts/*.json &&
	tracker flame --key amip --db h2.db -o s2.svg &&
	test_cmp s.svg s2.svg
'

test_expect_success 'diff --category gc: What changed in the collector only' '
	sed "s/\"func\":\"gc_mark_loop\",\"file\":\"gc.c\",\"path\":\"\/home\/user\/src\/gc.c\",\"line\":2630,\"count\":40/\"func\":\"gc_mark_loop\",\"file\":\"gc.c\",\"path\":\"\/home\/user\/src\/gc.c\",\"line\":2630,\"count\":120/; s/\"func\":\"materialize!\",\"file\":\"broadcast.jl\",\"path\":\"\/home\/user\/src\/broadcast.jl\",\"line\":903,\"count\":300/\"func\":\"materialize!\",\"file\":\"broadcast.jl\",\"path\":\"\/home\/user\/src\/broadcast.jl\",\"line\":903,\"count\":400/" \
		"$PAGE" >new.html &&
	tracker diff "$PAGE" new.html -o all.txt &&
	grep "materialize!" all.txt &&
	tracker diff --category gc "$PAGE" new.html -o gc-diff.txt &&
	grep "^view: changes of GC frames only$" gc-diff.txt &&
	grep "+80 .*gc_mark_loop (gc.c:2630)" gc-diff.txt &&
	! grep "materialize!" gc-diff.txt &&
	tracker diff --category gc "$PAGE" new.html -o gc-diff.html &&
	grep -q "changes of GC frames only" gc-diff.html &&
	tracker diff "$PAGE" new.html -o all-diff.html &&
	"$PY" -c "
import re, sys
def changed(f):
    return re.search(r\"<details.*?</details>\", open(f, encoding=\"utf-8\").read(), re.S).group(0)
assert \"materialize!\" in changed(\"all-diff.html\")
assert \"materialize!\" not in changed(\"gc-diff.html\")
assert \"gc_mark_loop\" in changed(\"gc-diff.html\")
"
'

test_expect_success 'diff pictures outline the categories in their colours, with the legend' '
	tracker diff "$PAGE" new.html -o d.svg &&
	grep "<title>gc_mark_loop (gc.c:2630)" d.svg | grep -q "stroke=\"rgb(247,163,30)\"" &&
	grep "<title>jl_apply_generic (gf.c:2940)" d.svg | grep -q "stroke=\"rgb(226,64,64)\"" &&
	! grep "<title>materialize! (broadcast.jl:903)" d.svg | grep -q "stroke=" &&
	grep -c "<rect class=\"category\"" d.svg >n && test "$(cat n)" = 4 &&
	tracker diff "$PAGE" new.html -o d.html &&
	grep -q "\"catcol\":\[" d.html &&
	test $(grep -o "<span class=\"category\">" d.html | wc -l) = 4 &&
	tracker diff --no-categories "$PAGE" new.html -o dn.svg &&
	! grep -q "stroke=\"rgb(247,163,30)\"" dn.svg
'

test_expect_success PIL 'the diff PNG and the HTML page as drawn show the outlines' '
	tracker diff "$PAGE" new.html -o d.png &&
	"$PY" -c "
from PIL import Image
px = list(Image.open(\"d.png\").convert(\"RGB\").getdata())
for want in [(226, 64, 64), (247, 163, 30), (156, 108, 214), (82, 168, 92)]:
    assert px.count(want) > 50, (want, px.count(want))
" &&
	if [ -x "${CHROMIUM:-/usr/bin/chromium}" ]; then
		"${CHROMIUM:-/usr/bin/chromium}" --headless --no-sandbox --disable-gpu \
			--screenshot="$TRASH_DIRECTORY/shot.png" --window-size=1280,600 \
			"file://$TRASH_DIRECTORY/d.html" 2>/dev/null &&
		"$PY" -c "
from PIL import Image
px = list(Image.open(\"shot.png\").convert(\"RGB\").getdata())
n = sum(1 for p in px if abs(p[0] - 247) < 6 and abs(p[1] - 163) < 6 and abs(p[2] - 30) < 6)
assert n > 100, n
"
	fi
'

test_done
