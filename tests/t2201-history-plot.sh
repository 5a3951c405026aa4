#!/bin/sh
# tracker history --plot with default flags on a realistic history
# (tests/helpers/gen-history.py: 60 daily staging builds 100..159 whose
# walltime doubles from build 140, feature-x runs, build 105 failed, 107
# partial): every format is written and well-formed, the chart marks the
# change point at build 140 with its commit, draws the baseline band and
# highlights the newest run; PNG and PDF are read back as pixels (python3-pil,
# pdftoppm); the same database gives the same bytes; bad options are
# usage errors; a failed current run shows its red halo around the ringed dot
# (SVG and PNG).

. "$(dirname "$0")/test-lib.sh"

PY=/usr/bin/python3
if [ -x "$PY" ] && "$PY" -c "import PIL" 2>/dev/null && command -v pdftoppm >/dev/null; then
	test_set_prereq PICTURES
else
	say "pictures are not read back: ci/install-deps.sh test installs python3-pil and poppler-utils"
fi
[ -x "$PY" ] && test_set_prereq PYTHON3

test_expect_success PYTHON3 'a year of staging builds with a 2x walltime step at build 140' '
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" rec --step-at 140 &&
	tracker push --db h.db rec 2>err &&
	grep "66 stored" err
'

test_expect_success PYTHON3 'the plot in every format' '
	for f in png svg pdf html; do
		tracker history --db h.db --key amip --plot amip.$f || return 1
	done &&
	head -c 8 amip.png | od -c | grep -q "P   N   G" &&
	head -c 5 amip.pdf | grep -q "%PDF-" &&
	grep -q "<svg" amip.svg &&
	grep -q "<svg" amip.html
'

commit140=$(sed -n "s/.*\"commit\": \"\([0-9a-f]*\)\".*/\1/p" rec/0-140.json 2>/dev/null | head -c 8)

test_expect_success PYTHON3 'known answer: the change point is at build 140, with its commit' '
	test -n "$commit140" &&
	grep -o "change at #[0-9]* [0-9a-f]* [-+][0-9]*%" amip.svg >changes &&
	cat changes &&
	test $(wc -l <changes) = 1 &&
	grep -q "change at #140 $commit140 +[0-9]*%" changes &&
	pct=$(sed "s/.*+\([0-9]*\)%/\1/" changes) &&
	test "$pct" -ge 90 && test "$pct" -le 110 &&
	grep -q "change at #140 $commit140" amip.html
'

test_expect_success PYTHON3 'the SVG is well-formed and has both charts, the band and the current run' '
	"$PY" - amip.svg <<-\EOF
	import sys, xml.etree.ElementTree as ET
	ns = {"s": "http://www.w3.org/2000/svg"}
	root = ET.parse(sys.argv[1]).getroot()
	titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "title"]
	assert titles == ["amip \u2014 walltime (pipeline climacoupler-ci)",
	                  "amip \u2014 max RSS (largest process) (pipeline climacoupler-ci)"], titles
	paths = list(root.iter("{http://www.w3.org/2000/svg}path"))
	band = [p for p in paths if p.get("class") == "s-band" and p.get("fill") != "none"]
	assert len(band) == 2, "a band per chart"
	cur = [p for p in paths if p.get("class") == "s-current"]
	assert len(cur) == 4 and all(p.get("d").count("M") == 1 for p in cur), "one current run, ringed"
	base = [p for p in paths if p.get("class") == "s-base" and p.get("stroke-linecap")]
	assert base[0].get("d").count("M") == 59, "59 baseline runs"
	failed = [p for p in paths if p.get("class") == "s-failed"]
	assert len(failed) == 2 and failed[0].get("d").count("M") == 1, "one failed run per chart"
	legend = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
	for want in ("baseline staging (59)", "other branches (6)", "newest run", "failed (1)",
	             "partial (1)", "change points (1)"):
	    assert want in legend, want
	EOF
'

