# test-lib.sh: a small TAP library for tracker's end-to-end shell tests.
#
#   . "$(dirname "$0")/test-lib.sh"
#   test_expect_success 'what it checks' '
#   	tracker run --key k -- true &&
#   	tracker history --format csv >out &&
#   	grep ",k," out
#   '
#   test_done
#
# Each test body is eval'd in the test's trash directory (tests/trash.<name>),
# a fresh directory with its own HOME, XDG_DATA_HOME and no CI variables,
# so nothing leaks in from the machine running the suite. Chain commands
# with && : the body's exit status is the verdict.
#
# Prerequisites: `test_expect_success PREREQ 'desc' 'body'` skips honestly
# (TAP "# SKIP") when PREREQ is missing; test_set_prereq NAME sets one.
# Set skip_all='reason' and call test_done to skip a whole script; under
# CI (CI=true) that fails unless skip_all_under_ci=1 says the machine
# itself cannot run it.

TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
TRACKER_ROOT=$(cd "$TEST_DIRECTORY/.." && pwd)
TEST_NAME=$(basename "$0" .sh)
# (a run against another build gets its own: both may run at once)
TRASH_DIRECTORY="$TEST_DIRECTORY/trash.$TEST_NAME${TRACKER_TEST_BIN_DIR:+.$(basename "$TRACKER_TEST_BIN_DIR")}"
SHARED_DIRECTORY=${TRACKER_SHARED:-$(cd "$TRACKER_ROOT/.." && pwd)/shared}
FIXTURES="$TRACKER_ROOT/fixtures"
WORKLOAD="$TRACKER_ROOT/examples/workload"

# The tracker under test: ./tracker, or the one in the directory
# TRACKER_TEST_BIN_DIR names (the sanitized build of make check).
TEST_BIN_DIR=${TRACKER_TEST_BIN_DIR:-$TRACKER_ROOT}
PATH="$TEST_BIN_DIR:$TRACKER_ROOT:$PATH"
export PATH
# Whether the suite runs under CI (CI=true): what CI must run, a test
# does not skip there (CI itself is unset below).
TEST_UNDER_CI=${CI:-}

# A clean environment: no CI variables, no tracker settings from outside.
for v in $(env | sed -n 's/^\(BUILDKITE[A-Z0-9_]*\|GITHUB_[A-Z0-9_]*\|GITLAB_[A-Z0-9_]*\|CI_[A-Z0-9_]*\|SLURM_[A-Z0-9_]*\|TRACKER_[A-Z0-9_]*\)=.*/\1/p'); do
	unset "$v"
done
unset CI

rm -rf "$TRASH_DIRECTORY"
mkdir -p "$TRASH_DIRECTORY" || exit 1
HOME="$TRASH_DIRECTORY"
XDG_DATA_HOME="$TRASH_DIRECTORY/.local/share"
export HOME XDG_DATA_HOME
cd "$TRASH_DIRECTORY" || exit 1

test_count=0
test_failed=0
test_prereqs=" "

say() { printf '# %s\n' "$*"; }

test_set_prereq() { test_prereqs="$test_prereqs$1 "; }

