#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The includes of src/ keep to the layer order that ARCHITECTURE.md writes down.

ARCHITECTURE.md has one line `Layers, lowest first: a < b < c ...` naming every folder of src/.
A file in src/X may include headers of X and of the folders below X only; include/cuzk (the
public API, "cuzk/...") only from the layers named after `api` in that order, and no file of
src/daemon includes src/backend (the daemon reaches devices through the engine). So no folder
of src/ depends on one above it, and there is no include cycle between folders.
Exits 1 naming every offending include.
"""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
arch = open(os.path.join(root, "ARCHITECTURE.md"), encoding="utf-8").read()
m = re.search(r"^Layers, lowest first: (.+)$", arch, re.M)
if not m:
    sys.exit("layers: ARCHITECTURE.md has no line 'Layers, lowest first: a < b < ...'")
order = [x.strip().strip("`") for x in m.group(1).split("<")]
rank = {name: i for i, name in enumerate(order)}
src = os.path.join(root, "src")
folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
bad = []
for f in folders:
    if f not in rank:
        bad.append(f"src/{f}/ is not in ARCHITECTURE.md's layer line")
for f in order:
    if f not in folders:
        bad.append(f"ARCHITECTURE.md's layer line names '{f}', which is not a folder of src/")
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
checked = 0
for f in folders:
    for dirpath, _, files in os.walk(os.path.join(src, f)):
        for name in sorted(files):
            if not name.endswith((".hpp", ".cpp", ".cu", ".cuh", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            for lineno, line in enumerate(open(path, encoding="utf-8", errors="replace"), 1):
                mm = include.match(line)
                if not mm:
                    continue
                target = mm.group(1)
                top = target.split("/")[0]
                checked += 1
                if top == "cuzk":
                    if target.startswith(("cuzk/v1/", "cuzk/groth16/v1/")):  # the generated gRPC messages
                        if f != "daemon":
                            bad.append(f"{rel}:{lineno}: includes {target} (the wire API is the daemon's)")
                    elif f in rank and "api" in rank and rank[f] < rank["api"]:
                        bad.append(f"{rel}:{lineno}: includes the public header {target} from below the api layer")
                    continue
                if "/" not in target or top not in rank:
                    continue  # same-folder relative includes, generated files
                if f == "daemon" and top == "backend":
                    bad.append(f"{rel}:{lineno}: includes {target}: the daemon reaches devices only through the engine")
                if f in rank and rank[top] > rank[f]:
                    bad.append(f"{rel}:{lineno}: includes {target}: {top} is above {f} in the layer order")
if checked < 100:
    bad.append(f"only {checked} includes were read under {src}: is this the tree?")
for b in bad:
    print("layers:", b)
if bad:
    sys.exit(1)
print(f"layers: {checked} includes of {len(folders)} folders keep to {' < '.join(order)}")
