#!/bin/sh
# Control characters in user strings (branch, commit, build, key, tag,
# frame names, paths) never reach the terminal raw: tables, .txt outputs
# and messages show C0, DEL and C1 controls and bytes that are not
# valid UTF-8 as \xNN (core/base/table.h);
# CSV and JSON keep the exact values, quoted and escaped by their rules.

. "$(dirname "$0")/test-lib.sh"

command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON3
command -v sqlite3 >/dev/null 2>&1 && test_set_prereq SQLITE3

ESC=$(printf "\033")
# no_controls FILE: no C0 byte but LF, no DEL, no C1 (UTF-8 \xc2\x80-\x9f).
no_controls() {
	! LC_ALL=C grep -q "$(printf "[\001-\011\013-\037\177]")" "$1" &&
	! LC_ALL=C grep -q "$(printf "\302[\200-\237]")" "$1"
}

test_expect_success PYTHON3 'a record whose branch, commit and build hold ESC, OSC, CR and LF; its tag with controls is refused' '
	python3 - <<-\PY &&
	import json
	rec = json.load(open("'"$FIXTURES"'/records/amip-staging-101.json"))
	run = rec["run"]
	run["id"] = "3f0c1a52-7d4e-4b8a-9c61-0a1b2c3d4eff"
	run["ci"]["branch"] = "evil\x1b[2J\x1b[31mred\rover\nline"
	run["ci"]["commit"] = "c0ffee\x1b]0;pwned\x07"
	run["ci"]["build_number"] = "7\r\u009b31m"
	run["tags"] = {"t\x1bag": "v\x7fal\n"}
	json.dump(rec, open("evil-tag.json", "w"))
	run["tags"] = {"tag": "value"}
	json.dump(rec, open("evil.json", "w"))
	PY
	test_expect_code 65 tracker push --db h.db evil-tag.json 2>err &&
	no_controls err &&
	grep -F "invalid tag '"'"'t\\x1bag=v\\x7fal\\x0a'"'"'" err &&
	tracker push --db h.db evil.json
'

test_expect_success PYTHON3 'history table: one line per run, controls shown as \xNN' '
	tracker history --db h.db >out &&
	test $(wc -l <out) = 2 &&
	no_controls out &&
	grep -F "evil\\x1b[2J\\x1b[31mred\\x0dover\\x0aline" out &&
	grep -F "c0ffee\\x1b]0;" out &&
	grep -F "7\\x0d\\xc2\\x9b31m" out
'

test_expect_success PYTHON3 'history csv and json keep the exact values' '
	tracker history --db h.db --format csv >out.csv &&
	python3 -c "
import csv, sys
rows = list(csv.DictReader(open(\"out.csv\", newline=\"\")))
assert rows[0][\"branch\"] == \"evil\x1b[2J\x1b[31mred\rover\nline\", repr(rows[0][\"branch\"])
assert rows[0][\"commit\"] == \"c0ffee\x1b]0;pwned\x07\"
" &&
	tracker history --db h.db --format json >out.json &&
	! grep -q "$ESC" out.json &&
	python3 -c "
import json
r = json.load(open(\"out.json\"))
r = r[0] if isinstance(r, list) else r[\"runs\"][0]
s = json.dumps(r)
assert \"red\\\\rover\\\\nline\" in s, s
"
'

test_expect_success SQLITE3,PYTHON3 'a key with ESC in the database: the table escapes it too' '
	sqlite3 h.db "UPDATE runs SET key = '"'"'k'"'"' || char(27) || '"'"'[5mblink'"'"'" &&
	tracker history --db h.db >out &&
	no_controls out &&
	grep -F "k\\x1b[5mblink" out
'

# A branch that is not UTF-8 is stored once, its stray bytes as U+FFFD,
# in the record (JSON has only UTF-8) and the columns alike: no raw byte
# reaches the table or the CSV, and both show what is stored.
test_expect_success 'a branch that is not UTF-8 (a lone 8-bit CSI, 0xff): stored and shown as U+FFFD' '
	env BUILDKITE=true BUILDKITE_BRANCH="$(printf "fix\2332J\377")" BUILDKITE_BUILD_NUMBER=1 \
		BUILDKITE_STEP_KEY=k BUILDKITE_AGENT_META_DATA_QUEUE=q \
		tracker run -q --db bad.db -- true &&
	tracker history --db bad.db >out &&
	! LC_ALL=C grep -q "$(printf "[\233\377]")" out &&
	grep -F "$(printf "fix\357\277\2752J\357\277\275")" out &&
	tracker history --db bad.db --format csv >out.csv &&
	! LC_ALL=C grep -q "$(printf "[\233\377]")" out.csv &&
	grep -F "$(printf "fix\357\277\2752J\357\277\275")" out.csv
'

test_expect_success 'error messages escape what the user typed' '
	test_must_fail tracker flame --db h.db --key "$(printf "no\033[2Jsuch\rkey")" -o x.svg 2>err &&
	no_controls err &&
	grep -F "no\\x1b[2Jsuch\\x0dkey" err
'

test_expect_success SQLITE3,PYTHON3 'a key no run has: it and the nearest stored key escaped' '
	test_expect_code 65 tracker check --db h.db --key "$(printf "k\033[5mblinc")" 2>err &&
	no_controls err &&
	grep -F "no runs of key '"'"'k\x1b[5mblinc'"'"'; the nearest key is '"'"'k\x1b[5mblink'"'"'" err
'

test_expect_success 'a path with controls in a message' '
	test_must_fail tracker flame "$(printf "miss\033]0;x\007ing.folded")" -o x.svg 2>err &&
	no_controls err &&
	grep -F "miss\\x1b]0;x\\x07ing.folded" err
'

test_expect_success 'flame .txt: names with controls, default flags' '
	printf "main;e\033[1mx 2\nmain;ok 1\n" >n.folded &&
	tracker flame n.folded -o n.txt &&
	no_controls n.txt &&
	grep -F "e\\x1b[1mx" n.txt &&
	grep "^Profile — 3 samples$" n.txt &&
	grep "^3 frames" n.txt
'

test_done
