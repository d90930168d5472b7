#!/usr/bin/python3
"""Compare rocetop's CSV files on the lab's mirror collector with rocetop-gen's
tally.

usage: compare_mirror_tally.py NAME CSVDIR TALLYDIR IFNAME
The generator's summary.txt says which mirror it sent (mirror, mirror_session,
frames_mirror); every frame of its flows.csv and pfc.csv went out once more as
a mirror copy, so on the collector's IFNAME (ingress) each flow appears in its
mirror session: erspan2:S, vxlan:S, or erspan3:S:egress for the frames leaving
the mirrored port towards the receiver (side data) and erspan3:S:ingress for
the receiver's (side rcv). stats.csv's mirrored column must sum to
frames_mirror, which must equal frames_total. Prints PASS/FAIL lines.
"""
import csv
import sys
from collections import defaultdict

name, csvdir, tallydir, ifname = sys.argv[1:5]
FLOW = "pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other".split(",")
PFC = ("frames", "xon", "quanta")
failed = 0
summary = dict(line.split(None, 1) for line in open(f"{tallydir}/summary.txt") if " " in line)
summary = {k: v.strip() for k, v in summary.items()}
mtype, session = summary.get("mirror", ""), summary.get("mirror_session", "")


def session_of(side):
    if mtype == "erspan3":
        return f"erspan3:{session}:{'egress' if side == 'data' else 'ingress'}"
    return f"{mtype}:{session}"


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


def sums(path, keyf, cols, rowfilter):
    out = defaultdict(lambda: {c: 0 for c in cols})
    with open(path) as f:
        for r in csv.DictReader(f):
            if rowfilter(r):
                for c in cols:
                    out[keyf(r)][c] += int(r[c])
    return dict(out)


mine = lambda r: r["ifname"] == ifname and r["dir"] == "ingress"  # noqa: E731
check(f"the generator sent {mtype} mirror copies of every frame",
      (mtype in ("erspan2", "erspan3", "vxlan"), summary.get("frames_mirror"), summary.get("mirror_errors")),
      (True, summary.get("frames_total"), "0"))
got = sums(f"{csvdir}/flows.csv", lambda r: (r["mirror"], r["src"], r["dst"], int(r["dqpn"])), FLOW, mine)
want = sums(f"{tallydir}/flows.csv", lambda r: (session_of(r["side"]), r["src"], r["dst"], int(r["dqpn"])),
            FLOW, lambda r: True)
check("flows.csv on the collector equals the generator's tally, flow by flow, in its mirror session",
      got, want)
got_pfc = sums(f"{csvdir}/pfc.csv", lambda r: r["prio"], PFC, mine)
want_pfc = sums(f"{tallydir}/pfc.csv", lambda r: r["prio"], PFC, lambda r: True)
if want_pfc or got_pfc:
    check("pfc.csv on the collector equals the generator's tally, priority by priority", got_pfc, want_pfc)
st = sums(f"{csvdir}/stats.csv", lambda r: "all", ("mirrored",), mine)
check("stats.csv: the collector decapsulated every mirror copy the generator sent",
      st.get("all", {}).get("mirrored"), int(summary.get("frames_mirror", "-1")))
sys.exit(1 if failed else 0)
