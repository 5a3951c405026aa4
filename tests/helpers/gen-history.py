#!/usr/bin/env python3
"""Writes tracker run records (the JSON files `tracker push` stores) of a
realistic history, for the plot and dashboard tests:

    gen-history.py OUTDIR [--key K[:FACTOR]]... [--runs N] [--step-at BUILD]
                   [--step-factor F] [--hostile] [--seed S]
                   [--machine-classes C[:FACTOR],...] [--step-class C]
                   [--default-branch B]

Per key: N builds on `staging`, one a day, the newest yesterday at noon UTC
(so a default --since 1y sees them all), build numbers 100.., walltime
about 100 s with 2% noise (times --step-factor from build --step-at on),
maxrss about 1.5 GiB (a key's own :FACTOR overrides --step-factor); every 10th build also has a run on `feature-x`; build
105 failed (exit 1) and build 107 is partial. The newest run is the key's
last staging build. Each run records `staging` as its pipeline's default
branch (--default-branch names another), so outside CI tracker check,
history --plot and the dashboard take staging as the baseline branch.
With --hostile, branch, commit, build URL and tags
carry markup, quotes, ampersands and control characters. Deterministic
for a given day and arguments.

With --machine-classes, builds take turns on the classes named (build
100 on the first, 101 on the second, ...), each run's walltime times its
class's FACTOR (default 1), and the run records its machine_class; with
--step-class, the step of --step-at happens on that class only. With
--hostile, the first class also carries markup, quotes and controls.
"""
import argparse, json, os, random, time, uuid

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--key", action="append")
p.add_argument("--runs", type=int, default=60)
p.add_argument("--step-at", type=int, default=0)
p.add_argument("--step-factor", type=float, default=2.0)
p.add_argument("--hostile", action="store_true")
p.add_argument("--seed", type=int, default=1)
p.add_argument("--machine-classes", default="")
p.add_argument("--step-class", default=None)
p.add_argument("--default-branch", default="staging")
a = p.parse_args()
classes = []
for spec in filter(None, a.machine_classes.split(",")):
    name, _, f = spec.partition(":")
    classes.append((name, float(f) if f else 1.0))
if a.hostile and classes:
    classes[0] = ("<b>cpu&\"'\x01</b>" + classes[0][0], classes[0][1])
os.makedirs(a.out, exist_ok=True)
day = int(time.time()) // 86400 * 86400
first = day - a.runs * 86400 + 12 * 3600

def record(key, n, branch, t, wall, rss, status="ok", exit_code=0, partial=False, url=None,
           mclass=None):
    rid = str(uuid.UUID(int=random.getrandbits(128), version=4))
    commit = "%040x" % random.getrandbits(160)
    if a.hostile and branch != "staging":
        branch = "<script>alert(1)</script>&\"'\x01" + "x" * 300
    return rid, {
        "format": "tracker-run", "version": 1,
        "run": {
            "id": rid, "key": key, "status": status, "partial": partial,
            "started_at_us": t * 1000000, "walltime_s": wall,
            "user_s": wall * 0.9, "sys_s": wall * 0.05,
            "maxrss_bytes": rss, "maxrss_source": "wait4", "tree_rss_bytes": rss * 2,
            "tree_samples": 10, "cgroup_peak_bytes": None, "exit_code": exit_code,
            "signal": None, "argv": ["julia", "run.jl"], "tags": {},
            "ci": {"provider": "buildkite", "organization": "clima",
                   "pipeline": "climacoupler-ci", "branch": branch, "commit": commit,
                   "build_number": str(n),
                   "build_url": url or "https://buildkite.com/clima/climacoupler-ci/builds/%d" % n,
                   "step_key": key, "default_branch": a.default_branch, "host": "node-07"},
            "tracker_version": "0.1.0",
            **({"machine_class": mclass} if mclass else {})}}

for ki, spec in enumerate(a.key or ["amip"]):
    key, _, factor = spec.rpartition(":") if ":" in spec else (spec, "", "")
    factor = float(factor) if factor else a.step_factor
    random.seed("%d-%s" % (a.seed, key))
    for i in range(a.runs):
        n = 100 + i
        t = first + i * 86400
        mclass, cf = classes[i % len(classes)] if classes else (None, 1.0)
        f = factor if a.step_at and n >= a.step_at else 1.0
        if a.step_class is not None and not (mclass or "").endswith(a.step_class):
            f = 1.0
        wall = round(100.0 * cf * f * (1 + random.gauss(0, 0.02)), 3)
        rss = int(1.5 * 2**30 * (1 + random.gauss(0, 0.01)))
        kw = {}
        if n == 105:
            kw = {"status": "failed", "exit_code": 1}
        if n == 107:
            kw = {"partial": True}
        if a.hostile and n == 103:
            kw["url"] = "javascript:alert(1)"
        kw["mclass"] = mclass
        rid, rec = record(key, n, "staging", t, wall, rss, **kw)
        with open(os.path.join(a.out, "%s-%d.json" % (ki, n)), "w") as fh:
            json.dump(rec, fh, indent=1)
        if i % 10 == 5:
            rid, rec = record(key, n, "feature-x", t + 3600, wall * 1.1, rss, mclass=mclass)
            with open(os.path.join(a.out, "%s-%d-f.json" % (ki, n)), "w") as fh:
                json.dump(rec, fh, indent=1)
