#!/usr/bin/env python3
"""compare.py ORIGINAL WRAPPED: the two pipelines, loaded as YAML (aliases
and merge keys resolved), are equal except for step commands, and each
command that differs is the original wrapped as
    tracker run [--key KEY] -- bash -e -c SCRIPT
with SCRIPT the original command as the agent runs it (a list joined by
newlines) and KEY the step's key (key, identifier, id) when given.
Prints "wrapped N" and exits 0, or prints the differences and exits 1."""
import shlex
import sys

import yaml

problems = []
wrapped = 0


def script_of(cmd):
    if isinstance(cmd, list):
        return "\n".join(str(c) for c in cmd)
    return cmd


def unwrap(value):
    if isinstance(value, list):
        if len(value) != 1:
            return None
        value = value[0]
    if not isinstance(value, str):
        return None
    words = shlex.split(value, posix=True)
    if words[:2] != ["tracker", "run"]:
        return None
    key = None
    rest = words[2:]
    if rest[:1] == ["--key"]:
        key, rest = rest[1], rest[2:]
    if rest[:4] != ["--", "bash", "-e", "-c"] or len(rest) != 5:
        return None
    # shlex drops nothing inside single quotes: the script is exact
    return key, rest[4]


def step_key(step):
    for k in ("key", "identifier", "id"):
        if isinstance(step.get(k), str) and step.get(k):
            return step[k]
    return None


def compare(a, b, path, step=None):
    global wrapped
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a.keys()) != list(b.keys()) and set(a.keys()) != set(b.keys()):
            problems.append("%s: keys differ: %r vs %r" % (path, list(a), list(b)))
            return
        is_step = "command" in a or "commands" in a
        for k in a:
            sub = "%s.%s" % (path, k)
            if is_step and k in ("command", "commands") and a[k] != b[k]:
                got = unwrap(b[k])
                if got is None:
                    problems.append("%s: changed, but not a wrapper: %r" % (sub, b[k]))
                elif got[1] != script_of(a[k]):
                    problems.append("%s: script differs:\n%r\n%r" % (sub, got[1], script_of(a[k])))
                elif got[0] is not None and got[0] != step_key(a) and step_key(a) is not None:
                    problems.append("%s: key %r is not the step's %r" % (sub, got[0], step_key(a)))
                elif isinstance(a[k], list) != isinstance(b[k], list):
                    problems.append("%s: a list became a string or back" % sub)
                else:
                    wrapped += 1
                continue
            compare(a[k], b[k], sub)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append("%s: lengths differ" % path)
            return
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, "%s[%d]" % (path, i))
    elif a != b or type(a) != type(b):
        problems.append("%s: %r != %r" % (path, a, b))


with open(sys.argv[1], "rb") as f:
    orig = list(yaml.safe_load_all(f))
with open(sys.argv[2], "rb") as f:
    new = list(yaml.safe_load_all(f))
if len(orig) != len(new):
    problems.append("number of documents differs")
for i, (a, b) in enumerate(zip(orig, new)):
    compare(a, b, "doc%d" % i)
for p in problems:
    print(p)
print("wrapped %d" % wrapped)
sys.exit(1 if problems else 0)
