#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The daemon's start and its log.

1. While it loads, the daemon already listens: /status answers {"state": "starting", "loading":
   ...} naming the step in progress, /metrics answers 503 saying the same, gRPC answers
   UNAVAILABLE with it. The step held here is the farm's PostgreSQL connection, pointed at a
   listener that accepts and never answers; once the listener closes, the daemon exits 1 with an
   error naming the queue.
2. daemon.log_format = "json" (with --log-level debug): every line is one JSON object with time,
   level and msg; the debug lines name each circuit as it is read.
3. --log-level warning with the text format: no info line at all, the insecure-key warning kept;
   /status says "serving" once ready.
4. A level or a format that does not exist is refused, naming the flag or the key.

    startup_log.py CUZK SOURCE_DIR
"""
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

CUZK, ROOT = sys.argv[1], sys.argv[2]
ZKEY = os.path.join(ROOT, "examples", "porep-bn254", "circuit.zkey")
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
    return cond


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def http_get(port, path):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=2) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return None, ""


def config(d, status_port, extra_daemon="", queue=""):
    path = os.path.join(d, "cuzk.toml")
    with open(path, "w") as f:
        f.write('[daemon]\nlisten = "unix://%s/d.sock"\nstatus_listen = "127.0.0.1:%d"\njournal = "%s/journal"\n%s\n'
                '[devices]\nlist = ["cpu"]\n[[circuits]]\nid = "a"\nzkey = "%s"\n[[circuits]]\nid = "b"\nzkey = "%s"\n%s'
                % (d, status_port, d, extra_daemon, ZKEY, ZKEY, queue))
    return path


def wait_until(pred, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    return None


def loading_run(d):
    """Parts 1 and 2: a daemon held while it connects to its queue, with the JSON log."""
    hold = socket.socket()
    hold.bind(("127.0.0.1", 0))
    hold.listen(8)
    qport = hold.getsockname()[1]
    sport = free_port()
    cfg = config(d, sport, 'log_format = "json"',
                 '[queue]\nbackend = "postgres"\ndsn = "host=127.0.0.1 port=%d user=cuzk dbname=cuzk '
                 'sslmode=disable connect_timeout=60"\n' % qport)
    log_path = os.path.join(d, "json.log")
    with open(log_path, "w") as log:
        p = subprocess.Popen([CUZK, "daemon", "--config", cfg, "--log-level", "debug"], stdout=log, stderr=log)
    held = []
    try:
        conn = wait_until(lambda: hold.accept(), 20)  # blocks until the daemon connects
        if conn is None:
            text = open(log_path).read()
            if "built without libpq" in text:
                print("skip: this cuzk was built without libpq; the held step is the farm's connection")
                p.kill()
                return None
            check(False, "the daemon connects to its queue within 20 s: " + text[-400:])
            return log_path
        held.append(conn[0])

        def starting():
            code, body = http_get(sport, "/status")
            if code != 200:
                return None
            s = json.loads(body)
            return s if s.get("state") == "starting" and "PostgreSQL" in s.get("loading", "") else None

        s = wait_until(starting, 10)
        if check(s is not None, "/status answers while the daemon loads: state starting, loading names the step"):
            print("     " + json.dumps(s)[:300])
            check(s.get("version") and s.get("commit") and s.get("uptime_s", -1) >= 0,
                  "/status while starting carries version, commit and uptime_s")
        code, body = http_get(sport, "/metrics")
        check(code == 503 and "starting: connecting to the farm's PostgreSQL queue" in body,
              "/metrics while starting: 503 naming the step (%s %s)" % (code, body.strip()[:120]))
        r = subprocess.run([CUZK, "status", "--daemon", "unix://%s/d.sock" % d], capture_output=True, text=True,
                           timeout=30)
        check(r.returncode != 0 and "starting: connecting to the farm's PostgreSQL queue" in r.stderr,
              "gRPC while starting: UNAVAILABLE naming the step (%s)" % r.stderr.strip()[:160])
        check(p.poll() is None, "the daemon is still starting while its queue does not answer")
    finally:
        for c in held:
            c.close()
        hold.close()
    try:
        rc = p.wait(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    check(rc == 1, "the queue closed: the daemon exits 1 (got %s)" % rc)
    code, _ = http_get(sport, "/status")
    check(code is None, "after it gave up, the status port is closed")
    return log_path


def check_json_log(log_path):
    lines = [l for l in open(log_path).read().splitlines() if l.strip()]
    objs, bad = [], []
    for l in lines:
        try:
            o = json.loads(l)
            if not (isinstance(o, dict) and set(o) == {"time", "level", "msg"}):
                bad.append(l)
            objs.append(o)
        except ValueError:
            bad.append(l)
    check(lines and not bad, "log_format json: each of %d lines is one object {time, level, msg}%s" %
          (len(lines), "" if not bad else "; not: " + " | ".join(bad[:3])[:300]))
    times_ok = all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", o.get("time", "")) for o in objs)
    check(times_ok, "every time is UTC RFC 3339 with milliseconds")
    levels = {o.get("level") for o in objs}
    check(levels <= {"error", "warning", "info", "debug"}, "levels are error, warning, info, debug: %s" % levels)
    debug = [o["msg"] for o in objs if o.get("level") == "debug"]
    check(any("loading: circuit 'a' (1 of 2): reading " + ZKEY in m for m in debug) and
          any("loading: circuit 'b' (2 of 2)" in m for m in debug),
          "--log-level debug: each circuit's read is logged as it begins")
    check(any(o.get("level") == "warning" and "circuit 'a'" in o["msg"] and "insecure setup" in o["msg"]
              for o in objs), "the insecure key is a warning")
    check(any(o.get("level") == "error" and "queue" in o["msg"] for o in objs),
          "the failed start is an error naming the queue: %s" %
          [o["msg"][:120] for o in objs if o.get("level") == "error"])


def warning_run(d):
    """Part 3: text format, --log-level warning."""
    sport = free_port()
    cfg = config(d, sport)
    log_path = os.path.join(d, "text.log")
    with open(log_path, "w") as log:
        p = subprocess.Popen([CUZK, "daemon", "--config", cfg, "--log-level", "warning"], stdout=log, stderr=log)
    try:
        def serving():
            code, body = http_get(sport, "/status")
            return code == 200 and json.loads(body).get("state") == "serving"

        check(wait_until(serving, 30), "/status says serving once the daemon is ready")
        code, body = http_get(sport, "/metrics")
        check(code == 200 and "cuzk_jobs_accepted_total" in body, "/metrics answers once ready")
    finally:
        p.terminate()
        rc = p.wait(timeout=60)
    check(rc == 0, "SIGTERM: exit 0 (got %s)" % rc)
    lines = [l for l in open(log_path).read().splitlines() if l.strip()]
    info = [l for l in lines if not re.match(r"^\S+Z cuzk: (warning|error): ", l)]
    check(lines and not info, "--log-level warning: only warnings and errors (%d lines; others: %s)" %
          (len(lines), info[:2]))
    check(any("warning: circuit 'b':" in l and "insecure setup" in l for l in lines),
          "the insecure-key warning stays at --log-level warning")


def refusals(d):
    sport = free_port()
    cfg = config(d, sport)
    r = subprocess.run([CUZK, "daemon", "--config", cfg, "--log-level", "loud"], capture_output=True, text=True,
                       timeout=30)
    check(r.returncode == 1 and "--log-level: 'loud' is not a level" in r.stderr,
          "--log-level loud: exit 1 naming the flag (%s)" % r.stderr.strip()[:120])
    cfg = config(d, sport, 'log_format = "xml"')
    r = subprocess.run([CUZK, "daemon", "--config", cfg], capture_output=True, text=True, timeout=30)
    check(r.returncode == 1 and "daemon.log_format: 'xml' is not a format (text, json)" in r.stderr,
          "log_format = \"xml\": exit 1 naming the key (%s)" % r.stderr.strip()[:120])


def main():
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "a"))
        log_path = loading_run(os.path.join(d, "a"))
        if log_path:
            check_json_log(log_path)
        os.mkdir(os.path.join(d, "b"))
        warning_run(os.path.join(d, "b"))
        refusals(os.path.join(d, "b"))
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("startup and log: listening while loading, levels, JSON lines")


main()
