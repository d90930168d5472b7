#!/usr/bin/env python3
"""Check --batch --json lines against the CSV of the same run and tshark.

usage: check_json.py LINES CSVDIR TSHARK_ROCE TSHARK_CE TSHARK_CNP TOP
Each line must be one JSON object; per interval (matched by time) its flows,
totals, PFC rows and frame counts must equal flows.csv, pfc.csv and stats.csv
of that interval, and over the run the flows must add up to what tshark counts
in the capture. Prints one problem per line; nothing when all agree."""
import csv, json, sys
from collections import defaultdict

lines_path, csvdir, t_roce, t_ce, t_cnp, top = sys.argv[1:7]
t_roce, t_ce, t_cnp, top = int(t_roce), int(t_ce), int(t_cnp), int(top)
bad = []
docs = []
for n, line in enumerate(open(lines_path), 1):
    try:
        d = json.loads(line)
    except ValueError as e:
        bad.append("line %d is not JSON: %s" % (n, e))
        continue
    if not isinstance(d, dict):
        bad.append("line %d is not an object" % n)
        continue
    if d.get("end") is True:
        # a replay's last line: the closes of the episodes still open, no interval
        if set(d) != {"time", "end", "findings"}:
            bad.append("line %d, the end of the file, has keys %s" % (n, sorted(d)))
        continue
    docs.append(d)

def rows(name):
    by = defaultdict(list)
    for r in csv.DictReader(open("%s/%s" % (csvdir, name))):
        by[round(float(r["time"]), 6)].append(r)
    return by

flows, pfc, stats = rows("flows.csv"), rows("pfc.csv"), rows("stats.csv")
FLOW_KEYS = ("pkts", "bytes", "not_ect", "ect0", "ect1", "ce", "cnp", "ack", "nak", "rnr_nak",
             "nak_seq", "nak_other")
seen_times = set()
sum_pkts = sum_ce = sum_cnp = 0
for i, d in enumerate(docs, 1):
    t = round(float(d["time"]), 6)
    seen_times.add(t)
    secs = d["interval"]
    want = {(r["ifname"], r["dir"], r["src"], r["dst"], int(r["dqpn"])): r
            for r in flows.get(t, []) if int(r["pkts"])}
    got = {(f["ifname"], f["dir"], f["src"], f["dst"], f["dqpn"]): f for f in d["flows"]}
    if top == 0 and set(got) != set(want):
        bad.append("interval %d: flows %s, flows.csv has %s" % (i, sorted(got), sorted(want)))
    if top and (len(got) != min(top, len(want)) or d["flows_more"] != max(0, len(want) - top)):
        bad.append("interval %d: %d flows + %d more, flows.csv has %d" % (i, len(got), d["flows_more"], len(want)))
    for k, f in got.items():
        r = want.get(k)
        if not r:
            bad.append("interval %d: flow %s is not in flows.csv" % (i, k))
            continue
        for c in FLOW_KEYS:
            if f[c] != int(r[c]):
                bad.append("interval %d flow %s: %s %s, flows.csv %s" % (i, k, c, f[c], r[c]))
        if f["dscp"] != int(r["dscp"]) or f.get("pcp") != (int(r["pcp"]) if r["pcp"] else None):
            bad.append("interval %d flow %s: dscp/pcp %s/%s, flows.csv %s/%s" % (i, k, f["dscp"], f.get("pcp"), r["dscp"], r["pcp"]))
        if abs(f["pkts_per_s"] - f["pkts"] / secs) > 1e-6 * max(1, f["pkts"] / secs):
            bad.append("interval %d flow %s: pkts_per_s %s for %s in %s s" % (i, k, f["pkts_per_s"], f["pkts"], secs))
        if f["estimate"] is not False:
            bad.append("interval %d flow %s: a capture's count is marked an estimate" % (i, k))
    # totals: the sums of flows.csv for the interval
    tot = d["totals"]
    for c in ("pkts", "bytes", "ce", "cnp", "rnr_nak"):
        w = sum(int(r[c]) for r in want.values())
        if tot[c] != w:
            bad.append("interval %d: totals.%s %s, flows.csv sums to %s" % (i, c, tot[c], w))
    w = sum(int(r["nak_seq"]) + int(r["nak_other"]) for r in want.values())
    if tot["nak"] != w:
        bad.append("interval %d: totals.nak %s, flows.csv sums to %s" % (i, tot["nak"], w))
    if w and abs(tot["ce_pct"] - 100.0 * tot["ce"] / tot["pkts"]) > 1e-9:
        bad.append("interval %d: ce_pct %s" % (i, tot["ce_pct"]))
    sum_pkts += tot["pkts"]; sum_ce += tot["ce"]; sum_cnp += tot["cnp"]
    # PFC per interface, direction and priority: pfc.csv
    wp = {(r["ifname"], r["dir"], r["prio"]): r for r in pfc.get(t, []) if int(r["frames"])}
    gp = {(p["ifname"], p["dir"], str(p["prio"])): p for p in d["pfc"]}
    if set(gp) != set(wp):
        bad.append("interval %d: pfc rows %s, pfc.csv %s" % (i, sorted(gp), sorted(wp)))
    for k, p in gp.items():
        r = wp.get(k)
        if r and (p["frames"], p["xon"], p["quanta"]) != (int(r["frames"]), int(r["xon"]), int(r["quanta"])):
            bad.append("interval %d pfc %s: %s, pfc.csv %s" % (i, k, p, dict(r)))
    # frames: stats.csv summed over interfaces and directions
    fr = d["frames"]
    for jc, cc in (("frames", "frames"), ("roce", "roce"), ("not_roce", "not_roce"), ("pause", "pause"),
                   ("truncated", "truncated"), ("malformed", "malformed"), ("table_full", "table_full")):
        w = sum(int(r[cc]) for r in stats.get(t, []))
        if fr[jc] != w:
            bad.append("interval %d: frames.%s %s, stats.csv %s" % (i, jc, fr[jc], w))
    if not isinstance(d["notes"], list):
        bad.append("interval %d: notes is not a list" % i)

if not docs:
    bad.append("no JSON line at all")
csv_times = set(flows) | set(stats)
if seen_times != csv_times:
    bad.append("intervals: JSON has %d, the CSV %d" % (len(seen_times), len(csv_times)))
if top == 0 and (sum_pkts, sum_ce, sum_cnp) != (t_roce, t_ce, t_cnp):
    bad.append("over the run: pkts/CE/CNP %s/%s/%s, tshark %s/%s/%s" % (sum_pkts, sum_ce, sum_cnp, t_roce, t_ce, t_cnp))
print("\n".join(bad[:12]))
