#!/bin/sh
# Optional libraries are optional: with pkg-config unable to find libdw
# (and libpq), the Makefile says so in one line each and builds a tracker
# without them, which
# says so in --version and, when the built-in profiler is asked for, in
# one warning line, and still runs the job and records the run. The build
# runs in a copy of the sources (the tree's objects are the full build's),
# at -O0: what it tests is what gets built, not how fast it runs.

. "$(dirname "$0")/test-lib.sh"

command -v make >/dev/null 2>&1 && command -v pkg-config >/dev/null 2>&1 &&
	test_set_prereq MAKE

# pkg-config as on a machine without libdw-dev, libpq-dev and
# libisal-dev: libdw, libelf, libpq and libisal are not found, everything
# else is.
cat >pkg-config <<'EOS'
#!/bin/sh
for a in "$@"; do
	case $a in
	libdw|libelf|libpq|libisal) exit 1 ;;
	esac
done
exec pkg-config "$@"
EOS
chmod +x pkg-config

test_expect_success MAKE 'without libdw: one line at build time, a tracker that builds' '
	mkdir src &&
	(cd "$TRACKER_ROOT" && cp -r Makefile VERSION core plugins cmd "$TRASH_DIRECTORY/src/") &&
	find src -name "*.[od]" -delete &&
	make -C src -j2 CFLAGS=-O0 PKG_CONFIG="$TRASH_DIRECTORY/pkg-config" DEVELOPER=1 \
		tracker libtracker-preload.so >log 2>&1 ||
	{ cat log; false; } &&
	grep "^tracker: libdw not found" log >said &&
	test $(wc -l <said) = 1 &&
	test $(grep -c "^tracker: libpq not found" log) = 1 &&
	test $(grep -c "^tracker: libisal not found" log) = 1 &&
	! grep -i "warning:" log &&
	! nm src/tracker | grep -q " dwfl_" &&
	! nm src/tracker | grep -q " PQconnect"
'

test_expect_success MAKE 'without libpq: a postgresql:// URL says so, exit 69; run keeps the job status' '
	test_expect_code 69 src/tracker history --db postgresql://u:pw@127.0.0.1/x 2>err &&
	grep -x "tracker: error: tracker was built without PostgreSQL support (Debian: libpq-dev)" err &&
	test_expect_code 3 src/tracker run --key k --db postgres://127.0.0.1/x --artifacts sp -- \
		sh -c "exit 3" 2>err &&
	grep "built without PostgreSQL support (Debian: libpq-dev)" err &&
	ls sp/k-*.json
'

test_expect_success MAKE '--version says what the build left out' '
	src/tracker --version >v &&
	grep -x "built without libdw: the built-in profiler records no profiles" v &&
	grep -x "built without libpq: postgresql:// databases are unavailable" v &&
	grep -x "built without ISA-L: stored profiles are inflated with zlib, at half the speed" v &&
	tracker --version >full &&
	test $(wc -l <full) = 1
'

# A stored profile of a few megabytes (400,000 random names), which the
# full build inflates with ISA-L: the same picture from zlib.
test_expect_success MAKE 'without ISA-L: a large stored profile reads the same' '
	awk "BEGIN { srand(7); for (i = 0; i < 200000; i++)
		printf \"main;a%08x;b%08x %d\\n\", int(rand() * 2147483647),
			int(rand() * 2147483647), 1 + int(rand() * 1000) }" >big.folded &&
	tracker run -q --key big --db big.db --artifacts bigart -- true &&
	tracker import --key big --db big.db big.folded &&
	test $(sqlite3 big.db "SELECT length(data) > 1048576 FROM profiles") = 1 &&
	tracker flame --key big --db big.db -o full.svg &&
	src/tracker flame --key big --db big.db -o zlib.svg &&
	cmp full.svg zlib.svg
'

test_expect_success MAKE '--profile alloc: one warning, the job runs and keeps its status' '
	test_expect_code 3 src/tracker run --key k --db h.db --profile alloc -- sh -c "exit 3" \
		2>err &&
	cat err &&
	grep "built without libdw" err &&
	test $(grep -c "libdw" err) = 1 &&
	src/tracker history --db h.db --format csv >runs &&
	test $(wc -l <runs) = 2
'

# a machine with libdw-dev but without libunwind-dev
sed "s/libdw|libelf|libpq|libisal)/libunwind)/" pkg-config >pkg-config-nounwind &&
chmod +x pkg-config-nounwind
ALLOCPATTERN="$TRACKER_ROOT/examples/allocpattern"

# The same sources in this configuration: an object compiles the same
# text in both but where it or a header it includes (its .d file, the
# compiler's own list) reads a macro the Makefile defines by
# configuration (TK_WITH_*). Those are removed and built again, and the
# first build's other objects are kept; make builds what this
# configuration adds (libdw's files) and the libraries afresh.
test_expect_success MAKE 'without libunwind: one line, a preload library that walks frame pointers' '
	(cd src && grep -rl "TK_WITH_" --include="*.[ch]" core plugins cmd) >configured &&
	grep -x "core/measure/profiler.c" configured && grep -x "cmd/tracker.c" configured &&
	grep -x "plugins/preload/preload.c" configured &&
	(cd src && for d in $(find core plugins cmd -name "*.d"); do
		sed "s/^[^:]*://; s/\\\\$//" "$d" | tr " " "\n" | grep -qxF -f ../configured &&
		rm -f "$d" "${d%.d}.o" || :
	done) &&
	test ! -e src/core/measure/profiler.o && test ! -e src/cmd/tracker.o &&
	test ! -e src/plugins/preload/preload.pic.o &&
	test -e src/core/draw/flame.o &&
	rm -f src/tracker src/libtracker.a src/libtracker-preload.so &&
	make -C src -j2 CFLAGS=-O0 PKG_CONFIG="$TRASH_DIRECTORY/pkg-config-nounwind" DEVELOPER=1 \
		tracker libtracker-preload.so >log 2>&1 ||
	{ cat log; false; } &&
	test $(grep -c "^tracker: libunwind not found" log) = 1 &&
	! grep -q "^tracker: libdw" log &&
	! grep -i "warning:" log &&
	! nm -D src/libtracker-preload.so | grep -q " _U" &&
	src/tracker --version | grep -x "built without libunwind: allocation stacks follow frame pointers only"
'

test_expect_success MAKE 'its allocation profile has the program'"'"'s call paths' '
	test -x "$ALLOCPATTERN" &&
	src/tracker run -q --key a --db a.db --profile alloc --sample-bytes 1 -- \
		"$ALLOCPATTERN" pattern >out 2>err &&
	cat err &&
	test $(grep -c "built without libunwind" err) = 1 &&
	src/tracker flame --db a.db --key a --kind alloc -o a.folded &&
	grep -q "^allocpattern;.*main;" a.folded
'

test_done
