#!/usr/bin/python3
"""Compare rocetop's CSV totals with the sender's tally and with tshark.

usage: compare.py CSVDIR IFNAME CAPTURE TALLY_IN TALLY_OUT
TALLY_IN: frames sent towards IFNAME (counted on ingress), TALLY_OUT: frames
sent out of IFNAME (egress). Prints PASS/FAIL lines; exits 1 on a failure.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import tshark  # noqa: E402
from rtlib.check import Checker  # noqa: E402
from rtlib.outputs import sums  # noqa: E402
from rtlib.roce import FLOW_COLS, PFC_COLS  # noqa: E402

csvdir, ifname, capture, tin, tout = sys.argv[1:6]
C = Checker(got="rocetop/tshark", want="sent")


def flow_key(r):
    return (r["src"], r["dst"], int(r["dqpn"]))


def tally(prefix, kind):
    if kind == "flows":
        return sums(f"{prefix}.flows.csv", flow_key, FLOW_COLS)
    return sums(f"{prefix}.pfc.csv", lambda r: r["prio"], PFC_COLS)


def rocetop(kind, direction):
    keyf, cols = (flow_key, FLOW_COLS) if kind == "flows" else (lambda r: r["prio"], PFC_COLS)
    return sums(f"{csvdir}/{kind}.csv", keyf, cols,
                lambda r: r["ifname"] == ifname and r["dir"] == direction)


sent_in, sent_out = tally(tin, "flows"), tally(tout, "flows")
C.check("ingress flows: rocetop flows.csv totals equal the sent tally", rocetop("flows", "ingress"), sent_in)
C.check("egress flows: rocetop flows.csv totals equal the sent tally", rocetop("flows", "egress"), sent_out)
C.check("ingress PFC: rocetop pfc.csv totals equal the sent tally", rocetop("pfc", "ingress"), tally(tin, "pfc"))
C.check("egress PFC: rocetop pfc.csv totals equal the sent tally", rocetop("pfc", "egress"), tally(tout, "pfc"))
both = dict(sent_in)
both.update(sent_out)
C.check("tshark's dissection of the capture agrees with the sent tally (flows)", tshark.roce_flows(capture), both)
pin, pout = tally(tin, "pfc"), tally(tout, "pfc")
pboth = {k: {c: pin.get(k, {}).get(c, 0) + pout.get(k, {}).get(c, 0) for c in PFC_COLS}
         for k in set(pin) | set(pout)}
C.check("tshark's dissection of the capture agrees with the sent tally (PFC)", tshark.pfc(capture), pboth)
C.done()
