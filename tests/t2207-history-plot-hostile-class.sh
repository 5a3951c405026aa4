#!/bin/sh
# A hostile machine class in every plot format and on the dashboard: one
# of two classes carries markup, quotes, '&' and a control character
# (gen-history.py --hostile --machine-classes). The SVG parses as XML and
# shows it as text in the legend; the HTML page has only its own two
# script elements, the class escaped in its toggle and data, and its CSP
# names its script's hash; PNG and PDF are drawn; the dashboard names the
# class escaped; two runs give the same bytes.

. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/browser-lib.sh"

PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
	skip_all='python3 is missing (ci/install-deps.sh test installs it)'
	test_done
fi

test_expect_success 'a history on a hostile machine class and a plain one' '
	"$PY" "$TEST_DIRECTORY/helpers/gen-history.py" rec --hostile --runs 30 \
		--machine-classes cpu-large,cpu-small &&
	grep -q "\"machine_class\": \"<b>cpu&" rec/0-100.json &&
	tracker push --db h.db rec 2>err &&
	grep "33 stored" err
'

test_expect_success 'every format is written, twice the same bytes' '
	for f in png svg pdf html; do
		tracker history --db h.db --key amip --plot p.$f &&
		tracker history --db h.db --key amip --plot q.$f &&
		cmp p.$f q.$f || return 1
	done &&
	head -c 8 p.png | od -c | grep -q "P   N   G" &&
	head -c 5 p.pdf | grep -q "%PDF-"
'

test_expect_success 'the SVG is well-formed and names the class as text' '
	"$PY" - p.svg <<-\EOF
	import sys, xml.etree.ElementTree as ET
	S = "{http://www.w3.org/2000/svg}"
	root = ET.parse(sys.argv[1]).getroot()
	texts = ["".join(t.itertext()) for t in root.iter(S + "text")]
	hostile = "<b>cpu&\"\x27\\x01</b>cpu-large"
	assert any(t.startswith("baseline staging \u00b7 " + hostile) or
	           t.startswith("staging \u00b7 " + hostile) for t in texts), texts[:12]
	assert not list(root.iter(S + "script"))
	assert not list(root.iter(S + "b"))
	EOF
'

test_expect_success 'the HTML page keeps its own two scripts, the class in its toggle and data' '
	test $(grep -o "<script" p.html | wc -l) = 2 &&
	test $(grep -o "</script" p.html | wc -l) = 2 &&
	! grep -q "<b>cpu" p.html &&
	grep -qF "checked> &lt;b&gt;cpu&amp;&quot;&#39;\\x01&lt;/b&gt;cpu-large</label>" p.html &&
	csp_hash_matches p.html &&
	"$PY" - p.html <<-\EOF
	import json, re, sys
	page = open(sys.argv[1], encoding="utf-8").read()
	d = json.loads(re.search(r"id=\"tk-data\">(.*?)</script>", page, re.S).group(1))
	# the control byte as the text \x01, as a terminal shows it
	assert "<b>cpu&\"\x27\\x01</b>cpu-large" in d["classes"], d["classes"]
	EOF
'

test_expect_success 'the dashboard names the class escaped' '
	tracker dashboard --db h.db -o dash 2>err &&
	test $(grep -o "<script" dash/index.html | wc -l) = 2 &&
	! grep -q "<b>cpu" dash/index.html &&
	! grep -q "<b>cpu" dash/amip-*.html &&
	csp_hash_matches dash/index.html &&
	csp_hash_matches dash/amip-*.html &&
	grep -q "<td>staging · \(&lt;b&gt;cpu&amp;&quot;&#39;\\\\x01&lt;/b&gt;cpu-large\|cpu-small\)</td>" \
		dash/index.html
'

test_done
