#!/usr/bin/env python3
"""List the tracker commands and options the docs show as commands.

usage: doc-commands.py FILE...

Prints one line per use, "FILE:LINE: COMMAND [--option...]", for every
`tracker WORD ...` in a code span or a fenced or indented code block of a
markdown file (prose such as "tracker writes" is not a command), and for
every ".B tracker WORD" / ".SS tracker WORD" line of a man page; options
are the --long options that follow on the same command line, up to a lone
"--" (the job's own arguments) or the end of the command. A man page's
\\-\\-options are printed as "FILE:LINE: * --option": an option of some
command. t0004-docs-commands.sh checks each against `tracker WORD -h`.
"""
import re
import sys

# "tracker" where a command starts: line start, after a shell operator, a
# prompt, a path (prefix/bin/tracker), srun/env/exec, or "$(".
CMD = re.compile(r'(?:^|[\s|;&(`$=]|/)tracker[ \t]+([a-z][a-z-]*)((?:[^|;&`\n]*))')
OPT = re.compile(r'(?<![\w-])(--[a-z][a-z0-9-]*)')


def options(rest):
    out = []
    for word in rest.split():
        if word == '--':
            break
        m = OPT.match(word)
        if m:
            out.append(m.group(1))
    return out


def emit(path, lineno, text):
    for m in CMD.finditer(text):
        word, rest = m.group(1), m.group(2)
        print("%s:%d: %s %s" % (path, lineno, word, " ".join(options(rest))))


def markdown(path):
    """Code is a fenced block, an inline code span, or an indented block
    that follows a blank line after a paragraph (not the continuation of a
    definition or list item, which is indented too)."""
    fenced = False
    anchor_item = False   # the last unindented line starts a list/definition
    prev_blank = True
    in_block = False
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.lstrip().startswith('```'):
                fenced = not fenced
                continue
            indented = line.startswith('    ') or line.startswith('\t')
            if not fenced and indented and not in_block:
                in_block = prev_blank and not anchor_item
            if not indented and line.strip():
                in_block = False
                anchor_item = bool(re.match(r'(:\s|[-*+]\s|\d+\.\s)', line))
            prev_blank = not line.strip()
            if fenced or (indented and in_block):
                # a shell comment is prose
                emit(path, n, re.sub(r'(^|\s)#.*', '', line))
                continue
            for span in re.findall(r'`([^`]+)`', line):
                emit(path, n, span)


def manpage(path):
    with open(path, encoding='utf-8') as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            m = re.match(r'\.(?:B|SS)\s+"?tracker ([a-z][a-z-]*)', line)
            if m:
                print("%s:%d: %s " % (path, n, m.group(1)))
            # a lone \-\- ends tracker's options: the job's follow
            line = re.split(r'(?<![\w-])\\-\\-(?=\s|$)', line)[0]
            for o in re.findall(r'(?<![\w-])\\-\\-([a-z][a-z0-9\\-]*)', line):
                print("%s:%d: * --%s" % (path, n, o.replace('\\-', '-')))


for p in sys.argv[1:]:
    (manpage if re.search(r'\.[1-9]$', p) else markdown)(p)
