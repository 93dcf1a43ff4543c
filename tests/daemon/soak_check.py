#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The soak tests' checks of what soak_client and metrics_probe.py recorded (tests/daemon/soak.sh,
tests/farm/farm-soak.sh). Prints "ok - ..." or "FAIL - ..." per check, then one line
"stats key=value ..." for the script's summary; exits 1 if a check failed.

  soak_check.py --expect N --prefix P --acks FILE... --awaits FILE --outdir DIR --refs PUB0,PUB1,...
                [--resubmits FILE] [--quarantined REQUEST_ID] [--pairs OUT]
                [--probes FILE --events FILE --url URL=NAME ...] [--journal-ids FILE]

--acks: the "ack"/"err" lines of `soak_client submit` for request ids P-00000 ... P-<N-1>.
--awaits: the lines of `soak_client await` for those; --outdir where it wrote the proofs.
--refs: the public inputs (public.json as `cuzk prove` writes it) of witness k, for request ids
  whose number is k modulo their count.
--resubmits: the ack lines of every request id submitted again after the run: each must get its
  job back (existing 1), the same job.
--quarantined: the one request id whose journal record was corrupted: it must answer FAILED naming
  the quarantined record; any other must be DONE with one proof.
--pairs: write "public proof" path pairs of the DONE jobs there, for `cuzk verify`.
--journal-ids: the job ids found in the journal (one a line): exactly the acknowledged ones.
--probes/--events: metrics_probe.py's lines, and the script's "<epoch> up|down NAME" lines
  (up: `cuzk status` answered after a start; down: just before a kill -9). A fetch counts when it
  began while its daemon was up and the daemon stayed up for at least 1 s after it began (a fetch
  cut by a kill -9 is not the server's slowness); each such fetch must answer 200 within 1 s.
"""
import argparse
import collections
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--expect", type=int, required=True)
ap.add_argument("--prefix", required=True)
ap.add_argument("--acks", nargs="+", required=True)
ap.add_argument("--awaits", required=True)
ap.add_argument("--outdir", required=True)
ap.add_argument("--refs", required=True)
ap.add_argument("--resubmits")
ap.add_argument("--quarantined", default="")
ap.add_argument("--pairs")
ap.add_argument("--journal-ids")
ap.add_argument("--probes")
ap.add_argument("--events")
ap.add_argument("--url", action="append", default=[])
ap.add_argument("--idle", type=int, default=0, help="idle connections the prober was to hold")
ap.add_argument("--freeze-windows", default="", help="start:end,... (epoch seconds) to report separately")
a = ap.parse_args()

failed = 0
stats = collections.OrderedDict()


def check(name, problems):
    global failed
    if problems:
        failed += 1
        print("FAIL - " + name)
        for p in problems[:15]:
            print("    " + p)
        if len(problems) > 15:
            print("    ... and %d more" % (len(problems) - 15))
    else:
        print("ok - " + name)


rids = ["%s-%05d" % (a.prefix, i) for i in range(a.expect)]
refs = [open(p).read() for p in a.refs.split(",")]

# 1. Acknowledgements: each request id once, no refusal, every job id distinct.
acked, problems, on_retry, existing_on_retry = {}, [], 0, 0
for f in a.acks:
    for line in open(f):
        w = line.split()
        if not w:
            continue
        if w[0] == "err":
            problems.append("refused: " + line.strip())
        elif w[0] == "ack":
            rid, job, existing, attempts = w[1], w[2], w[3], int(w[4])
            if rid in acked:
                problems.append("%s acknowledged twice (%s, %s)" % (rid, acked[rid], job))
            acked[rid] = job
            if attempts > 1:
                on_retry += 1
                existing_on_retry += existing == "1"
missing = [r for r in rids if r not in acked]
if missing:
    problems.append("%d request ids never acknowledged, e.g. %s" % (len(missing), missing[:3]))
extra = [r for r in acked if r not in set(rids)]
if extra:
    problems.append("acknowledged request ids not submitted: %s" % extra[:3])
by_job = collections.defaultdict(list)
for r, j in acked.items():
    by_job[j].append(r)
dup = {j: rs for j, rs in by_job.items() if len(rs) > 1}
if dup:
    problems.append("%d job ids shared by several request ids, e.g. %s" % (len(dup), list(dup.items())[:2]))
stats["acknowledged"] = len(acked)
stats["acked_on_retry"] = on_retry
check("%d of %d request ids acknowledged, %d distinct jobs (%d only on a retry, %d of them as existing)" %
      (len(acked), a.expect, len(by_job), on_retry, existing_on_retry), problems)

# 2. Every acknowledged job delivered: by request id, the acknowledged job, DONE with its proof and
# the public inputs of its witness; the corrupted one FAILED naming its quarantined record.
problems, done, quarantined, lost, pairs = [], 0, 0, 0, []
seen = {}
for line in open(a.awaits):
    w = line.rstrip("\n").split(" ", 4)
    if len(w) < 5:
        problems.append("unreadable await line: " + line.strip())
        continue
    rid, job, state, nres, err = w
    if rid in seen:
        problems.append("%s awaited twice" % rid)
    seen[rid] = (job, state, err)
for rid in rids:
    if rid not in acked:
        continue
    if rid not in seen:
        problems.append("%s: no answer to AwaitProof" % rid)
        lost += 1
        continue
    job, state, err = seen[rid]
    if job != acked[rid]:
        problems.append("%s: AwaitProof answers job %s, acknowledged as %s" % (rid, job, acked[rid]))
    if rid == a.quarantined:
        if state == "FAILED" and "corrupt" in err and "quarantine" in err:
            quarantined += 1
        else:
            problems.append("%s (corrupted record): %s %s, expected FAILED naming the quarantined record" %
                            (rid, state, err))
            lost += state != "DONE"
        continue
    if state != "DONE":
        problems.append("%s (job %s): %s %s" % (rid, job, state, err))
        lost += 1
        continue
    base = "%s/%s" % (a.outdir, rid)
    try:
        pub = open(base + ".public.json").read()
    except OSError as e:
        problems.append("%s: %s" % (rid, e))
        continue
    k = int(rid.rsplit("-", 1)[1]) % len(refs)
    if pub != refs[k]:
        problems.append("%s: public inputs are not those of witness %d: %s" % (rid, k, pub[:80]))
        continue
    done += 1
    pairs.append(base + ".public.json")
    pairs.append(base + ".proof.json")
if a.pairs:
    with open(a.pairs, "w") as f:
        f.write("\n".join(pairs) + ("\n" if pairs else ""))
stats["delivered"] = done
stats["quarantined"] = quarantined
stats["lost"] = lost
check("awaited by request id: %d DONE with the public inputs of their witness%s, %d lost" %
      (done, ", %d FAILED as quarantined" % quarantined if a.quarantined else "", lost), problems)

# 3. One job per request id in the journal (or the farm's table): no duplicate made by a retry.
if a.journal_ids:
    ids = [l.strip() for l in open(a.journal_ids) if l.strip()]
    c = collections.Counter(ids)
    problems = []
    twice = [i for i, n in c.items() if n > 1]
    if twice:
        problems.append("job ids listed more than once: %s" % twice[:3])
    unacked = set(c) - set(acked.values())
    if unacked:
        problems.append("%d jobs that no acknowledgement names (a duplicate of a request id?), e.g. %s" %
                        (len(unacked), sorted(unacked)[:3]))
    absent = set(acked.values()) - set(c)
    if absent:
        problems.append("%d acknowledged jobs absent, e.g. %s" % (len(absent), sorted(absent)[:3]))
    stats["stored_jobs"] = len(c)
    check("%d jobs stored for %d request ids" % (len(c), len(acked)), problems)

# 4. Submitted again after the run: the same job, marked existing.
if a.resubmits:
    problems, same = [], 0
    for line in open(a.resubmits):
        w = line.split()
        if not w:
            continue
        if w[0] != "ack":
            problems.append("resubmission refused: " + line.strip())
            continue
        rid, job, existing = w[1], w[2], w[3]
        if acked.get(rid) != job:
            problems.append("%s resubmitted: job %s, first acknowledged as %s" % (rid, job, acked.get(rid)))
        elif existing != "1":
            problems.append("%s resubmitted: same job %s but not marked existing" % (rid, job))
        else:
            same += 1
    if same != len(acked):
        problems.append("%d of %d resubmissions got their job back" % (same, len(acked)))
    stats["resubmitted_same"] = same
    check("%d request ids submitted again: each got its own job back (existing)" % same, problems)

# 5. /metrics (and whatever else was probed) while each daemon was up.
if a.probes:
    names = dict(u.split("=", 1) for u in a.url)
    ups = collections.defaultdict(list)  # name -> [(up, down)]
    for line in open(a.events):
        w = line.split()
        if len(w) < 3 or w[1] not in ("up", "down"):
            continue
        t, what, name = float(w[0]), w[1], w[2]
        if what == "up":
            ups[name].append([t, float("inf")])
        elif ups[name] and ups[name][-1][1] == float("inf"):
            ups[name][-1][1] = t
    freeze = [tuple(map(float, x.split(":"))) for x in a.freeze_windows.split(",") if x]
    problems, counted, skipped, worst, in_freeze, idle_min, idle_sum = [], 0, 0, 0.0, 0, None, 0
    for line in open(a.probes):
        w = line.split()
        t0, t1, code, held, url = float(w[0]), float(w[1]), w[2], int(w[3]), w[4]
        name = names.get(url, url)
        win = [u for u in ups.get(name, []) if u[0] <= t0 and t0 + 1.0 < u[1]]
        if not win:
            skipped += 1
            continue
        counted += 1
        idle_sum += held
        idle_min = held if idle_min is None else min(idle_min, held)
        dt = t1 - t0
        worst = max(worst, dt)
        if any(s <= t0 <= e for s, e in freeze):
            in_freeze += 1
        if code != "200" or dt > 1.0:
            problems.append("%s at %.3f: %s after %.3f s (daemon %s up since %.3f)" % (url, t0, code, dt, name, win[0][0]))
    if counted < 20:
        problems.append("only %d fetches made while a daemon was up" % counted)
    if a.idle and counted and idle_sum < 0.9 * a.idle * counted:
        problems.append("the prober held %.1f idle connections on average, not about %d" % (idle_sum / counted, a.idle))
    if freeze and in_freeze == 0:
        problems.append("no fetch made while the database was frozen")
    stats["probes"] = counted
    stats["probes_skipped"] = skipped
    stats["probe_max_s"] = "%.3f" % worst
    stats["probes_frozen"] = in_freeze
    stats["idle_min"] = idle_min if idle_min is not None else 0
    stats["idle_mean"] = "%.1f" % (idle_sum / counted if counted else 0)
    check("%d fetches while up (%d in a restart window not counted%s): all 200 within 1 s, max %.3f s%s" %
          (counted, skipped, ", %d while the database was frozen" % in_freeze if freeze else "", worst,
           "; idle connections held at each: min %s, mean %s" % (stats["idle_min"], stats["idle_mean"]) if a.idle else ""),
          problems)

print("stats " + " ".join("%s=%s" % kv for kv in stats.items()))
sys.exit(1 if failed else 0)
