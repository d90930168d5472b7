#!/usr/bin/python3
"""Compare what rocetop collected over sFlow with rocetop-gen's sFlow tally.

usage: compare_sflow.py NAME CSVDIR TALLYDIR
The generator's switch agent counts a sample only once its datagram was sent;
over loopback every datagram arrives, so the sums are exact:
- flows.csv rows of ifname AGENT:PORT, summed per (dir, src, dst, dqpn): pkts,
  bytes, ce, cnp and samples equal the sums of the sampling rates (and rate x
  frame length, ...) of the samples the generator sent (sflow_flows.csv);
- drops.csv equals its drop notifications (sflow_drops.csv);
- switchports.csv: the largest max_queue_bytes and max_transit_ns equal the
  largest the generator sent, and its samples per direction add up.
"""
import csv
import sys
from collections import defaultdict

name, csvdir, tallydir = sys.argv[1:4]
failed = 0


def check(what, got, want):
    global failed
    if got == want and want:
        print(f"PASS {name}: {what}")
        return
    failed += 1
    print(f"FAIL {name}: {what}" + ("" if want else " (the tally is empty)"))
    if isinstance(got, dict):
        for k in sorted(set(got) | set(want), key=str):
            if got.get(k) != want.get(k):
                print(f"  {k}: rocetop {got.get(k)} generator {want.get(k)}")
    else:
        print(f"  rocetop {got} generator {want}")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


summary = dict(l.split(None, 1) for l in open(f"{tallydir}/sflow.txt").read().splitlines())
summary = {k: v.strip() for k, v in summary.items()}
port = f"{summary['agent']}:{summary['port']}"

COLS = {"pkts": "est_pkts", "bytes": "est_bytes", "ce": "est_ce", "cnp": "est_cnp", "samples": "samples"}
got = defaultdict(lambda: {c: 0 for c in COLS})
for r in rows(f"{csvdir}/flows.csv"):
    if r["ifname"] == port:
        for c in COLS:
            got[(r["dir"], r["src"], r["dst"], int(r["dqpn"]))][c] += int(r[c])
want = defaultdict(lambda: {c: 0 for c in COLS})
for r in rows(f"{tallydir}/sflow_flows.csv"):
    for c, t in COLS.items():
        want[(r["dir"], r["src"], r["dst"], int(r["dqpn"]))][c] += int(r[t])
check(f"flows.csv estimates at {port} equal the rates of the samples sent, flow by flow",
      dict(got), dict(want))

gd = defaultdict(int)
for r in rows(f"{csvdir}/drops.csv"):
    gd[(r["agent"], r["port"], r["reason"], r["reason_code"])] += int(r["drops"])
wd = {(r["agent"], r["port"], r["reason"], r["reason_code"]): int(r["drops"])
      for r in rows(f"{tallydir}/sflow_drops.csv")}
check("drops.csv equals the drop notifications sent", dict(gd), wd)

sp = [r for r in rows(f"{csvdir}/switchports.csv") if f"{r['agent']}:{r['port']}" == port]
mq = max((int(r["max_queue_bytes"]) for r in sp if r["max_queue_bytes"]), default=0)
check("switchports.csv's largest queue depth is the largest sent", mq, int(summary["max_queue_bytes"]))
mt = max((int(r["max_transit_ns"]) for r in sp if r["max_transit_ns"]), default=0)
check("switchports.csv's largest transit delay is the largest sent", mt, int(summary["max_transit_ns"]))
per_dir = {d: sum(int(r["samples"]) for r in sp if r["dir"] == d) for d in ("ingress", "egress")}
check("switchports.csv's samples per direction", per_dir,
      {"ingress": int(summary["ingress_samples"]), "egress": int(summary["egress_samples"])})
est = {d: sum(int(r["est_pkts"]) for r in sp if r["dir"] == d) for d in ("ingress", "egress")}
check("switchports.csv's estimated packets per direction", est,
      {"ingress": int(summary["ingress_est_pkts"]), "egress": int(summary["egress_est_pkts"])})
sys.exit(1 if failed else 0)
