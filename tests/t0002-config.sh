#!/bin/sh
# .tracker.yml end to end: where it is found, what a broken one does to each
# command (a mistake in one setting is a warning at its line, the rest of
# the file applies), tracker config check, and the order db: /
# $TRACKER_DB / --db.
. "$(dirname "$0")/test-lib.sh"

# Each test writes the .tracker.yml it needs; none may leak into the next.
rm_config() { rm -f .tracker.yml; }

test_expect_success 'a malformed .tracker.yml fails history with 65 and its position' '
	printf "db: history.db\nkeys:\n  amip:\n\ttimeout: 2h\n" >.tracker.yml &&
	test_expect_code 65 tracker history >out 2>err &&
	rm_config &&
	grep "\.tracker\.yml:4:1: " err &&
	grep "tab" err &&
	! test -s out
'

test_expect_success 'an unknown field is a warning naming field, position and the nearest field' '
	printf "db: history.db\nbaseline-branch: main\n" >.tracker.yml &&
	tracker run -q --key k -- true 2>err &&
	rm_config &&
	grep "warning: .*\.tracker\.yml:2:1: unknown field .baseline-branch. (did you mean .baseline_branch.?); ignored" err
'

test_expect_success 'a typo next to db: the run reaches that db, the warning names the line' '
	mkdir typo &&
	printf "keys:\n  amip:\n    timout: 5\ndb: typo.db\n" >typo/.tracker.yml &&
	(cd typo && tracker run --key amip -- true) 2>err &&
	grep "typo/\.tracker\.yml:3:5: unknown field .timout. in key .amip. (did you mean .timeout.?)" err &&
	test "$(grep -c warning err)" = 1 &&
	tracker history --db typo/typo.db --format csv >out &&
	grep ",amip," out &&
	! test -e "$XDG_DATA_HOME/tracker/history.db" &&
	printf "timout: 5\ndb: typo2.db\n" >typo/.tracker.yml &&
	(cd typo && tracker run --key top -- true) 2>err &&
	grep "typo/\.tracker\.yml:1:1: unknown field .timout. (did you mean .timeout.?" err &&
	tracker history --db typo/typo2.db --format csv >out &&
	grep ",top," out &&
	! test -e "$XDG_DATA_HOME/tracker/history.db"
'

test_expect_success 'a wrong type is a warning at the value; the rest applies' '
	tracker run --db history.db --key k -- true &&
	printf "db: history.db\nkeys: [a, b]\n" >.tracker.yml &&
	tracker history --format csv >out 2>err &&
	rm_config &&
	grep "\.tracker\.yml:2:7: .keys. must be a mapping" err &&
	grep ",k," out
'

test_expect_success 'a bad timeout is a warning at the value' '
	printf "keys:\n  amip:\n    timeout: two hours\n" >.tracker.yml &&
	tracker run -q --db history.db --key amip -- true 2>err &&
	rm_config &&
	grep "\.tracker\.yml:3:14: bad timeout" err
'

test_expect_success 'tracker config check: 0 on a valid file, 65 on any mistake' '
	printf "db: history.db\nkeys:\n  amip: {timeout: 2h}\n" >good.yml &&
	tracker config check good.yml >out 2>err &&
	grep "good.yml: ok" out &&
	! test -s err &&
	printf "db: history.db\nkeys:\n  amip: {timout: 2h}\n" >bad.yml &&
	test_expect_code 65 tracker config check bad.yml >out 2>err &&
	grep "bad.yml:3:10: unknown field .timout." err &&
	! test -s out &&
	printf "db: [unclosed\n" >broken.yml &&
	test_expect_code 65 tracker config check broken.yml 2>err &&
	grep "broken.yml:2:1:" err &&
	test_expect_code 65 tracker config check no-such.yml 2>err &&
	grep "no-such.yml" err
'

test_expect_success 'tracker config check finds the file as the other commands do' '
	mkdir -p cc/sub &&
	printf "artefacts: x\n" >cc/.tracker.yml &&
	(cd cc/sub && test_expect_code 65 tracker config check) 2>err &&
	grep "cc/\.tracker\.yml:1:1: unknown field .artefacts. (did you mean .artifacts.?)" err &&
	(cd cc/sub && TRACKER_CONFIG=/dev/null tracker config check) >out &&
	grep "/dev/null: ok" out &&
	mkdir none &&
	(cd none && test_expect_code 65 tracker config check) 2>err &&
	grep "no configuration file" err
