#!/usr/bin/env python3
"""Check --batch --json lines against the CSV of the same run and tshark.

usage: check_json.py LINES CSVDIR TSHARK_ROCE TSHARK_CE TSHARK_CNP TOP
Each line must be one JSON object; per interval (matched by time) its flows,
totals, PFC rows and frame counts must equal flows.csv, pfc.csv and stats.csv
of that interval, and over the run the flows must add up to what tshark counts
in the capture. Prints one problem per line; nothing when all agree."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.outputs import by_time, json_lines  # noqa: E402
from rtlib.roce import FLOW_COLS  # noqa: E402

FRAME_COLS = ("frames", "roce", "not_roce", "pause", "truncated", "malformed", "table_full")


def check_flows(bad, i, d, want, top):
    """The interval's flows against flows.csv's rows of it (want)."""
    secs = d["interval"]
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
        for c in FLOW_COLS:
            if f[c] != int(r[c]):
                bad.append("interval %d flow %s: %s %s, flows.csv %s" % (i, k, c, f[c], r[c]))
        if f["dscp"] != int(r["dscp"]) or f.get("pcp") != (int(r["pcp"]) if r["pcp"] else None):
            bad.append("interval %d flow %s: dscp/pcp %s/%s, flows.csv %s/%s" % (i, k, f["dscp"], f.get("pcp"), r["dscp"], r["pcp"]))
        if abs(f["pkts_per_s"] - f["pkts"] / secs) > 1e-6 * max(1, f["pkts"] / secs):
            bad.append("interval %d flow %s: pkts_per_s %s for %s in %s s" % (i, k, f["pkts_per_s"], f["pkts"], secs))
        if f["estimate"] is not False:
            bad.append("interval %d flow %s: a capture's count is marked an estimate" % (i, k))


def check_totals(bad, i, tot, want):
    """The interval's totals: the sums of flows.csv's rows of it."""
    for c in ("pkts", "bytes", "ce", "cnp", "rnr_nak"):
        w = sum(int(r[c]) for r in want.values())
        if tot[c] != w:
            bad.append("interval %d: totals.%s %s, flows.csv sums to %s" % (i, c, tot[c], w))
    w = sum(int(r["nak_seq"]) + int(r["nak_other"]) for r in want.values())
    if tot["nak"] != w:
        bad.append("interval %d: totals.nak %s, flows.csv sums to %s" % (i, tot["nak"], w))
    if w and abs(tot["ce_pct"] - 100.0 * tot["ce"] / tot["pkts"]) > 1e-9:
        bad.append("interval %d: ce_pct %s" % (i, tot["ce_pct"]))


def check_pfc_frames(bad, i, d, pfc_rows, stats_rows):
    """PFC per interface, direction and priority against pfc.csv; the frame
    counts against stats.csv summed over interfaces and directions."""
    wp = {(r["ifname"], r["dir"], r["prio"]): r for r in pfc_rows if int(r["frames"])}
    gp = {(p["ifname"], p["dir"], str(p["prio"])): p for p in d["pfc"]}
    if set(gp) != set(wp):
        bad.append("interval %d: pfc rows %s, pfc.csv %s" % (i, sorted(gp), sorted(wp)))
    for k, p in gp.items():
        r = wp.get(k)
        if r and (p["frames"], p["xon"], p["quanta"]) != (int(r["frames"]), int(r["xon"]), int(r["quanta"])):
            bad.append("interval %d pfc %s: %s, pfc.csv %s" % (i, k, p, dict(r)))
    fr = d["frames"]
    for c in FRAME_COLS:
        w = sum(int(r[c]) for r in stats_rows)
        if fr[c] != w:
            bad.append("interval %d: frames.%s %s, stats.csv %s" % (i, c, fr[c], w))


def main():
    lines_path, csvdir, t_roce, t_ce, t_cnp, top = sys.argv[1:7]
    tshark_counts, top = (int(t_roce), int(t_ce), int(t_cnp)), int(top)
    bad = []
    docs = []
    for n, d in enumerate(json_lines(lines_path, bad), 1):
        if d.get("end") is True:
            # a replay's last line: the closes of the episodes still open, no interval
            if set(d) != {"time", "end", "findings"}:
                bad.append("line %d, the end of the file, has keys %s" % (n, sorted(d)))
            continue
        docs.append(d)
    flows, pfc, stats = (by_time(os.path.join(csvdir, n)) for n in ("flows.csv", "pfc.csv", "stats.csv"))
    seen_times = set()
    sums = [0, 0, 0]
    for i, d in enumerate(docs, 1):
        t = round(float(d["time"]), 6)
        seen_times.add(t)
        want = {(r["ifname"], r["dir"], r["src"], r["dst"], int(r["dqpn"])): r
                for r in flows.get(t, []) if int(r["pkts"])}
        check_flows(bad, i, d, want, top)
        check_totals(bad, i, d["totals"], want)
        for k, c in enumerate(("pkts", "ce", "cnp")):
            sums[k] += d["totals"][c]
        check_pfc_frames(bad, i, d, pfc.get(t, []), stats.get(t, []))
        if not isinstance(d["notes"], list):
            bad.append("interval %d: notes is not a list" % i)
    if not docs:
        bad.append("no JSON line at all")
    csv_times = set(flows) | set(stats)
    if seen_times != csv_times:
        bad.append("intervals: JSON has %d, the CSV %d" % (len(seen_times), len(csv_times)))
    if top == 0 and tuple(sums) != tshark_counts:
        bad.append("over the run: pkts/CE/CNP %s/%s/%s, tshark %s/%s/%s" % (*sums, *tshark_counts))
    print("\n".join(bad[:12]))


main()
