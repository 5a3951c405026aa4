#!/usr/bin/env python3
"""compare.py [--run] ORIGINAL WRAPPED: the two pipelines, loaded as YAML (aliases
and merge keys resolved), are equal except for step commands, and each
command that differs is the original wrapped as
    tracker run [--key KEY [--tag TAG]...] -- bash -e -c SCRIPT
(SCRIPT in single quotes, or as a quoted here-document read back by
"$(cat <<'TRACKER_SCRIPT' ...)" when the upload interpolates it)
with SCRIPT the original command as the agent runs it (a list joined by
newlines) and KEY the step's key (key, identifier, id) when given; a
matrix step's KEY is its key and its matrix tokens, KEY[{{matrix}}] or
KEY[a={{matrix.a}},b={{matrix.b}}] in the order of setup:, with one
TAG matrix={{matrix}} or matrix.a={{matrix.a}} per dimension; and
the texts of the two files are the same byte for byte once the text of
every step command (as PyYAML's nodes mark it) is cut out of each.
Prints "wrapped N" and exits 0, or prints the differences and exits 1.

With --run, each wrapped command and its original are also run the way
the agent runs a step, after the interpolation `buildkite-agent pipeline
upload` applies ($$ -> $, ${VAR}, ${VAR:-default}, $VAR from the upload
environment): `bash -e -c COMMAND`, with a stand-in `tracker` first on
PATH that records its arguments and runs what follows `--`. A matrix
step is run once per job, as Buildkite makes them: each value of a list,
each combination of setup:'s dimensions and each adjustment's with:
(not those skipped), put in place of {{matrix}} / {{matrix.NAME}} as
text, whatever it holds. Their exit status, standard output and standard
error must be the same, the stand-in must have been given exactly
    run [--key KEY [--tag TAG]...] -- bash -e -c SCRIPT
(KEY, TAG and SCRIPT as the step has them, after interpolation, each one
argument), and no file named pwned* may appear."""
import itertools
import os
import re
import shlex
import subprocess
import sys
import tempfile

import yaml

problems = []
wrapped = 0
pairs = []

INTERP = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def interpolate(s, env):
    """What buildkite-agent pipeline upload does to a string."""
    def sub(m):
        if m.group(0) == "$$":
            return "$"
        name = m.group(1) or m.group(3)
        if name in env and env[name] != "":
            return env[name]
        return m.group(2) or ""
    return INTERP.sub(sub, s)


MATRIX_TOKEN = re.compile(r"\{\{\s*matrix(\.[\w\-.]+)?\s*\}\}")


def matrix_value(v):
    """A matrix value as Buildkite prints it (Go's fmt.Sprint)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def matrix_dims(step):
    """The dimensions of a step's matrix: [None] for a list of values,
    the names of setup: in order; None for no matrix."""
    m = step.get("matrix")
    if m is None:
        return None
    if isinstance(m, dict) and isinstance(m.get("setup"), dict):
        return list(m["setup"])
    return [None]


def matrix_jobs(step):
    """Each job's values, {name or "": value}, as Buildkite makes them."""
    m = step.get("matrix")
    dims = matrix_dims(step)
    if dims is None:
        return [None]
    if isinstance(m, list):
        return [{"": matrix_value(v)} for v in m]
    setup, jobs, skipped = m.get("setup"), [], []
    if dims == [None]:
        jobs = [{"": matrix_value(v)} for v in setup]
    else:
        for combo in itertools.product(*(setup[d] for d in dims)):
            jobs.append({d: matrix_value(v) for d, v in zip(dims, combo)})
    for adj in m.get("adjustments") or []:
        w = adj["with"]
        if dims == [None]:
            job = [{"": matrix_value(v)} for v in (w if isinstance(w, list) else [w])]
        else:
            job = [{d: matrix_value(v) for d, v in w.items()}]
        (skipped if adj.get("skip") else jobs).extend(job)
    return [j for j in jobs if j not in skipped]