'

test_expect_success 'tracker config: usage errors' '
	test_expect_code 2 tracker config 2>err &&
	test_expect_code 2 tracker config lint 2>err &&
	grep "unknown action" err &&
	test_expect_code 2 tracker config check a b 2>err
'

test_expect_success 'the nearest parent directory'"'"'s .tracker.yml is used' '
	mkdir -p project/src/deep &&
	printf "bogus: 1\n" >project/.tracker.yml &&
	(cd project/src/deep && tracker run -q --key x --db x.db -- true 2>../../../err) &&
	grep "project/\.tracker\.yml:1:1: unknown field" err &&
	printf "db: parent.db\n" >project/.tracker.yml &&
	(cd project && tracker run --key in-parent -- true) &&
	(cd project/src/deep && tracker history --format csv >../../../out) &&
	grep ",in-parent," out &&
	rm -rf project
'

test_expect_success 'TRACKER_CONFIG names the config file' '
	printf "bogus: [1\n" >elsewhere.yml &&
	TRACKER_CONFIG=$PWD/elsewhere.yml &&
	export TRACKER_CONFIG &&
	test_expect_code 65 tracker history 2>err;
	rc=$?;
	unset TRACKER_CONFIG;
	test $rc = 0 &&
	grep "elsewhere\.yml:2:1: " err
'

test_expect_success 'a missing TRACKER_CONFIG file is an error naming it' '
	TRACKER_CONFIG=$PWD/no-such.yml &&
	export TRACKER_CONFIG &&
	test_expect_code 65 tracker history 2>err;
	rc=$?;
	unset TRACKER_CONFIG;
	test $rc = 0 &&
	grep "no-such\.yml" err
'

test_expect_success 'TRACKER_CONFIG=/dev/null ignores a broken .tracker.yml' '
	printf "bogus: [1\n" >.tracker.yml &&
	tracker run --db devnull.db --key k -- true &&
	TRACKER_CONFIG=/dev/null tracker history --db devnull.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",k," out
'

test_expect_success 'run still runs the job with a malformed config, and warns' '
	printf "db: [unclosed\n" >.tracker.yml &&
	test_expect_code 5 tracker run --db broken.db --key k -- sh -c "echo ran >job-ran; exit 5" 2>err;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	test -f job-ran &&
	grep "\.tracker\.yml:2:1: " err
'

test_expect_success 'an empty .tracker.yml is valid' '
	: >.tracker.yml &&
	tracker run --db empty.db --key k -- true &&
	tracker history --db empty.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",k," out
'

test_expect_success 'setup: three databases with one run each' '
	tracker run --db config.db --key from-config -- true &&
	tracker run --db env.db --key from-env -- true &&
	tracker run --db option.db --key from-option -- true
'

test_expect_success 'db: in .tracker.yml is the database of history' '
	printf "db: config.db\n" >.tracker.yml &&
	tracker history --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-config," out &&
	! grep ",from-env," out
'

test_expect_success 'db: accepts a sqlite: URL' '
	printf "db: sqlite:config.db\n" >.tracker.yml &&
	tracker history --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-config," out
'

test_expect_success '$TRACKER_DB overrides db:' '
	printf "db: config.db\n" >.tracker.yml &&
	TRACKER_DB=env.db tracker history --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-env," out &&
	! grep ",from-config," out
'

test_expect_success '--db overrides $TRACKER_DB and db:' '
	printf "db: config.db\n" >.tracker.yml &&
	TRACKER_DB=env.db tracker history --db option.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",from-option," out &&
	! grep ",from-env," out &&
	! grep ",from-config," out
'

test_expect_success 'db: is where run records' '
	printf "db: config.db\n" >.tracker.yml &&
	tracker run --key recorded-by-config -- true &&
	tracker history --db config.db --format csv >out;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	grep ",recorded-by-config," out
'

# db_lines: every command that opens a database, as it would be run, its
# stderr in err.NAME; their exit codes do not matter here
db_lines() {
	rm -f err.*
	for c in run history push import flame diff check report dashboard fetch; do
		db_command $c 2>err.$c
	done
	true
}

