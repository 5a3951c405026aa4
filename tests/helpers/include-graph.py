#!/usr/bin/env python3
"""The include graph of core/, read from the #include lines of its files.

    include-graph.py ROOT [--wings | --check]

core/ is grouped in wings, one folder each, in pipeline order (WINGS
below, lowest first). A module is a .c and its .h (core/WING/NAME.*).

--wings prints the graph between wings: one line "FROM -> TO (N)" per
pair, N the number of include lines that make it.
--check prints one line per broken rule and exits 1 when there is one:
  - a file of core/ includes a header of a higher wing;
  - a file of core/ includes a plugins/ or cmd/ header;
  - a file of core/ lies outside the wings, or a wing holds a folder;
  - two modules include each other, or modules include each other in a
    longer circle (the circle is printed);
  - a .c of core/ has no header of its own (NAME-none.c, the build
    without an optional library, implements NAME.h; lazylibs.c holds the
    tables of the lazy-*.h headers).
"""
import os, re, sys

WINGS = ["base", "model", "measure", "store", "analyze", "draw", "pages", "ci"]
RANK = {w: i for i, w in enumerate(WINGS)}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def files(root):
    core = os.path.join(root, "core")
    for dirpath, dirnames, names in os.walk(core):
        dirnames.sort()
        for n in sorted(names):
            if n.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(dirpath, n), root)


def module(path):
    """core/WING/NAME.c -> (WING, NAME); None for anything else."""
    parts = path.split("/")
    if len(parts) != 3 or parts[0] != "core":
        return None
    return parts[1], parts[2].rsplit(".", 1)[0]


def main():
    root = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "--check"
    problems = []
    wing_edges = {}
    edges = {}
    for f in files(root):
        m = module(f)
        if m is None or m[0] not in RANK:
            problems.append("%s: not in a wing (%s)" % (f, ", ".join(WINGS)))
            continue
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for inc in INC.findall(text):
            if inc.startswith(("plugins/", "cmd/")):
                problems.append("%s: includes %s (core never includes plugins/ or cmd/)"
                                % (f, inc))
                continue
            if not inc.startswith("core/"):
                continue
            t = module(inc)
            if t is None or t[0] not in RANK:
                problems.append("%s: includes %s, outside the wings" % (f, inc))
                continue
            if RANK[t[0]] > RANK[m[0]]:
                problems.append("%s: includes %s, of a higher wing (%s above %s)"
                                % (f, inc, t[0], m[0]))
            if t[0] != m[0]:
                wing_edges[(m[0], t[0])] = wing_edges.get((m[0], t[0]), 0) + 1
            if t != m:
                edges.setdefault(m, set()).add(t)
    # one header per module
    for f in files(root):
        if not f.endswith(".c") or module(f) is None:
            continue
        wing, name = module(f)
        own = name[:-len("-none")] if name.endswith("-none") else name
        if name == "lazylibs":
            continue
        if not os.path.exists(os.path.join(root, "core", wing, own + ".h")):
            problems.append("%s: no header core/%s/%s.h (one header per module)"
                            % (f, wing, own))
    # circles between modules: Tarjan's strongly connected components
    index, low, stack, on, sccs = {}, {}, [], set(), []
    nodes = sorted(set(edges) | {t for ts in edges.values() for t in ts})

    def strong(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            strong(v)
    for comp in sccs:
        problems.append("modules include each other: " +
                        ", ".join("core/%s/%s" % c for c in comp))
    if mode == "--wings":
        for (a, b), n in sorted(wing_edges.items(), key=lambda e: (RANK[e[0][0]], RANK[e[0][1]])):
            print("%-8s -> %-8s (%d)" % (a, b, n))
        return 0
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
