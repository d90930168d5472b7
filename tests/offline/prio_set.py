#!/usr/bin/python3
"""A flow's priorities and DSCPs are those of every packet it carried, not of
its last one. gen PCAP writes a scapy capture of four 1-s intervals:

- R 10.9.0.2 -> 10.9.0.1 QP 769, untagged: ACKs on DSCP 26 (priority 3) and
  CNPs on DSCP 48 (priority 6) in every interval, its last packet a CNP in
  intervals 0 and 2 and an ACK in 1 and 3 (the last packet's priority flips);
- D 10.9.0.1 -> 10.9.0.2 QP 770: RDMA WRITEs on DSCP 26 only;
- V 10.9.0.4 -> 10.9.0.3 QP 771, 802.1Q-tagged: ACKs with PCP 3 and DSCP 10,
  CNPs with PCP 5 and DSCP 48 (a tagged frame's priority is its PCP);
- Q 10.9.0.5 -> 10.9.0.6 QP 772: DSCP 34 (priority 4) from interval 2 on.

check KIND OUT PCAP [PRIO]: the expected sets come from tshark's dissection of
the capture (ip.dsfield.dscp, vlan.priority), per flow, over its packets up
to the end of each interval (intervals of 1 s from the first frame):
- json: --batch --json: every interval lists the flows with packets in it,
  each with "prios" and "dscps" equal to its sets so far;
- filter: --batch --json --filter 'prio PRIO': every interval lists exactly
  the flows with packets in it whose set so far holds PRIO;
- csv: flows.csv's prios and dscps columns ("3" or "3,6"), row by row.
"""
import csv
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import roce, tshark  # noqa: E402
from rtlib.check import Checker  # noqa: E402

T0 = 1_700_000_000.0


def gen(pcap):
    from scapy.all import wrpcap
    from scapy.contrib.roce import BTH, AETH
    pkts = []

    def add(t, src, dst, bth, tos, vlan=None, prio=0):
        p = roce.roce(src, dst, bth, tos=tos, vlan=vlan, prio=prio)
        p.time = T0 + t
        pkts.append(p)

    def ack(qp, psn):
        return BTH(opcode=0x11, dqpn=qp, psn=psn) / AETH(syndrome=0, msn=psn)

    def cnp(qp):
        return BTH(opcode=0x81, dqpn=qp) / (b"\0" * 16)
    add(0.0, "10.9.0.1", "10.9.0.2", roce.write_only(770, 0), 26 << 2 | 2)
    for k in range(4):
        last_cnp = k % 2 == 0
        add(k + 0.2, "10.9.0.2", "10.9.0.1", ack(769, k), 26 << 2)
        add(k + 0.5 if last_cnp else k + 0.8, "10.9.0.2", "10.9.0.1", ack(769, k + 100), 26 << 2)
        add(k + 0.8 if last_cnp else k + 0.5, "10.9.0.2", "10.9.0.1", cnp(769), 48 << 2 | 2)
        for j in range(3):
            add(k + 0.1 + j * 0.3, "10.9.0.1", "10.9.0.2", roce.write_only(770, k * 3 + j + 1), 26 << 2 | 2)
        add(k + 0.3 if last_cnp else k + 0.7, "10.9.0.4", "10.9.0.3", ack(771, k), 10 << 2, vlan=10, prio=3)
        add(k + 0.7 if last_cnp else k + 0.3, "10.9.0.4", "10.9.0.3", cnp(771), 48 << 2 | 2, vlan=10, prio=5)
        if k >= 2:
            add(k + 0.4, "10.9.0.5", "10.9.0.6", roce.write_only(772, k), 34 << 2 | 2)
    pkts.sort(key=lambda p: p.time)
    wrpcap(pcap, pkts)


def expected(pcap):
    """Per interval: {flow key: (prios, dscps)} of the flows with packets in
    it, the sets over the flow's packets up to the interval's end."""
    rows = tshark.fields(pcap, ["frame.time_epoch", "ip.src", "ip.dst", "infiniband.bth.destqp",
                                "ip.dsfield.dscp", "vlan.priority"], "infiniband.bth")
    rows.sort(key=lambda r: float(r[0]))
    t_first = float(rows[0][0])
    sets = defaultdict(lambda: (set(), set()))
    out = defaultdict(dict)
    for t, src, dst, qp, dscp, pcp in rows:
        key = (src, dst, int(qp, 0))
        prios, dscps = sets[key]
        dscps.add(int(dscp, 0))
        prios.add(int(pcp, 0) if pcp else int(dscp, 0) >> 3)
        out[int(float(t) - t_first)][key] = (sorted(prios), sorted(dscps))
    return dict(out)


def json_intervals(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip() and "end" not in json.loads(line)]


def main():
    if sys.argv[1] == "gen":
        gen(sys.argv[2])
        return
    kind, out, pcap = sys.argv[1:4]
    C = Checker(f"prio_set_{kind}: ", "rocetop", "tshark", need_want=True)
    want = expected(pcap)
    if kind == "json":
        got = {k: {(f["src"], f["dst"], f["dqpn"]): (f["prios"], f["dscps"]) for f in iv["flows"]}
               for k, iv in enumerate(json_intervals(out))}
        C.check("each interval's flows, their priorities and DSCPs so far", got, want)
    elif kind == "filter":
        p = int(sys.argv[4])
        got = {k: sorted((f["src"], f["dst"], f["dqpn"]) for f in iv["flows"])
               for k, iv in enumerate(json_intervals(out))}
        w = {k: sorted(key for key, (prios, _) in flows.items() if p in prios) for k, flows in want.items()}
        C.check(f"--filter 'prio {p}' keeps in each interval the flows that carried it", got, w)
    else:
        got = defaultdict(dict)
        times = []
        for r in csv.DictReader(open(os.path.join(out, "flows.csv"))):
            if r["time"] not in times:
                times.append(r["time"])
            got[times.index(r["time"])][(r["src"], r["dst"], int(r["dqpn"]))] = (
                [int(x) for x in r["prios"].split(",")], [int(x) for x in r["dscps"].split(",")])
        C.check("flows.csv's prios and dscps, row by row", dict(got), want)
    C.done()


main()
