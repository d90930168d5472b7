#!/usr/bin/python3
"""Compare rocetop's CSV totals with rocetop-gen's tally.

usage: compare_tally.py NAME CSVDIR TALLYDIR IFNAME
The generator's frames with side=data cross IFNAME on ingress, side=rcv on
egress. Prints PASS/FAIL lines; exits 1 on a failure.
"""
import csv
import sys
from collections import defaultdict

name, csvdir, tallydir, ifname = sys.argv[1:5]
FLOW = "pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other".split(",")
PFC = ("frames", "xon", "quanta")
SIDE = {"data": "ingress", "rcv": "egress"}
failed = 0


def check(what, got, want):
    global failed
    if got == want and want:
        print(f"PASS {name}: {what}")
        return
    failed += 1
    print(f"FAIL {name}: {what}" + ("" if want else " (the tally is empty)"))
    for k in sorted(set(got) | set(want), key=str):
        if got.get(k) != want.get(k):
            print(f"  {k}: rocetop {got.get(k)} generator {want.get(k)}")


def sums(path, keyf, cols, rowfilter):
    out = defaultdict(lambda: {c: 0 for c in cols})
    with open(path) as f:
        for r in csv.DictReader(f):
            if rowfilter(r):
                for c in cols:
                    out[keyf(r)][c] += int(r[c])
    return dict(out)


got_flows = sums(f"{csvdir}/flows.csv", lambda r: (r["dir"], r["src"], r["dst"], int(r["dqpn"])), FLOW,
                 lambda r: r["ifname"] == ifname)
want_flows = sums(f"{tallydir}/flows.csv", lambda r: (SIDE[r["side"]], r["src"], r["dst"], int(r["dqpn"])),
                  FLOW, lambda r: True)
check("flows.csv totals equal the generator's tally, flow by flow", got_flows, want_flows)

got_pfc = sums(f"{csvdir}/pfc.csv", lambda r: (r["dir"], r["prio"]), PFC, lambda r: r["ifname"] == ifname)
want_pfc = sums(f"{tallydir}/pfc.csv", lambda r: (SIDE[r["side"]], r["prio"]), PFC, lambda r: True)
if want_pfc or got_pfc:
    check("pfc.csv totals equal the generator's tally, priority by priority", got_pfc, want_pfc)
sys.exit(1 if failed else 0)
