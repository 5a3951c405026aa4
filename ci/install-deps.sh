#!/bin/sh
# Installs the Debian packages tracker needs, for one or more profiles:
#
#   ci/install-deps.sh build     compiler, pkg-config and the -dev libraries
#   ci/install-deps.sh test      build + what `make check` runs, pprof
#                                (ci/build-pprof.sh), and the
#                                browser tests' npm packages (npm ci in
#                                tests/browser, as any user)
#   ci/install-deps.sh bench     build + what `make bench` measures against
#   ci/install-deps.sh pg        PostgreSQL's server, libpq-dev and PgBouncer
#                                (the store tests' server, ci/pg-test-server.sh,
#                                and the pooler in front of it, t6106)
#   ci/install-deps.sh slurm     SLURM with accounting (slurmctld, slurmd,
#                                slurmdbd on MariaDB, munge) and Open MPI:
#                                the cluster of ci/slurm-test-server.sh
#   ci/install-deps.sh -n test   only say what is missing (no install)
#
# Packages already installed are left alone; when nothing is missing it
# prints one line and exits 0. As root it installs what is missing with
# apt-get (running `apt-get update` only when the package lists are empty
# or the install fails without it). As another user it prints the sudo
# command to run and exits 1. It never reads standard input, so it works
# under CI=true with no terminal.
#
# Exit status: 0 all present (or installed), 1 missing and not root (or
# the install failed), 2 usage error.

set -u

# libiberty-dev: cplus_demangle, for C++ and Rust frame names (core/model/demangle.c);
# libisal-dev: ISA-L's inflater, for large stored profiles (core/model/profcodec.c)
build_pkgs="build-essential pkg-config libcurl4-openssl-dev libsqlite3-dev libyaml-dev libcairo2-dev libjansson-dev zlib1g-dev libunwind-dev libdw-dev libelf-dev libiberty-dev libisal-dev"
# perl: prove; sqlite3: poking at databases in tests; libxml2-utils: xmllint
# for the SVG output; time: GNU /usr/bin/time; git: the checkout itself;
# procps: ps, pgrep and pkill in the run tests; python3: JSON checks;
# python3-yaml: pipelines loaded back after tracker pipeline wrap (t7100-t7102);
# chromium, nodejs, npm: the headless browser tests of the SVG/HTML pages
# (tests/browser, playwright-core from npm driving Debian's chromium);
# clang, libclang-rt-14-dev: libFuzzer for the fuzz smoke test (make fuzz);
# linux-perf: `perf record --call-graph dwarf`, the reference the CPU call
# paths are checked against (t9011; skipped without it); python3-pil,
# poppler-utils: the PNG and PDF pictures read back pixel by pixel (t3003).
# postgresql, libpq-dev: the PostgreSQL store, tested against a real
# server (ci/pg-test-server.sh); pgbouncer: the same through a pooler in
# transaction mode (ci/pgbouncer-test.sh, t6106).
# golang-go, golang-github-google-pprof-dev: pprof built from Debian's
# sources (ci/build-pprof.sh) reads back the profiles tracker exports (t3030).
# strace: counts the disk syncs of tracker run (t1107).
pg_pkgs="postgresql libpq-dev pgbouncer"
# slurm-wlm slurmdbd mariadb-server munge: a real single-node cluster for
# the end-to-end SLURM tests (ci/slurm-test-server.sh, t1210); openmpi-bin
# libopenmpi-dev: MPI ranks under srun --mpi=pmix.
slurm_pkgs="slurm-wlm slurmdbd mariadb-server munge openmpi-bin libopenmpi-dev"
test_pkgs="$pg_pkgs $slurm_pkgs perl sqlite3 libxml2-utils time git procps python3 python3-yaml chromium nodejs npm clang libclang-rt-14-dev linux-perf python3-pil poppler-utils golang-go golang-github-google-pprof-dev strace"
# The peers the benchmarks compare against (see DESIGN.md "Numbers to beat").
# sqlite3: the CLI that tracker history is timed against (bench/history.sh).
# postgresql: the store benchmarks' server.
# python3-numpy, python3-scipy: what Apache Otava runs on, beside tracker's
# change points (bench/otava.sh; Otava itself is not packaged: OTAVA_DIR).
bench_pkgs="time perl heaptrack valgrind sqlite3 python3-numpy python3-scipy $pg_pkgs"

