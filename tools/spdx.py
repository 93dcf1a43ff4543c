#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every source file of cuzk names its licence (MIT OR Apache-2.0, README's Licence) in an SPDX
line among its first three lines.

    spdx.py check ROOT   lists the files without one; exit 1 if any
    spdx.py add ROOT     adds the line (after a #! line) to the files without one
"""
import subprocess
import sys

TAG = "SPDX-License-Identifier: MIT OR Apache-2.0"
SLASH = (".cpp", ".hpp", ".h", ".c", ".cu", ".cuh", ".go", ".proto", ".js", ".mjs")
HASH = (".py", ".sh", ".cmake", ".pc.in", ".cmake.in", "CMakeLists.txt", ".ci/run", ".service", ".bash")
# Data and inputs of tests (fixtures, goldens, lock files) and third parties' formats are not ours to mark.
SKIP = ("tests/fixtures/", "tests/golden/", "examples/porep-", "tools/js/package")


def sources(root):
    files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if f.startswith(SKIP):
            continue
        if f.endswith(SLASH):
            yield f, "// "
        elif f.endswith(HASH):
            yield f, "# "


def has_tag(path):
    """The tag among the first three lines, and no other SPDX identifier among the first ten."""
    with open(path, errors="replace") as fh:
        head = [fh.readline() for _ in range(10)]
    other = [l for l in head if "SPDX-License-Identifier:" in l and TAG not in l]
    return any(TAG in line for line in head[:3]) and not other


def main():
    mode, root = sys.argv[1], sys.argv[2]
    missing = []
    for f, comment in sources(root):
        path = root + "/" + f
        if has_tag(path):
            continue
        if mode == "add":
            text = open(path).read()
            if TAG in text[:400]:
                missing.append(f + " (names another licence)")
                continue
            line = comment + TAG + "\n"
            if text.startswith("#!"):
                nl = text.index("\n") + 1
                text = text[:nl] + line + text[nl:]
            else:
                text = line + text
            open(path, "w").write(text)
        else:
            missing.append(f)
    if missing:
        print("%d source file(s) without '%s' in their first three lines:" % (len(missing), TAG))
        for f in missing:
            print("  " + f)
        sys.exit(1)
    if mode == "check":
        print("spdx: every source file names its licence (%s)" % TAG)


main()
