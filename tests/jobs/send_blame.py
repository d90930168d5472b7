#!/usr/bin/env python3
"""Send test_jobs_blame.sh's RoCEv2 packets with scapy, from one side of the
veth pair, and write what was sent (one JSON line per packet: its addresses,
QP, direction as the watched host sees it, CE, CNP), counted from the built
frames' own fields.

The watched host is 192.168.1.10, the hwhost fixture's local address
(tests/fixtures/hwhost/make-fixtures.py: QP 282 <-> 691 with .20, pid 4242;
300 <-> 700 with .30 and 301 <-> 701 with .31, pid 5151).
  in:  data into .10 (a receiver's marking point, CE seen): .20 -> QP 282
       (100, 20 CE), .30 -> QP 300 (300, 60 CE), .40 -> QP 999, no QP of
       the host (100, 20 CE); CNPs from .31 to QP 301 (30): the switch marked
       .10's data to .31 and .31 says so.
  out: the host's CNPs to .20's QP 691 (15: for the CE of QP 282's data);
       data to .31 (a sender's marking point, no CE seen before the switch):
       QP 701 (60, pid 5151's), QP 555, no QP of the host (40).
Usage: send_blame.py in|out IFACE TALLY"""
import json
import os
import sys

from scapy.all import Raw, sendp, conf
from scapy.contrib.roce import BTH, cnp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from rtlib import roce as rl  # noqa: E402

conf.verb = 0
part, iface, tally = sys.argv[1:4]
H = "192.168.1.10"
ECT0, CE = 2, 3
pkts, rows = [], []


def data(src, dst, dqpn, n, ce, sport):
    """n RDMA WRITE ONLY packets, every n // ce-th of the first CE-marked."""
    step = n // ce if ce else 0
    marked = 0
    for i in range(n):
        mark = ce and i % step == 0 and marked < ce
        marked += bool(mark)
        tos = (26 << 2) | (CE if mark else ECT0)
        pkts.append(rl.roce(src, dst, BTH(opcode=0x0a, dqpn=dqpn, psn=i) / Raw(bytes(64)), tos=tos, sport=sport))


def cnps(src, dst, dqpn, n, sport):
    for _ in range(n):
        pkts.append(rl.roce(src, dst, cnp(dqpn), tos=(48 << 2) | ECT0, sport=sport))


if part == "in":
    data("192.168.1.20", H, 282, 100, 20, 49152)
    data("192.168.1.30", H, 300, 300, 60, 49153)
    data("192.168.1.40", H, 999, 100, 20, 49154)
    cnps("192.168.1.31", H, 301, 30, 49155)
else:
    cnps(H, "192.168.1.20", 691, 15, 49156)
    data(H, "192.168.1.31", 701, 60, 0, 49157)
    data(H, "192.168.1.31", 555, 40, 0, 49158)

# the tally, from the frames as built (scapy's own dissection of the bytes)
from scapy.all import Ether, IP  # noqa: E402
raw = [bytes(p) for p in pkts]
with open(tally, "w") as o:
    for b in raw:
        p = Ether(b)
        o.write(json.dumps({"src": p[IP].src, "dst": p[IP].dst, "dqpn": p[BTH].dqpn,
                            "dir": "ingress" if part == "in" else "egress",
                            "ce": (p[IP].tos & 3) == CE, "cnp": p[BTH].opcode == 0x81}) + "\n")
sendp([Ether(b) for b in raw], iface=iface, verbose=False)
print("sent", len(raw))
