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
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import kv, rows, sums  # noqa: E402

name, csvdir, tallydir = sys.argv[1:4]
C = Checker(f"{name}: ", "rocetop", "generator", need_want=True)
summary = kv(f"{tallydir}/sflow.txt")
port = f"{summary['agent']}:{summary['port']}"

COLS = {"pkts": "est_pkts", "bytes": "est_bytes", "ce": "est_ce", "cnp": "est_cnp", "samples": "samples"}
got = sums(f"{csvdir}/flows.csv", lambda r: (r["dir"], r["src"], r["dst"], int(r["dqpn"])), COLS,
           lambda r: r["ifname"] == port)
want = defaultdict(lambda: {c: 0 for c in COLS})
for r in rows(f"{tallydir}/sflow_flows.csv"):
    for c, t in COLS.items():
        want[(r["dir"], r["src"], r["dst"], int(r["dqpn"]))][c] += int(r[t])
C.check(f"flows.csv estimates at {port} equal the rates of the samples sent, flow by flow",
        got, dict(want))

gd = defaultdict(int)
for r in rows(f"{csvdir}/drops.csv"):
    gd[(r["agent"], r["port"], r["reason"], r["reason_code"])] += int(r["drops"])
wd = {(r["agent"], r["port"], r["reason"], r["reason_code"]): int(r["drops"])
      for r in rows(f"{tallydir}/sflow_drops.csv")}
C.check("drops.csv equals the drop notifications sent", dict(gd), wd)

sp = [r for r in rows(f"{csvdir}/switchports.csv") if f"{r['agent']}:{r['port']}" == port]
mq = max((int(r["max_queue_bytes"]) for r in sp if r["max_queue_bytes"]), default=0)
C.check("switchports.csv's largest queue depth is the largest sent", mq, int(summary["max_queue_bytes"]))
mt = max((int(r["max_transit_ns"]) for r in sp if r["max_transit_ns"]), default=0)
C.check("switchports.csv's largest transit delay is the largest sent", mt, int(summary["max_transit_ns"]))
per_dir = {d: sum(int(r["samples"]) for r in sp if r["dir"] == d) for d in ("ingress", "egress")}
C.check("switchports.csv's samples per direction", per_dir,
        {"ingress": int(summary["ingress_samples"]), "egress": int(summary["egress_samples"])})
est = {d: sum(int(r["est_pkts"]) for r in sp if r["dir"] == d) for d in ("ingress", "egress")}
C.check("switchports.csv's estimated packets per direction", est,
        {"ingress": int(summary["ingress_est_pkts"]), "egress": int(summary["egress_est_pkts"])})
C.done()
