#!/bin/sh
# Hostile names in every plot format: a key, branch, build URL and
# pipeline with markup, quotes, '&', control characters, invalid UTF-8
# and a 300-character tail. The SVG parses as XML and shows them as text;
# the HTML page has only its own two script elements and its CSP names
# its script's hash; PNG and PDF are drawn; two runs give the same bytes.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"

PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
	test_done
fi

KEY='<script>alert(1)</script>&"'"'"'</svg>'

test_expect_success 'a hostile history' '
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" rec --hostile --runs 30 --key "$KEY" &&
	"$PY" - rec <<-\EOF &&
	import json, os, sys
	for f in os.listdir(sys.argv[1]):
	    p = os.path.join(sys.argv[1], f)
	    r = json.load(open(p))
	    r["run"]["ci"]["pipeline"] = "pipe<b>&amp;\u2028\x7f"
	    r["run"]["ci"]["build_number"] = r["run"]["ci"]["build_number"] + ("<i>" if f.endswith("-f.json") else "")
	    json.dump(r, open(p, "w"))
	EOF
	tracker push --db h.db rec 2>err &&
	grep "33 stored" err
'

test_expect_success 'every format is written, twice the same bytes' '
	for f in png svg pdf html; do
		tracker history --db h.db --key "$KEY" --plot p.$f &&
		tracker history --db h.db --key "$KEY" --plot q.$f &&
		cmp p.$f q.$f || return 1
	done
'

test_expect_success 'the SVG is well-formed and shows the names as text' '
	"$PY" - p.svg "$KEY" <<-\EOF
	import sys, xml.etree.ElementTree as ET
	root = ET.parse(sys.argv[1]).getroot()
	texts = [("".join(t.itertext())) for t in root.iter("{http://www.w3.org/2000/svg}text")]
	title = [t for t in texts if t.startswith(sys.argv[2])]
	assert len(title) == 2, texts[:3]
	assert "pipe<b>&amp;" in title[0], title[0]
	assert any(t.startswith("baseline staging") for t in texts)
	legend = [t for t in texts if t.startswith("other branches")]
	assert legend, "the hostile branch is an other branch"
	assert not list(root.iter("{http://www.w3.org/2000/svg}script"))
	EOF
'

test_expect_success 'the HTML page keeps its own two scripts, and the names in its data' '
	test $(grep -o "<script" p.html | wc -l) = 2 &&
	test $(grep -o "</script" p.html | wc -l) = 2 &&
	! grep -q "<script>alert\|<b>&\|<i>\|</svg>&" p.html &&
	csp_hash_matches p.html &&
	"$PY" - p.html "$KEY" <<-\EOF
	import json, re, sys
	page = open(sys.argv[1], encoding="utf-8").read()
	data = json.loads(re.search(r"id=\"tk-data\">(.*?)</script>", page, re.S).group(1))
	assert data["keys"][0]["name"] == sys.argv[2]
	# the control byte as the text \x01, as a terminal shows it
	assert any(b.startswith("<script>alert(1)</script>&\"" + chr(39) + "\\x01") for b in data["branches"]), data["branches"]
	assert not any("\x01" in b for b in data["branches"])
	assert any(r[1].endswith("<i>") for r in data["keys"][0]["runs"])
	EOF
'

test_expect_success 'a control character in the baseline branch: \\x01 in HTML as in SVG' '
	hb=$(printf "<script>alert(1)</script>&\"\047\001%0300d" 0 | tr 0 x) &&
	tracker history --db h.db --key "$KEY" --baseline-branch "$hb" --plot b.html &&
	tracker history --db h.db --key "$KEY" --baseline-branch "$hb" --plot b.svg &&
	"$PY" - b.html b.svg <<-\EOF
	import re, sys, xml.etree.ElementTree as ET
	page = open(sys.argv[1], encoding="utf-8").read()
	sub = re.search(r"<p id=\"subtitle\">(.*?)</p>", page, re.S).group(1)
	assert "baseline branch &lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;\\x01xxx" in sub, repr(sub)
	texts = ["".join(t.itertext()) for t in ET.parse(sys.argv[2]).getroot().iter("{http://www.w3.org/2000/svg}text")]
	assert any("<script>alert(1)</script>&\"\x27" in t for t in texts), texts[:4]
	assert not any("\x01" in t for t in texts), texts[:4]
	assert not any(re.search(r"\\x(?![0-9a-f]{2})", t) for t in texts), texts[:4]
	EOF
'

test_expect_success 'a dashboard of the hostile key names its file safely' '
	tracker dashboard --db h.db -o dash 2>err &&
	ls dash >files &&
	cat files &&
	test $(wc -l <files) = 2 &&
	grep -qx "index.html" files &&
	grep -qx "_script_alert_1___script_\{6\}svg_-[0-9a-f]\{8\}\.html" files &&
	test $(grep -o "<script" dash/index.html | wc -l) = 2 &&
	! grep -q "<script>alert" dash/index.html &&
	csp_hash_matches dash/index.html
'

test_done
