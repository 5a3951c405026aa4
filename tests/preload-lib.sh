# preload-lib.sh: helpers for the preload library tests (t900x), sourced
# after test-lib.sh. Needs `make libtracker-preload.so examples/allocpattern
# tests/helpers/rawdump` (make build-tests builds them all).

ALLOCPATTERN="$TRACKER_ROOT/examples/allocpattern"
PRELOAD="$TRACKER_ROOT/libtracker-preload.so"
RAWDUMP="$TRACKER_ROOT/tests/helpers/rawdump"
[ -x "$ALLOCPATTERN" ] && [ -f "$PRELOAD" ] && [ -x "$RAWDUMP" ] && test_set_prereq PRELOAD

# profile VAR=VALUE... CMD...: runs CMD under the preload library into a
# fresh ./prof, with the other settings given as environment assignments.
profile() {
	rm -rf prof && mkdir prof &&
	env TRACKER_PROFILE_DIR="$PWD/prof" LD_PRELOAD="$PRELOAD" "$@"
}

# dump_all: every table in ./prof, symbolized, into ./dump (one "file"
# line before each table's dump).
dump_all() {
	: >dump &&
	for f in prof/*.tkraw; do
		echo "file $f" >>dump &&
		"$RAWDUMP" -s "$f" >>dump || return 1
	done
}

# site_field FUNC COLUMN [FRAME]: sum of a slot column (4 bytes, 5 count,
# 6 peak, 7 cpu_ns) over the slots of ./dump whose frame FRAME (default 1,
# the innermost) is FUNC.
site_field() {
	awk -v f="$1" -v c="$2" -v k="${3:-1}" '
		$1 == "slot" && $(7 + k) == f { s += $c }
		END { printf "%.0f\n", s }' dump
}

# printed FUNC COLUMN: a field of allocpattern's "site FUNC BYTES COUNT" line
# in ./out (COLUMN 3 bytes, 4 count).
printed() {
	awk -v f="$1" -v c="$2" '$1 == "site" && $2 == f { print $c; exit }' out
}