test_expect_success PYTHON3 'the current run stands right of the change point, the step up' '
	"$PY" - amip.svg <<-\EOF
	import re, sys
	svg = open(sys.argv[1]).read()
	cur = re.search(r"class=\"s-current\" stroke=\"#d4009b\"[^>]* d=\"M([0-9.]+) ([0-9.]+)h0", svg)
	chg = re.search(r"class=\"s-change\"[^>]* d=\"M([0-9.]+) ", svg)
	x, y, cx = float(cur.group(1)), float(cur.group(2)), float(chg.group(1))
	assert x > cx, (x, cx)
	# the y axis: 2x the early walltime is well above the early points
	early = re.search(r"class=\"s-base\" stroke=\"#1f77b4\"[^>]* d=\"M([0-9.]+) ([0-9.]+)h0", svg)
	assert y < float(early.group(2)) - 80, (y, early.group(2))
	EOF
'

# colours: baseline #1f77b4, current #d4009b, change points #6a3d9a
cat >colours.py <<'EOF'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
def count(rgb, box):
    n = 0
    for y in range(box[1], box[3]):
        for x in range(box[0], box[2]):
            p = im.getpixel((x, y))
            if max(abs(p[i] - rgb[i]) for i in range(3)) <= 40:
                n += 1
    return n