usage() {
	echo "usage: ci/install-deps.sh [-n] (build | test | bench | pg | slurm)..." >&2
	exit 2
}

dry_run=0
npm_deps=0
want=
[ $# -gt 0 ] || usage
for arg in "$@"; do
	case $arg in
	-n|--dry-run) dry_run=1 ;;
	build) want="$want $build_pkgs" ;;
	test) want="$want $build_pkgs $test_pkgs"; npm_deps=1 ;;
	bench) want="$want $build_pkgs $bench_pkgs" ;;
	pg) want="$want $pg_pkgs" ;;
	slurm) want="$want $slurm_pkgs" ;;
	-h|--help)
		sed -n '2,25s/^# \{0,1\}//p' "$0"
		exit 0 ;;
	*) echo "install-deps: unknown profile '$arg'" >&2; usage ;;
	esac
done

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: dpkg-query not found; this script knows Debian and Ubuntu only" >&2
	echo "install-deps: packages wanted:$want" >&2
	exit 1
fi

missing=
for p in $want; do
	case " $missing " in
	*" $p "*) continue ;;
	esac
	# NodeSource's nodejs bundles npm and conflicts with Debian's npm
	# package: installing that would remove nodejs.
	if [ "$p" = npm ] && command -v npm >/dev/null 2>&1; then
		continue
	fi
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	if [ "$status" != installed ]; then
		missing="$missing $p"
	fi
done
missing=${missing# }

# The browser tests drive Debian's chromium with playwright-core from npm,
# at the version tests/browser/package-lock.json pins. Installed here,
# once, before any test runs (make check does the same when it is missing).
browser_dir=$(cd "$(dirname "$0")/../tests/browser" && pwd)
npm_missing() {
	[ "$npm_deps" = 1 ] && { ! [ -f "$browser_dir/node_modules/playwright-core/index.js" ] ||
		! [ -f "$browser_dir/node_modules/speedscope/dist/release/index.html" ]; }
}
npm_install() {
	npm_missing || return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "install-deps: npm is missing; cannot install tests/browser's packages" >&2
		return 1
	fi
	echo "install-deps: npm ci in tests/browser"
	npm ci --prefix "$browser_dir" --no-audit --no-fund --loglevel=error </dev/null
}
# pprof, for the export tests: built once from the Debian sources.
pprof_build() {
	[ "$npm_deps" = 1 ] || return 0
	"$(dirname "$0")/build-pprof.sh" >/dev/null
}

if [ -z "$missing" ]; then
	if [ "$dry_run" = 1 ] && npm_missing; then
		echo "install-deps: missing: tests/browser/node_modules (npm ci)"
		exit 1
	fi
	echo "install-deps: all packages present"
	npm_install || exit 1
	pprof_build || exit 1
	exit 0
fi

if [ "$dry_run" = 1 ]; then
	echo "install-deps: missing: $missing"
	exit 1
fi

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages; run:" >&2
	echo "sudo apt-get install -y $missing"
	exit 1
fi

# Debian's docker images ship with empty package lists.
lists_empty() {
	for f in /var/lib/apt/lists/*_Packages*; do
		[ -e "$f" ] && return 1
	done
	return 0
}

apt_install() {
	# shellcheck disable=SC2086 # $missing is a list of words
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		$missing </dev/null
}

export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing $missing"
if lists_empty; then
	apt-get update </dev/null || exit 1
	apt_install || exit 1
elif ! apt_install; then
	echo "install-deps: install failed; updating the package lists and retrying" >&2
	apt-get update </dev/null || exit 1
	apt_install || exit 1
fi
npm_install || exit 1
pprof_build || exit 1