def matrix_words(step, key):
    """The --key and the --tag values pipeline wrap gives a matrix step."""
    dims = matrix_dims(step)
    if dims is None or key is None:
        return key, []
    if dims == [None]:
        return key + "[{{matrix}}]", ["matrix={{matrix}}"]
    return (key + "[" + ",".join("%s={{matrix.%s}}" % (d, d) for d in dims) + "]",
            ["matrix.%s={{matrix.%s}}" % (d, d) for d in dims])


def expand_matrix(s, job):
    """What Buildkite makes of s for one job of a matrix step."""
    if job is None:
        return s
    return MATRIX_TOKEN.sub(lambda m: job[(m.group(1) or ".")[1:]], s)


def run(cmd, env, cwd):
    p = subprocess.run(["bash", "-e", "-c", cmd], env=env, cwd=cwd,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       stdin=subprocess.DEVNULL, timeout=60)
    return p.returncode, p.stdout, p.stderr


def script_of(cmd):
    if isinstance(cmd, list):
        return "\n".join(str(c) for c in cmd)
    return cmd


HERE_DOC = re.compile(r"^(tracker run .*?-- bash -e -c )\"\$\(cat <<'(TRACKER_SCRIPT(?:_[0-9]+)?)'\n(.*)\n\2\n\)\"$",
                      re.S)


def unwrap(value):
    if isinstance(value, list):
        if len(value) != 1:
            return None
        value = value[0]
    if not isinstance(value, str):
        return None
    here = HERE_DOC.match(value)
    if here:
        words = shlex.split(here.group(1), posix=True) + [here.group(3)]
    else:
        words = shlex.split(value, posix=True)
    if words[:2] != ["tracker", "run"]:
        return None
    key = None
    tags = []
    rest = words[2:]
    if rest[:1] == ["--key"]:
        key, rest = rest[1], rest[2:]
        while rest[:1] == ["--tag"]:
            tags.append(rest[1])
            rest = rest[2:]
    if rest[:4] != ["--", "bash", "-e", "-c"] or len(rest) != 5:
        return None
    # shlex drops nothing inside single quotes: the script is exact
    return key, rest[4], tags


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
                elif got[1] != script_of(a[k]) and not (
                        HERE_DOC.match(b[k] if isinstance(b[k], str) else b[k][0]) and
                        got[1] == script_of(a[k]).rstrip("\n")):
                    problems.append("%s: script differs:\n%r\n%r" % (sub, got[1], script_of(a[k])))
                elif got[0] is not None and step_key(a) is not None and \
                        got[0] != matrix_words(a, step_key(a))[0]:
                    problems.append("%s: key %r is not the step's %r" %
                                    (sub, got[0], matrix_words(a, step_key(a))[0]))
                elif got[0] is not None and step_key(a) is not None and \
                        got[2] != matrix_words(a, step_key(a))[1]:
                    problems.append("%s: tags %r are not the step's %r" %
                                    (sub, got[2], matrix_words(a, step_key(a))[1]))
                elif got[0] is None and got[2]:
                    problems.append("%s: tags without a key" % sub)
                elif isinstance(a[k], list) != isinstance(b[k], list):
                    problems.append("%s: a list became a string or back" % sub)
                else:
                    wrapped += 1
                    pairs.append((sub, script_of(a[k]), b[k][0] if isinstance(b[k], list) else b[k],
                                  got[0], got[2], matrix_jobs(a)))
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


MERGE = "tag:yaml.org,2002:merge"
NOT_COMMANDS = ("wait", "waiter", "block", "input", "trigger")


def effective(m):
    """A mapping node's entries as a dict, merge keys resolved."""
    own, merged = {}, []
    for k, v in m.value:
        if k.tag == MERGE:
            merged.extend(v.value if isinstance(v, yaml.SequenceNode) else [v])
        elif isinstance(k, yaml.ScalarNode):
            own.setdefault(k.value, v)
    for src in merged:
        if isinstance(src, yaml.MappingNode):
            for k, v in effective(src).items():
                own.setdefault(k, v)
    return own


def command_nodes(seq, out):
    if not isinstance(seq, yaml.SequenceNode):
        return
    for item in seq.value:
        if not isinstance(item, yaml.MappingNode):
            continue
        e = effective(item)
        if "group" in e:
            command_nodes(e.get("steps"), out)
        elif not any(k in e for k in NOT_COMMANDS):
            for k in ("command", "commands"):
                if k in e:
                    out.append(e[k])
                    break


