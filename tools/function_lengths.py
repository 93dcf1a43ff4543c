#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The longest function bodies of cuzk's C++ and CUDA sources.

    tools/function_lengths.py [-n N] [--min LINES] [PATH ...]

Prints `LINES file:line name` for the N longest (default 15) function definitions under PATHs
(default: src/ and apps/ of the tree this script lives in), longest first. LINES counts the
lines from a body's opening brace to its closing brace, both included; file:line is where the
function's name is.

A heuristic, not a parser: comments, string and character literals and preprocessor lines are
blanked out, then braces are matched. A `{` at namespace or class level opens a function body
when the text before it (since the last `;`, `{` or `}` of that level) ends with a parameter
list followed by nothing but qualifiers (const, noexcept, override, -> type, ...) or a
constructor's initialiser list. Everything inside a body, lambdas and local classes included,
counts toward that body. Class names are kept (`Msm::run`), namespaces are not.
"""

import argparse
import os
import re
import sys

EXTENSIONS = (".cpp", ".hpp", ".cu", ".cuh")
NOT_FUNCTIONS = {
    "if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "alignas", "decltype",
    "requires", "noexcept", "static_assert", "__launch_bounds__", "__attribute__", "__declspec",
}


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (a literal
    keeps its quotes), newlines kept, so offsets and line numbers stay those of the source."""
    out = list(text)
    n = len(text)
    i = 0
    line_start = True  # only spaces since the last newline

    def wipe(a, b, keep_quotes=False):
        for k in range(a + (1 if keep_quotes else 0), b - (1 if keep_quotes else 0)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        ch = text[i]
        if ch == "\n":
            line_start = True
            i += 1
            continue
        if ch in " \t\r\f\v":
            i += 1
            continue
        if line_start and ch == "#":  # a directive, with its continuation lines
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 2
                    continue
                if text.startswith("/*", j):  # a block comment may run past the line
                    end = text.find("*/", j + 2)
                    j = n if end < 0 else end + 2
                    continue
                j += 1
            wipe(i, j)
            i = j
            continue
        line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
            continue
        if ch == '"':
            # a raw string: R"delim( ... )delim", with an optional encoding prefix before the R
            m = re.match(r'R"([^()\\\s]{0,16})\(', text[i - 1:i + 20]) if i > 0 else None
            if m and (i < 2 or not (text[i - 2].isalnum() or text[i - 2] == "_") or
                      re.search(r"(?:^|[^A-Za-z0-9_])(?:u8|u|U|L)R$", text[max(0, i - 4):i])):
                close = ")" + m.group(1) + '"'
                j = text.find(close, i + 1 + len(m.group(1)) + 1)
                j = n if j < 0 else j + len(close)
                wipe(i, j, keep_quotes=True)
                i = j
                continue
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
            wipe(i, j, keep_quotes=True)
            i = j
            continue
        if ch == "'":
            # a digit separator (1'000'000) rather than a character literal
            k = i
            while k > 0 and (text[k - 1].isalnum() or text[k - 1] in "_'."):
                k -= 1
            if k < i and text[k].isdigit():
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != "'" and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
            wipe(i, j, keep_quotes=True)
            i = j
            continue
        i += 1
    return "".join(out)


def paren_groups(head):
    """(start, end) of each top-level parenthesised group of head, end past the ')'."""
    groups, depth, start = [], 0, 0
    for k, ch in enumerate(head):
        if ch == "(":
            if depth == 0:
                start = k
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                groups.append((start, k + 1))
    return groups


def strip_qualifiers(tail):
    """tail without the leading qualifiers a function's parameter list may be followed by
    (a trailing return type or a requires-clause swallows the rest)."""
    while True:
        s = tail.lstrip()
        m = re.match(r"(const|volatile|mutable|override|final|constexpr|&&|&)(?![A-Za-z0-9_])", s)
        if m:
            tail = s[m.end():]
            continue
        m = re.match(r"noexcept\s*", s)
        if m:
            rest = s[m.end():]
            if rest.startswith("("):
                g = paren_groups(rest)
                rest = rest[g[0][1]:] if g else ""
            tail = rest
            continue
        if s.startswith("->") or re.match(r"requires(?![A-Za-z0-9_])", s):
            return ""
        m = re.match(r"__attribute__\s*", s)
        if m and s[m.end():].startswith("("):
            g = paren_groups(s[m.end():])
            tail = s[m.end():][g[0][1]:] if g else ""
            continue
        return s


def name_before(head, k):
    """The function name ending just before offset k of head, with its `A::` scopes ('' if none)."""
    before = head[:k].rstrip()
    scope = r"((?:[A-Za-z_]\w*(?:<[^<>]*>)?\s*::\s*)*)"
    m = re.search(scope + r"(operator\s*(?:\(\s*\)|\[\s*\]|[^\sA-Za-z0-9_()]+|[A-Za-z_][\w\s:<>*&]*?))$", before)
    if m and (m.start(2) == 0 or not (before[m.start(2) - 1].isalnum() or before[m.start(2) - 1] == "_")):
        return re.sub(r"\s+", "", m.group(1)) + re.sub(r"\s+", " ", m.group(2)).replace("operator ", "operator", 1)
    m = re.search(scope + r"(~?[A-Za-z_]\w*)$", before)
    return re.sub(r"\s+", "", m.group(1) + m.group(2)) if m else ""


def classify(head):
    """What a `{` at namespace or class level opens, from the text before it:
    ('namespace', name), ('class', name), ('function', name, offset of the name),
    ('member-init', None) for a brace of a constructor's initialiser list, or ('other', None)."""
    h = re.sub(r"^\s*(?:(?:public|private|protected)\s*:(?!:)\s*)+", "", head)
    lead = len(head) - len(h)
    stripped = h.strip()
    m = re.match(r"(?:inline\s+)?namespace\b\s*([\w:]*)", stripped)
    if m or re.match(r'extern\s*"\s*"$', stripped):
        return ("namespace", m.group(1) if m else "")
    # a class head: template parameters and attributes stripped, then class/struct/union/enum
    t = stripped
    while True:
        m = re.match(r"template\s*<", t)
        if not m:
            break
        depth, k = 1, m.end()
        while k < len(t) and depth:
            depth += {"<": 1, ">": -1}.get(t[k], 0)
            k += 1
        t = t[k:].lstrip()
    t = re.sub(r"^(?:\[\[.*?\]\]\s*|alignas\s*\([^)]*\)\s*|typedef\s+)*", "", t)
    m = re.match(r"(?:class|struct|union|enum(?:\s+class|\s+struct)?)\b((?:\s*(?:\[\[.*?\]\]|alignas\s*\([^)]*\)))*)"
                 r"\s*([A-Za-z_][\w:]*)?", t)
    if m and not re.match(r"(?:class|struct|union|enum)\s+[\w:<>,\s]*\s[\w:]+\s*\(", t):
        return ("class", m.group(2) or "")
    for start, end in paren_groups(h):
        name = name_before(h, start)
        if not name or name.split("::")[-1] in NOT_FUNCTIONS:
            continue
        rest = strip_qualifiers(h[end:])
        if rest == "":
            return ("function", name, lead + h.rfind(name, 0, start + 1))
        if re.match(r":(?!:)", rest):  # a constructor's initialiser list
            if re.search(r"[)}]\s*$", rest) or rest[1:].strip() == "":
                return ("function", name, lead + h.rfind(name, 0, start + 1))
            return ("member-init", None)
    # a lambda at namespace level: name = [captures](params) {
    m = re.search(r"([A-Za-z_]\w*)\s*=\s*\[[^\]]*\]\s*(\([^()]*(?:\([^()]*\)[^()]*)*\))?\s*([^{]*)$", h)
    if m and strip_qualifiers(m.group(3)) == "":
        return ("function", m.group(1), lead + m.start(1))
    return ("other", None)


def functions(path):
    """(lines, line, name) of each function body in the file at path."""
    with open(path, encoding="utf-8", errors="replace") as f:
        src = f.read()
    text = blank(src)
    line_of = []
    ln = 1
    for ch in text:
        line_of.append(ln)
        if ch == "\n":
            ln += 1
    found = []
    # scope: [kind, name, head_start, brace offset, name offset]; kind namespace / class /
    # function / other / member-init; the file scope is a namespace
    stack = [["namespace", "", 0, -1, -1]]
    head_start = 0
    paren = 0  # parenthesis depth of the head at namespace or class level
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        top = stack[-1]
        at_decl_level = top[0] in ("namespace", "class")
        if ch == "(":
            paren += at_decl_level
        elif ch == ")":
            paren -= at_decl_level and paren > 0
        elif ch == ";" and at_decl_level and paren == 0:
            head_start = i + 1
        elif ch == "{":
            if not at_decl_level:
                stack.append(["other", None, head_start, i, -1])
            elif paren > 0:  # a brace inside a declaration's parentheses (a default argument)
                stack.append(["member-init", None, head_start, i, -1])
            else:
                head = text[head_start:i]
                kind = classify(head)
                name_at = head_start + kind[2] if kind[0] == "function" else -1
                stack.append([kind[0], kind[1], head_start, i, name_at])
                if kind[0] != "member-init":
                    head_start = i + 1
        elif ch == "}":
            if len(stack) > 1:
                kind, name, hs, brace, name_at = stack.pop()
                if kind == "function":
                    classes = [s[1] for s in stack if s[0] == "class" and s[1]]
                    qual = "::".join(classes + [name])
                    found.append((line_of[i] - line_of[brace] + 1, line_of[name_at], qual))
                if kind == "member-init":
                    head_start = hs  # the head goes on: `: a_{x}, b_{y} {`
                else:
                    head_start = i + 1
                    paren = 0
            else:
                print(f"{path}:{line_of[i]}: unmatched '}}'", file=sys.stderr)
        i += 1
    if len(stack) > 1:
        print(f"{path}: {len(stack) - 1} unclosed '{{'", file=sys.stderr)
    return found


def sources(paths):
    for p in paths:
        if os.path.isfile(p):
            yield p
            continue
        for root, dirs, files in os.walk(p):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(EXTENSIONS):
                    yield os.path.join(root, f)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=15, help="how many functions to print (default 15; 0: all)")
    ap.add_argument("--min", type=int, default=0, help="only functions of at least this many lines")
    ap.add_argument("paths", nargs="*", help="files or folders (default: src and apps of the tree)")
    args = ap.parse_args()
    paths = args.paths or [os.path.join(root, "src"), os.path.join(root, "apps")]
    rows = []
    for path in sources(paths):
        shown = os.path.relpath(path, root) if not args.paths else path
        rows += [(lines, shown, line, name) for lines, line, name in functions(path)]
    rows.sort(key=lambda r: (-r[0], r[1], r[2]))
    rows = [r for r in rows if r[0] >= args.min]
    for lines, path, line, name in rows[:args.n] if args.n > 0 else rows:
        print(f"{lines:5d} {path}:{line} {name}")


if __name__ == "__main__":
    main()
