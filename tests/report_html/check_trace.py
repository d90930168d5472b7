#!/usr/bin/env python3
# rocetop report --perfetto against the Chrome Trace Event Format and the
# report: every event has a phase of the format and the fields it needs,
# timestamps are microseconds (inside the report's time range, in µs since
# the epoch), each counter track's events go forward in time, the area under
# each host's rate counters is the report's count (CE, CNP, NAK, RNR NAK)
# and under each paused-fraction counter the report's seconds paused; one
# complete event per finding with its evidence; every flow event's start has
# its end, each inside a slice of its track; a process per host, named.
#
#   check_trace.py NAME TRACE.json REPORT.json
import json, os, sys
from decimal import Decimal
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402

PHASES = set("BEXiICbnestfPONDMRc")
C = Checker()
ok = C.ok


def integral(evs):
    """The area under a counter that holds each value until its next event."""
    s = Decimal(0)
    for (t0, v), (t1, _) in zip(evs, evs[1:]):
        s += v * (t1 - t0) / 1000000
    return float(s)


def main():
    name, tpath, rpath = sys.argv[1:4]
    # exact decimals: a timestamp of 1.7e15 µs has no room left for its ns in a double
    tr = json.load(open(tpath), parse_float=Decimal)
    rep = json.load(open(rpath))
    files = rep["files"] if "files" in rep else [rep]
    hosts = [h["host"] for h in rep["hosts"]] if "files" in rep else [rep["host"]]
    evs = tr.get("traceEvents")
    ok(name, isinstance(evs, list) and evs, "a JSON object with %d traceEvents" % len(evs or []))
    lo = Decimal(min(f["start"] for f in files) * 1e6 - 1)
    hi = Decimal(max(f["end"] for f in files) * 1e6 + 1)
    bad = []
    for e in evs:
        ph = e.get("ph")
        if ph not in PHASES or not isinstance(e.get("pid"), int) or not isinstance(e.get("name"), str):
            bad.append(e)
        elif ph != "M" and not (isinstance(e.get("ts"), (int, Decimal)) and lo <= e["ts"] <= hi):
            bad.append(e)
        elif ph == "X" and not (isinstance(e.get("dur"), (int, Decimal)) and e["dur"] >= 0 and e["ts"] + e["dur"] <= hi):
            bad.append(e)
        elif ph == "C" and not all(isinstance(v, (int, Decimal)) for v in e.get("args", {"": None}).values()):
            bad.append(e)
    ok(name, not bad, "every event has a valid phase, pid, name, and a timestamp in µs within the report's time", str(bad[:3]))
    pn = {e["pid"]: e["args"]["name"] for e in evs if e["ph"] == "M" and e["name"] == "process_name"}
    ok(name, sorted(pn.values()) == sorted(hosts), "a process per host: %s" % sorted(pn.values()))
    tracks = defaultdict(list)
    for e in evs:
        if e["ph"] == "C":
            tracks[(e["pid"], e["name"])].append((e["ts"], e["args"]["value"]))
    nonmono = [k for k, v in tracks.items() if any(b[0] <= a[0] for a, b in zip(v, v[1:]))]
    ok(name, tracks and not nonmono, "%d counter tracks, each forward in time" % len(tracks), str(nonmono[:3]))
    pid_of = {v: k for k, v in pn.items()}
    for i, f in enumerate(files):
        pid = pid_of[hosts[i]]
        t = f["totals"]
        want = {"CE marks/s": t["ce"], "CNPs/s": t["cnp"], "NAKs/s": t["nak"], "RNR NAKs/s": t["rnr_nak"],
                "packets/s": t["pkts"]}
        got = {k: integral(tracks[(pid, k)]) for k in want}
        good = all(round(got[k]) == want[k] and abs(got[k] - want[k]) < 1e-6 * max(1, want[k]) for k in want)
        ok(name, good, "[%s] the counters' areas are the report's counts %s" % (hosts[i], want),
           "got %s" % got)
        pr = f["pfc"]["priorities"]
        gotp, wantp = [], []
        for p in pr:
            k = (pid, "paused fraction: %s %s prio %s" % (p["ifname"], p["dir"], p["prio"]))
            gotp.append(integral(tracks.get(k, [])))
            wantp.append(p["seconds"])
        good = all(abs(g - w) <= 1e-9 * max(1, w) for g, w in zip(gotp, wantp))
        ok(name, good, "[%s] the paused-fraction counters' areas are the report's %d paused seconds %s" %
           (hosts[i], len(pr), wantp), "got %s" % gotp)
    finds = rep["findings"]
    xs = [e for e in evs if e["ph"] == "X" and e.get("cat") == "finding"]
    # the report's times are seconds in a double: within a microsecond
    got = sorted((e["name"], e["args"]["severity"], float(e["ts"]), float(e["ts"] + e["dur"])) for e in xs)
    want = sorted((f["rule"], f["severity"], f["start"] * 1e6, f["end"] * 1e6) for f in finds)
    close = len(got) == len(want) and all(g[:2] == w[:2] and abs(g[2] - w[2]) <= 1 and abs(g[3] - w[3]) <= 1
                                          for g, w in zip(got, want))
    ok(name, close and all(e["args"].get("evidence") and e["args"].get("next") for e in xs),
       "a complete event with evidence and next step for each of the %d findings" % len(finds),
       "got %s want %s" % (got[:3], want[:3]))
    slices = defaultdict(list)
    for e in evs:
        if e["ph"] == "X":
            slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
    starts = {e["id"]: e for e in evs if e["ph"] == "s"}
    ends = {e["id"]: e for e in evs if e["ph"] == "f"}

    def inside(e):
        return any(a <= e["ts"] <= b for a, b in slices[(e["pid"], e["tid"])])
    good = set(starts) == set(ends) and all(inside(e) for e in list(starts.values()) + list(ends.values()))
    ok(name, good, "%d flow events from a CNP flow to the data flow it throttles, each bound to a slice" % len(starts))
    C.done()


if __name__ == "__main__":
    main()
