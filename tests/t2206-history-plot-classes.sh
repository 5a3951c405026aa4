#!/bin/sh
# Machine classes in plots and the dashboard, with default flags on a
# realistic history (tests/helpers/gen-history.py): 120 daily staging
# builds 100..219 taking turns on cpu-large (about 100 s) and cpu-small
# (about 160 s), 2% noise, and a real 2x step from build 190 on cpu-large
# only. Known answers: the chart draws two baseline series, labelled
# "staging · CLASS", and finds exactly one change point, at build 190 on
# cpu-large, none from the mix of classes; the dashboard's row has the
# delta and verdict of tracker check and a sparkline of the current run's
# class only; a history of one class draws the same bytes as one with no
# class.

. "$(dirname "$0")/test-lib.sh"

PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
	test_done
fi
"$PY" -c "import PIL" 2>/dev/null && test_set_prereq PIL

test_expect_success 'a history on two machine classes, a 2x step on one' '
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" rec --runs 120 --step-at 190 \
		--machine-classes cpu-large:1,cpu-small:1.6 --step-class cpu-large &&
	tracker push --db h.db rec 2>err &&
	grep "132 stored" err
'

commit190=$(sed -n "s/.*\"commit\": \"\([0-9a-f]*\)\".*/\1/p" rec/0-190.json 2>/dev/null | head -c 8)

test_expect_success 'default flags: two baseline series, one change point, at 190 on cpu-large' '
	tracker history --db h.db --key amip --plot amip.svg &&
	tracker history --db h.db --key amip --plot amip.html &&
	grep -o "change at #[0-9]* [0-9a-f]* [-+][0-9]*%[^<]*" amip.svg >changes &&
	cat changes &&
	test $(wc -l <changes) = 1 &&
	grep -q "change at #190 $commit190 +[0-9]*% on cpu-large$" changes &&
	pct=$(sed "s/.*+\([0-9]*\)%.*/\1/" changes) &&
	test "$pct" -ge 90 && test "$pct" -le 110 &&
	"$PY" - amip.svg <<-\EOF
	import sys, xml.etree.ElementTree as ET
	S = "{http://www.w3.org/2000/svg}"
	root = ET.parse(sys.argv[1]).getroot()
	walltime = root.find(S + "g[@id=\"chart0\"]")
	paths = list(walltime.iter(S + "path"))
	def cls(p): return (p.get("class") or "").split()
	dots = [p for p in paths if "s-base" in cls(p) and p.get("stroke-linecap")]
	assert len(dots) == 2, "a dot series per class"
	assert {p.get("stroke") for p in dots} == {"#1f77b4", "#2ca02c"}, [p.get("stroke") for p in dots]
	assert sorted(p.get("d").count("M") for p in dots) == [59, 60], [p.get("d").count("M") for p in dots]
	lines = [p for p in paths if "s-base" in cls(p) and p.get("fill") == "none"]
	assert len(lines) == 2, "a line per class"
	bands = [p for p in paths if "s-band" in cls(p) and p.get("fill") != "none"]
	medians = [p for p in paths if "s-band" in cls(p) and p.get("fill") == "none"]
	assert len(bands) == 2 and len(medians) == 2, "a band and a median per class"
	assert all(any(c.startswith("s-mc") for c in cls(p)) for p in dots + lines + bands + medians)
	change = [p for p in paths if "s-change" in cls(p)]
	assert len(change) == 1
	mc = [c for c in cls(change[0]) if c.startswith("s-mc")]
	large = [p for p in dots if p.get("stroke") == "#1f77b4"][0]
	assert mc and mc[0] in cls(large), "the change is on the series of cpu-large"
	texts = [("".join(t.itertext())) for t in walltime.iter(S + "text")]
	for want in ("baseline staging \u00b7 cpu-large (60)", "staging \u00b7 cpu-small (59)",
	             "median \u00b1 spread", "change points (1)"):
	    assert want in texts, (want, texts)
	EOF
'

