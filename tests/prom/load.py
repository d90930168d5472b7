#!/usr/bin/python3
"""Scrape /metrics from many threads while slow clients hold connections open,
and check that the collector kept its pace meanwhile.

Usage: load.py HOST PORT THREADS SECONDS SLOW INTERVAL
THREADS scrapers loop for SECONDS; SLOW more clients connect, send half a
request line and stay silent. rocetop_intervals_total is read before and
after: with one snapshot every INTERVAL seconds it must have grown by the
elapsed time over INTERVAL, less at most one for the edges. Prints PASS/FAIL.
"""
import http.client
import re
import socket
import sys
import threading
import time

host, port, nthreads, secs, nslow, interval = sys.argv[1:7]
port, nthreads, secs, nslow, interval = int(port), int(nthreads), float(secs), int(nslow), float(interval)
lat, errors, lock = [], [], threading.Lock()


def get():
    c = http.client.HTTPConnection(host, port, timeout=5)
    c.request("GET", "/metrics")
    r = c.getresponse()
    body = r.read()
    c.close()
    if r.status != 200:
        raise RuntimeError("status %d" % r.status)
    return body.decode()


def intervals():
    m = re.search(r"^rocetop_intervals_total (\d+)$", get(), re.M)
    return int(m.group(1))


def scraper(stop):
    while time.monotonic() < stop:
        t0 = time.monotonic()
        try:
            body = get()
            if "rocetop_build_info" not in body:
                raise RuntimeError("incomplete body")
            with lock:
                lat.append(time.monotonic() - t0)
        except Exception as e:  # noqa: BLE001
            with lock:
                errors.append(str(e))


slow = []
for _ in range(nslow):
    s = socket.create_connection((host, port))
    s.sendall(b"GET /metr")
    slow.append(s)

i0, t0 = intervals(), time.monotonic()
stop = t0 + secs
threads = [threading.Thread(target=scraper, args=(stop,)) for _ in range(nthreads)]
for t in threads:
    t.start()
for t in threads:
    t.join()
i1, t1 = intervals(), time.monotonic()
for s in slow:
    s.close()

lat.sort()
n = len(lat)
elapsed = t1 - t0
want = int(elapsed / interval) - 1
print("  %d scrapes from %d threads in %.2f s (%d slow clients idle), %d errors; latency p50 %.1f ms, "
      "p99 %.1f ms, max %.1f ms; intervals %d in %.2f s (%.1f expected)" %
      (n, nthreads, elapsed, nslow, len(errors), 1e3 * lat[n // 2] if n else 0,
       1e3 * lat[min(n - 1, n * 99 // 100)] if n else 0, 1e3 * lat[-1] if n else 0, i1 - i0, elapsed,
       elapsed / interval))
ok = True
if errors or not n:
    print("FAIL prom load: %d of %d scrapes failed: %s" % (len(errors), n + len(errors), errors[:3]))
    ok = False
else:
    print("PASS prom load: %d concurrent scrapes from %d threads, none failed" % (n, nthreads))
if i1 - i0 < want:
    print("FAIL prom load: the collector missed intervals under load: %d in %.2f s, want >= %d" %
          (i1 - i0, elapsed, want))
    ok = False
else:
    print("PASS prom load: the collector kept its pace: %d intervals in %.2f s at %.2f s" % (i1 - i0, elapsed, interval))
sys.exit(0 if ok else 1)
