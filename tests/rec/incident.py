#!/usr/bin/env python3
"""Checks of tests/rec/test_incident.sh: an incident recorded live, read back.

  incident.py report TALLY LIVE REPORT.json    a report of the recording
  incident.py batch TALLY LIVE BATCH.jsonl     -r --batch --json --top 0 of it
  incident.py involved TALLY LIVE              findings.csv's involved column
  incident.py episodes NAME REPORT.json        print the report's episodes

TALLY is rocetop-gen's tally of what it sent, LIVE the live run's --csv
directory (findings.csv, pfc.csv). Each check prints its problems, one a
line; nothing when all agree:
  - the packet totals are the generator's, exactly;
  - the paused time per priority is the live run's (to 1%), and within 90% to
    101% of the tally's quanta at 10 Gb/s (the veth's speed where it was
    recorded): their union in time, which overlaps shorten;
  - the episodes are the live run's: the same (rule, subject), each starting
    where it started live (a tenth of an interval), ending where the live run closed it, and an
    episode the kill left open live ends in the output too;
  - the PFC storms: one pfc-storm episode per run of intervals paused at least
    pfc-share (20%) with less than the quiet period (10 s) between them, from
    the first such interval's start to the last one's end.
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.outputs import kv, rows  # noqa: E402

SPEED = 10e9            # the veth where the lab recorded
INTERVAL = 0.5          # the test's -d
SHARE, QUIET = 0.2, 10  # pfc-share and close-secs, their defaults
# Times agree to a tenth of an interval: an interval's length is measured on
# the monotonic clock live and between the recorded wall-clock times in a
# replay (milliseconds apart on a loaded machine); an interval off is 0.5 s.
TOL = INTERVAL / 10


def subj_key(s):
    if isinstance(s, dict):
        return frozenset("%s=%s" % (k, v) for k, v in s.items())
    return frozenset(s.split())


def tally_totals(tdir):
    t = {k: int(float(v)) for k, v in kv(os.path.join(tdir, "summary.txt")).items()
         if k.startswith("frames")}
    return {
        "frames": t["frames_total"],
        "pkts": t["frames_data"] + t["frames_cnp"] + t["frames_ack"] + t["frames_nak_seq"] +
        t["frames_nak_other"] + t["frames_rnr_nak"],
        "ce": t["frames_data_ce"], "cnp": t["frames_cnp"], "ack": t["frames_ack"],
        "nak_seq": t["frames_nak_seq"], "rnr_nak": t["frames_rnr_nak"],
        "pause": t["frames_pfc"] + t["frames_pause_8023x"],
    }


def tally_paused(tdir):
    return {r["prio"]: int(r["quanta"]) * 512 / SPEED for r in rows(os.path.join(tdir, "pfc.csv"))}


def live(ldir):
    """The live run: its episodes {(rule, subject): [[start, end or None]]}, paused s per prio,
    and the pfc-storm episodes its PFC rows call for."""
    eps = {}
    for r in rows(os.path.join(ldir, "findings.csv")):
        k = (r["rule"], subj_key(r["subject"]))
        if r["event"] == "open":
            eps.setdefault(k, []).append([float(r["start"]), None])
        elif r["event"] == "close":
            for e in eps.get(k, []):
                if abs(e[0] - float(r["start"])) < TOL:
                    e[1] = float(r["end"])
    # The rule's share is of the interval's measured length: an interval
    # within a tenth of the threshold may fall either way, so the runs are
    # made at 90% and 110% of it, and either may hold.
    paused, storm = {}, [{}, {}]
    for r in rows(os.path.join(ldir, "pfc.csv")):
        p, s, t = r["prio"], float(r["paused_seconds"] or 0), float(r["time"])
        paused[p] = paused.get(p, 0) + s
        for share, st in zip((SHARE * 0.9, SHARE * 1.1), storm):
            if s / INTERVAL < share:
                continue
            runs = st.setdefault((r["ifname"], r["dir"], p), [])
            if runs and t - INTERVAL - runs[-1][1] < QUIET:
                runs[-1][1] = t
            else:
                runs.append([t - INTERVAL, t])
    return eps, paused, storm


def cmp_totals(what, got, want, bad):
    for k, v in want.items():
        if got.get(k) != v:
            bad.append("%s: %s %s, the generator sent %d" % (what, k, got.get(k), v))


def cmp_paused(what, got, live_p, tally_p, bad):
    for p, v in tally_p.items():
        lv, g = live_p.get(p, 0), got.get(p, 0)
        # The time paused is the union of the pauses (rocetop(8) PAUSED
        # TIME): the quanta's sum where none overlaps, less where the
        # generator's frames bunch on a loaded machine; never more.
        # test_pause_union.sh and test_pause_live.sh hold it to the frames'
        # own times exactly.
        if not 0.9 * v <= lv <= 1.01 * v:
            bad.append("live: priority %s paused %.4f s, the tally's quanta at 10G %.4f s" % (p, lv, v))
        if abs(g - lv) > 0.01 * lv:
            bad.append("%s: priority %s paused %.4f s, live %.4f s" % (what, p, g, lv))


def cmp_episodes(what, got, want, storm, bad):
    """got, want: {(rule, subject): [[start, end]]}."""
    if set(got) != set(want):
        bad.append("%s: episodes of %s; live: %s" % (what, sorted((r, " ".join(sorted(s))) for r, s in got),
                                                    sorted((r, " ".join(sorted(s))) for r, s in want)))
        return
    for k, ws in want.items():
        gs = sorted(got[k])
        ws = sorted(ws)
        if len(gs) != len(ws):
            bad.append("%s: %s %s: %d episodes, live %d" % (what, k[0], " ".join(sorted(k[1])), len(gs), len(ws)))
            continue
        for g, w in zip(gs, ws):
            if abs(g[0] - w[0]) > TOL or g[1] is None or (w[1] is not None and abs(g[1] - w[1]) > TOL):
                bad.append("%s: %s %s: %s..%s, live %s..%s" % (what, k[0], " ".join(sorted(k[1])),
                                                               g[0], g[1], w[0], w[1]))
    for key in set(storm[0]) | set(storm[1]):
        ifn, d, p = key
        k = ("pfc-storm", frozenset({"ifname=" + ifn, "dir=" + d, "prio=" + p}))
        gs = sorted(got.get(k, []))
        alts = [st.get(key, []) for st in storm]
        if not any(len(gs) == len(runs) and all(abs(g[0] - r[0]) <= TOL and g[1] is not None and
                                                abs(g[1] - r[1]) <= TOL for g, r in zip(gs, runs))
                   for runs in alts):
            bad.append("%s: pfc-storm %s %s %s episodes %s; the paused intervals make %s" %
                       (what, ifn, d, p, gs, alts[1]))


def check_report(tdir, ldir, path):
    r, bad = json.load(open(path)), []
    t = r["totals"]
    cmp_totals("report", {"frames": t["frames"], "pkts": t["pkts"], "ce": t["ce"], "cnp": t["cnp"],
                          "ack": t["ack"], "nak_seq": t["nak_seq"], "rnr_nak": t["rnr_nak"],
                          "pause": t["pause_frames"]}, tally_totals(tdir), bad)
    eps, paused, storm = live(ldir)
    got_p = {}
    for p in r["pfc"]["priorities"]:
        got_p[p["prio"]] = got_p.get(p["prio"], 0) + p["seconds"]
        if p["link_speed_mbps"] != 10000:
            bad.append("report: priority %s at %s Mb/s (%s), recorded at 10000" %
                       (p["prio"], p["link_speed_mbps"], p["link_speed_from"]))
    cmp_paused("report", got_p, paused, tally_paused(tdir), bad)
    got = {}
    for f in r["findings"]:
        got.setdefault((f["rule"], subj_key(f["subject"])), []).append([f["start"], f["end"]])
    if r.get("findings_more"):
        bad.append("report: %d episodes not shown (run it with --episodes 0)" % r["findings_more"])
    cmp_episodes("report", got, eps, storm, bad)
    return bad


def check_batch(tdir, ldir, path):
    bad, tot, got_p, got = [], dict.fromkeys(("frames", "pkts", "ce", "cnp", "ack", "nak_seq", "rnr_nak",
                                              "pause"), 0), {}, {}
    end_lines = 0
    for line in open(path):
        d = json.loads(line)
        for e in d["findings"]["events"]:
            k = (e["rule"], subj_key(e["subject"]))
            if e["event"] == "open":
                got.setdefault(k, []).append([e["since"], None])
            elif e["event"] == "close":
                for g in got.get(k, []):
                    if abs(g[0] - e["since"]) < TOL:
                        g[1] = e["until"]
        if d.get("end"):
            end_lines += 1
            continue
        tot["frames"] += d["frames"]["frames"]
        tot["pause"] += d["frames"]["pause"]
        for f in d["flows"]:
            for k in ("pkts", "ce", "cnp", "ack", "nak_seq", "rnr_nak"):
                tot[k] += f[k]
        for p in d["pfc"]:
            got_p[p["prio"]] = got_p.get(p["prio"], 0) + p["paused_s"]
    cmp_totals("-r --batch", tot, tally_totals(tdir), bad)
    eps, paused, storm = live(ldir)
    cmp_paused("-r --batch", got_p, paused, tally_paused(tdir), bad)
    cmp_episodes("-r --batch", got, eps, storm, bad)
    left_open = sum(1 for es in eps.values() for e in es if e[1] is None)
    if (end_lines == 1) != (left_open > 0):
        bad.append("-r --batch: %d end-of-file lines; the kill left %d episodes open" % (end_lines, left_open))
    return bad


def check_involved(tdir, ldir):
    """findings.csv's involved column: over a pfc-storm episode's rows, the
    data flows the generator sent on its priority (its tally's senders)."""
    bad, senders = [], {}
    for line in open(os.path.join(tdir, "summary.txt")):
        w = line.split()
        if w and w[0] == "sender":     # sender SRC qp Q -> qp DQPN prio P ...
            senders.setdefault(w[8], set()).add("%s -> 10.77.0.2 QP %s" % (w[1], w[6]))
    got = {}
    for r in rows(os.path.join(ldir, "findings.csv")):
        if r["rule"] == "pfc-storm" and r["involved"]:
            p = dict(kv.split("=", 1) for kv in r["subject"].split())["prio"]
            got.setdefault(p, set()).update(r["involved"].split("; "))
    if not got:
        bad.append("findings.csv: no pfc-storm row names the flows involved")
    for p, flows in got.items():
        if flows != senders.get(p):
            bad.append("findings.csv: pfc-storm on priority %s involves %s, the tally's senders %s" %
                       (p, sorted(flows), sorted(senders.get(p, ()))))
    return bad


def utc(t):
    return time.strftime("%H:%M:%S", time.gmtime(t)) + (".%03d" % round((t % 1) * 1000) if t % 1 < 0.9995 else ".000")


def episodes(name, path):
    """The episodes of a report, for the log: times UTC and from the file's start."""
    r = json.load(open(path))
    t0 = r["start"]
    for f in sorted(r["findings"], key=lambda f: (f["start"], f["rule"])):
        subj = " ".join("%s=%s" % kv for kv in f["subject"].items())
        print("  EPISODE %-6s %-18s %-8s %s .. %s UTC (+%.1f .. +%.1f s)  peak %.4g  %s" %
              (name, f["rule"], f["severity"], utc(f["start"]), utc(f["end"]), f["start"] - t0,
               f["end"] - t0, f["peak"], subj))


if __name__ == "__main__":
    a = sys.argv
    if a[1] == "report":
        print("\n".join(check_report(a[2], a[3], a[4])))
    elif a[1] == "batch":
        print("\n".join(check_batch(a[2], a[3], a[4])))
    elif a[1] == "involved":
        print("\n".join(check_involved(a[2], a[3])))
    elif a[1] == "episodes":
        episodes(a[2], a[3])