test_expect_success 'the page: a toggle per class, the class in each run' '
	grep -o "<label><input type=\"checkbox\" data-s=\"mc[0-9]\"[^<]*</label>" amip.html >toggles &&
	cat toggles &&
	test $(wc -l <toggles) = 2 &&
	grep -q "> cpu-large</label>" toggles &&
	grep -q "> cpu-small</label>" toggles &&
	"$PY" - amip.html <<-\EOF
	import json, re, sys
	page = open(sys.argv[1], encoding="utf-8").read()
	d = json.loads(re.search(r"id=\"tk-data\">(.*?)</script>", page, re.S).group(1))
	assert sorted(d["classes"]) == ["cpu-large", "cpu-small"], d["classes"]
	m = len(d["metrics"])
	runs = d["keys"][0]["runs"]
	for r in runs:
	    want = "cpu-large" if int(r[1]) % 2 == 0 else "cpu-small"
	    assert d["classes"][r[8 + m]] == want, r
	assert d["charts"][0].get("ms") == 1
	EOF
'

test_expect_success PIL 'PNG: both classes drawn in their colours' '
	tracker history --db h.db --key amip --plot amip.png &&
	"$PY" - amip.png <<-\EOF
	import sys
	from PIL import Image
	im = Image.open(sys.argv[1]).convert("RGB")
	def count(rgb):
	    return sum(1 for p in im.getdata() if max(abs(p[i] - rgb[i]) for i in range(3)) <= 30)
	blue, green = count((0x1f, 0x77, 0xb4)), count((0x2c, 0xa0, 0x2c))
	print("blue", blue, "green", green)
	assert blue > 300 and green > 300
	EOF
'

# tracker check exits 1 on a regression
test_expect_code_01() { "$@"; test $? -le 1; }
row() { tr -d '\n' <dash/index.html | sed 's/<tr /\n<tr /g' | grep ">$1</a>"; }

test_expect_success 'the dashboard: the delta and verdict of tracker check, the class named' '
	tracker dashboard --db h.db -o dash 2>err &&
	row amip >amip.row &&
	grep -q "<td>staging · cpu-small</td>" amip.row &&
	test_expect_code_01 tracker check --db h.db --key amip --branch staging \
		--baseline-branch staging --format json >check.json &&
	"$PY" - check.json amip.row <<-\EOF
	import json, re, sys
	c = json.load(open(sys.argv[1]))["results"][0]
	row = open(sys.argv[2]).read()
	assert c["machine_class"] == "cpu-small", c["machine_class"]
	verdict = re.search(r"<span class=\"v-[a-z-]*\">([a-z ]*)</span>", row).group(1)
	assert verdict == c["verdict"] == "no change", (verdict, c["verdict"])
	for i, m in enumerate(("walltime", "maxrss")):
	    d = float(re.search(r"data-d%d=\"([-0-9.]*)\"" % i, row).group(1))
	    want = [x for x in c["metrics"] if x["metric"] == m][0]["delta_pct"]
	    assert abs(d - want) < 0.001, (m, d, want)
	    assert abs(d) < 6, (m, d)
	EOF
'

test_expect_success 'the sparkline: the current run'"'"'s class only' '
	grep -o "stroke-width=\"1.2\" d=\"[^\"]*\"" amip.row >sparks &&
	test $(wc -l <sparks) = 2 &&
	while read -r line; do
		n=$(echo "$line" | tr -cd "ML" | wc -c) &&
		echo "$n points" &&
		# cpu-small: 60 staging builds but the current one, failed 105, partial 107
		test "$n" -eq 57 || return 1
	done <sparks
'

test_expect_success 'one class draws the same bytes as no class' '
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" one --runs 40 --step-at 130 \
		--machine-classes cpu-large &&
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" none --runs 40 --step-at 130 &&
	grep -q "\"machine_class\": \"cpu-large\"" one/0-100.json &&
	! grep -q machine_class none/0-100.json &&
	tracker push --db one.db one 2>/dev/null &&
	tracker push --db none.db none 2>/dev/null &&
	for f in svg png pdf; do
		tracker history --db one.db --key amip --plot one.$f &&
		tracker history --db none.db --key amip --plot none.$f &&
		cmp one.$f none.$f || return 1
	done &&
	grep -q "baseline staging (39)" one.svg
'

test_done
