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
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import kv, sums  # noqa: E402
from rtlib.roce import FLOW_COLS, PFC_COLS  # noqa: E402

name, csvdir, tallydir, ifname = sys.argv[1:5]
C = Checker(f"{name}: ", "rocetop", "generator", need_want=True)
summary = kv(f"{tallydir}/summary.txt")
mtype, session = summary.get("mirror", ""), summary.get("mirror_session", "")


def session_of(side):
    if mtype == "erspan3":
        return f"erspan3:{session}:{'egress' if side == 'data' else 'ingress'}"
    return f"{mtype}:{session}"


mine = lambda r: r["ifname"] == ifname and r["dir"] == "ingress"  # noqa: E731
C.check(f"the generator sent {mtype} mirror copies of every frame",
        (mtype in ("erspan2", "erspan3", "vxlan"), summary.get("frames_mirror"), summary.get("mirror_errors")),
        (True, summary.get("frames_total"), "0"))
got = sums(f"{csvdir}/flows.csv", lambda r: (r["mirror"], r["src"], r["dst"], int(r["dqpn"])), FLOW_COLS, mine)
want = sums(f"{tallydir}/flows.csv", lambda r: (session_of(r["side"]), r["src"], r["dst"], int(r["dqpn"])),
            FLOW_COLS)
C.check("flows.csv on the collector equals the generator's tally, flow by flow, in its mirror session",
        got, want)
got_pfc = sums(f"{csvdir}/pfc.csv", lambda r: r["prio"], PFC_COLS, mine)
want_pfc = sums(f"{tallydir}/pfc.csv", lambda r: r["prio"], PFC_COLS)
if want_pfc or got_pfc:
    C.check("pfc.csv on the collector equals the generator's tally, priority by priority", got_pfc, want_pfc)
st = sums(f"{csvdir}/stats.csv", lambda r: "all", ("mirrored",), mine)
C.check("stats.csv: the collector decapsulated every mirror copy the generator sent",
        st.get("all", {}).get("mirrored"), int(summary.get("frames_mirror", "-1")))
C.done()
