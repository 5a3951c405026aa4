#!/usr/bin/env python3
"""Writes profiles built to blow up an importer's memory, time or numbers.

    hostile-profiles.py DIR [SCALE]

Each file is named after what it does; SCALE (default 1) multiplies the
sizes. The tests (t5100, t5101) and bench/import-memory.sh generate them
here instead of committing big files. Nothing here is random: the same
command writes the same bytes.
"""
import gzip
import os
import sys


def write(path, text, gz=False):
    data = text.encode() if isinstance(text, str) else text
    if gz:
        with gzip.open(path, "wb", compresslevel=9) as f:
            f.write(data)
    else:
        with open(path, "wb") as f:
            f.write(data)


def speedscope(samples, weights, frames=1):
    names = ",".join('{"name":"f%d"}' % i for i in range(frames))
    return ('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
            '"shared":{"frames":[%s]},"profiles":[{"type":"sampled","unit":"none",'
            '"samples":[%s],"weights":[%s]}]}' % (names, samples, weights))


def cpuprofile_chain(n):
    nodes = ",".join('{"id":%d,"callFrame":{"functionName":"f","url":""},"children":[%d]}'
                     % (i, i + 1) for i in range(1, n))
    nodes += ',{"id":%d,"callFrame":{"functionName":"f","url":""}}' % n
    return '{"nodes":[%s],"samples":[%d],"timeDeltas":[1]}' % (nodes, n)


def main():
    out = sys.argv[1]
    k = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    os.makedirs(out, exist_ok=True)
    n = int(2_000_000 * k)
    # Memory: 117 KB of gzip that inflates to one-element stacks, the
    # shape whose parsed JSON costs the most per byte.
    write(f"{out}/speedscope-bomb.json.gz",
          speedscope(",".join(["[0]"] * n), ",".join(["1"] * n)), gz=True)
    # The same at 120 MB inflated: what a 117 KB upload can hold.
    big = 20_000_000
    write(f"{out}/speedscope-bomb-120m.json.gz",
          speedscope(",".join(["[0]"] * big), ",".join(["1"] * big)), gz=True)
    # A dense but ordinary sampled profile: two-frame stacks.
    m = int(400_000 * k)
    write(f"{out}/speedscope-dense.json",
          speedscope(",".join("[%d,%d]" % (i % 50, i % 7) for i in range(m)),
                     ",".join(["1"] * m), frames=50))
    # Depth: a cpuprofile whose nodes form one chain past the cap, and the
    # same gzipped at a million nodes.
    write(f"{out}/cpuprofile-deep.cpuprofile", cpuprofile_chain(int(70_000 * k)))
    write(f"{out}/cpuprofile-1m-deep.cpuprofile.gz", cpuprofile_chain(1_000_000), gz=True)
    # Folded stacks at the depth cap (each line a new 4096-deep path: a
    # node per 2 bytes of input), and one frame past it.
    lines = int(200 * k)
    write(f"{out}/folded-deep.folded",
          "".join("r%d;%s 1\n" % (i, ";".join(["a"] * 4096)) for i in range(lines)))
    write(f"{out}/folded-too-deep.folded", ";".join(["a"] * 65537) + " 1\n")
    # ProfileCanvas: a viewer call whose data is a wall of empty arrays.
    write(f"{out}/profilecanvas-bomb.html.gz",
          '<script>new ProfileCanvas.ProfileViewer("#x", {"a":[%s]}, "cpu")</script>\n'
          % ",".join(["[]"] * n), gz=True)


if __name__ == "__main__":
    main()
