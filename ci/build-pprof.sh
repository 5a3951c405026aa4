#!/bin/sh
# Builds google/pprof, the reference reader of the profiles tracker
# exports (tracker flame/diff -o FILE.pb.gz), from Debian's packages
# golang-go and golang-github-google-pprof-dev: their Go sources under
# /usr/share/gocode, in GOPATH mode, offline. Nothing is downloaded.
#
#   ci/build-pprof.sh [DIR]     builds DIR/pprof (default tests/tools,
#                               which git ignores) unless it is there,
#                               and prints its path
#
# Exit status: 0 built (or already there), 1 the packages are missing
# or the build failed (the reason on standard error).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/tests/tools}
src=/usr/share/gocode
if [ -x "$dir/pprof" ]; then
	echo "$dir/pprof"
	exit 0
fi
if ! command -v go >/dev/null 2>&1 || ! [ -d "$src/src/github.com/google/pprof" ]; then
	echo "build-pprof: needs the Debian packages golang-go and golang-github-google-pprof-dev" >&2
	exit 1
fi
mkdir -p "$dir" || exit 1
# a private build cache and module mode off: the Debian sources alone
if ! env GO111MODULE=off GOPATH="$src" GOCACHE="$dir/go-cache" GOFLAGS= \
	go build -o "$dir/pprof.tmp.$$" github.com/google/pprof >&2; then
	rm -f "$dir/pprof.tmp.$$"
	echo "build-pprof: go build github.com/google/pprof failed" >&2
	exit 1
fi
rm -rf "$dir/go-cache"
mv "$dir/pprof.tmp.$$" "$dir/pprof" && echo "$dir/pprof"
