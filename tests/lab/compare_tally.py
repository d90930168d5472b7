#!/usr/bin/python3
"""Compare rocetop's CSV totals with rocetop-gen's tally.

usage: compare_tally.py NAME CSVDIR TALLYDIR IFNAME
The generator's frames with side=data cross IFNAME on ingress, side=rcv on
egress. Prints PASS/FAIL lines; exits 1 on a failure.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import sums  # noqa: E402
from rtlib.roce import FLOW_COLS, PFC_COLS  # noqa: E402

name, csvdir, tallydir, ifname = sys.argv[1:5]
SIDE = {"data": "ingress", "rcv": "egress"}
C = Checker(f"{name}: ", "rocetop", "generator", need_want=True)
mine = lambda r: r["ifname"] == ifname  # noqa: E731

got_flows = sums(f"{csvdir}/flows.csv", lambda r: (r["dir"], r["src"], r["dst"], int(r["dqpn"])), FLOW_COLS,
                 mine)
want_flows = sums(f"{tallydir}/flows.csv", lambda r: (SIDE[r["side"]], r["src"], r["dst"], int(r["dqpn"])),
                  FLOW_COLS)
C.check("flows.csv totals equal the generator's tally, flow by flow", got_flows, want_flows)

got_pfc = sums(f"{csvdir}/pfc.csv", lambda r: (r["dir"], r["prio"]), PFC_COLS, mine)
want_pfc = sums(f"{tallydir}/pfc.csv", lambda r: (SIDE[r["side"]], r["prio"]), PFC_COLS)
if want_pfc or got_pfc:
    C.check("pfc.csv totals equal the generator's tally, priority by priority", got_pfc, want_pfc)
C.done()
