#!/usr/bin/env python3
"""A 10-minute capture of steady conditions that ease for a few seconds now
and then, written from a schedule that is the test's oracle, and the checks
of what rocetop makes of it.

  gen DIR        write DIR/ep.pcap and DIR/want.json (the schedule)
  report WANT REPORT.json   the report: 15 episodes, each condition once,
                 ranked (severity, length), 10 shown and "5 more", each
                 starting and ending where the schedule says (within 1 s)
  csv WANT findings.csv     each condition opened once and closed once
  batch WANT BATCH.txt      --batch: each condition's lines only when it
                 opened and closed (2 lines each, the next steps aside)

The schedule (read with --link-speed 1G, 1-s intervals):
  - priorities 0-6 paused from 5 + 3p s to 590 - p s by 10 pause frames a
    second of quanta 0xffff (33.5% of the time at 1G), with no pause at all
    for 3 s of every 25 (the old findings closed after 2 quiet intervals:
    about 23 episodes each);
  - 8 host pairs with sequence NAKs twice a second from 100 + 10i s to
    500 - 5i s, none for 4 s of every 30;
  - a data flow on priority 7 (not paused) twice a second to 615 s, so every
    condition is quiet for 10 s before the file ends.
Frames are written with struct, byte by byte, not by rocetop's code.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import pcap  # noqa: E402
from rtlib.roce import pfc_body, raw_roce  # noqa: E402

T0 = 1700000000
END = 615.0
NPRIO = 7
NLOSS = 8


def storm(p):
    return 5.0 + 3 * p, 590.0 - p


def loss(i):
    return 100.0 + 10 * i, 500.0 - 5 * i


def eth(dst, src, etype):
    return dst + src + struct.pack("!H", etype)


def roce(src, dst, dscp, opcode, dqpn, psn, extra):
    return raw_roce(src, dst, dscp << 2, opcode, dqpn, psn, extra)


def pfc(p):
    return eth(b"\x01\x80\xc2\x00\x00\x01", b"\x02\0\0\0\0\x03", 0x8808) + pfc_body({p: 0xffff})


def frames():
    ev = []
    for p in range(NPRIO):
        a, b = storm(p)
        k = 0
        while a + k * 0.1 < b - 1e-9:
            t = a + k * 0.1
            if (t - a) % 25 < 22 - 1e-9 or (t - a) % 25 >= 25 - 1e-9:
                ev.append((t + p * 0.001, pfc(p)))
            k += 1
    for i in range(NLOSS):
        a, b = loss(i)
        k = 0
        while a + k * 0.5 < b - 1e-9:
            t = a + k * 0.5
            if (t - a) % 30 < 26 - 1e-9:
                ev.append((t + 0.01 + i * 0.001, roce("10.0.0.2", "10.0.1.%d" % (10 + i), 56, 0x11,
                                                      0x100 + i, k, struct.pack("!I", 0x60 << 24 | k))))
            k += 1
    k = 0
    while k * 0.5 < END:
        ev.append((k * 0.5 + 0.02, roce("10.0.2.1", "10.0.0.2", 56, 0x0a, 0x200, k, b"\0" * 16 + b"\0" * 64)))
        k += 1
    ev.sort(key=lambda e: e[0])
    return ev


def gen(d):
    with open(d + "/ep.pcap", "wb") as f:
        f.write(pcap.header())
        for t, b in frames():
            us = int(round(t * 1e6))
            f.write(pcap.record(T0 + us // 1000000, us % 1000000, b))
    want = [{"rule": "pfc-storm", "severity": "critical", "prio": p, "start": T0 + storm(p)[0],
             "end": T0 + storm(p)[1]} for p in range(NPRIO)]
    want += [{"rule": "loss", "severity": "warning", "src": "10.0.0.2", "dst": "10.0.1.%d" % (10 + i),
              "start": T0 + loss(i)[0], "end": T0 + loss(i)[1]} for i in range(NLOSS)]
    # ranked: severity, then length
    want.sort(key=lambda w: (w["severity"] != "critical", -(w["end"] - w["start"])))
    json.dump(want, open(d + "/want.json", "w"))


def key(w):
    return (w["rule"], w.get("prio"), w.get("src"), w.get("dst"))


def fkey(f):
    s = f["subject"]
    return (f["rule"], int(s["prio"]) if f["rule"] == "pfc-storm" else None,
            s.get("src") if f["rule"] != "pfc-storm" else None, s.get("dst") if f["rule"] != "pfc-storm" else None)


def check_report(want, rep):
    got = rep["findings"]
    errs = []
    if [fkey(f) for f in got] != [key(w) for w in want[:10]]:
        errs.append("%d shown, ranked %s, the schedule's %s" % (len(got), [fkey(f) for f in got][:12],
                                                                 [key(w) for w in want[:10]]))
    if rep.get("findings_more") != len(want) - 10:
        errs.append("findings_more %s, expected %d" % (rep.get("findings_more"), len(want) - 10))
    for f, w in zip(got, want):
        if f["severity"] != w["severity"] or abs(f["start"] - w["start"]) > 1.0 or abs(f["end"] - w["end"]) > 1.0:
            errs.append("%s: %s %.1f..%.1f, the schedule %.1f..%.1f" % (key(w), f["severity"], f["start"] - T0,
                                                                        f["end"] - T0, w["start"] - T0, w["end"] - T0))
    return errs


def check_csv(want, path):
    import csv
    ev = {}
    for r in csv.DictReader(open(path)):
        ev.setdefault((r["rule"], r["subject"]), []).append(r["event"])
    errs = []
    if len(ev) != len(want):
        errs.append("%d conditions in findings.csv, the schedule has %d" % (len(ev), len(want)))
    for k, e in ev.items():
        if e.count("open") != 1 or e.count("close") != 1:
            errs.append("%s %s: %d opens, %d closes" % (k[0], k[1], e.count("open"), e.count("close")))
    return errs


def check_batch(want, path):
    lines = [l for l in open(path) if l.startswith("  ") and not l.lstrip().startswith("next:")
             and (" pfc-storm " in l or " loss " in l)]
    errs = []
    for w in want:
        tag = "prio=%d" % w["prio"] if w["rule"] == "pfc-storm" else "src=%s dst=%s " % (w["src"], w["dst"])
        mine = [l.split()[0] for l in lines if (" %s " % w["rule"]) in l and tag in l + " "]
        if mine != ["open", "close"]:
            errs.append("%s: --batch printed %s" % (key(w), mine[:6] + (["..."] if len(mine) > 6 else [])))
    if len(lines) != 2 * len(want):
        errs.append("%d finding lines in --batch, expected %d" % (len(lines), 2 * len(want)))
    return errs


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        return
    want = json.load(open(sys.argv[2]))
    if sys.argv[1] == "report":
        errs = check_report(want, json.load(open(sys.argv[3])))
    elif sys.argv[1] == "csv":
        errs = check_csv(want, sys.argv[3])
    else:
        errs = check_batch(want, sys.argv[3])
    if errs:
        print("; ".join(errs[:6]) + (" (and %d more)" % (len(errs) - 6) if len(errs) > 6 else ""))
        sys.exit(1)


if __name__ == "__main__":
    main()
