#!/bin/sh
# The code's layout keeps its rules (docs/design.md): core/ is grouped in
# wings by pipeline stage, each including only itself and the wings below
# it; data flows one way, so nothing in core/ includes a plugins/ or cmd/
# header, no two modules include each other, and commands find plugins
# only through the registry's lookups; the lists of formats kept outside
# the code (the fuzz targets) are the registry's.

. "$(dirname "$0")/test-lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip_all="python3 is not installed (Debian: python3)"
	test_done
fi

GRAPH="$TRACKER_ROOT/tests/helpers/include-graph.py"

test_expect_success 'core/ is in wings that include only themselves and the wings below' '
	python3 "$GRAPH" "$TRACKER_ROOT" --check >found ||
		{ cat found; false; }
'

test_expect_success 'the include checker finds what it is there to find' '
	mkdir -p fake/core/base fake/core/model fake/core/stray &&
	printf "#include \"core/model/b.h\"\n" >fake/core/base/a.c &&
	printf "#include \"core/base/a.h\"\n" >fake/core/model/b.c &&
	printf "#include \"plugins/x.h\"\n" >fake/core/model/c.c &&
	: >fake/core/stray/d.c &&
	: >fake/core/base/a.h && : >fake/core/model/b.h &&
	test_must_fail python3 "$GRAPH" fake --check >found &&
	cat found &&
	grep "core/base/a.c: includes core/model/b.h, of a higher wing" found &&
	grep "core/model/c.c: includes plugins/x.h" found &&
	grep "core/stray/d.c: not in a wing" found &&
	grep "modules include each other: core/base/a, core/model/b" found &&
	grep "core/model/c.c: no header core/model/c.h" found &&
	! grep "core/base/a.c: no header" found
'

test_expect_success 'every wing says what it owns and what it may include' '
	for w in base model measure store analyze draw pages ci; do
		test -s "$TRACKER_ROOT/core/$w/README.md" &&
		grep -q "^May include:" "$TRACKER_ROOT/core/$w/README.md" ||
		{ echo "core/$w/README.md: missing, or no May include: line"; return 1; }
	done
'

test_expect_success 'cmd/ includes no plugins/ header' '
	(cd "$TRACKER_ROOT" && grep -ln "#include \"plugins/" cmd/*.[ch]) >found ||
		true &&
	! test -s found || { cat found; false; }
'

# cmd/ parses options, calls core and prints (cmd/cmd.h): the work is
# core's. These are the calls that are work, not one step of a command:
# store iteration, laying charts and flame graphs out, building profiles,
# the steps of a run around its job, reading directories.
cat >cmd-bans <<EOF
tk_store_query_summaries
tk_store_query_runs
tk_diff_build
tk_plot_layout
tk_plot_data_load
tk_plot_fill_profiles
tk_plot_data_baselines
tk_flame_layout
tk_profile_add_stack
tk_histsink_add_summary
tk_histsink_add_run
tk_check_key
tk_job_run
tk_job_result_to_run
tk_profiler_finish
tk_sacct_for_run
tk_bundle_import
tk_recorder_finish
opendir
readdir
EOF

test_expect_success 'cmd/ calls core for the work, and does none itself' '
	(cd "$TRACKER_ROOT" && grep -nwF -f "$TRASH_DIRECTORY/cmd-bans" cmd/*.c) >found ||
		true &&
	! test -s found || { cat found; false; }
'

test_expect_success 'every call the rule above bans exists (no typo makes it idle)' '
	while read -r name; do
		case $name in opendir|readdir) continue ;; esac
		grep -qw "$name" "$TRACKER_ROOT"/core/*/*.h ||
		{ echo "$name is no core function"; return 1; }
	done <cmd-bans
'

test_expect_success 'only cmd/options.c parses options' '
	(cd "$TRACKER_ROOT" && grep -lE "getopt(_long)?\(|<getopt.h>" cmd/*.c) >found ||
		true &&
	! grep -v -x cmd/options.c found || { cat found; false; }
'

test_expect_success 'core/ and cmd/ name no plugin descriptor or table' '
	cat "$TRACKER_ROOT"/plugins/*/*.h |
		sed -n "s/^extern const struct [a-z_]* \(tk_[a-z_]*\);$/\1/p" >descriptors &&
	test $(wc -l <descriptors) -ge 20 &&
	printf "%s\n" tk_importers tk_renderers tk_diff_renderers tk_ci_providers \
		tk_store_backends >>descriptors &&
	(cd "$TRACKER_ROOT" && grep -rnwF -f "$TRASH_DIRECTORY/descriptors" core cmd --include="*.[ch]") \
		>found || true &&
	! test -s found || { cat found; false; }
'

# Each plugin family owns its table (plugins/README.md): a header
# declaring its descriptors, one table file, and lookups that check each
# descriptor's version.
test_expect_success 'each plugin family owns its table, which checks versions' '
	for fam in ci store import render diffrender; do
		tables=$(cd "$TRACKER_ROOT" && grep -l "static const struct tk_[a-z_]* \*const" plugins/$fam/*.c) &&
		test $(echo "$tables" | wc -w) = 1 &&
		grep -q -- "->version == TK_[A-Z_]*VERSION" "$TRACKER_ROOT/$tables" ||
		{ echo "plugins/$fam: no single table checking versions ($tables)"; return 1; }
	done &&
	! test -e "$TRACKER_ROOT/plugins/registry.c"
'

# core/ writes only to a FILE * it is given: no stdout, stderr or printf.
# The one exception is the allocator'"'"'s last word before abort() when
# memory runs out (core/base/buf.c), when there is no caller left to tell.
test_expect_success 'core/ prints only to a FILE * it is given' '
	(cd "$TRACKER_ROOT" &&
	 grep -rnE "(^|[^a-z_])(printf|puts|putchar|perror)\(|std(out|err)" core --include="*.c") |
		grep -v "^core/base/buf.c:[0-9]*:.*out of memory" >found ||
		true &&
	! test -s found || { cat found; false; }
'

test_expect_success 'the fuzz targets are the registry'"'"'s importers' '
	tracker flame --list-formats | sort >registry &&
	sed -n "s/^FUZZ_FORMATS ?= //p" "$TRACKER_ROOT/Makefile" | tr " " "\n" | sort >fuzz &&
	test_cmp registry fuzz
'

test_done