test_have_prereq() {
	case "$test_prereqs" in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

test_expect_success() {
	prereq=
	if [ $# -eq 3 ]; then
		prereq=$1
		shift
	fi
	test_count=$((test_count + 1))
	if [ -n "$prereq" ]; then
		for p in $(echo "$prereq" | tr ',' ' '); do
			if ! test_have_prereq "$p"; then
				printf 'ok %d # SKIP %s (missing %s)\n' "$test_count" "$1" "$p"
				return 0
			fi
		done
	fi
	(cd "$TRASH_DIRECTORY" && eval "$2") >"$TRASH_DIRECTORY/.test-output" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		printf 'ok %d - %s\n' "$test_count" "$1"
	else
		test_failed=$((test_failed + 1))
		printf 'not ok %d - %s\n' "$test_count" "$1"
		printf '#\t%s\n' "$2" | sed 's/^/#/' >&2
		sed 's/^/#   /' "$TRASH_DIRECTORY/.test-output" >&2
	fi
}

test_skip() {
	test_count=$((test_count + 1))
	printf 'ok %d # SKIP %s (%s)\n' "$test_count" "$1" "$2"
}

# Under CI (CI=true) a whole script skips only for what the machine
# cannot do (skip_all_under_ci=1, e.g. a kernel that refuses
# perf_event_open): anything CI installs must be there, so a skip for it
# is a failure that names it.
test_done() {
	if [ -n "$skip_all" ] && [ $test_count -eq 0 ]; then
		if [ "$TEST_UNDER_CI" = true ] && [ -z "${skip_all_under_ci:-}" ]; then
			printf '1..1\nnot ok 1 - under CI this must run, not skip: %s\n' "$skip_all"
			exit 1
		fi
		printf '1..0 # SKIP %s\n' "$skip_all"
		exit 0
	fi
	printf '1..%d\n' "$test_count"
	if [ $test_failed -eq 0 ]; then
		cd "$TEST_DIRECTORY" && rm -rf "$TRASH_DIRECTORY"
		exit 0
	fi
	exit 1
}

# test_cmp EXPECTED ACTUAL
test_cmp() { diff -u "$1" "$2"; }

# test_expect_code N CMD...: CMD must exit with exactly N.
test_expect_code() {
	want=$1
	shift
	"$@"
	got=$?
	if [ "$got" = "$want" ]; then
		return 0
	fi
	echo "test_expect_code: '$*' exited $got, expected $want" >&2
	return 1
}

# test_must_fail CMD...: CMD must fail in an orderly way (1..125, not a
# crash, not "command not found").
test_must_fail() {
	"$@"
	got=$?
	if [ $got -eq 0 ]; then
		echo "test_must_fail: '$*' succeeded" >&2
		return 1
	elif [ $got -gt 125 ]; then
		echo "test_must_fail: '$*' died with status $got" >&2
		return 1
	fi
	return 0
}

# test_within VALUE LOW HIGH: LOW <= VALUE <= HIGH (integers or decimals).
test_within() {
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
	{ echo "test_within: $1 not in [$2, $3]" >&2; return 1; }
}

# wait_for CMD...: until CMD succeeds (at most 20 s, then fails).
wait_for() {
	n=0
	until "$@" >/dev/null 2>&1; do
		n=$((n + 1))
		[ $n -gt 400 ] && { echo "wait_for: '$*' never succeeded" >&2; return 1; }
		sleep 0.05
	done
}

# alive PIDFILE...: every pid in the files still runs
alive() { for f in "$@"; do kill -0 "$(cat "$f")" 2>/dev/null || return 1; done; }
# gone PIDFILE...: none of them runs (zombies of init count as gone)
gone() {
	for f in "$@"; do
		p=$(cat "$f")
		if kill -0 "$p" 2>/dev/null; then
			state=$(sed "s/.*) //" /proc/$p/stat 2>/dev/null | cut -c1)
			test "$state" = Z || return 1
		fi
	done
}

# csv_field FILE ROW COLUMN-NAME: a field of `tracker history --format csv`.
csv_field() {
	awk -F, -v row="$2" -v name="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) col = i; next }
		NR == row + 1 { print $col }' "$1"
}

# Prerequisites the machine may or may not have.
[ -d "$SHARED_DIRECTORY" ] && test_set_prereq SHARED
command -v sqlite3 >/dev/null 2>&1 && test_set_prereq SQLITE3
command -v xmllint >/dev/null 2>&1 && test_set_prereq XMLLINT
[ -x "$WORKLOAD" ] && test_set_prereq WORKLOAD
[ "$(id -u)" != 0 ] && test_set_prereq NOT_ROOT
