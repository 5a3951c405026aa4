# tracker — GNU make. `make` builds ./tracker; `make check` runs the suite.
#   DEVELOPER=1               strict warnings as errors
#   SANITIZE=address,undefined build everything with sanitizers
#   PREFIX=/usr/local         install prefix for `make install`

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib/tracker
MANDIR ?= $(PREFIX)/share/man
CC ?= cc
PKG_CONFIG ?= pkg-config
# The core libraries are required. Optional ones are probed: a missing
# one turns its feature off with one line here and one where it is used.
HAVE_LIBDW := $(shell $(PKG_CONFIG) --exists libdw libelf && echo yes)
ifeq ($(HAVE_LIBDW),yes)
OPT_PKGS := libdw libelf
NOT_BUILT := core/measure/symbolize-none.c core/measure/unwind-none.c
else
$(info tracker: libdw not found (Debian: libdw-dev), building without it: the built-in profiler will record no profiles, perf CPU call paths follow frame pointers)
OPT_PKGS :=
NOT_BUILT := core/measure/symbolize.c core/measure/unwind.c tests/unit/t-symbolize.c tests/unit/t-unwind.c
endif
HAVE_LIBUNWIND := $(shell $(PKG_CONFIG) --exists libunwind && echo yes)
ifeq ($(HAVE_LIBUNWIND),yes)
UNWIND_CFLAGS := -DTK_WITH_LIBUNWIND $(shell $(PKG_CONFIG) --cflags libunwind)
UNWIND_LIBS := $(shell $(PKG_CONFIG) --libs libunwind)
else
$(info tracker: libunwind not found (Debian: libunwind-dev), building without it: the allocation profiler and the timer CPU sampler follow frame pointers only)
UNWIND_CFLAGS :=
UNWIND_LIBS :=
endif
HAVE_LIBPQ := $(shell $(PKG_CONFIG) --exists libpq && echo yes)
ifeq ($(HAVE_LIBPQ),yes)
OPT_PKGS += libpq
NOT_BUILT += plugins/store/postgres-none.c
else
$(info tracker: libpq not found (Debian: libpq-dev), building without it: postgresql:// databases are unavailable)
NOT_BUILT += plugins/store/postgres.c tests/unit/t-store-postgres.c
endif
HAVE_ISAL := $(shell $(PKG_CONFIG) --exists libisal && echo yes)
ifeq ($(HAVE_ISAL),yes)
OPT_PKGS += libisal
else
$(info tracker: libisal not found (Debian: libisal-dev), building without it: stored profiles are inflated with zlib, at half the speed)
endif
PKGS := libcurl sqlite3 yaml-0.1 cairo jansson zlib $(OPT_PKGS)

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

CFLAGS ?= -O2 -g
ALL_CFLAGS := $(CFLAGS) -std=c11 -D_GNU_SOURCE -I. -MMD -MP \
	-DTRACKER_VERSION='"$(VERSION)"' -DTRACKER_LIBDIR='"$(LIBDIR)"' \
	$(if $(filter yes,$(HAVE_LIBUNWIND)),-DTK_WITH_LIBUNWIND) \
	$(if $(filter yes,$(HAVE_LIBPQ)),-DTK_WITH_LIBPQ) \
	$(if $(filter yes,$(HAVE_ISAL)),-DTK_WITH_ISAL) \
	$(shell $(PKG_CONFIG) --cflags $(PKGS))
ALL_LDFLAGS := $(LDFLAGS)
# libiberty (cplus_demangle, core/model/demangle.c) ships no pkg-config file:
# Debian's libiberty-dev has only the static libiberty.a, linked by name.
# libcurl, cairo and libpq are not linked: they and the 46 libraries they
# bring would cost every `tracker run` about 14 ms of loading. They are
# dlopened by soname when first used (core/base/lazylib.h); the sonames are
# those of the libraries built against. So is ISA-L, which only reading a
# large stored profile needs.
LAZY_PKGS := libcurl cairo $(if $(filter yes,$(HAVE_LIBPQ)),libpq) $(if $(filter yes,$(HAVE_ISAL)),libisal)
LIBS := $(shell $(PKG_CONFIG) --libs $(filter-out $(LAZY_PKGS),$(PKGS))) -liberty -ldl -lm -pthread
soname = $(shell objdump -p "$$($(PKG_CONFIG) --variable=libdir $(1))/$(2)" 2>/dev/null | \
	awk '$$1 == "SONAME" { print $$2 }')
SONAME_CURL := $(call soname,libcurl,libcurl.so)
SONAME_CAIRO := $(call soname,cairo,libcairo.so)
SONAME_PQ := $(if $(filter yes,$(HAVE_LIBPQ)),$(call soname,libpq,libpq.so))
SONAME_ISAL := $(if $(filter yes,$(HAVE_ISAL)),$(call soname,libisal,libisal.so))
ALL_CFLAGS += $(if $(SONAME_CURL),-DTK_SONAME_CURL='"$(SONAME_CURL)"') \
	$(if $(SONAME_CAIRO),-DTK_SONAME_CAIRO='"$(SONAME_CAIRO)"') \
	$(if $(SONAME_PQ),-DTK_SONAME_PQ='"$(SONAME_PQ)"') \
	$(if $(SONAME_ISAL),-DTK_SONAME_ISAL='"$(SONAME_ISAL)"')

ifeq ($(DEVELOPER),1)
ALL_CFLAGS += -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wpointer-arith \
	-Wstrict-prototypes -Wmissing-prototypes -Wvla -Wdeclaration-after-statement \
	-Wno-unused-parameter -Wno-missing-field-initializers -Wold-style-definition
else
ALL_CFLAGS += -Wall
endif

ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
ALL_LDFLAGS += -fsanitize=$(SANITIZE)
endif

CORE_SRC := $(filter-out $(NOT_BUILT),$(wildcard core/*/*.c))
PLUGIN_SRC := $(filter-out $(NOT_BUILT),$(wildcard plugins/*.c plugins/ci/*.c plugins/store/*.c plugins/import/*.c plugins/render/*.c plugins/diffrender/*.c))
CMD_SRC := $(wildcard cmd/*.c)
UNIT_SRC := $(filter-out $(NOT_BUILT),$(wildcard tests/unit/t-*.c))
HELPER_SRC := $(wildcard tests/helpers/*.c)
EXAMPLE_SRC := $(wildcard examples/*.c)
BENCH_SRC := $(wildcard bench/*.c)
PRELOAD_SRC := $(wildcard plugins/preload/*.c)

LIB_OBJ := $(CORE_SRC:.c=.o) $(PLUGIN_SRC:.c=.o)
CMD_OBJ := $(CMD_SRC:.c=.o)
LIB := libtracker.a
UNIT_BIN := $(UNIT_SRC:.c=)
HELPER_BIN := $(HELPER_SRC:.c=)
EXAMPLE_BIN := $(EXAMPLE_SRC:.c=) $(if $(wildcard examples/allocpattern.c),examples/allocpattern-static) \
	$(if $(wildcard examples/climate.c),$(addprefix examples/climate-,feature alloc cpu))
EXAMPLE_BIN += $(if $(wildcard examples/cpumodel.c),$(addprefix examples/cpumodel-,fp nofp nofp-nog nocfi))
BENCH_BIN := $(BENCH_SRC:.c=)
PRELOAD_OBJ := $(PRELOAD_SRC:.c=.pic.o)
PRELOAD_LIB := libtracker-preload.so

all: tracker $(PRELOAD_LIB) $(EXAMPLE_BIN)

ifneq ($(V),1)
QUIET_CC = @echo '   CC $@';
QUIET_LINK = @echo ' LINK $@';
endif

%.o: %.c
	$(QUIET_CC)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(LIB): $(LIB_OBJ)
	$(RM) $@
	$(AR) rcs $@ $^

tracker: $(CMD_OBJ) $(LIB)
	$(QUIET_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $(CMD_OBJ) $(LIB) $(LIBS)

# The profiler tracker injects into jobs with LD_PRELOAD (plugins/preload).
# Never built with sanitizers: it replaces malloc in the job, and must keep
# frame pointers and initial-exec TLS (it is loaded at start, never with
# dlopen).
PRELOAD_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=all,$(ALL_CFLAGS)) \
	-fPIC -fno-omit-frame-pointer -ftls-model=initial-exec -fvisibility=hidden \
	$(UNWIND_CFLAGS)
PRELOAD_LIBS := $(UNWIND_LIBS) -ldl -lm -pthread

plugins/preload/%.pic.o: plugins/preload/%.c
	$(QUIET_CC)$(CC) $(PRELOAD_CFLAGS) -c -o $@ $<

$(PRELOAD_LIB): $(PRELOAD_OBJ)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -shared -Wl,-z,defs -o $@ $(PRELOAD_OBJ) $(PRELOAD_LIBS)

tests/unit/t-%: tests/unit/t-%.c $(LIB) tests/unit/tap.h
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LIBS)

# The kernel walks t-perfrec's own stacks along frame pointers (gcc also
# asks for them per function; clang has no attribute for it).
tests/unit/t-perfrec: ALL_CFLAGS += -fno-omit-frame-pointer

tests/helpers/%: tests/helpers/%.c
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

bench/%: bench/%.c $(LIB)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LIB) $(LIBS)

# The example workloads are jobs the profiler runs (the demo profiles
# them with LD_PRELOAD): never sanitized, as the ASan runtime must come
# first in a sanitized program and the preload library would not.
EXAMPLE_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=all,$(ALL_CFLAGS))
examples/%: examples/%.c
	$(QUIET_LINK)$(CC) $(EXAMPLE_CFLAGS) $(LDFLAGS) -o $@ $<

# Programs the profiler runs on: frame pointers, no sanitizer (it would
# take malloc from the preload library), and a static build of the
# allocation fixture, which LD_PRELOAD cannot reach.
PROFILEE_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=all,$(ALL_CFLAGS)) \
	-fno-omit-frame-pointer
examples/allocpattern: examples/allocpattern.c
	$(QUIET_LINK)$(CC) $(PROFILEE_CFLAGS) $(LDFLAGS) -o $@ $< -pthread

examples/allocpattern-static: examples/allocpattern.c
	$(QUIET_LINK)$(CC) $(PROFILEE_CFLAGS) $(LDFLAGS) -static -o $@ $< -pthread

# The toy model of the known-answer tests and the demo, built as users
# build (-O2 -g, no frame pointers, no sanitizer), four times: main, and
# features whose one function does twice the work, allocates twice as
# much, or computes twice as long (examples/climate.c).
CLIMATE_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=all,$(ALL_CFLAGS))
examples/climate: examples/climate.c
	$(QUIET_LINK)$(CC) $(CLIMATE_CFLAGS) $(LDFLAGS) -o $@ $<

examples/climate-feature: examples/climate.c
	$(QUIET_LINK)$(CC) $(CLIMATE_CFLAGS) -DRADIATION=2 $(LDFLAGS) -o $@ $<

examples/climate-alloc: examples/climate.c
	$(QUIET_LINK)$(CC) $(CLIMATE_CFLAGS) -DRADIATION_ALLOC=2 $(LDFLAGS) -o $@ $<

examples/climate-cpu: examples/climate.c
	$(QUIET_LINK)$(CC) $(CLIMATE_CFLAGS) -DADVECT_CPU=2 $(LDFLAGS) -o $@ $<

bench/alloc-heavy bench/compute: %: %.c
	$(QUIET_LINK)$(CC) $(PROFILEE_CFLAGS) $(LDFLAGS) -o $@ $< -lm

# The CPU profiler's fixture built the ways programs come: with frame
# pointers, without (GCC's -O2 default) with or without DWARF, and without
# any unwind tables.
examples/cpumodel-fp: CPUMODEL_FLAGS := -g -fno-omit-frame-pointer
examples/cpumodel-nofp: CPUMODEL_FLAGS := -g -fomit-frame-pointer
examples/cpumodel-nofp-nog: CPUMODEL_FLAGS := -fomit-frame-pointer
examples/cpumodel-nocfi: CPUMODEL_FLAGS := -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables
$(addprefix examples/cpumodel-,fp nofp nofp-nog nocfi): examples/cpumodel.c
	$(QUIET_LINK)$(CC) -O2 $(CPUMODEL_FLAGS) $(LDFLAGS) -o $@ $<

build-tests: tracker $(PRELOAD_LIB) $(UNIT_BIN) $(HELPER_BIN) $(EXAMPLE_BIN)

# The browser tests' npm dependencies (playwright-core; speedscope, whose
# importer reads back the exports in t3030), installed once
# before prove starts, never by a test. Without npm or the registry the
# browser tests skip and say why.
BROWSER_DEPS := tests/browser/node_modules/.package-lock.json
$(BROWSER_DEPS): tests/browser/package-lock.json
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "browser-deps: npm is not installed; the browser tests will skip"; \
	elif ! npm ci --prefix tests/browser --no-audit --no-fund --loglevel=error; then \
		echo "browser-deps: npm ci in tests/browser failed; the browser tests will skip"; \
	fi
browser-deps: $(BROWSER_DEPS)

# The whole suite: C unit tests and shell end-to-end tests, all TAP, by
# prove; the unit tests twice, the second time built with sanitizers
# (build-san/, see below), and t0100 runs the importer tests on the
# sanitized tracker.
# The two builds run two compilers at once even under a plain `make
# check` (a -j of the caller's own is kept: no -j2 is added to it).
# prove runs CHECK_JOBS test files at once: three more than the two cores
# this suite is sized for, as many tests spend much of their time
# waiting (on servers, signals, sleeps, the disk), and one slot is the
# SLURM cluster's (t1210: about 160 s, most of it waiting for its jobs'
# time limit, a minute at least). The longest start first (CHECK_FIRST,
# those that exist), so none is left running alone at the end.
CHECK_JOBS ?= 5
CHECK_FIRST := tests/t1210-slurm-cluster.sh tests/t0008-optional-deps.sh tests/t9005-preload-fork.sh \
	tests/t5003-fuzz-smoke.sh tests/t0005-clang-build.sh tests/t9011-cpu-callpaths.sh \
	tests/t8111-pg-lock-timeout.sh tests/t8120-pg-reader-deadline.sh tests/t8113-fetch-bounds.sh tests/t1140-run-memory-timeline.sh \
	tests/t3030-flame-export.sh \
	tests/t7200-report.sh tests/t0100-sanitized.sh tests/t0004-docs-commands.sh \
	tests/t4003-diff-known-answer.sh tests/t7100-pipeline-wrap.sh tests/t7104-pipeline-matrix.sh \
	tests/unit/t-perfrec tests/t6102-pg-concurrent.sh tests/t3002-flame-browser.sh \
	tests/t4002-diff-browser.sh tests/t5100-import-memory.sh tests/t9007-preload-programs.sh \
	tests/t9010-run-profile.sh
CHECK_TESTS = $(foreach t,$(CHECK_FIRST),$(filter $(t),$(UNIT_BIN) $(wildcard tests/t[0-9]*.sh))) \
	$(filter-out $(CHECK_FIRST),$(UNIT_BIN) $(SAN_UNIT) $(wildcard tests/t[0-9]*.sh))
# The tests are built with the strict warnings (DEVELOPER=1, as errors);
# CHECK_DEVELOPER= builds them with the plain set.
CHECK_DEVELOPER ?= 1
check: $(BROWSER_DEPS)
	$(MAKE) $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j2) DEVELOPER=$(CHECK_DEVELOPER) \
		build-tests san-build
	$(SAN_ENV) prove -j$(CHECK_JOBS) --timer $(PROVE_FLAGS) $(CHECK_TESTS)

# The reliability suite alone (tests/t8xxx: hostile servers, full disks,
# held locks, shared directories; docs/reliability.md lists each bound
# with its test). make check runs it too.
reliability:
	$(MAKE) $(if $(filter -j% --jobserver%,$(MAKEFLAGS)),,-j2) DEVELOPER=$(CHECK_DEVELOPER) \
		build-tests
	prove -j$(CHECK_JOBS) --timer $(PROVE_FLAGS) $(wildcard tests/t8[0-9]*.sh)

# The README's test command on a fresh clone of the committed tree, in a
# temporary directory (with ../shared beside it when this tree has one),
# as CI runs it: CI=true, no standard input.
check-fresh:
	@sh ci/check-fresh.sh

bench: tracker $(PRELOAD_LIB) $(EXAMPLE_BIN) $(BENCH_BIN)
	@sh bench/run.sh

demo: tracker $(PRELOAD_LIB) $(EXAMPLE_BIN)
	@sh examples/demo.sh

install: tracker $(PRELOAD_LIB)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 tracker $(DESTDIR)$(BINDIR)/tracker
	install -m 644 $(PRELOAD_LIB) $(DESTDIR)$(LIBDIR)/$(PRELOAD_LIB)
	install -m 644 docs/tracker.1 $(DESTDIR)$(MANDIR)/man1/tracker.1

clean:
	$(RM) $(PRELOAD_LIB) $(PRELOAD_OBJ) $(PRELOAD_OBJ:.o=.d)
	$(RM) tracker $(LIB) $(LIB_OBJ) $(CMD_OBJ) $(UNIT_BIN) $(HELPER_BIN) $(EXAMPLE_BIN) $(BENCH_BIN)
	$(RM) $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_BIN:=.d) $(HELPER_BIN:=.d) $(EXAMPLE_BIN:=.d) $(BENCH_BIN:=.d)
	$(RM) -r tests/trash.* fuzz/out fuzz/obj $(SAN_DIR) fuzz/fuzz-*

# Fuzzing (fuzz/README): every fuzz/<name>.c is a libFuzzer target,
# fuzz/fuzz-<name>, seeded from fixtures/<name>/ and fuzz/seeds/<name>/
# (those that exist; pipewrap from fixtures/pipelines/, bkapi from
# fixtures/buildkite-api/), with fuzz/<name>.dict when there is one;
# fuzz/import.c is built once per importer format
# instead, as import-<format>, seeded from fixtures/<format>/. Built
# with clang from the library sources (not libtracker.a, which is built
# with $(CC)): the library is compiled once into fuzz/obj/ and every
# target links it with its own .c.
FUZZ_FORMATS ?= folded perf gperftools-heap gperftools-cpu nsys pprof speedscope cpuprofile profilecanvas dtrace
FUZZ_TARGETS ?= $(addprefix import-,$(FUZZ_FORMATS)) \
	$(filter-out import,$(basename $(notdir $(wildcard fuzz/*.c))))
FUZZ_SECONDS ?= 20
FUZZ_CC ?= clang
# -O0 builds the library in half the time; the smoke test of make check
# takes it, a long run wants -O1's speed.
FUZZ_OPT ?= -O1
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -g $(FUZZ_OPT) -std=c11 -D_GNU_SOURCE -I. -DTRACKER_VERSION='"$(VERSION)"' \
	$(if $(filter yes,$(HAVE_LIBPQ)),-DTK_WITH_LIBPQ) \
	$(if $(filter yes,$(HAVE_ISAL)),-DTK_WITH_ISAL) \
	$(shell $(PKG_CONFIG) --cflags $(PKGS))
# The job's supervision stays out, and tracker run's steps that call it
# (core/ci/runstep.c): every object here is linked, and no target runs a
# job.
FUZZ_LIB_SRC := $(filter-out core/measure/job.c core/ci/runstep.c,$(CORE_SRC)) $(PLUGIN_SRC)
FUZZ_OBJ := $(addprefix fuzz/obj/,$(FUZZ_LIB_SRC:.c=.o))

fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -MMD -MP \
		-c -o $@ $<

fuzz/fuzz-import-%: fuzz/import.c $(FUZZ_OBJ)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer \
		-DFUZZ_FORMAT='"$*"' -o $@ $< $(FUZZ_OBJ) $(LIBS)

fuzz/fuzz-%: fuzz/%.c $(FUZZ_OBJ)
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_OBJ) $(LIBS)

fuzz-build: $(addprefix fuzz/fuzz-,$(FUZZ_TARGETS))

# Runs each target for FUZZ_SECONDS on its seeds or, with FUZZ_RUNS=N
# (the smoke test of make check), for N inputs: every seed and every
# input of fuzz/out/<target>/ once, then mutations up to N in all, the
# same work however busy the machine is. New corpus entries go to
# $(FUZZ_OUT)/<target>/, crashes to $(FUZZ_OUT)/<target>-crash-* (not
# committed; FUZZ_OUT is fuzz/out unless given). An input that takes
# over 10 s or 2 GiB is a finding too.
FUZZ_RUNS ?=
FUZZ_OUT ?= fuzz/out
FUZZ_LIMIT := $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS),-max_total_time=$(FUZZ_SECONDS))
FUZZ_SAYS := $(if $(FUZZ_RUNS),$(FUZZ_RUNS) runs,$(FUZZ_SECONDS) s)
fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		s=$${t#import-}; mkdir -p $(FUZZ_OUT)/$$t; \
		case $$t in pipewrap) s=pipelines ;; bkapi) s=buildkite-api ;; perf-split) s=perf ;; esac; \
		seeds=$$(for d in fixtures/$$s fuzz/seeds/$$t; do [ -d $$d ] && echo $$d; done); \
		[ -f fuzz/$$t.dict ] && seeds="-dict=fuzz/$$t.dict $$seeds"; \
		echo "fuzz: $$t for $(FUZZ_SAYS)"; \
		./fuzz/fuzz-$$t $(FUZZ_LIMIT) -max_len=65536 -rss_limit_mb=2048 \
			-timeout=10 -print_final_stats=1 -artifact_prefix=$(FUZZ_OUT)/$$t- \
			$(FUZZ_OUT)/$$t $$seeds >$(FUZZ_OUT)/$$t.log 2>&1 || \
			{ grep -A30 "ERROR:\|==ERROR\|runtime error" $(FUZZ_OUT)/$$t.log | head -40; \
			  tail -3 $(FUZZ_OUT)/$$t.log; exit 1; }; \
		grep "stat::number_of_executed_units" $(FUZZ_OUT)/$$t.log; \
	done

# The sanitized half of `make check`: the library, tracker and the unit
# tests built again with SANITIZE_CHECK into build-san/ (the normal
# objects are untouched); check runs those unit tests, and
# tests/t0100-sanitized.sh runs the importer and input-safety shell
# tests (t5xxx, t82xx) against build-san/tracker. The preload library and
# the programs the profiler runs on are never sanitized (see the rules
# above), so the profiler's shell tests run in the plain half only.
SANITIZE_CHECK ?= address,undefined
SAN_DIR := build-san
SAN_CFLAGS := $(filter-out -fsanitize=% -fno-sanitize-recover=all,$(ALL_CFLAGS)) -O1 \
	-fsanitize=$(SANITIZE_CHECK) -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_LDFLAGS := $(LDFLAGS) -fsanitize=$(SANITIZE_CHECK)
SAN_LIB := $(SAN_DIR)/libtracker.a
SAN_UNIT := $(addprefix $(SAN_DIR)/,$(UNIT_BIN))
SAN_ENV := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp
$(SAN_DIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(QUIET_CC)$(CC) $(SAN_CFLAGS) -c -o $@ $<

$(SAN_LIB): $(addprefix $(SAN_DIR)/,$(LIB_OBJ))
	$(RM) $@
	$(AR) rcs $@ $^

$(SAN_DIR)/tracker: $(addprefix $(SAN_DIR)/,$(CMD_OBJ)) $(SAN_LIB)
	$(QUIET_LINK)$(CC) $(SAN_LDFLAGS) -o $@ $^ $(LIBS)

$(SAN_DIR)/tests/unit/t-%: tests/unit/t-%.c $(SAN_LIB) tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(SAN_CFLAGS) $(SAN_LDFLAGS) -o $@ $< $(SAN_LIB) $(LIBS)

# t-perfrec runs examples/workload from beside its own tests/ folder
# (../../examples): the sanitized copy has its own, built as the examples
# are (never sanitized: it is a job the profiler samples).
$(SAN_DIR)/examples/workload: examples/workload.c
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(EXAMPLE_CFLAGS) $(LDFLAGS) -o $@ $<

san-build: $(SAN_DIR)/tracker $(SAN_UNIT) $(SAN_DIR)/examples/workload

# Only the sanitized half, for a quick look.
check-sanitized: san-build build-tests
	$(SAN_ENV) prove -j2 --timer $(PROVE_FLAGS) $(SAN_UNIT) tests/t0100-sanitized.sh

.PHONY: all check reliability check-fresh browser-deps bench demo install clean build-tests fuzz fuzz-build \
	san-build check-sanitized
.SECONDARY:

-include $(LIB_OBJ:.o=.d) $(CMD_OBJ:.o=.d) $(UNIT_BIN:=.d) $(HELPER_BIN:=.d) $(EXAMPLE_BIN:=.d) $(BENCH_BIN:=.d) $(PRELOAD_OBJ:.o=.d)
-include $(wildcard fuzz/obj/*/*.d fuzz/obj/*/*/*.d fuzz/obj/*/*/*/*.d)
-include $(wildcard $(SAN_DIR)/*/*.d $(SAN_DIR)/*/*/*.d $(SAN_DIR)/*/*/*/*.d $(SAN_DIR)/tests/unit/*.d)
