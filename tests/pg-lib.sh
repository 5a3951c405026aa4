# pg-lib.sh: sourced, instead of test-lib.sh, by the tests that need a
# PostgreSQL server. It sources test-lib.sh, starts a throwaway server
# with ci/pg-test-server.sh (stopped and removed when the script exits)
# and sets:
#
#   PG_URL   postgresql://tracker@127.0.0.1:PORT/tracker_test
#   PG_DIR   the server's directory
#   PG       the prerequisite, when the server runs
#   pg_down, pg_up: stop the server (keeping its data) and start it again
#
# Without a server the script is skipped, saying why; under CI=true (read
# before test-lib.sh clears it) that is a failure instead: CI must run
# these tests.

pg_lib_ci=${CI:-}
. "$(dirname "$0")/test-lib.sh"

PG_SERVER="$TRACKER_ROOT/ci/pg-test-server.sh"
PG_DIR=$(mktemp -u "${TMPDIR:-/tmp}/tracker-pg.XXXXXX")

pg_cleanup() { "$PG_SERVER" stop "$PG_DIR" >/dev/null 2>&1; }
pg_down() { "$PG_SERVER" down "$PG_DIR"; }
pg_up() { "$PG_SERVER" up "$PG_DIR"; }

# psql on the test database; psql ARGS...
pg_sql() { psql -X -q -v ON_ERROR_STOP=1 "$PG_URL" "$@"; }

trap pg_cleanup EXIT
trap 'pg_cleanup; exit 130' INT TERM
# Connections are logged, so tests can see what a client sent.
PG_TEST_SERVER_OPTS="-c log_connections=on ${PG_TEST_SERVER_OPTS:-}"
export PG_TEST_SERVER_OPTS
if PG_URL=$("$PG_SERVER" start "$PG_DIR" 2>"$TRASH_DIRECTORY/.pg-start"); then
	test_set_prereq PG
	export PG_URL
elif [ "$pg_lib_ci" = true ]; then
	test_expect_success 'the PostgreSQL test server starts (required under CI=true)' '
		cat .pg-start; false
	'
	test_done
else
	skip_all="no PostgreSQL test server: $(tail -1 "$TRASH_DIRECTORY/.pg-start")"
	test_done
fi
