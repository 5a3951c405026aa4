#!/bin/sh
# Wherever a database is asked for (--db in every command's -h and docs
# page, $TRACKER_DB, db: in .tracker.yml, the man page, the README), both
# stores are named: a path or sqlite:PATH for SQLite, postgresql://... for
# PostgreSQL. A text that says only "a path" sends PostgreSQL users to
# look for a feature that exists.

. "$(dirname "$0")/test-lib.sh"

DOCS="$TRACKER_ROOT/docs"

# both_stores WHAT FILE: FILE names both stores, else says WHAT lacks them
both_stores() {
	grep -q "postgresql://" "$2" && grep -q "sqlite:PATH" "$2" ||
	{ echo "$1 does not name both stores:"; cat "$2"; return 1; }
}

test_expect_success 'every command with --db names both stores in its -h' '
	n=0 &&
	for cmd in $(tracker --list-commands); do
		tracker --list-options $cmd | grep -qx -e --db || continue
		n=$((n + 1)) &&
		tracker $cmd -h >help &&
		awk "/^  --db URL/ { p = 1; print; next } p && /^  -/ { exit } p && /^\$/ { exit } p" \
			help >entry &&
		test -s entry &&
		both_stores "tracker $cmd -h: --db" entry || return 1
	done &&
	test $n -ge 10
'

test_expect_success 'every docs page of a command with --db names both stores there' '
	for cmd in $(tracker --list-commands); do
		tracker --list-options $cmd | grep -qx -e --db || continue
		page="$DOCS/tracker-$cmd.md" &&
		awk "/^\`--db URL\`\$/ { p = 1; next } p && /^\$/ { exit } p" "$page" >entry &&
		test -s entry &&
		both_stores "$page: --db URL" entry || return 1
	done
'

test_expect_success 'db: in docs/config.md, the URLs in docs/stores.md' '
	grep "^| \`db\` |" "$DOCS/config.md" >entry &&
	both_stores "docs/config.md: db" entry &&
	! grep -i "only store" "$DOCS/config.md" &&
	sed -n "1,/^## SQLite/p" "$DOCS/stores.md" >entry &&
	both_stores "docs/stores.md: the URL" entry
'

test_expect_success 'the man page: --db, DATABASE, TRACKER_DB and the configuration' '
	man="$DOCS/tracker.1" &&
	grep -c "^\.BI \\\\-\\\\-db \" URL\"" "$man" >count &&
	test $(cat count) -ge 1 &&
	grep -A6 "^\.BI \\\\-\\\\-db \" URL\"" "$man" | sed "s/^\.BI sqlite: PATH/sqlite:PATH/" >entry &&
	test $(grep -c "postgresql://" entry) = $(cat count) &&
	sed -n "/^\.SH DATABASE/,/^\.SH /p" "$man" | sed "s/^\.BI sqlite: PATH/sqlite:PATH/" >entry &&
	both_stores "tracker.1: DATABASE" entry &&
	sed -n "/^\.B TRACKER_DB\$/,/^\.TP/p" "$man" | sed "s/^\.BI sqlite: PATH/sqlite:PATH/" >entry &&
	both_stores "tracker.1: TRACKER_DB" entry &&
	sed -n "/^\.SH CONFIGURATION/,/^\.SH /p" "$man" | sed "s/^\.BI sqlite: PATH/sqlite:PATH/" >entry &&
	both_stores "tracker.1: CONFIGURATION" entry &&
	! grep -i "the only store" "$man"
'

test_expect_success 'the README names PostgreSQL beside TRACKER_DB' '
	grep -n "TRACKER_DB" "$TRACKER_ROOT/README.md" | cut -d: -f1 >lines &&
	test -s lines &&
	while read -r l; do
		sed -n "$l,$((l + 1))p" "$TRACKER_ROOT/README.md" | grep -q "postgresql://" ||
		{ echo "README.md:$l: TRACKER_DB without postgresql://"; return 1; }
	done <lines
'

test_done
