#!/bin/sh
# tracker push refuses what tracker run refuses, by the same rules
# (tk_run_check_key, tk_run_check_tag): a key or a tag with a control
# character or bytes that are not UTF-8. Such a record is kept, the push
# exits 65 with a message naming it, and the other records are stored.

. "$(dirname "$0")/test-lib.sh"

# record NAME FIELD VALUE: a fixture record with one tag or the key changed
record() {
	python3 - "$FIXTURES/records/amip-staging-101.json" "$@" <<-\PY
	import json, sys, uuid
	src, name, field, value = sys.argv[1:5]
	doc = json.load(open(src))
	doc["run"]["id"] = str(uuid.uuid4())
	if field == "key":
	    doc["run"]["key"] = value
	elif field == "tagname":
	    doc["run"]["tags"] = {value: "x"}
	else:
	    doc["run"]["tags"] = {"t": value}
	json.dump(doc, open("in/" + name + ".json", "w"))
	PY
}

test_expect_success 'setup' '
	mkdir in &&
	record good key amip &&
	record ctl-tag-value tagvalue "$(printf "a\033[31mred")" &&
	record ctl-tag-name tagname "$(printf "na\tme")" &&
	record eq-tag-name tagname "a=b" &&
	record ctl-key key "$(printf "am\001ip")"
'

test_expect_success 'bad tags and keys: exit 65, each named, the good one stored' '
	test_expect_code 65 tracker push --db db.sqlite --remove in 2>err &&
	grep "cannot push .in/ctl-tag-value.json.: invalid tag" err &&
	grep "cannot push .in/ctl-tag-name.json.: invalid tag" err &&
	grep "cannot push .in/eq-tag-name.json.: invalid tag" err &&
	grep "cannot push .in/ctl-key.json.: invalid key" err &&
	grep "^stored .*in/good.json" err &&
	grep "1 stored, 0 already stored, 4 failed" err
'

test_expect_success 'the message shows control characters escaped' '
	grep "x1b" err &&
	! grep "$(printf "\033")" err
'

test_expect_success 'the refused records are kept' '
	ls in >left &&
	printf "ctl-key.json\nctl-tag-name.json\nctl-tag-value.json\neq-tag-name.json\n" >want &&
	test_cmp want left
'

test_expect_success 'tracker run refuses the same tag (outside CI: a usage error)' '
	test_expect_code 2 tracker run --key k --db db.sqlite --tag "$(printf "t=a\033b")" -- true 2>err &&
	grep "invalid tag" err
'

test_expect_success 'under CI the tag is dropped with a warning, the job runs' '
	CI=true tracker run --key k --db db.sqlite --artifacts art --tag "$(printf "t=a\033b")" \
		--tag ok=1 -- true 2>err &&
	grep "invalid tag.*the tag is dropped" err &&
	grep "\"ok\": \"1\"" art/k-*.json &&
	! grep "\"t\":" art/k-*.json
'

test_done
