#!/bin/sh
# The code's layout keeps its rules (docs/design.md): data flows one way,
# so nothing in core/ includes a plugins/ header and commands find plugins
# only through the registry's lookups; the lists of formats kept outside
# the code (the fuzz targets) are the registry's.

. "$(dirname "$0")/test-lib.sh"

test_expect_success 'core/ and cmd/ include no plugins/ header' '
	(cd "$TRACKER_ROOT" && grep -ln "#include \"plugins/" core/*.[ch] cmd/*.[ch]) >found ||
		true &&
	! test -s found || { cat found; false; }
'

test_expect_success 'core/ and cmd/ name no plugin descriptor or table' '
	sed -n "s/^extern const struct [a-z_]* \(tk_[a-z_]*\);$/\1/p" \
		"$TRACKER_ROOT/plugins/plugins.h" >descriptors &&
	test $(wc -l <descriptors) -ge 20 &&
	printf "%s\n" tk_importers tk_renderers tk_diff_renderers tk_ci_providers \
		tk_store_backends >>descriptors &&
	(cd "$TRACKER_ROOT" && grep -nwF -f "$TRASH_DIRECTORY/descriptors" core/*.[ch] cmd/*.[ch]) \
		>found || true &&
	! test -s found || { cat found; false; }
'

# cmd/ is thin (docs/design.md): a command parses options, calls core and
# prints. A command file that grows past 450 lines holds library work that
# a report, a check or a unit test cannot reach.
test_expect_success 'no cmd/*.c file is over 450 lines' '
	(cd "$TRACKER_ROOT" && wc -l cmd/*.c) | awk "\$2 != \"total\" && \$1 > 450" >found &&
	test $(cd "$TRACKER_ROOT" && ls cmd/*.c | wc -l) -ge 5 &&
	! test -s found || { cat found; false; }
'

# core/ writes only to a FILE * it is given: no stdout, stderr or printf.
# The one exception is the allocator'"'"'s last word before abort() when
# memory runs out (core/buf.c), when there is no caller left to tell.
test_expect_success 'core/ prints only to a FILE * it is given' '
	(cd "$TRACKER_ROOT" &&
	 grep -nE "(^|[^a-z_])(printf|puts|putchar|perror)\(|std(out|err)" core/*.c) |
		grep -v "^core/buf.c:[0-9]*:.*out of memory" >found ||
		true &&
	! test -s found || { cat found; false; }
'

test_expect_success 'the fuzz targets are the registry'"'"'s importers' '
	tracker flame --list-formats | sort >registry &&
	sed -n "s/^FUZZ_FORMATS ?= //p" "$TRACKER_ROOT/Makefile" | tr " " "\n" | sort >fuzz &&
	test_cmp registry fuzz
'

test_done
