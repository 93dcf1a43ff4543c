#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Two provers on the same key and witness, interleaved (the order alternates per run), each a
whole process timed by its wall clock, with its peak resident memory (wait4's ru_maxrss).

    side_by_side.py RUNS OUTDIR NAME ZKEY WTNS -- LABEL_A CMD_A... -- LABEL_B CMD_B...

Each CMD is a prover taking ZKEY WTNS PROOF PUBLIC after its own words (rapidsnark's `prover`,
`cuzk prover`). Proofs go to OUTDIR/NAME.LABEL.RUN.{proof,public}.json, and a line per proof
to OUTDIR/cases (vk public proof, for tests/snarkjs/verify-many.mjs; the vk is ZKEY's
directory's verification_key.json). Prints one JSON line: medians (s), peak MiB, every run.
"""
import json
import os
import statistics
import subprocess
import sys
import time


def run_once(cmd):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("%s exited %d: %s" % (" ".join(cmd), p.returncode, err[-400:]))
    return wall, ru.ru_maxrss / 1024.0


def main():
    args = sys.argv[1:]
    runs, out, name, zkey, wtns = int(args[0]), args[1], args[2], args[3], args[4]
    rest = args[5:]
    provers = []
    while rest and rest[0] == "--":
        rest = rest[1:]
        end = rest.index("--") if "--" in rest else len(rest)
        provers.append((rest[0], rest[1:end]))
        rest = rest[end:]
    vk = os.path.join(os.path.dirname(zkey), "verification_key.json")
    times = {label: [] for label, _ in provers}
    mem = {label: [] for label, _ in provers}
    with open(os.path.join(out, "cases"), "a") as cases:
        for r in range(runs):
            order = provers if r % 2 == 0 else provers[::-1]
            for label, cmd in order:
                proof = os.path.join(out, "%s.%s.%d.proof.json" % (name, label, r))
                public = os.path.join(out, "%s.%s.%d.public.json" % (name, label, r))
                wall, rss = run_once(cmd + [zkey, wtns, proof, public])
                times[label].append(wall)
                mem[label].append(rss)
                cases.write("%s %s %s\n" % (vk, public, proof))
    a, b = provers[0][0], provers[1][0]
    med = {l: statistics.median(times[l]) for l in times}
    print(json.dumps({
        "circuit": name,
        "runs": runs,
        "median_s": {l: round(med[l], 4) for l in med},
        "ratio": round(med[b] / med[a], 3),
        "ratio_of": "%s / %s" % (b, a),
        "peak_mib": {l: round(max(mem[l]), 1) for l in mem},
        "all_s": {l: [round(t, 4) for t in times[l]] for l in times},
    }))


main()