half = h // 2
print("size %d %d" % (w, h))
print("base %d" % count((0x1f, 0x77, 0xb4), (0, 0, w, half)))
print("current %d" % count((0xd4, 0x00, 0x9b), (w - 80, 0, w, half)))
print("current_left %d" % count((0xd4, 0x00, 0x9b), (100, 60, w // 2, half)))
print("change %d" % count((0x6a, 0x3d, 0x9a), (0, 0, w, half)))
print("white %d" % count((255, 255, 255), (0, 0, w, h)))
EOF

check_colours() {
	cat "$1" &&
	awk '
		$1 == "size" && ($2 != 1000 || $3 != 680) { print "size " $2 "x" $3; exit 1 }
		$1 == "base" && $2 < 100 { print "no baseline dots"; exit 1 }
		$1 == "current" && $2 < 30 { print "no current run at the right"; exit 1 }
		$1 == "current_left" && $2 > 0 { print "current colour elsewhere"; exit 1 }
		$1 == "change" && $2 < 40 { print "no change point line"; exit 1 }
		$1 == "white" && $2 < 300000 { print "not a white background"; exit 1 }
	' "$1"
}

test_expect_success PICTURES 'PNG: 1000x680, the series in their colours where they belong' '
	"$PY" colours.py amip.png >c.txt &&
	check_colours c.txt
'

test_expect_success PICTURES 'PDF: one page, the same picture' '
	pdfinfo amip.pdf >info &&
	grep -q "^Pages: *1$" info &&
	pdftoppm -r 72 -png -singlefile amip.pdf pdf &&
	"$PY" colours.py pdf.png >c.txt &&
	check_colours c.txt
'

test_expect_success PYTHON3 'the same database gives the same bytes, in every format' '
	for f in png svg pdf html; do
		tracker history --db h.db --key amip --plot again.$f &&
		cmp amip.$f again.$f || return 1
	done
'

test_expect_success PYTHON3 '--metric, --x build, several keys' '
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" rec2 --key ocean --runs 20 &&
	tracker push --db h.db rec2 2>/dev/null &&
	tracker history --db h.db --key amip --key ocean --metric walltime,cpu,tree_rss --x build \
		--plot many.svg &&
	grep -c "class=\"title\"" many.svg >n && test "$(cat n)" = 6 &&
	grep -q ">ocean — CPU time (user + sys)" many.svg &&
	grep -q ">#120<" many.svg
'

test_expect_success PYTHON3 '--since and --branch select the runs drawn' '
	tracker history --db h.db --key amip --branch staging --plot st.svg &&
	grep -q "baseline staging (59)" st.svg &&
	! grep -q "other branches" st.svg &&
	tracker history --db h.db --key amip --since 2000-01-01 --plot old.svg &&
	grep -q "baseline staging (59)" old.svg &&
	since=$(date -u -d "@$(( $(date +%s) - 30 * 86400 ))" +%Y-%m-%d) &&
	tracker history --db h.db --key amip --since $since --plot new.svg &&
	grep -q "baseline staging (2[89])" new.svg
'

test_expect_success 'usage errors' '
	test_expect_code 2 tracker history --db h.db --plot x.png &&
	test_expect_code 2 tracker history --db h.db --key amip --plot x.gif &&
	test_expect_code 2 tracker history --db h.db --key amip --plot x.png --metric speed &&
	test_expect_code 2 tracker history --db h.db --key amip --plot x.png --x depth &&
	test_expect_code 2 tracker history --db h.db --key amip --metric walltime &&
	test_expect_code 2 tracker history --db h.db --key amip --plot x.png --format csv &&
	! test -e x.png
'

test_expect_success PYTHON3 'a key no run has is bad data, names the nearest, writes nothing' '
	test_expect_code 65 tracker history --db h.db --key amipp --plot none.png 2>err &&
	grep "error: no runs of key .amipp.; the nearest key is .amip.$" err &&
	! test -e none.png &&
	test_expect_code 65 tracker history --db h.db --key amip --key amipp --plot two.svg 2>err &&
	grep "no runs of key .amipp." err &&
	! test -e two.svg
'

test_expect_success PYTHON3 'a key without runs in the last year among others: a warning, the charts of the rest' '
	cp h.db h-old.db &&
	"$PY" - <<-\EOF &&
	import json, os
	os.makedirs("oldkey", exist_ok=True)
	json.dump({"format": "tracker-run", "version": 1, "run": {
	    "id": "00000000-0000-4000-8000-00000000aaaa", "key": "archived", "status": "ok",
	    "partial": False, "started_at_us": 1500000000 * 10**6,
	    "walltime_s": 100.0, "maxrss_bytes": 2**30, "maxrss_source": "wait4",
	    "tree_rss_bytes": 2**30, "exit_code": 0, "argv": ["x"], "tags": {},
	    "ci": {"provider": "buildkite", "pipeline": "app", "branch": "main",
	    "build_number": "1", "default_branch": "main"}}}, open("oldkey/0.json", "w"))
	EOF
	tracker push --db h-old.db oldkey 2>/dev/null &&
	tracker history --db h-old.db --key amip --key archived --plot two.svg 2>err &&
	cat err &&
	grep "warning: no runs of key .archived. to plot in the last year" err &&
	test $(grep -c "class=\"title\"" two.svg) = 2 &&
	tracker history --db h.db --key amip --plot one.svg 2>err &&
	! grep warning err
'

test_expect_success PYTHON3 'too many charts for one PNG: a usage error that says what to do' '
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" many --runs 12 \
		$(for i in $(seq 10 59); do printf -- "--key k%s:1 " $i; done) &&
	tracker push --db many.db many 2>/dev/null &&
	keys=$(for i in $(seq 10 59); do printf -- "--key k%s " $i; done) &&
	test_expect_code 2 tracker history --db many.db $keys --since 2000-01-01 \
		--plot many.png 2>err &&
	grep "100 charts make a picture .* pixels tall.*write .svg or .html" err &&
	! test -e many.png &&
	tracker history --db many.db $keys --since 2000-01-01 --plot many.svg &&
	test -s many.svg
'

test_expect_success PYTHON3 'nothing to draw: exit 65, no file, rather than an empty axis' '
	test_expect_code 65 tracker history --db h.db --key amip --metric slurm_maxrss \
		--plot empty.png 2>err &&
	grep "no run to plot has a figure of the metrics asked" err &&
	! test -e empty.png
'

# bk N CMD...: CMD in Buildkite build N of branch main
bk() {
	_n=$1 && shift &&
	env BUILDKITE=true BUILDKITE_BRANCH=main BUILDKITE_BUILD_NUMBER=$_n \
		BUILDKITE_COMMIT=$(printf "%040d" $_n) BUILDKITE_PIPELINE_SLUG=app \
		BUILDKITE_PIPELINE_DEFAULT_BRANCH=main BUILDKITE_STEP_KEY=bench \
		BUILDKITE_AGENT_META_DATA_QUEUE=q "$@"
}

test_expect_success PYTHON3 'a failed current run: its red halo shows around the ringed dot' '
	for n in 1 2 3 4 5 6 7 8; do bk $n tracker run -q --db f.db -- true || return 1; done &&
	test_expect_code 1 bk 9 tracker run -q --db f.db -- false &&
	tracker history --db f.db --key bench --metric walltime --plot f.svg &&
	"$PY" - f.svg <<-\EOF
	import sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	paths = list(root.iter("{http://www.w3.org/2000/svg}path"))
	cur = [p for p in paths if p.get("class") == "s-current"]
	failed = [p for p in paths if p.get("class") == "s-failed"]
	assert len(failed) == 1 and failed[0].get("d") == cur[0].get("d"), "the current run failed"
	ring = max(float(p.get("stroke-width")) for p in cur)
	assert float(failed[0].get("stroke-width")) >= ring + 6, (failed[0].get("stroke-width"), ring)
	EOF
'

test_expect_success PYTHON3,PICTURES 'in the PNG too' '
	tracker history --db f.db --key bench --metric walltime --plot f.png &&
	x=$(sed -n "s/.*class=\"s-current\"[^>]*d=\"M\([0-9.]*\) \([0-9.]*\)h0.*/\1 \2/p" f.svg | head -1) &&
	"$PY" - f.png $x <<-\EOF
	import sys
	from PIL import Image
	im = Image.open(sys.argv[1]).convert("RGB")
	x, y = round(float(sys.argv[2])), round(float(sys.argv[3]))
	red = [d for d in range(-12, 13) for p in [im.getpixel((x + d, y))]
	       if p[0] > 200 and 60 < p[1] < 180 and abs(p[1] - p[2]) < 20]
	assert len(red) >= 4, red
	EOF
'

test_expect_success PYTHON3 'text stays inside the picture: a 127-byte key, a tick at the edge' '
	"$PY" - <<-\EOF &&
	import json, os
	K = "solver-" + "x" * 120
	os.makedirs("edge", exist_ok=True)
	for i, (key, t) in enumerate([("one", 1795564920), (K, 1795564920), (K, 1795568520)]):
	    json.dump({"format": "tracker-run", "version": 1, "run": {
	        "id": "00000000-0000-4000-8000-%012d" % i, "key": key, "status": "ok",
	        "partial": False, "started_at_us": t * 10**6, "walltime_s": 100.0,
	        "maxrss_bytes": 2**30, "maxrss_source": "wait4", "tree_rss_bytes": 2**30,
	        "exit_code": 0, "argv": ["x"], "tags": {}, "ci": {"provider": "buildkite",
	        "pipeline": "app", "branch": "main", "build_number": str(i + 1),
	        "default_branch": "main"}}}, open("edge/%d.json" % i, "w"))
	EOF
	tracker push --db edge.db edge 2>/dev/null &&
	K=solver-$(printf "x%.0s" $(seq 120)) &&
	for k in one "$K"; do
		for f in svg png; do
			tracker history --db edge.db --key "$k" --metric walltime --since 2026-01-01 \
				--plot "edge-${#k}.$f" || return 1
		done
	done &&
	"$PY" - edge-3.svg edge-127.svg <<-\EOF
	import sys, xml.etree.ElementTree as ET
	for f in sys.argv[1:]:
	    root = ET.parse(f).getroot()
	    width = float(root.get("width"))
	    for t in root.iter("{http://www.w3.org/2000/svg}text"):
	        size = float(t.get("font-size") or 12)
	        w = 0.62 * size * len(t.text or "")
	        x = float(t.get("x"))
	        a = t.get("text-anchor") or "start"
	        left = x - w / 2 if a == "middle" else x - w if a == "end" else x
	        assert 0 <= left and left + w <= width, (f, t.text, x, w, width)
	    title = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text") if t.get("class") == "title"]
	    print(f, title)
	    if "127" in f:
	        assert title[0].endswith("\u2026"), title
	EOF
'

test_expect_success PYTHON3,PICTURES 'and in the PNG: nothing drawn at its left and right edges' '
	"$PY" - edge-3.png edge-127.png <<-\EOF
	import sys
	from PIL import Image
	for f in sys.argv[1:]:
	    im = Image.open(f).convert("L")
	    w, h = im.size
	    dark = [(x, y) for x in (0, 1, w - 2, w - 1) for y in range(h) if im.getpixel((x, y)) < 160]
	    assert not dark, (f, dark[:5])
	EOF
'

test_expect_success PYTHON3 'runs older than the default --since 1y: the error says so' '
	"$PY" - <<-\EOF &&
	import json, os
	os.makedirs("old", exist_ok=True)
	for i in range(10):
	    json.dump({"format": "tracker-run", "version": 1, "run": {
	        "id": "00000000-0000-4000-8000-%012d" % i, "key": "nightly", "status": "ok",
	        "partial": False, "started_at_us": (1700000000 + i * 86400) * 10**6,
	        "walltime_s": 100.0 + i, "maxrss_bytes": 2**30, "maxrss_source": "wait4",
	        "tree_rss_bytes": 2**30, "exit_code": 0, "argv": ["x"], "tags": {},
	        "ci": {"provider": "buildkite", "pipeline": "app", "branch": "main",
	        "build_number": str(i + 1), "default_branch": "main"}}}, open("old/%d.json" % i, "w"))
	EOF
	tracker push --db old.db old 2>/dev/null &&
	test_expect_code 65 tracker history --db old.db --key nightly --plot old.png 2>err &&
	cat err &&
	grep "no runs to plot since .*--since defaults to 1y" err &&
	test_expect_code 65 tracker history --db old.db --plot olddash/index.html 2>err &&
	grep "no keys with runs since .*--since defaults to 1y" err &&
	test_expect_code 65 tracker dashboard --db old.db -o olddash 2>err &&
	grep "no keys with runs since .*--since defaults to 1y" err &&
	test_expect_code 65 tracker history --db old.db --key nightly --plot old.png \
		--since 2025-01-01 2>err &&
	grep "no runs to plot since 2025-01-01" err &&
	! grep "defaults to 1y" err &&
	test_expect_code 65 tracker history --db old.db --key nosuch --plot old.png 2>err &&
	grep "no runs of key .nosuch." err &&
	! grep "defaults to 1y" err &&
	tracker history --db old.db --key nightly --plot old.png --since 2000-01-01 &&
	test -s old.png
'

test_expect_success PYTHON3 'a 40-second history of 2 ms runs: ticks seconds apart, values in ms' '
	"$PY" - <<-\EOF &&
	import json, os
	os.makedirs("short", exist_ok=True)
	for i in range(5):
	    json.dump({"format": "tracker-run", "version": 1, "run": {
	        "id": "00000000-0000-4000-8000-%012d" % i, "key": "k", "status": "ok",
	        "partial": False, "started_at_us": (1795564920 + 10 * i) * 10**6,
	        "walltime_s": 0.0015 + 0.0001 * i, "maxrss_bytes": 2**20, "maxrss_source": "wait4",
	        "tree_rss_bytes": 2**20, "exit_code": 0, "argv": ["x"], "tags": {},
	        "ci": {"provider": "buildkite", "pipeline": "app", "branch": "main",
	        "build_number": str(i + 1), "default_branch": "main"}}}, open("short/%d.json" % i, "w"))
	EOF
	tracker push --db short.db short 2>/dev/null &&
	tracker history --db short.db --key k --metric walltime --since 2000-01-01 --plot short.svg &&
	grep -o "<g class=\"xt\">.*" short.svg | grep -o ">[0-9:]*</text>" >xt &&
	cat xt &&
	test $(wc -l <xt) -ge 4 &&
	grep -q ">00:02:10</text>" xt &&
	grep -q ">1\.[0-9]* ms</text>" short.svg &&
	! grep -q "0.00[0-9]* s<" short.svg
'

test_done
