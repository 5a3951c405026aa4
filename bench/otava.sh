#!/bin/sh
# Change points beside Apache Otava's, on the same synthetic histories.
#
# bench/verdicts --families N writes N series of each family of 80 builds
# (flat, single steps, reverted regressions, two steps: bench/verdicts.c)
# with tracker's change points; Otava's E-divisive detector is run on the
# same values with the defaults of its command line (window_len 50,
# max_pvalue 0.001, min_magnitude 0), and both are scored alike: a family
# is found when every edge of a series has a change point within one
# build; any other change point is false.
#
#   OTAVA_DIR    a checkout of github.com/apache/otava (the directory that
#                holds the otava package); not shipped with tracker
#   OTAVA_PYTHON the Python to run it with (default /usr/bin/python3, which
#                needs Debian's python3-numpy and python3-scipy)
#   BENCH_OTAVA_SERIES  series per family (default 200)
#
# Without Otava it says why and exits 0.
set -eu
cd "$(dirname "$0")/.."
n=${BENCH_OTAVA_SERIES:-200}
py=${OTAVA_PYTHON:-/usr/bin/python3}
dir=${OTAVA_DIR:-}

if [ -z "$dir" ] || ! [ -f "$dir/otava/analysis.py" ]; then
	echo "  Otava: skipped (set OTAVA_DIR to a checkout of apache/otava)"
	exit 0
fi
if ! "$py" -c 'import numpy, scipy' 2>/dev/null; then
	echo "  Otava: skipped ($py has no numpy and scipy: apt-get install python3-numpy python3-scipy)"
	exit 0
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/tracker-otava.XXXXXX")
trap 'rm -rf "$out"' EXIT

bench/verdicts --families "$n" >"$out/series.tsv"
"$py" - "$dir" "$out/series.tsv" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
from otava.analysis import compute_change_points

fams, order, tracker_ms = {}, [], None
with open(sys.argv[2]) as f:
    for line in f:
        if line.startswith("# tracker:"):
            tracker_ms = float(line.split()[2])
            continue
        name, edges, values, cps = line.rstrip("\n").split("\t")
        if name not in fams:
            fams[name] = []
            order.append(name)
        fams[name].append(([int(e) for e in edges.split(",") if e],
                           [float(v) for v in values.split(",")],
                           [int(c) for c in cps.split(",") if c]))

def score(edges, points):
    hit = [False] * len(edges)
    false = 0
    for p in points:
        near = False
        for i, e in enumerate(edges):
            if abs(p - e) <= 1:
                hit[i] = near = True
        false += not near
    return all(hit), false

rows, otava_s, count = [], 0.0, 0
for name in order:
    t = {"found": 0, "false": 0, "with": 0}
    o = {"found": 0, "false": 0, "with": 0}
    for edges, values, cps in fams[name]:
        t0 = time.process_time()
        # a plain list: given a numpy array Otava takes every window as
        # the whole series
        got, _ = compute_change_points(list(values), window_len=50, max_pvalue=0.001,
                                       min_magnitude=0.0)
        otava_s += time.process_time() - t0
        count += 1
        for acc, pts in ((t, cps), (o, [c.index for c in got])):
            found, false = score(edges, pts)
            acc["found"] += found
            acc["false"] += false
            acc["with"] += false > 0
    rows.append((name, len(fams[name]) and bool(fams[name][0][0]), t, o, len(fams[name])))

print("change points beside Apache Otava (E-divisive means, its CLI defaults), 80 builds,")
print("%d series per family; found: every edge within +-1 build; false: points near no edge"
      % rows[0][4])
print("(false/s: per series; w/false: series with one or more)")
print("  %-32s %8s %8s %9s %9s %9s %9s" % ("history", "tracker", "Otava", "tracker", "Otava",
                                           "tracker", "Otava"))
print("  %-32s %8s %8s %9s %9s %9s %9s" % ("", "found", "found", "false/s", "false/s",
                                           "w/false", "w/false"))
for name, has_edges, t, o, k in rows:
    tf = "%.1f%%" % (100.0 * t["found"] / k) if has_edges else "-"
    of = "%.1f%%" % (100.0 * o["found"] / k) if has_edges else "-"
    print("  %-32s %8s %8s %9.3f %9.3f %8.1f%% %8.1f%%" % (name, tf, of, t["false"] / k,
          o["false"] / k, 100.0 * t["with"] / k, 100.0 * o["with"] / k))
ms = 1000.0 * otava_s / count
if tracker_ms:
    print("  CPU per series: tracker %.3f ms, Otava %.1f ms (ratio Otava / tracker %.0fx)"
          % (tracker_ms, ms, ms / tracker_ms))
else:
    print("  CPU per series: Otava %.1f ms" % ms)
PY