db_command() {
	case $1 in
	run) tracker run -q --key k -- true ;;
	history) tracker history ;;
	push) tracker push rec.json ;;
	import) tracker import --key k "$FIXTURES/folded/simple.folded" ;;
	flame) tracker flame --key k -o f.svg ;;
	diff) tracker diff --key k -o d.folded ;;
	check) tracker check --key k ;;
	report) tracker report --artifacts rep ;;
	dashboard) tracker dashboard -o dash ;;
	fetch) BUILDKITE_API_TOKEN=x tracker fetch --org o --pipeline p \
		--api http://127.0.0.1:1 --retries 0 ;;
	esac >/dev/null
}

test_expect_success 'a misspelled db: every command says which database it uses and why' '
	mkdir dbline && cd dbline &&
	tracker run -q --db "$XDG_DATA_HOME/tracker/history.db" --key k --artifacts arts -- true &&
	cp arts/*.json rec.json &&
	printf "artifacts: arts\ndbb: meant.db\n" >.tracker.yml &&
	db_lines &&
	for c in run history push import flame diff check report dashboard fetch; do
		grep -x "tracker: using the database $XDG_DATA_HOME/tracker/history.db (the default): $PWD/.tracker.yml:2:1: unknown field .dbb. (did you mean .db.?)" err.$c ||
		{ echo "$c:"; cat err.$c; return 1; }
	done &&
	! test -e meant.db
'

test_expect_success 'a db: of the wrong type, or with no value: the line says so' '
	cd dbline &&
	for v in "[a.db, b.db]" "{path: a.db}" "\"\""; do
		printf "db: %s\n" "$v" >.tracker.yml &&
		tracker history >/dev/null 2>err &&
		grep "^tracker: using the database $XDG_DATA_HOME/tracker/history.db (the default): $PWD/.tracker.yml:1:5: .db. \(must be a string\|has no value\)" err ||
		{ cat err; return 1; }
	done &&
	printf "db: a.db\ndb: b.db\n" >.tracker.yml &&
	test_expect_code 69 tracker history 2>err &&
	grep "^tracker: using the database $PWD/a.db (db: in $PWD/.tracker.yml): $PWD/.tracker.yml:2:1: duplicate key .db." err
'

test_expect_success 'also under -q, and under CI: run runs the job and keeps its status' '
	cd dbline &&
	printf "dbb: meant.db\n" >.tracker.yml &&
	CI=true test_expect_code 3 tracker run -q --key k -- sh -c "echo ran >ran; exit 3" 2>err &&
	test -f ran &&
	grep "^tracker: using the database .*/history.db (the default): .*unknown field .dbb." err
'

test_expect_success 'a config run cannot read: run ignores it and the line says why' '
	cd dbline &&
	printf "\tdb: meant.db\n" >.tracker.yml &&
	CI=true test_expect_code 4 tracker run -q --key k -- sh -c "exit 4" 2>err &&
	cat err &&
	grep "^tracker: warning: ignoring the configuration: " err &&
	grep "^tracker: using the database $XDG_DATA_HOME/tracker/history.db (the default): $PWD/.tracker.yml:1:1: .*tab" err &&
	TRACKER_CONFIG=$PWD/nosuch.yml tracker run -q --key k -- true 2>err &&
	grep "^tracker: using the database $XDG_DATA_HOME/tracker/history.db (the default): config file" err
'

test_expect_success 'nothing new when the config is fine, absent, or its problem is not db:' '
	cd dbline &&
	for cfg in "db: $XDG_DATA_HOME/tracker/history.db" "" "artefacts: arts" none; do
		if test "$cfg" = none; then rm -f .tracker.yml; else printf "%s\n" "$cfg" >.tracker.yml; fi &&
		db_lines &&
		! grep "using the database" err.* || return 1
	done &&
	printf "dbb: meant.db\n" >.tracker.yml &&
	tracker history --db "$XDG_DATA_HOME/tracker/history.db" >/dev/null 2>err &&
	TRACKER_DB="$XDG_DATA_HOME/tracker/history.db" tracker history >/dev/null 2>>err &&
	! grep "using the database" err
'

test_expect_success 'artifacts: is where run writes its record' '
	printf "db: config.db\nartifacts: my-records\n" >.tracker.yml &&
	tracker run --key art -- true;
	rc=$?;
	rm_config;
	test $rc = 0 &&
	test -d my-records &&
	find my-records -type f -name "*.json" | grep .
'

test_done
