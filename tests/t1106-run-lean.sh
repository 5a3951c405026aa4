#!/bin/sh
# The wrapper carries only what a run needs: libcurl, libpq and cairo (and
# the TLS, Kerberos, LDAP and X11 libraries they bring) are loaded when
# tracker first talks HTTP, opens a postgresql:// database or draws a
# picture, not at start-up (core/lazylib.h). A job sees its wrapper as its
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

test_done
