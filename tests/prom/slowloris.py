#!/usr/bin/python3
"""Slow-header clients against the exporter (issue 16, defect 9).

usage: slowloris.py HOST PORT NSLOW SECS
NSLOW connections each send a request line, then one header line every
second and never finish their headers (reconnecting when cut, as an
attacker would); meanwhile a normal client scrapes /metrics every 0.5 s
with a 3 s timeout. Prints "ok N/M" (scrapes answered 200 with a body)
and how many slow connections the server cut.
"""
import socket
import sys
import threading
import time
import urllib.request

host, port, nslow, secs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
stop = time.time() + secs
cuts = [0]
lock = threading.Lock()


def slow():
    s = None
    while time.time() < stop:
        try:
            if s is None:
                s = socket.create_connection((host, port), timeout=2)
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            time.sleep(1)
            s.sendall(b"X-Slow: 1\r\n")
        except OSError:
            with lock:
                cuts[0] += 1
            try:
                s.close()
            except Exception:
                pass
            s = None
            time.sleep(0.2)


threads = [threading.Thread(target=slow, daemon=True) for _ in range(nslow)]
for t in threads:
    t.start()
time.sleep(2)  # every slot the slow clients can take is taken
ok = n = 0
while time.time() < stop - 1:
    n += 1
    try:
        with urllib.request.urlopen("http://%s:%d/metrics" % (host, port), timeout=3) as r:
            if r.status == 200 and b"rocetop_intervals" in r.read():
                ok += 1
    except Exception as e:
        print("  scrape failed:", e)
    time.sleep(0.5)
print("ok %d/%d cut %d" % (ok, n, cuts[0]))
