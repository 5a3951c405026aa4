#!/bin/sh
# The wrapper carries only what a run needs: libcurl, libpq and cairo (and
# the TLS, Kerberos, LDAP and X11 libraries they bring) are loaded when
# tracker first talks HTTP, opens a postgresql:// database or draws a
# picture, not at start-up (core/base/lazylib.h). A job sees its wrapper as its
# parent, so it can read the wrapper's mappings.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'tracker run maps none of libcurl, libpq, cairo' '
	tracker run -q --key lean --db db.sqlite --artifacts art -- \
		sh -c "cat /proc/\$PPID/maps" >maps &&
	grep -q "libsqlite3" maps &&
	! grep -E "libcurl|libpq|libcairo|libssl|libgnutls|libkrb5|libX11" maps
'

test_expect_success 'tracker --version does not link them either' '
	! ldd "$TRACKER_ROOT/tracker" | grep -E "libcurl|libpq|libcairo"
'

test_expect_success 'a picture loads cairo when it is drawn' '
	tracker history --db db.sqlite --key lean --plot lean.png 2>err &&
	head -c 8 lean.png | od -An -c | grep -q "P   N   G"
'

# dlopen searches LD_LIBRARY_PATH first: a broken libcairo.so.2 there is a
# machine without a working cairo.
test_expect_success 'no working cairo: exit 69 naming it and its package, no file' '
	mkdir broken &&
	echo "not a library" >broken/libcairo.so.2 &&
	printf "main;solve 3\n" >p.folded &&
	test_expect_code 69 env LD_LIBRARY_PATH="$PWD/broken" tracker flame p.folded -o p.png 2>err &&
	grep "cannot write .*p.png.: PNG and PDF output needs libcairo.so.2" err &&
	grep "apt-get install libcairo2" err &&
	test ! -e p.png &&
	env LD_LIBRARY_PATH="$PWD/broken" tracker flame p.folded -o p.svg
'

test_done
