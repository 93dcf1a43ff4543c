#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""The soak tests' scraper: fetches each URL every INTERVAL seconds until STOP_FILE exists, while
holding IDLE connections open to the first URL's host and port (half of them silent, half stopped
in the middle of a request), opening a new one whenever the server closes one (it closes idle
connections after 2 s) or cannot be reached (a restart).

  metrics_probe.py OUT STOP_FILE INTERVAL IDLE [--token T] URL [URL ...]

Writes one line per fetch to OUT: "<start> <end> <HTTP code or ERR> <idle connections open> <url>"
(start and end: seconds since the epoch, comparable with `date +%s.%N`). The scripts decide
which fetches count (those made while the daemon was up).
"""
import os
import select
import socket
import sys
import time
import urllib.request


def main():
    args = sys.argv[1:]
    token = ""
    if "--token" in args:
        i = args.index("--token")
        token = args[i + 1]
        del args[i:i + 2]
    out_path, stop_file, interval, idle_n, urls = args[0], args[1], float(args[2]), int(args[3]), args[4:]
    host, port = urls[0].split("/")[2].split(":")
    port = int(port)
    idle = [None] * idle_n

    def keep_idle():
        for i, s in enumerate(idle):
            if s is not None:
                try:
                    r, _, _ = select.select([s], [], [], 0)
                    if not r:
                        continue
                    s.recv(4096)  # closed by the server (b"") or an answer to a half request
                except OSError:
                    pass
                s.close()
                idle[i] = None
            try:
                s = socket.create_connection((host, port), timeout=0.2)
                if i % 2:
                    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")  # never finished
                idle[i] = s
            except OSError:
                idle[i] = None

    headers = {"Authorization": "Bearer " + token} if token else {}
    with open(out_path, "a", buffering=1) as out:
        next_at = time.time()
        while not os.path.exists(stop_file):
            keep_idle()
            now = time.time()
            if now < next_at:
                time.sleep(min(0.05, next_at - now))
                continue
            next_at = now + interval
            held = sum(1 for s in idle if s is not None)
            for url in urls:
                t0 = time.time()
                try:
                    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=5) as r:
                        r.read()
                        code = str(r.status)
                except Exception as e:  # refused while the daemon is down, a timeout, an HTTP error
                    code = "ERR:" + type(e).__name__
                t1 = time.time()
                out.write("%.3f %.3f %s %d %s\n" % (t0, t1, code, held, url))
    for s in idle:
        if s is not None:
            s.close()


if __name__ == "__main__":
    main()