def text_outside_commands(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    nodes = []
    for root in yaml.compose_all(text, Loader=yaml.SafeLoader):
        if isinstance(root, yaml.MappingNode):
            command_nodes(effective(root).get("steps"), nodes)
        else:
            command_nodes(root, nodes)
    spans = sorted({(n.start_mark.index, n.end_mark.index) for n in nodes})
    merged = []
    for a, b in spans:
        if merged and a < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    for a, b in reversed(merged):
        text = text[:a] + "<COMMAND>" + text[b:]
    return text


args = sys.argv[1:]
do_run = args[:1] == ["--run"]
if do_run:
    args = args[1:]
with open(args[0], "rb") as f:
    orig = list(yaml.safe_load_all(f))
with open(args[1], "rb") as f:
    new = list(yaml.safe_load_all(f))
if len(orig) != len(new):
    problems.append("number of documents differs")
if text_outside_commands(args[0]) != text_outside_commands(args[1]):
    problems.append("the texts differ outside the step commands")

# Top-level keys other than these are ignored by Buildkite: pipelines keep
# anchors there, and a wrapped command is rewritten where it is written.
READ = ("steps", "env", "agents", "notify")
for i, (a, b) in enumerate(zip(orig, new)):
    if isinstance(a, dict) and isinstance(b, dict):
        a = {k: v for k, v in a.items() if k in READ}
        b = {k: v for k, v in b.items() if k in READ}
    compare(a, b, "doc%d" % i)
if do_run:
    # a branch name git and Buildkite accept, which ends single quotes
    upload_env = {"GREETING": "hi there", "BUILDKITE_PIPELINE_SLUG": "climate",
                  "BUILDKITE_BRANCH": "x';touch${IFS}pwned-branch;'"}
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "tracker"), "w") as f:
        f.write('#!/bin/sh\n'
                'printf "%s\\0" "$@" >"$TRACKER_ARGV_FILE"\n'
                'while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done\n'
                'shift\n'
                'exec "$@"\n')
    os.chmod(os.path.join(tmp, "tracker"), 0o755)
    argv_file = os.path.join(tmp, "argv")
    env = dict(os.environ)
    env.update({"HOME_DIR_NAME": "home", "BUILDKITE_BUILD_NUMBER": "42",
                "PATH": tmp + os.pathsep + os.environ.get("PATH", ""),
                "TRACKER_ARGV_FILE": argv_file})
    ran = 0
    for where, orig_cmd, new_cmd, key, tags, jobs in pairs:
        for job in jobs:
            # the upload interpolates the values too, before the jobs are made
            if job is not None:
                job = {k: interpolate(v, upload_env) for k, v in job.items()}

            def buildkite(s):
                return expand_matrix(interpolate(s, upload_env), job)
            script = buildkite(orig_cmd)
            a = run(script, env, os.getcwd())
            if os.path.exists(argv_file):
                os.unlink(argv_file)
            b = run(buildkite(new_cmd), env, os.getcwd())
            if a != b:
                problems.append("%s: ran differently:\n  original %r\n  wrapped  %r" %
                                (where, a, b))
            want = ["run"] + (["--key", buildkite(key)] if key is not None else [])
            for t in tags:
                want += ["--tag", buildkite(t)]
            want += ["--", "bash", "-e", "-c", script]
            with open(argv_file, "rb") as f:
                got = f.read().decode("utf-8").split("\0")[:-1]
            if "<<'TRACKER_SCRIPT" in new_cmd and got:
                # a here-document's command substitution drops the
                # script's trailing newlines, which bash -c does not need
                want[-1] = want[-1].rstrip("\n")
            if got != want:
                problems.append("%s: tracker was given %r, not %r" % (where, got, want))
            ran += 1
    pwned = [f for f in os.listdir(".") if f.startswith("pwned")]
    if pwned:
        problems.append("files made by injected commands: %r" % pwned)
    print("ran %d" % ran)
for p in problems:
    print(p)
print("wrapped %d" % wrapped)
sys.exit(1 if problems else 0)
