#!/usr/bin/python3
"""Compare rocetop's CSV totals with the sender's tally and with tshark.

usage: compare.py CSVDIR IFNAME CAPTURE TALLY_IN TALLY_OUT
TALLY_IN: frames sent towards IFNAME (counted on ingress), TALLY_OUT: frames
sent out of IFNAME (egress). Prints PASS/FAIL lines; exits 1 on a failure.
"""
import csv
import subprocess
import sys
from collections import defaultdict

csvdir, ifname, capture, tin, tout = sys.argv[1:6]
COLS = "pkts,bytes,not_ect,ect0,ect1,ce,cnp,ack,nak,rnr_nak,nak_seq,nak_other".split(",")
failed = 0


def check(name, got, want):
    global failed
    if got == want:
        print(f"PASS {name}")
    else:
        failed += 1
        print(f"FAIL {name}")
        for k in sorted(set(got) | set(want), key=str):
            if got.get(k) != want.get(k):
                print(f"  {k}: rocetop/tshark {got.get(k)} sent {want.get(k)}")


def tally(prefix, kind):
    with open(f"{prefix}.{kind}.csv") as f:
        rows = list(csv.DictReader(f))
    if kind == "flows":
        return {(r["src"], r["dst"], int(r["dqpn"])): {c: int(r[c]) for c in COLS} for r in rows}
    return {r["prio"]: {c: int(r[c]) for c in ("frames", "xon", "quanta")} for r in rows}


def rocetop(kind, direction):
    out = defaultdict(lambda: defaultdict(int))
    with open(f"{csvdir}/{kind}.csv") as f:
        for r in csv.DictReader(f):
            if r["ifname"] != ifname or r["dir"] != direction:
                continue
            if kind == "flows":
                k, cols = (r["src"], r["dst"], int(r["dqpn"])), COLS
            else:
                k, cols = r["prio"], ("frames", "xon", "quanta")
            for c in cols:
                out[k][c] += int(r[c])
    return {k: dict(v) for k, v in out.items()}


def tshark_flows():
    """Per-flow counts from tshark's own RoCEv2 dissection of the capture."""
    cmd = ["tshark", "-r", capture, "-d", "udp.port==4791,infiniband", "-Y",
           "udp.dstport==4791 && !icmp && infiniband.bth", "-T", "fields", "-E", "separator=,",
           "-e", "ip.src", "-e", "ip.dst", "-e", "infiniband.bth.destqp", "-e", "infiniband.bth.opcode",
           "-e", "ip.dsfield.ecn", "-e", "frame.len", "-e", "infiniband.aeth.syndrome"]
    out = defaultdict(lambda: {c: 0 for c in COLS})
    for line in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines():
        src, dst, qp, op, ecn, flen, syn = line.split(",")
        f = out[(src, dst, int(qp, 0))]
        f["pkts"] += 1
        f["bytes"] += int(flen)
        f[["not_ect", "ect1", "ect0", "ce"][int(ecn, 0)]] += 1
        op = int(op, 0)
        if op == 0x81:
            f["cnp"] += 1
        if op == 0x11 and syn:
            s = int(syn, 0)
            t = (s >> 5) & 3
            if t == 0:
                f["ack"] += 1
            elif t == 1:
                f["rnr_nak"] += 1
            elif t == 3:
                f["nak"] += 1
                f["nak_seq" if (s & 0x1f) == 0 else "nak_other"] += 1
    return dict(out)


def tshark_pfc():
    cmd = ["tshark", "-r", capture, "-Y", "macc", "-T", "fields", "-E", "separator=,",
           "-e", "macc.opcode", "-e", "macc.pause_time", "-e", "macc.cbfc.enbv"] + \
          [x for c in range(8) for x in ("-e", f"macc.cbfc.pause_time.c{c}")]
    out = defaultdict(lambda: {"frames": 0, "xon": 0, "quanta": 0})

    def add(prio, t):
        out[prio]["frames"] += 1
        out[prio]["quanta"] += t
        out[prio]["xon"] += t == 0

    for line in subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines():
        v = line.split(",")
        op = int(v[0], 0)
        if op == 1:
            add("all", int(v[1], 0))
        elif op == 0x101:
            enbv = int(v[2], 0)
            for c in range(8):
                if enbv & (1 << c):
                    add(str(c), int(v[3 + c], 0))
    return dict(out)


sent_in, sent_out = tally(tin, "flows"), tally(tout, "flows")
check("ingress flows: rocetop flows.csv totals equal the sent tally", rocetop("flows", "ingress"), sent_in)
check("egress flows: rocetop flows.csv totals equal the sent tally", rocetop("flows", "egress"), sent_out)
check("ingress PFC: rocetop pfc.csv totals equal the sent tally", rocetop("pfc", "ingress"), tally(tin, "pfc"))
check("egress PFC: rocetop pfc.csv totals equal the sent tally", rocetop("pfc", "egress"), tally(tout, "pfc"))
both = dict(sent_in)
both.update(sent_out)
check("tshark's dissection of the capture agrees with the sent tally (flows)", tshark_flows(), both)
pin, pout = tally(tin, "pfc"), tally(tout, "pfc")
pboth = {k: {c: pin.get(k, {}).get(c, 0) + pout.get(k, {}).get(c, 0) for c in ("frames", "xon", "quanta")}
         for k in set(pin) | set(pout)}
check("tshark's dissection of the capture agrees with the sent tally (PFC)", tshark_pfc(), pboth)
sys.exit(1 if failed else 0)
