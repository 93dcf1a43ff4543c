#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every flag the documentation shows with a cuzk command appears in that command's --help.

Reads README.md and docs/*.md: command lines in code blocks (`build/cuzk CMD ...`, `cuzk CMD ...`)
and inline code spans (`cuzk CMD ... --flag`); the command is the longest run of words after
`cuzk` that `cuzk help` lists (`zkey export verificationkey` is one). Prints one line per missing
flag and exits 1 when there is any; `cuzk help` and each `cuzk CMD --help` must exit 0.
    documented_flags.py BIN SOURCE_DIR
"""
import glob, os, re, subprocess, sys

binary, root = sys.argv[1], sys.argv[2]


def run(args):
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: cuzk {' '.join(args)} exited {p.returncode}: {p.stderr.strip()[:300]}")
    return p.stdout + p.stderr


# The commands `cuzk help` lists: a name at two spaces' indent, one or more words.
commands = set()
for line in run(["help"]).splitlines():
    m = re.match(r"^  (\S+(?: \S+)*?)(?:  +\S.*)?$", line)
    if m and not line.startswith("   "):
        commands.add(m.group(1))
helps = {c: run(c.split() + ["--help"]) for c in sorted(commands)}

flag_re = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
uses = []  # (file, line number, command, flag)


def scan(path, lineno, text):
    text = text.split(" #")[0]  # a shell comment ends the command
    words = text.split()
    for i, w in enumerate(words):
        if w not in ("cuzk", "build/cuzk") and not w.endswith("/cuzk"):
            continue
        rest = words[i + 1:]
        cmd = None
        for n in range(min(3, len(rest)), 0, -1):
            if " ".join(rest[:n]) in commands:
                cmd = " ".join(rest[:n])
                break
        if cmd is None:
            continue
        for f in flag_re.findall(" ".join(rest[len(cmd.split()):])):
            if f not in ("--help", "--version"):
                uses.append((path, lineno, cmd, f))
        break


for path in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
    fenced = False
    for lineno, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            scan(path, lineno, line.strip())
        else:
            for span in re.findall(r"`([^`]*cuzk [^`]*)`", line):
                scan(path, lineno, span)

missing = [(p, n, c, f) for p, n, c, f in uses if f not in helps[c]]
for p, n, c, f in missing:
    print(f"MISSING {os.path.relpath(p, root)}:{n}: 'cuzk {c}' documents {f}, its --help does not")
print(f"documented_flags: {len(uses)} flag uses of {len({u[2] for u in uses})} commands checked, "
      f"{len(missing)} missing; {len(commands)} commands' help exit 0")
sys.exit(1 if missing else 0)
